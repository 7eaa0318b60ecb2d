"""The imma stage (Plan -> Plan): integer contractions on 8-bit tensor cores.

An integer contraction (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv, and what the
import writes for onnxruntime's quantized ops) sums products of zero-point-shifted 8-bit values,
sum_k (x - zx) * (w - zw), in int32. The integer mma (m16n8k32: s8 or u8 operands, s32 sums)
multiplies raw 8-bit values, so where one operand is a constant weight the zero points leave the
products:

- the weight's own zero point is applied now: w' = w - zw, a new constant, kept where its values
  fit 8 bits (int8, else uint8), stored with its reduction axes innermost (the mma's shared tiles
  are k-major: codegen/tensor_core.py);
- the other operand's zero point moves to the epilogue: sum_k (x - zx) w' = sum_k x w' - zx * S,
  with S = sum_k w', a constant per output element of the weight's own axes. A padded
  convolution reads zx at its pads instead of 0, so that x - zx is 0 there as before.

Both sides are the same int32 sums modulo 2^32 (a ring), so every result is bit for bit the same,
overflow included. The rewritten spec is marked precision `int8`: Roller prices the tc_gemm kind's
integer mma against the SIMT gemm and keeps the faster. Two run-time operands without zero points
(symmetric quantization) are the mma's products already and are only marked. Two run-time operands
with a zero point (it would need run-time sums), a weight whose shifted values pass 8 bits, and
anything not of these forms stay as they are. `--disable imma` leaves the plan as it is."""
from __future__ import annotations

import dataclasses

import numpy as np

from ..analysis.views import gemm_view, vars_of
from ..ir.dataflow import map_bodies, with_steps
from ..ir.dtypes import DType
from ..ir.graph import Constant, TensorType
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec, Stage
from ..ir.texpr import ACC, Binary, Cast, Const, Expr, Load, Select, Var, substitute
from .sparse24 import drop_unused_inputs

EIGHT_BITS = (DType.int8, DType.uint8)
I32 = DType.int32


@dataclasses.dataclass(frozen=True)
class _Operand:
    """One factor of the product: an 8-bit load widened to int32, minus a zero point `zp` (an int32
    expression of output vars, or None), behind a padding `guard` (or None)."""

    load: Load
    zp: Expr | None
    zp_load: Load | None
    guard: Expr | None


def imma_plan(plan: Plan) -> tuple[Plan, dict]:
    """The plan with each integer contraction it can move to 8-bit operands rewritten and marked
    `int8`; stats: contractions rewritten, weights shifted, and why others were kept."""
    stats = {"contractions": 0, "weights": 0, "kept": {}}
    return _plan(plan, stats), stats


def _plan(plan: Plan, stats: dict) -> Plan:
    consts = dict(plan.constants)
    types = dict(plan.types)
    made: dict = {}
    steps = []
    for s in plan.steps:
        if isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec):
            spec = _spec(s.spec, consts, types, made, stats)
            s = ComputeStep(spec) if spec is not None else s
        else:   # a body keeps its own constants
            s = map_bodies(s, lambda body: _plan(body, stats))
        steps.append(s)
    stats["weights"] += sum(1 for v in made.values() if v is not None)
    return with_steps(plan, steps, consts, types)


def _keep(stats: dict, why: str) -> None:
    stats["kept"][why] = stats["kept"].get(why, 0) + 1


