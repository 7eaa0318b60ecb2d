"""sparta's 2:4 specialisation (SparTA, OSDI'22, on NVIDIA's sparse tensor cores): a tensor-core
contraction (fp16/bf16) whose constant operand keeps at most two of every four consecutive k is
compressed and re-kinded `sparse24_gemm` (mma.sp), where the micro-model predicts it faster.

The operand is evaluated whole (through whatever index map the expression reads the weight
with), exactly: a chunk counts as 2:4 only if at most two of its four values are non-zero. It is
compressed to `values` [R, K/2] (the kept values, in the precision's half type, exact since the
precision stage already rounded the weight) and `meta` [R, K/4] (a byte per chunk: kept positions
p0 < p1 as p0 | p1 << 2; a chunk with fewer non-zeros keeps zeros at the first free positions).
The expression is rewritten to read the compressed form,

    w[r, k] = values[r, 2 (k / 4)]      if k % 4 == meta[r, k / 4] % 4
              values[r, 2 (k / 4) + 1]  if k % 4 == meta[r, k / 4] / 4
              0                         otherwise,

so the plan stays an exact description of what runs (the host harness, the tuner, every kind
reads the same tensors) and the dense weight leaves the plan when nothing else reads it. A dense
model, a model at fp32/tf32, or a target below sm_80 is returned as it was."""
from __future__ import annotations

import dataclasses

import numpy as np

from ..analysis.views import gemm_view
from ..ir.dataflow import map_bodies, with_steps
from ..ir.dtypes import DType
from ..ir.graph import Constant
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec, Stage
from ..ir.texpr import Expr, Load, TensorExpr, Var, binary, cast, const, eq, map_children, replace_loads, select, walk
from ..kinds import sparse24_gemm, tc_gemm, wgmma_gemm
from ..roller.construct import offered
from ..roller.cost_model import expr_flops
from ..roller.micro_model import predict
from ..targets import Target
from .roller import tile_spec, with_workspace
from .sparta_specialize import operand_values

DENSE_KINDS = (tc_gemm.NAME, wgmma_gemm.NAME)


def sparse24_plan(plan: Plan, target: Target) -> tuple[Plan, dict]:
    """The plan with each tensor-core contraction over a 2:4 constant re-kinded where it pays; the
    record lists every such contraction with its dense and sparse predictions."""
    record: dict = {"kernels": []}
    if target.sm_version < 80:
        return plan, dict(record, sparse24_kernels=0)
    plan = _plan(plan, target, record, {})
    record["sparse24_kernels"] = sum(e["chosen"] == "sparse24" for e in record["kernels"])
    return plan, record


def _plan(plan: Plan, target: Target, record: dict, compressed: dict) -> Plan:
    consts = dict(plan.constants)
    types = dict(plan.types)
    steps = []
    for s in plan.steps:
        if isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec):
            spec = specialize(s.spec, consts, types, compressed, target, record)
            s = ComputeStep(spec) if spec is not None else s
        else:   # a body keeps its own constants
            s = map_bodies(s, lambda body: _plan(body, target, record, {}))
        steps.append(s)
    if all(a is b for a, b in zip(steps, plan.steps)):
        return plan
    return with_steps(plan, steps, consts, types)


def sparse24_speedup(spec: KernelSpec, constants: dict, target: Target, memo: dict) -> float | None:
    """How many times faster the micro-model predicts `spec` (a contraction not yet tiled) on
    sparse tensor cores than as its dense tensor-core best; None where it would stay dense.
    Welder's shared-memory level asks before fusing a contraction into a row chain, which would
    keep it dense (a GEMM -> LayerNorm whose weight is 2:4). `memo` (the sparta stage's, which its
    block-sparse and cover counterparts take) is not read: the 2:4 choice is cheap to price again."""
    if target.sm_version < 80 or not spec.composable or spec.kind is not None or gemm_view(spec.expr) is None:
        return None
    tiled = tile_spec(spec, target)
    record: dict = {"kernels": []}
    if specialize(tiled, dict(constants), {n: c.type for n, c in constants.items()}, {}, target, record) is None:
        return None
    us = record["kernels"][-1]["predicted_us"]
    return us["dense"] / us["sparse24"]


