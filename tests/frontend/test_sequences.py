"""Sequences resolved at import (compiler/frontend/sequences.py): models whose sequences have a
structure known at compile time compile to plain tensor ops and match onnxruntime on the host
harness in both thread orders; a sequence whose structure depends on the data is refused with an
error that says which and why."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP, helper

from compiler import compile
from compiler.errors import UnsupportedOp
from compiler.frontend.onnx_import import import_model
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(41)


def _vi(name, shape, dtype=TP.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def _seq_vi(name):
    return helper.make_tensor_sequence_value_info(name, TP.FLOAT, None)


def _i64(name, values):
    return helper.make_tensor(name, TP.INT64, [len(values)] if isinstance(values, list) else [], values
                              if isinstance(values, list) else [values])


def _model(nodes, inputs, outputs, inits=(), opset=17) -> bytes:
    g = helper.make_graph(nodes, "seq", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _check(data: bytes, feeds: dict) -> dict:
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)
        for k, w in want.items():
            assert got[k].shape == w.shape, (k, mode)
            np.testing.assert_allclose(got[k], w, rtol=1e-6, atol=1e-6, err_msg=f"{k} {mode}")
    return want


def _mvit_pool_model() -> bytes:
    """The pattern torch.onnx writes for a split with a list of sizes inside a scripted function
    (torchvision's MViT pooling): a Loop of one constant iteration SequenceInserts a slice into an
    empty sequence, one more slice is inserted after it, and SequenceAt reads both back."""
    body = helper.make_graph(
        [helper.make_node("Gather", ["starts", "i"], ["s0"], axis=0),
         helper.make_node("Add", ["i", "one"], ["i1"]),
         helper.make_node("Gather", ["starts", "i1"], ["s1"], axis=0),
         helper.make_node("Slice", ["x", "s0", "s1", "axis2"], ["piece"]),
         helper.make_node("SequenceInsert", ["seq_in", "piece"], ["seq_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body", [_vi("i", [1], TP.INT64), _vi("cond_in", [], TP.BOOL), _seq_vi("seq_in")],
        [_vi("cond_out", [], TP.BOOL), _seq_vi("seq_out")],
        [_i64("one", 1)])
    nodes = [helper.make_node("SequenceEmpty", [], ["empty"], dtype=TP.FLOAT),
             helper.make_node("Loop", ["trips", "true", "empty"], ["seq"], body=body),
             helper.make_node("Slice", ["x", "s2", "end", "axis2"], ["rest"]),
             helper.make_node("SequenceInsert", ["seq", "rest"], ["seq2"]),
             helper.make_node("SequenceAt", ["seq2", "zero"], ["cls"]),
             helper.make_node("SequenceAt", ["seq2", "minus_one"], ["tokens"]),
             helper.make_node("Relu", ["tokens"], ["pooled"]),
             helper.make_node("Concat", ["cls", "pooled"], ["y"], axis=2)]
    inits = [_i64("trips", 1), helper.make_tensor("true", TP.BOOL, [], [True]), _i64("starts", [0, 1]),
             _i64("axis2", [2]), _i64("s2", [1]), _i64("end", [9]), _i64("zero", 0), _i64("minus_one", -1)]
    return _model(nodes, [_vi("x", [2, 3, 9, 4])], [_vi("y", [2, 3, 9, 4])], inits)


def test_mvit_pooling_split_resolves_to_slices():
    """The sequence disappears at import: the IR holds no sequence op and no Loop."""
    data = _mvit_pool_model()
    graph = import_model(data).graph
    assert not {n.op for n in graph.nodes} & {"Loop", "SequenceInsert", "SequenceAt", "SequenceEmpty"}
    _check(data, {"x": RNG.standard_normal((2, 3, 9, 4)).astype(np.float32)})


def test_split_to_sequence_forms_and_concat_from_sequence():
    """SplitToSequence with no split (keepdims 0), a scalar split (a shorter last piece) and a list;
    ConcatFromSequence with and without a new axis; SequenceLength as a constant in arithmetic."""
    nodes = [helper.make_node("SplitToSequence", ["x"], ["rows"], axis=1, keepdims=0),
             helper.make_node("ConcatFromSequence", ["rows"], ["stacked"], axis=-1, new_axis=1),
             helper.make_node("SplitToSequence", ["x", "two"], ["pairs"], axis=1),
             helper.make_node("SequenceLength", ["pairs"], ["n_pairs"]),
             helper.make_node("Cast", ["n_pairs"], ["n_f"], to=TP.FLOAT),
             helper.make_node("SequenceAt", ["pairs", "minus_one"], ["last_pair"]),
             helper.make_node("Mul", ["last_pair", "n_f"], ["last_scaled"]),
             helper.make_node("SplitToSequence", ["x", "lengths"], ["parts"], axis=1),
             helper.make_node("SequenceErase", ["parts", "zero"], ["tail"]),
             helper.make_node("SequenceInsert", ["tail", "last_scaled", "zero"], ["front"]),
             helper.make_node("ConcatFromSequence", ["front"], ["joined"], axis=1)]
    inits = [_i64("two", 2), _i64("lengths", [1, 2, 2]), _i64("zero", 0), _i64("minus_one", -1)]
    data = _model(nodes, [_vi("x", [3, 5, 4])], [_vi("stacked", [3, 4, 5]), _vi("joined", [3, 5, 4])], inits)
    want = _check(data, {"x": RNG.standard_normal((3, 5, 4)).astype(np.float32)})
    assert want["joined"].shape == (3, 5, 4)


def test_sequence_construct_map_and_loop_with_scan_outputs():
    """SequenceConstruct of three tensors, a SequenceMap adding a tensor to each, and a Loop of three
    iterations carrying the sequence (SequenceAt by the iteration number) with a scan output."""
    map_body = helper.make_graph([helper.make_node("Add", ["e", "b"], ["o"])], "map",
                                 [_vi("e", [4]), _vi("b", [4])], [_vi("o", [4])])
    loop_body = helper.make_graph(
        [helper.make_node("SequenceAt", ["s_in", "i"], ["item"]),
         helper.make_node("Mul", ["item", "acc_in"], ["acc_out"]),
         helper.make_node("SequenceErase", ["s_in", "zero"], ["dropped"]),
         helper.make_node("SequenceInsert", ["dropped", "acc_out", "zero"], ["s_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Neg", ["item"], ["scan"])],
        "loop", [_vi("i", [], TP.INT64), _vi("cond_in", [], TP.BOOL), _seq_vi("s_in"), _vi("acc_in", [4])],
        [_vi("cond_out", [], TP.BOOL), _seq_vi("s_out"), _vi("acc_out", [4]), _vi("scan", [4])],
        [_i64("zero", 0)])
    nodes = [helper.make_node("SequenceConstruct", ["a", "b", "c"], ["abc"]),
             helper.make_node("SequenceMap", ["abc", "bias"], ["shifted"], body=map_body),
             helper.make_node("Loop", ["three", "", "shifted", "ones"], ["final", "acc", "scans"], body=loop_body),
             helper.make_node("ConcatFromSequence", ["final"], ["y"], axis=0, new_axis=1)]
    inits = [_i64("three", 3), helper.make_tensor("ones", TP.FLOAT, [4], [1.0] * 4)]
    data = _model(nodes, [_vi(k, [4]) for k in ("a", "b", "c", "bias")],
                  [_vi("y", [3, 4]), _vi("acc", [4]), _vi("scans", [3, 4])], inits)
    _check(data, {k: RNG.standard_normal(4).astype(np.float32) for k in ("a", "b", "c", "bias")})


def test_loop_carrying_a_sequence_stops_at_a_constant_false_condition():
    """The body's condition becomes a constant False after the second iteration: the third never runs."""
    body = helper.make_graph(
        [helper.make_node("Less", ["i", "one"], ["cond_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=TP.FLOAT),
         helper.make_node("Add", ["x", "fi"], ["v"]),
         helper.make_node("SequenceInsert", ["s_in", "v"], ["s_out"])],
        "body", [_vi("i", [], TP.INT64), _vi("cond_in", [], TP.BOOL), _seq_vi("s_in")],
        [_vi("cond_out", [], TP.BOOL), _seq_vi("s_out")], [_i64("one", 1)])
    nodes = [helper.make_node("SequenceEmpty", [], ["e"]),
             helper.make_node("Loop", ["five", "true", "e"], ["s"], body=body),
             helper.make_node("SequenceLength", ["s"], ["n"]),
             helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)]
    inits = [_i64("five", 5), helper.make_tensor("true", TP.BOOL, [], [True])]
    data = _model(nodes, [_vi("x", [2])], [_vi("y", [4]), _vi("n", [], TP.INT64)], inits)
    want = _check(data, {"x": RNG.standard_normal(2).astype(np.float32)})
    assert int(want["n"]) == 2


def test_optionals_resolve_to_their_element_or_a_constant_false():
    """Optional of a tensor and an empty Optional: whether each holds an element is a constant
    (used in arithmetic), and OptionalGetElement reads the tensor back."""
    empty_type = helper.make_optional_type_proto(helper.make_tensor_type_proto(TP.FLOAT, [3]))
    nodes = [helper.make_node("Optional", ["x"], ["some"]),
             helper.make_node("Optional", [], ["none"], type=empty_type.optional_type.elem_type),
             helper.make_node("OptionalHasElement", ["some"], ["has_some"]),
             helper.make_node("OptionalHasElement", ["none"], ["has_none"]),
             helper.make_node("Cast", ["has_some"], ["a"], to=TP.FLOAT),
             helper.make_node("Cast", ["has_none"], ["b"], to=TP.FLOAT),
             helper.make_node("OptionalGetElement", ["some"], ["got"]),
             helper.make_node("Mul", ["got", "a"], ["ga"]),
             helper.make_node("Add", ["ga", "b"], ["y"])]
    data = _model(nodes, [_vi("x", [3])], [_vi("y", [3])], opset=18)
    x = RNG.standard_normal(3).astype(np.float32)
    want = _check(data, {"x": x})
    np.testing.assert_allclose(want["y"], x)      # has_some 1, has_none 0
    assert not {n.op for n in import_model(data).graph.nodes} & {"Optional", "OptionalHasElement", "OptionalGetElement"}


def _if_of_sequences(cond: str) -> tuple[list, list]:
    then_g = helper.make_graph([helper.make_node("SplitToSequence", ["x"], ["parts"], axis=1, keepdims=1)], "then",
                               [], [_seq_vi("parts")])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["nx"]),
                                helper.make_node("SplitToSequence", ["nx"], ["nparts"], axis=1, keepdims=1)], "else",
                               [], [_seq_vi("nparts")])
    return ([helper.make_node("If", [cond], ["s"], then_branch=then_g, else_branch=else_g),
             helper.make_node("SequenceAt", ["s", "one"], ["y"])], [_i64("one", 1)])


