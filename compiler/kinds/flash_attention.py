"""Kind `flash_attention`: a softmax-weighted contraction (attention) as one kernel that walks the
keys in tiles with an online softmax, on tensor cores (mma.sync, fp16/bf16, sm_80+).

Welder's shared-memory level makes attention one row chain (kinds/resident_rows.py): QK^T
resident in shared memory, a row max and a row sum of exponentials, then P.V. That kind keeps a
block's whole rows, so its rows must fit in shared memory and it computes both products on SIMT
lanes. This kind takes the same chain when its tensor expressions have the softmax's algebra
(read off the expressions, never off op names):

- the resident stage S is a contraction sum_r x(row, r) * y(j, r) with any epilogue (scale, mask);
- the first statistic is m = phi(max_j a_j), where a_j = A(S[row, j], ...) is any expression of
  the row's value at j (a cast, an added mask) and phi any map of the max (a -inf -> 0 guard);
- the second is l = psi(sum_j exp(a_j - m)), the same a_j;
- the final stage is E(sum_j w_j * v(j, c)) with w_j = exp(a_j - m), optionally divided by l,
  optionally cast and wrapped in a NaN guard (where(isnan(w), 0, w)); E any map that may read m
  and l (the ONNX Attention op divides there: l == 0 ? 0 : acc / l).

Softmax is invariant to the shift, so the kernel keeps a running max m~ and rescales what it has
summed when m~ grows (FlashAttention's online softmax): sum_j exp(a_j - m~) v_j and l~, exactly
the chain's values times exp(m~ - m) at the end (1 unless phi moved the max). No S x S matrix
exists anywhere, and the row length is unbounded. Rounding differs from the chain's order of
evaluation (the weights are not rounded to the stored type before the product; the sum runs in
key tiles), as in every fused attention.

The block: WARPS warps, 16 query rows each, of one head (the leading row axes that the key and
value operands read); each key tile of BC keys is loaded into shared memory as the mma type,
S = Q.K^T and O += P.V are m16n8k16 mma.sync with P taken from S's accumulators in registers."""
from __future__ import annotations

import dataclasses
import functools
import json
import math
from dataclasses import dataclass

from ..analysis.views import vars_of
from ..codegen.flash_attention import L_VALUE, M_VALUE, S_VALUE, render_flash_attention
from ..ir.dtypes import DType
from ..ir.spec import KernelSpec, Level
from ..ir.texpr import (Binary, Cast, Const, Expr, Load, Select, TensorExpr, Unary, Var, map_children, replace_loads,
                        substitute_vars, value_ops, walk)
from ..roller.cost_model import LAUNCH_US
from ..roller.micro_model import predict
from ..ir.tiles import KernelConfig, RTile, Workload
from ..targets import Target
from . import resident_rows
from .resident_rows import Reader, RowChain

NAME = "flash_attention"
TIER = None                 # not tiled by Roller: chosen by the welder stage's shared-memory level
TENSOR_CORE = True
WARPS = 4
MMA_ROWS = 16               # query rows per warp (an m16 tile)
SHARED_LIMIT = 48 * 1024    # bytes a block may take without the opt-in
MAX_HEAD_DIM = 256          # D and Dv beyond this would spill the accumulators
ELEMS = {"fp16": DType.float16, "bf16": DType.bfloat16}


