"""Kind `flash_decoding`: attention with few queries a head (decoding: one new token against the
keys and values cached so far) as one kernel whose blocks split the keys, in fp32 on SIMT lanes
(any float inputs, any target).

The other attention kinds give a block query rows of one head and walk every key: with one query
a head that is one block a head, a few dozen blocks on a machine of over a hundred SMs, each
walking thousands of keys one round trip after another, and the tiled kinds' rows are mostly
padding. This kind reads the chain's algebra with the same recogniser (flash_attention.recognise)
and gives each block all the queries of one head (at most MAX_QUERIES) and one chunk of CH
consecutive keys. A head's keys are split across S = ceil(keys / CH) blocks (Flash-Decoding):

1. scores: a warp a key at a time, its 32 lanes over the head dimension (a coalesced read of the
   key's row), the dot product over a shuffle tree; each score's epilogue (scale, mask) and logit
   as the chain evaluates them, into shared memory (the chunk's scores fit: CH x queries);
2. the chunk's softmax exactly: each row's max and sum of exp(a - max) over the chunk;
3. O_s = sum_j p_j v_j over the chunk: a thread a value column (a coalesced read of the value's
   row), the chunk's keys split among thread groups when the columns are fewer than the threads.

With S > 1 each block writes (O_s, m_s, l_s) to an fp32 workspace and the last of a head's blocks
to arrive (split-K's counters: codegen/block_function.py) combines them in split order, the
usual rescale by exp(m_s - M); then the same closing as the other attention kinds
(codegen/flash_attention.py row_statistics, output_write). One launch, deterministic.

Grouped-query attention (several query heads reading one key/value head) reaches this kind in
two forms. Where the exporter broadcasts, the query heads sharing a key head are already rows of
one head (`queries`). Where it repeats the keys (Expand and Reshape: repeat_kv), each query head
reads its key head through a linearised index, K[(r + D j + D J h) / (D J G) % H_kv, ...]; a block
then takes G consecutive heads (`head_group`) when the operands' indices, with h = G h' + g and
simplified by the variables' bounds (analysis/quasi_affine.py), no longer read g: the G heads'
G x queries rows share one pass over the chunk's keys and values instead of G.

The chunk and the group are the micro-model's choice: shorter chunks give more blocks (more of the
machine's memory bandwidth in use, fewer round trips a block) for more partials to write and
combine; a larger group reads each key once for more queries, in fewer blocks."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..analysis.dependence import extents_of
from ..analysis.quasi_affine import simplify
from ..analysis.views import vars_of
from ..codegen.flash_decoding import PV_UNROLL, QK_UNROLL, THREADS, WARPS, render_flash_decoding
from ..ir.dtypes import DType
from ..ir.spec import KernelSpec
from ..ir.texpr import Expr, TensorExpr, Var, binary, const, substitute_vars
from ..ir.tiles import KernelConfig, RTile, Workload
from ..roller.construct import offered
from ..roller.micro_model import predict
from ..targets import Target
from .flash_attention import Attention, described, operand_ops, recognise

NAME = "flash_decoding"
TIER = None                 # not tiled by Roller: chosen by the welder stage's shared-memory level
MAX_QUERIES = 8             # queries a head (a block holds them all: their scores, a lane's sums)
MAX_HEAD_DIM = 256          # 8 head elements a lane
CHUNKS = (4096, 2048, 1024, 512, 256, 128, 64, 32)    # keys a block, longest first (a tie keeps fewer blocks)
SHARED_LIMIT = 48 * 1024    # bytes any target gives a block
# Warp instructions per score for the epilogue, the logit and the store, one lane's work that the
# warp issues: an estimate, to be checked on an H100 as the other attention kinds' are.
SCALAR_PER_SCORE = 20


@dataclass(frozen=True)
class Tiling:
    """CH keys a block, S splits of the keys; Q query rows a block (`group` heads' queries), D and
    DV the head sizes."""

    ch: int
    splits: int
    q: int
    d: int
    dv: int
    group: int = 1

    @property
    def dl(self) -> int:                 # head elements a lane, scores
        return -(-self.d // 32)

    @property
    def col_lanes(self) -> int:          # threads over O's columns (a warp multiple)
        return min(THREADS, -(-self.dv // 32) * 32)

    @property
    def key_groups(self) -> int:         # thread groups that split a chunk's keys in O's loop
        return THREADS // self.col_lanes

    @property
    def cm(self) -> int:                 # O's columns a thread
        return -(-self.dv // self.col_lanes)

    @property
    def ws_row(self) -> int:             # a query's partial in the workspace: O_s, then m_s and l_s
        return self.dv + 2

    def ws_elems(self, groups: int) -> int:
        return groups * self.splits * self.q * self.ws_row if self.splits > 1 else 0

    def shared_floats(self) -> dict[str, int]:
        """The block's shared arrays, in floats, in order: Q, the chunk's scores then weights, the
        rows' max and sum, the key groups' partial O (when there are several), the last-arrival
        flag."""
        return {"q": self.q * self.d, "p": self.q * self.ch, "stat": 2 * self.q,
                "o": THREADS * self.q * self.cm if self.key_groups > 1 else 0, "flag": 1}

    def shared_bytes(self) -> int:
        return 4 * sum(self.shared_floats().values())

    def registers(self) -> int:
        """Per thread, about: the score sums, O's accumulators, a key's operands, addressing."""
        return self.q + self.q * self.cm + self.dl + 40


def analyse(spec: KernelSpec) -> Attention | str:
    """The spec's attention as this kind computes it, or why it does not take it."""
    att = recognise(spec)
    return att if isinstance(att, str) else narrow(att)


def narrow(att: Attention) -> Attention | str:
    """A recognised attention (flash_attention.recognise) this kind renders, or why not."""
    if att.queries > MAX_QUERIES:
        return f"{att.queries} queries a head: over the {MAX_QUERIES} a block holds (not decoding)"
    if att.head_dim > MAX_HEAD_DIM:
        return f"head size {att.head_dim} is over {MAX_HEAD_DIM}"
    if not tilings(att):
        return "no chunk fits in shared memory"
    return dataclasses.replace(att, elem=DType.float32)


def applies(spec) -> str | None:
    """None when this kind renders `spec`, else why not."""
    if not isinstance(spec, KernelSpec):
        return "not a kernel spec"
    att = analyse(spec)
    return att if isinstance(att, str) else None


def head_groups(att: Attention) -> tuple[int, ...]:
    """The numbers G of consecutive heads (along the last head axis) a block may take: 1, and
    each G whose heads provably read the same keys and values, within MAX_QUERIES rows. A
    divisor of a proven group is one too (its heads lie in one of the larger groups), so that
    the key heads' whole groups are proven and smaller ones follow."""
    if att.heads == 0:
        return (1,)
    res, fin = att.chain.resident, att.chain.final
    last = att.heads - 1
    n = att.rows[last]
    proven = [g for g in range(2, n + 1) if n % g == 0
              and _reads_group(att.k, res.expr, f"i{last}", g)
              and _reads_group(att.v, fin.expr, f"i{fin.row_axes[last]}", g)]
    return tuple(sorted({1} | {d for g in proven for d in range(2, g + 1)
                               if g % d == 0 and d * att.queries <= MAX_QUERIES}))


def _reads_group(e: Expr, te: TensorExpr, head: str, g: int) -> bool:
    """Whether `e` (in `te`'s variables) has the same value for the g heads head = g h' + 0..g-1:
    with that substitution, simplified by the variables' bounds, it no longer reads the offset."""
    bounds = {v: (0, n - 1) for v, n in extents_of(te).items()}
    n = bounds.pop(head)[1] + 1
    bounds["by_h"], bounds["by_g"] = (0, n // g - 1), (0, g - 1)
    split = binary("add", binary("mul", Var("by_h"), const(g, DType.int64)), Var("by_g"))
    return "by_g" not in vars_of(simplify(substitute_vars(e, {head: split}), bounds))


def tilings(att: Attention, shared_limit: int = SHARED_LIMIT) -> list[Tiling]:
    """The (group, chunk) pairs that fit: for each head group, the shortest chunk that holds every
    key (one split), and the shorter ones, longest first."""
    J = att.chain.length
    one_split = min((ch for ch in CHUNKS if ch >= J), default=max(CHUNKS))
    out = []
    for g in head_groups(att):
        for ch in CHUNKS:
            if ch > one_split:
                continue
            t = Tiling(ch, -(-J // ch), g * att.queries, att.head_dim, att.value_dim, g)
            if t.shared_bytes() <= shared_limit:
                out.append(t)
    return out


def workload(att: Attention, spec: KernelSpec, t: Tiling) -> Workload:
    """What the micro-model prices of one chunk (all blocks)."""
    types = spec.types
    heads = att.head_count // t.group        # a block's heads read their keys once
    blocks = heads * t.splits
    keys = t.splits * t.ch
    out_bytes = sum(types[v].nbytes for v in spec.written)
    in_item = max(types[v].dtype.itemsize for v in spec.inputs)
    ws = 2 * 4 * t.ws_elems(heads)              # each partial written, and read back by the head's last block
    # warp instructions a key costs. Scores (one warp): the key's row, the q reads and FMAs of
    # each query, its shuffle tree (5 shuffles, 5 adds) and the scalar epilogue. O (each warp of
    # a key group): the value's columns, each weight's read, the FMAs.
    # Operand maps (flash_attention.operand_ops): the key's and the value's in those loads, and
    # the Q rows' (evaluated once a block) spread over the chunk's keys.
    col_warps = t.col_lanes // 32
    q_ops, k_ops, v_ops = operand_ops(att)
    qk_fma = t.q * t.dl
    qk_other = t.dl * (1 + k_ops) + t.q * t.dl + 10 * t.q + SCALAR_PER_SCORE * t.q + t.q * t.dl * q_ops / t.ch
    pv_fma, pv_other = col_warps * t.q * t.cm, col_warps * (t.cm * (1 + v_ops) + t.q)
    fma, other = qk_fma + pv_fma, qk_other + pv_other
    return Workload(
        blocks=blocks, threads=THREADS, shared_bytes=t.shared_bytes(), registers=min(255, t.registers()),
        flops=2.0 * 32 * keys * heads * fma, compute_dtype="float32",
        dram_bytes=sum(types[v].nbytes for v in spec.inputs) + out_bytes + ws,
        l2_bytes=heads * (t.q * t.d + keys * (t.d + t.dv)) * in_item + out_bytes + ws,
        shared_bytes_moved=4.0 * blocks * (t.q * t.d + t.ch * (32 * t.q * t.dl + 3 * t.q)
                                           + t.ch * t.q * col_warps * 32 // t.key_groups),
        ilp=min(QK_UNROLL, PV_UNROLL), issue_efficiency=fma / (fma + other),
        # Q's round trip; the scores' loop (QK_UNROLL keys a warp in flight); O's (PV_UNROLL a
        # thread); with splits, the partial's write and the last block's read of the others
        serial_steps=1 + -(-t.ch // (WARPS * QK_UNROLL)) + -(-t.ch // (t.key_groups * PV_UNROLL))
        + (2 if t.splits > 1 else 0))


def _config(t: Tiling, work: Workload, heads: int) -> KernelConfig:
    tiles = (RTile("block", (("m", t.q), ("n", t.ch), ("k", t.d), ("v", t.dv))),
             RTile("thread", (("m", t.q), ("n", t.key_groups), ("v", t.cm))))
    params = (("elem", "float32"),)
    if t.group > 1:
        params += (("head_group", t.group),)
    if t.splits > 1:       # the plan sizes the workspace from these (passes/roller.py with_workspace)
        params += (("split_k", t.splits), ("ws_elems", t.ws_elems(heads // t.group)))
    return KernelConfig(NAME, tiles, params, work)


def configuration(att: Attention, spec: KernelSpec, target: Target) -> KernelConfig | None:
    """The group and chunk the micro-model predicts fastest (the first listed on a tie); None when
    every tiling splits the keys and the compilation switched splits off (`--disable split_k`)."""
    cands = offered([_config(t, workload(att, spec, t), att.head_count)
                     for t in tilings(att, target.shared_per_block)])
    return min(cands, key=lambda c: predict(c, target).us) if cands else None


def tiling_of(config: KernelConfig, att: Attention) -> Tiling:
    blk = config.tile("block")
    ch = blk.size("n")
    return Tiling(ch, -(-att.chain.length // ch), blk.size("m"), blk.size("k"), blk.size("v"),
                  int(config.param("head_group", 1)))


def render(spec: KernelSpec, target=None):
    att = analyse(spec)
    if isinstance(att, str):
        raise ValueError(f"spec {spec.name}: {NAME} does not apply: {att}")
    if spec.config is not None:
        cfg = spec.config
    elif target is not None:
        cfg = configuration(att, spec, target)
        if cfg is None:
            raise ValueError(f"spec {spec.name}: {NAME} would split the keys of every tiling, and splits are off")
    else:       # no target to price with: the longest chunk that fits
        t0 = tilings(att)[0]
        cfg = _config(t0, workload(att, spec, t0), att.head_count)
    t = tiling_of(cfg, att)
    if t.splits > 1 and not spec.workspace:
        raise ValueError(f"spec {spec.name}: {NAME} splits the keys {t.splits} ways and has no workspace")
    config = described(NAME, cfg, att, target, "float32",
                       (("key_chunk", t.ch), ("key_splits", t.splits), ("head_group", t.group)))
    return [render_flash_decoding(spec, att, t, config)]
