"""Data movement ops: views (Reshape, Squeeze, ...), Transpose, Concat, Split, Slice, Expand,
Tile, Pad, DepthToSpace, SpaceToDepth, ReverseSequence, Trilu, EyeLike, CenterCropPad, and Resize
with Upsample, its predecessor.

Most kernels here are index maps: one thread per output element loads the input element it
comes from (guarded by a lazy select() where the source may be out of bounds); so is nearest
Resize. Linear and cubic Resize sum over the interpolation taps of every resized axis (with
antialias, the filter stretched by 1 / scale when downsampling: more taps, each axis's weights
normalised by their sum, divided out once per output element), and emit_values writes a small
table of compile-time values."""
from __future__ import annotations

import math

import numpy as np

from ..codegen.cuda import c_const
from ..codegen.block_function import BLOCK_X, GRID_X, finish_kernel
from ..ir.kernel import Kernel, KernelParam
from ..errors import ShapeError, UnsupportedOp
from ..ir.dtypes import DType
from ..ir.graph import Constant, TensorType, view_axis
from ..ir.texpr import (Expr, Reduce, TensorExpr, Var, binary, broadcast_index, cast, const, in_range,
                        load, logical_and, logical_or, minimum, out_vars, select, unary)
from .registry import Inferred, LowerCtx, register

# A hand-written table of constant values is fine for shapes and small folded constants; larger
# constants belong in the plan's constant data (the frontend folds them).
MAX_INLINE_VALUES = 1 << 16


# --- helpers shared by the family modules (indexing.py, shape_ops.py) ------------------------

def text(v) -> str:
    """An attribute string, whether the frontend kept it as bytes or str."""
    return v.decode() if isinstance(v, bytes) else v


def opt(inputs: list, i: int):
    """Optional input i, or None when it is absent."""
    return inputs[i] if i < len(inputs) else None


def norm_axis(a: int, rank: int) -> int:
    """ONNX axis (negative counts from the end) as a non-negative axis."""
    a = int(a)
    return a + rank if a < 0 else a


def attr_array(v) -> np.ndarray | None:
    """A tensor attribute (Constant or array) as NumPy, None when absent."""
    if v is None:
        return None
    if isinstance(v, Constant):
        return v.array()
    return np.asarray(v)


def emit_expr(ctx: LowerCtx, name: str, args: list[int], body: Expr, out: int = 0) -> None:
    """Emits out = body, where load(k, ...) in body reads node input args[k]."""
    te = TensorExpr(name, tuple(ctx.input(a) for a in args), ctx.out_types[out], body)
    ctx.emit(te, [ctx.in_name(a) for a in args], ctx.out_name(out))


def index_value(e: Expr) -> Expr:
    """A loaded index (any integer or float type) as an int64 index expression."""
    return cast(e, DType.int64)


def wrap_index(v: Expr, n: int) -> Expr:
    """ONNX negative index -> non-negative (v + n when v < 0), as a select so it stays exact."""
    return select(binary("lt", v, 0), v + n, v)


def clamp_index(v: Expr, lo: int, hi: int) -> Expr:
    """v clamped to [lo, hi]; selects rather than min/max keep index C types consistent."""
    return select(binary("lt", v, lo), const(lo, DType.int64), select(binary("gt", v, hi), const(hi, DType.int64), v))


def c_literal(value, dtype: DType) -> str:
    """A C literal of dtype's compute type (int64's minimum is not a valid literal in C)."""
    if dtype is DType.int64 and int(value) == -2**63:
        return "(-9223372036854775807ll - 1ll)"
    if dtype.is_float:
        return c_const(float(value), dtype)
    return c_const(value.item() if hasattr(value, "item") else value, dtype)


def emit_values(ctx: LowerCtx, values: np.ndarray, out: int = 0) -> None:
    """Emits a kernel that writes the known constant `values` to output `out`."""
    t = ctx.out_types[out]
    flat = np.asarray(values).astype(t.dtype.np, copy=False).reshape(-1)
    n = flat.size
    if n != t.size:
        raise ctx.unsupported(f"constant has {n} elements, output {t} expects {t.size}")
    if n == 0:
        return
    if n > MAX_INLINE_VALUES:
        raise ctx.unsupported(f"constant output of {n} elements must be folded by the frontend")
    if t.dtype is DType.bfloat16:
        flat = flat.astype(np.float32)
    ct = t.dtype.compute_ctype
    table = ", ".join(c_literal(v, t.dtype) for v in flat.tolist())
    body = (f"  static const {ct} values[{n}] = {{{table}}};\n"
            f"  for (long long i = (long long){BLOCK_X} * blockDim.x + threadIdx.x; i < {n}ll; "
            f"i += (long long){GRID_X} * blockDim.x) out[i] = ({t.dtype.ctype})values[i];\n")
    entry, src = finish_kernel(f"{ctx.node.op.lower()}_values", [f"{t.dtype.ctype}* __restrict__ out"], body)
    threads = 256
    ctx.emit_kernel(Kernel(entry=entry, source=src, params=(KernelParam(t.dtype.ctype, ctx.out_name(out), True),),
                           grid=(max(1, min(math.ceil(n / threads), 1024)), 1, 1), block=(threads, 1, 1),
                           config=(("schedule", "constant_values"),)))


# --- views: no kernel ---------------------------------------------------------------------

def _ref_reshape(node, inputs, opset):
    x = inputs[0]
    shape = [int(v) for v in (inputs[1] if opset >= 5 else node.attr("shape"))]
    allowzero = node.attr("allowzero", 0) if opset >= 14 else 0
    if not allowzero:
        shape = [x.shape[k] if d == 0 else d for k, d in enumerate(shape)]
    return [x.reshape(shape)]


def _infer_reshape(pn, in_types: list, consts: list, bounds: list) -> Inferred | None:
    """A target shape known only at run time whose elements are bounded (frontend/element_bounds.py:
    torchvision's `boxes.reshape(boxes.shape)` after a clip, the Shape of a list of run-time
    length): the data's static (padded) extents reshaped. Where every element not pinned is a
    value's extent (its source), those at their upper bounds (a -1 among the pinned ones is then
    what the element count leaves); else, with one element not pinned, what the count leaves, as a
    -1 would be. A valid model's elements are exactly those at run time; the lowering follows the
    data's run-time axis through the view where it survives whole, refuses a view that mixes rows
    (passes/bounded_rows.py), and checks that an element measuring a run-time axis lands on the
    data's (`extent_sources`: (output axis, value, the value's axis) triples). Else None: ONNX's
    inference (a constant shape, or one it refuses)."""
    x = in_types[0]
    b = bounds[1] if len(bounds) > 1 else None
    if len(pn.input) < 2 or consts[1] is not None or b is None or x is None:
        return None
    lower, upper, source = (np.asarray(v).reshape(-1) for v in b)
    free = [a for a in range(upper.size) if lower[a] != upper[a]]
    pinned = [a for a in range(upper.size) if a not in free]
    if not free or not np.all(np.isfinite(lower[pinned].astype(np.float64))):
        return None
    shape = [int(v) if a in pinned else -1 for a, v in enumerate(lower)]
    if not next((a.i for a in pn.attribute if a.name == "allowzero"), 0):    # a 0 copies the data's extent
        if any(shape[a] == 0 and a >= x.rank for a in pinned):
            return None
        shape = [x.shape[a] if a in pinned and d == 0 else d for a, d in enumerate(shape)]
    if all(source[a] is not None and np.isfinite(float(upper[a])) for a in free):
        for a in free:
            shape[a] = int(upper[a])      # values' extents: at their bounds, a -1 among the rest
    elif len(free) != 1:
        return None
    unknown = [a for a, d in enumerate(shape) if d < 0]
    if len(unknown) > 1 or any(d < -1 for d in shape):
        return None
    rest = math.prod(d for d in shape if d >= 0)
    if unknown:
        if rest == 0 or x.size % rest:
            return None
        shape[unknown[0]] = x.size // rest
    elif rest != x.size:
        return None
    sources = tuple((a, source[a][0], int(source[a][1])) for a in free if source[a] is not None)
    return Inferred([TensorType(x.dtype, tuple(shape))], (("extent_sources", sources),) if sources else ())


