"""Indexing ops: Gather, GatherElements, GatherND, ScatterND, ScatterElements (and the old Scatter),
OneHot, and the data-dependent Compress, NonZero, Unique: Unique lowered only when its inputs are
constant (its output shapes depend on the data); NonZero's output sized to the input's elements
and Compress's to its condition's length, each trimmed to the count on return (OpDef.bounded).

Gathers are index maps with the loaded index wrapped by a select (negative counts from the end).
Scatters are a copy kernel followed by an update kernel in which each thread owns a set of output
elements and applies the updates that hit them in the order ONNX lists them: deterministic for
duplicate indices and for every reduction. Constant indices in a progression without repeats
(x[:, t] = v, slice_scatter) are one select instead, which fusion composes like any map."""
from __future__ import annotations

import math

import numpy as np

from ..codegen.block_function import BLOCK_X, GRID_X, finish_kernel
from ..errors import ModelError
from ..ir.kernel import Kernel, KernelParam
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import TensorExpr, binary, const, in_range, load, logical_and, out_vars, select
from .movement import emit_expr, emit_values, index_value, norm_axis, text, wrap_index
from .recurrence_kernels import ONE_SM_ROWS_GBPS
from .registry import LowerCtx, bounded_result, register


def _wrapped(idx: np.ndarray, n: int) -> np.ndarray:
    idx = idx.astype(np.int64)
    return np.where(idx < 0, idx + n, idx)


# --- gathers --------------------------------------------------------------------------------

def _ref_gather(node, inputs, opset):
    x, idx = inputs
    axis = norm_axis(node.attr("axis", 0), x.ndim)
    return [np.take(x, _wrapped(idx, x.shape[axis]), axis=axis)]


@register("Gather", reference=_ref_gather)
def lower_gather(ctx: LowerCtx) -> None:
    """out[a.., j.., b..] = x[a.., wrap(idx[j..]), b..]."""
    x, it, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    axis = norm_axis(ctx.attr("axis", 0), x.rank)
    i = out_vars(y.rank)
    q = it.rank
    idx = ctx.const(1)
    rows = ctx.run_time_extent(0)
    if rows is not None and rows[1] == axis and idx is not None and np.any(idx < 0):
        idx = None      # counted from the end of the real rows, not the bound: wrapped at run time
    known = _progression(idx.reshape(-1) if idx is not None else None, x.shape[axis], ctx, "Gather")
    if known is not None:
        # constant indices in a progression (x[:, t] as exporters write a time step; an arange; in
        # C order over indices of any rank, as the dynamo exporter writes an as_strided view) are
        # a static slice: an index map the dependence analysis reads, no load of the indices
        start, step = known
        v = const(start, DType.int64)
        if step != 0 and it.size > 1:
            terms = [i[axis + d] if math.prod(it.shape[d + 1:]) == 1 else i[axis + d] * math.prod(it.shape[d + 1:])
                     for d in range(q) if it.shape[d] > 1]
            position = terms[0]
            for t in terms[1:]:
                position = position + t
            v = v + position * step
        emit_expr(ctx, "gather", [0], load(0, x, i[:axis] + (v,) + i[axis + q:]))
        return
    v = wrap_index(index_value(load(1, it, i[axis:axis + q])), x.shape[axis])
    emit_expr(ctx, "gather", [0, 1], load(0, x, i[:axis] + (v,) + i[axis + q:]))


def _progression(idx: np.ndarray | None, n: int, ctx: LowerCtx, op: str) -> tuple[int, int] | None:
    """(start, step) when `idx` is a constant scalar or 1-D arithmetic progression, wrapped into
    [0, n); None for indices read at run time (or any other constant pattern); an index outside
    [-n, n) is the model's error (`op`'s, on the indexed axis)."""
    if idx is None or idx.ndim > 1 or idx.size == 0 or n == 0:    # (an empty axis: the emit's error)
        return None
    flat = idx.reshape(-1).astype(np.int64)
    if np.any(flat < -n) or np.any(flat >= n):
        bad = int(flat[(flat < -n) | (flat >= n)][0])
        raise ModelError(f"{op} index {bad} is outside [-{n}, {n - 1}], the indexed axis", node=ctx.node.name)
    flat = _wrapped(flat, n)
    step = int(flat[1] - flat[0]) if flat.size > 1 else 0
    if np.any(flat != flat[0] + step * np.arange(flat.size)):
        return None
    return int(flat[0]), step


def _ref_gather_elements(node, inputs, opset):
    x, idx = inputs
    axis = norm_axis(node.attr("axis", 0), x.ndim)
    return [np.take_along_axis(x, _wrapped(idx, x.shape[axis]), axis=axis)]


@register("GatherElements", reference=_ref_gather_elements)
def lower_gather_elements(ctx: LowerCtx) -> None:
    x, it, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    axis = norm_axis(ctx.attr("axis", 0), x.rank)
    i = out_vars(y.rank)
    idx = list(i)
    idx[axis] = wrap_index(index_value(load(1, it, i)), x.shape[axis])
    emit_expr(ctx, "gather_elements", [0, 1], load(0, x, idx))


