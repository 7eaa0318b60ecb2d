"""`--kv-cache in-place` (compiler/ops/cache_update.py, Plan.donated): GroupQueryAttention's present
K/V written into the past's buffer, only the new rows moved; and the runtime's device-resident
outputs, through which a generation loop passes each step's present back as the next past
without a copy. Checked against onnxruntime on the host harness in both thread orders."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from compiler import compile
from compiler.artifact import load_artifact
from compiler.errors import CompilerError, RuntimeFault
from compiler.ir.dataflow import reads
from compiler.ir.verify import VerifyError, verify_plan
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import DeviceArray, Executor, make_backend

from .test_contrib_attention import ort_run
from .test_contrib_gqa import H, LAYERS, SLIDING, generation_loop, genai_decoder, gqa_case, loop_feeds

RNG = np.random.default_rng(43)

# fixed-shape steps: the past is as long as the present (total_sequence_length <= its length)
CASES = {
    "decode_ragged_rotary": dict(B=3, S=1, P=12, total=12, seqlens=[10, 6, 0], rotary=(0, H)),
    "decode_packed_interleaved": dict(B=2, S=1, P=8, total=8, seqlens=[7, 3], packed=True, rotary=(1, H)),
    "decode_packed_plain": dict(B=2, S=1, P=8, total=8, seqlens=[7, 3], packed=True),
    "continued_prompt": dict(B=1, S=4, P=14, total=14, seqlens=[9], rotary=(0, H)),
    "qk_norm_packed": dict(B=2, S=1, P=9, total=9, seqlens=[8, 2], packed=True, rotary=(0, H), qk_norm=True,
                           qk_norm_epsilon=1e-3),
    "local_window_bias": dict(B=2, S=1, P=12, total=12, seqlens=[11, 9], local_window_size=4, bias=(2, 1, 1, 12)),
    "last_row": dict(B=2, S=1, P=6, total=6, seqlens=[5, 5], packed=True),
}


def zero_after_fill(case: dict, feeds: dict) -> dict:
    """The loop's contract (docs/llm.md): each entry's past rows after its tokens are zeros."""
    out = dict(feeds)
    for kv in ("past_key", "past_value"):
        p = feeds[kv].copy()
        for b, s in enumerate(case["seqlens"]):
            p[b, :, s + 1 - case["S"]:] = 0
        out[kv] = p
    return out


def _compile(data: bytes, kv_cache: str = "in-place", **kw):
    return compile(data, "h100", CompileOptions(build=False, kv_cache=kv_cache, **kw))


def _want(name: str, data: bytes, feeds: dict) -> dict:
    from .test_contrib_gqa import onnxruntime_want
    return onnxruntime_want(CASES[name], data, feeds)


@pytest.mark.parametrize("name", list(CASES))
def test_in_place_matches_onnxruntime(name):
    """On the loop's pasts (zeros after each entry's tokens) every output equals onnxruntime's,
    the present included, in both thread orders; the presents are the pasts' buffers."""
    case = CASES[name]
    data, feeds = gqa_case(**case)
    feeds = zero_after_fill(case, feeds)
    want = _want(name, data, feeds)
    art = _compile(data)
    assert dict(art.plan.donated) == {"present_key": "past_key", "present_value": "past_value"}
    assert art.report["kv_cache"] == {"mode": "in-place", "donated": {"present_key": "past_key",
                                                                      "present_value": "past_value"}}
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)
        for n, w in want.items():
            np.testing.assert_allclose(got[n], w, rtol=0, atol=2e-5 * max(1.0, np.abs(w).max()),
                                       err_msg=f"{n} ({mode})")


@pytest.mark.parametrize("name", ["decode_ragged_rotary", "continued_prompt"])
def test_rows_after_the_tokens_keep_the_past(name):
    """With any past the attention output is onnxruntime's and the present's rows up to each
    entry's new ones are too; the rows after them keep the past's values (onnxruntime-genai's
    shared buffer) where copying zeroes them (onnxruntime's meaning)."""
    case = CASES[name]
    data, feeds = gqa_case(**case)
    want = _want(name, data, feeds)
    got = Executor(_compile(data).plan, make_backend("host")).run(feeds)
    np.testing.assert_allclose(got["output"], want["output"], rtol=0, atol=2e-5 * np.abs(want["output"]).max())
    for kv in ("key", "value"):
        for b, s in enumerate(case["seqlens"]):
            end = s + 1
            np.testing.assert_allclose(got[f"present_{kv}"][b, :, :end], want[f"present_{kv}"][b, :, :end],
                                       rtol=0, atol=1e-5 * np.abs(want[f"present_{kv}"]).max())
            np.testing.assert_array_equal(got[f"present_{kv}"][b, :, end:], feeds[f"past_{kv}"][b, :, end:])
            assert not want[f"present_{kv}"][b, :, end:].any()


