"""The precision stage (Plan -> Plan): contractions in tf32, fp16 or bf16, accumulation in fp32.

For fp16/bf16 every contraction kernel (a sum of products, seen through its GEMM view, or a
matrix-vector product with a large constant weight: `operands`) is rewritten so that its two
operands are rounded to the half type: a constant fp32 weight read only
as an operand is converted once at compile time (a new constant, half the bytes; other readers
keep the fp32 one), any other operand gets an explicit cast fp32 -> half -> fp32 in the tensor
expression (contractions with K < 16 stay fp32). The sum, the epilogue and every tensor outside the contraction stay fp32, so graph
inputs and outputs keep their types (a value whose every reader rounds it is then stored rounded: passes/half_storage.py). tf32 changes no data: fp32 storage, the kernel is marked and
Roller gives it tf32 mma candidates (operands rounded with cvt.rna at the fragment load).
With fp32 the plan is returned unchanged. Every rewritten spec carries `precision`."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..analysis.views import gemm_view, mul_factors, vars_of
from ..errors import CompilerError
from ..ir.dataflow import map_bodies, with_steps
from ..ir.dtypes import DType
from ..ir.graph import Constant, TensorType
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec, Stage
from ..ir.texpr import Binary, Cast, Expr, Load, TensorExpr, walk

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
HALF = {"fp16": DType.float16, "bf16": DType.bfloat16}
# Contractions over fewer terms (depthwise convolutions, outer products) stay fp32: shorter than
# one mma k step, they are memory-bound, and rounding their inputs costs accuracy for no speed.
MIN_REDUCED_K = 16
# A matrix-vector product is rounded only for a constant weight of at least this many bytes: its
# read is then the product's time (over 0.3 us at an H100's 3.35 TB/s, a sixth of a launch), and
# halving it pays for the rounding; a squeeze-excitation block's small FCs stay fp32 (and in the
# row chain the welder stage makes of them).
MIN_MATVEC_WEIGHT_BYTES = 1 << 20


def check_precision(precision: str) -> None:
    """Raises CompilerError for a precision the compiler does not know."""
    if precision not in PRECISIONS:
        raise CompilerError(f"precision '{precision}' is not supported", hint=f"use one of {', '.join(PRECISIONS)}")


def precision_plan(plan: Plan, precision: str, weights: bool = True) -> tuple[Plan, dict]:
    """The plan with its contractions in `precision` (fp32: the plan itself). `weights` False: a
    converted weight gets its name and type but no data (for pricing a plan that is not kept, e.g.
    LowerCtx.cheapest's ways, without converting gigabytes)."""
    check_precision(precision)
    stats = {"precision": precision, "contractions": 0, "weights_converted": 0, "weight_bytes_saved": 0}
    if precision == "fp32":
        return plan, stats
    return _plan(plan, precision, stats, weights), stats


def _plan(plan: Plan, precision: str, stats: dict, weights: bool) -> Plan:
    consts = dict(plan.constants)
    types = dict(plan.types)
    converted: dict[str, str] = {}
    steps = []
    for s in plan.steps:
        if isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec):
            spec = contraction_spec(s.spec, precision, consts, types, converted, stats, weights)
            s = ComputeStep(spec) if spec is not None else s
        else:   # a body keeps its own constants (its weights are read from there)
            s = map_bodies(s, lambda body: _plan(body, precision, stats, weights))
        steps.append(s)
    return with_steps(plan, steps, consts, types)


