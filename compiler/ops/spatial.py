"""Spatial sampling and small linear algebra: GridSample, AffineGrid, Col2Im, RoiAlign,
MaxRoiPool, Det and CausalConvWithState.

GridSample, AffineGrid, Col2Im and CausalConvWithState are TensorExprs (GridSample unrolls its
2^n or 4^n taps, each guarded or clamped per padding mode). RoiAlign and MaxRoiPool loop over
sampling grids whose extents depend on the ROI values, and Det runs an LU factorisation with
partial pivoting: those three are hand-written kernels, one thread per output element (one
matrix per thread for Det)."""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..codegen.cuda import c_const
from ..codegen.block_function import BLOCK_X, GRID_X, finish_kernel
from ..codegen.naming import NAME_PLACEHOLDER
from ..ir.kernel import Kernel, KernelParam
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import (Expr, Reduce, TensorExpr, Var, binary, cast, const, in_range, load,
                        logical_and, logical_or, maximum, minimum, out_vars, select, unary)
from .movement import clamp_index, opt, text
from .registry import LowerCtx, register

F32, F64, I64 = DType.float32, DType.float64, DType.int64
_BLOCK = 128


def _math_dtype(*dts: DType) -> DType:
    """float64 when any operand is float64, else float32 (half types compute in float32)."""
    return F64 if F64 in dts else F32


def _ints(v, default) -> list[int]:
    return [int(a) for a in v] if v is not None else list(default)