def _spec(spec: KernelSpec, consts: dict, types: dict, made: dict, stats: dict) -> KernelSpec | None:
    if len(spec.stages) != 1 or spec.kind is not None or spec.precision is not None:
        return None
    stage = spec.stages[0]
    te = stage.expr
    if te.reduce is None or te.reduce.op != "sum" or te.body.dtype is not I32:
        return None
    view = gemm_view(te)
    if view is None:
        return None
    reduced = {n for n, _ in te.reduce.axes}
    ops = [_operand(e, reduced) for e in (view.a, view.b)]
    if None in ops:
        _keep(stats, "operands are not 8-bit values minus zero points")
        return None
    ops = [_without_zero_zp(op, stage.inputs, consts) for op in ops]
    weight_side = [i for i, op in enumerate(ops) if _constant(op, stage.inputs, consts)]
    if not weight_side:
        if any(op.zp is not None for op in ops):
            _keep(stats, "no constant operand, and a zero point")
            return None
        # two run-time 8-bit operands without zero points (symmetric quantization): their
        # products are already the mma's; only a padded read's zero becomes an 8-bit one
        stats["contractions"] += 1
        body = Binary("mul", Cast(_raw(ops[0]), I32), Cast(_raw(ops[1]), I32), I32)
        new, ins = drop_unused_inputs(te.replace(body=body), tuple(stage.inputs))
        return dataclasses.replace(spec, stages=(Stage(new, ins, stage.output),), precision="int8")
    w_i = weight_side[-1]
    w, x = ops[w_i], ops[1 - w_i]
    if w.guard is not None:
        _keep(stats, "the weight is read behind a guard")
        return None
    shifted = _shifted_weight(stage.inputs, w, reduced, consts, types, made)
    if shifted is None:
        _keep(stats, "the shifted weight does not fit 8 bits")
        return None
    (w_name, w_type, w_index), (s_name, s_type, s_index) = shifted
    stats["contractions"] += 1
    inputs, names = list(te.inputs), list(stage.inputs)
    w_arg = len(inputs)
    inputs.append(w_type)
    names.append(w_name)
    fx, fw = Cast(_raw(x), I32), Cast(Load(w_arg, w_index, w_type.dtype), I32)
    body = Binary("mul", fx, fw, I32) if w_i == 1 else Binary("mul", fw, fx, I32)
    acc: Expr = Var(ACC, I32)
    if x.zp is not None:
        s_arg = len(inputs)
        inputs.append(s_type)
        names.append(s_name)
        acc = Binary("sub", acc, Binary("mul", x.zp, Load(s_arg, s_index, I32), I32), I32)
    epi = acc if te.epilogue is None else substitute(te.epilogue, ACC, acc)
    new = te.replace(inputs=tuple(inputs), body=body, epilogue=None if epi == Var(ACC, I32) else epi)
    new, ins = drop_unused_inputs(new, tuple(names))
    return dataclasses.replace(spec, stages=(Stage(new, ins, stage.output),), precision="int8")


def _zero_point(e: Expr, dtype: DType, reduced: set[str]) -> Load | None:
    """The zero point's load in `Cast(Load zp, int32)`: the operand's own 8-bit type, read at output
    vars only (a scalar, a per-row or per-column vector)."""
    if isinstance(e, Cast) and e.dtype is I32 and isinstance(e.x, Load) and e.x.dtype is dtype \
            and not vars_of(e.x) & reduced:
        return e.x
    return None


def _operand(e: Expr, reduced: set[str]) -> _Operand | None:
    guard = None
    if isinstance(e, Select) and isinstance(e.b, Const) and e.b.value == 0:
        guard, e = e.cond, e.a
    zp = zp_load = None
    if isinstance(e, Binary) and e.fn == "sub":
        e, zp = e.a, e.b
    if not (isinstance(e, Cast) and e.dtype is I32 and isinstance(e.x, Load) and e.x.dtype in EIGHT_BITS):
        return None
    if zp is not None:
        zp_load = _zero_point(zp, e.x.dtype, reduced)
        if zp_load is None:
            return None
    return _Operand(e.x, zp, zp_load, guard)


def _raw(op: _Operand) -> Expr:
    """The operand's 8-bit value as the mma reads it: its load, or behind its guard the zero point
    (x - zx is 0 at a pad) or 0."""
    if op.guard is None:
        return op.load
    pad = op.zp_load if op.zp_load is not None else Const(0, op.load.dtype)
    return Select(op.guard, op.load, pad, op.load.dtype)


