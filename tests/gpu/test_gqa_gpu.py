"""On a GPU: onnxruntime-genai's GroupQueryAttention (compiler/ops/contrib_gqa.py), whose causal
frontier and rotary positions come from each batch entry's cache fill at run time. A decoder laid
out as genai's builder writes one (tests/ops/test_contrib_gqa.py genai_decoder) runs a generation
loop on the device, its logits checked against onnxruntime at every step; then one attention step
at a 7B model's shapes (32 heads of 128, 8 key/value heads, 1023 cached positions, fp16) is timed
beside its prediction: the flash_decoding kernel with a mask of loaded values, and the present
copies."""
from __future__ import annotations

import dataclasses

import numpy as np

from tests.gpu import gpu_module, timed_us

cupy, pytestmark = gpu_module()


def _target():
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    return dataclasses.replace(get_target("h100"), arch=device_arch())


def test_a_generation_loop_on_gpu():
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from tests.ops.test_contrib_attention import ort_run
    from tests.ops.test_contrib_gqa import generation_loop, genai_decoder, loop_feeds
    data, target, M, steps = genai_decoder(), _target(), 32, 5
    prompt = np.random.default_rng(0).integers(0, 100, (1, 7)).astype(np.int64)

    def device(f):
        art = compile(data, target, CompileOptions(input_shapes=tuple((k, v.shape) for k, v in f.items())))
        return Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch)).run
    theirs = generation_loop(lambda f: ort_run(data, f), lambda f: ort_run(data, f), prompt, M, steps)
    ours = generation_loop(*(device(f) for f in loop_feeds(prompt, M)), prompt, M, steps)
    err = float(np.abs(ours[1] - theirs[1]).max() / np.abs(theirs[1]).max())
    print(f"generation loop: {steps} steps, tokens {'equal' if ours[0] == theirs[0] else 'differ'}, "
          f"max relative error of the logits against onnxruntime {err:.2e}")
    assert ours[0] == theirs[0] and err < 1e-3


def test_a_7b_attention_step_on_gpu():
    from onnx import TensorProto, helper, numpy_helper
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    N, NK, H, P = 32, 8, 128, 1023
    f16 = TensorProto.FLOAT16
    names = ["qkv", "", "", "past_key", "past_value", "seqlens_k", "total", "cos", "sin"]
    inputs = [helper.make_tensor_value_info("qkv", f16, (1, 1, (N + 2 * NK) * H)),
              helper.make_tensor_value_info("past_key", f16, (1, NK, P, H)),
              helper.make_tensor_value_info("past_value", f16, (1, NK, P, H)),
              helper.make_tensor_value_info("seqlens_k", TensorProto.INT32, (1,))]
    angles = np.arange(4096)[:, None] / (10000.0 ** (np.arange(H // 2)[None, :] / (H // 2)))
    init = [numpy_helper.from_array(np.array(P + 1, np.int32), "total"),
            numpy_helper.from_array(np.cos(angles).astype(np.float16), "cos"),
            numpy_helper.from_array(np.sin(angles).astype(np.float16), "sin")]
    node = helper.make_node("GroupQueryAttention", names, ["y", "present_key", "present_value"],
                            domain="com.microsoft", num_heads=N, kv_num_heads=NK, do_rotary=1)
    outs = [helper.make_tensor_value_info("y", f16, (1, 1, N * H)),
            helper.make_tensor_value_info("present_key", f16, (1, NK, P + 1, H)),
            helper.make_tensor_value_info("present_value", f16, (1, NK, P + 1, H))]
    g = helper.make_graph([node], "gqa_step", inputs, outs, init)
    data = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    data = data.SerializeToString()
    rng = np.random.default_rng(1)
    feeds = {"qkv": rng.standard_normal((1, 1, (N + 2 * NK) * H)).astype(np.float16),
             "past_key": rng.standard_normal((1, NK, P, H)).astype(np.float16),
             "past_value": rng.standard_normal((1, NK, P, H)).astype(np.float16),
             "seqlens_k": np.array([P], np.int32)}
    target = _target()
    art = compile(data, target, CompileOptions(precision="fp16"))
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
    got = ex.run(feeds)
    from tests.ops.test_contrib_attention import ort_run
    want = ort_run(data, feeds)
    err = max(float(np.abs(got[k].astype(np.float32) - want[k].astype(np.float32)).max()
                    / np.abs(want[k].astype(np.float32)).max()) for k in want)
    us = timed_us(ex, feeds)
    kinds = [(k["config"].get("schedule"), round(k["predicted_us"], 2)) for k in art.report["kernels"]]
    print(f"GQA step (32x128, 8 kv heads, {P} cached, fp16): {kinds}, rel err {err:.2e}, {us:.1f} us measured, "
          f"{art.report['latency']['predicted_us']:.1f} us predicted")
    assert err < 1e-2
