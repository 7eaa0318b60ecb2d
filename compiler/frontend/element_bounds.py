"""Bounds of small integer values known only at run time, element by element.

An exporter computes a count it needs from data (torchvision's `topk(min(1000, len(scores)))`:
the list's Shape, gathered, joined with the constant 1000, ReduceMin; `torch.full_like(boxes[:, :1],
i)`: ConstantOfShape of a Shape) and passes it where ONNX needs a size (TopK's K, ConstantOfShape's
shape). The value is not constant, but ONNX's semantics bound it: the minimum of 1000 and anything
is at most 1000; a Shape of a value of run-time length is at most its bound on that axis, at
least 0, and exactly the static extent on every other axis. An op's infer that sizes an output by
such a value sizes it by the upper bound, and where lower and upper differ on one axis only, that
axis is the output's run-time one (the lowering writes the real size: OpDef.bounded).

`element_bounds` gives, for one node, each element's (lower, upper, source) of its first output
from its inputs' (constants: their values twice, no source), for the ops that carry them; None for
the others and for tensors over MAX_ELEMENTS. Lower and upper are float arrays of the output's
shape (-inf / inf where nothing is known); source is an object array of the same shape, for an
element that is a run-time extent itself (a Shape's element, moved by Gather, Concat and reshapes)
the (value, axis) it measures, else None: an output sized by it has that value's real extent, the
same count (ops/shape_ops.py ConstantOfShape; Reshape, Expand and Slice in ops/movement.py). A bool
(Equal's, Where's condition) is bounded as 0 and 1."""
from __future__ import annotations

import numpy as np
import onnx

MAX_ELEMENTS = 64      # shape arithmetic: a few elements

Bounds = tuple[np.ndarray, np.ndarray, np.ndarray]     # each element's (lower, upper, source)


def exact_bounds(a: np.ndarray) -> Bounds:
    """A value known at compile time: its elements twice, no source."""
    v = np.asarray(a, np.float64)
    return v, v, _no_source(v.shape)


def _no_source(shape) -> np.ndarray:
    return np.full(shape, None, dtype=object)


def _shaped(r, out_shape) -> np.ndarray:
    """np.take's result as an array of out_shape: taking one element of an object array gives the
    element itself (a source's tuple)."""
    if isinstance(r, (np.ndarray, np.generic)):
        return np.asarray(r).reshape(out_shape)
    a = _no_source(())
    a[()] = r
    return a.reshape(out_shape)


def _attr(pn: onnx.NodeProto, name: str, default):
    for a in pn.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def element_bounds(pn: onnx.NodeProto, inputs: list[Bounds | None], out_shape: tuple[int, ...],
                   static_shape: Bounds | None = None) -> Bounds | None:
    """Each element's (lower, upper, source) of pn's first output (shape `out_shape`), from
    `inputs` (each input's, None where unknown); `static_shape` is a Shape or Size node's input's
    extents, (lower, upper, source): its static shape, with 0 below each axis of run-time length
    and (the input, the axis) its source. None where no rule applies (or the node is malformed:
    its own checks say so)."""
    try:
        return _element_bounds(pn, inputs, out_shape, static_shape)
    except (ValueError, IndexError):
        return None


def is_exact(b: Bounds | None) -> bool:
    """Whether the bounds pin every element: the value is known, though computed at run time."""
    return b is not None and bool(np.all(b[0] == b[1]))


