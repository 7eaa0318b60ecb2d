"""Half storage (Plan -> Plan): a value that every reader rounds to fp16 (bf16) is stored in fp16.

The precision stage rounds each contraction operand where the contraction reads it:
Cast(Cast(x, half), fp32). When fusion leaves such an operand in DRAM (a Q projection read only by
the attention kernel, a GELU read only by the next MatMul, a ReLU read only by the next Conv), its
producer writes four bytes per element and every reader rounds them to two. Rounding in the
producer instead, before the store, gives every reader the same value, bit for bit, from half the
bytes: the DRAM traffic of the value is halved and the plan's results do not change.

A value is narrowed when it is a kernel stage's fp32 result, not a graph input or output, written
by one step, and every load of it, in every kernel and stage, sits under a Cast to the same half
type (through the branches of Selects: an implicit-GEMM Conv's zero padding). Anything else that
reads it (an extern kernel, an alias, a control-flow region, one plain load such as a residual
add) keeps it fp32. The producing stage then ends in Cast(.., half); each reader's
Cast(Select(c, Load, 0), half) becomes Select(c, Load_half, 0_half), the same value.

Half the bytes is not always less time: a reader's best kernel can change with its operand's type
(a half operand whose rows are not 16-byte aligned loses cp.async, where fp32 rows took 16-byte
vector loads). So each value is priced: its producer and readers, each as Roller would tile it
(the micro-model's time of its best configuration), with the value fp32 and in half; it is stored
in half only where that is predicted no slower. A spec no tiled kind takes is priced by nothing
but its bytes, which half storage only lowers. The record lists both predictions.

Runs after the welder stage (only what fusion leaves in DRAM matters) and before Roller (which
tiles the half loads). `--disable half_storage` keeps every value fp32."""
from __future__ import annotations

import dataclasses
import math
from collections import Counter

from ..ir.dataflow import map_bodies, reads, writes
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec, Stage
from ..ir.texpr import ACC, Cast, Const, Expr, Load, Select, TensorExpr, Var, children, map_children
from ..targets import Target
from . import precision
from .roller import SpecPrices

HALF = tuple(precision.HALF.values())      # the half types the precision stage rounds to
F32 = DType.float32
PLAIN = None        # a load not under a rounding Cast


def half_storage_plan(plan: Plan, target: Target) -> tuple[Plan, dict]:
    """The plan with every value its readers round to half stored in half where that is predicted
    no slower; the record lists the values stored in half and those kept fp32, with both predictions."""
    record: list[dict] = []
    plan = _plan(plan, target, record, SpecPrices(target))
    stored = [r for r in record if r["stored"]]
    return plan, {"values": stored, "kept": [r for r in record if not r["stored"]], "count": len(stored),
                  "bytes_saved": sum(r["bytes_saved"] for r in stored)}


def _plan(plan: Plan, target: Target, record: list[dict], prices: SpecPrices) -> Plan:
    steps = [map_bodies(s, lambda body: _plan(body, target, record, prices)) for s in plan.steps]
    types = dict(plan.types)
    for v, half in sorted(_narrowable(steps, plan, types).items()):
        touched = [k for k, s in enumerate(steps) if _kernel(s) and _touches(s.spec, v)]
        new = {k: _spec(steps[k].spec, {v: half}) for k in touched}
        t = types[v]
        trial = {**types, v: TensorType(half, t.shape)}
        tiled = [k for k in touched if prices(steps[k].spec) is not None]
        before = sum(prices(steps[k].spec) for k in tiled)
        # a reader no tiled kind takes in half (it took one in fp32) is a loss
        after = sum(math.inf if prices(new[k]) is None else prices(new[k]) for k in tiled)
        entry = {"value": v, "dtype": half.name, "shape": list(t.shape), "bytes_saved": t.nbytes - trial[v].nbytes,
                 "predicted_us": {"fp32": round(before, 3), "half": round(after, 3)}, "stored": after <= before}
        record.append(entry)
        if entry["stored"]:
            types = trial
            for k in touched:
                steps[k] = ComputeStep(new[k])
    return dataclasses.replace(plan, steps=tuple(steps), types=tuple(types.items()))


def _touches(spec: KernelSpec, v: str) -> bool:
    return any(st.output == v or v in st.inputs for st in spec.stages)


def _kernel(s) -> bool:
    return isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec)


