"""A Loop whose body only appends to a carried value, imported as a Loop with a scan output.

Exporters write a Python list that a loop appends to, or a tensor grown by `torch.cat` each
iteration, as a carried value that starts empty and that the body returns as
`Concat(carried, piece)`. The carried value's shape changes every iteration, which a static
shape cannot hold (graph_import refuses loop-carried values whose shape changes), yet nothing in
the body reads the list: it is a scan output in disguise. ONNX gives the same result as

    stacked = the Loop's scan output of `piece`                 # [iterations, *piece]
    carried = the pieces joined along the Concat's axis         # a Squeeze (pieces of extent 1 on
                                                                # the axis) or a Reshape of the
                                                                # stacked pieces, moved to that axis
    carried = Concat(initial, carried)                          # where the initial value is not empty

so the Loop becomes one with a scan output and these nodes after it. A Python list of tensors
appended to (`SequenceInsert(carried, piece)` at the back of a sequence that starts empty) is the
same scan output; sequences.py keeps it as the stacked elements its readers read. A Loop with an
iteration count known only at run time then has a scan output of run-time length
(docs/grinder.md), and so does the joined list. A carried value is rewritten only where the
body's Concat is the one reader of its input (through Casts to its own dtype, as scripted exports
write) and the body's output is that Concat alone: where the body reads the list (its length, an
element), it stays a carried value and the importer's error names it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..ir.graph import TensorType

ImportProtos = Callable[[list], list]     # imports plain NodeProtos into the current scope, gives IR nodes


@dataclass(frozen=True)
class Append:
    """One carried value the body only appends to."""

    piece: str                  # the value appended each iteration
    axis: int | None            # the Concat's axis; None for a sequence SequenceInserted at its back
    dropped: tuple[str, ...]    # the body nodes (by first output) that grow the list: they go


def appended_values(pn: onnx.NodeProto, carried_types: list[TensorType | None],
                    empty_sequences: frozenset[int] = frozenset()) -> dict[int, Append]:
    """The carried values of a Loop that its body only appends to, by carried index;
    `carried_types` are the carried tensors' types as they enter the Loop (None where unknown or
    not a tensor), `empty_sequences` the carried values that are empty sequences."""
    if pn.op_type != "Loop" or pn.domain not in ("", "ai.onnx"):
        return {}
    body = next((a.g for a in pn.attribute if a.name == "body" and a.type == onnx.AttributeProto.GRAPH), None)
    if body is None:
        return {}
    n_carried = len(pn.input) - 2
    if n_carried <= 0 or len(body.input) != n_carried + 2 or len(body.output) < n_carried + 1:
        return {}
    reads = _reads(body)
    outputs = [o.name for o in body.output]
    by_output = {o: n for n in body.node for o in n.output if o}
    found = {}
    for k, t in enumerate(carried_types):
        b_in, b_out = body.input[2 + k].name, outputs[1 + k]
        grow = by_output.get(b_out)
        if grow is None or grow.domain not in ("", "ai.onnx") or len(grow.input) < 2 or grow.input[1] in ("", b_in):
            continue
        # the list may pass Casts to its own dtype (no-ops: scripted exports write them) on its way
        dropped, head = [b_out], grow.input[0]
        while head != b_in and head in by_output and _keeps(by_output[head], t) \
                and reads.get(head, 0) == 1 and head not in outputs:
            dropped.append(head)
            head = by_output[head].input[0]
        # the Concat (SequenceInsert) is the list's one reader, and the grown list is only returned
        if head != b_in or reads.get(b_in, 0) != 1 or reads.get(b_out, 0) != 0 or outputs.count(b_out) != 1 \
                or b_in in outputs:
            continue
        if k in empty_sequences:
            if grow.op_type == "SequenceInsert" and (len(grow.input) == 2 or not grow.input[2]):
                found[k] = Append(grow.input[1], None, tuple(dropped))      # inserted at the back
            continue
        if t is None or t.rank == 0 or grow.op_type != "Concat" or len(grow.input) != 2:
            continue
        axis = next((a.i for a in grow.attribute if a.name == "axis"), None)
        if axis is None or not -t.rank <= axis < t.rank:
            continue
        found[k] = Append(grow.input[1], axis % t.rank, tuple(dropped))
    return found


def _keeps(n: onnx.NodeProto, t: TensorType | None) -> bool:
    """Whether n gives the tensor of type t it reads unchanged: an Identity, or a Cast to t's dtype."""
    if n.domain not in ("", "ai.onnx"):
        return False
    if n.op_type == "Identity":
        return True
    to = next((a.i for a in n.attribute if a.name == "to"), None)
    return n.op_type == "Cast" and t is not None and to == t.dtype.value


