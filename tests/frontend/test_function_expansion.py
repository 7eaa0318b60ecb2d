"""Ops ONNX defines by a function body and the registry does not lower (compiler/frontend/expand.py):
ai.onnx.preview's FlexAttention with its score_mod and prob_mod subgraphs and grouped K/V heads,
expanded into its body, fused back into one attention kernel, and right against ONNX's reference
evaluator on the host harness in both thread orders. An op the registry lowers is not expanded."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto as TP, helper
from onnx.reference import ReferenceEvaluator

from compiler import compile
from compiler.frontend.onnx_import import import_model
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(29)


def _vi(name, shape, dtype=TP.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def flex_model(hq: int, hkv: int, *, score_mod=None, prob_mod=None, scale=None, dtype=TP.FLOAT) -> bytes:
    attrs = {k: v for k, v in (("score_mod", score_mod), ("prob_mod", prob_mod), ("scale", scale)) if v is not None}
    node = helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain="ai.onnx.preview", **attrs)
    g = helper.make_graph([node], "flex", [_vi("Q", [2, hq, 12, 16], dtype), _vi("K", [2, hkv, 20, 16], dtype),
                                           _vi("V", [2, hkv, 20, 8], dtype)], [_vi("Y", [2, hq, 12, 8], dtype)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 26), helper.make_opsetid("ai.onnx.preview", 1)])
    m.ir_version = 11
    return m.SerializeToString()


def _modifier(name: str, nodes, consts=()):
    return helper.make_graph(nodes, name, [_vi("x", None)], [_vi("y", None)], list(consts))


def check(data: bytes, feeds: dict, tol: float):
    want = ReferenceEvaluator(data).run(None, feeds)[0]
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)["Y"]
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=0, atol=tol, err_msg=mode)
    return art


@pytest.mark.parametrize("modifiers", ["none", "score_mod", "prob_mod", "both"])
def test_flex_attention_expanded_fuses_and_matches_onnx(modifiers):
    """GQA (4 query heads on 2 K/V heads), a relative-position bias and a soft cap as score_mod,
    a rescaling as prob_mod; one kernel per inference: the attention chain fused back."""
    bias = helper.make_tensor("bias", TP.FLOAT, [12, 20], (RNG.standard_normal(240) * 0.5).tolist())
    score_mod = _modifier("score_mod", [helper.make_node("Add", ["x", "bias"], ["b"]),
                                        helper.make_node("Div", ["b", "cap"], ["c"]),
                                        helper.make_node("Tanh", ["c"], ["t"]),
                                        helper.make_node("Mul", ["t", "cap"], ["y"])],
                          [bias, helper.make_tensor("cap", TP.FLOAT, [], [5.0])])
    prob_mod = _modifier("prob_mod", [helper.make_node("Mul", ["x", "k"], ["y"])], [helper.make_tensor("k", TP.FLOAT, [], [0.9])])
    data = flex_model(4, 2, score_mod=score_mod if modifiers in ("score_mod", "both") else None,
                      prob_mod=prob_mod if modifiers in ("prob_mod", "both") else None, scale=0.3)
    feeds = {"Q": RNG.standard_normal((2, 4, 12, 16)).astype(np.float32),
             "K": RNG.standard_normal((2, 2, 20, 16)).astype(np.float32),
             "V": RNG.standard_normal((2, 2, 20, 8)).astype(np.float32)}
    art = check(data, feeds, 1e-5)
    assert art.report["launches_per_inference"] == 1, [k["name"] for k in art.report["kernels"]]


def test_flex_attention_fp16():
    data = flex_model(2, 2, dtype=TP.FLOAT16)
    feeds = {k: RNG.standard_normal(s).astype(np.float16) for k, s in
             (("Q", (2, 2, 12, 16)), ("K", (2, 2, 20, 16)), ("V", (2, 2, 20, 8)))}
    check(data, feeds, 2e-3)


def test_an_op_the_registry_lowers_is_not_expanded():
    """LayerNormalization has an ONNX function body too; its own lowering (a row kernel) stays."""
    node = helper.make_node("LayerNormalization", ["x", "g"], ["y"], axis=-1)
    g = helper.make_graph([node], "ln", [_vi("x", [4, 32])], [_vi("y", [4, 32])],
                          [helper.make_tensor("g", TP.FLOAT, [32], np.ones(32).tolist())])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    graph = import_model(m).graph
    assert [n.op for n in graph.nodes] == ["LayerNormalization"]


@pytest.mark.parametrize("opset", [13, 18])
def test_an_op_without_a_lowering_runs_as_its_function_body(monkeypatch, opset):
    """With Celu's lowering taken out of the registry, its ONNX body (the context-dependent one ONNX
    defines from opset 12) runs in its place, right against the reference evaluator."""
    from compiler.ops import registry
    registry._load_families()
    for dom in ("", "ai.onnx"):
        monkeypatch.delitem(registry.REGISTRY, (dom, "Celu"), raising=False)
    g = helper.make_graph([helper.make_node("Celu", ["x"], ["y"], alpha=0.7)], "celu", [_vi("x", [3, 5])], [_vi("y", [3, 5])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 9
    assert "Celu" not in [n.op for n in import_model(m).graph.nodes]
    data = m.SerializeToString()
    x = RNG.standard_normal((3, 5)).astype(np.float32) * 3
    want = ReferenceEvaluator(data).run(None, {"x": x})[0]
    art = compile(data, "h100", CompileOptions(build=False))
    got = Executor(art.plan, make_backend("host")).run({"x": x})["y"]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_flex_attention_fp16_with_a_causal_mask_on_tensor_cores():
    """fp16 Q, K, V with a causal score_mod (an fp32 mask of -inf above the diagonal, added to
    the scores widened to float as the body writes it): the flash kernel on mma.sync, the mask
    an epilogue read beside the half product."""
    s = 256     # long enough for the flash kernel to be predicted fastest
    mask = np.triu(np.full((s, s), -np.inf, np.float32), 1)
    causal = _modifier("causal", [helper.make_node("Add", ["x", "mask"], ["y"])],
                       [helper.make_tensor("mask", TP.FLOAT, [s, s], mask.reshape(-1).tolist())])
    node = helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain="ai.onnx.preview", score_mod=causal)
    g = helper.make_graph([node], "flex", [_vi(n, [1, 2, s, 32], TP.FLOAT16) for n in "QKV"], [_vi("Y", [1, 2, s, 32], TP.FLOAT16)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 26), helper.make_opsetid("ai.onnx.preview", 1)])
    m.ir_version = 11
    feeds = {n: RNG.standard_normal((1, 2, s, 32)).astype(np.float16) for n in "QKV"}
    art = check(m.SerializeToString(), feeds, 2e-3)
    assert [k["name"].rsplit("_", 1)[0] for k in art.report["kernels"]] == ["matmul_flash"]
