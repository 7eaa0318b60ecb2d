"""onnxruntime's com.microsoft operators (compiler/ops/contrib.py) against onnxruntime's own CPU
kernels and their NumPy references, on the host harness in both thread orders: the GELU forms,
BiasAdd, the skip layer norms with and without beta, bias and the sum output, in fp32 and fp16;
a transformer block as the optimizer writes it fuses like the plain one."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.errors import UnsupportedOp
from compiler.ir.graph import Node
from compiler.ops.registry import lookup
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(17)
MS = "com.microsoft"
SHAPE = [2, 8, 64]


def ms_model(nodes, inputs, outputs, inits=(), dtype=TensorProto.FLOAT, opset=18) -> bytes:
    g = helper.make_graph(nodes, "contrib", [helper.make_tensor_value_info(n, dtype, s) for n, s in inputs],
                          [helper.make_tensor_value_info(n, dtype, s) for n, s in outputs],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
    m.ir_version = 9
    return m.SerializeToString()


def check(data: bytes, feeds: dict, tol: float, want: dict | None = None):
    """The compiled plan against onnxruntime (basic optimizations; or `want`) in both thread
    orders; the artifact."""
    if want is None:
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        sess = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
        want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)
        for name, w in want.items():
            w = w.astype(np.float32)
            np.testing.assert_allclose(got[name].astype(np.float32), w, rtol=0, atol=tol * max(1.0, np.abs(w).max()),
                                       err_msg=f"{name} ({mode})")
    return art


def _f(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("op,extra", [("Gelu", 0), ("BiasGelu", 1), ("FastGelu", 0), ("FastGelu", 1),
                                      ("QuickGelu", 0), ("BiasAdd", 2)])
def test_gelu_forms_and_bias_add(op, extra):
    names = ["x", "bias", "skip"][:1 + extra]
    inits = [("bias", _f([SHAPE[-1]]))] if extra >= 1 else []
    inputs = [("x", SHAPE)] + ([("skip", SHAPE)] if extra == 2 else [])
    data = ms_model([helper.make_node(op, names, ["y"], domain=MS, **({"alpha": 1.5} if op == "QuickGelu" else {}))],
                    inputs, [("y", SHAPE)], inits)
    feeds = {n: _f(s) * 2 for n, s in inputs}
    want = None
    if op == "BiasAdd":     # onnxruntime implements it for CUDA only: its NumPy meaning
        want = {"y": feeds["x"] + inits[0][1] + feeds["skip"]}
    art = check(data, feeds, 1e-5, want)
    assert art.report["launches_per_inference"] == 1


@pytest.mark.parametrize("beta,bias,sum_out", [(True, True, True), (False, False, False), (True, False, True)])
def test_skip_layer_norm(beta, bias, sum_out):
    ins = ["x", "skip", "gamma", "beta" if beta else "", "bias" if bias else ""]
    while ins and not ins[-1]:
        ins.pop()
    outs = ["y", "", "", "sum"] if sum_out else ["y"]
    inits = [("gamma", _f([SHAPE[-1]]) + 1)] + ([("beta", _f([SHAPE[-1]]))] if beta else []) + \
        ([("bias", _f([SHAPE[-1]]))] if bias else [])
    data = ms_model([helper.make_node("SkipLayerNormalization", ins, outs, domain=MS, epsilon=1e-6)],
                    [("x", SHAPE), ("skip", SHAPE)], [("y", SHAPE)] + ([("sum", SHAPE)] if sum_out else []), inits)
    check(data, {"x": _f(SHAPE) * 3 + 1, "skip": _f(SHAPE)}, 1e-4)


def test_skip_simplified_norm_and_fp16():
    inits = [("gamma", (_f([SHAPE[-1]]) + 1).astype(np.float16)), ("bias", _f([SHAPE[-1]]).astype(np.float16))]
    data = ms_model([helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma", "bias"], ["y"],
                                      domain=MS, epsilon=1e-6)],
                    [("x", SHAPE), ("skip", SHAPE)], [("y", SHAPE)], inits, dtype=TensorProto.FLOAT16)
    check(data, {"x": _f(SHAPE, np.float16), "skip": _f(SHAPE, np.float16)}, 2e-3)


def test_the_references_match_onnxruntime():
    """Each registry reference (constant folding uses it) against onnxruntime on one case."""
    x, skip, gamma, beta = _f(SHAPE), _f(SHAPE), _f([SHAPE[-1]]) + 1, _f([SHAPE[-1]])
    data = ms_model([helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta"], ["y"], domain=MS)],
                    [("x", SHAPE), ("skip", SHAPE)], [("y", SHAPE)], [("gamma", gamma), ("beta", beta)])
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x, "skip": skip})[0]
    node = Node("SkipLayerNormalization", "n", ("x", "skip", "gamma", "beta"), ("y",), (), MS)   # epsilon's default
    got = lookup("SkipLayerNormalization", MS).reference(node, [x, skip, gamma, beta], 1)[0]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4)


def _embed_model(segments: bool, mask: bool, position_ids: str, outputs: tuple[str, ...], b=2, s=12, h=64,
                 vocab=50, positions=16) -> tuple[bytes, dict, list]:
    """EmbedLayerNormalization as onnxruntime's optimizer writes BERT's embeddings, its feeds, and
    the node's inputs' values in order (None where absent)."""
    vi, i32 = helper.make_tensor_value_info, TensorProto.INT32
    inits = {"word": _f([vocab, h]), "pos": _f([positions, h]), "seg": _f([2, h]), "gamma": _f([h]) + 1,
             "beta": _f([h])}
    if not segments:
        del inits["seg"]
    feeds = {"ids": RNG.integers(-vocab, vocab, (b, s)).astype(np.int32)}     # negative ids wrap, as Gather's
    if segments:
        feeds["segs"] = RNG.integers(0, 2, (b, s)).astype(np.int32)
    if mask:
        feeds["mask"] = (RNG.random((b, s)) > 0.3).astype(np.int32)
    if position_ids:
        rows = b if position_ids == "per_batch" else 1
        feeds["pids"] = RNG.integers(0, positions, (rows, s)).astype(np.int32)
    ins = ["ids", "segs" if segments else "", "word", "pos", "seg" if segments else "", "gamma", "beta",
           "mask" if mask else "", "pids" if position_ids else ""]
    while not ins[-1]:
        ins.pop()
    shapes = {"y": [b, s, h], "mask_index": [b], "sum": [b, s, h]}
    node = helper.make_node("EmbedLayerNormalization", ins, list(outputs), domain=MS, epsilon=1e-5)
    g = helper.make_graph([node], "embed", [vi(n, i32, list(a.shape)) for n, a in feeds.items()],
                          [vi(o, i32 if o == "mask_index" else TensorProto.FLOAT, shapes[o]) for o in outputs if o],
                          [numpy_helper.from_array(a, n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(MS, 1)])
    m.ir_version = 9
    return m.SerializeToString(), feeds, [feeds.get(n, inits.get(n)) if n else None for n in ins]


@pytest.mark.parametrize("segments,mask,position_ids,outputs", [
    (True, True, "", ("y", "mask_index")),
    (False, False, "", ("y", "mask_index", "sum")),
    (True, True, "shared", ("y", "", "sum")),
    (False, True, "per_batch", ("y", "mask_index")),
])
def test_embed_layer_norm(segments, mask, position_ids, outputs):
    """Word + position (+ segment) embeddings, LayerNorm'd; mask_index counts each mask row's ones
    (zeros without a mask); the sum on request: against onnxruntime's CPU kernel, one kernel for
    the embedding and its norm."""
    data, feeds, values = _embed_model(segments, mask, position_ids, outputs)
    # onnxruntime refuses a negative id: its answer for the id wrapped, as Gather wraps it
    ort_feeds = dict(feeds, ids=np.where(feeds["ids"] < 0, feeds["ids"] + 50, feeds["ids"]).astype(np.int32))
    got = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, ort_feeds)
    want = dict(zip([o for o in outputs if o], got))
    art = check(data, feeds, 1e-4, want)
    # the embedding sum and its norm are one kernel (two when the sum is an output too: fusion
    # keeps a value the graph returns in its own kernel); mask_index, independent of them, at most
    # one more launch
    assert art.report["launches_per_inference"] <= 1 + ("mask_index" in outputs) + ("sum" in outputs)
    # the registry's reference (constant folding uses it) gives the same
    node = Node("EmbedLayerNormalization", "n", tuple(f"in{k}" for k in range(len(values))), tuple(outputs),
                (("epsilon", 1e-5),), MS)
    ref = lookup("EmbedLayerNormalization", MS).reference(node, values, 1)
    for o, r in zip(outputs, ref):
        if o:
            np.testing.assert_allclose(r, want[o], rtol=0, atol=1e-4 * max(1.0, float(np.abs(want[o]).max())),
                                       err_msg=o)


def test_the_training_outputs_are_refused():
    data = ms_model([helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma"], ["y", "mean"], domain=MS)],
                    [("x", SHAPE), ("skip", SHAPE)], [("y", SHAPE), ("mean", SHAPE[:-1] + [1])],
                    [("gamma", _f([SHAPE[-1]]))])
    with pytest.raises(UnsupportedOp, match="training statistics"):
        compile(data, "h100", CompileOptions(build=False))


def test_an_optimized_block_fuses_like_the_plain_one():
    """MatMul + bias -> BiasGelu -> MatMul, then SkipLayerNormalization with the block's input, as
    onnxruntime's optimizer writes a BERT feed-forward: the same launches as the plain ops."""
    d, h = SHAPE[-1], 4 * SHAPE[-1]
    w1, b1, w2, b2, g, be = _f([d, h]) / 8, _f([h]), _f([h, d]) / 16, _f([d]), _f([d]) + 1, _f([d])
    inits = [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("g", g), ("be", be)]
    opt = ms_model([helper.make_node("MatMul", ["x", "w1"], ["h"]),
                    helper.make_node("BiasGelu", ["h", "b1"], ["a"], domain=MS),
                    helper.make_node("MatMul", ["a", "w2"], ["o"]),
                    helper.make_node("SkipLayerNormalization", ["o", "x", "g", "be", "b2"], ["y"], domain=MS,
                                     epsilon=1e-12)],
                   [("x", SHAPE)], [("y", SHAPE)], inits)
    plain = ms_model([helper.make_node("MatMul", ["x", "w1"], ["h0"]), helper.make_node("Add", ["h0", "b1"], ["h"]),
                      helper.make_node("Gelu", ["h"], ["a"]), helper.make_node("MatMul", ["a", "w2"], ["o0"]),
                      helper.make_node("Add", ["o0", "b2"], ["o"]), helper.make_node("Add", ["o", "x"], ["s"]),
                      helper.make_node("LayerNormalization", ["s", "g", "be"], ["y"], axis=-1, epsilon=1e-12)],
                     [("x", SHAPE)], [("y", SHAPE)], inits, opset=20)
    feeds = {"x": _f(SHAPE)}
    a, b = check(opt, feeds, 1e-4), check(plain, feeds, 1e-4)
    assert a.report["launches_per_inference"] == b.report["launches_per_inference"]
    assert a.report["traffic"]["dram_bytes"] == b.report["traffic"]["dram_bytes"]


