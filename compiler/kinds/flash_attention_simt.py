"""Kind `flash_attention_simt`: attention as one kernel with an online softmax over key tiles, as
kind flash_attention computes it, on SIMT lanes in fp32 (any float inputs, any target).

The tensor-core kind takes fp16/bf16 products on sm_80+. Without it an fp32 chain had only the
rows kernel (kinds/resident_rows.py), whose blocks hold whole rows of scores in shared memory, so
long rows leave few rows to a block and every block re-reads its head's K and V. This kind reads
the chain's algebra with the same recogniser (flash_attention.recognise) and keeps one key tile of
scores at a time. The welder stage prices it against the rows kernel and the members apart: at
32 heads x 2048 x 128 the tiled GEMMs apart are still predicted faster (both products are
compute-bound on SIMT lanes), and the S x S scores stay in DRAM (docs/fusion.md).

The block: 128 threads as 8 row groups of 16 lanes (a half-warp shares its rows, so a row's max
and sum are four shuffles); BR query rows of one head, TR = BR / 8 to a thread, rows g, g + 8,
...; each key tile of BC keys (TC = BC / 16 to a lane, keys t, t + 16, ...) is loaded into shared
memory in fp32. S = Q.K^T is a register tile of TR x TC scores per lane; the weights go to shared
memory so that O += P.V reads them by row (a broadcast within the half-warp) against V's columns
t, t + 16, ... K and V are loaded together, so a key tile costs one round trip to L2, which the
micro-model counts as the loop's serial steps. The block shape is the micro-model's choice
among those that fit the target's shared memory and the registers."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..codegen.flash_attention_simt import LANES, ROW_GROUPS, THREADS, render_flash_attention_simt
from ..ir.dtypes import DType
from ..ir.spec import KernelSpec
from ..ir.tiles import KernelConfig, RTile, Workload
from ..roller.micro_model import predict
from ..targets import Target
from .flash_attention import Attention, described, operand_ops, recognise

NAME = "flash_attention_simt"
TIER = None                 # not tiled by Roller: chosen by the welder stage's shared-memory level
SHARED_LIMIT = 48 * 1024    # bytes any target gives a block: the check that some shape fits
MAX_REGISTERS = 200         # the lanes' register tiles and statistics, of the 255 a thread may have
ROW_BLOCKS = (64, 32, 16, 8)
KEY_TILES = (64, 32, 16)
# Issue slots a lane spends per score on the softmax's scalar work (score epilogue, logit, max,
# exp, rescale, the weight's store): an estimate, to be checked on an H100 as the tensor-core
# kind's is.
SCALAR_PER_SCORE = 20


@dataclass(frozen=True)
class Tiling:
    """BR query rows a block, BC keys a tile; D and DV the head sizes (V's tile padded to CM
    columns a lane)."""

    br: int
    bc: int
    d: int
    dv: int

    @property
    def tr(self) -> int:                 # rows a lane
        return self.br // ROW_GROUPS

    @property
    def tc(self) -> int:                 # keys a lane, a tile
        return self.bc // LANES

    @property
    def cm(self) -> int:                 # output columns a lane
        return -(-self.dv // LANES)

    @property
    def d_pitch(self) -> int:            # a Q or K row in shared memory: odd, so the 16 keys a
        return self.d + 1 - self.d % 2   # half-warp reads at one d fall in distinct banks

    @property
    def v_pitch(self) -> int:
        return LANES * self.cm

    @property
    def p_pitch(self) -> int:            # a weights row: odd, the two rows of a warp apart
        return self.bc + 1

    def shared_bytes(self) -> int:
        return 4 * (self.br * self.d_pitch + self.bc * (self.d_pitch + self.v_pitch) + self.br * self.p_pitch)

    def registers(self) -> int:
        """Per thread, about: scores, accumulators, statistics, a d step's operands, addressing."""
        return self.tr * self.tc + self.tr * self.cm + 3 * self.tr + self.tc + 40


