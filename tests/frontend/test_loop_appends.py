"""A Loop whose body only appends to a carried value (`torch.cat` in a scripted loop) imports as a
Loop with a scan output (compiler/frontend/loop_appends.py): the same results as onnxruntime's,
for static and run-time iteration counts, along any axis, after a non-empty initial value."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.errors import ShapeError, UnsupportedOp
from compiler.frontend.onnx_import import import_model
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(7)


def _vi(name, shape, dtype=TP.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def _const(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def _model(nodes, inputs, outputs, inits=(), opset=17) -> bytes:
    g = helper.make_graph(nodes, "appends", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _body(nodes, carried, outputs, inits=()):
    """A Loop body: iteration number, condition, then the carried values (name, dtype, shape)."""
    return helper.make_graph(
        nodes, "body",
        [_vi("i", [], TP.INT64), _vi("cond_in", [], TP.BOOL)] + [_vi(n, s, d) for n, d, s in carried],
        [_vi(n, None, d) if s is None else _vi(n, s, d) for n, d, s in outputs], list(inits))


def _check(data: bytes, feeds: list[dict], **options) -> None:
    """The compiled plan's outputs equal onnxruntime's on every feed, in both thread orders."""
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    art = compile(data, "h100", CompileOptions(build=False, **options))
    for feed in feeds:
        want = dict(zip(names, sess.run(None, feed)))
        for mode in ("default", "shuffle"):
            got = Executor(art.plan, make_backend("host", mode=mode)).run(feed)
            for k, w in want.items():
                assert got[k].shape == w.shape, (k, mode, got[k].shape, w.shape)
                np.testing.assert_allclose(got[k], w, rtol=1e-6, atol=1e-6, err_msg=f"{k} {mode}")


def _scaled_rows(opset=17, cast=False) -> bytes:
    """out = [x * 0, x * 1, ..., x * 4] grown by Concat along axis 0 from an empty [0, 3, 4]
    (`cast`: the list passes a Cast to its own dtype first, as torch.jit's exports write it)."""
    unsq = (helper.make_node("Unsqueeze", ["xi", "zero"], ["row"]) if opset >= 13 else
            helper.make_node("Unsqueeze", ["xi"], ["row"], axes=[0]))
    grow = ([helper.make_node("Cast", ["acc"], ["acc_cast"], to=TP.FLOAT),
             helper.make_node("Concat", ["acc_cast", "row"], ["acc_out"], axis=0)] if cast else
            [helper.make_node("Concat", ["acc", "row"], ["acc_out"], axis=0)])
    body = _body([helper.make_node("Cast", ["i"], ["fi"], to=TP.FLOAT), helper.make_node("Mul", ["x", "fi"], ["xi"]),
                  unsq] + grow + [helper.make_node("Identity", ["cond_in"], ["cond_out"])],
                 [("acc", TP.FLOAT, ["n", 3, 4])], [("cond_out", TP.BOOL, []), ("acc_out", TP.FLOAT, ["m", 3, 4])],
                 [_const("zero", np.array([0], np.int64))])
    return _model([helper.make_node("Loop", ["trip", "", "empty"], ["acc_final"], body=body),
                   helper.make_node("Relu", ["acc_final"], ["y"])],
                  [_vi("x", [3, 4])], [_vi("y", [5, 3, 4])],
                  [_const("trip", np.array(5, np.int64)), _const("empty", np.zeros((0, 3, 4), np.float32))], opset)


@pytest.mark.parametrize("opset,cast", [(11, False), (17, False), (17, True)])
def test_rows_appended_along_axis_0_are_the_scan_output(opset, cast):
    data = _scaled_rows(opset, cast)
    model = import_model(data)
    loop = next(n for n in model.graph.nodes if n.op == "Loop")
    assert len(loop.inputs) == 2        # the list is no longer carried
    _check(data, [{"x": RNG.standard_normal((3, 4)).astype(np.float32)}])


def test_pieces_along_an_inner_axis_after_an_initial_value_with_other_carried_and_scan_outputs():
    """Two lists (one along axis 1 with pieces of 2, one along axis 2 with pieces of 1), a running
    sum carried as usual and a scan output of its own: the Loop's outputs keep their order."""
    body = _body([
        helper.make_node("Cast", ["i"], ["fi"], to=TP.FLOAT),
        helper.make_node("Mul", ["x", "fi"], ["xi"]),                    # [2, 2, 3]
        helper.make_node("Concat", ["wide", "xi"], ["wide_out"], axis=1),
        helper.make_node("ReduceSum", ["xi", "last"], ["col"], keepdims=1),   # [2, 2, 1]
        helper.make_node("Concat", ["cols", "col"], ["cols_out"], axis=-1),
        helper.make_node("Add", ["total", "xi"], ["total_out"]),
        helper.make_node("Neg", ["xi"], ["scanned"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        [("wide", TP.FLOAT, [2, "w", 3]), ("total", TP.FLOAT, [2, 2, 3]), ("cols", TP.FLOAT, [2, 2, "c"])],
        [("cond_out", TP.BOOL, []), ("wide_out", TP.FLOAT, [2, "w2", 3]), ("total_out", TP.FLOAT, [2, 2, 3]),
         ("cols_out", TP.FLOAT, [2, 2, "c2"]), ("scanned", TP.FLOAT, [2, 2, 3])],
        [_const("last", np.array([2], np.int64))])
    data = _model([helper.make_node("Loop", ["trip", "", "start", "zeros", "no_cols"],
                                    ["wide_final", "total_final", "cols_final", "scans"], body=body)],
                  [_vi("x", [2, 2, 3]), _vi("start", [2, 1, 3])],
                  [_vi("wide_final", [2, 9, 3]), _vi("total_final", [2, 2, 3]), _vi("cols_final", [2, 2, 4]),
                   _vi("scans", [4, 2, 2, 3])],
                  [_const("trip", np.array(4, np.int64)), _const("zeros", np.zeros((2, 2, 3), np.float32)),
                   _const("no_cols", np.zeros((2, 2, 0), np.float32))])
    _check(data, [{"x": RNG.standard_normal((2, 2, 3)).astype(np.float32),
                   "start": RNG.standard_normal((2, 1, 3)).astype(np.float32)}])


def _selected() -> list:
    """The rows of `boxes` [6, 4] whose first column passes 0.5 (`sel`, of NonZero's run-time count)
    and their number (`count`: its Shape's first element); constants in SELECTED_CONSTANTS."""
    return [helper.make_node("Gather", ["boxes", "first"], ["col0"], axis=1),
            helper.make_node("Greater", ["col0", "half"], ["keep"]),
            helper.make_node("NonZero", ["keep"], ["nz"]),
            helper.make_node("Squeeze", ["nz", "zero_axis"], ["idx"]),
            helper.make_node("Gather", ["boxes", "idx"], ["sel"], axis=0),
            helper.make_node("Shape", ["sel"], ["sel_shape"]),
            helper.make_node("Gather", ["sel_shape", "first"], ["count"], axis=0)]


SELECTED_CONSTANTS = [_const("first", np.array(0, np.int64)), _const("half", np.array(0.5, np.float32)),
                      _const("zero_axis", np.array([0], np.int64))]


def _selected_rows(condition: bool = False) -> bytes:
    """The rows of `boxes` whose first column passes 0.5 (NonZero: a run-time count), each scaled
    by its second column and appended to a list; with `condition`, the loop also stops at the
    first row whose third column is negative."""
    body_nodes = [
        helper.make_node("Gather", ["sel", "i"], ["box"], axis=0),
        helper.make_node("Gather", ["box", "one"], ["scale"], axis=0),
        helper.make_node("Mul", ["x", "scale"], ["xs"]),
        helper.make_node("Unsqueeze", ["xs", "zero"], ["row"]),
        helper.make_node("Concat", ["acc", "row"], ["acc_out"], axis=0)]
    if condition:
        body_nodes += [helper.make_node("Gather", ["box", "two"], ["third"], axis=0),
                       helper.make_node("Less", ["third", "fzero"], ["neg"]),
                       helper.make_node("Not", ["neg"], ["cond_out"])]
    else:
        body_nodes.append(helper.make_node("Identity", ["cond_in"], ["cond_out"]))
    body = _body(body_nodes, [("acc", TP.FLOAT, ["n", 5])],
                 [("cond_out", TP.BOOL, []), ("acc_out", TP.FLOAT, ["m", 5])],
                 [_const("zero", np.array([0], np.int64)), _const("one", np.array(1, np.int64)),
                  _const("two", np.array(2, np.int64)), _const("fzero", np.array(0, np.float32))])
    return _model(_selected() + [
        helper.make_node("Loop", ["count", "true", "empty"], ["acc_final"], body=body),
        helper.make_node("ReduceSum", ["acc_final", "zero_axis"], ["total"], keepdims=0)],
        [_vi("x", [5]), _vi("boxes", [6, 4])], [_vi("acc_final", ["k", 5]), _vi("total", [5])],
        SELECTED_CONSTANTS + [_const("true", np.array(True)), _const("empty", np.zeros((0, 5), np.float32))])


def _box_feeds(n: int) -> list[dict]:
    feeds = []
    for passing in (0, 1, 4, 6)[:n]:
        boxes = RNG.uniform(-1, 1, (6, 4)).astype(np.float32)
        boxes[:, 0] = np.where(np.arange(6) < passing, 0.9, 0.1)[RNG.permutation(6)]
        feeds.append({"x": RNG.standard_normal(5).astype(np.float32), "boxes": boxes})
    return feeds


def test_a_run_time_iteration_count_bounded_at_import_needs_no_max_trip_count():
    """The trip count is a list's length (the Shape of NonZero's rows, at most 6): the appended
    list has that many rows, also none, without --max-trip-count."""
    data = _selected_rows()
    loop = next(n for n in import_model(data).graph.nodes if n.op == "Loop")
    assert dict(loop.attrs)["max_trip_count"] == 6
    _check(data, _box_feeds(4))
    _check(data, _box_feeds(4), disable=frozenset({"grinder"}))


def test_a_loop_stopped_by_its_condition_appends_the_iterations_that_ran():
    _check(_selected_rows(condition=True), _box_feeds(4))


def test_a_body_that_reads_the_list_keeps_it_carried_and_is_refused():
    """Where the body reads the list (here its length), it is not a scan output: the importer's
    error about a carried value whose shape changes stands."""
    body = _body([helper.make_node("Shape", ["acc"], ["s"]),
                  helper.make_node("Cast", ["s"], ["fs"], to=TP.FLOAT),
                  helper.make_node("Unsqueeze", ["fs", "zero"], ["row"]),
                  helper.make_node("Concat", ["acc", "row"], ["acc_out"], axis=0),
                  helper.make_node("Identity", ["cond_in"], ["cond_out"])],
                 [("acc", TP.FLOAT, ["n", 2])], [("cond_out", TP.BOOL, []), ("acc_out", TP.FLOAT, ["m", 2])],
                 [_const("zero", np.array([0], np.int64))])
    data = _model([helper.make_node("Loop", ["trip", "", "empty"], ["y"], body=body)], [],
                  [_vi("y", [3, 2])], [_const("trip", np.array(3, np.int64)),
                                       _const("empty", np.zeros((0, 2), np.float32))])
    with pytest.raises(ShapeError, match="loop-carried value 0"):
        import_model(data)


def _appending_to_a_sequence(readers, outputs, condition_branch: bool = False) -> bytes:
    """A scripted `for i in range(len(sel)): out.append(x * sel[i, 1])`: a Loop of a run-time trip
    count (NonZero's rows) that SequenceInserts into a sequence that starts empty; `readers` read
    the list `seq` after the Loop."""
    body = _body([helper.make_node("Gather", ["sel", "i"], ["box"], axis=0),
                  helper.make_node("Gather", ["box", "one"], ["scale"], axis=0),
                  helper.make_node("Mul", ["x", "scale"], ["xs"]),
                  helper.make_node("SequenceInsert", ["list", "xs"], ["list_out"]),
                  helper.make_node("Identity", ["cond_in"], ["cond_out"])],
                 [], [("cond_out", TP.BOOL, [])], [_const("one", np.array(1, np.int64))])
    body.input.append(helper.make_tensor_sequence_value_info("list", TP.FLOAT, None))
    body.output.append(helper.make_tensor_sequence_value_info("list_out", TP.FLOAT, None))
    return _model(_selected() + [
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=TP.FLOAT),
        helper.make_node("Loop", ["count", "", "empty"], ["seq"], body=body)] + readers,
        [_vi("x", [2, 3]), _vi("boxes", [6, 4])], outputs,
        SELECTED_CONSTANTS)


def _list_feeds(n: int) -> list[dict]:
    return [dict(f, x=RNG.standard_normal((2, 3)).astype(np.float32)) for f in _box_feeds(n)]


def _with_constant(data: bytes, name: str, a: np.ndarray) -> bytes:
    m = onnx.load_from_string(data)
    m.graph.initializer.append(_const(name, a))
    return m.SerializeToString()


def test_a_list_appended_in_a_loop_of_run_time_length_is_read_joined_stacked_and_counted():
    data = _appending_to_a_sequence(
        [helper.make_node("ConcatFromSequence", ["seq"], ["joined"], axis=1),
         helper.make_node("ConcatFromSequence", ["seq"], ["stacked"], axis=1, new_axis=1),
         helper.make_node("SequenceLength", ["seq"], ["length"])],
        [_vi("joined", [2, None]), _vi("stacked", [2, None, 3]), _vi("length", [], TP.INT64)])
    # onnxruntime refuses to join an empty sequence (ours is empty there): feeds with a row selected
    _check(data, _list_feeds(4)[1:])


def test_a_list_read_in_a_branch_and_at_a_position_as_torchscript_exports_it():
    """torch.jit's `torch.cat(res, 0) if len(res) > 0 else empty`: an If of a run-time condition
    whose branch joins the list; and the list's first element where it has one."""
    then = helper.make_graph([helper.make_node("ConcatFromSequence", ["seq"], ["cat"], axis=0)], "then", [],
                             [_vi("cat", [None, 3])])
    other = helper.make_graph([helper.make_node("Identity", ["none"], ["nothing"])], "else", [],
                              [_vi("nothing", [0, 3])])
    data = _appending_to_a_sequence(
        [helper.make_node("SequenceLength", ["seq"], ["length"]),
         helper.make_node("Greater", ["length", "first"], ["some"]),
         helper.make_node("If", ["some"], ["joined"], then_branch=then, else_branch=other),
         helper.make_node("SequenceAt", ["seq", "first"], ["head"])],
        [_vi("joined", [None, 3]), _vi("head", [2, 3])])
    # SequenceAt needs an element: the feeds with at least one row selected
    _check(_with_constant(data, "none", np.zeros((0, 3), np.float32)), _list_feeds(4)[1:])


def test_a_list_of_run_time_length_read_any_other_way_is_refused():
    erase = [helper.make_node("SequenceErase", ["seq"], ["shorter"]),
             helper.make_node("ConcatFromSequence", ["shorter"], ["y"], axis=0)]
    from_the_end = [helper.make_node("SequenceAt", ["seq", "last"], ["y"])]
    for readers, why in ((erase, "only ConcatFromSequence"), (from_the_end, "counts from the end")):
        data = _appending_to_a_sequence(readers, [_vi("y", [None, 3])])
        with pytest.raises(UnsupportedOp, match=why):
            import_model(_with_constant(data, "last", np.array(-1, np.int64)))


@pytest.mark.parametrize("axis,keepdims", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_a_split_of_a_run_time_list_has_its_real_length(axis, keepdims):
    """SplitToSequence of the rows NonZero selects (`for b in boxes` unbound, along the rows or,
    transposed, along the columns): a stacked sequence whose length is the real one. Slices of the
    bound counted the padding as elements (SequenceLength gave the bound, whatever was selected)."""
    nodes = _selected()
    if axis == 1:
        nodes.append(helper.make_node("Transpose", ["sel"], ["rows"], perm=[1, 0]))
    nodes += [helper.make_node("SplitToSequence", ["rows" if axis == 1 else "sel"], ["seq"], axis=axis,
                               keepdims=keepdims),
              helper.make_node("SequenceLength", ["seq"], ["length"]),
              helper.make_node("ConcatFromSequence", ["seq"], ["stacked"], axis=0, new_axis=1),
              helper.make_node("SequenceAt", ["seq", "first"], ["head"])]
    element = [4]
    if keepdims:
        element = [1, 4] if axis == 0 else [4, 1]
    data = _model(nodes, [_vi("boxes", [6, 4])],
                  [_vi("length", [], TP.INT64), _vi("stacked", [None] + element), _vi("head", element)],
                  SELECTED_CONSTANTS)
    feeds = [{"boxes": f["boxes"]} for f in _box_feeds(4)[1:]]     # SequenceAt needs an element
    want = [ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(["length"], f)[0] for f in feeds]
    assert sorted(int(w) for w in want) == [1, 4, 6]
    _check(data, feeds)
