"""The verify stage's reference is what the model means: onnxruntime at its basic graph
optimizations only. Its extended ones turn a DequantizeLinear -> MatMul (a weight-only int8
Linear, as quantization tools write it) into a quantized product that rounds the activations to
8 bits, which the compiled plan, exact to fp32, would then fail against."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.ir.dtypes import DType
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend


def int8_linear(k: int = 1024, n: int = 512) -> tuple[onnx.ModelProto, np.ndarray, np.ndarray]:
    """y = x @ DequantizeLinear(Wq, per-column scale): the model, Wq and the scales."""
    rng = np.random.default_rng(4)
    wq = rng.integers(-127, 128, (k, n)).astype(np.int8)
    scale = (rng.random(n) * 0.01 + 1e-3).astype(np.float32)
    nodes = [helper.make_node("DequantizeLinear", ["wq", "scale"], ["w"], axis=1),
             helper.make_node("MatMul", ["x", "w"], ["y"])]
    g = helper.make_graph(nodes, "int8_linear", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, n])],
                          [numpy_helper.from_array(wq, "wq"), numpy_helper.from_array(scale, "scale")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    onnx.checker.check_model(m)
    return m, wq, scale


def test_a_weight_only_int8_linear_verifies_against_the_models_semantics():
    m, wq, scale = int8_linear()
    art = compile(m, "h100", CompileOptions(build=False, verify="host"))
    v = art.report["verification"]
    assert v["outcome"] == "passed" and v["max_rel_error"] < 1e-5, v
    # the weight stays int8 in the plan: a quarter of fp32's bytes
    assert dict(art.plan.constants)["wq"].dtype is DType.int8
    x = np.random.default_rng(5).standard_normal((4, wq.shape[0])).astype(np.float32)
    got = Executor(art.plan, make_backend("host")).run({"x": x})["y"]
    want = x.astype(np.float64) @ (wq.astype(np.float64) * scale)
    assert np.abs(got - want).max() / np.abs(want).max() < 1e-5
