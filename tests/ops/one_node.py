"""Shared by the op tests: a one-node ONNX model for an op, and its node in IR form; and the
seeded-case machinery of test_more_ops.py and test_losses_extra.py (Case, data makers, the
oracle, lowering a case, and the checks both files run on their cases)."""
from __future__ import annotations

import functools

import numpy as np
import onnx
import pytest
from onnx import helper

from compiler.frontend.convert import plain_attribute
from compiler.ir.dtypes import DType
from compiler.ir.graph import Constant, Node, TensorType
from compiler.ops.registry import LowerCtx, lookup
from compiler.runtime.executor import HostBackend
from compiler.ir.plan import LaunchStep, Plan


def emit_rendered(steps: list):
    """A LowerCtx emit callback that keeps the lowering's steps as the render stage writes them
    untiled (a spec's naive launch, an extern kernel as its op wrote it)."""
    from compiler.passes.render import render_step
    return lambda step: steps.extend(render_step(step))


def one_node_model(op: str, inputs: list, attrs: dict, opset: int, nout: int = 1) -> tuple[onnx.ModelProto, onnx.NodeProto]:
    """Inputs x0.. (None = omitted optional input; trailing omissions dropped), outputs y0.. untyped."""
    names = ["" if a is None else f"x{k}" for k, a in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    outs = [f"y{k}" for k in range(nout)]
    node = helper.make_node(op, names, outs, name=op.lower(), **attrs)
    vis = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in zip(names, inputs) if n]
    g = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info(o, 0, None) for o in outs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m, node


def ir_node(node: onnx.NodeProto) -> Node:
    """The IR form of an ONNX node, attributes sorted by name."""
    attrs = tuple(sorted((a.name, plain_attribute(a, op=node.op_type, node=node.name)) for a in node.attribute))
    return Node(node.op_type, node.name, tuple(node.input), tuple(node.output), attrs)


# --- seeded one-node cases -------------------------------------------------------------------------

def rnd(seed, shape, dtype=np.float32, lo=-5, hi=5, scale=1.0):
    """Seeded random data of a dtype, never all zeros."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if np.issubdtype(dt, np.integer):
        return rng.integers(max(lo, np.iinfo(dt).min), min(hi, np.iinfo(dt).max) + 1, size=shape).astype(dt)
    return (rng.standard_normal(shape) * scale).astype(dt)


def uni(seed, shape, lo, hi, dtype=np.float32):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(dtype)


def scalar(v, dtype):
    return np.array(v, dtype=dtype)


class Case:
    """One node: its inputs (None = omitted), attributes, opset and which inputs are constants."""

    def __init__(self, op, inputs, attrs=None, opset=21, consts=(), nout=1, rtol=1e-5, atol=1e-5, oracle="onnx",
                 lower=True, id=None):
        # oracle: "onnx" (ReferenceEvaluator), "ort" (onnxruntime) or an equivalent Case to evaluate
        self.op, self.inputs, self.attrs, self.opset = op, list(inputs), dict(attrs or {}), opset
        self.consts, self.nout, self.rtol, self.atol = set(consts), nout, rtol, atol
        self.oracle, self.lower, self.id = oracle, lower, id or op

    def __repr__(self):
        return self.id

    def model(self):
        return one_node_model(self.op, self.inputs, self.attrs, self.opset, self.nout)

    def ir_node(self):
        return ir_node(self.model()[1])

    def feeds(self):
        _, node = self.model()
        return [a if n else None for n, a in zip(node.input, self.inputs)]


@functools.lru_cache(maxsize=None)
def oracle(case: Case):
    if isinstance(case.oracle, Case):
        return oracle(case.oracle)
    model, node = case.model()
    feeds = {n: a for n, a in zip(node.input, case.inputs) if n}
    if case.oracle == "ort":
        import onnxruntime as ort
        sess = ort.InferenceSession(onnx.shape_inference.infer_shapes(model).SerializeToString(),
                                    providers=["CPUExecutionProvider"])
        return sess.run(None, feeds)
    from onnx.reference import ReferenceEvaluator
    return ReferenceEvaluator(model).run(None, feeds)


def _close(got, want, case: Case, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=case.rtol, atol=case.atol,
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def lower_case(case: Case, ctx_out=None):
    """Lowers the node as the pipeline would: types from the reference, constants marked."""
    ir, feeds = case.ir_node(), case.feeds()
    outs = lookup(case.op).reference(ir, feeds, case.opset)
    in_types = [TensorType(DType.from_numpy(a.dtype), a.shape) if a is not None else None for a in feeds]
    out_types = [TensorType(DType.from_numpy(o.dtype), o.shape) for o in outs]
    consts = [a if k in case.consts else None for k, a in enumerate(feeds)]
    steps: list = []
    ctx = LowerCtx(ir, in_types, out_types, consts, case.opset, emit=emit_rendered(steps), new_name=lambda s: s)
    lookup(case.op).lower(ctx)
    if ctx_out is not None:
        ctx_out.append(ctx)
    return steps, out_types, outs


@functools.lru_cache(maxsize=None)
def _build(source: str, entry: str):
    from compiler.codegen.nvrtc import build_cubin
    return build_cubin(source, entry, "sm_90")


class PoisonedHostBackend(HostBackend):
    """The host backend with every arena byte set to 0xFF (NaN for floats, -1 for integers), as
    cudaMalloc gives no zeroed memory: an output element a kernel never writes shows."""

    def alloc(self, nbytes: int):
        a = super().alloc(nbytes)
        a.fill(0xFF)
        return a


# --- the checks run on every case ----------------------------------------------------------------

def check_reference(case: Case) -> None:
    """Our NumPy reference agrees with the case's oracle (ONNX evaluator, onnxruntime or a Case)."""
    want = oracle(case)
    got = lookup(case.op).reference(case.ir_node(), case.feeds(), case.opset)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        _close(g, w, case, f"output {k}")


