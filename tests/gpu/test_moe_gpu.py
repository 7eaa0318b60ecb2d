"""On a GPU: one MoE layer (gpt-oss's SwiGLU, 32 experts of 1024 x 1024, top 4, fp16): at 16 tokens
as compiled (the pair layout), at 512 as compiled (the pairs grouped by expert,
compiler/ops/moe_groups.py: each FC a tc_gemm whose rows are the tokens at their slots and whose
weights are the group's expert's, both by cp.async) and with `--disable grouped_experts`. Each is
checked against the registry's NumPy meaning, its time per inference printed beside its prediction
(bench/moe_grouping.py predicts them on the CPU). Whether grouping is faster where predicted is what
only a GPU measures."""
from __future__ import annotations

import dataclasses

import numpy as np

from tests.gpu import gpu_module, timed_us

cupy, pytestmark = gpu_module()
H = I = 1024
E, K = 32, 4


def test_grouped_experts_on_gpu():
    import onnx
    from onnx import helper
    from bench.moe_grouping import moe_layer
    from compiler import compile
    from compiler.ir.graph import Node
    from compiler.ops.registry import lookup
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    rng = np.random.default_rng(0)

    def w(*shape):
        return (rng.standard_normal(shape) * 0.03).astype(np.float16)
    weights = {"w1": w(E, 2 * I, H), "b1": w(E, 2 * I), "w2": w(E, H, I), "b2": w(E, H)}
    for t in (16, 512):
        data = moe_layer(t, H, I, E, K, weights)
        feeds = {"x": rng.standard_normal((t, H)).astype(np.float16),
                 "r": rng.standard_normal((t, E)).astype(np.float16)}
        pn = onnx.load_from_string(data).graph.node[0]
        node = Node("MoE", pn.name, tuple(pn.input), tuple(pn.output),
                    tuple((a.name, helper.get_attribute_value(a)) for a in pn.attribute), domain="com.microsoft")
        want = lookup("MoE", "com.microsoft").reference(node, [feeds["x"], feeds["r"], *weights.values()], 21)[0]
        want = want.astype(np.float32)
        for layout, disable in (("chosen", ()), ("pairs", ("grouped_experts",)))[:1 if t == 16 else 2]:
            art = compile(data, target, CompileOptions(precision="fp16", disable=disable))
            ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
            got = ex.run(feeds)["y"].astype(np.float32)
            err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
            grouped = any("expert_slot_token" in k["name"] for k in art.report["kernels"])
            us = timed_us(ex, feeds)
            print(f"tokens={t} {layout} (grouped={grouped}): rel err {err:.2e}, {us:.1f} us measured, "
                  f"{art.report['latency']['predicted_us']:.1f} us predicted")
            assert err < 2e-2, (t, layout, err)
            assert grouped == (layout == "chosen" and t == 512), (t, layout)