@dataclass(frozen=True)
class Attention:
    """What `analyse` read from a row chain. Expressions keep their reader's variables: `q`, `k`
    and `score` are in the resident stage's (rows i0.., key i<n>, reduction r0), `logit`,
    `max_epilogue` and `sum_epilogue` in the statistics' (rows i0.., key `key_var`), `v` and
    `epilogue` in the final stage's."""

    chain: RowChain
    elem: DType | None            # the mma operand type (None: not a 16-bit product)
    heads: int                    # leading row axes a block shares (those K and V read)
    head_dim: int                 # D: the resident contraction's extent
    q: Expr                       # x(row, r)
    k: Expr                       # y(j, r)
    score: Expr | None            # S's epilogue (acc -> S), None for acc
    logit: Expr                   # a_j with S read as Var S_VALUE
    key_var: str                  # the statistics' reduction variable
    max_epilogue: Expr | None     # phi(acc)
    sum_epilogue: Expr | None     # psi(acc)
    divided: bool                 # w_j = exp(a_j - m) / l (else exp(a_j - m))
    guarded: bool                 # w_j wrapped in where(isnan(w), 0, w), or l == 0 ? 0 : w
    v: Expr                       # v(j, c)
    epilogue: Expr | None         # E(acc), m and l read as Vars M_VALUE, L_VALUE

    @property
    def rows(self) -> tuple[int, ...]:
        return self.chain.rows

    @property
    def head_count(self) -> int:
        return math.prod(self.rows[:self.heads])

    @property
    def queries(self) -> int:
        return math.prod(self.rows[self.heads:])

    @property
    def cols(self) -> tuple[int, ...]:
        te = self.chain.final.expr
        return tuple(a for a in range(te.output.rank) if a not in self.chain.final.row_axes)

    @property
    def value_dim(self) -> int:
        return math.prod(self.chain.final.expr.output.shape[a] for a in self.cols)


@dataclass(frozen=True)
class Tiling:
    """The block's shape: BR query rows (WARPS_USED warps), BC keys a tile, padded dims."""

    br: int
    bc: int
    d16: int
    dv16: int

    @property
    def warps(self) -> int:
        return self.br // MMA_ROWS

    @property
    def q_pitch(self) -> int:       # elements a shared row holds: 8 more than used (16 bytes),
        return self.d16 + 8         # so ldmatrix's eight row addresses fall in distinct banks

    @property
    def v_pitch(self) -> int:
        return self.dv16 + 8

    def shared_bytes(self, eb: int = 2) -> int:
        return eb * ((self.br + self.bc) * self.q_pitch + self.bc * self.v_pitch)


