"""A node that repeats an earlier one (same op, inputs, attributes, outputs asked for) is merged
into it at import (compiler/frontend/canonicalize.py `merge_repeats`): torchvision's SSD
postprocess exports two NonZeros of one mask. A repeat of a map or of data movement stays (fusion
recomputes it in its readers) but still makes what reads it a repeat. Nodes that draw random
values, write a graph output or differ in an attribute stay apart. Each case runs on the host
harness against onnxruntime."""
from __future__ import annotations

import dataclasses

import numpy as np
import onnxruntime as ort
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.frontend.canonicalize import merge_repeats
from compiler.frontend.onnx_import import import_model
from compiler.ir.dtypes import DType
from compiler.ir.graph import Graph, Node, TensorType
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(29)


def _model(nodes, inputs, outputs, inits=None) -> bytes:
    g = helper.make_graph(nodes, "m", inputs, outputs,
                          [numpy_helper.from_array(a, n) for n, a in (inits or {}).items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _ops(model: bytes) -> list[str]:
    return [n.op for n in import_model(model).graph.nodes]


def _matches_onnxruntime(model: bytes, feeds: dict) -> None:
    art = compile(model, "h100", CompileOptions(build=False))
    got = Executor(art.plan, make_backend("host")).run(feeds)
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    for o, want in zip(sess.get_outputs(), sess.run(None, feeds)):
        np.testing.assert_allclose(got[o.name], want, rtol=1e-6, atol=1e-6, err_msg=o.name)


def _two_nonzeros() -> bytes:
    """scores > t written twice, the positions of each taken (once to gather the scores, once the
    boxes), as an exporter repeats a mask for each use."""
    x = helper.make_tensor_value_info("x", TP.FLOAT, [12])
    boxes = helper.make_tensor_value_info("b", TP.FLOAT, [12, 4])
    nodes = [helper.make_node("Greater", ["x", "t"], ["keep"]),
             helper.make_node("Greater", ["x", "t"], ["keep2"]),
             helper.make_node("NonZero", ["keep"], ["i1"]),
             helper.make_node("NonZero", ["keep2"], ["i2"]),
             helper.make_node("Squeeze", ["i1", "zero"], ["s1"]),
             helper.make_node("Squeeze", ["i2", "zero"], ["s2"]),
             helper.make_node("Gather", ["x", "s1"], ["y"]),
             helper.make_node("Gather", ["b", "s2"], ["z"], axis=0)]
    return _model(nodes, [x, boxes], [helper.make_tensor_value_info("y", TP.FLOAT, ["n"]),
                                      helper.make_tensor_value_info("z", TP.FLOAT, ["n", 4])],
                  {"t": np.float32(0.2).reshape(()), "zero": np.array([0], np.int64)})


def test_two_nonzeros_of_one_mask_are_one():
    """The two NonZeros are one, found a repeat through the second Greater, which is kept as a
    repeat of a map and then read by nothing; the Squeezes (maps of one value now) stay two."""
    assert _ops(_two_nonzeros()) == ["Greater", "NonZero", "Squeeze", "Squeeze", "Gather", "Gather"]
    x = RNG.standard_normal(12).astype(np.float32)
    assert 0 < (x > 0.2).sum() < 12
    _matches_onnxruntime(_two_nonzeros(), {"x": x, "b": RNG.standard_normal((12, 4)).astype(np.float32)})


def test_different_attributes_and_graph_outputs_stay_apart():
    """Softmax over two axes differs; two equal ReduceMaxes that are each a graph output stay two
    nodes (the output names are the model's)."""
    x = helper.make_tensor_value_info("x", TP.FLOAT, [3, 5])
    nodes = [helper.make_node("Softmax", ["x"], ["a"], axis=0),
             helper.make_node("Softmax", ["x"], ["b"], axis=1),
             helper.make_node("Add", ["a", "b"], ["y"]),
             helper.make_node("ReduceMax", ["x"], ["e1"], keepdims=1),
             helper.make_node("ReduceMax", ["x"], ["e2"], keepdims=1)]
    outs = [helper.make_tensor_value_info("y", TP.FLOAT, [3, 5])] + [
        helper.make_tensor_value_info(n, TP.FLOAT, [1, 1]) for n in ("e1", "e2")]
    model = _model(nodes, [x], outs)
    assert sorted(_ops(model)) == ["Add", "ReduceMax", "ReduceMax", "Softmax", "Softmax"]
    _matches_onnxruntime(model, {"x": RNG.standard_normal((3, 5)).astype(np.float32)})


def test_random_draws_stay_apart():
    """Two RandomUniformLike of one input are two draws (no random op lowers yet, so the pass is
    run on the IR itself): the Sub of them stays a difference of two values."""
    t = TensorType(DType.float32, (64,))
    nodes = (Node("RandomUniformLike", "r1", ("x",), ("u1",)), Node("RandomUniformLike", "r2", ("x",), ("u2",)),
             Node("Sub", "d", ("u1", "u2"), ("y",)))
    graph = Graph("m", ("x",), ("y",), nodes, tuple((v, t) for v in ("x", "u1", "u2", "y")))
    assert merge_repeats(graph) == graph
    twice_nonzero = graph.replace(nodes=tuple(dataclasses.replace(n, op="NonZero") if n.op != "Sub" else n
                                           for n in nodes))
    assert [n.inputs for n in merge_repeats(twice_nonzero).nodes] == [("x",), ("u1", "u1")]


def test_repeats_inside_a_branch_merge():
    """An If's branch computing Softmax(x) twice from the enclosing x computes it once."""
    x = helper.make_tensor_value_info("x", TP.FLOAT, [6])
    c = helper.make_tensor_value_info("c", TP.BOOL, [])
    out = helper.make_tensor_value_info("y", TP.FLOAT, [6])

    def branch(op: str):
        nodes = [helper.make_node(op, ["x"], ["r1"]), helper.make_node(op, ["x"], ["r2"]),
                 helper.make_node("Mul", ["r1", "r2"], ["o"])]
        return helper.make_graph(nodes, op, [], [helper.make_tensor_value_info("o", TP.FLOAT, [6])])

    model = _model([helper.make_node("If", ["c"], ["y"], then_branch=branch("Softmax"), else_branch=branch("Hardmax"))],
                   [c, x], [out])
    (node,) = import_model(model).graph.nodes
    for sg in node.subgraphs():
        assert len(sg.nodes) == 2, [n.op for n in sg.nodes]
    for cond in (True, False):
        _matches_onnxruntime(model, {"c": np.array(cond), "x": RNG.standard_normal(6).astype(np.float32)})


def test_disable_merge_repeats_keeps_them():
    """--disable merge_repeats: both NonZeros stay, the output is the same; the report's `merged
    repeats` technique counts the NonZero merged when on."""
    feeds = {"x": RNG.standard_normal(12).astype(np.float32), "b": RNG.standard_normal((12, 4)).astype(np.float32)}
    effects, outputs = {}, {}
    for disable in ((), ("merge_repeats",)):
        art = compile(_two_nonzeros(), "h100", CompileOptions(build=False, disable=disable))
        (t,) = [t for t in art.report["techniques"] if t["name"] == "merged repeats"]
        effects[disable] = (t["enabled"], t["effect"], art.report["ops"].get("NonZero"))
        outputs[disable] = Executor(art.plan, make_backend("host")).run(feeds)
    assert effects == {(): (True, {"merged": 1}, 1), ("merge_repeats",): (False, {"merged": 0}, 2)}
    for name in ("y", "z"):
        np.testing.assert_array_equal(outputs[()][name], outputs[("merge_repeats",)][name])