def test_the_plan_moves_only_the_new_rows():
    """No step reads the pasts; one kernel writes the new rows; the predicted DRAM traffic drops by
    the two cache copies, and at a long cache the predicted latency with it. (At a short one the
    copies cost less than the launch K's rotary embedding then needs of its own: in-place is for
    the runtime's zero-copy loop, test_a_generation_loop_keeps_its_cache_in_place.)"""
    head, length = 128, 4096
    case = dict(B=1, S=1, P=length, total=length, seqlens=[3000], packed=True, rotary=(0, head), H=head)
    data, _ = gqa_case(**case)
    copy, in_place = _compile(data, "copy"), _compile(data)
    assert copy.plan.donated == () and copy.report["kv_cache"] == {"mode": "copy", "donated": {}}
    assert not any({"past_key", "past_value"} & reads(s) for s in in_place.plan.steps_within())
    updates = [k for k in in_place.report["kernels"] if k["config"].get("schedule") == "cache_update"]
    row_bytes = 2 * head * 4                        # the new token's row of K or V: 2 kv heads, fp32
    assert len(updates) == 1 and updates[0]["dram_bytes"] == 2 * 2 * row_bytes + 4   # K and V read and written, seqlens
    cache_bytes = 1 * 2 * length * head * 4        # present K or V: (1, kv heads 2, length, head) fp32
    saved = copy.report["traffic"]["dram_bytes"] - in_place.report["traffic"]["dram_bytes"]
    assert saved >= 2 * cache_bytes * 0.9, saved   # each copy read the past and wrote the present
    assert in_place.report["latency"]["predicted_us"] < copy.report["latency"]["predicted_us"]
    tech = {t["name"]: t for t in in_place.report["techniques"]}["KV cache in place"]
    assert tech["enabled"] and tech["effect"] == {"donated_outputs": 2}


def _rename_past_reader(data: bytes) -> bytes:
    """The same node, and an Identity that also reads past_key into an extra output."""
    m = onnx.load_from_string(data)
    m.graph.node.append(onnx.helper.make_node("Identity", ["past_key"], ["past_key_copy"]))
    vi = next(v for v in m.graph.input if v.name == "past_key")
    m.graph.output.append(onnx.helper.make_tensor_value_info("past_key_copy", vi.type.tensor_type.elem_type,
                                                             [d.dim_value for d in vi.type.tensor_type.shape.dim]))
    return m.SerializeToString()


@pytest.mark.parametrize("why,case,change", [
    ("a window-sized cache shifts its rows", dict(B=2, S=1, P=8, total=12, seqlens=[11, 5], **SLIDING), None),
    ("the present is longer than the past", dict(B=2, S=1, P=7, total=8, seqlens=[7, 3]), None),
    ("the first prompt has no past rows to keep", dict(B=1, S=6, P=6, total=6, seqlens=[5]), None),
    ("another node reads the past", dict(B=2, S=1, P=8, total=8, seqlens=[7, 3]), _rename_past_reader),
])
def test_copies_where_in_place_does_not_apply(why, case, change):
    """Where writing into the past would change what it means (or another node reads it) the
    present is copied as without the option, and stays right."""
    data, feeds = gqa_case(**case)
    if change is not None:
        data = change(data)
    art = _compile(data)
    assert art.plan.donated == (), why
    assert art.report["kv_cache"]["donated"] == {}
    want = ort_run(data, feeds)
    got = Executor(art.plan, make_backend("host")).run(feeds)
    for n, w in want.items():
        if case.get("sliding_window_cache") and n.startswith("present"):
            continue        # rows past the resident ones are unspecified: test_contrib_gqa compares them
        np.testing.assert_allclose(got[n], w, rtol=0, atol=2e-5 * max(1.0, np.abs(w).max()), err_msg=n)


def test_kv_cache_option_is_checked():
    with pytest.raises(CompilerError, match="kv_cache must be copy or in-place"):
        CompileOptions(kv_cache="shared")


def test_verification_refuses_a_donation_it_cannot_keep():
    """A step that reads a donated input by name (its bytes change under it), and a donation
    between values of different types, each fail verify_plan."""
    import dataclasses
    from compiler.ir.graph import TensorType
    from compiler.ir.plan import AliasStep
    data, _ = gqa_case(**CASES["decode_packed_plain"])
    plan = _compile(data).plan
    verify_plan(plan)
    past_t = dict(plan.types)["past_key"]
    reader = dataclasses.replace(plan, steps=plan.steps + (AliasStep("past_key_view", "past_key"),),
                                 types=plan.types + (("past_key_view", TensorType(past_t.dtype, (past_t.size,))),))
    with pytest.raises(VerifyError, match="donated input past_key is given twice or read by a step"):
        verify_plan(reader)
    mistyped = dataclasses.replace(plan, donated=plan.donated + (("output", "seqlens_k"),))
    with pytest.raises(VerifyError, match="types .* differ"):
        verify_plan(mistyped)


