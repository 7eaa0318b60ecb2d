"""On a GPU: weight-only quantized Linears (bench/weight_only.py's, predicted there). A 4096 x 4096
fp16 product over 1, 8 and 128 tokens with its weight in fp16, in int8 (DequantizeLinear) and in int4
(com.microsoft MatMulNBits, block 32): each compiled for the device, its result checked against
NumPy on the dequantized weight, and its time per inference printed beside its prediction. The
quantized ones load their weight by tc_gemm's generic_vec loader (eight values along the tile's
inner axis a thread, what they share computed once), and over one token by the reduce kind's
16-byte chunks (kinds/reduce.py chunk_candidates): whether that makes them faster than the fp16
weight, as predicted, is what only a GPU measures."""
from __future__ import annotations

import dataclasses

import numpy as np
from onnx import helper, numpy_helper

from tests.gpu import gpu_module, timed_us

cupy, pytestmark = gpu_module()
K = N = 4096



def test_weight_only_linears_on_gpu():
    from bench.weight_only import variants
    from compiler import compile
    from compiler.ir.graph import Node
    from compiler.ops.registry import lookup
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    import onnx
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    for m in (1, 8, 128):
        a = np.random.default_rng(m).standard_normal((m, K)).astype(np.float16)
        for name, data in variants(m, K, N, np.random.default_rng(0)).items():
            if name == "int4 b128 sym":
                continue
            art = compile(data, target, CompileOptions())
            ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
            got = ex.run({"a": a})["y"].astype(np.float32)
            # the reference: the model's own weight dequantized by the registry's NumPy meaning
            proto = onnx.load_from_string(data)
            inits = {i.name: numpy_helper.to_array(i) for i in proto.graph.initializer}
            w = _weight(proto, inits, lookup, Node)
            want = (a.astype(np.float64) @ w.astype(np.float64)).astype(np.float32)
            err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
            us = timed_us(ex, {"a": a})
            kinds = [(k["config"].get("schedule"), k["config"].get("load_b") or k["config"].get("tiles"))
                     for k in art.report["kernels"]]
            print(f"M={m} {name}: {kinds}, rel err {err:.2e}, {us:.1f} us measured, "
                  f"{art.report['latency']['predicted_us']:.1f} us predicted")
            assert err < 1e-2, name


def _weight(proto, inits, lookup, Node) -> np.ndarray:
    """The K x N weight the model multiplies by, in fp16 as the model rounds it."""
    node = proto.graph.node[0]
    if node.op_type == "MatMul":
        return inits["w"]
    if node.op_type == "DequantizeLinear":
        return (inits["wq"].astype(np.float32) * inits["s"].astype(np.float32)).astype(np.float16)
    eye = np.eye(K, dtype=np.float16)       # MatMulNBits' weight: its product with the identity
    attrs = tuple((a.name, helper.get_attribute_value(a)) for a in node.attribute)
    ir = Node("MatMulNBits", "n", tuple(node.input), ("y",), attrs, "com.microsoft")
    args = [eye] + [inits.get(n) for n in node.input[1:]]
    return lookup("MatMulNBits", "com.microsoft").reference(ir, args, 1)[0]
