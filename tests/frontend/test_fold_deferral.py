"""Deferred folds (frontend/fold.defers): a node on constants that broadcasts them into a value
much larger than what it is computed from stays a node; a later fold that reads it evaluates it
then, and what nothing folds runs with the model. Either way the output matches onnxruntime."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.frontend.onnx_import import ImportLimits, import_model
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

N = 48          # the grid is N*N = 2304 elements, past the limit these tests import with
LIMITS = ImportLimits(defer_fold_elements=1024)
RNG = np.random.default_rng(7)


def _model(nodes, inputs, outputs, inits=()) -> bytes:
    g = helper.make_graph(nodes, "defer", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _grid_nodes() -> list:
    """grid[i, j] = 3 * i - j, from two ranges of N (an outer difference: N*N from 2N)."""
    return [helper.make_node("Range", ["zero", "n", "one"], ["r"]),
            helper.make_node("Unsqueeze", ["r", "ax1"], ["col"]),
            helper.make_node("Unsqueeze", ["r", "ax0"], ["row"]),
            helper.make_node("Mul", ["col", "three"], ["col3"]),
            helper.make_node("Sub", ["col3", "row"], ["grid"])]


def _inits() -> list:
    return [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in
            (("zero", 0), ("n", N), ("one", 1), ("three", 3), ("ax0", [0]), ("ax1", [1]))]


def _check(data: bytes, feeds: dict, disable: tuple[str, ...] = ()) -> dict:
    """Compiled with LIMITS, the output matches onnxruntime in both thread orders; the report's
    `deferred folds` technique entry."""
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    art = compile(data, "h100", CompileOptions(build=False, disable=disable), limits=LIMITS)
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)
        for k, w in want.items():
            np.testing.assert_allclose(got[k], w, rtol=1e-5, atol=1e-5, err_msg=f"{k} {mode}")  # sums of N terms
    return {t["name"]: t for t in art.report["techniques"]}["deferred folds"]


def test_a_broadcast_read_at_run_time_is_computed_not_stored():
    data = _model(_grid_nodes() + [helper.make_node("Cast", ["grid"], ["gridf"], to=TP.FLOAT),
                                   helper.make_node("Add", ["x", "gridf"], ["y"])],
                  [helper.make_tensor_value_info("x", TP.FLOAT, [N, N])],
                  [helper.make_tensor_value_info("y", TP.FLOAT, [N, N])], _inits())
    deferred = import_model(data, limits=LIMITS).graph
    assert max(c.array().size for _, c in deferred.constants) <= N      # no N*N constant: the ranges' N
    assert any(n.op == "Sub" for n in deferred.nodes)
    for folded in (import_model(data).graph,       # the default limit is far above N*N: the grid folds
                   import_model(data, limits=LIMITS, defer_folds=False).graph):    # --disable defer_folds
        assert max(c.array().size for _, c in folded.constants) == N * N
        assert not any(n.op == "Sub" for n in folded.nodes)
    feeds = {"x": RNG.standard_normal((N, N)).astype(np.float32)}
    on, off = _check(data, feeds), _check(data, feeds, disable=("defer_folds",))
    assert on["enabled"] and on["effect"]["deferred"] >= on["effect"]["run_with_the_model"] >= 1
    assert not off["enabled"] and off["effect"] == {"deferred": 0, "run_with_the_model": 0}


def test_a_fold_that_reads_a_deferred_value_evaluates_it():
    """A reduction of the grid, and a Gather of a table by it, fold as they did: the nodes that
    built the grid are dropped, and the values are the grid's."""
    table = RNG.standard_normal((4 * N,)).astype(np.float32)
    nodes = _grid_nodes() + [
        helper.make_node("ReduceSum", ["grid", "ax1"], ["rowsum"], keepdims=0),
        helper.make_node("Cast", ["rowsum"], ["rowsumf"], to=TP.FLOAT),
        helper.make_node("Add", ["x", "rowsumf"], ["y"]),
        helper.make_node("Slice", ["grid", "s0", "s1", "ax0"], ["first"]),     # one row: small again
        helper.make_node("Add", ["first", "n"], ["first_pos"]),
        helper.make_node("Gather", ["table", "first_pos"], ["picked"], axis=0),
        helper.make_node("Mul", ["picked", "x"], ["z"])]
    inits = _inits() + [numpy_helper.from_array(table, "table"),
                        numpy_helper.from_array(np.array([2], np.int64), "s0"),
                        numpy_helper.from_array(np.array([3], np.int64), "s1")]
    data = _model(nodes, [helper.make_tensor_value_info("x", TP.FLOAT, [N])],
                  [helper.make_tensor_value_info("y", TP.FLOAT, [N]), helper.make_tensor_value_info("z", TP.FLOAT, [1, N])],
                  inits)
    im = import_model(data, limits=LIMITS)
    g = im.graph
    assert "grid" in im.deferred_folds and not im.deferred_run    # deferred, then read by the folds
    assert {n.op for n in g.nodes} == {"Add", "Mul"}          # the grid's nodes were folded away
    grid = 3 * np.arange(N)[:, None] - np.arange(N)[None, :]
    consts = {k: c.array() for k, c in g.constants}
    assert any(np.array_equal(a.reshape(-1), grid.sum(axis=1).astype(np.float32)) for a in consts.values())
    assert any(np.array_equal(a.reshape(-1), table[grid[2] + N]) for a in consts.values())
    effect = _check(data, {"x": RNG.standard_normal(N).astype(np.float32)})["effect"]
    assert effect["deferred"] >= 1 and effect["run_with_the_model"] == 0


def test_a_fold_from_large_constants_is_not_deferred():
    """A value as large as the constants it is computed from (a transposed weight) folds at any
    size: only broadcasts grow past what they read."""
    w = RNG.standard_normal((N, N)).astype(np.float32)
    data = _model([helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),
                   helper.make_node("MatMul", ["x", "wt"], ["y"])],
                  [helper.make_tensor_value_info("x", TP.FLOAT, [2, N])],
                  [helper.make_tensor_value_info("y", TP.FLOAT, [2, N])], [numpy_helper.from_array(w, "w")])
    im = import_model(data, limits=LIMITS)
    g = im.graph
    assert not im.deferred_folds and [n.op for n in g.nodes] == ["MatMul"]
    assert any(np.array_equal(c.array(), w.T) for _, c in g.constants)
    _check(data, {"x": RNG.standard_normal((2, N)).astype(np.float32)})