def _narrowable(steps, plan: Plan, types: dict) -> dict[str, DType]:
    """Value -> the half type all its readers round it to, for the values that qualify."""
    rounding: dict[str, set] = {}           # value -> the roundings of its loads (PLAIN among them)
    produced: set[str] = set()
    writers: Counter = Counter()
    for s in steps:
        writers.update(writes(s))
        if not _kernel(s):
            for v in reads(s):
                rounding.setdefault(v, set()).add(PLAIN)
            continue
        produced.update(st.output for st in s.spec.stages)
        for st in s.spec.stages:
            for root in (st.expr.body, st.expr.epilogue):
                if root is not None:
                    _loads(root, None, lambda arg, r, st=st: rounding.setdefault(st.inputs[arg], set()).add(r))
    fixed = set(plan.inputs) | set(plan.returned) | {n for n, _ in plan.constants}
    return {v: next(iter(r)) for v, r in rounding.items()
            if v in produced and v not in fixed and writers[v] == 1 and types[v].dtype is F32
            and len(r) == 1 and next(iter(r)) in HALF}


def _loads(e: Expr, rounded: DType | None, record) -> None:
    """record(arg, rounding) for every load in e: the half type of the Cast it sits under (through
    Select branches only), else PLAIN."""
    if isinstance(e, Load):
        record(e.arg, rounded)
        for i in e.index:
            _loads(i, PLAIN, record)
    elif isinstance(e, Cast) and e.dtype in HALF and e.x.dtype is F32:
        _loads(e.x, e.dtype, record)
    elif isinstance(e, Select):
        _loads(e.cond, PLAIN, record)
        _loads(e.a, rounded, record)
        _loads(e.b, rounded, record)
    else:
        for c in children(e):
            _loads(c, PLAIN, record)


def _spec(spec: KernelSpec, chosen: dict[str, DType]) -> KernelSpec:
    stages = tuple(_stage(st, chosen) for st in spec.stages)
    return spec if stages == spec.stages else dataclasses.replace(spec, stages=stages)


def _stage(st: Stage, chosen: dict[str, DType]) -> Stage:
    te = st.expr
    args = {k: chosen[v] for k, v in enumerate(st.inputs) if v in chosen}
    if args:
        te = te.replace(inputs=tuple(TensorType(args[k], t.shape) if k in args else t for k, t in enumerate(te.inputs)),
                        body=_read(te.body, args),
                        epilogue=None if te.epilogue is None else _read(te.epilogue, args))
    if st.output in chosen:
        te = _store(te, chosen[st.output])
    return st if te is st.expr else Stage(te, st.inputs, st.output)


def _store(te: TensorExpr, half: DType) -> TensorExpr:
    """te with its result rounded to `half` before the store."""
    out = TensorType(half, te.output.shape)
    if te.reduce is None:
        return te.replace(output=out, body=Cast(te.body, half))
    acc = te.epilogue if te.epilogue is not None else Var(ACC, te.body.dtype)
    return te.replace(output=out, epilogue=Cast(acc, half))


def _read(e: Expr, args: dict[int, DType]) -> Expr:
    """e with each rounding Cast over narrowed loads replaced by the loads in half."""
    if isinstance(e, Cast) and e.dtype in HALF and e.x.dtype is F32 and _reaches(e.x, args):
        return _in_half(e.x, e.dtype, args)
    return map_children(e, lambda c: _read(c, args))


def _reaches(e: Expr, args: dict[int, DType]) -> bool:
    """Whether a narrowed load is a leaf of e's Select branches."""
    if isinstance(e, Load):
        return e.arg in args
    return isinstance(e, Select) and (_reaches(e.a, args) or _reaches(e.b, args))


def _in_half(e: Expr, half: DType, args: dict[int, DType]) -> Expr:
    """Cast(e, half) pushed through Selects: a narrowed load is read as stored, a constant is
    rounded here, anything else keeps its Cast (a Cast distributes over a Select's branches)."""
    if isinstance(e, Load) and e.arg in args:
        return dataclasses.replace(e, dtype=half)
    if isinstance(e, Select):
        return Select(e.cond, _in_half(e.a, half, args), _in_half(e.b, half, args), half)
    if isinstance(e, Const) and e.value == 0:
        return Const(0.0, half)
    return Cast(_read(e, args), half)
