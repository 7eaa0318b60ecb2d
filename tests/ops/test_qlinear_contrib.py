"""onnxruntime's quantized com.microsoft ops (compiler/frontend/qlinear.py): each expanded into its
float op between DequantizeLinear and QuantizeLinear, compiled, and run on the host harness against
onnxruntime's own kernels for them. onnxruntime computes some with integer or table arithmetic, so
an element may land one quantization step apart: at most one step, and few such elements. A model
breaking the ops' types (an int32 input where int8 or uint8 belongs) is refused by name."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.errors import ModelError
from compiler.frontend.onnx_import import import_model
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(41)
MS = "com.microsoft"
U8, I8 = TP.UINT8, TP.INT8


def _q(name: str, scale: float, zero: int, dtype: int) -> dict:
    """A scale and zero point initializer pair."""
    np_type = np.uint8 if dtype == U8 else np.int8
    return {f"{name}_s": np.float32(scale).reshape(()), f"{name}_z": np.array(zero, np_type)}


def _model(node, inputs: list[tuple[str, int, list[int]]], out_type: int, inits: dict, out_shape) -> bytes:
    g = helper.make_graph([node], "q", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info("y", out_type, out_shape)],
                          [numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m.SerializeToString()


def _data(shape, dtype: int) -> np.ndarray:
    lo, hi = (0, 256) if dtype == U8 else (-128, 128)
    return RNG.integers(lo, hi, shape).astype(np.uint8 if dtype == U8 else np.int8)


def _check(model: bytes, feeds: dict) -> tuple[np.ndarray, list[str]]:
    """Our output against onnxruntime's: within a step everywhere, at most 2% of elements a step off."""
    want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    art = compile(model, "h100", CompileOptions(build=False))
    got = Executor(art.plan, make_backend("host")).run(feeds)["y"]
    assert got.shape == want.shape and got.dtype == want.dtype
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    if want.dtype.kind in "iu":
        assert diff.max() <= 1 and (diff > 0).mean() <= 0.02, (diff.max(), (diff > 0).mean())
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.unique(want).size > 4          # the case spans many steps, not a saturated constant
    return got, [n.op for n in import_model(model).graph.nodes]


@pytest.mark.parametrize("op,dtype", [("QLinearAdd", U8), ("QLinearMul", I8)])
def test_binary_broadcast(op, dtype):
    inits = {**_q("a", 0.05, 128 if dtype == U8 else 3, dtype), **_q("b", 0.03, 100 if dtype == U8 else -5, dtype),
             **_q("c", 0.08 if op == "QLinearAdd" else 0.4, 120 if dtype == U8 else 0, dtype)}
    node = helper.make_node(op, ["A", "a_s", "a_z", "B", "b_s", "b_z", "c_s", "c_z"], ["y"], domain=MS)
    model = _model(node, [("A", dtype, [2, 3, 4, 5]), ("B", dtype, [5])], dtype, inits, [2, 3, 4, 5])
    _, ops = _check(model, {"A": _data((2, 3, 4, 5), dtype), "B": _data((5,), dtype)})
    assert ops.count("DequantizeLinear") == 2 and ops[-1] == "QuantizeLinear"


@pytest.mark.parametrize("op,attrs,dtype", [("QLinearSigmoid", {}, U8), ("QLinearLeakyRelu", {"alpha": 0.2}, I8)])
def test_unary(op, attrs, dtype):
    inits = {**_q("x", 0.06, 128 if dtype == U8 else 0, dtype), **_q("y", 1 / 255 if op == "QLinearSigmoid" else 0.05,
                                                                    0 if dtype == U8 else 10, dtype)}
    node = helper.make_node(op, ["X", "x_s", "x_z", "y_s", "y_z"], ["y"], domain=MS, **attrs)
    _check(_model(node, [("X", dtype, [3, 40])], dtype, inits, [3, 40]), {"X": _data((3, 40), dtype)})


@pytest.mark.parametrize("axis,opset", [(-1, 13), (1, 1)])
def test_softmax(axis, opset):
    """opset 13's Softmax along the axis, and the older one over the axes from it on."""
    inits = {**_q("x", 0.1, 128, U8), **_q("y", 1 / 256, 0, U8)}
    node = helper.make_node("QLinearSoftmax", ["X", "x_s", "x_z", "y_s", "y_z"], ["y"], domain=MS, axis=axis,
                            opset=opset)
    _check(_model(node, [("X", U8, [2, 3, 6])], U8, inits, [2, 3, 6]), {"X": _data((2, 3, 6), U8)})


@pytest.mark.parametrize("channels_last", [0, 1])
def test_global_average_pool(channels_last):
    inits = {**_q("x", 0.05, 128, U8), **_q("y", 0.01, 128, U8)}
    node = helper.make_node("QLinearGlobalAveragePool", ["X", "x_s", "x_z", "y_s", "y_z"], ["y"], domain=MS,
                            channels_last=channels_last)
    shape, out = ([2, 5, 5, 8], [2, 1, 1, 8]) if channels_last else ([2, 8, 5, 5], [2, 8, 1, 1])
    _check(_model(node, [("X", U8, shape)], U8, inits, out), {"X": _data(shape, U8)})


