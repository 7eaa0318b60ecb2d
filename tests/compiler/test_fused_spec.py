"""The kernel IR holds fused kernels: two-stage KernelSpecs built by hand from the ops' own tensor
expressions, rendered by the render stage and run on the host harness against NumPy.

- MatMul whose elementwise consumer (add a bias, then tanh) reads it in registers;
- a row reduction (ReduceSum over the last axis) whose producer (exp(x - 1)) is staged in shared memory."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.codegen.nvrtc import build_cubin
from compiler.ir.dtypes import DType
from compiler.ir.graph import Node, TensorType
from compiler.ir.plan import ComputeStep
from compiler.ir.spec import KernelSpec, Level, Stage
from compiler.kinds import register_rows, resident_rows
from compiler.ops.registry import LowerCtx, lookup
from compiler.passes.render import render_spec
from compiler.runtime.host_harness import build_host_module

F32 = DType.float32


def stage_of(op: str, inputs: tuple[str, ...], output: str, in_types, out_type, consts=None, attrs=()) -> Stage:
    """The one-stage spec the op's lowering emits, as a stage (its tensor expression, by value names)."""
    steps: list = []
    node = Node(op, f"{op.lower()}_{output}", inputs, (output,), attrs)
    consts = consts or {}
    ctx = LowerCtx(node, list(in_types), [out_type], [consts.get(k) for k in range(len(inputs))], 18,
                   emit=steps.append, new_name=lambda s: s)
    lookup(op).lower(ctx)
    (step,) = steps
    assert isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec)
    (stage,) = step.spec.stages
    return stage


def run(kernel, arrays: dict, out_shape, modes=("default", "shuffle")) -> list[np.ndarray]:
    """The kernel's output on the host harness (fixed and shuffled thread order), after NVRTC built it."""
    r = build_cubin(kernel.source, kernel.entry, "sm_90")
    assert r.cubin and r.spills == 0
    outs = []
    for mode in modes:
        module = build_host_module([kernel], mode=mode, seed=3)
        out = np.full(out_shape, np.nan, np.float32)
        args = [arrays[p.value] for p in kernel.params if not p.output] + [out]
        module.launch(kernel, args)
        outs.append(out)
    return outs


def test_matmul_with_its_elementwise_consumer_in_registers():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((6, 40)).astype(np.float32), rng.standard_normal((40, 20)).astype(np.float32)
    bias = rng.standard_normal((20,)).astype(np.float32)
    t = lambda *s: TensorType(F32, s)
    mm = stage_of("MatMul", ("a", "b"), "y", [t(6, 40), t(40, 20)], t(6, 20))
    add = stage_of("Add", ("y", "bias"), "z", [t(6, 20), t(20)], t(6, 20))
    act = stage_of("Tanh", ("z",), "out", [t(6, 20)], t(6, 20))
    spec = KernelSpec(stages=(mm, add, act), carried=(("y", Level.REGISTER), ("z", Level.REGISTER)),
                      ops=("matmul_y", "add_z", "tanh_out"))
    assert spec.inputs == ("a", "b", "bias") and spec.written == ("out",)
    (kernel,) = render_spec(spec)
    assert [p.value for p in kernel.params] == ["a", "b", "bias", "out"]
    want = np.tanh(a.astype(np.float64) @ b.astype(np.float64) + bias)
    for got in run(kernel, {"a": a, "b": b, "bias": bias}, (6, 20)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_row_reduction_with_its_producer_in_shared_memory():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 300)).astype(np.float32)
    one = np.ones((), np.float32)
    t = lambda *s: TensorType(F32, s)
    sub = stage_of("Sub", ("x", "one"), "d", [t(5, 300), t()], t(5, 300))
    ex = stage_of("Exp", ("d",), "e", [t(5, 300)], t(5, 300))
    axes = np.array([-1], np.int64)
    red = stage_of("ReduceSum", ("e", "axes"), "s", [t(5, 300), TensorType(DType.int64, (1,))], t(5, 1),
                   consts={1: axes}, attrs=(("keepdims", 1),))
    spec = KernelSpec(stages=(sub, ex, red), carried=(("d", Level.REGISTER), ("e", Level.SHARED)),
                      ops=("sub_d", "exp_e", "reducesum_s"))
    # the render stage gives a map kept as rows to a warp's registers (kinds/register_rows.py)
    (in_registers,) = render_spec(spec)
    assert dict(in_registers.config)["schedule"] == register_rows.NAME and in_registers.shared_bytes == 0
    (kernel,) = resident_rows.render(spec)      # the shared-memory form of the same chain
    assert kernel.shared_bytes == 300 * 4 and "by_smem" in kernel.source and "__syncthreads" in kernel.source
    assert "blockIdx" not in kernel.source.split("_body(", 1)[1].split("BY_KERNEL")[0]
    want = np.exp(x.astype(np.float64) - 1.0).sum(axis=-1, keepdims=True)
    both = build_host_module([kernel, render_spec(KernelSpec(stages=(ex, red), carried=(("e", Level.SHARED),),
                                                             ops=("exp_e", "reducesum_s")))[0]])
    assert both   # two stitched kernels share one host module (their helpers are named after them)
    for k in (kernel, in_registers):
        for got in run(k, {"x": x, "one": one}, (5, 1)):
            np.testing.assert_allclose(got, want, rtol=1e-5)


def test_a_spec_no_kind_renders_says_why():
    t = lambda *s: TensorType(F32, s)
    ex = stage_of("Exp", ("x",), "e", [t(4)], t(4))
    neg = stage_of("Neg", ("e",), "y", [t(4)], t(4))
    spec = KernelSpec(stages=(ex, neg), carried=(("e", Level.GLOBAL),))
    with pytest.raises(ValueError, match="carried in global memory"):
        render_spec(spec)
    with pytest.raises(ValueError, match="neither carried nor an output"):
        KernelSpec(stages=(ex, neg))
