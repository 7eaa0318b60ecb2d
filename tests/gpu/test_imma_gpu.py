"""On a GPU (sm_80+): integer contractions on the 8-bit integer mma (passes/imma.py, the
`by_mma_m16n8k32_*_s32` wrappers): MatMulInteger (u8 x s8, split and unsplit), a padded,
strided QLinearConv with per-channel weight zero points, and a QDQ convolution the import makes
an integer one (frontend/qdq_integer.py), each compiled for the device's arch, checked to run on
the integer mma, and compared with the ops' NumPy references: bit for bit where the output is an
integer, within float rounding for the QDQ one. Also run replayed as one CUDA graph (split-K's
counters reset)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from onnx import TensorProto as TP, helper, numpy_helper

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module(min_capability=80)

RNG = np.random.default_rng(41)


def _model(nodes, inputs, out, inits) -> bytes:
    g = helper.make_graph(nodes, "m", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info("y", *out)],
                          [numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _compile(data: bytes):
    from compiler import compile
    from compiler.context import CompileOptions
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    art = compile(data, target, CompileOptions())
    elems = [k["config"].get("elem") for k in art.report["kernels"]]
    assert any(e in ("int8", "uint8") for e in elems), art.report["kernels"]
    return art, target


def _run(art, target, feeds, graph: bool):
    from compiler.runtime.executor import Executor, make_backend
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch), graph=graph)
    return [ex.run(feeds)["y"] for _ in range(3)]


@pytest.mark.parametrize("k", [256, 8192])          # 8192: few output tiles, split along K
@pytest.mark.parametrize("graph", [False, True])
def test_matmul_integer_is_exact(k, graph):
    from compiler.ops.contraction import _ref_matmul_integer
    b = RNG.integers(-128, 128, (k, 96)).astype(np.int8)
    za = np.array(121, np.uint8)
    data = _model([helper.make_node("MatMulInteger", ["A", "B", "za"], ["y"])], [("A", TP.UINT8, [48, k])],
                  (TP.INT32, [48, 96]), {"B": b, "za": za})
    art, target = _compile(data)
    a = RNG.integers(0, 256, (48, k)).astype(np.uint8)
    want = _ref_matmul_integer(None, [a, b, za], 17)[0]
    for got in _run(art, target, {"A": a}, graph):
        np.testing.assert_array_equal(got, want)


def test_padded_qlinear_conv_is_exact():
    from compiler.ops.contraction import _ref_qlinear_conv
    C, H, M = 32, 23, 64
    zw = RNG.integers(-10, 10, M).astype(np.int8)
    w = (RNG.integers(-110, 110, (M, C, 3, 3)) + zw[:, None, None, None]).astype(np.int8)
    names = ["X", "xs", "xz", "W", "ws", "wz", "ys", "yz", "B"]
    inits = {"xs": np.array(0.02, np.float32), "xz": np.array(121, np.uint8), "W": w,
             "ws": (RNG.random(M) * 0.01 + 1e-3).astype(np.float32), "wz": zw,
             "ys": np.array(0.7, np.float32), "yz": np.array(120, np.uint8),
             "B": RNG.integers(-3000, 3000, M).astype(np.int32)}
    node = helper.make_node("QLinearConv", names, ["y"], pads=[1, 2, 1, 0], strides=[2, 1])
    data = _model([node], [("X", TP.UINT8, [2, C, H, H])], (TP.UINT8, [2, M, 12, 23]), inits)
    art, target = _compile(data)
    x = RNG.integers(0, 256, (2, C, H, H)).astype(np.uint8)

    class _N:
        def attr(self, name, default=None):
            return {"pads": [1, 2, 1, 0], "strides": [2, 1]}.get(name, default)
    want = _ref_qlinear_conv(_N(), [x] + [inits[n] for n in names[1:]], 17)[0]
    for got in _run(art, target, {"X": x}, graph=True):
        np.testing.assert_array_equal(got, want)


def test_qdq_conv_runs_as_an_integer_conv():
    C, M = 32, 48
    inits = {"xs": np.array(0.03, np.float32), "xz": np.array(118, np.uint8),
             "wq": RNG.integers(-127, 128, (M, C, 3, 3)).astype(np.int8),
             "ws": (RNG.random(M) * 0.01 + 0.002).astype(np.float32), "wz": np.zeros(M, np.int8)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
             helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"], axis=0),
             helper.make_node("Conv", ["xd", "wd"], ["y"], pads=[1, 1, 1, 1])]
    data = _model(nodes, [("x", TP.FLOAT, [1, C, 28, 28])], (TP.FLOAT, [1, M, 28, 28]), inits)
    art, target = _compile(data)
    x = RNG.standard_normal((1, C, 28, 28)).astype(np.float32) * 2
    xq = np.clip(np.rint(x / inits["xs"]) + 118, 0, 255)
    xd = ((xq - 118) * inits["xs"]).astype(np.float64)
    wd = inits["wq"].astype(np.float64) * inits["ws"].astype(np.float64)[:, None, None, None]
    pad = np.pad(xd, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((1, M, 28, 28))
    for r in range(3):
        for s in range(3):
            want += np.einsum("nchw,mc->nmhw", pad[:, :, r:r + 28, s:s + 28], wd[:, :, r, s])
    for got in _run(art, target, {"x": x}, graph=False):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())
