"""passes/sink_reshapes.py: maps after a reshaped reduction computed in the reduction's shape, so
that GroupNorm as exporters write it (Reshape, InstanceNormalization, Reshape, per-channel scale
and shift, SiLU) is one row-chain kernel; right on the host harness against onnxruntime in both
thread orders."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from compiler import compile
from compiler.ir.plan import AliasStep, ComputeStep
from compiler.passes.lower import lower_graph
from compiler.passes.sink_reshapes import ROWS_SUFFIX, over_source_shape
from compiler.analysis.evaluate import evaluate
from compiler.frontend.onnx_import import import_model
from compiler.pipeline import CompileOptions

from .test_welder import RNG, check, model, weight


def group_norm(n=1, c=32, h=16, w=16, groups=8, *, act=True, conv=False, transpose=False) -> bytes:
    """torch.nn.GroupNorm (+ SiLU, + a 3x3 conv) as torch.onnx exports it."""
    nodes = [helper.make_node("Reshape", ["x", "to_rows"], ["rows"]),
             helper.make_node("InstanceNormalization", ["rows", "ones", "zeros"], ["normed"], epsilon=1e-5),
             helper.make_node("Reshape", ["normed", "to_image"], ["image"])]
    if transpose:    # a map reading the reshape at another index than its own: stays as it is
        nodes.append(helper.make_node("Transpose", ["image"], ["image_t"], perm=[0, 1, 3, 2]))
    nodes += [helper.make_node("Mul", ["image_t" if transpose else "image", "gamma"], ["scaled"]),
              helper.make_node("Add", ["scaled", "beta"], ["gn"])]
    last = "gn"
    if act:
        nodes += [helper.make_node("Sigmoid", ["gn"], ["sig"]), helper.make_node("Mul", ["gn", "sig"], ["silu"])]
        last = "silu"
    if conv:
        nodes.append(helper.make_node("Conv", [last, "wc"], ["y"], pads=[1, 1, 1, 1]))
    else:
        nodes.append(helper.make_node("Identity", [last], ["y"]))
    inits = [("to_rows", np.array([n, groups, -1], np.int64)), ("to_image", np.array([n, c, h, w], np.int64)),
             ("ones", np.ones(groups, np.float32)), ("zeros", np.zeros(groups, np.float32)),
             ("gamma", weight(c, 1, 1) + 1), ("beta", weight(c, 1, 1))]
    out = [n, c, h, w]
    if conv:
        inits.append(("wc", weight(c, c, 3, 3)))
    return model(nodes, [("x", [n, c, h, w])], [("y", out)], inits)


def feeds(n=1, c=32, h=16, w=16):
    return {"x": (RNG.standard_normal((n, c, h, w)) * 3 + 1).astype(np.float32)}


@pytest.mark.parametrize("shape", [(1, 32, 16, 16, 8), (2, 12, 15, 15, 4), (1, 6, 7, 9, 3)])
def test_group_norm_and_silu_are_one_kernel(shape):
    """Power-of-two and odd sizes (c = g (C/G) + l // (H W) with real divisions), batch 2."""
    n, c, h, w, g = shape
    data = group_norm(n, c, h, w, g)
    fused = check(data, feeds(n, c, h, w))
    apart = check(data, feeds(n, c, h, w), disable=("shared_level",))
    assert apart["launches_per_inference"] == 2          # the norm's row chain, the maps
    assert fused["launches_per_inference"] == 1
    (k,) = fused["kernels"]
    assert k["config"]["schedule"] in ("register_rows", "resident_rows")
    assert {"InstanceNormalization", "Mul", "Add", "Sigmoid"} <= set(k["op_types"])
    assert [s["from"] for s in fused["fusion"]["reshapes_sunk"]] == [[n, c, h, w]]
    assert all(s["shape"] == [n, g, c // g * h * w] for s in fused["fusion"]["reshapes_sunk"])
    assert fused["traffic"]["dram_bytes"] < apart["traffic"]["dram_bytes"]
    assert not apart["fusion"]["reshapes_sunk"]


def test_the_conv_after_reads_the_rows_through_the_alias():
    fused = check(group_norm(conv=True), feeds())
    assert fused["launches_per_inference"] == 2
    assert "Conv" in fused["kernels"][-1]["op_types"]


def test_group_norm_without_activation():
    fused = check(group_norm(act=False), feeds())
    assert fused["launches_per_inference"] == 1


def _plan(data: bytes):
    imported = import_model(data)
    return lower_graph(imported.graph, imported.opset)


def _step_writing(plan, value):
    return next(s for s in plan.steps if isinstance(s, ComputeStep) and s.spec.stages[-1].output == value)


def test_a_map_reading_the_reshape_at_another_index_is_not_moved():
    plan = _plan(group_norm(transpose=True))
    types = dict(plan.types)
    t = _step_writing(plan, "image_t").spec
    assert over_source_shape(t, {"image": "normed"}, types) is None
    fused = check(group_norm(transpose=True), feeds())
    assert not fused["fusion"]["reshapes_sunk"]


def test_the_moved_map_reads_its_operands_at_the_reshaped_index():
    """Over the rows (1, 8, 1024): the normalised value at the map's own index, gamma at channel
    g * 4 + l // 256 (what NumPy computes from the same rows)."""
    plan = _plan(group_norm(act=False))
    types = dict(plan.types)
    scale = _step_writing(plan, "scaled").spec
    moved = over_source_shape(scale, {"image": "normed"}, types)
    st = moved.stages[0]
    assert st.output == "scaled" + ROWS_SUFFIX and st.inputs[0] == "normed"
    assert st.expr.output.shape == (1, 8, 1024)
    rows = RNG.standard_normal((1, 8, 1024)).astype(np.float32)
    gamma = dict(plan.constants)[st.inputs[1]].array()
    want = (rows.reshape(1, 32, 16, 16) * gamma).reshape(1, 8, 1024)
    env = {"i0": np.zeros((1, 1, 1), np.int64), "i1": np.arange(8).reshape(1, 8, 1),
           "i2": np.arange(1024).reshape(1, 1, 1024)}
    np.testing.assert_allclose(evaluate(st.expr.body, env, [rows, gamma]), want, rtol=1e-6)
    # a map reading another value through a view of another shape is not moved
    assert over_source_shape(scale, {"image": "normed", st.inputs[1]: "x"}, types) is None


def test_rows_too_long_for_one_block_each_stay_as_they_were():
    """At full size (32 groups of 10 x 64 x 64) the chain with the maps has too few blocks for the
    cost model: it is declined, and the maps stay over [N, C, H, W], no view added."""
    data = group_norm(1, 320, 64, 64, 32, conv=True)
    art = compile(data, "h100", CompileOptions(build=False, precision="fp16"))
    rep = art.report
    assert not rep["fusion"]["reshapes_sunk"] and rep["launches_per_inference"] == 3
    assert any("InstanceNormalization" in d["ops"][0] and d["reason"] == "the cost model predicts no gain"
               for d in rep["fusion"]["declined"])
    maps = [s for s in art.plan.steps if getattr(s, "kernel", None) is not None and "mul" in s.kernel.entry]
    assert not any(isinstance(s, AliasStep) and s.src.endswith(ROWS_SUFFIX) for s in art.plan.steps)
    assert maps


def test_fp16_group_norm_conv_matches():
    art = compile(group_norm(conv=True), "h100", CompileOptions(build=False, precision="fp16", verify="host"))
    assert art.report["verification"]["outcome"] == "passed"
    assert art.report["launches_per_inference"] == 2


def test_disable_sink_reshapes_leaves_the_maps_apart():
    """The switch: the same model keeps its maps as a kernel of their own, and the report says so."""
    fused = check(group_norm(), feeds())
    apart = check(group_norm(), feeds(), disable=("sink_reshapes",))
    assert (fused["launches_per_inference"], apart["launches_per_inference"]) == (1, 2)
    assert fused["fusion"]["sink_reshapes"] and not apart["fusion"]["sink_reshapes"]
    assert not apart["fusion"]["reshapes_sunk"] and apart["fusion"]["shared_level"]
    assert fused["traffic"]["dram_bytes"] < apart["traffic"]["dram_bytes"]
