"""Bad input gets one clear line on stderr and exit code 2, never a traceback."""
from __future__ import annotations

import subprocess
import sys

import onnx
from onnx import TensorProto, helper


def brickyard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compiler", *args], capture_output=True, text=True)


def assert_clean_error(r: subprocess.CompletedProcess, *needles: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    line = r.stderr.strip()
    assert line.startswith("brickyard: error:") and "\n" not in line, line
    for n in needles:
        assert n in line, line


def test_not_onnx(tmp_path):
    p = tmp_path / "junk.onnx"
    p.write_bytes(b"this is not a protobuf \x00\xff\x13 at all" * 10)
    assert_clean_error(brickyard("compile", str(p), "-o", str(tmp_path / "a.tar.gz")), "not a valid ONNX model")


def test_truncated_model(tmp_path, models_dir):
    data = (models_dir / "bert.onnx").read_bytes()
    p = tmp_path / "cut.onnx"
    p.write_bytes(data[: len(data) // 2])
    assert_clean_error(brickyard("compile", str(p), "-o", str(tmp_path / "a.tar.gz")), "cut.onnx")


def _save(model, path):
    onnx.save(model, str(path))
    return str(path)


def test_external_data_outside_the_model_directory_is_refused_without_reading(tmp_path):
    """A path model reads external data only from its own directory: one that names a file above it
    gets one clean line (tests/frontend/test_external_data.py checks that nothing is opened)."""
    (tmp_path / "secret_weights.bin").write_bytes(b"not for the model" * 4)
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    e = w.external_data.add()
    e.key, e.value = "location", "../secret_weights.bin"
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w])
    (tmp_path / "model").mkdir()
    path = _save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), tmp_path / "model" / "ext.onnx")
    assert_clean_error(brickyard("compile", path, "-o", str(tmp_path / "a.tar.gz")), "../secret_weights.bin",
                       "outside the model's directory")


def test_unknown_domain(tmp_path):
    g = helper.make_graph([helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.example", 1)])
    path = _save(m, tmp_path / "dom.onnx")
    assert_clean_error(brickyard("compile", path, "-o", str(tmp_path / "a.tar.gz")), "Frobnicate", "com.example")


def _dynamic_model(tmp_path):
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])])
    return _save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), tmp_path / "dyn.onnx")


def test_dynamic_dim_needs_a_shape(tmp_path):
    r = brickyard("compile", _dynamic_model(tmp_path), "-o", str(tmp_path / "a.tar.gz"))
    assert_clean_error(r, "x", "--input-shape")


def test_dynamic_dim_with_shape_compiles(tmp_path):
    r = brickyard("compile", _dynamic_model(tmp_path), "--input-shape", "x=3,8", "-o", str(tmp_path / "a.tar.gz"), "-q")
    assert r.returncode == 0, r.stderr


def test_missing_file(tmp_path):
    assert_clean_error(brickyard("compile", str(tmp_path / "nope.onnx"), "-o", str(tmp_path / "a.tar.gz")), "nope.onnx")


def test_unknown_target(tmp_path):
    assert_clean_error(brickyard("compile", _dynamic_model(tmp_path), "--input-shape", "x=3,8", "--target", "v100",
                                 "-o", str(tmp_path / "a.tar.gz")), "v100")


def test_targets_lists_presets():
    r = brickyard("targets")
    assert r.returncode == 0
    for name in ("h100", "a100", "l4", "t4", "b200"):
        assert name in r.stdout


def test_debug_shows_traceback(tmp_path):
    p = tmp_path / "junk.onnx"
    p.write_bytes(b"garbage" * 100)
    r = brickyard("--debug", "compile", str(p), "-o", str(tmp_path / "a.tar.gz"))
    assert r.returncode != 0 and "Traceback" in r.stderr