def test_if_of_a_constant_condition_returns_a_sequence():
    nodes, inits = _if_of_sequences("c")
    data = _model(nodes, [_vi("x", [2, 3])], [_vi("y", [2, 1])], inits + [helper.make_tensor("c", TP.BOOL, [], [False])])
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(_check(data, {"x": x})["y"], -x[:, 1:2])


def _refused(data: bytes) -> str:
    with pytest.raises(UnsupportedOp) as e:
        import_model(data)
    return str(e.value)


def test_sequences_whose_structure_depends_on_the_data_are_refused():
    split = helper.make_node("SplitToSequence", ["x"], ["s"], axis=0)
    # a sequence as the model's output
    msg = _refused(_model([split], [_vi("x", [3, 2])], [_seq_vi("s")]))
    assert "output 's' is a sequence" in msg
    # a position known only at run time
    msg = _refused(_model([split, helper.make_node("SequenceAt", ["s", "k"], ["y"])],
                          [_vi("x", [3, 2]), _vi("k", [], TP.INT64)], [_vi("y", [2])]))
    assert "position 'k' is only known at run time" in msg
    # a Loop carrying a sequence through a run-time number of iterations
    body = helper.make_graph([helper.make_node("Identity", ["c"], ["c2"]), helper.make_node("Identity", ["s_in"], ["s_out"])],
                             "b", [_vi("i", [], TP.INT64), _vi("c", [], TP.BOOL), _seq_vi("s_in")],
                             [_vi("c2", [], TP.BOOL), _seq_vi("s_out")])
    msg = _refused(_model([split, helper.make_node("Loop", ["m", "", "s"], ["t"], body=body),
                           helper.make_node("ConcatFromSequence", ["t"], ["y"], axis=0)],
                          [_vi("x", [3, 2]), _vi("m", [], TP.INT64)], [_vi("y", [3])]))
    assert "constant trip count" in msg
    # an If whose condition is only known at run time, returning sequences
    nodes, inits = _if_of_sequences("c")
    msg = _refused(_model(nodes, [_vi("x", [2, 3]), _vi("c", [], TP.BOOL)], [_vi("y", [2, 1])], inits))
    assert "returns the sequence" in msg and "runs on the device" in msg