def check_inputs_not_degenerate(cases) -> None:
    """Every non-constant input of more than one element holds more than one value."""
    for case in cases:
        for k, a in enumerate(case.inputs):
            if a is not None and a.size > 1 and k not in case.consts:  # constants are shapes and sizes
                assert np.unique(a).size > 1, case.id


def check_lowering_builds(case: Case, spills_ok=lambda kernel: False) -> None:
    """Every kernel the lowering emits compiles with NVRTC for sm_90, without spills unless
    spills_ok(kernel); together they write every output."""
    pytest.importorskip("cuda.bindings")
    steps, out_types, _ = lower_case(case)
    kernels = [s.kernel for s in steps if isinstance(s, LaunchStep)]
    assert kernels and len(kernels) == len(steps)
    written = {p.value for k in kernels for p in k.params if p.output}
    assert {f"y{k}" for k in range(len(out_types))} <= written
    for k in kernels:
        res = _build(k.source, k.entry)
        assert res.cubin and (res.spills == 0 or spills_ok(k)), (k.entry, res.spills)


def check_runs_on_host(case: Case) -> None:
    """The lowering's own steps, run by the host harness in a poisoned arena, match the reference."""
    from compiler.runtime.executor import Executor
    ctxs: list = []
    steps, out_types, expected = lower_case(case, ctxs)
    _, node = case.model()
    names = [n for n in node.input if n]
    types = {n: TensorType(DType.from_numpy(a.dtype), a.shape) for n, a in zip(node.input, case.inputs) if n}
    outs = {f"y{k}": t for k, t in enumerate(out_types)}
    scratch = dict(ctxs[0].temps)
    arena, off = [], 0
    for name, t in list(outs.items()) + list(scratch.items()):  # outputs and temporaries share the poisoned arena
        arena.append((name, off))
        off += -(-t.nbytes // 256) * 256
    constants = tuple((f"x{k}", Constant.from_array(case.inputs[k])) for k in sorted(case.consts))
    plan = Plan(inputs=tuple(n for n in names if int(n[1:]) not in case.consts), outputs=tuple(outs),
                steps=tuple(steps), types=tuple({**types, **outs, **scratch}.items()), constants=constants,
                arena=tuple(arena), arena_bytes=off)
    got = Executor(plan, PoisonedHostBackend()).run({n: case.inputs[int(n[1:])] for n in plan.inputs})
    for k, e in enumerate(expected):
        _close(got[f"y{k}"], e, case, f"output {k}")