def specialize(spec: KernelSpec, consts: dict, types: dict, compressed: dict, target: Target,
               record: dict) -> KernelSpec | None:
    """The spec re-kinded sparse24_gemm (its expression reading the compressed operand, added to
    `consts`/`types`) when that is predicted faster; None when it stays as it is."""
    if spec.kind not in DENSE_KINDS or spec.config is None or not spec.composable:
        return None
    # the tensor-core element type Roller chose: the precision stage's half type, or the model's own
    half = {"float16": DType.float16, "bfloat16": DType.bfloat16}.get(spec.config.param("elem"))
    if half is None:
        return None
    stage = spec.stage
    if spec.outputs not in ((), (stage.output,)):
        return None
    te, ins = stage.expr, stage.inputs
    view = gemm_view(te)
    if view is None or view.K % sparse24_gemm.MMA_K:
        return None
    found = _two_four_operand(te, view, ins, consts, half)
    if found is None:
        return None
    side, operand, values = found
    group = view.n if side == "b" else view.m
    loads = [x for x in walk(operand) if isinstance(x, Load)]
    key = (tuple(ins[x.arg] for x in loads), operand, half)
    if key not in compressed:
        vals, meta = compress(values, half)
        base = ins[loads[0].arg]
        names = []
        for suffix, data in (("sp24v", vals), ("sp24m", meta)):
            name, k = f"{base}.{suffix}", 1
            while name in consts or name in types:
                name, k = f"{base}.{suffix}.{k}", k + 1
            consts[name] = Constant.from_array(data)
            types[name] = consts[name].type
            names.append(name)
        compressed[key] = tuple(names)
    vname, mname = compressed[key]
    new_te, new_ins = _compressed_expr(te, ins, operand, group, view.k, (vname, types[vname]),
                                       (mname, types[mname]))
    new_view = gemm_view(new_te)
    dense_us = predict(spec.config, target).us
    entry = {"kernel": te.name, "ops": list(spec.ops), "operand": side, "input": key[0][0], "format": "2:4",
             "density": round(float((values != 0).mean()), 4),
             "predicted_us": {"dense": round(dense_us, 3)}, "chosen": "dense"}
    record["kernels"].append(entry)
    if new_view is None or (new_view.m, new_view.n, new_view.k) != (view.m, view.n, view.k):
        entry["why"] = "the rewritten expression is not seen as the same contraction"
        return None
    elem = half.name
    cands = offered(sparse24_gemm.candidates(new_te, new_view, side, new_ins.index(vname), new_ins.index(mname),
                                                  elem, target))
    if not cands:
        entry["why"] = "no mma.sp configuration fits"
        return None
    sparse_us, best = min(((predict(c, target).us, c) for c in cands), key=lambda p: p[0])
    entry["predicted_us"]["sparse24"] = round(sparse_us, 3)
    if sparse_us >= dense_us:
        entry["why"] = "the micro-model predicts the dense kernel at least as fast"
        return None
    dense_flops = expr_flops(te)
    executed = dense_flops - 2 * view.B * view.M * view.N * view.K // 2     # mma.sp multiplies half the k
    best = dataclasses.replace(best, params=best.params + (
        ("format", "2:4"), ("density", 0.5), ("flops", executed), ("flops_dense", dense_flops)))
    entry.update(chosen="sparse24", flops_dense=dense_flops, flops_executed=executed)
    # (against a dense split-K choice too: its workspace leaves with it)
    return with_workspace(dataclasses.replace(spec, stages=(Stage(new_te, new_ins, stage.output),), carried=(),
                                              kind=sparse24_gemm.NAME, config=best, candidates=(best,), declined=()),
                          types)


def _two_four_operand(te: TensorExpr, view, ins, consts: dict, half: DType):
    """(side, operand expression, its values [R, K] as float32) for an operand that reads only
    constants, no batch axis, is exact in `half`, and keeps at most two of every four k; else None."""
    data = [consts[v].array() if v in consts else None for v in ins]
    for side, expr, group in (("b", view.b, view.n), ("a", view.a, view.m)):
        # the pattern on the first row, then on all: a dense weight fails at once, before the
        # whole operand is evaluated
        first = operand_values(expr, view, tuple((v, 1) for v, _ in group), data)
        if first is None or first.shape[0] != 1 or not _two_four(np.asarray(first[0], np.float32)):
            continue
        values = operand_values(expr, view, group, data)
        if values is None or values.shape[0] != 1:     # not all constant, too large, or per batch
            continue
        values = np.asarray(values[0], np.float32)
        if not _two_four(values):
            continue
        if not np.array_equal(values.astype(half.np).astype(np.float32), values, equal_nan=True):
            continue
        return side, expr, values
    return None


