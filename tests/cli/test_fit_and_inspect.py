"""A model that cannot run on the target is refused (exit 2, one line naming the tensor, its size and
the limit); `brickyard inspect` describes a model with dynamic dimensions; `brickyard targets` shows
the memory and launch limits the refusals use."""
from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.errors import TooLarge
from compiler.passes.fit import check_plan
from compiler.pipeline import CompileOptions
from compiler.targets import get_target

from .test_cli_errors import _save, assert_clean_error, brickyard


def detector(tmp_path, dims=(-1, 3, "?", "?")):
    """A detector's first layers in Paddle2ONNX's manner: -1 batch, '?' height and width."""
    w = numpy_helper.from_array(np.random.default_rng(1).standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 1, 1])
    for d, want in zip(x.type.tensor_type.shape.dim, dims):
        d.Clear()
        if isinstance(want, int):
            d.dim_value = want
        else:
            d.dim_param = want
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["?", 8, "?", "?"])
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                           helper.make_node("Relu", ["c"], ["y"])], "det", [x], [y], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return _save(m, tmp_path / "det.onnx")


@pytest.mark.parametrize("shape,needles", [
    ("1,3,100000,100000", ["tensor 'x'", "float32[1,3,100000,100000]", "111.8 GiB", "80.0 GiB", "h100"]),
    (f"1,3,{2**62},64", ["tensor 'x'", "2^63-1"]),
])
def test_impossible_shapes_are_refused(tmp_path, shape, needles):
    r = brickyard("compile", detector(tmp_path), "--input-shape", f"x={shape}", "-o", str(tmp_path / "a.tar.gz"), "-q")
    assert_clean_error(r, *needles)
    assert not (tmp_path / "a.tar.gz").exists()


def test_footprint_over_memory_is_refused_though_each_tensor_fits(tmp_path):
    # t4: 16 GiB. x is 3 GiB, the conv's output 8 GiB, the relu's 8 GiB: each fits, together they do
    # not (unfused: fused, the relu is the conv's epilogue and the conv's output is never stored)
    r = brickyard("compile", detector(tmp_path), "--target", "t4", "--input-shape", "x=1,3,16384,16384",
                  "--disable", "welder", "-o", str(tmp_path / "a.tar.gz"), "-q")
    assert_clean_error(r, "needs", "of device memory", "16.0 GiB", "t4")


def test_a_fitting_large_shape_compiles_and_reports_its_memory(tmp_path):
    art = compile(detector(tmp_path), "h100", CompileOptions(input_shapes=(("x", (1, 3, 4096, 4096)),), build=False))
    mem = art.report["memory"]
    assert mem["inputs_bytes"] == 3 * 4096 * 4096 * 4 and mem["weights_bytes"] == 8 * 27 * 4
    assert mem["arena_bytes"] >= 8 * 4096 * 4096 * 4   # the output lives in the arena
    assert mem["total_bytes"] == mem["weights_bytes"] + mem["inputs_bytes"] + mem["arena_bytes"]


def test_launch_over_the_grid_limit_is_refused(tmp_path):
    art = compile(detector(tmp_path), "h100", CompileOptions(input_shapes=(("x", (1, 3, 512, 512)),), build=False))
    small = dict(get_target("h100").describe(), name="tiny-grid", max_grid=[16, 1, 1])
    small["mma_shapes"] = [list(s) for s in small["mma_shapes"]]
    with pytest.raises(TooLarge, match=r"blocks along grid axis x, outside the launch limit 1\.\.16"):
        check_plan(art.plan, get_target(small))
    check_plan(art.plan, get_target("h100"))   # the same plan fits the real limits


def test_inspect_shows_dynamic_dimensions(tmp_path):
    r = brickyard("inspect", detector(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "x  float32[?, 3, ?, ?]" in r.stdout and "y  float32[x[0], 8, ?, ?]" in r.stdout
    assert "x axis 2 (unnamed)" in r.stdout and "--input-shape x=<x[0]>,3,<x[2]>,<x[3]>" in r.stdout
    r = brickyard("inspect", detector(tmp_path), "--json")
    d = json.loads(r.stdout)
    assert [dd["symbol"] for dd in d["dynamic_dims"]] == ["x[0]", "x[2]", "x[3]"]
    assert d["parameters"] == 216 and d["parameter_bytes"] == 864 and d["op_histogram"] == {"Conv": 1, "Relu": 1}


def test_unset_dimension_error_lists_them_all(tmp_path):
    r = brickyard("compile", detector(tmp_path), "-o", str(tmp_path / "a.tar.gz"))
    assert_clean_error(r, "3 dynamic dimensions", "x axis 0 (unnamed); x axis 2 (unnamed); x axis 3 (unnamed)",
                       "--input-shape x=<x[0]>,3,<x[2]>,<x[3]>")


def test_targets_show_memory_and_launch_limits():
    r = brickyard("targets")
    assert r.returncode == 0
    lines = {ln.split()[0]: ln for ln in r.stdout.splitlines()}
    assert "memory" in lines["name"] and "max grid" in lines["name"]
    assert "80 GiB" in lines["h100"] and "141 GiB" in lines["h200"] and "40 GiB" in lines["a100-40gb"]
    assert "2147483647x65535x65535" in lines["h100"]
