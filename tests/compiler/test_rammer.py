"""The rammer stage (issue 14): waves of the step graph, independent kernels co-launched by block
range, and the report's schedule. Small ONNX graphs with parallel branches compiled with the
stage on and with `--disable rammer`, run on the host harness in both thread orders against
onnxruntime; the co-launch kernel alone; BERT's Q/K/V projections."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper

from compiler import compile
from compiler.analysis.waves import step_dependencies, waves
from compiler.codegen.co_launch import co_launch
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.executor import Executor, make_backend
from compiler.targets import get_target

from .test_welder import RNG, model, weight


def run_both_orders(data: bytes, feeds: dict, disable=()) -> dict:
    art = compile(data, "h100", CompileOptions(build=False, disable=disable))
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode, seed=11)).run(feeds)
        for name, w in zip(art.plan.outputs, want):
            np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-4, err_msg=f"{name} ({mode})")
    return art.report


def inception(c: int = 8, hw: int = 8) -> bytes:
    """An Inception block: 1x1, 1x1 -> 3x3, 1x1 -> 5x5 and pool -> 1x1 branches, concatenated."""
    conv = lambda x, w, b, y, **a: helper.make_node("Conv", [x, w, b], [y], **a)
    nodes = [conv("x", "w1", "b1", "y1"),
             conv("x", "w2a", "b2a", "t2"), helper.make_node("Relu", ["t2"], ["r2"]),
             conv("r2", "w2b", "b2b", "y2", pads=[1, 1, 1, 1]),
             conv("x", "w3a", "b3a", "t3"), helper.make_node("Relu", ["t3"], ["r3"]),
             conv("r3", "w3b", "b3b", "y3", pads=[2, 2, 2, 2]),
             helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             conv("p", "w4", "b4", "y4"),
             helper.make_node("Concat", ["y1", "y2", "y3", "y4"], ["y"], axis=1)]
    inits = [("w1", weight(8, c, 1, 1)), ("b1", weight(8)), ("w2a", weight(6, c, 1, 1)), ("b2a", weight(6)),
             ("w2b", weight(8, 6, 3, 3)), ("b2b", weight(8)), ("w3a", weight(4, c, 1, 1)), ("b3a", weight(4)),
             ("w3b", weight(8, 4, 5, 5)), ("b3b", weight(8)), ("w4", weight(8, c, 1, 1)), ("b4", weight(8))]
    return model(nodes, [("x", [1, c, hw, hw])], [("y", [1, 32, hw, hw])], inits)


def test_parallel_branches_share_launches_and_stay_right():
    data = inception()
    feeds = {"x": RNG.standard_normal((1, 8, 8, 8)).astype(np.float32)}
    on = run_both_orders(data, feeds)
    off = run_both_orders(data, feeds, disable=("rammer",))
    sched = on["schedule"]
    assert sched["enabled"] and sched["kernels"] == off["launches_per_inference"]
    assert on["launches_per_inference"] == sched["launches"] < sched["kernels"]
    assert not off["schedule"]["enabled"] and off["schedule"]["co_launches"] == []
    for co in sched["co_launches"]:
        assert len(co["members"]) >= 2
        assert co["predicted_us"]["co_launch"] < co["predicted_us"]["apart"]
        kernel = next(k for k in on["kernels"] if k["name"] == co["entry"])
        assert kernel["grid"][0] == sum(m["blocks"] for m in co["members"])
        assert kernel["ops"] == [op for m in co["members"] for op in m["ops"]]


def test_waves_are_breadth_first_frontiers():
    plan = plan_before("rammer", inception())
    level = waves(plan)
    deps = step_dependencies(plan)
    for k, d in enumerate(deps):
        assert all(j < k for j in d)
        assert level[k] == (1 + max(level[j] for j in d) if d else 0)
    assert max(level) >= 2 and len(set(level)) < len(level)     # some wave holds several steps


def test_bert_runs_q_k_v_in_one_launch(models_dir):
    """BERT's Q, K and V projections read the same normalised input and nothing of each other:
    one launch per layer, and the model stays right in both thread orders."""
    art = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False))
    rep = art.report
    assert rep["launches_per_inference"] < rep["schedule"]["kernels"]
    assert any(len(c["members"]) == 3 for c in rep["schedule"]["co_launches"])
    ref = np.load(models_dir / "bert.npz")
    inputs = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    for mode in ("default", "shuffle"):
        out = Executor(art.plan, make_backend("host", mode=mode, seed=5)).run(inputs)
        for k in ref.files:
            if k.startswith("out:"):
                np.testing.assert_allclose(out[k[4:]], ref[k], rtol=1e-3, atol=1e-4)


def test_a_kernel_that_fills_the_gpu_stays_alone():
    """Two independent elementwise maps over a million elements: each has blocks for every SM, so
    packing them would only queue one behind the other."""
    nodes = [helper.make_node("Exp", ["x"], ["a"]), helper.make_node("Tanh", ["x"], ["b"])]
    data = model(nodes, [("x", [1024, 1024])], [("a", [1024, 1024]), ("b", [1024, 1024])])
    rep = compile(data, "h100", CompileOptions(build=False)).report
    assert rep["launches_per_inference"] == 2 and rep["schedule"]["co_launches"] == []


def test_co_launch_refuses_mixed_block_shapes():
    """The Inception block's kernels come in two block shapes (its plan has both): a co-launch of
    one of each is refused, since bodies read the hardware's threadIdx and blockDim."""
    kernels = plan_before("rammer", inception()).kernels()
    a = kernels[0]
    b = next(k for k in kernels if k.block != a.block)
    with pytest.raises(ValueError, match="one block shape"):
        co_launch([a, b])


def test_co_launches_build_with_nvrtc(models_dir):
    art = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions())
    co = [k for k in art.report["kernels"] if k["config"].get("schedule") == "rammer_co_launch"]
    assert co and all(k["registers"] > 0 and k["spills"] == 0 for k in co)
    assert get_target("h100").sms > co[0]["grid"][0]        # every member's blocks resident at once


@pytest.mark.parametrize("name", ["inception_v1", "inception_v2"])
def test_light_inception_launches_fewer_times_than_it_has_kernels(name):
    """ONNX's light Inception graphs (parallel branches in every block): fewer launches than
    kernels, and right on the host harness in both thread orders."""
    from compiler.conformance import load_light_cases
    cases = load_light_cases(f"^test_{name}$")
    assert cases, f"the onnx package (>= 1.17) ships its light {name} model (onnx/backend/test/data/light)"
    (case,) = cases
    art = compile(case.model.SerializeToString(), "h100", CompileOptions(build=False))
    sched = art.report["schedule"]
    assert art.report["launches_per_inference"] == sched["launches"] < sched["kernels"]
    (inputs, (want,)), = case.data_sets
    feeds = dict(zip(art.plan.inputs, inputs))
    for mode in ("default", "shuffle"):
        (got,) = Executor(art.plan, make_backend("host", mode=mode, seed=2)).run(feeds).values()
        np.testing.assert_allclose(got, want, rtol=case.rtol, atol=1e-6, err_msg=mode)