def contraction_spec(spec: KernelSpec, precision: str, consts: dict, types: dict, converted: dict,
                     stats: dict, weights: bool = True) -> KernelSpec | None:
    """A one-stage contraction spec rewritten for `precision` (None when it is not an untiled fp32
    contraction)."""
    if len(spec.stages) != 1 or spec.kind is not None or spec.precision is not None:
        return None
    stage = spec.stages[0]
    te = stage.expr
    if te.body.dtype is not DType.float32:
        return None
    found = operands(te)
    if found is None:
        return None
    a, b, k, matvec = found
    if k < MIN_REDUCED_K or matvec and not _large_weight((a, b), stage.inputs, consts):
        return None
    stats["contractions"] += 1
    in_values = list(stage.inputs)
    if precision in HALF:
        te, in_values = _round_operands(te, a, b, HALF[precision], in_values, consts, types, converted, stats,
                                        weights)
    return dataclasses.replace(spec, stages=(Stage(te, tuple(in_values), stage.output),), precision=precision)


def operands(te: TensorExpr) -> tuple[Expr, Expr, int, bool] | None:
    """A contraction's two operands, the extent it sums over, and whether it is a matrix-vector
    product: its GEMM view's A and B, or the two factors of a product where one operand has no
    output axis of its own (a decoder step's x . W with one token, which gemm_view leaves to the
    reduction kinds, and whose weight read is nearly all its traffic: rounded only when that
    weight is large, `_large_weight`). None for anything else: a sum of squares or a norm's
    variance (both factors over the same output axes) stays fp32."""
    view = gemm_view(te)
    if view is not None:
        return view.a, view.b, view.K, False
    if te.reduce is None or te.reduce.op != "sum":
        return None
    factors = mul_factors(te.body)
    if len(factors) != 2 or any(f.dtype is not te.body.dtype or not any(isinstance(x, Load) for x in walk(f))
                                for f in factors):
        return None
    out_vars = {f"i{d}" for d, e in enumerate(te.output.shape) if e != 1}
    reduced = {n for n, _ in te.reduce.axes}
    a, b = ((vars_of(f) & out_vars, vars_of(f) & reduced) for f in factors)
    if not (a[1] and b[1]) or a[0] == b[0] or not (a[0] <= b[0] or b[0] <= a[0]):
        return None
    return factors[0], factors[1], math.prod(e for _, e in te.reduce.axes), True


def _large_weight(factors, in_values, consts: dict) -> bool:
    """Whether one factor is a load of a constant of at least MIN_MATVEC_WEIGHT_BYTES."""
    return any(isinstance(f, Load) and in_values[f.arg] in consts
               and consts[in_values[f.arg]].type.nbytes >= MIN_MATVEC_WEIGHT_BYTES for f in factors)


def _loads_of(e, arg: int) -> int:
    return sum(1 for x in walk(e) if isinstance(x, Load) and x.arg == arg)


def _round_operands(te: TensorExpr, a_expr: Expr, b_expr: Expr, half: DType, in_values: list[str], consts: dict,
                    types: dict, converted: dict, stats: dict, weights: bool) -> tuple[TensorExpr, list[str]]:
    inputs = list(te.inputs)
    values = list(in_values)
    f32 = DType.float32

    def operand(e, other):
        if isinstance(e, Load) and e.dtype is f32:
            name = values[e.arg]
            c = consts.get(name)
            only_here = _loads_of(other, e.arg) == 0 and (te.epilogue is None or _loads_of(te.epilogue, e.arg) == 0)
            if c is not None and c.dtype is f32 and only_here:
                if name not in converted:
                    new = f"{name}.{half.name}"
                    k = 1
                    while new in types or new in consts:
                        new, k = f"{name}.{half.name}.{k}", k + 1
                    types[new] = TensorType(half, c.shape)
                    if weights:
                        consts[new] = Constant.from_array(np.asarray(c.array(), np.float32).astype(half.np))
                    converted[name] = new
                    stats["weights_converted"] += 1
                    stats["weight_bytes_saved"] += c.type.nbytes - types[new].nbytes
                new = converted[name]
                inputs[e.arg] = types[new]
                values[e.arg] = new
                return Cast(Load(e.arg, e.index, half), f32)
        return Cast(Cast(e, half), f32)

    a = operand(a_expr, b_expr)
    b = operand(b_expr, a_expr)
    return te.replace(inputs=tuple(inputs), body=Binary("mul", a, b, f32)), values