def _element_bounds(pn, inputs, out_shape, static_shape) -> Bounds | None:
    op = pn.op_type
    if int(np.prod(out_shape)) > MAX_ELEMENTS:
        return None
    if op == "Shape" and static_shape is not None:
        rank = len(static_shape[1])
        start, end = _attr(pn, "start", 0), _attr(pn, "end", rank)
        start, end = (min(max(v + rank if v < 0 else v, 0), rank) for v in (start, end))
        lower, upper = (np.array(s[start:end], np.float64).reshape(out_shape) for s in static_shape[:2])
        source = _no_source(end - start)
        for k, tag in enumerate(static_shape[2][start:end]):    # a tuple each: filled one by one
            source[k] = tag
        return lower, upper, source.reshape(out_shape)
    if op == "Size" and static_shape is not None:
        return (*(np.array(float(np.prod(s))).reshape(out_shape) for s in static_shape[:2]), _no_source(out_shape))
    x = inputs[0] if inputs else None
    if x is None:
        return None
    if op in ("Identity", "Reshape", "Unsqueeze", "Squeeze", "Flatten") or (
            op == "Cast" and _attr(pn, "to", 0) in _INTEGER_TYPES):
        return tuple(b.reshape(out_shape) for b in x) if x[0].size == int(np.prod(out_shape)) else None
    if op == "Concat":
        if any(i is None for i in inputs):
            return None
        axis = _attr(pn, "axis", 0)
        return tuple(np.concatenate([i[side].reshape(i[side].shape or (1,)) for i in inputs], axis=axis).reshape(out_shape)
                     for side in (0, 1, 2))
    if op == "Gather" and len(inputs) > 1 and is_exact(inputs[1]) and np.all(np.isfinite(inputs[1][0])):
        at = inputs[1][0].astype(np.int64)       # positions known at compile time
        return tuple(_shaped(np.take(b, at, axis=_attr(pn, "axis", 0)), out_shape) for b in x)
    if op == "Slice" and len(inputs) >= 3 and all(is_exact(i) for i in inputs[1:] if i is not None):
        starts, ends = (inputs[k][0].astype(np.int64).reshape(-1) for k in (1, 2))
        axes = inputs[3][0].astype(np.int64).reshape(-1) if len(inputs) > 3 and inputs[3] is not None else range(len(starts))
        steps = inputs[4][0].astype(np.int64).reshape(-1) if len(inputs) > 4 and inputs[4] is not None else [1] * len(starts)
        at = [slice(None)] * x[0].ndim      # positions known at compile time (Shape(x)[:1])
        for a, s, e, st in zip(axes, starts, ends, steps):
            at[int(a)] = slice(int(s), int(e), int(st))
        return tuple(b[tuple(at)].reshape(out_shape) for b in x)
    if op in ("ReduceMin", "ReduceMax") and len(pn.input) < 2 and _attr(pn, "axes", None) is None:
        f = np.min if op == "ReduceMin" else np.max      # over every axis (the exporters' form), monotone
        return (*(np.asarray(f(b)).reshape(out_shape) for b in x[:2]), _no_source(out_shape))
    if op in ("Min", "Max") and all(i is not None for i in inputs):
        f = np.minimum if op == "Min" else np.maximum    # monotone in every argument
        out = []
        for side in (0, 1):
            acc = inputs[0][side]
            for i in inputs[1:]:
                acc = f(acc, i[side])
            out.append(np.broadcast_to(acc, out_shape).copy())
        return out[0], out[1], _no_source(out_shape)
    if op in ("Add", "Sub") and len(inputs) == 2 and all(i is not None for i in inputs):
        (la, ua, sa), (lb, ub, sb) = inputs      # monotone: a source survives adding a pinned 0
        lower, upper = (la + lb, ua + ub) if op == "Add" else (la - ub, ua - lb)
        zero_a, zero_b = (la == 0) & (ua == 0), (lb == 0) & (ub == 0)
        source = _no_source(out_shape)
        for at in np.ndindex(*out_shape):
            if np.broadcast_to(zero_b, out_shape)[at]:
                source[at] = np.broadcast_to(sa, out_shape)[at]
            elif op == "Add" and np.broadcast_to(zero_a, out_shape)[at]:
                source[at] = np.broadcast_to(sb, out_shape)[at]
        return (np.broadcast_to(lower, out_shape).copy(), np.broadcast_to(upper, out_shape).copy(), source)
    if op == "Equal" and len(inputs) == 2 and all(i is not None for i in inputs):
        (la, ua, _), (lb, ub, _) = inputs       # 1 where both are pinned and equal, 0 where they cannot meet
        same = (la == ua) & (lb == ub) & (la == lb)
        apart = (ua < lb) | (ub < la)
        lower = np.broadcast_to(same.astype(np.float64), out_shape).copy()
        upper = np.broadcast_to(np.where(apart, 0.0, 1.0), out_shape).copy()
        return lower, upper, _no_source(out_shape)
    if op == "Where" and len(inputs) == 3 and all(i is not None for i in inputs):
        (lc, uc, _), a, b = inputs     # a pinned condition picks its side, else either side's bounds
        picks_a, picks_b = np.broadcast_to(lc == 1, out_shape), np.broadcast_to(uc == 0, out_shape)
        lower, upper = (np.where(picks_a, np.broadcast_to(a[k], out_shape), np.where(
            picks_b, np.broadcast_to(b[k], out_shape), f(np.broadcast_to(a[k], out_shape), np.broadcast_to(b[k], out_shape))))
            for k, f in ((0, np.minimum), (1, np.maximum)))
        source = _no_source(out_shape)
        for at in np.ndindex(*out_shape):     # a source carried only through a pinned choice
            side = a if picks_a[at] else b if picks_b[at] else None
            if side is not None:
                source[at] = np.broadcast_to(side[2], out_shape)[at]
        return lower, upper, source
    return None


# a cast that keeps an integer's value (the bounds are of integer values): a narrower type may wrap
_INTEGER_TYPES = {onnx.TensorProto.INT64}