def tilings(att: Attention, shared_limit: int = SHARED_LIMIT) -> list[Tiling]:
    """The block shapes that fit: rows no more than the queries need (rounded up to the row
    groups), shared memory within `shared_limit` (a target's opt-in limit where one is known;
    the runtime opts a kernel in past 48 KiB), register tiles within MAX_REGISTERS."""
    rows_wanted = -(-att.queries // ROW_GROUPS) * ROW_GROUPS
    out = []
    for br in ROW_BLOCKS:
        if br > rows_wanted and br > ROW_GROUPS:
            continue
        for bc in KEY_TILES:
            t = Tiling(br, bc, att.head_dim, att.value_dim)
            if t.shared_bytes() <= shared_limit and t.registers() <= MAX_REGISTERS:
                out.append(t)
    return out


def analyse(spec: KernelSpec) -> Attention | str:
    """The spec's attention computed in fp32, or why this kind does not take it."""
    att = recognise(spec)
    return att if isinstance(att, str) else narrow(att)


def narrow(att: Attention) -> Attention | str:
    """A recognised attention (flash_attention.recognise) as this kind computes it, or why not."""
    if not tilings(att):
        return f"no block shape fits head sizes {att.head_dim} x {att.value_dim}"
    return dataclasses.replace(att, elem=DType.float32)


def applies(spec) -> str | None:
    """None when this kind renders `spec`, else why not."""
    if not isinstance(spec, KernelSpec):
        return "not a kernel spec"
    att = analyse(spec)
    return att if isinstance(att, str) else None


def workload(att: Attention, spec: KernelSpec, t: Tiling) -> Workload:
    """What the micro-model prices of one block shape (padded tiles, all blocks)."""
    types = spec.types
    blocks = att.head_count * -(-att.queries // t.br)
    tiles = -(-att.chain.length // t.bc)
    keys = tiles * t.bc
    out_bytes = sum(types[v].nbytes for v in spec.written)
    in_item = max(types[v].dtype.itemsize for v in spec.inputs)
    # per lane and key tile: the two products' FMAs, their shared loads, the softmax's scalar work
    fma = t.d * t.tr * t.tc + t.bc * t.tr * t.cm
    reads = t.d * (t.tr + t.tc) + t.bc * (t.tr + t.cm)
    scalar = SCALAR_PER_SCORE * t.tr * t.tc
    # the operands' arithmetic a lane spends a key tile (flash_attention.operand_ops): its share of
    # the K and V tiles, and of the Q tile (loaded once) spread over the key tiles
    q_ops, k_ops, v_ops = operand_ops(att)
    scalar += (t.bc * (t.d * k_ops + t.dv * v_ops) + t.br * t.d * q_ops / tiles) / THREADS
    stored = t.bc * (t.d + t.v_pitch) + t.br * t.bc      # the K and V tiles and the weights, a tile
    return Workload(
        blocks=blocks, threads=THREADS, shared_bytes=t.shared_bytes(), registers=min(255, t.registers()),
        flops=2.0 * blocks * THREADS * tiles * fma, compute_dtype="float32",
        dram_bytes=sum(types[v].nbytes for v in spec.inputs) + out_bytes,
        l2_bytes=blocks * (t.br * t.d + keys * (t.d + t.dv)) * in_item + out_bytes,
        shared_bytes_moved=4.0 * blocks * tiles * (stored + THREADS * reads),
        ilp=t.tr * t.tc, issue_efficiency=fma / (fma + reads + scalar),
        serial_steps=tiles + 1)     # the Q tile's round trip, then each key tile's, none in flight


def _config(t: Tiling, work: Workload) -> KernelConfig:
    tiles = (RTile("block", (("m", t.br), ("n", t.bc), ("k", t.d), ("v", t.dv))),
             RTile("thread", (("m", t.tr), ("n", t.tc), ("v", t.cm))))
    return KernelConfig(NAME, tiles, (("elem", "float32"),), work)


def configuration(att: Attention, spec: KernelSpec, target: Target) -> KernelConfig:
    """The block shape the micro-model predicts fastest (more rows a block first on a tie)."""
    cands = [_config(t, workload(att, spec, t)) for t in tilings(att, target.shared_per_block)]
    return min(cands, key=lambda c: predict(c, target).us)


def tiling_of(config: KernelConfig) -> Tiling:
    blk = config.tile("block")
    return Tiling(blk.size("m"), blk.size("n"), blk.size("k"), blk.size("v"))


def render(spec: KernelSpec, target=None):
    att = analyse(spec)
    if isinstance(att, str):
        raise ValueError(f"spec {spec.name}: {NAME} does not apply: {att}")
    if spec.config is not None:
        cfg = spec.config
    elif target is not None:
        cfg = configuration(att, spec, target)
    else:       # no target to price with: the first shape that fits
        t0 = tilings(att)[0]
        cfg = _config(t0, workload(att, spec, t0))
    t = tiling_of(cfg)
    config = described(NAME, cfg, att, target, "float32", (("rows_per_block", t.br), ("key_tile", t.bc)))
    return [render_flash_attention_simt(spec, att, t, config)]