def _ref_gather_nd(node, inputs, opset):
    x, idx = inputs
    b = node.attr("batch_dims", 0) if opset >= 12 else 0
    k = idx.shape[-1]
    batch = idx.shape[:b]
    flat_x = x.reshape((math.prod(batch),) + x.shape[b:])
    flat_i = idx.reshape((math.prod(batch), -1, k))
    rows = []
    for n in range(flat_x.shape[0]):
        for t in flat_i[n]:
            rows.append(flat_x[n][tuple(int(t[j]) + (x.shape[b + j] if t[j] < 0 else 0) for j in range(k))])
    out_shape = idx.shape[:-1] + x.shape[b + k:]
    return [np.array(rows, dtype=x.dtype).reshape(out_shape)]


@register("GatherND", reference=_ref_gather_nd)
def lower_gather_nd(ctx: LowerCtx) -> None:
    """out[b.., j.., t..] = x[b.., idx[b.., j.., 0], .., idx[b.., j.., k-1], t..]."""
    x, it, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    b = int(ctx.attr("batch_dims", 0))
    k = it.shape[-1]
    i = out_vars(y.rank)
    q1 = it.rank - 1
    comps = tuple(wrap_index(index_value(load(1, it, i[:q1] + (const(j, DType.int64),))), x.shape[b + j])
                  for j in range(k))
    emit_expr(ctx, "gather_nd", [0, 1], load(0, x, i[:b] + comps + i[q1:]))


# --- scatters -------------------------------------------------------------------------------

def _combine(red: str, a, b):
    if red == "add":
        return a + b
    if red == "mul":
        return a * b
    if red == "max":
        return np.maximum(a, b)
    if red == "min":
        return np.minimum(a, b)
    return b


def _ref_scatter_nd(node, inputs, opset):
    x, idx, upd = inputs
    red = text(node.attr("reduction", "none")) if opset >= 16 else "none"
    out = np.array(x, copy=True)
    k = idx.shape[-1]
    flat_i = idx.reshape(-1, k)
    flat_u = upd.reshape((flat_i.shape[0],) + x.shape[k:])
    for t, u in zip(flat_i, flat_u):
        pos = tuple(int(v) + (x.shape[j] if v < 0 else 0) for j, v in enumerate(t))
        out[pos] = _combine(red, out[pos], u)
    return [out]


def _ref_scatter_elements(node, inputs, opset):
    x, idx, upd = inputs
    red = text(node.attr("reduction", "none")) if node.op == "ScatterElements" and opset >= 16 else "none"
    axis = norm_axis(node.attr("axis", 0), x.ndim)
    out = np.array(x, copy=True)
    w = _wrapped(idx, x.shape[axis])
    for pos in np.ndindex(*idx.shape):
        dst = list(pos)
        dst[axis] = int(w[pos])
        out[tuple(dst)] = _combine(red, out[tuple(dst)], upd[pos])
    return [out]


def _scatter_as_select(ctx: LowerCtx, red: str, axis: int, slots: np.ndarray, update_index) -> bool:
    """A scatter whose constant indices along `axis` form a progression with no repeats (a time
    step written into a sequence, a slice overwritten: what exporters emit for x[:, t] = v and
    slice_scatter) as one elementwise select, out = in the slots ? update (combined) : data, which
    the fusion passes compose like any map; False (nothing emitted) for any other pattern.
    `slots`: the indices along the axis, one per update slot; `update_index(i, j)`: the update's
    index for output index i in slot j."""
    x = ctx.input(0)
    n, count = x.shape[axis], slots.size
    if red not in ("none", "add", "mul") or count == 0 or n == 0:
        return False
    known = _progression(slots.reshape(-1), n, ctx, ctx.node.op)
    if known is None or (count > 1 and known[1] == 0):     # repeats: the update kernel keeps ONNX's order
        return False
    start, step = known
    i = out_vars(x.rank)
    inside, j = _progression_slot(i[axis], start, step, count)
    cond, u_index = update_index(i, j)
    cond = inside if cond is None else logical_and(cond, inside)
    data, upd = load(0, x, i), load(1, ctx.input(2), u_index)
    new = upd if red == "none" else binary(red, data, upd)
    emit_expr(ctx, "scatter", [0, 2], select(cond, new, data))
    return True


def _progression_slot(v, start: int, step: int, count: int) -> tuple:
    """(whether the index `v` is start + step * j for some j < count, that j): the slot of a
    strided scatter an output index falls in (one slot when count is 1)."""
    if count == 1:
        return binary("eq", v, start), const(0, DType.int64)
    last = start + step * (count - 1)
    off = v - start
    inside = in_range(v, min(start, last), max(start, last) + 1)
    if abs(step) > 1:
        inside = logical_and(inside, binary("eq", binary("imod", off, abs(step)), 0))
    return inside, binary("idiv", off, step)


