"""QDQ contractions as integer contractions (compiler/frontend/qdq_integer.py): a Conv or MatMul of
a dequantized 8-bit value and a dequantized 8-bit constant weight becomes ConvInteger /
MatMulInteger, a Cast, the constant sx * sw and the bias, which the imma stage puts on the integer
mma. The result is checked on the host harness against onnxruntime with its optimizations off
(the float contraction of dequantized values, which differs by float rounding only) and against
the same model compiled with --disable qdq_integer."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(33)


def _model(nodes, x_shape, y_shape, inits, opset=17) -> bytes:
    g = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", TP.FLOAT, x_shape)],
                          [helper.make_tensor_value_info("y", TP.FLOAT, y_shape)],
                          [numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _quantized_input(inits: dict) -> list:
    """x -> QuantizeLinear (uint8, per tensor) -> DequantizeLinear: the data operand."""
    inits.update({"xs": np.array(0.03, np.float32), "xz": np.array(118, np.uint8)})
    return [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
            helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"])]


def _conv_model(per_channel: bool, bias: bool) -> bytes:
    C, M = 32, 48
    inits: dict = {"wq": RNG.integers(-127, 128, (M, C, 3, 3)).astype(np.int8)}
    inits["ws"] = (RNG.random(M) * 0.01 + 0.002).astype(np.float32) if per_channel else np.array(0.004, np.float32)
    inits["wz"] = np.zeros(M, np.int8) if per_channel else np.array(0, np.int8)
    nodes = _quantized_input(inits)
    nodes.append(helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"], axis=0))
    ins = ["xd", "wd"]
    if bias:   # the bias as a QDQ model stores it: int32 at scale sx * sw
        inits["bq"] = RNG.integers(-5000, 5000, M).astype(np.int32)
        inits["bs"] = (np.float32(0.03) * inits["ws"]).astype(np.float32).reshape(-1 if per_channel else ())
        nodes.append(helper.make_node("DequantizeLinear", ["bq", "bs"], ["bd"], axis=0))
        ins.append("bd")
    nodes += [helper.make_node("Conv", ins, ["c"], pads=[1, 1, 1, 1], strides=[1, 2]),
              helper.make_node("Relu", ["c"], ["y"])]
    return _model(nodes, [2, C, 15, 15], [2, M, 15, 8], inits)


def _gemm_model(trans_b: bool) -> bytes:
    K, N = 96, 64
    inits: dict = {"wq": RNG.integers(0, 256, (N, K) if trans_b else (K, N)).astype(np.uint8),
                   "ws": np.array(0.002, np.float32), "wz": np.array(128, np.uint8),
                   "b": RNG.standard_normal(N).astype(np.float32)}
    nodes = _quantized_input(inits)
    nodes += [helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"]),
              helper.make_node("Gemm", ["xd", "wd", "b"], ["y"], transB=int(trans_b))]
    return _model(nodes, [24, K], [24, N], inits)


def _matmul_model() -> bytes:
    K, N = 64, 80
    inits: dict = {"wq": RNG.integers(-127, 128, (K, N)).astype(np.int8),
                   "ws": (RNG.random(N) * 0.01 + 0.001).astype(np.float32), "wz": np.zeros(N, np.int8)}
    nodes = _quantized_input(inits)
    nodes += [helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"], axis=1),
              helper.make_node("MatMul", ["xd", "wd"], ["y"])]
    return _model(nodes, [2, 12, K], [2, 12, N], inits)


def _technique(art, name: str) -> dict:
    return next(t for t in art.report["techniques"] if t["name"] == name)


def _check(model: bytes, x: np.ndarray, rewritten: int) -> None:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    want = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    art = compile(model, "h100", CompileOptions(build=False))
    assert _technique(art, "integer QDQ contractions")["effect"]["rewritten"] == rewritten
    assert _technique(art, "int8 tensor cores")["effect"]["contractions"] == rewritten
    off = compile(model, "h100", CompileOptions(build=False, disable=("qdq_integer",)))
    assert _technique(off, "integer QDQ contractions")["effect"]["rewritten"] == 0
    assert "ConvInteger" not in off.report["ops"] and "MatMulInteger" not in off.report["ops"]
    float_path = Executor(off.plan, make_backend("host")).run({"x": x})["y"]
    scale = float(np.abs(want).max())
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode, seed=4)).run({"x": x})["y"]
        # the integer sums are exact; the float contraction of dequantized values rounds each term
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * scale)
        np.testing.assert_allclose(got, float_path, rtol=0, atol=2e-6 * scale)


@pytest.mark.parametrize("per_channel,bias", [(True, True), (False, True), (True, False)])
def test_conv(per_channel, bias):
    _check(_conv_model(per_channel, bias), RNG.standard_normal((2, 32, 15, 15)).astype(np.float32) * 2, 1)


@pytest.mark.parametrize("trans_b", [False, True])
def test_gemm_through_canonical_matmul(trans_b):
    _check(_gemm_model(trans_b), RNG.standard_normal((24, 96)).astype(np.float32) * 2, 1)


def test_batched_matmul_per_column_scales():
    _check(_matmul_model(), RNG.standard_normal((2, 12, 64)).astype(np.float32) * 2, 1)


def test_what_is_left_float():
    """A matrix-vector product (one row: nothing to gain), a weight dequantized by a run-time scale,
    and a per-channel scale of the data operand keep the float contraction."""
    K, N = 64, 32
    base = {"wq": RNG.integers(-127, 128, (K, N)).astype(np.int8), "ws": np.array(0.01, np.float32)}
    inits = dict(base)
    nodes = _quantized_input(inits) + [helper.make_node("DequantizeLinear", ["wq", "ws"], ["wd"]),
                                       helper.make_node("MatMul", ["xd", "wd"], ["y"])]
    one_row = _model(nodes, [1, K], [1, N], inits)
    art = compile(one_row, "h100", CompileOptions(build=False))
    assert _technique(art, "integer QDQ contractions")["effect"]["rewritten"] == 0
    # the weight's scale computed at run time (from the input): not a constant
    inits = dict(base)
    nodes = _quantized_input(inits) + [
        helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0),
        helper.make_node("Mul", ["m", "ws"], ["wsr"]),
        helper.make_node("DequantizeLinear", ["wq", "wsr"], ["wd"]),
        helper.make_node("MatMul", ["xd", "wd"], ["y"])]
    runtime_scale = _model(nodes, [8, K], [8, N], inits)
    art = compile(runtime_scale, "h100", CompileOptions(build=False))
    assert _technique(art, "integer QDQ contractions")["effect"]["rewritten"] == 0
