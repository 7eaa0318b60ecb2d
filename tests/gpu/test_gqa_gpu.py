"""On a GPU: onnxruntime-genai's GroupQueryAttention (compiler/ops/contrib_gqa.py), whose causal
frontier and rotary positions come from each batch entry's cache fill at run time. A decoder laid
out as genai's builder writes one (tests/ops/test_contrib_gqa.py genai_decoder) runs a generation
loop on the device, its logits checked against onnxruntime at every step; then one attention step
at a 7B model's shapes (32 heads of 128, 8 key/value heads, 1023 cached positions, fp16) is timed
beside its prediction: the flash_decoding kernel with a mask of loaded values, and the present
copies. With --kv-cache in-place the loop keeps its cache on the device (each present the buffer
the next step takes as its past), and the 7B step is timed both ways with its inputs and outputs on
the device under a CUDA graph. gpt-oss's head sinks run in the same flash kernels."""
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


def test_a_generation_loop_in_place_on_gpu():
    """The loop with the step compiled --kv-cache in-place, run under a graph with its outputs on
    the device: the tokens and logits of onnxruntime, and from the second step each present is the
    buffer the step was given as its past."""
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from tests.ops.test_contrib_attention import ort_run
    from tests.ops.test_contrib_gqa import LAYERS, generation_loop, genai_decoder, loop_feeds
    data, target, M, steps = genai_decoder(), _target(), 32, 5
    prompt = np.random.default_rng(0).integers(0, 100, (1, 7)).astype(np.int64)
    first, step = loop_feeds(prompt, M)

    def executor(f, kv_cache):
        art = compile(data, target, CompileOptions(input_shapes=tuple((k, v.shape) for k, v in f.items()),
                                                   kv_cache=kv_cache))
        return art, Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch), graph=True)
    _, prompt_ex = executor(first, "copy")
    art, step_ex = executor(step, "in-place")
    same = []

    def run_step(f):
        out = step_ex.run(f, on_device=True)
        same.extend(isinstance(f[f"past.{i}.key"], cupy.ndarray) and
                    f[f"past.{i}.key"].data.ptr == out[f"present.{i}.key"].data.ptr for i in range(LAYERS))
        return {k: cupy.asnumpy(v) if k == "logits" else v for k, v in out.items()}
    theirs = generation_loop(lambda f: ort_run(data, f), lambda f: ort_run(data, f), prompt, M, steps)
    ours = generation_loop(prompt_ex.run, run_step, prompt, M, steps)
    err = float(np.abs(ours[1] - theirs[1]).max() / np.abs(theirs[1]).max())
    print(f"generation loop in place: {steps} steps, {step_ex.graph_status}, tokens "
          f"{'equal' if ours[0] == theirs[0] else 'differ'}, max relative error {err:.2e}, donated "
          f"{len(art.plan.donated)}, presents in the given buffer {sum(same)} of {len(same)}")
    assert ours[0] == theirs[0] and err < 1e-3
    assert same[:LAYERS] == [False] * LAYERS and all(same[LAYERS:])


def test_a_7b_attention_step_on_gpu():
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from tests.ops.test_contrib_attention import ort_run
    N, NK, H, P = 32, 8, 128, 1023
    data = _step_model(N, NK, H, P, P + 1)
    rng = np.random.default_rng(1)
    feeds = {"qkv": rng.standard_normal((1, 1, (N + 2 * NK) * H)).astype(np.float16),
             "past_key": rng.standard_normal((1, NK, P, H)).astype(np.float16),
             "past_value": rng.standard_normal((1, NK, P, H)).astype(np.float16),
             "seqlens_k": np.array([P], np.int32)}
    target = _target()
    art = compile(data, target, CompileOptions(precision="fp16"))
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
    got = ex.run(feeds)
    want = ort_run(data, feeds)
    err = max(float(np.abs(got[k].astype(np.float32) - want[k].astype(np.float32)).max()
                    / np.abs(want[k].astype(np.float32)).max()) for k in want)
    us = timed_us(ex, feeds)
    kinds = [(k["config"].get("schedule"), round(k["predicted_us"], 2)) for k in art.report["kernels"]]
    print(f"GQA step (32x128, 8 kv heads, {P} cached, fp16): {kinds}, rel err {err:.2e}, {us:.1f} us measured, "
          f"{art.report['latency']['predicted_us']:.1f} us predicted")
    assert err < 1e-2
    # the fixed-shape step (past as long as the present, the new row at P) both ways, device-resident
    fixed = _step_model(N, NK, H, P + 1, P + 1)
    feeds = {"qkv": feeds["qkv"], "past_key": rng.standard_normal((1, NK, P + 1, H)).astype(np.float16),
             "past_value": rng.standard_normal((1, NK, P + 1, H)).astype(np.float16), "seqlens_k": np.array([P], np.int32)}
    want = ort_run(fixed, feeds)
    for kv_cache in ("copy", "in-place"):
        art = compile(fixed, target, CompileOptions(precision="fp16", kv_cache=kv_cache))
        ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch), graph=True)
        on = {k: cupy.asarray(v) for k, v in feeds.items()}
        got = {k: cupy.asnumpy(v) for k, v in ex.run(dict(on), on_device=True).items()}
        err = float(np.abs(got["y"].astype(np.float32) - want["y"].astype(np.float32)).max()
                    / np.abs(want["y"].astype(np.float32)).max())
        us = _loop_step_us(ex, on)
        kinds = [(k["config"].get("schedule"), round(k["predicted_us"], 2)) for k in art.report["kernels"]]
        print(f"GQA fixed step ({P + 1} positions, --kv-cache {kv_cache}, device-resident, {ex.graph_status}): "
              f"{kinds}, rel err of y {err:.2e}, {us:.1f} us a step of the loop measured, "
              f"{art.report['latency']['predicted_us']:.1f} us predicted")
        assert err < 1e-2