def _copy_input(ctx: LowerCtx) -> None:
    y = ctx.out_types[0]
    emit_expr(ctx, "scatter_copy", [0], load(0, ctx.input(0), out_vars(y.rank)))


def _update_statement(red: str, dst: str, src: str, dtype: DType) -> str:
    """C statement applying one update to out element `dst` (compute in the compute type)."""
    ct, t = dtype.compute_ctype, dtype.ctype
    a, b = f"(({ct}){dst})", f"(({ct}){src})"
    expr = {"none": b, "add": f"({a} + {b})", "mul": f"({a} * {b})",
            "max": f"by_max({a}, {b})", "min": f"by_min({a}, {b})"}[red]
    return f"{dst} = ({t})({expr});"


def _update_counts(ctx: LowerCtx) -> list[tuple[str, int]]:
    """(the int64 scalar, the axis) for each distinct run-time length the indices or updates have
    (a list filtered on the device); the k-th is the update kernel's parameter `rows<k>`: the
    positions past it are padding, whose updates are not the model's and are skipped."""
    return list(dict.fromkeys(e for e in (ctx.run_time_extent(1), ctx.run_time_extent(2)) if e is not None))


def _update_rows(ctx: LowerCtx) -> list[tuple[int, int]]:
    """(k, axis) for each of _update_counts: the parameter `rows<k>` bounds the positions on `axis`."""
    return [(k, axis) for k, (_, axis) in enumerate(_update_counts(ctx))]


def _emit_update_kernel(ctx: LowerCtx, prefix: str, threads_total: int, body: list[str]) -> None:
    x, it, ut = ctx.input(0), ctx.input(1), ctx.input(2)
    counts = _update_counts(ctx)
    params = (f"const {it.dtype.ctype}* __restrict__ idx, const {ut.dtype.ctype}* __restrict__ upd, "
              f"{x.dtype.ctype}* __restrict__ out" + "".join(f", const long long* __restrict__ rows{k}"
                                                           for k in range(len(counts))))
    lines = [f"  for (long long p = (long long){BLOCK_X} * blockDim.x + threadIdx.x; p < {threads_total}ll; "
             f"p += (long long){GRID_X} * blockDim.x) {{"]
    lines += ["    " + s for s in body]
    lines += ["  }"]
    entry, src = finish_kernel(prefix, params, lines)
    block = 128
    ctx.emit_kernel(Kernel(
        entry=entry, source=src,
        params=(KernelParam(it.dtype.ctype, ctx.in_name(1), False), KernelParam(ut.dtype.ctype, ctx.in_name(2), False),
                KernelParam(x.dtype.ctype, ctx.out_name(0), True), *(KernelParam("long long", c, False) for c, _ in counts)),
        grid=(max(1, min(math.ceil(threads_total / block), 4096)), 1, 1), block=(block, 1, 1),
        config=(("schedule", "ordered_updates"),)))


@register("ScatterND", reference=_ref_scatter_nd)
def lower_scatter_nd(ctx: LowerCtx) -> None:
    """Copy, then one thread per element of an update slice, applying all updates in order."""
    x, it = ctx.input(0), ctx.input(1)
    red = text(ctx.attr("reduction", "none")) if ctx.opset >= 16 else "none"
    if red not in ("none", "add", "mul", "max", "min"):
        raise ctx.unsupported(f"reduction {red}")
    idx = ctx.const(1)
    if idx is not None and it.shape[-1] == 1 and _scatter_as_select(ctx, red, 0, idx, _slot_index(it.shape[:-1])):
        return
    _copy_input(ctx)
    k = it.shape[-1]
    n_upd = math.prod(it.shape[:-1])
    slice_size = math.prod(x.shape[k:])
    if n_upd == 0 or slice_size == 0:
        return
    body = [f"for (long long u = 0; u < {n_upd}ll; ++u) {{", "  long long off = 0;"]
    for r, a in _update_rows(ctx):
        if a >= it.rank - 1:
            raise ctx.unsupported("indices of a run-time length along their last axis")
        body.append(f"  if ((u / {math.prod(it.shape[a + 1:-1])}ll) % {it.shape[a]}ll >= rows{r}[0]) continue;")
    for j in range(k):
        d = x.shape[j]
        body.append(f"  {{ long long v = (long long)idx[u * {k}ll + {j}ll]; if (v < 0) v += {d}ll; off = off * {d}ll + v; }}")
    body.append("  " + _update_statement(red, f"out[off * {slice_size}ll + p]", f"upd[u * {slice_size}ll + p]", x.dtype))
    body.append("}")
    _emit_update_kernel(ctx, "scatter_nd_update", slice_size, body)


# Brickyard's own ops, made by the frontend's rewrites (never in a model as uploaded)
BRICKYARD_DOMAIN = "brickyard"


