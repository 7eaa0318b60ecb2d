"""LinearAttention (opset 27): our NumPy reference against ONNX's ReferenceEvaluator for every
update rule, GQA, per-head and per-key decay, both beta shapes, with and without past_state; the
compiled model (one device-loop kernel) on the host harness against the reference in both thread
orders; bad attributes refused with the reason."""
from __future__ import annotations

import numpy as np
import pytest

from compiler import compile
from compiler.errors import CompilerError
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend
from onnx import helper

from tests.ops.test_recurrent_attention import ours, reference_eval

OPSET = 27
RNG = np.random.default_rng(27)


def case(rule, *, b=2, t=5, hq=4, hkv=2, dk=8, dv=12, per_key=False, beta_one=False, past=True,
         dtype=np.float32, scale=None):
    """(model, feeds) of one LinearAttention node; keys L2-normalised as the delta rules expect."""
    f = lambda *s: RNG.standard_normal(s).astype(dtype)
    k = f(b, t, hkv, dk)
    k = (k / np.linalg.norm(k, axis=-1, keepdims=True)).reshape(b, t, hkv * dk).astype(dtype)
    feeds = {"q": f(b, t, hq * dk), "k": k, "v": f(b, t, hkv * dv),
             "past": f(b, hkv, dk, dv) if past else None,
             "decay": (-np.abs(f(b, t, hkv * dk if per_key else hkv)) * 0.3).astype(dtype)
             if rule in ("gated", "gated_delta") else None,
             "beta": (1 / (1 + np.exp(-f(b, t, 1 if beta_one else hkv)))).astype(dtype)
             if rule in ("delta", "gated_delta") else None}
    order = [n if feeds[n] is not None else "" for n in ("q", "k", "v", "past", "decay", "beta")]
    while order[-1] == "":
        order.pop()
    inputs = {n: a for n, a in feeds.items() if a is not None}
    attrs = dict(q_num_heads=hq, kv_num_heads=hkv, update_rule=rule)
    if scale is not None:
        attrs["scale"] = scale
    node = helper.make_node("LinearAttention", order, ["y", "state"], name="la", **attrs)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, elem, a.shape) for n, a in inputs.items()],
                          [helper.make_tensor_value_info(o, elem, shape) for o, shape in
                           zip(node.output, ((b, t, hq * dv), (b, hkv, dk, dv)))])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    return model, node, inputs


CASES = [dict(rule=r) for r in ("linear", "gated", "delta", "gated_delta")] + [
    dict(rule="gated", per_key=True), dict(rule="gated_delta", per_key=True, beta_one=True),
    dict(rule="delta", past=False, hq=2, hkv=2), dict(rule="linear", scale=0.25),
    dict(rule="gated_delta", hq=3, hkv=1, dk=16, dv=40, t=9), dict(rule="gated", dtype=np.float16)]


def _id(c):
    return "-".join(f"{k}={v.__name__ if isinstance(v, type) else v}" for k, v in c.items())


@pytest.mark.parametrize("spec", CASES, ids=_id)
def test_reference_matches_onnx(spec):
    model, node, feeds = case(**spec)
    want = reference_eval(model, {n: feeds.get(n) for n in node.input})
    got = ours("LinearAttention", node, {n: feeds.get(n) for n in node.input}, OPSET)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("spec", CASES, ids=_id)
def test_compiled_on_the_host_harness(spec):
    model, node, feeds = case(**spec)
    want = ours("LinearAttention", node, {n: feeds.get(n) for n in node.input}, OPSET)
    art = compile(model.SerializeToString(), "h100", CompileOptions(build=False))
    (k,) = art.report["kernels"]
    assert k["config"]["schedule"] == "device_loop_linear_attention"
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)
        for name, w in zip(art.plan.outputs, want):
            np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-4, err_msg=f"{name} ({mode})")


@pytest.mark.parametrize("attrs,words", [
    # (ONNX's own shape inference finds these first; the lowering says the same where it would not)
    (dict(update_rule="gated"), "requires decay"),           # 'delta' has beta and no decay
    (dict(update_rule="linear"), "forbids beta"),
    (dict(update_rule="sideways"), "update_rule must be one of"),
    (dict(q_num_heads=3), "multiple of kv_num_heads"),
])
def test_bad_attributes_are_refused(attrs, words):
    """A node the specification does not allow is refused with the reason, never compiled."""
    model, _, feeds = case("delta")
    for a in model.graph.node[0].attribute:
        if a.name in attrs:
            if a.name == "update_rule":
                a.s = attrs[a.name].encode()
            else:
                a.i = attrs[a.name]
    with pytest.raises(CompilerError, match=words):
        compile(model.SerializeToString(), "h100", CompileOptions(build=False))


def test_the_lowering_checks_what_the_specification_requires():
    """_config's own refusals (the lowering's word where shape inference lets a node through)."""
    from compiler.ops.linear_attention import _config
    from tests.ops.test_recurrent_attention import to_ir_node
    _, node, _ = case("gated")
    ir = to_ir_node(node)
    # 4 query heads over 2 key/value heads of d_k 4
    for shapes, words in [(((1, 2, 16), (1, 2, 8), (1, 2, 8), 3, None), "decay's last axis"),
                          (((1, 2, 16), (1, 2, 12), (1, 2, 8), 2, None), "key's head size"),
                          (((1, 2, 16), (1, 2, 8), (1, 2, 8), None, None), "needs decay"),
                          (((1, 2, 16), (1, 2, 8), (1, 2, 8), 2, 1), "takes no beta")]:
        with pytest.raises(ValueError, match=words):
            _config(ir, *shapes)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_the_kernel_builds_with_nvrtc_without_spills(dtype):
    """The state column in registers: NVRTC's sm_90 build of d_k = 64 (a common head size)."""
    model, _, _ = case("gated_delta", b=1, t=3, hq=2, hkv=1, dk=64, dv=64, per_key=True, dtype=dtype)
    art = compile(model.SerializeToString(), "h100", CompileOptions())
    (k,) = art.report["kernels"]
    assert k["registers"] > 0 and k["spills"] == 0, k