def import_appending_loop(pn: onnx.NodeProto, name: str, appended: dict[int, Append],
                          types: Callable[[str], TensorType], fresh: Callable[[str], str], opset: int,
                          import_protos: ImportProtos,
                          stacked_sequence: Callable[[str, str], None] | None = None) -> list:
    """The IR nodes of a Loop whose `appended` carried values (appended_values) become scan
    outputs, joined after the Loop as the carried values would have been. `types` gives a value's
    type once imported, `fresh` a new value name; a sequence's scan output is handed to
    `stacked_sequence(the Loop's output, the stacked elements)` (sequences.py reads it)."""
    body = next(a.g for a in pn.attribute if a.name == "body")
    n_carried = len(pn.input) - 2
    kept = [k for k in range(n_carried) if k not in appended]
    n_scan = len(body.output) - 1 - n_carried
    dropped = {v for a in appended.values() for v in a.dropped}

    new_body = onnx.GraphProto()
    new_body.CopyFrom(body)
    del new_body.node[:], new_body.input[:], new_body.output[:]
    new_body.node.extend(n for n in body.node if not (n.output and n.output[0] in dropped))
    new_body.input.extend([body.input[0], body.input[1]] + [body.input[2 + k] for k in kept])
    new_body.output.extend([body.output[0]] + [body.output[1 + k] for k in kept]
                           + list(body.output[1 + n_carried:]))
    stacked = {}
    for k, piece in sorted((k, a.piece) for k, a in appended.items()):
        # a body output of its own: the piece may also be another output or a body input
        out = f"{piece}#appended{k}"
        new_body.node.append(helper.make_node("Identity", [piece], [out], name=f"{name}/appended{k}"))
        new_body.output.append(helper.make_tensor_value_info(out, onnx.TensorProto.UNDEFINED, None))
        stacked[k] = fresh(f"{name}#stacked{k}")

    loop = helper.make_node("Loop", list(pn.input[:2]) + [pn.input[2 + k] for k in kept],
                            [pn.output[k] for k in kept] + list(pn.output[n_carried:n_carried + n_scan])
                            + [stacked[k] for k in sorted(appended)], name=pn.name or name)
    loop.attribute.extend(a for a in pn.attribute if a.name != "body")
    loop.attribute.append(helper.make_attribute("body", new_body))
    nodes = import_protos([loop])

    after = []
    for k, axis in sorted((k, a.axis) for k, a in appended.items()):
        target = pn.output[k]
        if not target:
            continue
        if axis is None:
            stacked_sequence(target, stacked[k])
            continue
        after += _joined(stacked[k], types(stacked[k]), axis, pn.input[2 + k], types(pn.input[2 + k]), target,
                         f"{name}/appended{k}", fresh, opset)
    return nodes + import_protos(after)


def _joined(stacked: str, t: TensorType, axis: int, initial: str, initial_type: TensorType | None, target: str,
            prefix: str, fresh: Callable[[str], str], opset: int) -> list[onnx.NodeProto]:
    """The nodes that give `target`: the stacked pieces ([iterations, *piece]) joined along `axis`,
    after the initial value unless it is empty there (or None)."""
    rank = t.rank - 1           # the piece's and the list's
    nodes, value = [], stacked
    # the iterations' axis moved in front of the piece's `axis`: [*piece[:axis], iterations, *piece[axis:]]
    if axis > 0:
        perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank + 1))
        moved = fresh(f"{prefix}#moved")
        nodes.append(helper.make_node("Transpose", [value], [moved], perm=perm, name=f"{prefix}/move"))
        value = moved
    shape = t.shape[1:axis + 1] + (t.shape[0],) + t.shape[axis + 1:]
    joined = target if initial_type is None or initial_type.shape[axis] == 0 else fresh(f"{prefix}#joined")
    if shape[axis + 1] == 1:    # pieces of extent 1 on the axis: a view that drops it
        nodes += on_axis("Squeeze", value, axis + 1, joined, prefix, opset)
    else:
        merged = shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:]
        dims = fresh(f"{prefix}#shape")
        nodes += [constant_node(dims, np.array(merged, np.int64), prefix),
                  helper.make_node("Reshape", [value, dims], [joined], name=f"{prefix}/join")]
    if joined != target:
        nodes.append(helper.make_node("Concat", [initial, joined], [target], axis=axis, name=f"{prefix}/after"))
    return nodes


def joined_elements(stacked: str, t: TensorType, axis: int, new_axis: bool, target: str, prefix: str,
                    fresh: Callable[[str], str], opset: int) -> list[onnx.NodeProto]:
    """ConcatFromSequence of a stacked sequence (`stacked`, [length, *element]): the elements joined
    along `axis`, or stacked along a new `axis` (`new_axis`), as nodes that give `target`."""
    if not new_axis:
        return _joined(stacked, t, axis, "", None, target, prefix, fresh, opset)
    if axis == 0:
        return [helper.make_node("Identity", [stacked], [target], name=f"{prefix}/join")]
    perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, t.rank))
    return [helper.make_node("Transpose", [stacked], [target], perm=perm, name=f"{prefix}/join")]


# --- NodeProtos the import's rewrites write (sequences.py's too) ----------------------------------

def constant_node(out: str, a: np.ndarray, name: str) -> onnx.NodeProto:
    """A Constant node giving `out` (named after its rewrite `name`)."""
    return helper.make_node("Constant", [], [out], name=f"{name}/{out}",
                            value=numpy_helper.from_array(np.asarray(a), out))


def on_axis(op: str, x: str, axis: int, out: str, name: str, opset: int) -> list[onnx.NodeProto]:
    """Unsqueeze or Squeeze of one axis, in the form the model's opset reads (axes an input from 13)."""
    if opset >= 13:
        axes = f"{out}#axes"
        return [constant_node(axes, np.array([axis], np.int64), name),
                helper.make_node(op, [x, axes], [out], name=f"{name}/{out}")]
    return [helper.make_node(op, [x], [out], name=f"{name}/{out}", axes=[axis])]


def _reads(g: onnx.GraphProto) -> dict[str, int]:
    """How many times each name is read in `g`: as a node input or by a node's subgraphs (a name
    a subgraph reads counts once per reading node there), or as one of g's outputs (not counted:
    the caller looks at outputs itself)."""
    count: dict[str, int] = {}
    for n in g.node:
        for i in n.input:
            if i:
                count[i] = count.get(i, 0) + 1
        for a in n.attribute:
            for sg in ([a.g] if a.type == onnx.AttributeProto.GRAPH else
                       list(a.graphs) if a.type == onnx.AttributeProto.GRAPHS else []):
                for v, c in _reads(sg).items():
                    count[v] = count.get(v, 0) + c
                for o in sg.output:      # a subgraph returning an outer value reads it
                    count[o.name] = count.get(o.name, 0) + 1
    return count
