"""Verification in a reduced precision: when fp16 or bf16 misses the tolerance, the verify stage
measures onnxruntime itself with the contractions' operands rounded the same way
(compiler.verify.rounded_model, rounding_error), and the outcome says `within rounding` only where
that reference moves at least as far as the compiled plan (docs/report.md)."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler import report as report_mod
from compiler.pipeline import CompileOptions
from compiler.report import validate_report
from compiler.report_html import verification_sentence
from compiler.verify import max_rel_error, rounded_model


def _model(scale: float, k: int = 64) -> onnx.ModelProto:
    """y = ((x * scale) @ W) @ V: with scale 1e-6 the MatMuls' operands lie under fp16's smallest
    normal (6.1e-5), where fp16 keeps only a few bits; bf16 has fp32's range."""
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((k, 48)).astype(np.float32), "w")
    v = numpy_helper.from_array(rng.standard_normal((48, 16)).astype(np.float32), "v")
    s = numpy_helper.from_array(np.array(scale, np.float32), "s")
    g = helper.make_graph(
        [helper.make_node("Mul", ["x", "s"], ["xs"]), helper.make_node("MatMul", ["xs", "w"], ["h"]),
         helper.make_node("MatMul", ["h", "v"], ["y"])], "tiny_activations",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 16])], [w, v, s])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return m


def _run(model, x):
    opts = ort.SessionOptions()     # the verify stage's reference: basic graph optimizations only
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return {"y": sess.run(None, {"x": x})[0]}


def test_rounded_model_rounds_each_operand_and_matches_numpy():
    m = _model(1.0)
    rounded, count = rounded_model(m, "fp16")
    assert count == 4      # both operands of both MatMuls
    casts = [n for n in rounded.graph.node if n.op_type == "Cast"]
    assert [c.attribute[0].i for c in casts] == [TensorProto.FLOAT16, TensorProto.FLOAT] * 4
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
    w, v = (numpy_helper.to_array(i) for i in m.graph.initializer[:2])
    r16 = lambda a: a.astype(np.float16).astype(np.float32)
    want = r16(r16(x) @ r16(w)) @ r16(v)
    np.testing.assert_allclose(_run(rounded, x)["y"], want, rtol=1e-5, atol=1e-4)
    onnx.checker.check_model(rounded)            # raises where the rounded copy is no valid model
    assert len(m.graph.node) == 3            # the model given is not changed


def test_short_contractions_stay_unrounded():
    """K < MIN_REDUCED_K (16): the precision stage leaves them in fp32, and so does the reference."""
    rounded, count = rounded_model(_model(1.0, k=8), "bf16")
    assert count == 2      # only the second MatMul (K = 48)
    assert all(n.op_type != "Cast" for n in rounded.graph.node[:2])


def test_contractions_in_a_loop_body_are_rounded():
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]), helper.make_node("MatMul", ["h", "w"], ["h_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("h", TensorProto.FLOAT, [4, 32])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [4, 32])])
    w = numpy_helper.from_array(np.eye(32, dtype=np.float32), "w")
    n = numpy_helper.from_array(np.array(3, np.int64), "n")
    t = numpy_helper.from_array(np.array(True), "t")
    g = helper.make_graph([helper.make_node("Loop", ["n", "t", "x"], ["y"], body=body)], "loop",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 32])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 32])], [w, n, t])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    rounded, count = rounded_model(m, "fp16")
    assert count == 2
    x = (np.arange(128, dtype=np.float32).reshape(4, 32) + 1) / 3
    y = _run(rounded, x)["y"]
    np.testing.assert_array_equal(y, x.astype(np.float16).astype(np.float32))   # identity W, rounded each step


@pytest.fixture(scope="module")
def tiny_activations(tmp_path_factory):
    path = tmp_path_factory.mktemp("rounding") / "tiny_activations.onnx"
    onnx.save(_model(1e-6), path)
    return path


def test_fp16_under_its_normal_range_is_within_rounding(tiny_activations):
    v = compile(str(tiny_activations), "h100", CompileOptions(precision="fp16", verify="host")).report["verification"]
    assert v["max_rel_error"] > v["tolerance"] == 1e-2          # fp16 subnormals lose the bits
    assert v["rounding_error"] >= v["max_rel_error"]
    assert v["outcome"] == "within rounding"
    assert "sensitive to this precision" in verification_sentence(v)
    # bf16 keeps fp32's range: the same model passes, and no rounding reference is run
    b = compile(str(tiny_activations), "h100", CompileOptions(precision="bf16", verify="host")).report["verification"]
    assert b["outcome"] == "passed" and b["rounding_error"] is None


def test_an_error_beyond_the_rounding_still_fails(tiny_activations):
    art = compile(str(tiny_activations), "h100", CompileOptions(precision="fp16", verify="host"))
    v = report_mod._verification({"device": "host", "max_rel_error": 0.5, "rounding_error": 0.1}, "fp16")
    assert v["outcome"] == "failed" and v["rounding_error"] == 0.1
    assert "rounded the same way is off by 1.00e-01" in verification_sentence(v)
    validate_report(dict(art.report, verification=v))
    # a non-finite rounding reference explains nothing
    v = report_mod._verification({"device": "host", "max_rel_error": 0.5, "rounding_error": math.inf}, "fp16")
    assert v["outcome"] == "failed" and v["rounding_error"] is None


