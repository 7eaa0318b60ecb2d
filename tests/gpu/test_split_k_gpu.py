"""On a GPU: split-K in one launch (tc_gemm, the SIMT gemm and sparse24_gemm), and split reductions (reduce_split).
Each output tile's (row's) last block to arrive sums the slices and resets its counter; the
counters must be back at zero after every launch, so the same plan is run several times, with new
inputs, by plain launches and replayed as one CUDA graph, and checked against NumPy each time. Two
skinny contractions in one model also run co-launched by Rammer (each member with counters of
their own)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module(min_capability=80)


def _two_skinny_matmuls(m=8, k=2048, n=96, seed=0):
    """y1 = x @ W1 and y2 = x @ W2 (independent: Rammer co-launches them), fp32 weights."""
    rng = np.random.default_rng(seed)
    w1, w2 = ((rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32) for _ in range(2))
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["y1"]), helper.make_node("MatMul", ["x", "w2"], ["y2"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y1", TensorProto.FLOAT, [m, n]),
         helper.make_tensor_value_info("y2", TensorProto.FLOAT, [m, n])],
        initializer=[numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    return model.SerializeToString(), w1, w2


@pytest.mark.parametrize("precision", ["fp16", "fp32"])     # tc_gemm's split-K, the SIMT gemm's
@pytest.mark.parametrize("graph", [False, True])
def test_split_k_counters_reset_across_launches_and_graph_replays(graph, precision):
    from compiler import compile
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    data, w1, w2 = _two_skinny_matmuls()
    art = compile(data, target, CompileOptions(precision=precision))
    # split-K (arrival counters in the source: a kernel's own, or a co-launch's for each member)
    assert any("_arrivals[" in k.source for k in art.plan.kernels()), [k.entry for k in art.plan.kernels()]
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch), graph=graph)
    rng = np.random.default_rng(3)
    for run in range(4):
        x = rng.standard_normal((8, 2048)).astype(np.float32)
        out = ex.run({"x": x})
        for name, w in (("y1", w1), ("y2", w2)):
            wt = w.astype(np.float16) if precision == "fp16" else w
            want = x.astype(np.float64) @ wt.astype(np.float64)
            err = np.max(np.abs(out[name] - want)) / np.max(np.abs(want))
            print(f"{precision} graph={graph} run {run} {name}: max rel error {err:.2e} ({ex.graph_status})")
            assert err < (1e-2 if precision == "fp16" else 1e-4), (precision, graph, run, name, err)
    if graph:
        assert ex.graph_status == "graph"


def _long_rows(rows=2, k=300_000):
    """Sum and max over rows of 300k (fewer rows than SMs: each row split across blocks)."""
    g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=0),
         helper.make_node("ReduceMax", ["x", "axes"], ["m"], keepdims=0)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, k])],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [rows]),
         helper.make_tensor_value_info("m", TensorProto.FLOAT, [rows])],
        initializer=[numpy_helper.from_array(np.array([-1], np.int64), "axes")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


@pytest.mark.parametrize("graph", [False, True])
def test_split_reduction_counters_reset_across_launches_and_graph_replays(graph):
    from compiler import compile
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    art = compile(_long_rows(), target, CompileOptions(disable=("tune",)))   # the model's split, not the tuner's pick
    schedules = [str(dict(k.config).get("schedule")) for k in art.plan.kernels()]
    assert any("_arrivals[" in k.source for k in art.plan.kernels()), schedules
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch), graph=graph)
    rng = np.random.default_rng(4)
    for run in range(4):
        x = rng.standard_normal((2, 300_000)).astype(np.float32)
        out = ex.run({"x": x})
        want = x.astype(np.float64).sum(axis=1)
        err = np.max(np.abs(out["s"] - want)) / np.max(np.abs(x).sum(axis=1))
        print(f"graph={graph} run {run}: sum max rel error {err:.2e}, schedules {schedules} ({ex.graph_status})")
        assert err < 1e-5, (graph, run, err)
        np.testing.assert_array_equal(out["m"], x.max(axis=1))
    if graph:
        assert ex.graph_status == "graph"
