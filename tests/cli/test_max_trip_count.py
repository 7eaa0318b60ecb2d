"""`--max-trip-count`: a Loop whose iteration count comes from the inputs compiles only with a
bound, and `brickyard run` returns its scan output trimmed to the iterations that ran."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

from .test_cli_errors import _save, assert_clean_error, brickyard


def _counting_loop(tmp_path) -> str:
    """rows[i] = x * (i + 1) for i < m, with m an input."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc", "x"], ["acc2"]), helper.make_node("Identity", ["acc2"], ["row"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc2", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("row", TensorProto.FLOAT, [4])])
    g = helper.make_graph(
        [helper.make_node("Loop", ["m", "", "zero"], ["last", "rows"], body=body)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]), helper.make_tensor_value_info("m", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [None, 4])],
        [onnx.numpy_helper.from_array(np.zeros(4, np.float32), "zero")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return _save(m, tmp_path / "loop.onnx")


def test_max_trip_count_from_the_command_line(tmp_path):
    model = _counting_loop(tmp_path)
    art = str(tmp_path / "a.tar.gz")
    assert_clean_error(brickyard("compile", model, "-o", art, "-q"), "--max-trip-count")
    assert_clean_error(brickyard("compile", model, "--max-trip-count", "0", "-o", art, "-q"), "max_trip_count")
    r = brickyard("compile", model, "--max-trip-count", "10", "-o", art, "-q")
    assert r.returncode == 0, r.stderr
    x = np.array([1.0, -2.0, 0.5, 3.0], np.float32)
    for m in (0, 6):
        np.savez(tmp_path / "in.npz", x=x, m=np.array(m, np.int64))
        r = brickyard("run", art, "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "out.npz"))
        assert r.returncode == 0, r.stderr
        rows = np.load(tmp_path / "out.npz")["rows"]
        np.testing.assert_array_equal(rows, np.arange(1, m + 1, dtype=np.float32)[:, None] * x)
    np.savez(tmp_path / "in.npz", x=x, m=np.array(11, np.int64))
    r = brickyard("run", art, "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "out.npz"))
    assert_clean_error(r, "--max-trip-count")
