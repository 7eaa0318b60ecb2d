"""passes/split_rows.py: a normalisation over a few long rows runs as its stages apart (each
statistic a split reduction over many blocks, the normalising map over the whole GPU) where the
cost model predicts that faster than a block per row; right on the host harness against
onnxruntime in both thread orders."""
from __future__ import annotations

import numpy as np
from onnx import helper

from compiler import compile
from compiler.pipeline import CompileOptions

from .test_sink_reshapes import feeds, group_norm
from .test_welder import RNG, check, model, weight


def test_group_norm_over_two_long_rows_is_split():
    """2 groups of 8 x 128 x 128: two blocks would stream 128K elements each, three times."""
    rep = check(group_norm(1, 16, 128, 128, 2), feeds(1, 16, 128, 128))
    (entry,) = rep["fusion"]["split_rows"]
    assert entry["split"] and entry["rows"] == 2 and entry["row_length"] == 8 * 128 * 128
    assert entry["predicted_us"]["apart"] < entry["predicted_us"]["whole"]
    kinds = [k["config"]["schedule"] for k in rep["kernels"]]
    # the statistics stay apart (the shared level does not regrow their chain), and the scale,
    # shift and SiLU join the normalising map through the reshape
    assert kinds == ["roller_reduce_split", "roller_reduce_split", "roller_elementwise"]
    assert {"Mul", "Add", "Sigmoid"} <= set(rep["kernels"][-1]["op_types"])
    whole = check(group_norm(1, 16, 128, 128, 2), feeds(1, 16, 128, 128), disable=("shared_level",))
    assert whole["fusion"]["split_rows"] == [] and whole["launches_per_inference"] == 2
    assert whole["kernels"][0]["config"]["schedule"] in ("register_rows", "resident_rows")


def test_short_rows_stay_one_chain():
    rep = check(group_norm(), feeds())
    (entry,) = rep["fusion"]["split_rows"]
    assert not entry["split"] and entry["predicted_us"]["whole"] < entry["predicted_us"]["apart"]
    assert rep["launches_per_inference"] == 1


def test_layer_norm_over_few_long_rows():
    n = 3 * 65536
    data = model([helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1, epsilon=1e-5)],
                 [("x", [2, n])], [("y", [2, n])], [("g", weight(n) + 1), ("b", weight(n))])
    rep = check(data, {"x": (RNG.standard_normal((2, n)) * 2 - 1).astype(np.float32)})
    (entry,) = rep["fusion"]["split_rows"]
    assert entry["split"] and rep["launches_per_inference"] == 3


def test_rows_enough_to_fill_the_gpu_are_not_priced():
    """As many rows as SMs: a block each fills the GPU; the pass does not look."""
    art = compile(group_norm(1, 32 * 8, 8, 8, 256, act=False), "h100", CompileOptions(build=False))
    assert art.report["fusion"]["split_rows"] == []


def test_a_vae_sized_group_norm_is_split():
    """32 groups of 4 x 256 x 256 before a conv (fp16, not run): the statistics apart, the scale,
    shift and SiLU composed into the normalising map, which beats the chain's 32 blocks."""
    art = compile(group_norm(1, 128, 256, 256, 32, conv=True), "h100", CompileOptions(build=False, precision="fp16"))
    rep = art.report
    (entry,) = rep["fusion"]["split_rows"]
    assert entry["split"] and entry["predicted_us"]["apart"] < entry["predicted_us"]["whole"]
    kinds = [k["config"]["schedule"] for k in rep["kernels"]]
    assert kinds[:3] == ["roller_reduce_split", "roller_reduce_split", "roller_elementwise"]
    assert {"Mul", "Add", "Sigmoid"} <= set(rep["kernels"][2]["op_types"])


def test_disable_split_rows_keeps_the_chain_whole():
    art = compile(group_norm(1, 16, 128, 128, 2), "h100", CompileOptions(build=False, disable=("split_rows",)))
    rep = art.report
    assert rep["fusion"]["split_rows"] == [] and rep["fusion"]["shared_level"]
    # the chain a block per row, then the maps (rows too long for the chain to take them)
    assert rep["launches_per_inference"] == 2
    assert rep["kernels"][0]["config"]["schedule"] in ("register_rows", "resident_rows")


def test_softmax_over_one_long_row_is_split():
    """A softmax is a chain of statistics too (max, sum of exponentials): over one row longer than
    a block's registers it runs as split reductions and a map, right on the host harness."""
    n = 3 * 65536
    data = model([helper.make_node("Softmax", ["x"], ["y"], axis=-1)], [("x", [1, n])], [("y", [1, n])])
    rep = check(data, {"x": (RNG.standard_normal((1, n)) * 4).astype(np.float32)})
    (entry,) = rep["fusion"]["split_rows"]
    assert entry["split"] and len(entry["statistics"]) == 2 and rep["launches_per_inference"] == 3
