"""ScatterND whose indices cover a strided box of the data (torch's export of x[:, :, 1:, 1:] = y
and its kin) becomes brickyard's ScatterBox at import (compiler/frontend/canonicalize.py
`scatter_boxes`), one elementwise select instead of a copy and an ordered update kernel; any
other pattern keeps the update kernel. Each case is checked against onnxruntime on the host
harness."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.frontend.onnx_import import ImportLimits, import_model
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(53)


def _grid(*axes) -> np.ndarray:
    """Every combination of the given index lists, stacked on a last axis (torch's meshgrid of aranges)."""
    mesh = np.meshgrid(*[np.asarray(a, np.int64) for a in axes], indexing="ij")
    return np.stack(mesh, axis=-1)


def _model(data_shape, idx: np.ndarray, reduction: str | None = None) -> bytes:
    upd_shape = list(idx.shape[:-1]) + list(data_shape[idx.shape[-1]:])
    attrs = {"reduction": reduction} if reduction else {}
    nodes = [helper.make_node("ScatterND", ["x", "idx", "u"], ["y"], **attrs)]
    g = helper.make_graph(nodes, "scatter", [helper.make_tensor_value_info("x", TP.FLOAT, list(data_shape)),
                                              helper.make_tensor_value_info("u", TP.FLOAT, upd_shape)],
                          [helper.make_tensor_value_info("y", TP.FLOAT, list(data_shape))],
                          [numpy_helper.from_array(idx, "idx")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


def _check(data: bytes, data_shape, upd_shape) -> list[str]:
    feeds = {"x": RNG.standard_normal(data_shape).astype(np.float32),
             "u": RNG.standard_normal(upd_shape).astype(np.float32)}
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)["y"]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=mode)
    assert not np.allclose(want, feeds["x"])      # the case writes something
    return [k["name"] for k in art.report["kernels"]]


BOXES = {
    # attn[:, :, 1:, 1:] = rel: batch and head fixed... here every lead axis moves one component
    "slice_assign": ((2, 3, 5, 6), _grid(range(2), range(3), range(1, 5), range(1, 6)), None),
    # rows 0, 2, 4 written as negative indices, columns 5, 3, 1 (a negative step)
    "strided_negative": ((6, 7), _grid([-6, -4, -2], [5, 3, 1]), None),
    # two of three axes indexed: each update a slice of the last axis, accumulated
    "slices_add": ((4, 5, 3), _grid(range(1, 3), range(0, 2)), "add"),
    # a fixed first component (row 0) and a moving second: lead (3,)
    "fixed_row": ((2, 6), np.stack([np.zeros(3, np.int64), np.arange(2, 5)], axis=-1), "mul"),
}


@pytest.mark.parametrize("name", list(BOXES))
def test_a_box_of_indices_becomes_one_select(name):
    shape, idx, red = BOXES[name]
    names = _check(_model(shape, idx, red), shape, list(idx.shape[:-1]) + list(shape[idx.shape[-1]:]))
    assert not any(n.startswith("scatter_nd_update") for n in names), names


def test_other_index_patterns_keep_the_ordered_updates():
    """A repeated position (the later update wins in ONNX's order) and a diagonal (two components
    moved by one lead axis) are not boxes."""
    repeated = np.array([[1, 2], [3, 0], [1, 2]], np.int64)
    diagonal = np.stack([np.arange(4), np.arange(4)], axis=-1)
    for idx in (repeated, diagonal):
        names = _check(_model((5, 4), idx), (5, 4), [idx.shape[0]])
        assert any(n.startswith("scatter_nd_update") for n in names), names


def _torch_slice_assign_model() -> bytes:
    """attn[:, :, 1:, 1:] = rel as torch.onnx writes it: each index component an Expand of a small
    constant (batch 0, the heads, rows 1..6, columns 1..8) to the update's shape, unsqueezed and
    joined along a new last axis; the grid is computed at run time, not folded."""
    shape = np.array([1, 2, 6, 8], np.int64)
    parts = {"b": np.zeros((1, 1, 1, 1), np.int64), "h": np.arange(2, dtype=np.int64).reshape(2, 1, 1),
             "r": (np.arange(6, dtype=np.int64) + 1).reshape(6, 1), "c": np.arange(1, 9, dtype=np.int64)}
    nodes, inits = [], [numpy_helper.from_array(shape, "shape"), numpy_helper.from_array(np.array([-1], np.int64), "last")]
    for k, a in parts.items():
        inits.append(numpy_helper.from_array(a, f"{k}0"))
        nodes += [helper.make_node("Expand", [f"{k}0", "shape"], [f"{k}1"]),
                  helper.make_node("Unsqueeze", [f"{k}1", "last"], [f"{k}2"])]
    nodes += [helper.make_node("Concat", [f"{k}2" for k in parts], ["idx"], axis=-1),
              helper.make_node("ScatterND", ["attn", "idx", "rel"], ["y"])]
    g = helper.make_graph(nodes, "slice_assign", [helper.make_tensor_value_info("attn", TP.FLOAT, [1, 2, 7, 9]),
                                                   helper.make_tensor_value_info("rel", TP.FLOAT, [1, 2, 6, 8])],
                          [helper.make_tensor_value_info("y", TP.FLOAT, [1, 2, 7, 9])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@pytest.mark.parametrize("fold", ["folded", "too_large_to_fold"])
def test_indices_built_from_broadcasts_become_a_box(fold):
    """The frontend reads the grid through its Expands and Unsqueezes (frontend/canonicalize.py
    `scatter_boxes`): the ScatterND becomes a ScatterBox and nothing builds the grid any more,
    whether the import folded the grid into a constant or (a fold limit below its size, as
    MViT's grids of tens of millions of indices are) left it to be computed at run time."""
    data = _torch_slice_assign_model()
    limits = ImportLimits(max_fold_elements=16) if fold == "too_large_to_fold" else ImportLimits()
    assert {n.op for n in import_model(data, limits=limits).graph.nodes} == {"ScatterBox"}
    feeds = {"attn": RNG.standard_normal((1, 2, 7, 9)).astype(np.float32),
             "rel": RNG.standard_normal((1, 2, 6, 8)).astype(np.float32)}
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    art = compile(data, "h100", CompileOptions(build=False), limits=limits)
    got = Executor(art.plan, make_backend("host")).run(feeds)["y"]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert art.report["launches_per_inference"] == 1


def test_disable_scatter_box_keeps_the_scatter_and_the_grid():
    """--disable scatter_box: the ScatterND and the nodes that build its grid stay, the update
    kernel runs, the output is the same; the report's `box scatter` technique counts each side."""
    data = _torch_slice_assign_model()
    feeds = {"attn": RNG.standard_normal((1, 2, 7, 9)).astype(np.float32),
             "rel": RNG.standard_normal((1, 2, 6, 8)).astype(np.float32)}
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    limits = ImportLimits(max_fold_elements=16)
    reports = []
    for disable in ((), ("scatter_box",)):
        art = compile(data, "h100", CompileOptions(build=False, disable=disable), limits=limits)
        got = Executor(art.plan, make_backend("host")).run(feeds)["y"]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=str(disable))
        reports.append(art.report)
    on, off = ({t["name"]: t for t in r["techniques"]}["box scatter"] for r in reports)
    assert on["enabled"] and on["effect"] == {"scatter_boxes": 1, "scatter_nd_left": 0}
    assert not off["enabled"] and off["effect"] == {"scatter_boxes": 0, "scatter_nd_left": 1}
    assert reports[1]["launches_per_inference"] > reports[0]["launches_per_inference"] == 1
    assert any(k["name"].startswith("scatter_nd_update") for k in reports[1]["kernels"])