@pytest.mark.parametrize("channels_last", [0, 1])
def test_average_pool(channels_last):
    inits = {**_q("x", 0.05, 0, I8), **_q("y", 0.03, -3, I8)}
    node = helper.make_node("QLinearAveragePool", ["X", "x_s", "x_z", "y_s", "y_z"], ["y"], domain=MS,
                            kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0,
                            channels_last=channels_last)
    shape, out = ([1, 7, 7, 4], [1, 4, 4, 4]) if channels_last else ([1, 4, 7, 7], [1, 4, 4, 4])
    _check(_model(node, [("X", I8, shape)], I8, inits, out), {"X": _data(shape, I8)})


def test_concat_of_differently_scaled_inputs():
    inits = {**_q("y", 0.05, 128, U8), **_q("p", 0.02, 100, U8), **_q("r", 0.09, 140, U8)}
    node = helper.make_node("QLinearConcat", ["y_s", "y_z", "P", "p_s", "p_z", "R", "r_s", "r_z"], ["y"],
                            domain=MS, axis=1)
    _check(_model(node, [("P", U8, [2, 3, 4]), ("R", U8, [2, 5, 4])], U8, inits, [2, 8, 4]),
           {"P": _data((2, 3, 4), U8), "R": _data((2, 5, 4), U8)})


def test_qgemm_per_column_weight_and_bias_quantized():
    """uint8 A times an int8 B with a scale per column, an int32 bias at scale a_s * b_s, the
    result quantized."""
    b_scale = RNG.uniform(0.005, 0.02, 6).astype(np.float32)
    inits = {"a_s": np.float32(0.04).reshape(()), "a_z": np.array(120, np.uint8),
             "B": _data((8, 6), I8), "b_s": b_scale, "b_z": np.zeros(6, np.int8),
             "C": RNG.integers(-2000, 2000, 6).astype(np.int32), **_q("y", 0.1, 128, U8)}
    node = helper.make_node("QGemm", ["A", "a_s", "a_z", "B", "b_s", "b_z", "C", "y_s", "y_z"], ["y"], domain=MS)
    _, ops = _check(_model(node, [("A", U8, [4, 8])], U8, inits, [4, 6]), {"A": _data((4, 8), U8)})
    # the expansion's DequantizeLinear -> Gemm -> QuantizeLinear, its contraction of dequantized
    # 8-bit values made the integer one it equals (frontend/qdq_integer.py)
    assert "MatMulInteger" in ops and "Gemm" not in ops


def test_qgemm_transposed_float_output():
    """Without y_scale QGemm's result is float: alpha A B^T."""
    inits = {"a_s": np.float32(0.04).reshape(()), "a_z": np.array(0, np.int8),
             "B": _data((5, 8), I8), "b_s": np.float32(0.01).reshape(()), "b_z": np.array(0, np.int8)}
    node = helper.make_node("QGemm", ["A", "a_s", "a_z", "B", "b_s", "b_z"], ["y"], domain=MS, transB=1, alpha=0.5)
    g = helper.make_graph([node], "q", [helper.make_tensor_value_info("A", I8, [3, 8])],
                          [helper.make_tensor_value_info("y", TP.FLOAT, [3, 5])],
                          [numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    _check(m.SerializeToString(), {"A": _data((3, 8), I8)})


def test_an_int32_input_is_refused_by_name():
    """onnxruntime's quantizer writes an int32 bias into QLinearAdd for some transformers; onnxruntime
    refuses such a model, and so does the import, naming the node and the input."""
    inits = {**_q("a", 0.05, 128, U8), "B": np.arange(5, dtype=np.int32), "b_s": np.float32(0.01).reshape(()),
             "b_z": np.array(0, np.int32), **_q("c", 0.05, 128, U8)}
    node = helper.make_node("QLinearAdd", ["A", "a_s", "a_z", "B", "b_s", "b_z", "c_s", "c_z"], ["y"], domain=MS,
                            name="bias_add")
    model = _model(node, [("A", U8, [2, 5])], U8, inits, [2, 5])
    with pytest.raises(ModelError, match="'bias_add' input 3 .* is int32; the op takes int8 or uint8"):
        import_model(model)


def test_dynamic_quantize_matmul_per_column():
    """A float A quantized at run time, times an int8 B with a scale and zero point per column,
    plus a bias: float out, as onnxruntime's optimizer writes a dynamically quantized MatMul."""
    inits = {"B": _data((16, 6), I8), "b_s": RNG.uniform(0.01, 0.03, 6).astype(np.float32),
             "b_z": RNG.integers(-3, 4, 6).astype(np.int8), "bias": RNG.standard_normal(6).astype(np.float32)}
    node = helper.make_node("DynamicQuantizeMatMul", ["A", "B", "b_s", "b_z", "bias"], ["y"], domain=MS)
    model = _model(node, [("A", TP.FLOAT, [2, 5, 16])], TP.FLOAT, inits, [2, 5, 6])
    _, ops = _check(model, {"A": RNG.standard_normal((2, 5, 16)).astype(np.float32)})
    assert "DynamicQuantizeLinear" in ops and "MatMulInteger" in ops


def test_matmul_integer_to_float():
    inits = {"B": _data((16, 6), U8), "a_s": np.float32(0.05).reshape(()), "b_s": np.float32(0.02).reshape(()),
             "a_z": np.array(128, np.uint8), "b_z": np.array(120, np.uint8)}
    node = helper.make_node("MatMulIntegerToFloat", ["A", "B", "a_s", "b_s", "a_z", "b_z"], ["y"], domain=MS)
    _check(_model(node, [("A", U8, [3, 16])], TP.FLOAT, inits, [3, 6]), {"A": _data((3, 16), U8)})