def test_the_artifact_keeps_the_donations(tmp_path):
    data, feeds = gqa_case(**CASES["decode_packed_interleaved"])
    feeds = zero_after_fill(CASES["decode_packed_interleaved"], feeds)
    art = _compile(data)
    art.save(tmp_path / "m.tar")
    back = load_artifact(tmp_path / "m.tar")
    assert back.plan.donated == art.plan.donated
    want = ort_run(data, feeds)
    got = Executor(back.plan, make_backend("host")).run(feeds)
    for n, w in want.items():
        np.testing.assert_allclose(got[n], w, rtol=0, atol=2e-5 * max(1.0, np.abs(w).max()), err_msg=n)


# --- the generation loop, its cache kept on the device ---------------------------------------------

def _step_runner(data: bytes, feeds: dict, kv_cache: str, *, graph: bool = False, on_device: bool = False):
    shapes = tuple((k, v.shape) for k, v in feeds.items())
    art = compile(data, "h100", CompileOptions(build=False, input_shapes=shapes, kv_cache=kv_cache))
    ex = Executor(art.plan, make_backend("host"), graph=graph)
    return art, ex, (lambda f: ex.run(f, on_device=on_device))


@pytest.mark.parametrize("graph", [False, True])
def test_a_generation_loop_keeps_its_cache_in_place(graph):
    """The loop of test_contrib_gqa with the step compiled --kv-cache in-place and run with its
    outputs on the device: the same greedy tokens and logits as onnxruntime; from the second step
    on, each present is the buffer the previous step returned (no byte of the cache moved by the
    runtime), under a graph too."""
    data, M = genai_decoder(), 16
    prompt = RNG.integers(0, 100, (1, 5)).astype(np.int64)
    first, step = loop_feeds(prompt, M)
    _, _, run_prompt = _step_runner(data, first, "copy")
    art, ex, run_step = _step_runner(data, step, "in-place", graph=graph, on_device=True)
    assert len(art.plan.donated) == 2 * LAYERS
    seen = []

    def step_fn(f):
        out = run_step(f)
        for i in range(LAYERS):
            seen.append((f[f"past.{i}.key"], out[f"present.{i}.key"]))
        return {k: np.asarray(v) if k == "logits" else v for k, v in out.items()}
    theirs = generation_loop(lambda f: ort_run(data, f), lambda f: ort_run(data, f), prompt, M, 6)
    ours = generation_loop(run_prompt, step_fn, prompt, M, 6)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=0, atol=2e-5 * np.abs(theirs[1]).max())
    assert ex.graph_status == ("graph" if graph else "plain launches")
    # the first step's pasts are the caller's NumPy arrays (copied in); after it, each past given is
    # a device array the previous step returned, and the present returned is that same buffer
    later = seen[LAYERS:]
    assert later and all(isinstance(p, DeviceArray) and isinstance(q, DeviceArray) for p, q in later)
    assert all(np.shares_memory(p, q) for p, q in later)


def test_device_outputs_are_the_callers():
    """Outputs kept on the device are copies, except donated ones: a later run does not change
    them; a device input of the wrong type is refused, not converted."""
    data, feeds = gqa_case(**CASES["decode_packed_plain"])
    feeds = zero_after_fill(CASES["decode_packed_plain"], feeds)
    art = _compile(data)
    ex = Executor(art.plan, make_backend("host"), graph=True)
    first = ex.run(feeds, on_device=True)
    kept = np.array(first["output"])
    other = dict(feeds, query=feeds["query"] * 2)
    ex.run(other, on_device=True)
    np.testing.assert_array_equal(np.asarray(first["output"]), kept)
    wrong = first["present_key"].astype(np.float64).view(DeviceArray)
    with pytest.raises(RuntimeFault, match="on the device is float64"):
        ex.run(dict(feeds, past_key=wrong))


# --- ONNX TensorScatter ------------------------------------------------------------------------------

def _scatter_cases():
    from .test_losses_extra import CASES as EXTRA
    return [c for c in EXTRA if c.op == "TensorScatter"]


@pytest.mark.parametrize("case", _scatter_cases(), ids=repr)
def test_tensor_scatter_in_place(case):
    """TensorScatter's meaning is an in-place write, so in place it gives the reference's output
    exactly (linear and circular, with and without write indices, any axis and type): the past's
    buffer with only the update written, in both thread orders."""
    from .one_node import oracle
    model, node = case.model()
    model.graph.output[0].type.CopyFrom(model.graph.input[0].type)     # the present is the past's type
    art = compile(model.SerializeToString(), "h100", CompileOptions(build=False, kv_cache="in-place"))
    assert dict(art.plan.donated) == {"y0": "x0"}
    kernels = art.report["kernels"]
    assert [k["config"].get("schedule") for k in kernels] == ["cache_update"]
    assert kernels[0]["dram_bytes"] <= 2 * case.inputs[1].nbytes + case.inputs[0].shape[0] * 8   # update, indices
    feeds = {n: a for n, a in zip(node.input, case.inputs) if n}
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)["y0"]
        np.testing.assert_array_equal(got, oracle(case)[0], err_msg=mode)
