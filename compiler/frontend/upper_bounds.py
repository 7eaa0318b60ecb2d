"""Upper bounds of small integer values known only at run time, element by element.

An exporter computes a count it needs from data (torchvision's `topk(min(1000, len(scores)))`:
the list's Shape, gathered, joined with the constant 1000, ReduceMin) and passes it where ONNX
needs a size (TopK's K). The value is not constant, but ONNX's semantics bound it: the minimum of
1000 and anything is at most 1000, and a Shape of a value of run-time length is at most its
bound. An op's infer that sizes an output by such a value (TopK) sizes it by the bound instead of
the whole axis, and the lowering writes the real size (OpDef.bounded).

`element_bounds` gives, for one node, each element's bound of its first output (a float array of
its shape, inf where nothing is known) from its inputs' (constants: their values), for the ops
that carry one; None for the others and for tensors over MAX_ELEMENTS."""
from __future__ import annotations

import numpy as np
import onnx

MAX_ELEMENTS = 64      # shape arithmetic: a few elements


def _attr(pn: onnx.NodeProto, name: str, default):
    for a in pn.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def element_bounds(pn: onnx.NodeProto, inputs: list[np.ndarray | None], out_shape: tuple[int, ...],
                   static_shape: tuple[int, ...] | None = None) -> np.ndarray | None:
    """Each element's upper bound of pn's first output (shape `out_shape`), from `inputs` (each
    input's element bounds, None where unknown); `static_shape` is a Shape node's input's static
    shape (its bound). None where no rule applies (or the node is malformed: its own checks say so)."""
    try:
        return _element_bounds(pn, inputs, out_shape, static_shape)
    except (ValueError, IndexError):
        return None


def _element_bounds(pn, inputs, out_shape, static_shape) -> np.ndarray | None:
    op = pn.op_type
    if int(np.prod(out_shape)) > MAX_ELEMENTS:
        return None
    x = inputs[0] if inputs else None
    if op == "Shape" and static_shape is not None:
        rank = len(static_shape)
        start, end = _attr(pn, "start", 0), _attr(pn, "end", rank)
        start, end = (min(max(v + rank if v < 0 else v, 0), rank) for v in (start, end))
        return np.array(static_shape[start:end], np.float64).reshape(out_shape)
    if op == "Size" and static_shape is not None:
        return np.array(float(np.prod(static_shape))).reshape(out_shape)
    if x is None:
        return None
    if op in ("Identity", "Reshape", "Unsqueeze", "Squeeze", "Flatten") or (
            op == "Cast" and _attr(pn, "to", 0) in _INTEGER_TYPES):
        return x.reshape(out_shape) if x.size == int(np.prod(out_shape)) else None
    if op == "Concat":
        if any(i is None for i in inputs):
            return None
        return np.concatenate([i.reshape(i.shape or (1,)) if i.ndim == 0 else i for i in inputs],
                              axis=_attr(pn, "axis", 0)).reshape(out_shape)
    if op == "Gather" and len(inputs) > 1 and inputs[1] is not None and np.all(np.isfinite(inputs[1])):
        return np.take(x, inputs[1].astype(np.int64), axis=_attr(pn, "axis", 0)).reshape(out_shape)
    if op in ("ReduceMin", "ReduceMax") and len(pn.input) < 2 and _attr(pn, "axes", None) is None:
        f = np.min if op == "ReduceMin" else np.max      # over every axis (the exporters' form)
        return np.asarray(f(x)).reshape(out_shape)
    if op in ("Min", "Max") and all(i is not None for i in inputs):
        f = np.minimum if op == "Min" else np.maximum
        out = inputs[0]
        for i in inputs[1:]:
            out = f(out, i)
        return np.broadcast_to(out, out_shape).copy()
    return None


# a cast that keeps an integer's value (the bounds are of integer values): a narrower type may wrap
_INTEGER_TYPES = {onnx.TensorProto.INT64}