def _grid_launch(n: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return (max(1, min(math.ceil(n / _BLOCK), 65535)), 1, 1), (_BLOCK, 1, 1)


def _c_float(value: float, dt: DType) -> str:
    return c_const(float(value), dt)


# --- GridSample ------------------------------------------------------------------------------------

_GS_MODES = {"bilinear": "linear", "linear": "linear", "nearest": "nearest", "bicubic": "cubic", "cubic": "cubic"}
_CUBIC_A = -0.75


def _gs_attrs(node, opset: int) -> tuple[str, str, bool]:
    mode = text(node.attr("mode", "linear" if opset >= 20 else "bilinear"))
    if mode not in _GS_MODES:
        raise ValueError(f"mode {mode}")
    pad = text(node.attr("padding_mode", "zeros"))
    if pad not in ("zeros", "border", "reflection"):
        raise ValueError(f"padding_mode {pad}")
    return _GS_MODES[mode], pad, bool(node.attr("align_corners", 0))


def _gs_bounds(length: int, align: bool) -> tuple[float, float]:
    return (0.0, length - 1.0) if align else (-0.5, length - 0.5)


def _np_reflect(x, lo: float, hi: float):
    """Reflects x into [lo, hi] by the nearer border, as often as needed (x itself when inside)."""
    x = np.asarray(x, dtype=np.float64)
    rng = hi - lo
    if rng <= 0:
        return np.full_like(x, lo)
    with np.errstate(all="ignore"):
        def fold(dx, near, far, sign):
            n = np.floor(dx / rng)
            r = dx - n * rng
            return np.where(np.fmod(n, 2) == 0, near + sign * r, far - sign * r)
        return np.where(x < lo, fold(lo - x, lo, hi, 1.0), np.where(x > hi, fold(x - hi, hi, lo, -1.0), x))


def _np_cubic_coeffs(t):
    # Not movement._cubic_coeffs: that writes the far tap as (1 - t) + 1, this one as 2 - t, and the
    # GridSample kernels are generated from these very expressions.
    a = _CUBIC_A
    return [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
            ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
            ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]


def _ref_grid_sample(node, inputs, opset):
    x, grid = np.asarray(inputs[0]), np.asarray(inputs[1])
    mode, pad, align = _gs_attrs(node, opset)
    nd = x.ndim - 2
    dims = x.shape[2:]
    xd = x.astype(np.float64)
    n_idx = np.arange(x.shape[0]).reshape((-1,) + (1,) * nd)
    g = grid.astype(np.float64)
    coords, bounds = [], []
    for d in range(nd):
        L = dims[d]
        gv = g[..., nd - 1 - d]
        c = (gv + 1) / 2 * (L - 1) if align else ((gv + 1) * L - 1) / 2
        if mode == "nearest":
            c = np.rint(c)
        lo, hi = _gs_bounds(L, align)
        out = (c < lo) | (c > hi)
        if pad == "border":
            c = np.where(out, np.clip(c, 0, L - 1), c)
        elif pad == "reflection":
            c = np.where(out, _np_reflect(c, lo, hi), c)
        coords.append(c)
        bounds.append((lo, hi))

    def pixel(idx):  # idx: per-dim integer arrays over (N, *out) -> values (N, C, *out)
        ok = np.ones(idx[0].shape, dtype=bool)
        fixed = []
        for d, v in enumerate(idx):
            L = dims[d]
            if pad == "zeros":
                ok &= (v >= 0) & (v < L)
                v = np.clip(v, 0, L - 1)
            elif pad == "border":
                v = np.clip(v, 0, L - 1)
            else:
                v = np.trunc(_np_reflect(v.astype(np.float64), *bounds[d])).astype(np.int64)
            fixed.append(v)
        vals = np.moveaxis(_gather(xd, n_idx, fixed), -1, 1)  # (N, C, *out)
        return np.where(ok[:, None], vals, 0.0)

    if mode == "nearest":
        y = pixel([np.trunc(c).astype(np.int64) for c in coords])
    else:
        base = [np.floor(c).astype(np.int64) for c in coords]
        ts = [c - b for c, b in zip(coords, base)]
        if mode == "linear":
            taps = [(0, lambda t: 1 - t), (1, lambda t: t)]
            weights = [[f(t) for _, f in taps] for t in ts]
            offsets = [o for o, _ in taps]
        else:
            weights = [_np_cubic_coeffs(t) for t in ts]
            offsets = [-1, 0, 1, 2]
        y = 0.0
        for combo in itertools.product(range(len(offsets)), repeat=nd):
            w = 1.0
            for d, k in enumerate(combo):
                w = w * weights[d][k]
            y = y + w[:, None] * pixel([base[d] + offsets[k] for d, k in enumerate(combo)])
    return [np.asarray(y).astype(x.dtype)]


def _gather(xd: np.ndarray, n_idx, fixed):
    """xd[n, :, fixed...] for every output position, channels last."""
    moved = np.moveaxis(xd, 1, -1)  # (N, *dims, C)
    return moved[(n_idx,) + tuple(fixed)]


def _reflect_expr(x: Expr, lo: float, hi: float) -> Expr:
    """x reflected into [lo, hi] by the nearer border (x itself when inside)."""
    rng = hi - lo
    if rng <= 0:
        return const(lo, x.dtype)

    def fold(dx, near, far, sign):
        n = unary("floor", dx / rng)
        r = dx - n * rng
        even = binary("eq", unary("floor", n * 0.5) * 2.0, n)
        return select(even, near + r * sign, far - r * sign)

    below = fold(const(lo, x.dtype) - x, lo, hi, 1.0)
    above = fold(x - hi, hi, lo, -1.0)
    return select(binary("lt", x, lo), below, select(binary("gt", x, hi), above, x))


def _gs_pixel_index(v: Expr, L: int, pad: str, bounds, ct: DType) -> tuple[Expr, Expr | None]:
    """(index, in-range condition or None) of integer tap v under the padding mode."""
    if pad == "zeros":
        return v, in_range(v, 0, L)
    if pad == "border":
        return clamp_index(v, 0, L - 1), None
    return cast(_reflect_expr(cast(v, ct), *bounds), I64), None


@register("GridSample", reference=_ref_grid_sample)
def lower_grid_sample(ctx: LowerCtx) -> None:
    """Each output element: its grid coordinates, denormalised, then nearest / n-linear / n-cubic taps."""
    x, g, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    try:
        mode, pad, align = _gs_attrs(ctx.node, ctx.opset)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    if not x.dtype.is_float or not g.dtype.is_float:
        raise ctx.unsupported(f"types {x.dtype.name}, {g.dtype.name}")
    nd = x.rank - 2
    if g.rank != nd + 2 or g.shape[-1] != nd:
        raise ctx.unsupported(f"grid {g} for input {x}")
    ct = _math_dtype(x.dtype, g.dtype)
    i = out_vars(y.rank)
    n, c, o = i[0], i[1], i[2:]
    coords = []
    for d in range(nd):
        L = x.shape[2 + d]
        gv = cast(load(1, g, (n,) + tuple(o) + (const(nd - 1 - d, I64),)), ct)
        cd = (gv + 1.0) * (0.5 * (L - 1)) if align else ((gv + 1.0) * float(L) - 1.0) * 0.5
        if mode == "nearest":
            cd = unary("round", cd)
        lo, hi = _gs_bounds(L, align)
        outside = logical_or(binary("lt", cd, lo), binary("gt", cd, hi))
        if pad == "border":
            cd = select(outside, minimum(maximum(cd, 0.0), float(L - 1)), cd)
        elif pad == "reflection":
            cd = _reflect_expr(cd, lo, hi)
        coords.append(cd)

    def pixel(taps: list[Expr]) -> Expr:
        idx, conds = [], []
        for d, v in enumerate(taps):
            L = x.shape[2 + d]
            e, ok = _gs_pixel_index(v, L, pad, _gs_bounds(L, align), ct)
            idx.append(e)
            if ok is not None:
                conds.append(ok)
        val = cast(load(0, x, (n, c) + tuple(idx)), ct)
        if conds:
            cond = conds[0]
            for k in conds[1:]:
                cond = logical_and(cond, k)
            val = select(cond, val, const(0.0, ct))
        return val

    if mode == "nearest":
        body = pixel([cast(cd, I64) for cd in coords])
    else:
        base = [unary("floor", cd) for cd in coords]
        ts = [cd - b for cd, b in zip(coords, base)]
        ibase = [cast(b, I64) for b in base]
        if mode == "linear":
            offsets = [0, 1]
            weights = [[1.0 - t, t] for t in ts]
        else:
            offsets = [-1, 0, 1, 2]
            weights = [_np_cubic_coeffs(t) for t in ts]  # the same formulas build expressions
        body = None
        for combo in itertools.product(range(len(offsets)), repeat=nd):
            w = weights[0][combo[0]]
            for d in range(1, nd):
                w = w * weights[d][combo[d]]
            term = w * pixel([ibase[d] + offsets[k] for d, k in enumerate(combo)])
            body = term if body is None else body + term
    ctx.emit(TensorExpr("grid_sample", (x, g), y, cast(body, y.dtype)), [ctx.in_name(0), ctx.in_name(1)],
             ctx.out_name(0))


# --- AffineGrid ------------------------------------------------------------------------------------

def _affine_base(i, length: int, align: bool):
    """Normalised coordinate of position i along an axis of `length` (works on arrays and exprs)."""
    if align:
        return i * 0.0 - 1.0 if length == 1 else i * (2.0 / (length - 1)) - 1.0
    return (i * 2.0 + 1.0) * (1.0 / length) - 1.0


def _ref_affine_grid(node, inputs, opset):
    theta, size = np.asarray(inputs[0]), [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
    align = bool(node.attr("align_corners", 0))
    spatial = size[2:]
    nd = len(spatial)
    axes = [_affine_base(np.arange(L, dtype=np.float64), L, align) for L in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")                         # per spatial dim, (*spatial)
    base = np.stack([mesh[nd - 1 - j] for j in range(nd)] + [np.ones(spatial)], axis=-1)  # x first
    grid = np.einsum("nkj,...j->n...k", theta.astype(np.float64), base)
    return [grid.astype(theta.dtype)]


@register("AffineGrid", reference=_ref_affine_grid)
def lower_affine_grid(ctx: LowerCtx) -> None:
    """grid[n, s.., k] = sum_j theta[n, k, j] * base_j(s..) + theta[n, k, nd], in float64."""
    theta, y = ctx.input(0), ctx.out_types[0]
    size = [int(v) for v in np.asarray(ctx.require_const(1, "size")).reshape(-1)]
    spatial = size[2:]
    nd = len(spatial)
    if theta.shape[1:] != (nd, nd + 1) or y.shape != (size[0],) + tuple(spatial) + (nd,):
        raise ctx.unsupported(f"theta {theta} for size {size}")
    align = bool(ctx.attr("align_corners", 0))
    i = out_vars(y.rank)
    n, s, k = i[0], i[1:1 + nd], i[-1]
    body = cast(load(0, theta, (n, k, const(nd, I64))), F64)
    for j in range(nd):
        d = nd - 1 - j  # base component j runs along spatial dim nd-1-j (x is the last axis)
        b = _affine_base(cast(s[d], F64), spatial[d], align)
        body = body + cast(load(0, theta, (n, k, const(j, I64))), F64) * b
    ctx.emit(TensorExpr("affine_grid", (theta,), y, cast(body, y.dtype)), [ctx.in_name(0)], ctx.out_name(0))


# --- Col2Im ----------------------------------------------------------------------------------------

def _col2im_geometry(node, image, block):
    nd = len(image)
    dil = _ints(node.attr("dilations"), [1] * nd)
    pads = _ints(node.attr("pads"), [0] * (2 * nd))
    strides = _ints(node.attr("strides"), [1] * nd)
    ncol = [(image[d] + pads[d] + pads[nd + d] - (dil[d] * (block[d] - 1) + 1)) // strides[d] + 1
            for d in range(nd)]
    return dil, pads[:nd], strides, ncol


def _ref_col2im(node, inputs, opset):
    x = np.asarray(inputs[0])
    image = [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
    block = [int(v) for v in np.asarray(inputs[2]).reshape(-1)]
    dil, pb, strides, ncol = _col2im_geometry(node, image, block)
    kb = math.prod(block)
    n_batch, ck, length = x.shape
    if ck % kb or length != math.prod(ncol):
        raise ValueError(f"Col2Im input {x.shape} does not match image {image}, block {block}")
    cols = x.astype(np.float64).reshape((n_batch, ck // kb) + tuple(block) + tuple(ncol))
    out = np.zeros((n_batch, ck // kb) + tuple(image), dtype=np.float64)
    for k in np.ndindex(*block):
        for col in np.ndindex(*ncol):
            pos = [col[d] * strides[d] - pb[d] + k[d] * dil[d] for d in range(len(image))]
            if all(0 <= p < image[d] for d, p in enumerate(pos)):
                out[(slice(None), slice(None)) + tuple(pos)] += cols[(slice(None), slice(None)) + k + col]
    return [out.astype(x.dtype)]


@register("Col2Im", reference=_ref_col2im)
def lower_col2im(ctx: LowerCtx) -> None:
    """out[n, c, o..] = sum over block offsets k whose column (o + pad - k*dil) / stride exists."""
    x, y = ctx.input(0), ctx.out_types[0]
    image = [int(v) for v in np.asarray(ctx.require_const(1, "image_shape")).reshape(-1)]
    block = [int(v) for v in np.asarray(ctx.require_const(2, "block_shape")).reshape(-1)]
    dil, pb, strides, ncol = _col2im_geometry(ctx.node, image, block)
    nd = len(image)
    kb = math.prod(block)
    if x.rank != 3 or x.shape[1] % kb or x.shape[2] != math.prod(ncol) or y.shape[2:] != tuple(image):
        raise ctx.unsupported(f"input {x} for image {image}, block {block}")
    i = out_vars(y.rank)
    r = [Var(f"r{d}") for d in range(nd)]
    cond, kflat, cflat = None, const(0, I64), const(0, I64)
    for d in range(nd):
        t = i[2 + d] + pb[d] - r[d] * dil[d]
        ok = logical_and(binary("ge", t, 0), binary("eq", t % strides[d], 0))
        col = t // strides[d]
        ok = logical_and(ok, binary("lt", col, ncol[d]))
        cond = ok if cond is None else logical_and(cond, ok)
        kflat = kflat * block[d] + r[d]
        cflat = cflat * ncol[d] + col
    acc_t = y.dtype if not y.dtype.is_float else _math_dtype(y.dtype)
    v = cast(load(0, x, (i[0], i[1] * kb + kflat, cflat)), acc_t)
    body = select(cond, v, const(0, acc_t))
    red = Reduce("sum", tuple((f"r{d}", block[d]) for d in range(nd)))
    ctx.emit(TensorExpr("col2im", (x,), y, body, red, cast(Var("acc", acc_t), y.dtype)), [ctx.in_name(0)],
             ctx.out_name(0))


# --- RoiAlign --------------------------------------------------------------------------------------

def _roi_align_attrs(node, opset: int):
    half_pixel = opset >= 16 and text(node.attr("coordinate_transformation_mode", "half_pixel")) == "half_pixel"
    mode = text(node.attr("mode", "avg"))
    if mode not in ("avg", "max"):
        raise ValueError(f"mode {mode}")
    return (half_pixel, mode, int(node.attr("output_height", 1)), int(node.attr("output_width", 1)),
            int(node.attr("sampling_ratio", 0)), float(np.float32(node.attr("spatial_scale", 1.0))))


def _ref_roi_align(node, inputs, opset):
    x, rois, bidx = np.asarray(inputs[0]), np.asarray(inputs[1]), np.asarray(inputs[2])
    half_pixel, mode, ph_n, pw_n, ratio, scale = _roi_align_attrs(node, opset)
    ft = np.float64 if x.dtype == np.float64 else np.float32
    H, W = x.shape[2], x.shape[3]
    xd = x.astype(ft)
    out = np.zeros((rois.shape[0], x.shape[1], ph_n, pw_n), dtype=ft)
    off = ft(0.5 if half_pixel else 0.0)
    for r in range(rois.shape[0]):
        x1, y1, x2, y2 = (ft(v) * ft(scale) - off for v in rois[r].astype(ft))
        rw, rh = ft(x2 - x1), ft(y2 - y1)
        if not half_pixel:
            rw, rh = max(rw, ft(1)), max(rh, ft(1))
        bh, bw = ft(rh / ft(ph_n)), ft(rw / ft(pw_n))
        gh = ratio if ratio > 0 else int(np.ceil(rh / ft(ph_n)))
        gw = ratio if ratio > 0 else int(np.ceil(rw / ft(pw_n)))
        count = ft(max(gh * gw, 1))
        plane = xd[int(bidx[r])]  # (C, H, W)
        for ph in range(ph_n):
            for pw in range(pw_n):
                acc, have = np.zeros(x.shape[1], ft), False
                for iy in range(gh):
                    yy = ft(y1 + ft(ph) * bh + ft(ft(iy + 0.5) * bh) / ft(gh))
                    for ix in range(gw):
                        xx = ft(x1 + ft(pw) * bw + ft(ft(ix + 0.5) * bw) / ft(gw))
                        if yy < -1.0 or yy > H or xx < -1.0 or xx > W:
                            vals = [np.zeros(x.shape[1], ft)] * 4
                        else:
                            yv, xv = max(yy, ft(0)), max(xx, ft(0))
                            yl, xl = int(yv), int(xv)
                            if yl >= H - 1:
                                yl = yh = H - 1
                                yv = ft(yl)
                            else:
                                yh = yl + 1
                            if xl >= W - 1:
                                xl = xh = W - 1
                                xv = ft(xl)
                            else:
                                xh = xl + 1
                            ly, lx = ft(yv - yl), ft(xv - xl)
                            hy, hx = ft(1) - ly, ft(1) - lx
                            vals = [hy * hx * plane[:, yl, xl], hy * lx * plane[:, yl, xh],
                                    ly * hx * plane[:, yh, xl], ly * lx * plane[:, yh, xh]]
                        if mode == "avg":
                            acc = acc + (((vals[0] + vals[1]) + vals[2]) + vals[3])
                        else:
                            v = np.maximum(np.maximum(np.maximum(vals[0], vals[1]), vals[2]), vals[3])
                            acc = v if not have else np.maximum(acc, v)
                            have = True
                out[r, :, ph, pw] = acc / count if mode == "avg" else acc
    return [out.astype(x.dtype)]


@register("RoiAlign", reference=_ref_roi_align)
def lower_roi_align(ctx: LowerCtx) -> None:
    """One thread per output element walks its bin's sampling grid (extent from the ROI's size)."""
    x, rois, bidx, y = ctx.input(0), ctx.input(1), ctx.input(2), ctx.out_types[0]
    try:
        half_pixel, mode, ph_n, pw_n, ratio, scale = _roi_align_attrs(ctx.node, ctx.opset)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    if not x.dtype.is_float or x.rank != 4 or rois.shape[-1] != 4:
        raise ctx.unsupported(f"input {x}, rois {rois}")
    ct_dt = _math_dtype(x.dtype)
    ct = ct_dt.compute_ctype
    C, H, W = x.shape[1], x.shape[2], x.shape[3]
    total = y.size
    if total == 0:
        return
    f = lambda v: _c_float(v, ct_dt)  # noqa: E731
    if mode == "avg":
        combine = "acc += ((w1 * v1 + w2 * v2) + w3 * v3) + w4 * v4;"
        finish = f"acc / ({ct})count"
    else:
        combine = ("{ " + ct + " m = by_max(by_max(by_max(w1 * v1, w2 * v2), w3 * v3), w4 * v4); "
                   "acc = have ? by_max(acc, m) : m; have = true; }")
        finish = "acc"
    # ROIs of a run-time number (a filtered list): rows past it are padding, written as zeros
    # without sampling (their boxes and batch indices are not the model's), the output's rows theirs
    counts = list(dict.fromkeys(e[0] for e in (ctx.run_time_extent(1), ctx.run_time_extent(2)) if e is not None))
    params = f"""const {x.dtype.ctype}* __restrict__ X, const {rois.dtype.ctype}* __restrict__ rois,
    const {bidx.dtype.ctype}* __restrict__ bidx, {y.dtype.ctype}* __restrict__ Y""" + "".join(
        f", const long long* __restrict__ rows{k}" for k in range(len(counts)))
    past = " || ".join(f"r >= rows{k}[0]" for k in range(len(counts)))
    body = f"""  for (long long p = (long long){BLOCK_X} * blockDim.x + threadIdx.x; p < {total}ll; p += (long long){GRID_X} * blockDim.x) {{
    const long long pw = p % {pw_n}ll, ph = (p / {pw_n}ll) % {ph_n}ll;
    const long long c = (p / {pw_n * ph_n}ll) % {C}ll, r = p / {pw_n * ph_n * C}ll;
{f"    if ({past}) {{ Y[p] = ({y.dtype.ctype})0; continue; }}{chr(10)}" if counts else ""}    const {ct} off = {f(0.5 if half_pixel else 0.0)}, scale = {f(scale)};
    const {ct} x1 = ({ct})rois[r * 4 + 0] * scale - off, y1 = ({ct})rois[r * 4 + 1] * scale - off;
    const {ct} x2 = ({ct})rois[r * 4 + 2] * scale - off, y2 = ({ct})rois[r * 4 + 3] * scale - off;
    {ct} rw = x2 - x1, rh = y2 - y1;
    {"" if half_pixel else f"rw = by_max(rw, {f(1.0)}); rh = by_max(rh, {f(1.0)});"}
    const {ct} bh = rh / {f(ph_n)}, bw = rw / {f(pw_n)};
    const long long gh = {ratio if ratio > 0 else f"(long long)ceil(rh / {f(ph_n)})"};
    const long long gw = {ratio if ratio > 0 else f"(long long)ceil(rw / {f(pw_n)})"};
    const long long count = gh * gw > 1 ? gh * gw : 1;
    const {x.dtype.ctype}* plane = X + ((long long)bidx[r] * {C}ll + c) * {H * W}ll;
    {ct} acc = 0; bool have = false;
    for (long long iy = 0; iy < gh; ++iy) {{
      const {ct} yy = y1 + ({ct})ph * bh + ({ct})(iy + 0.5) * bh / ({ct})gh;
      for (long long ix = 0; ix < gw; ++ix) {{
        const {ct} xx = x1 + ({ct})pw * bw + ({ct})(ix + 0.5) * bw / ({ct})gw;
        {ct} w1 = 0, w2 = 0, w3 = 0, w4 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0;
        if (!(yy < -1 || yy > {H} || xx < -1 || xx > {W})) {{
          {ct} yv = yy > 0 ? yy : 0, xv = xx > 0 ? xx : 0;
          long long yl = (long long)yv, xl = (long long)xv, yh, xh;
          if (yl >= {H - 1}) {{ yl = yh = {H - 1}; yv = ({ct})yl; }} else {{ yh = yl + 1; }}
          if (xl >= {W - 1}) {{ xl = xh = {W - 1}; xv = ({ct})xl; }} else {{ xh = xl + 1; }}
          const {ct} ly = yv - ({ct})yl, lx = xv - ({ct})xl, hy = 1 - ly, hx = 1 - lx;
          w1 = hy * hx; w2 = hy * lx; w3 = ly * hx; w4 = ly * lx;
          v1 = ({ct})plane[yl * {W} + xl]; v2 = ({ct})plane[yl * {W} + xh];
          v3 = ({ct})plane[yh * {W} + xl]; v4 = ({ct})plane[yh * {W} + xh];
        }}
        {combine}
      }}
    }}
    Y[p] = ({y.dtype.ctype})({finish});
  }}
"""
    entry, src = finish_kernel("roi_align", params, body)
    grid, block = _grid_launch(total)
    ctx.emit_kernel(Kernel(entry=entry, source=src, params=(
        KernelParam(x.dtype.ctype, ctx.in_name(0), False), KernelParam(rois.dtype.ctype, ctx.in_name(1), False),
        KernelParam(bidx.dtype.ctype, ctx.in_name(2), False), KernelParam(y.dtype.ctype, ctx.out_name(0), True),
        *(KernelParam("long long", c, False) for c in counts)),
        grid=grid, block=block, config=(("schedule", "roi_per_thread"),)))
    if counts:
        ctx.set_run_time_extent(0, counts[0], 0)


# --- MaxRoiPool ------------------------------------------------------------------------------------

def _round_half_away(v: float) -> int:
    return int(math.floor(v + 0.5)) if v >= 0 else int(math.ceil(v - 0.5))


def _ref_max_roi_pool(node, inputs, opset):
    x, rois = np.asarray(inputs[0]), np.asarray(inputs[1])
    ph_n, pw_n = (int(v) for v in node.attr("pooled_shape"))
    scale = float(np.float32(node.attr("spatial_scale", 1.0)))
    H, W = x.shape[2], x.shape[3]
    out = np.zeros((rois.shape[0], x.shape[1], ph_n, pw_n), dtype=x.dtype)
    f32 = np.float32
    for r in range(rois.shape[0]):
        b = int(rois[r, 0])
        sw, sh, ew, eh = (_round_half_away(float(f32(rois[r, k]) * f32(scale))) for k in (1, 2, 3, 4))
        rh, rw = max(eh - sh + 1, 1), max(ew - sw + 1, 1)
        bh, bw = f32(rh) / f32(ph_n), f32(rw) / f32(pw_n)
        for ph in range(ph_n):
            hs = min(max(int(np.floor(f32(ph) * bh)) + sh, 0), H)
            he = min(max(int(np.ceil(f32(ph + 1) * bh)) + sh, 0), H)
            for pw in range(pw_n):
                ws = min(max(int(np.floor(f32(pw) * bw)) + sw, 0), W)
                we = min(max(int(np.ceil(f32(pw + 1) * bw)) + sw, 0), W)
                if he > hs and we > ws:
                    out[r, :, ph, pw] = x[b, :, hs:he, ws:we].max(axis=(1, 2))
    return [out]


@register("MaxRoiPool", reference=_ref_max_roi_pool)
def lower_max_roi_pool(ctx: LowerCtx) -> None:
    """One thread per output element takes the maximum over its bin (0 for an empty bin)."""
    x, rois, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    if not x.dtype.is_float or x.rank != 4 or rois.shape[-1] != 5:
        raise ctx.unsupported(f"input {x}, rois {rois}")
    ph_n, pw_n = (int(v) for v in ctx.attr("pooled_shape"))
    scale = float(np.float32(ctx.attr("spatial_scale", 1.0)))
    C, H, W = x.shape[1], x.shape[2], x.shape[3]
    total = y.size
    if total == 0:
        return
    ct = x.dtype.compute_ctype
    helpers = f"""BY_DEVICE long long {NAME_PLACEHOLDER}_round(float v) {{ return (long long)(v >= 0.0f ? floorf(v + 0.5f) : ceilf(v - 0.5f)); }}
BY_DEVICE long long {NAME_PLACEHOLDER}_clip(long long v, long long hi) {{ return v < 0 ? 0 : (v > hi ? hi : v); }}"""
    params = f"""const {x.dtype.ctype}* __restrict__ X, const {rois.dtype.ctype}* __restrict__ rois,
    {y.dtype.ctype}* __restrict__ Y"""
    body = f"""  for (long long p = (long long){BLOCK_X} * blockDim.x + threadIdx.x; p < {total}ll; p += (long long){GRID_X} * blockDim.x) {{
    const long long pw = p % {pw_n}ll, ph = (p / {pw_n}ll) % {ph_n}ll;
    const long long c = (p / {pw_n * ph_n}ll) % {C}ll, r = p / {pw_n * ph_n * C}ll;
    const {rois.dtype.ctype}* roi = rois + r * 5;
    const long long b = (long long)(float)roi[0];
    const long long sw = {NAME_PLACEHOLDER}_round((float)roi[1] * {scale!r}f);
    const long long sh = {NAME_PLACEHOLDER}_round((float)roi[2] * {scale!r}f);
    const long long ew = {NAME_PLACEHOLDER}_round((float)roi[3] * {scale!r}f);
    const long long eh = {NAME_PLACEHOLDER}_round((float)roi[4] * {scale!r}f);
    const long long rh = eh - sh + 1 > 1 ? eh - sh + 1 : 1, rw = ew - sw + 1 > 1 ? ew - sw + 1 : 1;
    const float bh = (float)rh / {float(ph_n)!r}f, bw = (float)rw / {float(pw_n)!r}f;
    const long long hs = {NAME_PLACEHOLDER}_clip((long long)floorf((float)ph * bh) + sh, {H});
    const long long he = {NAME_PLACEHOLDER}_clip((long long)ceilf((float)(ph + 1) * bh) + sh, {H});
    const long long ws = {NAME_PLACEHOLDER}_clip((long long)floorf((float)pw * bw) + sw, {W});
    const long long we = {NAME_PLACEHOLDER}_clip((long long)ceilf((float)(pw + 1) * bw) + sw, {W});
    const {x.dtype.ctype}* plane = X + (b * {C}ll + c) * {H * W}ll;
    {ct} best = 0; bool have = false;
    for (long long h = hs; h < he; ++h)
      for (long long w = ws; w < we; ++w) {{
        const {ct} v = ({ct})plane[h * {W} + w];
        best = have ? by_max(best, v) : v; have = true;
      }}
    Y[p] = ({y.dtype.ctype})best;
  }}
"""
    entry, src = finish_kernel("max_roi_pool", params, body, helpers=helpers)
    grid, block = _grid_launch(total)
    ctx.emit_kernel(Kernel(entry=entry, source=src, params=(
        KernelParam(x.dtype.ctype, ctx.in_name(0), False), KernelParam(rois.dtype.ctype, ctx.in_name(1), False),
        KernelParam(y.dtype.ctype, ctx.out_name(0), True)),
        grid=grid, block=block, config=(("schedule", "roi_per_thread"),)))


# --- Det -------------------------------------------------------------------------------------------

def _ref_det(node, inputs, opset):
    x = np.asarray(inputs[0])
    return [np.asarray(np.linalg.det(x.astype(np.float64))).astype(x.dtype)]


@register("Det", reference=_ref_det)
def lower_det(ctx: LowerCtx) -> None:
    """One thread per matrix: LU with partial pivoting in float64, in a scratch copy."""
    x, y = ctx.input(0), ctx.out_types[0]
    if not x.dtype.is_float or x.rank < 2 or x.shape[-1] != x.shape[-2]:
        raise ctx.unsupported(f"input {x}")
    m = x.shape[-1]
    batch = y.size
    if batch == 0:
        return
    scratch = ctx.temp(TensorType(F64, (batch, m, m)), "lu")
    params = f"""const {x.dtype.ctype}* __restrict__ X, double* __restrict__ A,
    {y.dtype.ctype}* __restrict__ Y"""
    body = f"""  for (long long b = (long long){BLOCK_X} * blockDim.x + threadIdx.x; b < {batch}ll; b += (long long){GRID_X} * blockDim.x) {{
    double* a = A + b * {m * m}ll;
    const {x.dtype.ctype}* src = X + b * {m * m}ll;
    for (long long k = 0; k < {m * m}ll; ++k) a[k] = (double)({x.dtype.compute_ctype})src[k];
    double det = 1.0;
    for (long long j = 0; j < {m}ll && det != 0.0; ++j) {{
      long long piv = j;
      double best = a[j * {m} + j] < 0 ? -a[j * {m} + j] : a[j * {m} + j];
      for (long long i = j + 1; i < {m}ll; ++i) {{
        const double v = a[i * {m} + j] < 0 ? -a[i * {m} + j] : a[i * {m} + j];
        if (v > best) {{ best = v; piv = i; }}
      }}
      if (best == 0.0) {{ det = 0.0; break; }}
      if (piv != j) {{
        for (long long k = 0; k < {m}ll; ++k) {{ const double t = a[j * {m} + k]; a[j * {m} + k] = a[piv * {m} + k]; a[piv * {m} + k] = t; }}
        det = -det;
      }}
      const double d = a[j * {m} + j];
      det *= d;
      for (long long i = j + 1; i < {m}ll; ++i) {{
        const double f = a[i * {m} + j] / d;
        for (long long k = j + 1; k < {m}ll; ++k) a[i * {m} + k] -= f * a[j * {m} + k];
      }}
    }}
    Y[b] = ({y.dtype.ctype})({x.dtype.compute_ctype})det;
  }}
"""
    entry, src = finish_kernel("det_lu", params, body)
    grid, block = _grid_launch(batch)
    ctx.emit_kernel(Kernel(entry=entry, source=src, params=(
        KernelParam(x.dtype.ctype, ctx.in_name(0), False), KernelParam("double", scratch, True),
        KernelParam(y.dtype.ctype, ctx.out_name(0), True)),
        grid=grid, block=block, config=(("schedule", "matrix_per_thread"),)))


# --- CausalConvWithState ---------------------------------------------------------------------------

def _causal_activation(node) -> str:
    act = text(node.attr("activation", "none"))
    if act not in ("none", "silu", "swish"):
        raise ValueError(f"activation {act}")
    return act


def _ref_causal_conv(node, inputs, opset):
    x, w = np.asarray(inputs[0]), np.asarray(inputs[1])
    bias = opt(inputs, 2) if node.has_input(2) else None
    past = opt(inputs, 3) if node.has_input(3) else None
    act = _causal_activation(node)
    b, c, length = x.shape
    k = w.shape[2]
    pad = np.zeros((b, c, k - 1), x.dtype) if past is None else np.asarray(past)
    padded = np.concatenate([pad, x], axis=2).astype(np.float64)
    out = np.zeros((b, c, length), np.float64)
    for j in range(k):
        out += w[None, :, 0, j, None].astype(np.float64) * padded[:, :, j:j + length]
    if bias is not None:
        out += np.asarray(bias).astype(np.float64)[None, :, None]
    out = out.astype(x.dtype)
    if act != "none":
        v = out.astype(np.float32)
        out = (v / (1 + np.exp(-v))).astype(x.dtype)
    return [out, padded[:, :, length:].astype(x.dtype)]


@register("CausalConvWithState", reference=_ref_causal_conv)
def lower_causal_conv(ctx: LowerCtx) -> None:
    """A depthwise causal conv over [past_state, input] (one reduction over the kernel), and the
    last k-1 positions of that concatenation as the new state."""
    x, w, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    node = ctx.node
    has_bias = node.has_input(2)
    has_past = node.has_input(3)
    try:
        act = _causal_activation(node)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    if not x.dtype.is_float or x.rank != 3 or w.rank != 3 or w.shape[1] != 1:
        raise ctx.unsupported(f"input {x}, weight {w}")
    k = w.shape[2]
    ct = _math_dtype(x.dtype)
    types, names = [x, w], [ctx.in_name(0), ctx.in_name(1)]
    bias_arg = past_arg = None
    if has_bias:
        bias_arg = len(types)
        types.append(ctx.input(2))
        names.append(ctx.in_name(2))
    if has_past:
        past_arg = len(types)
        types.append(ctx.input(3))
        names.append(ctx.in_name(3))

    def padded(b: Expr, c: Expr, p: Expr) -> Expr:
        """[past_state (or zeros), input][b, c, p] in the compute type."""
        cur = cast(load(0, x, (b, c, p - (k - 1))), ct)
        before = cast(load(past_arg, types[past_arg], (b, c, p)), ct) if has_past else const(0.0, ct)
        return select(binary("lt", p, k - 1), before, cur) if k > 1 else cur

    b, c, t = out_vars(3)
    r = Var("r0")
    body = cast(load(1, w, (c, const(0, I64), r)), ct) * padded(b, c, t + r)
    acc = Var("acc", ct)
    v = acc + cast(load(bias_arg, types[bias_arg], (c,)), ct) if has_bias else acc
    if x.dtype in (DType.float16, DType.bfloat16):
        v = cast(cast(v, x.dtype), F32)  # the reference rounds the conv to the input type first
    if act != "none":
        v = v * unary("sigmoid", v)
    ctx.emit(TensorExpr("causal_conv", tuple(types), y, body, Reduce("sum", (("r0", k),)), cast(v, y.dtype)),
             names, ctx.out_name(0))
    if len(node.outputs) > 1 and node.outputs[1] and k > 1:
        st = ctx.out_types[1]
        sb, sc, s = out_vars(3)
        ctx.emit(TensorExpr("causal_conv_state", tuple(types), st, cast(padded(sb, sc, s + x.shape[2]), st.dtype)),
                 names, ctx.out_name(1))