def _ref_flatten(node, inputs, opset):
    x = inputs[0]
    axis = norm_axis(node.attr("axis", 1), x.ndim)
    return [x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:]))]


def _squeeze_axes(node, inputs, opset):
    axes = node.attr("axes") if opset < 13 else opt(inputs, 1)
    return None if axes is None else [int(a) for a in np.asarray(axes).reshape(-1)]


def _ref_squeeze(node, inputs, opset):
    x = inputs[0]
    axes = _squeeze_axes(node, inputs, opset)
    if axes is None:
        return [x.reshape([d for d in x.shape if d != 1])]
    return [np.squeeze(x, axis=tuple(norm_axis(a, x.ndim) for a in axes))]


def _ref_unsqueeze(node, inputs, opset):
    x = inputs[0]
    axes = _squeeze_axes(node, inputs, opset)
    rank = x.ndim + len(axes)
    shape = list(x.shape)
    for a in sorted(norm_axis(a, rank) for a in axes):
        shape.insert(a, 1)
    return [x.reshape(shape)]


def _ref_identity(node, inputs, opset):
    return [np.array(inputs[0], copy=True)]


def _lower_view(ctx: LowerCtx) -> None:
    ctx.alias(ctx.out_name(0), ctx.in_name(0))


@register("Reshape", reference=_ref_reshape, infer=_infer_reshape, infer_bounds=True)
def lower_reshape(ctx: LowerCtx) -> None:
    """A view. A target shape measured from values of run-time length (`extent_sources`, from
    _infer_reshape): where the value measured is run-time on that very axis, the element is that
    length, so the data's run-time rows must be that axis of the view (the lowering then follows
    them there, passes/bounded_rows.py)."""
    _check_extent_sources(ctx, lambda axis: view_axis(ctx.input(0).shape, ctx.out_types[0].shape, axis))
    _lower_view(ctx)
    _merged_rows(ctx)