def _two_four(values: np.ndarray) -> bool:
    """Whether every row [*, K] keeps at most two non-zeros in each group of four along K."""
    return not ((values != 0).reshape(values.shape[0], -1, 4).sum(axis=2) > 2).any()


def compress(values: np.ndarray, half: DType) -> tuple[np.ndarray, np.ndarray]:
    """(values [R, K/2] in `half`, meta [R, K/4] uint8) of a 2:4 matrix [R, K]: each chunk's
    non-zeros, then zeros at its first free positions, two per chunk in increasing position."""
    R, K = values.shape
    chunks = values.reshape(R, K // 4, 4)
    pos = np.arange(4)
    # non-zeros first, then by position: the first two are kept; then in increasing position
    order = np.argsort((chunks == 0) * 4 + pos, axis=2, kind="stable")[:, :, :2]
    kept = np.sort(order, axis=2)
    vals = np.take_along_axis(chunks, kept, axis=2).reshape(R, K // 2).astype(half.np)
    meta = (kept[:, :, 0] | (kept[:, :, 1] << 2)).astype(np.uint8)
    return vals, meta


def expand(vals: np.ndarray, meta: np.ndarray) -> np.ndarray:
    """The dense [R, K] matrix a compressed pair describes (the inverse of `compress`)."""
    R, C = meta.shape
    out = np.zeros((R, C, 4), np.float32)
    v = vals.astype(np.float32).reshape(R, C, 2)
    np.put_along_axis(out, (meta & 3).astype(np.int64)[:, :, None], v[:, :, :1], axis=2)
    np.put_along_axis(out, (meta >> 2).astype(np.int64)[:, :, None], v[:, :, 1:], axis=2)
    return out.reshape(R, 4 * C)


def linear_index(group) -> Expr:
    """The row-major linear index of a group of (var, extent), last fastest."""
    e: Expr = const(0, DType.int64)
    for v, n in group:
        e = binary("add", binary("mul", e, n), Var(v))
    return e


def _compressed_expr(te: TensorExpr, ins, operand: Expr, group, k_group, values, meta):
    """The expression with `operand` (one factor of its body) read from the compressed pair, the
    inputs it no longer loads dropped: (expression, input names)."""
    (vname, vtype), (mname, mtype) = values, meta
    nv, nm = len(te.inputs), len(te.inputs) + 1
    r, k = linear_index(group), linear_index(k_group)
    chunk, pos = binary("idiv", k, 4), binary("imod", k, 4)
    m = cast(Load(nm, (r, chunk), mtype.dtype), DType.int64)
    dt = operand.dtype       # the factor's type: fp32 after the precision stage, else the model's half type
    v0 = cast(Load(nv, (r, binary("mul", chunk, 2)), vtype.dtype), dt)
    v1 = cast(Load(nv, (r, binary("add", binary("mul", chunk, 2), 1)), vtype.dtype), dt)
    new = select(eq(binary("imod", m, 4), pos), v0, select(eq(binary("idiv", m, 4), pos), v1, const(0.0, dt)))

    def swap(e: Expr) -> Expr:
        return new if e == operand else map_children(e, swap)

    te = te.replace(inputs=te.inputs + (vtype, mtype), body=swap(te.body))
    return drop_unused_inputs(te, tuple(ins) + (vname, mname))


def drop_unused_inputs(te: TensorExpr, ins: tuple[str, ...]) -> tuple[TensorExpr, tuple[str, ...]]:
    """`te` without the inputs neither its body nor its epilogue loads, loads renumbered."""
    used = sorted({x.arg for root in (te.body, te.epilogue) if root is not None for x in walk(root)
                   if isinstance(x, Load)})
    renumber = {old: new for new, old in enumerate(used)}

    def fix(e):
        return None if e is None else replace_loads(e, lambda ld: Load(renumber[ld.arg], ld.index, ld.dtype))

    te = te.replace(inputs=tuple(te.inputs[i] for i in used), body=fix(te.body), epilogue=fix(te.epilogue))
    return te, tuple(ins[i] for i in used)
