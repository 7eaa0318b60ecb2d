"""NonMaxSuppression capped at the rows its readers take.

ONNX's NonMaxSuppression selects at most `max_output_boxes_per_class` boxes per batch and class.
Exporters ask for every box (torchvision's `batched_nms` writes INT64_MAX) and keep the first K
selections afterwards (`keep[:detections_per_img]`: a Slice of axis 0 from 0 to K). The selection
lists each (batch, class)'s boxes in the order they were taken, one (batch, class) after another,
so capping every (batch, class) at K leaves the first K rows, and the number of them, as they were:
a class that took fewer than K boxes takes the same ones, and once one class reaches K the rows
after it are past the K read. With the cap, the selection's static bound (batches x classes x
min(boxes, K) rows), every value computed from it, and the greedy decisions (ops/nms_bitmask.py:
the scan stops at K taken boxes and ORs at most K taken boxes' rows) shrink.

`selection_caps(graph)` finds, for each NonMaxSuppression with a constant
max_output_boxes_per_class, the most leading rows of its selection any reader reads
(`_leading_rows`): through the readers whose output row r reads only row r of the value (the
elementwise ops when the value has the output's rank, Gather along another axis or with the value
as axis 0's indices, Squeeze and Unsqueeze that keep axis 0, an If branch's output to the If's), to
a Slice of axis 0 from 0 with step 1 and a constant end. Any other reader, an output of the model
or of a loop body, or a read inside a nested region's body, reads every row: no cap. The import
(onnx_import.import_checked) then imports the model again with the caps (graph_import's
`selection_caps`), as every type after the node depends on them. `--disable nms_cap` keeps the
model's own max_output_boxes_per_class."""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.graph import Graph, Node
from ..ops.elementwise import ELEMENTWISE_OPS

# readers of the same rank whose output row r reads row r of each full-rank operand
_ROW_WISE = ELEMENTWISE_OPS | {"Cast", "CastLike", "Clip", "Where", "Identity", "Max", "Min", "Sum", "Mean"}
_MAX_DEPTH = 256   # readers followed in a chain, at most (a model's chain after a selection is short)


@dataclass(frozen=True)
class SelectionCap:
    """One NonMaxSuppression whose readers read at most `cap` rows of its selection."""

    node: str          # the node's name in the IR graph (the import's unique name)
    requested: int     # max_output_boxes_per_class as the model gives it
    cap: int           # the most leading rows of the selection a reader reads, at least 1
    readers: tuple[str, ...]   # the Slices that bound it


@dataclass(frozen=True)
class _Frame:
    """A graph and where it sits: the node owning it (an If, a Loop, a Scan) in the parent frame."""

    graph: Graph
    owner: Node | None = None
    parent: "_Frame | None" = None

    def readers(self, value: str) -> list[Node] | None:
        """The nodes of this graph reading `value`; None where a nested region's body reads it."""
        out = []
        for n in self.graph.nodes:
            if any(value in sg.outer for sg in n.subgraphs()):
                return None
            if value in n.inputs:
                out.append(n)
        return out


def selection_caps(graph: Graph) -> tuple[SelectionCap, ...]:
    """The caps of every NonMaxSuppression in `graph` and its regions' bodies that a cap changes."""
    found: list[SelectionCap] = []
    _find(_Frame(graph), found)
    return tuple(found)


def _find(frame: _Frame, found: list[SelectionCap]) -> None:
    for n in frame.graph.nodes:
        for sg in n.subgraphs():
            _find(_Frame(sg, n, frame), found)
        if n.op != "NonMaxSuppression" or n.domain != "" or not n.has_input(2) or not n.has_output(0):
            continue
        requested = _ints(frame.graph, n.inputs[2])
        if requested is None or len(requested) != 1:
            continue
        bounds: list[str] = []
        rows = _leading_rows(n.outputs[0], frame, bounds, 0)
        if rows is not None and rows < requested[0]:
            found.append(SelectionCap(n.name, requested[0], max(rows, 1), tuple(sorted(set(bounds)))))