def box_of(components: list[np.ndarray], lead: tuple[int, ...], dims: tuple[int, ...]) -> tuple | None:
    """ScatterND's index components as a box: each component j an array broadcastable to the
    indices' leading shape `lead` (the whole index tensor's [..., j], or a smaller array it is a
    broadcast of), indexing data axis j of extent dims[j]. The box: per component (start, lead
    axis, step) with index[l.., j] == start + step * l[axis] everywhere (axis -1: fixed at start),
    each lead axis longer than 1 moving exactly one component (so no position is written twice);
    None for any other pattern, or an index outside [-dim, dim) (the update kernel reports it)."""
    moving = {d for d, e in enumerate(lead) if e > 1}
    out, used = [], set()
    for j, comp in enumerate(components):
        c = np.asarray(comp, dtype=np.int64)      # no copy of an int64 constant (a grid is millions)
        n = dims[j]
        if c.ndim != len(lead) or c.size == 0:
            return None
        lo, hi = int(c.min()), int(c.max())
        if lo < -n or hi >= n:
            return None
        if lo < 0:
            c = np.where(c < 0, c + n, c)
        origin = int(c[(0,) * c.ndim])
        steps = {d: int(c[tuple(1 if a == d else 0 for a in range(c.ndim))]) - origin
                 for d in range(c.ndim) if c.shape[d] > 1}
        nonzero = [d for d, st in steps.items() if st != 0]
        if len(nonzero) > 1 or set(nonzero) & used:
            return None
        axis = nonzero[0] if nonzero else -1
        step = steps[axis] if nonzero else 0
        expect = origin + step * np.arange(c.shape[axis]).reshape([-1 if a == axis else 1 for a in range(c.ndim)]) \
            if nonzero else origin
        if np.any(c != expect):
            return None
        used.update(nonzero)
        out.append((origin, axis, step))
    return tuple(out) if used == moving else None     # a lead axis that moves nothing repeats its writes


def _emit_box_select(ctx: LowerCtx, red: str, box: tuple, lead: tuple[int, ...], upd_input: int) -> None:
    """out = inside the box ? the update (combined with the data) : data, one elementwise select
    that the fusion passes compose like any map."""
    x, upd_t = ctx.input(0), ctx.input(upd_input)
    i = out_vars(x.rank)
    cond = None
    place: dict[int, object] = {}
    for j, (start, axis, step) in enumerate(box):
        if axis < 0:
            c = binary("eq", i[j], start)
        else:       # a moving component: its lead axis is longer than 1 (box_of)
            c, place[axis] = _progression_slot(i[j], start, step, lead[axis])
        cond = c if cond is None else logical_and(cond, c)
    u_index = tuple(place.get(d, const(0, DType.int64)) for d in range(len(lead))) + tuple(i[len(box):])
    data, upd = load(0, x, i), load(1, upd_t, u_index)
    new = upd if red == "none" else binary(red, data, upd)
    emit_expr(ctx, "scatter", [0, upd_input], select(cond, new, data))


def _ref_scatter_box(node, inputs, opset):
    x, upd = inputs
    box, lead = node.attr("box"), tuple(node.attr("lead"))
    comps = [np.full(lead, start, np.int64) if axis < 0 else
             np.broadcast_to((start + step * np.arange(lead[axis])).reshape(
                 [-1 if a == axis else 1 for a in range(len(lead))]), lead) for start, axis, step in box]
    out = np.array(x, copy=True)
    pos = tuple(comps)
    out[pos] = _combine(text(node.attr("reduction", "none")), out[pos], upd)   # a box writes each position once
    return [out]


@register("ScatterBox", reference=_ref_scatter_box, domain=BRICKYARD_DOMAIN)
def lower_scatter_box(ctx: LowerCtx) -> None:
    """ScatterND over a box of indices the frontend found (frontend/canonicalize.py
    `scatter_boxes`): inputs data and updates, attributes `box` (per component (start, lead axis,
    step)), `lead` (the indices' leading shape) and `reduction`."""
    _emit_box_select(ctx, text(ctx.node.attr("reduction", "none")), ctx.node.attr("box"),
                     tuple(ctx.node.attr("lead")), 1)


def _slot_index(slots_shape: tuple[int, ...]):
    """ScatterND's update index for slot j of a one-component index (k = 1): the slot's place in
    the indices' leading shape, then the output's own trailing index."""
    def update_index(i, j):
        place = []
        for d, size in enumerate(slots_shape):
            c = binary("idiv", j, math.prod(slots_shape[d + 1:]))
            place.append(c if d == 0 else binary("imod", c, size))
        return None, tuple(place) + tuple(i[1:])
    return update_index