def test_another_com_microsoft_op_is_refused_by_name():
    data = ms_model([helper.make_node("FusedGemm", ["x", "w"], ["y"], domain=MS)],
                    [("x", [1, 4, 8, 8])], [("y", [1, 4, 8, 8])], [("w", _f([4, 4, 3, 3]))])
    with pytest.raises(UnsupportedOp, match="com.microsoft::FusedGemm.*compiler/ops/contrib"):
        compile(data, "h100", CompileOptions(build=False))


@pytest.mark.parametrize("axis,dtype", [(-1, TensorProto.FLOAT), (1, TensorProto.FLOAT), (-1, TensorProto.FLOAT16)])
def test_simplified_layer_norm_in_the_onnx_domain(axis, dtype):
    """onnxruntime's SimplifiedLayerNormalization, which it defines in the ONNX domain (no ONNX
    schema: the frontend checks it as onnxruntime's): RMS normalisation over the axes from `axis`."""
    np_t = np.float16 if dtype == TensorProto.FLOAT16 else np.float32
    scale_shape = SHAPE[axis:] if axis != -1 else SHAPE[-1:]
    g = helper.make_graph([helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y"], axis=axis, epsilon=1e-6)],
                          "simplified", [helper.make_tensor_value_info("x", dtype, SHAPE)],
                          [helper.make_tensor_value_info("y", dtype, SHAPE)],
                          [numpy_helper.from_array((_f(scale_shape) + 1).astype(np_t), "g")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    art = check(m.SerializeToString(), {"x": _f(SHAPE, np_t) * 3}, 2e-3 if np_t is np.float16 else 1e-5)
    assert art.report["launches_per_inference"] == 1


def test_simplified_layer_norm_training_output_is_refused():
    g = helper.make_graph([helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y", "inv"])], "simplified",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE),
                           helper.make_tensor_value_info("inv", TensorProto.FLOAT, SHAPE[:-1] + [1])],
                          [numpy_helper.from_array(_f(SHAPE[-1:]), "g")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    with pytest.raises(UnsupportedOp, match="inv_std_var"):
        compile(m.SerializeToString(), "h100", CompileOptions(build=False))


def test_embed_layer_norm_with_a_position_table_shorter_than_the_sequence_is_refused():
    data, _, _ = _embed_model(False, False, "", ("y",), s=12, positions=8)
    with pytest.raises(UnsupportedOp, match="8 rows for a sequence of 12"):
        compile(data, "h100", CompileOptions(build=False))
