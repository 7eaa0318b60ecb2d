"""The com.microsoft operators onnxruntime's graph optimizer writes into a saved optimized model
(compiler/ops/contrib_fused.py): FusedConv with each activation and a residual, FusedMatMul with
transposes and a scale, against onnxruntime's CPU kernels on the host harness; and the shared
models saved by onnxruntime at ORT_ENABLE_EXTENDED compile to their originals' launches and
predicted time. The CPU-specific nchwc layout (ORT_ENABLE_ALL) is refused with what to do."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.errors import UnsupportedOp
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend
from tests.conftest import MODELS_DIR as MODELS

RNG = np.random.default_rng(41)
MS = "com.microsoft"


def one_node(node, inputs, output, inits=()) -> bytes:
    vi = helper.make_tensor_value_info
    g = helper.make_graph([node], "fused", [vi(n, TensorProto.FLOAT, s) for n, s in inputs],
                          [vi(output[0], TensorProto.FLOAT, output[1])], [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(MS, 1)])
    m.ir_version = 9
    return m.SerializeToString()


def check(data: bytes, feeds: dict, tol: float = 1e-5):
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = list(Executor(art.plan, make_backend("host", mode=mode)).run(feeds).values())[0]
        np.testing.assert_allclose(got, want, rtol=0, atol=tol * max(1.0, float(np.abs(want).max())), err_msg=mode)
    return art


ACTS = [("", ()), ("Relu", ()), ("Tanh", ()), ("Sigmoid", ()), ("LeakyRelu", (0.2,)), ("Clip", (-0.5, 0.7)),
        ("HardSigmoid", (0.3, 0.4))]


# every activation without the residual Z; the residual with none and with Relu
@pytest.mark.parametrize("act,params,residual", [(a, p, False) for a, p in ACTS] + [("", (), True), ("Relu", (), True)])
def test_fused_conv(act, params, residual):
    x_shape, w = [2, 8, 10, 10], RNG.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.2
    ins = ["x", "w", "b"] + (["z"] if residual else [])
    attrs = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
    if act:
        attrs["activation"] = act
    if params:
        attrs["activation_params"] = list(params)
    node = helper.make_node("FusedConv", ins, ["y"], domain=MS, **attrs)
    inputs = [("x", x_shape)] + ([("z", [2, 16, 10, 10])] if residual else [])
    data = one_node(node, inputs, ("y", [2, 16, 10, 10]), [("w", w), ("b", RNG.standard_normal(16).astype(np.float32))])
    feeds = {n: RNG.standard_normal(s).astype(np.float32) for n, s in inputs}
    art = check(data, feeds)
    assert art.report["launches_per_inference"] == 1       # the activation and residual in the epilogue


def test_fused_conv_strided_grouped():
    node = helper.make_node("FusedConv", ["x", "w"], ["y"], domain=MS, kernel_shape=[3, 3], strides=[2, 2],
                            group=4, auto_pad="SAME_UPPER", activation="Relu")
    w = RNG.standard_normal((8, 2, 3, 3)).astype(np.float32)
    data = one_node(node, [("x", [1, 8, 9, 9])], ("y", [1, 8, 5, 5]), [("w", w)])
    check(data, {"x": RNG.standard_normal((1, 8, 9, 9)).astype(np.float32)})


@pytest.mark.parametrize("ta,tb,alpha,sa,sb", [(0, 1, 1.0, [2, 3, 5, 16], [2, 3, 12, 16]),
                                               (1, 0, 0.125, [4, 16, 5], [16, 12]),
                                               (1, 1, 2.0, [16, 5], [12, 16]),
                                               (0, 0, 0.5, [3, 5, 16], [16, 12])])
def test_fused_matmul(ta, tb, alpha, sa, sb):
    node = helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain=MS, transA=ta, transB=tb, alpha=alpha)
    feeds = {"a": RNG.standard_normal(sa).astype(np.float32), "b": RNG.standard_normal(sb).astype(np.float32)}
    a = np.swapaxes(feeds["a"], -1, -2) if ta else feeds["a"]
    b = np.swapaxes(feeds["b"], -1, -2) if tb else feeds["b"]
    data = one_node(node, [("a", sa), ("b", sb)], ("y", list(np.matmul(a, b).shape)))
    art = check(data, feeds)
    assert art.report["launches_per_inference"] == 1       # transposes in the loads, the scale in the epilogue


def saved_by_onnxruntime(path: Path, level, out: Path) -> bytes:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = level
    opts.optimized_model_filepath = str(out)
    ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    return out.read_bytes()


@pytest.mark.parametrize("name", ["resnet", "mobilenetv2", "bert", "gpt2", "vit"])
def test_a_model_saved_by_onnxruntime_compiles_as_its_original(name, tmp_path):
    """onnxruntime at ORT_ENABLE_EXTENDED folds BatchNorm-free Convs and their activations into
    FusedConv, MatMul + Transpose/Mul into FusedMatMul, residual LayerNorms into
    SkipLayerNormalization: the saved model is right against the shared model's reference
    outputs, and no slower than the original (launches and predicted time)."""
    src = MODELS / f"{name}.onnx"
    data = saved_by_onnxruntime(src, ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, tmp_path / "opt.onnx")
    ref = np.load(MODELS / f"{name}.npz")
    feeds = {k[3:]: v for k, v in ref.items() if k.startswith("in:")}
    art = compile(data, "h100", CompileOptions(build=False))
    got = Executor(art.plan, make_backend("host")).run(feeds)
    for k, want in ref.items():
        if k.startswith("out:"):
            g = got[k[4:]]
            assert np.abs(g - want).max() / np.abs(want).max() < 1e-3, k
    base = compile(src.read_bytes(), "h100", CompileOptions(build=False)).report
    assert art.report["launches_per_inference"] <= base["launches_per_inference"]
    assert art.report["latency"]["predicted_us"] <= base["latency"]["predicted_us"] * 1.02


def test_the_nchwc_layout_is_refused_with_what_to_do(tmp_path):
    data = saved_by_onnxruntime(MODELS / "resnet.onnx", ort.GraphOptimizationLevel.ORT_ENABLE_ALL, tmp_path / "all.onnx")
    with pytest.raises(UnsupportedOp, match="ORT_ENABLE_EXTENDED"):
        compile(data, "h100", CompileOptions(build=False))


@pytest.mark.parametrize("attrs,sa,sb", [({"transBatchA": 1}, [4, 2, 3, 5], [2, 3, 5, 6]),
                                         ({"transBatchB": 1, "transB": 1}, [2, 3, 4, 5], [6, 2, 3, 5]),
                                         ({"transBatchA": 1, "transA": 1, "alpha": 0.5}, [5, 2, 3, 4], [2, 3, 5, 6])])
def test_fused_matmul_batch_transposed(attrs, sa, sb):
    """transBatchA/transBatchB (onnxruntime's optimizer writes them for an attention's Q·K^T after
    a transpose of heads): the operand's first axis read second-to-last, then transA/transB; the
    output shape is onnxruntime's, and the values too (check compares with it)."""
    node = helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain=MS, **attrs)
    feeds = {"a": RNG.standard_normal(sa).astype(np.float32), "b": RNG.standard_normal(sb).astype(np.float32)}
    data = one_node(node, [("a", sa), ("b", sb)], ("y", [2, 3, 4, 6]))
    check(data, feeds)