def _merged_rows(ctx: LowerCtx) -> None:
    """A view that merges the rows of a run-time length with the axes after them (`boxes.reshape(-1,
    4)` of [n, 90, 4]): where nothing precedes those rows (the real elements are the buffer's first
    ones), or the axes before them are the view's first axes unchanged (the real elements first in
    each of their slices: [2, n, 3] viewed as [2, 3n]), and the view's next axis longer than 1
    holds whole rows' worth of elements, that axis has the real length n * (elements a row /
    elements an output row), a count of its own computed on the device. Else (the rows survive
    whole, or the view mixes them) passes/bounded_rows.py."""
    x, y = ctx.input(0), ctx.out_types[0]
    rows = ctx.run_time_extent(0)
    if rows is None or view_axis(x.shape, y.shape, rows[1]) is not None:
        return
    lead = 0 if math.prod(x.shape[:rows[1]]) == 1 else rows[1]
    if lead and tuple(y.shape[:lead]) != tuple(x.shape[:lead]):
        return
    at = next((d for d in range(lead, len(y.shape)) if y.shape[d] != 1), None)
    row, inner = math.prod(x.shape[rows[1] + 1:]), math.prod(y.shape[at + 1:]) if at is not None else 1
    if at is None or row % inner or y.shape[at] != x.shape[rows[1]] * (row // inner):
        return
    scalar = TensorType(DType.int64, ())
    te = TensorExpr("merged_rows", (scalar,), scalar, binary("mul", load(0, scalar, ()), const(row // inner, DType.int64)))
    count = ctx.shared_temp(f"merged_rows {rows[0]} {row // inner}", scalar, "merged_rows",
                            lambda out: ctx.emit(te, [rows[0]], out))
    ctx.set_run_time_extent(0, count, at)


def _check_extent_sources(ctx: LowerCtx, rows_at, skip: frozenset[int] = frozenset()) -> None:
    """For each element of a target shape that measured a value's axis (`extent_sources`: (output
    axis, value, the value's axis)) where that axis is the value's run-time one: the output axis
    must hold the data's run-time rows (`rows_at(data axis)` gives where they land), since the
    element is their length. Where the axis measured is static, the element is that static extent,
    the one the output was sized by. Output axes in `skip` are the caller's (Expand's broadcasts)."""
    for out_axis, value, value_axis in ctx.attr("extent_sources") or ():
        found = ctx.run_time_extent_of(value)
        if found is None or found[1] != value_axis or out_axis in skip:
            continue
        data = ctx.run_time_extent(0)
        if data is None or rows_at(data[1]) != out_axis:
            raise ShapeError(f"{ctx.node.op} to a shape measured from '{value}' (its axis {value_axis}, of "
                             f"length known only at run time): its axis {out_axis} is not the run-time rows "
                             f"of '{ctx.in_name(0)}'", node=ctx.node.name,
                             hint="Brickyard gives a value of run-time length a new shape only where its rows stay whole")


for _op, _ref in (("Flatten", _ref_flatten), ("Squeeze", _ref_squeeze), ("Unsqueeze", _ref_unsqueeze),
                  ("Identity", _ref_identity)):
    register(_op, reference=_ref)(_lower_view)


# --- Transpose, Concat, Split, Slice -------------------------------------------------------

def _perm(node, rank):
    perm = node.attr("perm")
    return list(reversed(range(rank))) if perm is None else [norm_axis(p, rank) for p in perm]


def _ref_transpose(node, inputs, opset):
    x = inputs[0]
    return [np.ascontiguousarray(np.transpose(x, _perm(node, x.ndim)))]


@register("Transpose", reference=_ref_transpose)
def lower_transpose(ctx: LowerCtx) -> None:
    """out[i] = x[i permuted back]: output axis k reads input axis perm[k]."""
    x, y = ctx.input(0), ctx.out_types[0]
    perm = _perm(ctx.node, x.rank)
    i = out_vars(y.rank)
    idx = [None] * x.rank
    for k, p in enumerate(perm):
        idx[p] = i[k]
    emit_expr(ctx, "transpose", [0], load(0, x, idx))


def _ref_concat(node, inputs, opset):
    axis = norm_axis(node.attr("axis"), inputs[0].ndim)
    return [np.concatenate(inputs, axis=axis)]


@register("Concat", reference=_ref_concat)
def lower_concat(ctx: LowerCtx) -> None:
    """Nested select over the inputs' ranges along the axis (lazy: one load per element)."""
    y = ctx.out_types[0]
    axis = norm_axis(ctx.attr("axis"), y.rank)
    i = out_vars(y.rank)
    parts, off = [], 0
    for k, t in enumerate(ctx.in_types):
        if t.shape[axis] > 0:
            parts.append((k, off, t))
            off += t.shape[axis]
    if not parts:
        return
    # (one part is a copy, which keeps its rows' count: `torch.cat([boxes])` of a single image)
    if len(parts) > 1 and any(ctx.run_time_extent(k) is not None and ctx.run_time_extent(k)[1] == axis
                              for k, _, _ in parts):
        _lower_concat_run_time(ctx, parts, axis)
        return
    body = None
    for pos, (k, o, t) in reversed(list(enumerate(parts))):
        idx = list(i)
        idx[axis] = i[axis] - o
        v = load(pos, t, idx)
        body = v if body is None else select(binary("lt", i[axis], o + t.shape[axis]), v, body)
    emit_expr(ctx, "concat", [k for k, _, _ in parts], body)


def _lower_concat_run_time(ctx: LowerCtx, parts: list, axis: int) -> None:
    """Concat along an axis some inputs have a length of only known at run time (a detector's
    per-level candidates joined): each input's rows at the sum of the real lengths before it (the
    running sums computed first, into a vector of their own), zeros after the last; the output's
    run-time length, the sum, written to a scalar of its own."""
    y, i = ctx.out_types[0], out_vars(ctx.out_types[0].rank)
    scalar = TensorType(DType.int64, ())
    other = [k for k, _, _ in parts if ctx.run_time_extent(k) is not None and ctx.run_time_extent(k)[1] != axis]
    if other:
        raise ShapeError(f"Concat along axis {axis} of '{ctx.in_name(other[0])}', whose length is known only at run "
                         f"time on axis {ctx.run_time_extent(other[0])[1]}: the output would have two such axes",
                         node=ctx.node.name)
    # the inputs' real lengths: their run-time scalars (read after `first` inputs), else static
    counts = [ctx.run_time_extent(k)[0] if ctx.run_time_extent(k) is not None else None for k, _, _ in parts]
    scalars = list(dict.fromkeys(c for c in counts if c is not None))

    def lengths(first: int) -> list[Expr]:
        return [const(t.shape[axis], DType.int64) if c is None else
                minimum(load(first + scalars.index(c), scalar, ()), t.shape[axis])
                for (_, _, t), c in zip(parts, counts)]

    # where each input's rows end: computed once, in a kernel of their own, so the join reads one
    # value per input (a running sum written into every input's test would grow with their square)
    ends_t = TensorType(DType.int64, (len(parts),))
    ends_body = const(0, DType.int64)
    for k, n in enumerate(lengths(0)):
        ends_body = binary("add", ends_body, select(binary("le", const(k, DType.int64), out_vars(1)[0]), n,
                                                    const(0, DType.int64)))
    ends_te = TensorExpr("concat_rows_ends", (scalar,) * len(scalars), ends_t, ends_body)
    # one value for every Concat of the same lengths: their outputs' rows line up
    ends = ctx.shared_temp(f"concat_rows_ends {ends_te.key} {scalars}", ends_t, "concat_rows_ends",
                           lambda out: ctx.emit(ends_te, scalars, out))

    def end(pos: int) -> Expr:
        return load(len(parts), ends_t, (const(pos, DType.int64),))
    body = const(0, y.dtype)
    for pos in reversed(range(len(parts))):
        idx = list(i)
        idx[axis] = binary("sub", i[axis], end(pos - 1)) if pos else i[axis]
        body = select(binary("lt", i[axis], end(pos)), load(pos, parts[pos][2], idx), body)
    ctx.emit(TensorExpr("concat_rows", tuple(t for _, _, t in parts) + (ends_t,), y, body),
             [ctx.in_name(k) for k, _, _ in parts] + [ends], ctx.out_name())
    te = TensorExpr("concat_rows_count", (ends_t,), scalar, load(0, ends_t, (const(len(parts) - 1, DType.int64),)))
    count = ctx.shared_temp(f"concat_rows {te.key} {ends}", scalar, "concat_rows",
                            lambda out: ctx.emit(te, [ends], out))
    ctx.set_run_time_extent(0, count, axis)


def _split_sizes(node, inputs, opset, dim, n_out):
    split = node.attr("split") if opset < 13 else opt(inputs, 1)
    if split is not None and np.asarray(split).size > 0:
        return [int(s) for s in np.asarray(split).reshape(-1)]
    n = node.attr("num_outputs", n_out) if opset >= 18 else n_out
    chunk = -(-dim // n)
    return [min(chunk, max(dim - chunk * k, 0)) for k in range(n)]


def _ref_split(node, inputs, opset):
    x = inputs[0]
    axis = norm_axis(node.attr("axis", 0), x.ndim)
    sizes = _split_sizes(node, inputs, opset, x.shape[axis], len(node.outputs))
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


@register("Split", reference=_ref_split)
def lower_split(ctx: LowerCtx) -> None:
    """One kernel per output; each output's offset follows from the outputs' static extents."""
    x = ctx.input(0)
    axis = norm_axis(ctx.attr("axis", 0), x.rank)
    off = 0
    for o, y in enumerate(ctx.out_types):
        i = out_vars(y.rank)
        idx = list(i)
        idx[axis] = i[axis] + off
        emit_expr(ctx, "split", [0], load(0, x, idx), out=o)
        off += y.shape[axis]


def slice_params(node, inputs, opset, shape):
    """Per axis of the input: (start, step, count) under ONNX clamping rules."""
    if opset < 10:
        starts, ends, axes, steps = node.attr("starts"), node.attr("ends"), node.attr("axes"), None
    else:
        starts, ends, axes, steps = inputs[1], inputs[2], opt(inputs, 3), opt(inputs, 4)
    starts = [int(v) for v in np.asarray(starts).reshape(-1)]
    ends = [int(v) for v in np.asarray(ends).reshape(-1)]
    axes = list(range(len(starts))) if axes is None else [norm_axis(a, len(shape)) for a in np.asarray(axes).reshape(-1)]
    steps = [1] * len(starts) if steps is None else [int(v) for v in np.asarray(steps).reshape(-1)]
    params = [(0, 1, d) for d in shape]
    for a, s, e, st in zip(axes, starts, ends, steps):
        d = shape[a]
        if st == 0:
            raise ValueError("Slice step must not be 0")
        s = s + d if s < 0 else s
        e = e + d if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), d), min(max(e, 0), d)
            count = max(0, -(-(e - s) // st))
        else:
            s, e = min(max(s, 0), d - 1), min(max(e, -1), d - 1)
            count = max(0, -(-(s - e) // -st))
        params[a] = (s, st, count)
    return params


def _ref_slice(node, inputs, opset):
    x = inputs[0]
    out = x
    for a, (s, st, count) in enumerate(slice_params(node, inputs, opset, x.shape)):
        out = np.take(out, s + st * np.arange(count, dtype=np.int64), axis=a)
    return [out]


def _infer_slice(pn, in_types: list, consts: list, bounds: list) -> Inferred | None:
    """Ends known only at run time, each not pinned a value's extent (frontend/element_bounds.py:
    torchvision's `boxes.split(boxes_per_image)` of one image, a slice to the Shape of the list):
    the slice to their upper bounds (`ends_at_bounds`), starts, axes and steps constant. The
    lowering checks each end that measures a run-time axis (`extent_sources`: (data axis, value,
    the value's axis)) takes the data's whole run-time rows there. Else None: ONNX's inference."""
    x = in_types[0]
    b = bounds[2] if len(bounds) > 2 else None
    if (x is None or len(pn.input) < 3 or consts[2] is not None or b is None or consts[1] is None
            or any(k < len(pn.input) and pn.input[k] and consts[k] is None for k in (3, 4))):
        return None
    lower, upper, source = (np.asarray(v).reshape(-1) for v in b)
    free = [k for k in range(upper.size) if lower[k] != upper[k]]
    if not np.all(np.isfinite(upper.astype(np.float64))) or any(source[k] is None for k in free):
        return None
    ends = tuple(int(v) for v in upper)
    axes = consts[3] if len(consts) > 3 and consts[3] is not None else np.arange(len(ends))
    axes = [norm_axis(int(a), x.rank) for a in np.asarray(axes).reshape(-1)]
    try:
        params = slice_params(None, [None, consts[1], np.array(ends)] + list(consts[3:5]), 13, x.shape)
    except ValueError:
        return None
    sources = tuple((axes[k], source[k][0], int(source[k][1])) for k in free)
    return Inferred([TensorType(x.dtype, tuple(n for _, _, n in params))],
                    (("ends_at_bounds", ends), ("extent_sources", sources)))


@register("Slice", reference=_ref_slice, infer=_infer_slice, infer_bounds=True)
def lower_slice(ctx: LowerCtx) -> None:
    """out[i] = x[start + i * step] per axis; starts/axes/steps must be constants, and the ends, or
    bounded by values' extents (`ends_at_bounds`, _infer_slice): an end that is a run-time length
    must be the data's own rows' (the same count), taken whole from 0, so the slice is a view of
    them; an end that measured a static extent is that extent."""
    x = ctx.input(0)
    at_bounds = ctx.attr("ends_at_bounds")
    if ctx.opset >= 10:
        for k, what in ((1, "starts"), (2, "ends"), (3, "axes"), (4, "steps")):
            if ctx.has_input(k) and not (k == 2 and at_bounds is not None):
                ctx.require_const(k, what)
    inputs = [None] + [ctx.const(k) for k in range(1, len(ctx.node.inputs))]
    if at_bounds is not None:
        inputs[2] = np.array(at_bounds, np.int64)
    params = slice_params(ctx.node, inputs, ctx.opset, x.shape)
    for axis, value, value_axis in ctx.attr("extent_sources") or ():
        found = ctx.run_time_extent_of(value)
        if found is None or found[1] != value_axis:
            continue      # a static extent: the end is the one the output was sized by
        if ctx.run_time_extent(0) != (found[0], axis) or params[axis] != (0, 1, x.shape[axis]):
            raise ShapeError(f"Slice to an end measured from '{value}' (its axis {value_axis}, of length known "
                             f"only at run time) that is not all the run-time rows of '{ctx.in_name(0)}' on "
                             f"axis {axis}", node=ctx.node.name,
                             hint="Brickyard slices a value of run-time length at a run-time end only where "
                             "the slice takes its rows whole")
    i = out_vars(x.rank)
    emit_expr(ctx, "slice", [0], load(0, x, [s + st * v for (s, st, _), v in zip(params, i)]))


# --- Expand, Tile ------------------------------------------------------------------------

def _ref_expand(node, inputs, opset):
    x, shape = inputs[0], [int(v) for v in inputs[1].reshape(-1)]
    return [np.array(np.broadcast_to(x, np.broadcast_shapes(x.shape, tuple(shape))))]


def _infer_expand(pn, in_types: list, consts: list, bounds: list) -> Inferred | None:
    """A target shape known only at run time whose elements are bounded (element_bounds.py:
    torchvision's MultiScaleRoIAlign expands a list of run-time length to the Shape of another).
    An element not pinned facing an axis of the data longer than 1 is that axis (a valid model's
    element is 1 or the data's extent there: broadcasting gives the data's). One facing an axis of
    1 is sized at its upper bound where it measures a value's axis (the import cannot always tell
    which of a value's axes is the run-time one; where it is, the lowering gives the output that
    value's count, `labels.expand_as(scores)`), else None, as for any other shape ONNX's inference
    refuses. `extent_sources` as Reshape's."""
    x = in_types[0]
    b = bounds[1] if len(bounds) > 1 else None
    if len(pn.input) < 2 or consts[1] is not None or b is None or x is None:
        return None
    lower, upper, source = (np.asarray(v).reshape(-1) for v in b)
    rank = max(x.rank, upper.size)
    data = (1,) * (rank - x.rank) + x.shape
    shape, sources = [], []
    for a in range(rank):
        k = a - (rank - upper.size)        # the shape's element facing output axis a
        if k < 0:
            shape.append(data[a])
        elif lower[k] == upper[k] and np.isfinite(float(lower[k])):
            n = int(lower[k])
            if data[a] != 1 and n not in (1, data[a]):
                return None
            shape.append(data[a] if n == 1 else n)
        elif data[a] != 1 or source[k] is not None and np.isfinite(float(upper[k])):
            shape.append(data[a] if data[a] != 1 else int(upper[k]))
            if source[k] is not None:
                sources.append((a, source[k][0], int(source[k][1])))
        else:
            return None
    return Inferred([TensorType(x.dtype, tuple(shape))], (("extent_sources", tuple(sources)),) if sources else ())


@register("Expand", reference=_ref_expand, infer=_infer_expand, infer_bounds=True)
def lower_expand(ctx: LowerCtx) -> None:
    """A broadcast by index. A target shape measured from values of run-time length: an axis of 1
    broadcast to one takes its count (the rows past it are copies too, padding); else, as Reshape's
    (`_check_extent_sources`), the data's run-time axis must be the one measured, right-aligned."""
    x, y = ctx.input(0), ctx.out_types[0]
    data = (1,) * (y.rank - x.rank) + x.shape
    grown = []      # axes broadcast from 1 to a run-time length: the output takes that length's count
    for out_axis, value, value_axis in ctx.attr("extent_sources") or ():
        found = ctx.run_time_extent_of(value)
        if found is not None and found[1] == value_axis and data[out_axis] == 1:
            grown.append((out_axis, found[0]))
    if grown and (len(grown) > 1 or ctx.run_time_extent(0) is not None):
        raise ShapeError(f"Expand to a shape with {len(grown) + (ctx.run_time_extent(0) is not None)} axes of "
                         "lengths known only at run time: a value has at most one", node=ctx.node.name)
    _check_extent_sources(ctx, lambda axis: axis + y.rank - x.rank, skip={a for a, _ in grown})
    emit_expr(ctx, "expand", [0], load(0, x, broadcast_index(y.shape, x.shape, out_vars(y.rank))))
    if grown:
        ctx.set_run_time_extent(0, grown[0][1], grown[0][0])


def _ref_tile(node, inputs, opset):
    return [np.tile(inputs[0], [int(r) for r in inputs[1].reshape(-1)])]


@register("Tile", reference=_ref_tile)
def lower_tile(ctx: LowerCtx) -> None:
    """out[i] = x[i mod d] per axis (the repeats are implied by the static output shape)."""
    x, y = ctx.input(0), ctx.out_types[0]
    i = out_vars(y.rank)
    emit_expr(ctx, "tile", [0], load(0, x, [v % d if d != n else v for v, d, n in zip(i, x.shape, y.shape)]))


# --- Pad, CenterCropPad ------------------------------------------------------------------

def pad_params(node, inputs, opset, rank):
    """(pads as [begin..., end...] over all axes, mode, constant value or None for 'from input')."""
    mode = text(node.attr("mode", "constant"))
    if opset < 11:
        pads = list(node.attr("pads"))
        return pads, mode, float(node.attr("value", 0.0))
    pads = [int(p) for p in np.asarray(inputs[1]).reshape(-1)]
    axes = opt(inputs, 3) if opset >= 18 else None
    if axes is not None:
        axes = [norm_axis(a, rank) for a in np.asarray(axes).reshape(-1)]
        full = [0] * (2 * rank)
        for k, a in enumerate(axes):
            full[a], full[a + rank] = pads[k], pads[k + len(axes)]
        pads = full
    return pads, mode, None


def _ref_pad(node, inputs, opset):
    x = inputs[0]
    pads, mode, value = pad_params(node, inputs, opset, x.ndim)
    if value is None:
        cv = opt(inputs, 2)
        value = cv.reshape(-1)[0] if cv is not None and cv.size else 0
    r = x.ndim
    # negative pads crop first, then the positive ones pad
    x = x[tuple(slice(max(-pads[a], 0), x.shape[a] - max(-pads[a + r], 0)) for a in range(r))]
    widths = [(max(pads[a], 0), max(pads[a + r], 0)) for a in range(r)]
    if mode == "constant":
        return [np.pad(x, widths, mode="constant", constant_values=np.array(value).astype(x.dtype))]
    if mode in ("reflect", "edge", "wrap"):
        return [np.pad(x, widths, mode=mode)]
    raise ValueError(f"Pad mode {mode!r}")


def _source_index(p: Expr, d: int, mode: str) -> Expr:
    """The input index an output position p (in input coordinates) reads under a pad mode."""
    if mode == "edge":
        return clamp_index(p, 0, d - 1)
    if mode == "wrap":
        m = p % d
        return select(binary("lt", m, 0), m + d, m)
    if mode == "reflect":
        if d == 1:
            return const(0, DType.int64)
        period = 2 * (d - 1)
        m = p % period
        m = select(binary("lt", m, 0), m + period, m)
        return select(binary("lt", m, d), m, period - m)
    raise ValueError(mode)


@register("Pad", reference=_ref_pad)
def lower_pad(ctx: LowerCtx) -> None:
    """Pads read x at i - begin; constant mode guards the load, the others fold the index back."""
    x, y = ctx.input(0), ctx.out_types[0]
    if ctx.opset >= 11:
        ctx.require_const(1, "pads")
        if ctx.opset >= 18 and ctx.has_input(3):
            ctx.require_const(3, "axes")
    inputs = [None] + [ctx.const(k) for k in range(1, len(ctx.node.inputs))]
    pads, mode, value = pad_params(ctx.node, inputs, ctx.opset, x.rank)
    if mode not in ("constant", "reflect", "edge", "wrap"):
        raise ctx.unsupported(f"mode {mode}")
    r = x.rank
    i = out_vars(r)
    src = [v - pads[a] for a, v in enumerate(i)]
    if mode != "constant":
        if any(p < 0 for p in pads):
            raise ctx.unsupported(f"negative pads (cropping) with mode {mode}")
        if any(x.shape[a] == 0 and y.shape[a] > 0 for a in range(r)):
            raise ctx.empty_error(f"{mode} padding of an empty axis has no values to repeat")
        emit_expr(ctx, "pad", [0], load(0, x, [_source_index(p, x.shape[a], mode) if pads[a] or pads[a + r] else p
                                               for a, p in enumerate(src)]))
        return
    inside = const(True, DType.bool)
    for a, p in enumerate(src):
        if pads[a] > 0 or pads[a + r] > 0:
            inside = logical_and(inside, in_range(p, 0, x.shape[a]))
    args = [0]
    if value is not None:
        fill = const(value, x.dtype)
    elif ctx.has_input(2):
        cv = ctx.input(2)
        args.append(2)
        fill = load(1, cv, [0] * cv.rank)
    else:
        fill = const(0, x.dtype)
    emit_expr(ctx, "pad", args, select(inside, load(0, x, src), fill))


def _crop_pad_offsets(node, inputs, shape):
    """Per axis: offset so that out[i] = x[i + offset] (negative when padding)."""
    rank = len(shape)
    target = [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
    axes = node.attr("axes")
    axes = list(range(rank)) if axes is None else [norm_axis(a, rank) for a in axes]
    offsets, out_shape = [0] * rank, list(shape)
    for a, s in zip(axes, target):
        d = shape[a]
        offsets[a] = (d - s) // 2 if s < d else -((s - d) // 2)
        out_shape[a] = s
    return offsets, out_shape


def _ref_center_crop_pad(node, inputs, opset):
    x = inputs[0]
    offsets, out_shape = _crop_pad_offsets(node, inputs, x.shape)
    out = np.zeros(out_shape, dtype=x.dtype)
    dst, src = [], []
    for a, (o, s, d) in enumerate(zip(offsets, out_shape, x.shape)):
        lo = max(0, -o)
        hi = min(s, d - o)
        dst.append(slice(lo, hi))
        src.append(slice(lo + o, hi + o))
    out[tuple(dst)] = x[tuple(src)]
    return [out]


@register("CenterCropPad", reference=_ref_center_crop_pad)
def lower_center_crop_pad(ctx: LowerCtx) -> None:
    x = ctx.input(0)
    offsets, out_shape = _crop_pad_offsets(ctx.node, [None, ctx.require_const(1, "shape")], x.shape)
    i = out_vars(x.rank)
    src = [v + o for v, o in zip(i, offsets)]
    inside = const(True, DType.bool)
    for a, (p, o, n) in enumerate(zip(src, offsets, out_shape)):
        if o < 0 or o + n > x.shape[a]:   # padded on either side (an odd pad of 1 has offset 0)
            inside = logical_and(inside, in_range(p, 0, x.shape[a]))
    emit_expr(ctx, "center_crop_pad", [0], select(inside, load(0, x, src), const(0, x.dtype)))


# --- DepthToSpace, SpaceToDepth -------------------------------------------------------------

def _ref_depth_to_space(node, inputs, opset):
    x = inputs[0]
    b = node.attr("blocksize")
    n, c, h, w = x.shape
    if text(node.attr("mode", "DCR")) == "DCR":
        t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return [np.ascontiguousarray(t).reshape(n, c // (b * b), h * b, w * b)]


@register("DepthToSpace", reference=_ref_depth_to_space)
def lower_depth_to_space(ctx: LowerCtx) -> None:
    x, y = ctx.input(0), ctx.out_types[0]
    b = int(ctx.attr("blocksize"))
    n, c, h, w = out_vars(4)
    co = y.shape[1]
    bh, bw = h % b, w % b
    if text(ctx.attr("mode", "DCR")) == "DCR":
        ci = (bh * b + bw) * co + c
    else:
        ci = c * (b * b) + bh * b + bw
    emit_expr(ctx, "depth_to_space", [0], load(0, x, (n, ci, h // b, w // b)))


def _ref_space_to_depth(node, inputs, opset):
    x = inputs[0]
    b = node.attr("blocksize")
    n, c, h, w = x.shape
    # DCR (the default, and the only layout before the mode attribute): block offsets outermost
    perm = (0, 3, 5, 1, 2, 4) if text(node.attr("mode", "DCR")) == "DCR" else (0, 1, 3, 5, 2, 4)
    t = x.reshape(n, c, h // b, b, w // b, b).transpose(perm)
    return [np.ascontiguousarray(t).reshape(n, c * b * b, h // b, w // b)]


@register("SpaceToDepth", reference=_ref_space_to_depth)
def lower_space_to_depth(ctx: LowerCtx) -> None:
    x = ctx.input(0)
    b = int(ctx.attr("blocksize"))
    n, c, h, w = out_vars(4)
    ci = x.shape[1]
    if text(ctx.attr("mode", "DCR")) == "DCR":
        blk, ch = c // ci, c % ci
    else:
        blk, ch = c % (b * b), c // (b * b)
    emit_expr(ctx, "space_to_depth", [0], load(0, x, (n, ch, h * b + blk // b, w * b + blk % b)))


# --- ReverseSequence, Trilu, EyeLike ---------------------------------------------------------

def _ref_reverse_sequence(node, inputs, opset):
    x, lens = inputs[0], inputs[1]
    ba, ta = node.attr("batch_axis", 1), node.attr("time_axis", 0)
    out = np.array(x, copy=True)
    for b, n in enumerate(lens.reshape(-1).tolist()):
        src = [slice(None)] * x.ndim
        src[ba], src[ta] = b, slice(0, n)
        dst = list(src)
        dst[ta] = slice(n - 1, None, -1) if n > 0 else slice(0, 0)
        out[tuple(dst)] = x[tuple(src)]
    return [out]


@register("ReverseSequence", reference=_ref_reverse_sequence)
def lower_reverse_sequence(ctx: LowerCtx) -> None:
    x, lens_t = ctx.input(0), ctx.input(1)
    ba, ta = int(ctx.attr("batch_axis", 1)), int(ctx.attr("time_axis", 0))
    i = out_vars(x.rank)
    n = index_value(load(1, lens_t, (i[ba],)))
    idx = list(i)
    idx[ta] = select(binary("lt", i[ta], n), n - 1 - i[ta], i[ta])
    emit_expr(ctx, "reverse_sequence", [0, 1], load(0, x, idx))


def _ref_trilu(node, inputs, opset):
    x = inputs[0]
    k = opt(inputs, 1)
    k = int(np.asarray(k).reshape(-1)[0]) if k is not None else 0
    return [np.triu(x, k) if node.attr("upper", 1) else np.tril(x, k)]


@register("Trilu", reference=_ref_trilu)
def lower_trilu(ctx: LowerCtx) -> None:
    """Keeps x where col - row >= k (upper) or <= k (lower); k may be a runtime scalar."""
    x = ctx.input(0)
    i = out_vars(x.rank)
    args = [0]
    kt = ctx.input(1) if ctx.node.has_input(1) else None
    if kt is None:
        k = const(0, DType.int64)
    elif ctx.const(1) is not None:
        k = const(int(np.asarray(ctx.const(1)).reshape(-1)[0]), DType.int64)
    else:
        args.append(1)
        k = index_value(load(1, kt, [0] * kt.rank))
    diff = i[-1] - i[-2]
    keep = binary("ge", diff, k) if ctx.attr("upper", 1) else binary("le", diff, k)
    emit_expr(ctx, "trilu", args, select(keep, load(0, x, i), const(0, x.dtype)))


def _ref_eye_like(node, inputs, opset):
    x = inputs[0]
    dt = node.attr("dtype")
    dtype = DType.from_onnx(dt).np if dt is not None else x.dtype
    return [np.eye(x.shape[0], x.shape[1], k=node.attr("k", 0), dtype=dtype)]


@register("EyeLike", reference=_ref_eye_like)
def lower_eye_like(ctx: LowerCtx) -> None:
    y = ctx.out_types[0]
    r, c = out_vars(2)
    one = binary("eq", c - r, const(int(ctx.attr("k", 0)), DType.int64))
    emit_expr(ctx, "eye_like", [], select(one, const(1, y.dtype), const(0, y.dtype)))




# --- Resize (and Upsample, its predecessor) ------------------------------------------------
# Separable per axis: each output coordinate maps to a source coordinate x (float64, the same
# operations in the same order as the reference so nearest-mode ties agree bit for bit); nearest
# picks one source index, linear and cubic sum 2 or 4 taps around ceil(x) - 1 with edge clamping.

def _resize_attrs(node, opset):
    if node.op == "Upsample" or opset < 11:
        return {"mode": text(node.attr("mode", "nearest")), "ctm": "asymmetric", "nearest": "floor",
                "A": -0.75, "exclude": 0, "extrap": 0.0, "policy": "stretch", "antialias": 0, "axes": None}
    return {"mode": text(node.attr("mode", "nearest")),
            "ctm": text(node.attr("coordinate_transformation_mode", "half_pixel")),
            "nearest": text(node.attr("nearest_mode", "round_prefer_floor")),
            "A": float(node.attr("cubic_coeff_a", -0.75)), "exclude": int(node.attr("exclude_outside", 0)),
            "extrap": float(node.attr("extrapolation_value", 0.0)),
            "policy": text(node.attr("keep_aspect_ratio_policy", "stretch")),
            "antialias": int(node.attr("antialias", 0)), "axes": node.attr("axes")}


def _nonempty(a):
    return None if a is None or np.asarray(a).size == 0 else np.asarray(a)


class RuntimeRoi:
    """tf_crop_and_resize's roi read at run time: its start and end of one axis are roi[start]
    and roi[end] (resize_plan's placeholder for the pair the lowering loads)."""

    def __init__(self, start: int, end: int):
        self.start, self.end = start, end


def resize_plan(node, inputs, opset, shape, runtime_roi: bool = False):
    """Per axis (scale, output extent, roi pair or None), following the reference's rules;
    `runtime_roi`: roi is an input known only at run time (its pairs RuntimeRoi)."""
    r = len(shape)
    at = _resize_attrs(node, opset)
    if node.op == "Upsample":
        scales = node.attr("scales") if opset < 9 else inputs[1]
        roi, sizes = None, None
    elif opset < 11:
        roi, scales, sizes = None, inputs[1], None
    else:
        roi, scales, sizes = _nonempty(opt(inputs, 1)), _nonempty(opt(inputs, 2)), _nonempty(opt(inputs, 3))
    scales = None if _nonempty(scales) is None else [float(s) for s in np.asarray(scales).reshape(-1)]
    sizes = None if sizes is None else [int(s) for s in sizes.reshape(-1)]
    axes = at["axes"]
    axes = list(range(r)) if axes is None else [norm_axis(a, r) for a in axes]
    roi_pairs = [None] * r
    if runtime_roi and at["ctm"] == "tf_crop_and_resize":
        n = len(axes)
        for k, a in enumerate(axes):
            roi_pairs[a] = RuntimeRoi(k, n + k)
        for a in range(r):
            if roi_pairs[a] is None:
                roi_pairs[a] = (np.float32(0.0), np.float32(1.0))
    elif roi is not None and at["ctm"] == "tf_crop_and_resize":
        roi = roi.reshape(-1)
        n = len(axes)
        for k, a in enumerate(axes):
            roi_pairs[a] = (roi[k], roi[n + k])
        for a in range(r):
            if roi_pairs[a] is None:
                roi_pairs[a] = (np.float32(0.0), np.float32(1.0))
    if sizes is not None:
        out = list(shape)
        for k, a in enumerate(axes):
            out[a] = sizes[k]
        sf = [out[a] / shape[a] for a in range(r)]
        if at["policy"] != "stretch":
            pick = min if at["policy"] == "not_larger" else max
            s = pick(sf[a] for a in axes)
            sf = [s if a in axes else 1.0 for a in range(r)]
            out = [int(s * shape[a] + 0.5) if a in axes else shape[a] for a in range(r)]
    elif scales is not None:
        sf = [1.0] * r
        for k, a in enumerate(axes):
            sf[a] = scales[k]
        out = [int(s * d) for s, d in zip(sf, shape)]
    else:
        raise ValueError("Resize needs scales or sizes")
    plan = []
    for a in range(r):
        rp = roi_pairs[a]
        identity = (a not in axes or (math.isclose(sf[a], 1.0) and out[a] == shape[a] and not isinstance(rp, RuntimeRoi) and
                    (rp is None or (math.isclose(float(rp[0]), 0.0) and math.isclose(float(rp[1]), 1.0)))))
        plan.append(None if identity else (sf[a], out[a], rp))
    return at, plan, out


def _source_coord(y, ctm, scale, d, out_int, roi):
    """x_original for output coordinate(s) y: works on NumPy float64 arrays and on Exprs alike."""
    out_w = scale * d
    if ctm == "align_corners":
        return y * 0.0 if out_w == 1 else y * float(d - 1) / (out_w - 1)
    if ctm == "asymmetric":
        return y / scale
    if ctm == "tf_crop_and_resize":
        # in the roi's float32, as the reference computes them (an expression when read at run time)
        diff, lo = roi[1] - roi[0], roi[0] * (d - 1)
        if not isinstance(diff, Expr):
            diff, lo = float(diff), float(lo)
        else:
            diff, lo = cast(diff, DType.float64), cast(lo, DType.float64)
        x = y * 0.0 + diff * (d - 1) / 2 if out_w == 1 else y * diff * float(d - 1) / (out_w - 1)
        return x + lo
    if ctm == "pytorch_half_pixel":
        return y * 0.0 - 0.5 if out_w == 1 else (y + 0.5) / scale - 0.5
    if ctm == "half_pixel":
        return (y + 0.5) / scale - 0.5
    if ctm == "half_pixel_symmetric":
        offset = (d / 2) * (1 - out_int / out_w)
        return offset + (y + 0.5) / scale - 0.5
    if ctm == "tf_half_pixel_for_nn":
        return (y + 0.5) / scale
    raise ValueError(f"coordinate_transformation_mode {ctm!r}")


def _cubic_coeffs(r, A):
    s = 1 - r
    return [((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
            ((A + 2) * r - (A + 3)) * r * r + 1,
            ((A + 2) * s - (A + 3)) * s * s + 1,
            ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A]


def _taps(mode):
    """(number of taps, offset of the first tap from base = ceil(x) - 1)."""
    return {"linear": (2, 0), "cubic": (4, -1)}[mode]


# antialias=1: the interpolation filter stretched by 1 / scale when downsampling, so every source
# pixel under an output pixel's footprint contributes; its taps' weights, normalised per output
# element (ONNX's reference defines them for linear and cubic this way)

def _antialias_taps(mode: str, scale: float) -> tuple[int, int, float]:
    """(number of taps, offset of the first from base = ceil(x) - 1, the filter's scale)."""
    s = min(scale, 1.0)
    first = int(math.floor(-(1.0 if mode == "linear" else 2.0) / s) + 1)
    return 2 - 2 * first, first, s


def _antialias_filter(mode: str, arg, A: float, lib):
    """The filter's value at `arg` source pixels from x, scaled (NumPy arrays, or expressions)."""
    if lib is np:
        u = np.abs(arg)
        if mode == "linear":
            return np.clip(1 - u, 0, 1)
        u2, u3 = u * u, u * u * u
        return np.where(u <= 1, (A + 2) * u3 - (A + 3) * u2 + 1,
                        np.where(u < 2, A * u3 - 5 * A * u2 + 8 * A * u - 4 * A, 0.0))
    u = unary("abs", arg)
    zero = const(0.0, DType.float64)
    if mode == "linear":
        return binary("max", zero, binary("min", const(1.0, DType.float64), 1 - u))
    u2 = u * u
    u3 = u * u2
    return select(binary("le", u, 1.0), (A + 2) * u3 - (A + 3) * u2 + 1,
                  select(binary("lt", u, 2.0), A * u3 - 5 * A * u2 + 8 * A * u - 4 * A, zero))


def _resize_weights(at, d, o, entry):
    """Reference: the (o, d) interpolation matrix of one axis and its extrapolation mask."""
    scale, _, roi = entry
    x = _source_coord(np.arange(o, dtype=np.float64), at["ctm"], scale, d, o, roi)
    x = np.broadcast_to(np.asarray(x, dtype=np.float64), (o,))
    base = np.ceil(x).astype(np.int64) - 1
    r = x - base
    w = np.zeros((o, d))
    rows = np.arange(o)
    if at["mode"] == "nearest":
        idx = _nearest_index(at["nearest"], x, base, r, np)
        ok = (idx >= 0) & (idx < d) if at["exclude"] else np.ones(o, bool)
        w[rows[ok], np.clip(idx, 0, d - 1)[ok]] = 1.0
    else:
        if at["antialias"]:
            n, first, s = _antialias_taps(at["mode"], scale)
            coeffs = [_antialias_filter(at["mode"], (first + t - r) * s, at["A"], np) for t in range(n)]
            total = sum(coeffs)
            coeffs = [c / total for c in coeffs]
        else:
            n, first = _taps(at["mode"])
            coeffs = [1 - r, r] if at["mode"] == "linear" else _cubic_coeffs(r, at["A"])
        taps = [base + first + t for t in range(n)]
        if at["exclude"]:
            coeffs = [np.where((tp >= 0) & (tp < d), c, 0.0) for tp, c in zip(taps, coeffs)]
            total = sum(coeffs)
            total = np.where(total == 0, 1.0, total)
            coeffs = [c / total for c in coeffs]
        for tp, c in zip(taps, coeffs):
            np.add.at(w, (rows, np.clip(tp, 0, d - 1)), c)
    extrap = (x < 0) | (x > d - 1) if at["ctm"] == "tf_crop_and_resize" else None
    return w, extrap


def _nearest_index(mode, x, base, r, lib):
    """The source index nearest_mode picks (before clamping); lib is numpy or the texpr helpers."""
    if lib is np:
        pick = {"round_prefer_floor": lambda: base + (r > 0.5), "round_prefer_ceil": lambda: base + (r >= 0.5),
                "floor": lambda: np.floor(x).astype(np.int64), "ceil": lambda: np.ceil(x).astype(np.int64)}
        return pick[mode]().astype(np.int64)
    one, zero = const(1, DType.int64), const(0, DType.int64)
    if mode == "round_prefer_floor":
        return base + select(binary("gt", r, 0.5), one, zero)
    if mode == "round_prefer_ceil":
        return base + select(binary("ge", r, 0.5), one, zero)
    if mode == "floor":
        return cast(unary("floor", x), DType.int64)
    if mode == "ceil":
        return cast(unary("ceil", x), DType.int64)
    raise ValueError(f"nearest_mode {mode!r}")


def _saturate(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.round(a), info.min, info.max).astype(dtype)
    return a.astype(dtype)


def _ref_resize(node, inputs, opset):
    x = inputs[0]
    at, plan, out = resize_plan(node, inputs, opset, x.shape)
    if at["antialias"] and at["mode"] == "nearest":
        raise UnsupportedOp(node.op, node=node.name, detail="antialias=1 with mode nearest (ONNX defines it for "
                            "linear and cubic)")
    res = x.astype(np.float64)
    for a, entry in enumerate(plan):
        if entry is None:
            continue
        w, extrap = _resize_weights(at, x.shape[a], out[a], entry)
        res = np.moveaxis(np.tensordot(w, res, axes=([1], [a])), 0, a)
        if extrap is not None:
            shape = [1] * x.ndim
            shape[a] = out[a]
            res = np.where(extrap.reshape(shape), at["extrap"], res)
    return [_saturate(res, x.dtype)]


def _check_resize_inputs(ctx: LowerCtx) -> list:
    n = len(ctx.node.inputs)
    for k in range(1, n):
        if k == 1 and _runtime_roi(ctx):
            continue
        if ctx.has_input(k) and ctx.const(k) is None:
            what = {1: "scales"} if (ctx.node.op == "Upsample" or ctx.opset < 11) else {1: "roi", 2: "scales", 3: "sizes"}
            ctx.require_const(k, what.get(k, "input"))
    return [None] + [ctx.const(k) for k in range(1, n)]


def _runtime_roi(ctx: LowerCtx) -> bool:
    """Whether roi is read at run time: a non-constant roi input where tf_crop_and_resize uses it."""
    return (ctx.node.op == "Resize" and ctx.opset >= 11 and ctx.has_input(1) and ctx.const(1) is None
            and ctx.input(1).size > 0 and text(ctx.attr("coordinate_transformation_mode", "half_pixel")) == "tf_crop_and_resize")


def _lower_resize(ctx: LowerCtx) -> None:
    """Nearest: one guarded load; linear/cubic: a sum over the taps of every resized axis."""
    x, y = ctx.input(0), ctx.out_types[0]
    runtime_roi = _runtime_roi(ctx)
    at, plan, out = resize_plan(ctx.node, _check_resize_inputs(ctx), ctx.opset, x.shape, runtime_roi)
    if runtime_roi:    # the crop's pairs loaded from roi (input 1, the kernel's second input)
        roi_t = ctx.input(1)
        at_roi = lambda k: load(1, roi_t, (const(k, DType.int64),))
        plan = [e if e is None or not isinstance(e[2], RuntimeRoi) else (e[0], e[1], (at_roi(e[2].start), at_roi(e[2].end)))
                for e in plan]
    if at["antialias"] and at["mode"] == "nearest":
        raise ctx.unsupported("antialias=1 with mode nearest (ONNX defines it for linear and cubic)", feature=True)
    if at["mode"] not in ("nearest", "linear", "cubic"):
        raise ctx.unsupported(f"mode {at['mode']}")
    if tuple(out) != y.shape:
        raise ctx.unsupported(f"output shape {tuple(out)} disagrees with inferred {y.shape}")
    i = out_vars(y.rank)
    f64 = DType.float64
    outside = const(False, DType.bool)     # tf_crop_and_resize: extrapolate
    excluded = const(False, DType.bool)    # nearest with exclude_outside: the pick is outside
    idx, weights, red_axes = list(i), [], []
    norms = []      # antialias: each axis's sum of its taps' filter values, divided out once per output
    for a, entry in enumerate(plan):
        if entry is None:
            continue
        d = x.shape[a]
        xc = _source_coord(cast(i[a], f64), at["ctm"], entry[0], d, entry[1], entry[2])
        if at["ctm"] == "tf_crop_and_resize":
            outside = logical_or(outside, logical_or(binary("lt", xc, 0.0), binary("gt", xc, float(d - 1))))
        base = cast(unary("ceil", xc), DType.int64) - 1
        r = xc - cast(base, f64)
        if at["mode"] == "nearest":
            pick = _nearest_index(at["nearest"], xc, base, r, None)
            if at["exclude"]:
                excluded = logical_or(excluded, logical_or(binary("lt", pick, 0), binary("ge", pick, d)))
            idx[a] = clamp_index(pick, 0, d - 1)
            continue
        rv = Var(f"r{len(red_axes)}")
        if at["antialias"]:
            n, first, s = _antialias_taps(at["mode"], entry[0])
            red_axes.append((rv.name, n))
            inside = [in_range(base + (first + t), 0, d) for t in range(n)] if at["exclude"] else None
            w = _antialias_filter(at["mode"], (cast(rv, f64) + float(first) - r) * s, at["A"], None)
            if at["exclude"]:
                w = select(in_range(base + first + rv, 0, d), w, const(0.0, f64))
            total = None
            for t in range(n):
                c = _antialias_filter(at["mode"], (float(first + t) - r) * s, at["A"], None)
                c = select(inside[t], c, const(0.0, f64)) if at["exclude"] else c
                total = c if total is None else total + c
            norms.append(select(binary("eq", total, 0.0), const(1.0, f64), total))
            weights.append(w)
            idx[a] = clamp_index(base + first + rv, 0, d - 1)
            continue
        n, first = _taps(at["mode"])
        red_axes.append((rv.name, n))
        coeffs = [1 - r, r] if at["mode"] == "linear" else _cubic_coeffs(r, at["A"])
        if at["exclude"]:
            coeffs = [select(in_range(base + (first + t), 0, d), c, const(0.0, f64)) for t, c in enumerate(coeffs)]
            total = coeffs[0]
            for c in coeffs[1:]:
                total = total + c
            total = select(binary("eq", total, 0.0), const(1.0, f64), total)
            coeffs = [c / total for c in coeffs]
        w = coeffs[-1]
        for t in reversed(range(n - 1)):
            w = select(binary("eq", rv, t), coeffs[t], w)
        weights.append(w)
        idx[a] = clamp_index(base + first + rv, 0, d - 1)
    v = load(0, x, idx)
    if at["mode"] == "nearest":
        zero = const(0, x.dtype)
        body = select(excluded, zero, v) if at["exclude"] else v
        fill = _saturate(np.array([at["extrap"]]), x.dtype.np)[0] if x.dtype is not DType.bfloat16 else at["extrap"]
        body = select(outside, const(fill, x.dtype), body)
        emit_expr(ctx, "resize_nearest", [0, 1] if runtime_roi else [0], body)
        return
    body = cast(v, f64)
    for w in weights:
        body = w * body
    acc = Var("acc", f64)
    for norm in norms:
        acc = acc / norm
    res = select(outside, const(at["extrap"], f64), acc)
    if x.dtype.is_int:
        lo, hi = np.iinfo(x.dtype.np).min, np.iinfo(x.dtype.np).max
        res = unary("round", res)
        res = select(binary("lt", res, float(lo)), const(float(lo), f64), select(binary("gt", res, float(hi)), const(float(hi), f64), res))
        res = cast(res, x.dtype)
    args = [0, 1] if runtime_roi else [0]
    te = TensorExpr(f"resize_{at['mode']}", tuple(ctx.input(k) for k in args), y, body, Reduce("sum", tuple(red_axes)), res)
    ctx.emit(te, [ctx.in_name(k) for k in args], ctx.out_name(0))


register("Resize", reference=_ref_resize)(_lower_resize)
register("Upsample", reference=_ref_resize)(_lower_resize)

__all__ = ["emit_expr", "emit_values", "wrap_index", "clamp_index", "index_value", "norm_axis", "opt",
           "text", "attr_array", "slice_params", "pad_params", "resize_plan"]