def _leading_rows(value: str, frame: _Frame, bounds: list[str], depth: int) -> int | None:
    """The most leading rows (axis 0) of `value` any reader reads; None: all of them, or unknown.
    `bounds` gathers the Slices that bound them."""
    if depth > _MAX_DEPTH:
        return None
    g, most = frame.graph, 0
    if value in g.outputs:
        if frame.owner is None or frame.owner.op != "If" or frame.parent is None:
            return None      # the model's output, or a loop body's (carried or scanned)
        out = frame.owner.outputs[g.outputs.index(value)]
        rows = _leading_rows(out, frame.parent, bounds, depth + 1) if out else 0
        if rows is None:
            return None
        most = rows
    readers = frame.readers(value)
    if readers is None:
        return None
    for n in readers:
        rows = _rows_through(n, value, frame, bounds, depth)
        if rows is None:
            return None
        most = max(most, rows)
    return most


def _rows_through(n: Node, value: str, frame: _Frame, bounds: list[str], depth: int) -> int | None:
    """The leading rows of `value` that reader `n` reads."""
    g = frame.graph
    rank = g.type_of(value).rank
    if rank == 0 or n.domain != "":
        return None
    if n.op == "Slice":
        return _slice_rows(n, value, frame, bounds, depth)
    if n.op in _ROW_WISE:
        out = n.outputs[0] if n.has_output(0) else ""
        if not out or g.type_of(out).rank != rank:
            return None   # broadcast into a higher rank: the value's axis 0 is not the output's
        return _leading_rows(out, frame, bounds, depth + 1)
    if n.op == "Gather" and n.has_output(0):
        data_rank = g.type_of(n.inputs[0]).rank
        axis = _norm(n.attr("axis", 0), data_rank)
        as_data = n.inputs[0] == value and n.inputs[1] != value and axis not in (None, 0)
        as_indices = n.inputs[1] == value and n.inputs[0] != value and axis == 0
        return _leading_rows(n.outputs[0], frame, bounds, depth + 1) if as_data or as_indices else None
    if n.op in ("Squeeze", "Unsqueeze") and n.inputs[0] == value and n.has_output(0):
        axes = _axes(n, g)
        if axes is None and n.op == "Squeeze":   # every axis of extent 1
            axes = [a for a, e in enumerate(g.type_of(value).shape) if e == 1]
        within = rank if n.op == "Squeeze" else g.type_of(n.outputs[0]).rank
        if axes is None or any(_norm(a, within) in (None, 0) for a in axes):
            return None
        return _leading_rows(n.outputs[0], frame, bounds, depth + 1)
    return None


def _slice_rows(n: Node, value: str, frame: _Frame, bounds: list[str], depth: int) -> int | None:
    g = frame.graph
    if n.inputs[0] != value or value in n.inputs[1:]:
        return None
    rank = g.type_of(value).rank
    if n.has_attr("starts"):     # Slice-1: attributes
        starts, ends, axes, steps = n.attr("starts"), n.attr("ends"), n.attr("axes"), None
    else:
        starts, ends = _ints(g, n.inputs[1]), _ints(g, n.inputs[2]) if len(n.inputs) > 2 else None
        axes = _ints(g, n.inputs[3]) if n.has_input(3) else None
        steps = _ints(g, n.inputs[4]) if n.has_input(4) else None
        if (n.has_input(3) and axes is None) or (n.has_input(4) and steps is None):
            return None
    if starts is None or ends is None:
        return None
    axes = list(range(len(starts))) if axes is None else [_norm(a, rank) for a in axes]
    steps = [1] * len(starts) if steps is None else list(steps)
    if 0 not in axes:     # axis 0 untouched: row r of the output is row r of the value
        return _leading_rows(n.outputs[0], frame, bounds, depth + 1) if n.has_output(0) else 0
    j = axes.index(0)
    if int(starts[j]) != 0 or int(steps[j]) != 1 or int(ends[j]) < 0:
        return None
    bounds.append(n.name)
    return int(ends[j])


def _ints(g: Graph, name: str) -> list[int] | None:
    c = g.constant(name) if name else None
    if c is None:
        return None
    a = c.array()
    return [int(v) for v in a.reshape(-1)] if a.dtype.kind in "iu" else None


def _axes(n: Node, g: Graph) -> list[int] | None:
    if n.has_attr("axes"):
        return list(n.attr("axes"))
    return _ints(g, n.inputs[1]) if n.has_input(1) else None


def _norm(axis, rank: int) -> int | None:
    a = int(axis)
    a = a + rank if a < 0 else a
    return a if 0 <= a < max(rank, 1) else None