def tiling(att: Attention) -> Tiling | None:
    """The largest block shape within shared memory: as many query rows as there are (up to
    WARPS m16 tiles), then as many keys a tile (64, 32 or 16) as fit beside them."""
    d16, dv16 = -(-att.head_dim // 16) * 16, -(-att.value_dim // 16) * 16
    rows_wanted = min(WARPS * MMA_ROWS, -(-att.queries // MMA_ROWS) * MMA_ROWS)
    for br in (64, 32, 16):
        if br > rows_wanted and br > MMA_ROWS:
            continue
        for bc in (64, 32, 16):
            t = Tiling(br, bc, d16, dv16)
            if t.shared_bytes() <= SHARED_LIMIT:
                return t
    return None


def applies(spec) -> str | None:
    """None when this kind renders `spec`, else why not (the target's arch is the pass's check)."""
    if not isinstance(spec, KernelSpec):
        return "not a kernel spec"
    att = analyse(spec)
    return att if isinstance(att, str) else None


def _maps_in_registers(spec: KernelSpec) -> KernelSpec:
    """`spec` with the maps its final stage reads carried in registers: resident_rows keeps the
    probabilities in shared memory so that P.V reads each once (passes/resident.py
    `_computed_once`); this kernel computes them a tile at a time, in registers, either way."""
    maps = {st.output for st in spec.stages[:-1] if st.expr.reduce is None and st.output not in spec.written
            and st.output in spec.stages[-1].inputs}
    if not any(lvl is Level.SHARED and v in maps for v, lvl in spec.carried):
        return spec
    return dataclasses.replace(spec, carried=tuple((v, Level.REGISTER if v in maps else lvl) for v, lvl in spec.carried))


def analyse(spec: KernelSpec) -> Attention | str:
    """The spec's attention on tensor cores, or why it is not one."""
    att = recognise(spec)
    return att if isinstance(att, str) else narrow(att)


def narrow(att: Attention) -> Attention | str:
    """A recognised attention this kind renders, or why not."""
    if att.elem is None:
        return "its product is not fp16 or bf16 (the tensor-core path)"
    if att.head_dim > MAX_HEAD_DIM or att.value_dim > MAX_HEAD_DIM:
        return f"head size {att.head_dim} x {att.value_dim} is over {MAX_HEAD_DIM}"
    if tiling(att) is None:
        return "no block shape fits in shared memory"
    return att


def recognise(spec: KernelSpec) -> Attention | str:
    """The spec's attention whatever its element type (`elem` None when the product is not in a
    16-bit type the mma takes), or why it is not one: kinds/flash_attention_simt.py computes the
    same algebra on SIMT lanes."""
    chain = resident_rows.analyse(_maps_in_registers(spec), fit=False)
    if isinstance(chain, str):
        return chain
    if len(chain.phases) != 3 or chain.phases[0].length is None or len(chain.stats) != 2:
        return "not a resident product with a max and a sum of exponentials"
    if len(spec.written) > 1:     # the scores exist only a tile at a time here
        return "writes its scores too"
    res, mx, sm, fin = chain.resident, chain.stats[0], chain.stats[1], chain.final
    if mx.expr.reduce.op != "max" or sm.expr.reduce.op != "sum":
        return "its statistics are not a max then a sum"
    elem = _elem(spec, res.expr)
    rte = res.expr
    if rte.reduce is None or rte.reduce.op != "sum" or len(rte.reduce.axes) != 1:
        return "the resident stage is not a contraction over one axis"
    key = f"i{rte.output.rank - 1}"
    sides = _sides(rte.body, lambda f: key not in vars_of(f))
    if sides is None:
        return "the resident stage is not a product of a query side and a key side"
    x, y = sides
    # the logit: the max's body, S read as a Var
    logit = _resident_as_var(mx, res.output)
    if logit is None or _reads_stats(mx, logit, chain):
        return "the max reads something other than the rows' values"
    key_var = mx.expr.reduce.axes[0][0]
    names = _value_ids(res.output, mx.output, sm.output)
    want_l = _canon(Unary("exp", Binary("sub", mx.expr.body, Load(-1, tuple(Var(f"i{a}") for a in range(len(chain.rows))),
                                                                     DType.float32), DType.float32), DType.float32),
                    mx.values, names, {}, {-1: mx.output})
    got_l = _canon(sm.expr.body, sm.values, names, {}, {})
    if not _same(got_l, want_l) or sm.expr.reduce.axes[0][0] != key_var:
        return "the sum is not of exp(logit - max)"
    # the final: sum_j w_j * v(j, c)
    fte = fin.expr
    if fte.reduce is None or fte.reduce.op != "sum" or len(fte.reduce.axes) != 1:
        return "the final stage is not a contraction over the keys"
    stat_values = {res.output, mx.output, sm.output}
    sides = _sides(fte.body, lambda f: _reads_values(fin, f, stat_values))
    if sides is None:
        return "the final stage is not a product of weights and values"
    w, v = sides
    # the final's variables as the statistics': its rows, and its key (a constant 0 when there is
    # one key: the lowering indexes an extent-1 axis by 0)
    key_index = Const(0, DType.int64) if chain.length == 1 else Var(key_var)
    rename = {f"i{a}": Var(f"i{p}") for p, a in enumerate(fin.row_axes)}
    rename[fte.reduce.axes[0][0]] = key_index
    logit_c = _canon(mx.expr.body, mx.values, names, {key_var: key_index}, {})
    weight = _weight(w, fin, names, rename, logit_c, mx.output, sm.output)
    if isinstance(weight, str):
        return weight
    divided, guarded = weight
    epilogue = None
    if fte.epilogue is not None and not (isinstance(fte.epilogue, Var) and fte.epilogue.name == "acc"):
        epilogue = _stats_as_vars(fin, fte.epilogue, mx.output, sm.output)
        if _reads_values(fin, epilogue, {res.output}):
            return "the final epilogue reads the rows other than through m and l"
    for st in (mx, sm):
        e = st.expr.epilogue
        if e is not None and any(isinstance(n, Load) for n in walk(e)):
            return f"{st.expr.name}: its epilogue loads"
    # heads: the leading row axes the key and value factors read (a block's rows share them)
    k_rows = {int(n[1:]) for n in vars_of(y) if n.startswith("i") and n[1:].isdigit() and n != key}
    v_rows = {fin.row_axes.index(int(n[1:])) for n in vars_of(v) if n.startswith("i") and n[1:].isdigit()
              and int(n[1:]) in fin.row_axes}
    heads = 1 + max(k_rows | v_rows, default=-1)
    att = Attention(chain, elem, heads, rte.reduce.extent, x, y,
                    None if _is_acc(rte.epilogue) else rte.epilogue, logit, key_var,
                    mx.expr.epilogue, sm.expr.epilogue, divided, guarded, v, epilogue)
    return att


def _elem(spec: KernelSpec, te: TensorExpr) -> DType | None:
    """The mma operand type: the precision stage's mark, else the product's operands' own 16-bit
    type (what its epilogue reads besides, an fp32 mask added to the widened scores as
    FlexAttention's body writes it, is no operand)."""
    if spec.precision in ELEMS:
        return ELEMS[spec.precision]
    operands = {e.arg for e in walk(te.body) if isinstance(e, Load)}
    types = {t.dtype for k, t in enumerate(te.inputs) if k in operands and t.dtype.is_float}
    if types and types <= {DType.float16} or types and types <= {DType.bfloat16}:
        return types.pop()
    return None


def _sides(body: Expr, first) -> tuple[Expr, Expr] | None:
    """The factors of a product (under a float cast) split in two: the product of those for which
    `first(factor)` holds, and of the rest; None when either side is empty."""
    if isinstance(body, Cast) and body.dtype.is_float:
        body = body.x
    factors = _product(body)
    a = [f for f in factors if first(f)]
    b = [f for f in factors if not first(f)]
    if not a or not b:
        return None
    return functools.reduce(lambda p, q: Binary("mul", p, q, body.dtype), a), \
        functools.reduce(lambda p, q: Binary("mul", p, q, body.dtype), b)


def _is_acc(e: Expr | None) -> bool:
    return e is None or (isinstance(e, Var) and e.name == "acc")


def _product(e: Expr) -> list[Expr]:
    """The factors of a product tree. Unlike views.mul_factors (a tiled GEMM's operands, which must
    share the product's type), any float types: the Attention op's weights are fp32 and its V fp16,
    and this kernel computes every product in fp32."""
    if isinstance(e, Binary) and e.fn == "mul":
        return _product(e.a) + _product(e.b)
    return [e]


def _reads_values(r: Reader, e: Expr, values: set[str]) -> bool:
    return any(isinstance(n, Load) and n.arg >= 0 and r.values[n.arg] in values for n in walk(e))


def _reads_stats(r: Reader, e: Expr, chain: RowChain) -> bool:
    return _reads_values(r, e, {s.output for s in chain.stats})


def _resident_as_var(r: Reader, value: str) -> Expr | None:
    """r's body with its loads of the resident value as Var S_VALUE (of the load's type)."""
    found = []

    def f(ld: Load) -> Expr:
        if r.values[ld.arg] != value:
            return ld
        found.append(ld)
        return Var(S_VALUE, ld.dtype)
    out = replace_loads(r.expr.body, f)
    return out if found else None


def _stats_as_vars(r: Reader, e: Expr, m: str, l_: str) -> Expr:
    """`e` with its loads of the statistics m and l as Vars M_VALUE and L_VALUE."""
    def f(ld: Load) -> Expr:
        v = r.values[ld.arg]
        return Var(M_VALUE, ld.dtype) if v == m else Var(L_VALUE, ld.dtype) if v == l_ else ld
    return replace_loads(e, f)


def _value_ids(*values: str) -> dict[str, int]:
    return {v: -(k + 1) for k, v in enumerate(values)}


def _canon(e: Expr, values, ids: dict[str, int], rename: dict[str, Expr], extra: dict[int, str]) -> Expr:
    """`e` with variables renamed and each load's argument replaced by a number naming its value
    (the chain's own values negative, externals by name's position in a shared table), so that
    expressions of different readers compare with ==."""
    def f(ld: Load) -> Expr:
        v = extra[ld.arg] if ld.arg in extra else values[ld.arg]
        if v not in ids:
            ids[v] = len(ids) + 1000
        return Load(ids[v], ld.index, ld.dtype)
    return replace_loads(substitute_vars(e, rename), f)


def _same(a: Expr, b: Expr) -> bool:
    return _strip_casts(a) == _strip_casts(b)


def _strip_casts(e: Expr) -> Expr:
    """Casts between float types removed and every float type read as fp32 (a value computed in
    fp32 and one rounded through fp16 are the same value to this recogniser; the kernel computes
    in fp32)."""
    if isinstance(e, Cast) and e.dtype.is_float and e.x.dtype.is_float:
        return _strip_casts(e.x)
    e = map_children(e, _strip_casts)
    return dataclasses.replace(e, dtype=DType.float32) if e.dtype.is_float else e


def _weight(w: Expr, fin: Reader, ids, rename, logit, m: str, l_: str) -> tuple[bool, bool] | str:
    """(divided by l, guarded) when w is exp(logit - m) [/ l] under casts and a NaN guard, or
    exp(logit - m) / l under a zero-sum guard."""
    w = _strip_casts(_canon(w, fin.values, ids, rename, {}))
    guarded = False
    if isinstance(w, Select) and isinstance(w.cond, Unary) and w.cond.fn == "isnan" and \
            isinstance(w.a, Const) and w.a.value == 0 and _strip_casts(w.cond.x) == w.b:
        w, guarded = w.b, True
    if isinstance(w, Select) and isinstance(w.a, Const) and w.a.value == 0 and _is_zero(w.cond, ids[l_]):
        # softmax written with a zero-sum guard (l == 0 ? 0 : exp(.) / l, ops/attention.py): a row
        # whose every key is masked; the kernel zeroes it where l is not positive
        w = _strip_casts(w.b)
        if not (isinstance(w, Binary) and w.fn == "div"):
            return "the weights are guarded against a zero sum but not divided by it"
        guarded = True
    divided = False
    if isinstance(w, Binary) and w.fn == "div":
        if not (isinstance(w.b, Load) and w.b.arg == ids[l_]):
            return "the weights are divided by something other than the sum"
        w, divided = w.a, True
    want = Unary("exp", Binary("sub", logit, Load(ids[m], (), DType.float32), DType.float32), DType.float32)
    if not (isinstance(w, Unary) and w.fn == "exp" and isinstance(w.x, Binary) and w.x.fn == "sub"
            and isinstance(w.x.b, Load) and w.x.b.arg == ids[m] and _strip_casts(w.x.a) == _strip_casts(want.x.a)):
        return "the final's weights are not exp(logit - max)"
    return divided, guarded


def _is_zero(cond: Expr, l_arg: int) -> bool:
    """cond is `l == 0` for the sum's load (under casts)."""
    return isinstance(cond, Binary) and cond.fn == "eq" and isinstance(_strip_casts(cond.a), Load) \
        and _strip_casts(cond.a).arg == l_arg and isinstance(cond.b, Const) and cond.b.value == 0


# --- the configuration and its price --------------------------------------------------------------

# Issue cycles a warp spends per m16n8k16 mma, and per score on the softmax's scalar work (the
# score's epilogue and logit, max, exp, rescale, pack): estimates for the micro-model's issue
# efficiency, to be checked on an H100 (FlashAttention's known limit is this scalar work).
MMA_ISSUE_CYCLES = 8
SCALAR_CYCLES_PER_SCORE = 20


def flops(att: Attention) -> int:
    """Two per multiply-add of both products, and the softmax's few per score."""
    n, J = math.prod(att.rows), att.chain.length
    return 2 * n * J * (att.head_dim + att.value_dim) + 4 * n * J


def operand_ops(att: Attention) -> tuple[int, int, int]:
    """Arithmetic operations an element of Q, K and V costs where the kernel loads it (texpr
    value_ops: a scale, a rotary embedding composed into the operand; index arithmetic is not
    counted). Every kind evaluates Q once a block and K and V once a key tile, and prices them
    there, so a map composed into an operand (passes/prologue.py) is weighed against its own launch."""
    return value_ops(att.q), value_ops(att.k), value_ops(att.v)


def configuration(att: Attention, spec: KernelSpec) -> KernelConfig:
    """The block shape and the workload the micro-model prices (roller/micro_model.py)."""
    t = tiling(att)
    blocks = att.head_count * -(-att.queries // t.br)
    keys = -(-att.chain.length // t.bc) * t.bc
    types = {}
    for st in spec.stages:
        types.update(zip(st.inputs, st.expr.inputs))
        types[st.output] = st.expr.output
    eb = att.elem.itemsize
    out_bytes = sum(types[v].nbytes for v in spec.written)
    per_block_loaded = (t.br * t.d16 + keys * (t.d16 + t.dv16)) * eb
    mmas = (t.bc // 8) * (t.d16 // 16) + (t.bc // 16) * (t.dv16 // 8)     # a warp's, per key tile
    mma_cycles = MMA_ISSUE_CYCLES * mmas
    # a warp's share of the operands' arithmetic a key tile: K's and V's tiles, and Q's tile
    # (loaded once) spread over the key tiles
    q_ops, k_ops, v_ops = operand_ops(att)
    operand_cycles = (t.bc * (t.d16 * k_ops + t.dv16 * v_ops) + t.br * t.d16 * q_ops * t.bc / keys) / (32 * t.warps)
    scalar_cycles = SCALAR_CYCLES_PER_SCORE * MMA_ROWS * t.bc // 32 + operand_cycles
    work = Workload(
        blocks=blocks, threads=32 * t.warps, shared_bytes=t.shared_bytes(),
        registers=min(255, 48 + 4 * (t.bc // 8) + 4 * (t.dv16 // 8)),
        flops=2 * blocks * t.br * keys * (t.d16 + t.dv16), compute_dtype=f"tc:{att.elem.name}",
        dram_bytes=sum(types[v].nbytes for v in spec.inputs) + out_bytes,
        l2_bytes=blocks * per_block_loaded + out_bytes,
        shared_bytes_moved=blocks * (per_block_loaded + t.warps * (keys // t.bc * MMA_ROWS * t.d16 + keys * (t.d16 + t.dv16)) * eb),
        ilp=t.bc / 8, issue_efficiency=mma_cycles / (mma_cycles + scalar_cycles),
        serial_steps=keys // t.bc + 1)     # the Q tile's round trip, then each key tile's, none in flight
    tiles = (RTile("block", (("m", t.br), ("n", t.bc), ("k", t.d16), ("v", t.dv16))),
             RTile("warp", (("m", MMA_ROWS), ("n", t.bc))))
    return KernelConfig(NAME, tiles, (("elem", att.elem.name),), work)


def tiling_of(config: KernelConfig) -> Tiling:
    blk = config.tile("block")
    return Tiling(blk.size("m"), blk.size("n"), blk.size("k"), blk.size("v"))


def predict_us(config: KernelConfig, target: Target) -> float:
    """The micro-model's time of a configuration's kernel, plus a launch."""
    return predict(config, target).us + LAUNCH_US


def available(target: Target, att: Attention) -> bool:
    """Whether the target has the m16n8k16 mma of the operand type."""
    return target.sm_version >= 80 and target.tensor_core_tflops(att.elem.name) > 0


def render(spec: KernelSpec, target=None):
    att = analyse(spec)
    if isinstance(att, str):
        raise ValueError(f"spec {spec.name}: {NAME} does not apply: {att}")
    cfg = spec.config if spec.config is not None else configuration(att, spec)
    t = tiling_of(cfg)
    config = described(NAME, cfg, att, target, att.elem.name, (("rows_per_block", t.br), ("key_tile", t.bc)))
    return [render_flash_attention(spec, att, t, config)]


def described(name: str, cfg: KernelConfig, att: Attention, target: Target | None, elem: str,
              shape: tuple[tuple[str, object], ...]) -> tuple[tuple[str, object], ...]:
    """An attention kernel's config for the report (the three attention kinds'): its kind,
    configuration and element type, its block `shape`, the attention's sizes and FLOPs, and with a
    target the micro-model's prediction (which the report's latency and roofline read)."""
    config = ((("schedule", name), ("config_key", cfg.key[:16]), ("tiles", cfg.text()), ("elem", elem)) + shape
              + (("row_length", att.chain.length), ("rows", math.prod(att.rows)), ("heads", att.head_count),
                 ("head_dim", att.head_dim), ("value_dim", att.value_dim), ("flops", flops(att))))
    if target is not None:
        pred = predict(cfg, target)
        config += (("predicted_us", round(pred.us, 4)), ("model", json.dumps(pred.as_dict(), sort_keys=True)))
    return config