def test_head_sinks_on_gpu():
    """gpt-oss's attention sinks in the flash kernels (tests/ops/test_contrib_gqa.py SINK_KINDS): a
    prompt of 128 on tensor cores and a step over 1024 cached positions split across blocks, each
    against onnxruntime."""
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from tests.ops.test_contrib_attention import ort_run
    from tests.ops.test_contrib_gqa import SINK_KINDS, gqa_case, half
    target = _target()
    for step, (kw, kind) in SINK_KINDS.items():
        data, feeds = half(*gqa_case(**kw))
        art = compile(data, target, CompileOptions())
        ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
        got = ex.run(feeds)["output"].astype(np.float32)
        want = ort_run(data, feeds)["output"].astype(np.float32)
        err = float(np.abs(got - want).max() / np.abs(want).max())
        kinds = [k["config"].get("schedule") for k in art.report["kernels"]]
        print(f"GQA with head sinks, {step}: {kinds}, rel err {err:.2e}, {timed_us(ex, feeds):.1f} us measured")
        assert kind in kinds and err < 1e-2


def _loop_step_us(ex, inputs: dict, reps: int = 20) -> float:
    """Microseconds a step of a device-resident loop takes: each step's presents are the next one's
    pasts (copied into the graph's buffers unless they are them already, as in place), its outputs
    kept on the device; one warm-up step, then the mean of `reps` between two CUDA events."""
    state = dict(inputs)

    def step():
        out = ex.run(state, on_device=True)
        state["past_key"], state["past_value"] = out["present_key"], out["present_value"]
    step()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    for _ in range(reps):
        step()
    end.record()
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end) * 1e3 / reps


def _step_model(N: int, NK: int, H: int, past: int, T: int) -> bytes:
    """One packed GroupQueryAttention step of one token (fp16, rotary) over a past of `past`
    positions, total_sequence_length T: the growing step (T = past + 1), or a loop's fixed-shape
    step (T = past, docs/llm.md)."""
    from onnx import TensorProto, helper, numpy_helper
    f16 = TensorProto.FLOAT16
    names = ["qkv", "", "", "past_key", "past_value", "seqlens_k", "total", "cos", "sin"]
    inputs = [helper.make_tensor_value_info("qkv", f16, (1, 1, (N + 2 * NK) * H)),
              helper.make_tensor_value_info("past_key", f16, (1, NK, past, H)),
              helper.make_tensor_value_info("past_value", f16, (1, NK, past, H)),
              helper.make_tensor_value_info("seqlens_k", TensorProto.INT32, (1,))]
    angles = np.arange(4096)[:, None] / (10000.0 ** (np.arange(H // 2)[None, :] / (H // 2)))
    init = [numpy_helper.from_array(np.array(T, np.int32), "total"),
            numpy_helper.from_array(np.cos(angles).astype(np.float16), "cos"),
            numpy_helper.from_array(np.sin(angles).astype(np.float16), "sin")]
    node = helper.make_node("GroupQueryAttention", names, ["y", "present_key", "present_value"],
                            domain="com.microsoft", num_heads=N, kv_num_heads=NK, do_rotary=1)
    outs = [helper.make_tensor_value_info("y", f16, (1, 1, N * H)),
            helper.make_tensor_value_info("present_key", f16, (1, NK, T, H)),
            helper.make_tensor_value_info("present_value", f16, (1, NK, T, H))]
    g = helper.make_graph([node], "gqa_step", inputs, outs, init)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    return m.SerializeToString()
