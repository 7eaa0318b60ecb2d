"""The precision stage (Plan -> Plan): contractions in tf32, fp16 or bf16, accumulation in fp32.

For fp16/bf16 every contraction kernel (a sum of products, seen through its GEMM view) is
rewritten so that its two operands are rounded to the half type: a constant fp32 weight read only
as an operand is converted once at compile time (a new constant, half the bytes; other readers
keep the fp32 one), any other operand gets an explicit cast fp32 -> half -> fp32 in the tensor
expression (contractions with K < 16 stay fp32). The sum, the epilogue and every tensor outside the contraction stay fp32, so graph
inputs and outputs keep their types. tf32 changes no data: fp32 storage, the kernel is marked and
Roller gives it tf32 mma candidates (operands rounded with cvt.rna at the fragment load).
With fp32 the plan is returned unchanged. Every rewritten spec carries `precision`."""
from __future__ import annotations

import dataclasses

import numpy as np

from ..analysis.views import gemm_view
from ..errors import CompilerError
from ..ir.dataflow import map_bodies, with_steps
from ..ir.dtypes import DType
from ..ir.graph import Constant, TensorType
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec, Stage
from ..ir.texpr import Binary, Cast, Load, TensorExpr, walk

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
HALF = {"fp16": DType.float16, "bf16": DType.bfloat16}
# Contractions over fewer terms (depthwise convolutions, outer products) stay fp32: shorter than
# one mma k step, they are memory-bound, and rounding their inputs costs accuracy for no speed.
MIN_REDUCED_K = 16


def check_precision(precision: str) -> None:
    """Raises CompilerError for a precision the compiler does not know."""
    if precision not in PRECISIONS:
        raise CompilerError(f"precision '{precision}' is not supported", hint=f"use one of {', '.join(PRECISIONS)}")


def precision_plan(plan: Plan, precision: str) -> tuple[Plan, dict]:
    """The plan with its contractions in `precision` (fp32: the plan itself)."""
    check_precision(precision)
    stats = {"precision": precision, "contractions": 0, "weights_converted": 0, "weight_bytes_saved": 0}
    if precision == "fp32":
        return plan, stats
    return _plan(plan, precision, stats), stats


def _plan(plan: Plan, precision: str, stats: dict) -> Plan:
    consts = dict(plan.constants)
    types = dict(plan.types)
    converted: dict[str, str] = {}
    steps = []
    for s in plan.steps:
        if isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec):
            spec = contraction_spec(s.spec, precision, consts, types, converted, stats)
            s = ComputeStep(spec) if spec is not None else s
        else:   # a body keeps its own constants (its weights are read from there)
            s = map_bodies(s, lambda body: _plan(body, precision, stats))
        steps.append(s)
    return with_steps(plan, steps, consts, types)


def contraction_spec(spec: KernelSpec, precision: str, consts: dict, types: dict, converted: dict,
                     stats: dict) -> KernelSpec | None:
    """A one-stage contraction spec rewritten for `precision` (None when it is not an untiled fp32
    contraction)."""
    if len(spec.stages) != 1 or spec.kind is not None or spec.precision is not None:
        return None
    stage = spec.stages[0]
    te = stage.expr
    if te.body.dtype is not DType.float32:
        return None
    view = gemm_view(te)
    if view is None or view.K < MIN_REDUCED_K:
        return None
    stats["contractions"] += 1
    in_values = list(stage.inputs)
    if precision in HALF:
        te, in_values = _round_operands(te, view, HALF[precision], in_values, consts, types, converted, stats)
    return dataclasses.replace(spec, stages=(Stage(te, tuple(in_values), stage.output),), precision=precision)


def _loads_of(e, arg: int) -> int:
    return sum(1 for x in walk(e) if isinstance(x, Load) and x.arg == arg)


def _round_operands(te: TensorExpr, view, half: DType, in_values: list[str], consts: dict, types: dict,
                    converted: dict, stats: dict) -> tuple[TensorExpr, list[str]]:
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
                    consts[new] = Constant.from_array(np.asarray(c.array(), np.float32).astype(half.np))
                    types[new] = TensorType(half, c.shape)
                    converted[name] = new
                    stats["weights_converted"] += 1
                    stats["weight_bytes_saved"] += c.type.nbytes - consts[new].type.nbytes
                new = converted[name]
                inputs[e.arg] = types[new]
                values[e.arg] = new
                return Cast(Load(e.arg, e.index, half), f32)
        return Cast(Cast(e, half), f32)

    a = operand(view.a, view.b)
    b = operand(view.b, view.a)
    return te.replace(inputs=tuple(inputs), body=Binary("mul", a, b, f32)), values