def test_the_rounding_error_is_onnxruntime_against_itself(tiny_activations):
    """rounding_error is exactly the rounded model's distance from the plain one on the verify
    stage's inputs (sample_inputs, seed 0), computed here without the compiler."""
    v = compile(str(tiny_activations), "h100", CompileOptions(precision="fp16", verify="host")).report["verification"]
    m = onnx.load(tiny_activations)
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
    assert math.isclose(v["rounding_error"], max_rel_error(_run(rounded_model(m, "fp16")[0], x), _run(m, x)))


def test_cli_exit_status_follows_the_outcome(tiny_activations, tmp_path):
    run = lambda *a: subprocess.run([sys.executable, "-m", "compiler", "compile", str(tiny_activations), "-q",
                                     "-o", str(tmp_path / "a.tar"), *a], capture_output=True, text=True)
    r = run("--verify", "host", "--precision", "fp16")
    assert r.returncode == 0 and "sensitive to this precision" in r.stdout, r.stdout + r.stderr
    r = run("--verify", "host")
    assert r.returncode == 0 and "Verification passed on the host" in r.stdout, r.stdout + r.stderr


def test_an_all_nan_reference_is_inconclusive(tmp_path):
    """The square root of a negative value: onnxruntime's outputs are all NaN and so are the plan's. They agree,
    but nothing was compared: the outcome says so rather than passed."""
    g = helper.make_graph([helper.make_node("Abs", ["x"], ["a"]), helper.make_node("Neg", ["a"], ["n"]),
                           helper.make_node("Sub", ["n", "one"], ["d"]), helper.make_node("Sqrt", ["d"], ["y"])],
                          "nan", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
                          [numpy_helper.from_array(np.array(1.0, np.float32), "one")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    path = tmp_path / "nan.onnx"
    onnx.save(m, path)
    # -|x| - 1 < 0 for every input: sqrt gives NaN everywhere
    v = compile(str(path), "h100", CompileOptions(verify="host", build=False)).report["verification"]
    assert v["outcome"] == "inconclusive" and v["reference_finite"] == 0.0 and v["max_rel_error"] == 0.0
    assert "inconclusive" in verification_sentence(v)
    ok = compile(_model(1.0).SerializeToString(), "h100", CompileOptions(verify="host", build=False))
    assert ok.report["verification"]["reference_finite"] == 1.0


def test_tf32_rounding_is_exact_to_eleven_bits():
    """Veltkamp's split in onnxruntime's fp32 arithmetic rounds each operand to nearest (ties to
    even) at tf32's 11 significant bits: the same bits as NumPy's integer rounding of the mantissa."""
    m = _model(1.0)
    rounded, count = rounded_model(m, "tf32")
    assert count == 4
    x = (np.random.default_rng(5).standard_normal((8, 64)) * 7).astype(np.float32)

    def tf32(a):
        b = a.astype(np.float32).view(np.uint32).astype(np.uint64)
        return ((b + 0xFFF + ((b >> 13) & 1)) & ~np.uint64(0x1FFF)).astype(np.uint32).view(np.float32)
    w, v = (numpy_helper.to_array(i) for i in m.graph.initializer[:2])
    want = tf32(tf32(x) @ tf32(w)) @ tf32(v)
    np.testing.assert_allclose(_run(rounded, x)["y"], want, rtol=1e-5, atol=1e-4)
    # the plan's tf32 error on the tiny-activation model (fp32 range: nothing underflows) passes
    v32 = compile(_model(1e-6).SerializeToString(), "h100", CompileOptions(precision="tf32", verify="host"))
    assert v32.report["verification"]["outcome"] == "passed"


@pytest.mark.parametrize("err,rounding,against,outcome", [
    (0.0593, 0.0592, 5e-5, "within rounding"),   # tied with the rounded reference's error, matching it
    (0.0593, 0.0592, 0.03, "failed"),            # neither explains it
    (0.021, 0.117, 0.13, "within rounding"),     # LeViT fp16: the rounded reference moves further
    (0.05, 0.0592, None, "within rounding"),
    (0.05, None, None, "failed"),                # fp32: nothing rounds
])
def test_within_rounding_takes_either_measure(err, rounding, against, outcome):
    v = report_mod._verification({"device": "host", "max_rel_error": err, "reference_finite": 1.0,
                                  "rounding_error": rounding, "rounded_reference_error": against}, "fp16")
    assert v["outcome"] == outcome and v["rounded_reference_error"] == against
    sentence = verification_sentence(v)
    assert ("sensitive to this precision" in sentence) == (outcome == "within rounding")
    assert sentence.startswith("Verification failed") == (outcome == "failed")


def test_a_threshold_on_a_rounded_conv_ties_and_is_within_rounding():
    """y = Where(Conv(x) > 0.25, x, Conv(x)) in fp16: where the Conv's rounded operands move a value
    across the threshold, the plan and onnxruntime's rounded reference flip it alike, so both are
    the same distance from the plain reference (here 0.268), equal up to noise in the last digits,
    which decided the outcome until the plan was also compared with the rounded reference itself."""
    rng = np.random.default_rng(8)
    c, h = 32, 24
    w = (rng.standard_normal((c, c, 3, 3)) / np.sqrt(c * 9)).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Greater", ["c", "t"], ["m"]), helper.make_node("Where", ["m", "x", "c"], ["y"])]
    g = helper.make_graph(nodes, "threshold", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h, h])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, h, h])],
                          [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(0.25, np.float32), "t")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    v = compile(m, "h100", CompileOptions(build=False, precision="fp16", verify="host")).report["verification"]
    assert v["max_rel_error"] > v["tolerance"]
    assert math.isclose(v["max_rel_error"], v["rounding_error"], rel_tol=1e-5)
    assert v["rounded_reference_error"] <= 1e-5 and v["outcome"] == "within rounding"
