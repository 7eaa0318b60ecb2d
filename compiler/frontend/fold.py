"""Constant folding during import: Constant nodes, Shape/Size from static types, and any foldable op
whose inputs are all constants, evaluated with the op's NumPy reference."""
from __future__ import annotations

import numpy as np
import onnx

from ..errors import UnsupportedOp
from ..ir.graph import Node, TensorType
from ..ops.registry import OpDef
from .convert import tensor_to_array

# Ops the frontend folds itself, without a registry entry: their value never depends on data.
FRONTEND_OPS = frozenset({"Constant", "Shape", "Size"})

# A fold whose output has DEFER_GROWTH times more elements than the constants it is computed from
# (and more than ImportLimits.defer_fold_elements) is deferred (`defers`).
DEFER_GROWTH = 16


def constant_node_value(node: onnx.NodeProto, name: str) -> np.ndarray:
    """The value of a Constant node, from whichever of its attribute forms it uses."""
    if len(node.attribute) != 1:
        raise UnsupportedOp("Constant", node=name, detail="a Constant needs exactly one value attribute")
    a = node.attribute[0]
    if a.name == "value":
        return tensor_to_array(a.t, op="Constant", node=name)
    if a.name == "value_float":
        return np.array(a.f, dtype=np.float32)
    if a.name == "value_floats":
        return np.array(list(a.floats), dtype=np.float32)
    if a.name == "value_int":
        return np.array(a.i, dtype=np.int64)
    if a.name == "value_ints":
        return np.array(list(a.ints), dtype=np.int64)
    if a.name in ("value_string", "value_strings"):
        raise UnsupportedOp("Constant", node=name, detail="string tensors are not supported")
    raise UnsupportedOp("Constant", node=name, detail=f"the '{a.name}' form is not supported "
                        "(sparse constants have no lowering)")


def shape_op_value(op: str, node: onnx.NodeProto, in_type: TensorType) -> np.ndarray:
    """Shape or Size of a value with a static type: known without its data."""
    if op == "Size":
        return np.array(in_type.size, dtype=np.int64)
    return np.array([in_type.shape[a] for a in shape_op_axes(node, in_type.rank)], dtype=np.int64)


def shape_op_axes(node: onnx.NodeProto, rank: int) -> range:
    """The axes a Shape node reports."""
    attrs = {a.name: a.i for a in node.attribute}
    # opset 15 start/end: negative counts from the back, both clamped into [0, rank]
    start, end = attrs.get("start", 0), attrs.get("end", rank)
    start = min(max(start + rank if start < 0 else start, 0), rank)
    end = min(max(end + rank if end < 0 else end, 0), rank)
    return range(start, end)


def defers(out_types: list[TensorType | None] | None, source_elements: int, min_elements: int) -> bool:
    """Whether a node on constants broadcasts them into a value much larger than what it is
    computed from (an Expand, an outer sum of two ranges): such a fold is deferred. The node stays
    in the graph and is evaluated only where a later fold reads it (one that makes something small
    again: a Gather of a table, a reduction). Where nothing does, it runs with the model, fused
    into its reader, cheaper than reading the folded value from DRAM on every inference, and the
    import neither evaluates nor hashes it (torch's slice assignment builds index grids of
    millions of int64 this way, which canonicalize.scatter_boxes then reads as the small arrays
    they broadcast and drops)."""
    if not out_types or any(t is None for t in out_types):
        return False
    size = sum(t.size for t in out_types)
    return size > min_elements and size > DEFER_GROWTH * max(source_elements, 1)


def within_inputs(inputs, in_types: list[TensorType | None], out_types: list[TensorType | None] | None,
                  weight_reads: frozenset[str], max_elements: int, deferred) -> bool:
    """Whether a node on constants whose outputs pass `max_elements` rewrites a weight, and so
    folds all the same: no output holds more bytes than its largest input, and every input past the
    limit is a value only computations on constants read (onnx_import._weight_reads), so the folded
    value replaces what it is computed from rather than sitting beside it. NFNet's and BiT's
    weight standardisation and wav2vec2's weight-normalised positional convolution compute their
    weights so; left to run, they would on every inference. A deferred input (a broadcast not
    evaluated) never qualifies."""
    if not out_types or any(t is None for t in out_types) or all(t.size <= max_elements for t in out_types):
        return False
    present = [(i, t) for i, t in zip(inputs, in_types) if i and t is not None]
    if not present or any(i in deferred for i, _ in present):
        return False
    largest = max(t.nbytes for _, t in present)
    return (all(t.nbytes <= largest for t in out_types)
            and all(i in weight_reads for i, t in present if t.size > max_elements))


def fold_with_reference(opdef: OpDef, node: Node, inputs: list[np.ndarray | None], opset: int,
                        expected: list[TensorType] | None) -> tuple[list[np.ndarray] | None, str | None]:
    """Runs the op's reference on constant inputs: (outputs, None), or (None, why it was not folded)."""
    try:
        with np.errstate(all="ignore"):  # folded arithmetic may overflow or divide by zero, as at run time
            outs = opdef.reference(node, inputs, opset)
    except UnsupportedOp:
        raise
    except Exception as e:  # a reference that cannot evaluate these inputs: leave the node to run
        return None, f"{type(e).__name__}: {e}"
    names = [o for o in node.outputs]
    if len(outs) < sum(1 for o in names if o):
        return None, f"the reference returned {len(outs)} outputs for {len(names)}"
    arrays = []
    for i, (o, v) in enumerate(zip(names, outs)):
        a = np.asarray(v)
        if o and expected is not None and expected[i] is not None:
            t = expected[i]
            if a.dtype != t.dtype.np or tuple(a.shape) != t.shape:
                return None, (f"the reference gave {a.dtype}{list(a.shape)} for output {i} "
                              f"where ONNX infers {t}")
        arrays.append(a)
    return arrays, None