def _line_index(idx_shape: tuple[int, ...], data_shape: tuple[int, ...], axis: int):
    """ScatterElements' update index for slot j: the output's index with j on the axis; an index
    shape shorter than the data's off the axis leaves the rest of the data as it is."""
    def update_index(i, j):
        short = [binary("lt", i[d], m) for d, m in enumerate(idx_shape) if d != axis and m < data_shape[d]]
        cond = None
        for c in short:
            cond = c if cond is None else logical_and(cond, c)
        return cond, tuple(j if d == axis else v for d, v in enumerate(i))
    return update_index


def _lower_scatter_elements(ctx: LowerCtx) -> None:
    """Copy, then one thread per index position off the axis, walking the axis in order."""
    x, it = ctx.input(0), ctx.input(1)
    red = text(ctx.attr("reduction", "none")) if ctx.node.op == "ScatterElements" and ctx.opset >= 16 else "none"
    if red not in ("none", "add", "mul", "max", "min"):
        raise ctx.unsupported(f"reduction {red}")
    axis = norm_axis(ctx.attr("axis", 0), x.rank)
    idx = ctx.const(1)
    if idx is not None and idx.size:
        line = idx[tuple(slice(None) if d == axis else slice(0, 1) for d in range(idx.ndim))]
        if np.array_equal(np.broadcast_to(line, idx.shape), idx) and _scatter_as_select(
                ctx, red, axis, line.reshape(-1), _line_index(it.shape, x.shape, axis)):
            return      # the same index on every line off the axis: a select
    _copy_input(ctx)
    if it.size == 0:
        return
    r = x.rank
    ishape, xshape = it.shape, x.shape
    istr = [math.prod(ishape[a + 1:]) for a in range(r)]
    xstr = [math.prod(xshape[a + 1:]) for a in range(r)]
    others = [a for a in range(r) if a != axis]
    rows = _update_rows(ctx)
    body = ["long long rem = p, ioff = 0, xoff = 0;"]
    for a in reversed(others):
        body.append(f"const long long c{a} = rem % {ishape[a]}ll; rem /= {ishape[a]}ll; "
                    f"ioff += c{a} * {istr[a]}ll; xoff += c{a} * {xstr[a]}ll;")
    body += [f"if (c{a} >= rows{k}[0]) continue;" for k, a in rows if a != axis]
    body.append(f"for (long long t = 0; t < {ishape[axis]}ll; ++t) {{")
    body += [f"  if (t >= rows{k}[0]) break;" for k, a in rows if a == axis]
    body.append(f"  const long long q = ioff + t * {istr[axis]}ll;")
    body.append(f"  long long v = (long long)idx[q]; if (v < 0) v += {xshape[axis]}ll;")
    body.append("  " + _update_statement(red, f"out[xoff + v * {xstr[axis]}ll]", "upd[q]", x.dtype))
    body.append("}")
    _emit_update_kernel(ctx, "scatter_elements_update", it.size // ishape[axis], body)


register("ScatterElements", reference=_ref_scatter_elements)(_lower_scatter_elements)
register("Scatter", reference=_ref_scatter_elements)(_lower_scatter_elements)


# --- OneHot ---------------------------------------------------------------------------------

def _ref_one_hot(node, inputs, opset):
    idx, depth, values = inputs
    depth = int(np.asarray(depth).reshape(-1)[0])
    axis = norm_axis(node.attr("axis", -1), idx.ndim + 1)
    w = _wrapped(np.asarray(idx), depth)
    hot = np.expand_dims(w, axis) == np.arange(depth).reshape((depth,) + (1,) * (idx.ndim - axis))
    values = values.reshape(-1)
    return [np.where(hot, values[1], values[0]).astype(values.dtype)]


@register("OneHot", reference=_ref_one_hot)
def lower_one_hot(ctx: LowerCtx) -> None:
    """out[.., d, ..] = on if wrap(idx[..]) == d else off; depth is the output's static extent."""
    it, vt, y = ctx.input(0), ctx.input(2), ctx.out_types[0]
    axis = norm_axis(ctx.attr("axis", -1), y.rank)
    depth = y.shape[axis]
    i = out_vars(y.rank)
    v = wrap_index(index_value(load(0, it, i[:axis] + i[axis + 1:])), depth)
    on, off = load(1, vt, (const(1, DType.int64),)), load(1, vt, (const(0, DType.int64),))
    emit_expr(ctx, "one_hot", [0, 2], select(binary("eq", v, i[axis]), on, off))


# --- data-dependent output shapes: only with constant inputs ---------------------------------

def _ref_compress(node, inputs, opset):
    x, cond = inputs
    axis = node.attr("axis")
    dim = x.size if axis is None else x.shape[norm_axis(axis, x.ndim)]
    out = np.compress(cond.reshape(-1)[:dim].astype(bool), x, axis=axis)
    return bounded_result(node, out, 0 if axis is None else norm_axis(axis, x.ndim))


def _ref_nonzero(node, inputs, opset):
    out = np.array(np.nonzero(inputs[0]), dtype=np.int64).reshape(inputs[0].ndim, -1)
    return bounded_result(node, out, 1)


def _infer_nonzero(pn, in_types, consts):
    x = in_types[0]
    if x.rank == 0:
        raise ModelError("NonZero of a scalar", node=pn.name, hint="ONNX defines NonZero for tensors of rank 1 or more")
    if x.size == 0:
        return [TensorType(DType.int64, (x.rank, 0))]
    return [TensorType(DType.int64, (x.rank, x.size)), TensorType(DType.int64, ())]


_NONZERO_THREADS = 256


def lower_nonzero(ctx: LowerCtx) -> None:
    """NonZero of a run-time tensor: its coordinates [rank, size], trimmed to the count of
    non-zeros on return (OpDef.bounded)."""
    x, y = ctx.input(0), ctx.out_types[0]
    if ctx.const(0) is not None:    # known at compile time (import folds it unless it is large)
        _lower_folded(ctx)
        return
    if y.size == 0:
        return
    emit_nonzero(ctx, (ctx.in_name(0), x), x.size, ctx.out_name(0), ctx.out_name(1), ctx.run_time_extent(0))


def emit_nonzero(ctx: LowerCtx, x: tuple[str, "TensorType"], n: int, y: str, count: str,
                 rows: tuple[str, int] | None = None) -> None:
    """Writes to `y` ([rank of x, n]) the coordinates of the non-zeros among the first `n` elements
    of x (flattened), in row-major order as ONNX lists them, zeros past them, and their number to
    `count`. `rows` (the int64 scalar holding it, the axis): x's length on that axis is known only
    at run time, and elements past it (padding) count as zeros. Two forms, priced against each
    other where the input is long (LowerCtx.cheapest): one block scanning it all, or a grid of
    blocks each scanning a chunk (a score filter over a detector's million anchor-class scores)."""
    x_name, xt = x
    ct = xt.dtype.compute_ctype
    test = f"({ct})x[f] != ({ct})0"
    reads = [(f"const {xt.dtype.ctype}* __restrict__ x", KernelParam(xt.dtype.ctype, x_name, False))]
    if rows is not None:
        stride = math.prod(xt.shape[rows[1] + 1:])
        test = f"(f / {stride}ll) % {xt.shape[rows[1]]}ll < rows[0] && {test}"
        reads.append(("const long long* __restrict__ rows", KernelParam("long long", rows[0], False)))
    writes = [("long long* __restrict__ y", KernelParam("long long", y, True)),
              ("long long* __restrict__ count", KernelParam("long long", count, True))]
    form = _NonzeroForm(ctx, xt, n, test, reads, writes)
    ways = {"one block": form.one_block}
    if n >= _NONZERO_GRID_FROM and ctx.enabled("nonzero_grid"):
        ways["grid"] = form.grid
    ctx.cheapest(ways)


_NONZERO_GRID_FROM = 8 * _NONZERO_THREADS    # shorter: one block's runs are a few elements
_NONZERO_MAX_BLOCKS = 1024


class _NonzeroForm:
    """The two NonZero kernels' forms over one input (emit_nonzero); `reads` and `writes` are the
    (declaration, parameter) pairs of what the kernels read (x, the run-time length) and write
    (y, the count)."""

    def __init__(self, ctx: LowerCtx, xt, n: int, test: str, reads: list, writes: list):
        self.ctx, self.xt, self.n, self.test, self.reads, self.writes = ctx, xt, n, test, reads, writes

    def _emit(self, prefix: str, pairs: list, body: list[str], blocks: int, shared: int, config: tuple) -> None:
        entry, source = finish_kernel(prefix, [d for d, _ in pairs], body, launch_bounds=(_NONZERO_THREADS,))
        self.ctx.emit_kernel(Kernel(entry=entry, source=source, params=tuple(p for _, p in pairs),
                                    grid=(blocks, 1, 1), block=(_NONZERO_THREADS, 1, 1), shared_bytes=shared,
                                    config=config))

    def _write(self, lo: str, hi: str) -> list[str]:
        """Each thread's run [lo, hi) written from its first column `at`, in element order."""
        coords = [f"      y[{d}ll * N + at] = rest % {self.xt.shape[d]}ll; rest /= {self.xt.shape[d]}ll;"
                  for d in reversed(range(self.xt.rank))]
        return [f"  for (long long f = {lo}; f < {hi}; ++f) {{",
                f"    if ({self.test}) {{",
                "      long long rest = f;",
                *coords,
                "      ++at;",
                "    }",
                "  }"]

    def _zeros(self, first: str, step: str) -> list[str]:
        """The columns past the count zeroed, threads `first`, `first + step`, ..."""
        return [f"  for (long long e = {first}; e < {self.xt.rank}ll * (N - total); e += {step})",
                "    y[(e / (N - total)) * N + total + e % (N - total)] = 0;"]

    def one_block(self) -> None:
        """One block: each thread counts the non-zeros of its run, a scan of the counts in shared
        memory gives each run its first column, then each thread writes its coordinates there.
        Priced as what it is, a block streaming the input twice through one SM."""
        t, n = _NONZERO_THREADS, self.n
        run = -(-n // t)
        body = [f"  constexpr long long N = {n}, RUN = {run};",
                "  BY_SHARED_BUFFER(smem);",
                "  long long* first = (long long*)smem;",
                "  const long long lo = threadIdx.x * RUN, hi = by_min(lo + RUN, N);",
                "  long long mine = 0;",
                f"  for (long long f = lo; f < hi; ++f) mine += ({self.test});",
                "  first[threadIdx.x] = mine;",
                "  __syncthreads();",
                "  if (threadIdx.x == 0) {",
                "    long long total = 0;",
                "    for (int k = 0; k < blockDim.x; ++k) { const long long c = first[k]; first[k] = total; total += c; }",
                "    first[blockDim.x] = total;",
                "  }",
                "  __syncthreads();",
                "  long long at = first[threadIdx.x];",
                *self._write("lo", "hi"),
                "  const long long total = first[blockDim.x];",
                *self._zeros("threadIdx.x", "blockDim.x"),
                "  if (threadIdx.x == 0) count[0] = total;"]
        self._emit("nonzero", self.reads + self.writes, body, 1, (t + 1) * 8,
                   (("schedule", "nonzero_scan"), ("flops", 2 * n), ("sequential_steps", 2 * run),
                    ("rows_bytes_per_step", t * self.xt.dtype.itemsize), ("rows_gbps", ONE_SM_ROWS_GBPS),
                    ("grid_syncs_per_step", 0)))

    def grid(self) -> None:
        """A block a chunk: the first kernel counts each chunk's non-zeros (a block reduction); the
        second gives each block the sum of the counts before its chunk and the total, then scans
        its chunk as the one-block form does, from there; the columns past the total are zeroed
        across the grid, and block 0 writes the count."""
        t, n, ctx = _NONZERO_THREADS, self.n, self.ctx
        blocks = min(_NONZERO_MAX_BLOCKS, -(-n // (4 * t)))
        chunk = -(-n // blocks)
        counts = ctx.temp(TensorType(DType.int64, (blocks,)), "nonzero_chunk_counts")
        body = [f"  constexpr long long N = {n}, C = {chunk};",
                f"  const long long b = {BLOCK_X}, lo = b * C, hi = by_min(lo + C, N);",
                "  BY_SHARED_BUFFER(smem);",
                "  long long* part = (long long*)smem;",
                "  long long mine = 0;",
                f"  for (long long f = lo + threadIdx.x; f < hi; f += blockDim.x) mine += ({self.test});",
                "  part[threadIdx.x] = mine;",
                "  __syncthreads();",
                "  for (int s = blockDim.x / 2; s > 0; s >>= 1) {",
                "    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];",
                "    __syncthreads();",
                "  }",
                "  if (threadIdx.x == 0) counts[b] = part[0];"]
        self._emit("nonzero_counts", self.reads + [("long long* __restrict__ counts", KernelParam("long long", counts, True))],
                   body, blocks, t * 8, (("schedule", "nonzero_counts"), ("flops", 2 * n)))
        run = -(-chunk // t)
        body = [f"  constexpr long long N = {n}, C = {chunk}, RUN = {run}, B = {blocks};",
                f"  const long long b = {BLOCK_X}, lo = b * C, hi = by_min(lo + C, N);",
                "  BY_SHARED_BUFFER(smem);",
                "  long long* first = (long long*)smem;     // each run's first column, then before and total",
                "  if (threadIdx.x == 0) {",
                "    long long before = 0, total = 0;",
                "    for (long long k = 0; k < B; ++k) { before += k < b ? counts[k] : 0; total += counts[k]; }",
                "    first[blockDim.x] = before;",
                "    first[blockDim.x + 1] = total;",
                "  }",
                "  const long long tlo = by_min(lo + threadIdx.x * RUN, hi), thi = by_min(tlo + RUN, hi);",
                "  long long mine = 0;",
                f"  for (long long f = tlo; f < thi; ++f) mine += ({self.test});",
                "  first[threadIdx.x] = mine;",
                "  __syncthreads();",
                "  if (threadIdx.x == 0) {",
                "    long long acc = first[blockDim.x];",
                "    for (int k = 0; k < blockDim.x; ++k) { const long long c = first[k]; first[k] = acc; acc += c; }",
                "  }",
                "  __syncthreads();",
                "  long long at = first[threadIdx.x];",
                *self._write("tlo", "thi"),
                "  const long long total = first[blockDim.x + 1];",
                *self._zeros("b * blockDim.x + threadIdx.x", "B * blockDim.x"),
                "  if (b == 0 && threadIdx.x == 0) count[0] = total;"]
        self._emit("nonzero_write", self.reads + self.writes + [("const long long* __restrict__ counts",
                                                                 KernelParam("long long", counts, False))],
                   body, blocks, (t + 2) * 8, (("schedule", "nonzero_write"), ("flops", 2 * n)))


# --- Compress on a run-time condition -------------------------------------------------------------

def _compress_axis(axis: int | None, rank: int) -> int | None:
    """The axis attribute made non-negative; None (the input flattened) when absent."""
    return None if axis is None else norm_axis(axis, rank)


def _compress_bounded(node, in_types) -> tuple[tuple[int, int], ...]:
    axis = _compress_axis(node.attr("axis"), in_types[0].rank)
    return ((0, 0 if axis is None else axis),)


def _infer_compress(pn, in_types, consts):
    x, cond = in_types
    axis = _compress_axis(next((a.i for a in pn.attribute if a.name == "axis"), None), x.rank)
    if cond.rank != 1:
        raise ModelError(f"Compress takes a condition of rank 1, got {list(cond.shape)}", node=pn.name)
    shape = (x.size,) if axis is None else x.shape
    at = 0 if axis is None else axis
    bound = min(cond.shape[0], shape[at])
    if consts[1] is not None:     # a constant condition: the extent is static
        bound = int(np.count_nonzero(np.asarray(consts[1]).reshape(-1)[:bound]))
    out = shape[:at] + (bound,) + shape[at + 1:]
    if bound == 0 or consts[1] is not None:
        return [TensorType(x.dtype, out)]
    return [TensorType(x.dtype, out), TensorType(DType.int64, ())]


def lower_compress(ctx: LowerCtx) -> None:
    """Compress on a run-time condition: the positions of its true elements among the first
    `bound` (NonZero's scan), then the kept slices gathered at them; the output sized to the bound
    and trimmed to the count on return (OpDef.bounded: the axis, or 0 for the flattened input)."""
    x, cond, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    if ctx.const(0) is not None and ctx.const(1) is not None:
        _lower_folded(ctx)
        return
    if y.size == 0:
        return
    axis = _compress_axis(ctx.attr("axis"), x.rank)
    at = 0 if axis is None else axis
    # a run-time condition: the output is sized to the bound, the count its extra output; a
    # constant one: the output is exactly the kept slices (the count is known, a temporary)
    runtime = ctx.node.attr("max_extent") is not None
    scanned = y.shape[at] if runtime else min(cond.size, x.size if axis is None else x.shape[axis])
    pos_t = TensorType(DType.int64, (1, scanned))
    pos = ctx.temp(pos_t, "positions")
    count = ctx.out_name(1) if runtime else ctx.temp(TensorType(DType.int64, ()), "count")
    emit_nonzero(ctx, (ctx.in_name(1), cond), scanned, pos, count, ctx.run_time_extent(1))
    i = out_vars(y.rank)
    picked = load(1, pos_t, (const(0, DType.int64), i[at]))
    if axis is None:     # the flattened input's element at the position, by x's own index
        rest, index = picked, []
        for d in reversed(range(x.rank)):
            index.append(binary("imod", rest, x.shape[d]) if d else rest)
            rest = binary("idiv", rest, x.shape[d])
        index = tuple(reversed(index))
    else:
        index = tuple(picked if d == axis else i[d] for d in range(x.rank))
    ctx.emit(TensorExpr("compress_gather", (x, pos_t), y, load(0, x, index)), [ctx.in_name(0), pos], ctx.out_name(0))


def _ref_unique(node, inputs, opset):
    x = inputs[0]
    axis = node.attr("axis")
    is_sorted = node.attr("sorted", 1)
    ax = None if axis is None else norm_axis(axis, x.ndim)
    y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=ax)
    inverse = inverse.reshape(-1)
    if not is_sorted:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        y = np.take(y, order, axis=0 if ax is None else ax)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    i64 = np.int64
    return [y, first.astype(i64), inverse.astype(i64), counts.astype(i64)]


def _lower_folded(ctx: LowerCtx) -> None:
    """Writes the reference's outputs when every input is constant; else the shape is unknown."""
    from .registry import lookup
    consts = [ctx.const(k) for k in range(len(ctx.node.inputs))]
    if any(c is None for c, name in zip(consts, ctx.node.inputs) if name):
        raise ctx.unsupported("data-dependent output shape")
    outs = lookup(ctx.node.op, ctx.node.domain, ctx.node.name).reference(ctx.node, consts, ctx.opset)
    for k, name in enumerate(ctx.node.outputs):
        if name:
            emit_values(ctx, outs[k], out=k)


register("Compress", reference=_ref_compress, infer=_infer_compress, bounded=_compress_bounded)(lower_compress)
register("NonZero", reference=_ref_nonzero, infer=_infer_nonzero, bounded=((0, 1),))(lower_nonzero)
register("Unique", reference=_ref_unique)(_lower_folded)

__all__ = ["lower_gather", "lower_gather_elements", "lower_gather_nd", "lower_scatter_nd", "lower_one_hot"]
