"""On a GPU: half storage (passes/half_storage.py) changes no result and should take time off. A
feed-forward block at BERT-base width in fp16 (LayerNorm -> MatMul -> GELU -> MatMul + residual):
the LayerNorm's and the GELU's outputs are read only by contractions that round them, so they are
stored in fp16, and the GEMMs reading them take wgmma by TMA (without the stage, mma.sync with
register-staged fp32 loads). The two plans agree to the fp32 accumulation's order (bit for bit where
the kernels are the same: tests/compiler/test_half_storage.py on the host harness), and each plan's
time per inference is printed beside its prediction: whether half the bytes is less time is what
only a GPU measures."""
from __future__ import annotations

import dataclasses

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from tests.gpu import gpu_module, timed_us

cupy, pytestmark = gpu_module()



def ffn(tokens=512, d=768, f=3072) -> bytes:
    rng = np.random.default_rng(9)
    w1 = (rng.standard_normal((d, f)) * 0.02).astype(np.float32)
    w2 = (rng.standard_normal((f, d)) * 0.02).astype(np.float32)
    nodes = [helper.make_node("LayerNormalization", ["x", "g", "b"], ["ln"], axis=-1),
             helper.make_node("MatMul", ["ln", "w1"], ["h"]), helper.make_node("Gelu", ["h"], ["a"]),
             helper.make_node("MatMul", ["a", "w2"], ["o"]), helper.make_node("Add", ["o", "x"], ["y"])]
    g = helper.make_graph(nodes, "ffn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, tokens, d])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, tokens, d])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
                           numpy_helper.from_array(np.ones(d, np.float32), "g"),
                           numpy_helper.from_array(np.zeros(d, np.float32), "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    return m.SerializeToString()


def test_half_storage_on_gpu():
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    data = ffn()
    inputs = {"x": np.random.default_rng(10).standard_normal((1, 512, 768)).astype(np.float32)}
    outs = {}
    for disable in ((), ("half_storage",)):
        art = compile(data, target, CompileOptions(precision="fp16", disable=disable))
        stage = next(t for t in art.report["techniques"] if t["name"] == "half storage")
        ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
        outs[disable] = ex.run(inputs)["y"]
        us = timed_us(ex, inputs)
        print(f"ffn fp16 disable={disable}: values in half {stage['effect'].get('values', [])}, "
              f"{art.report['traffic']['dram_bytes']} DRAM bytes, {us:.1f} us measured, "
              f"{art.report['latency']['predicted_us']:.1f} us predicted")
    # the same rounded products summed in fp32 in another order (wgmma against mma.sync)
    a, b = outs[()], outs[("half_storage",)]
    assert np.max(np.abs(a - b)) <= 1e-4 * np.max(np.abs(b))