def _without_zero_zp(op: _Operand, names, consts: dict) -> _Operand:
    """`op` without its zero point where that is a constant of zeros (an explicit symmetric one)."""
    if op.zp_load is None or names[op.zp_load.arg] not in consts or consts[names[op.zp_load.arg]].array().any():
        return op
    return dataclasses.replace(op, zp=None, zp_load=None)


def _constant(op: _Operand, names, consts: dict) -> bool:
    return names[op.load.arg] in consts and (op.zp_load is None or names[op.zp_load.arg] in consts)


def _shifted_weight(names, w: _Operand, reduced: set[str], consts: dict, types: dict, made: dict):
    """((name, type, load index) of w - zw stored k-major, (the same) of its sums over the
    reduction axes), made once per weight and zero point; None where the load's index is not one
    var or a 0 per axis, or the shifted values pass 8 bits."""
    idx = w.load.index
    if not all(isinstance(i, Var) or (isinstance(i, Const) and i.value == 0) for i in idx):
        return None
    axis_vars = [i.name if isinstance(i, Var) else None for i in idx]
    if len({v for v in axis_vars if v}) != sum(1 for v in axis_vars if v):
        return None
    zp_name = names[w.zp_load.arg] if w.zp_load is not None else None
    zp_index = w.zp_load.index if w.zp_load is not None else ()
    key = (names[w.load.arg], zp_name, zp_index, tuple(axis_vars), frozenset(reduced))
    if key not in made:
        made[key] = _make(names[w.load.arg], zp_name, zp_index, axis_vars, reduced, consts, types)
    found = made[key]
    if found is None:
        return None
    (wn, wt, order), (sn, st, keep) = found
    return (wn, wt, tuple(idx[d] for d in order)), (sn, st, tuple(idx[d] for d in keep))


def _make(name: str, zp_name: str | None, zp_index, axis_vars, reduced: set[str], consts: dict, types: dict):
    w = consts[name].array().astype(np.int64)
    if zp_name is not None:
        zp = consts[zp_name].array().astype(np.int64)
        # the zero point broadcast over the weight: each of its axes read at one of the weight's vars
        take = tuple(0 if isinstance(i, Const) else slice(None) for i in zp_index)
        zp = zp[take] if take else zp.reshape(())
        zp_vars = [i.name for i in zp_index if isinstance(i, Var)]
        if any(v not in axis_vars for v in zp_vars):
            return None
        src = [axis_vars.index(v) for v in zp_vars]
        zp = np.transpose(zp, np.argsort(src)) if len(src) > 1 else zp
        shape = [1] * w.ndim
        for d, n in zip(sorted(src), zp.shape if zp.ndim else ()):
            shape[d] = n
        w = w - zp.reshape(shape)
    if w.size == 0:
        return None
    lo, hi = int(w.min()), int(w.max())
    dtype = DType.int8 if lo >= -128 and hi <= 127 else (DType.uint8 if lo >= 0 and hi <= 255 else None)
    if dtype is None:
        return None
    red_axes = [d for d, v in enumerate(axis_vars) if v in reduced]
    keep = [d for d in range(w.ndim) if d not in red_axes]
    order = keep + red_axes          # k innermost: the mma's tiles are k-major
    sums = w.sum(axis=tuple(red_axes))
    if sums.size and (sums.min() < -(1 << 31) or sums.max() >= 1 << 31):
        return None
    shifted = np.ascontiguousarray(np.transpose(w, order)).astype(dtype.np)
    out = []
    for suffix, arr, dt in ((".imma", shifted, dtype), (".imma_sums", sums.astype(np.int32), I32)):
        new, k = f"{name}{suffix}", 1
        while new in types or new in consts:
            new, k = f"{name}{suffix}.{k}", k + 1
        types[new] = TensorType(dt, tuple(arr.shape))
        consts[new] = Constant.from_array(arr)
        out.append((new, types[new]))
    (wn, wt), (sn, st) = out
    return (wn, wt, order), (sn, st, keep)
