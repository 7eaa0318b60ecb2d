"""Contractions: MatMul, Gemm, Einsum, Conv, ConvTranspose and their integer/quantised forms.

Each op is one TensorExpr with a sum reduction (one thread per output element, a serial loop
over the contracted axes); Roller retiles the same expressions later. Conv is a reduction over
(input channel in group, kernel positions) with select() guarding the padding: no im2col."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import (Expr, Reduce, TensorExpr, Var, binary, broadcast_index, cast, const,
                        load, logical_and, maximum, minimum, out_vars, select, unary)
from .registry import LowerCtx, register

ACC_VAR = "acc"


# --- shared helpers -----------------------------------------------------------------------------

def _ints(v, default) -> tuple[int, ...]:
    return tuple(int(x) for x in v) if v is not None else tuple(default)


def _str_attr(node, name: str, default: str) -> str:
    v = node.attr(name, default)
    return v.decode() if isinstance(v, bytes) else str(v)


AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def _auto_pad(node) -> str:
    """The node's auto_pad, one of AUTO_PADS (a ShapeError for anything else: read as NOTSET, a
    misspelt SAME_UPPER would pad nothing, silently)."""
    auto_pad = _str_attr(node, "auto_pad", "NOTSET")
    if auto_pad not in AUTO_PADS:
        raise ShapeError(f"auto_pad {auto_pad!r} is not one of {', '.join(AUTO_PADS)}",
                         node=getattr(node, "name", None))
    return auto_pad


def reduction_axes(extents, op: str = "sum") -> tuple[list[Expr], Reduce]:
    """Reduction variables for `extents` (extent-1 axes become the constant 0) and their Reduce."""
    exprs: list[Expr] = []
    axes: list[tuple[str, int]] = []
    for n in extents:
        if n == 1:
            exprs.append(const(0, DType.int64))
        else:
            name = f"r{len(axes)}"
            axes.append((name, int(n)))
            exprs.append(Var(name))
    if not axes:
        # every axis trivial: keep one unit axis so the op stays a reduction with an epilogue
        return exprs, Reduce(op, (("r0", 1),))
    return exprs, Reduce(op, tuple(axes))


def acc_var(body: Expr) -> Var:
    """The accumulator variable an epilogue reads (in the body's type)."""
    return Var(ACC_VAR, body.dtype)


def _wide(a: np.ndarray) -> np.ndarray:
    """Reference arithmetic: floating types (half ones included) compute in float64, ints as they are."""
    return a.astype(np.float64) if DType.from_numpy(a.dtype).is_float else a


def _scalar_or_vec_index(t: TensorType, var: Expr) -> tuple[Expr, ...]:
    """Index into a zero point / scale that is a scalar, a [1] tensor or a vector along `var`."""
    if t.rank == 0:
        return ()
    if t.size == 1:
        return tuple(const(0, DType.int64) for _ in t.shape)
    if t.rank != 1:
        raise ValueError(f"zero point / scale of shape {t.shape}: scalar or 1-D expected")
    return (var,)


# --- window geometry (Conv, ConvTranspose and pooling share it) --------------------------------

@dataclass(frozen=True)
class Window:
    """Where output position o of a sliding window reads: o*stride + k*dilation - pad_begin."""

    in_shape: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    out_shape: tuple[int, ...]

    def position(self, d: int, o, k) -> Expr:
        return o * self.strides[d] + k * self.dilations[d] - self.pads_begin[d]

    def may_underflow(self, d: int) -> bool:
        return self.pads_begin[d] > 0

    def reachable(self, d: int) -> tuple[int, int]:
        """(first, count): the kernel positions along dim d that some output reads inside the input.
        A window wider than its input (EfficientNet's pooler: a 2560-wide AveragePool over a 2x2
        map, ceil_mode) reduces over these alone; the rest are padding for every output."""
        s, dil, pb = self.strides[d], self.dilations[d], self.pads_begin[d]
        lo = max(0, -(-(pb - (self.out_shape[d] - 1) * s) // dil))      # k * dil >= pb - o_max * s
        hi = min(self.kernel[d] - 1, (self.in_shape[d] - 1 + pb) // dil)  # k * dil <= in - 1 + pb (o = 0)
        return (lo, hi - lo + 1) if hi >= lo else (0, 1)

    def may_overflow(self, d: int) -> bool:
        last = (self.out_shape[d] - 1) * self.strides[d] + (self.kernel[d] - 1) * self.dilations[d] - self.pads_begin[d]
        return last > self.in_shape[d] - 1


def window_geometry(node, in_spatial, kernel, *, ceil_mode: bool = False) -> Window:
    """Pads and output extent of a Conv/pool window per the ONNX spec (auto_pad, ceil_mode)."""
    n = len(in_spatial)
    strides = _ints(node.attr("strides"), [1] * n)
    dil = _ints(node.attr("dilations"), [1] * n)
    auto_pad = _auto_pad(node)
    eff = [(k - 1) * d + 1 for k, d in zip(kernel, dil)]
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = [-(-i // s) for i, s in zip(in_spatial, strides)]
        total = [max(0, (o - 1) * s + e - i) for o, s, e, i in zip(out, strides, eff, in_spatial)]
        if auto_pad == "SAME_UPPER":
            pb = [t // 2 for t in total]
        else:
            pb = [t - t // 2 for t in total]
        pe = [t - b for t, b in zip(total, pb)]
    else:
        if auto_pad == "VALID":
            pads = [0] * (2 * n)
        else:
            pads = list(_ints(node.attr("pads"), [0] * (2 * n)))
        pb, pe = pads[:n], pads[n:]
        out = []
        for d in range(n):
            span = in_spatial[d] + pb[d] + pe[d] - eff[d]
            if ceil_mode:
                o = -(-span // strides[d]) + 1
                # the last window must start inside the input or the left padding
                if (o - 1) * strides[d] >= in_spatial[d] + pb[d]:
                    o -= 1
            else:
                o = span // strides[d] + 1
            out.append(o)
    return Window(tuple(in_spatial), tuple(kernel), strides, dil, tuple(pb), tuple(pe), tuple(out))


def window_guard(win: Window, positions) -> Expr | None:
    """`positions` all inside the input (None when no position can fall outside)."""
    cond = None
    for d, p in enumerate(positions):
        parts = []
        if win.may_underflow(d):
            parts.append(binary("ge", p, 0))
        if win.may_overflow(d):
            parts.append(binary("lt", p, win.in_shape[d]))
        for c in parts:
            cond = c if cond is None else logical_and(cond, c)
    return cond


def gather_windows(x: np.ndarray, win: Window, fill):
    """Yields (kernel offset, values[N, C, *out], valid mask) for every kernel position (reference)."""
    n = len(win.kernel)
    for koff in np.ndindex(*win.kernel):
        idx, valid = [], None
        for d in range(n):
            o = np.arange(win.out_shape[d])
            p = o * win.strides[d] + koff[d] * win.dilations[d] - win.pads_begin[d]
            ok = (p >= 0) & (p < win.in_shape[d])
            shape = [1] * n
            shape[d] = -1
            idx.append(np.clip(p, 0, max(win.in_shape[d] - 1, 0)).reshape(shape))
            ok = ok.reshape(shape)
            valid = ok if valid is None else valid & ok
        vals = x[(slice(None), slice(None)) + tuple(idx)]
        vals = np.where(valid, vals, fill)
        yield koff, vals, np.broadcast_to(valid, vals.shape[2:])


# --- MatMul ---------------------------------------------------------------------------------------

def _ref_matmul(node, inputs, opset):
    a, b = inputs
    return [np.matmul(_wide(a), _wide(b)).astype(a.dtype)]


def _matmul_indices(a: TensorType, b: TensorType, out: TensorType, k: Expr):
    """Index tuples into A and B for output vars (numpy matmul: 1-D operands, batch broadcast)."""
    i = out_vars(out.rank)
    a_mat = a.rank >= 2
    b_mat = b.rank >= 2
    nb = out.rank - int(a_mat) - int(b_mat)
    batch_shape, batch_vars = out.shape[:nb], i[:nb]
    pos = nb
    m = n = None
    if a_mat:
        m, pos = i[pos], pos + 1
    if b_mat:
        n = i[pos]
    a_idx = (broadcast_index(batch_shape, a.shape[:-2], batch_vars) + (m, k)) if a_mat else (k,)
    b_idx = (broadcast_index(batch_shape, b.shape[:-2], batch_vars) + (k, n)) if b_mat else (k,)
    return a_idx, b_idx, m, n


@register("MatMul", reference=_ref_matmul)
def lower_matmul(ctx: LowerCtx) -> None:
    a, b, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    kdim = a.shape[-1]
    (kv,), red = reduction_axes([kdim])
    a_idx, b_idx, _, _ = _matmul_indices(a, b, y, kv)
    body = load(0, a, a_idx) * load(1, b, b_idx)
    ctx.emit(TensorExpr("matmul", (a, b), y, body, red), [ctx.in_name(0), ctx.in_name(1)], ctx.out_name(0))


def _zp_minus(v: np.ndarray, zp, per_row: bool) -> np.ndarray:
    """v - zero_point: a scalar, a per-row M vector (A), or a tensor broadcast to v (B, or [..., M, 1])."""
    if zp is None:
        return v
    zp = zp.astype(np.int32)
    if zp.size == 1:
        return v - zp.reshape(())
    if per_row and zp.ndim == 1:
        return v - zp.reshape(-1, 1)
    return v - zp


def _ref_matmul_integer(node, inputs, opset):
    a, b = inputs[0].astype(np.int32), inputs[1].astype(np.int32)
    azp = inputs[2] if len(inputs) > 2 else None
    bzp = inputs[3] if len(inputs) > 3 else None
    return [np.matmul(_zp_minus(a, azp, True), _zp_minus(b, bzp, False)).astype(np.int32)]


def _zp_index(zt: TensorType, operand: TensorType, idx: tuple, row) -> tuple[Expr, ...]:
    """Index into a MatMul zero point / scale: scalar, per-row vector (`row` set) or broadcast."""
    if zt.size == 1:
        return tuple(const(0, DType.int64) for _ in zt.shape)
    if zt.rank == 1 and row is not None:
        return (row,)
    return broadcast_index(operand.shape, zt.shape, idx)


@register("MatMulInteger", reference=_ref_matmul_integer)
def lower_matmul_integer(ctx: LowerCtx) -> None:
    a, b, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    (kv,), red = reduction_axes([a.shape[-1]])
    a_idx, b_idx, m, n = _matmul_indices(a, b, y, kv)
    used = [0, 1] + [k for k in (2, 3) if ctx.has_input(k)]
    types = tuple(ctx.input(k) for k in used)
    remap = {k: j for j, k in enumerate(used)}

    def operand(arg, zp_arg, idx, row):
        v = cast(load(remap[arg], ctx.input(arg), idx), DType.int32)
        if zp_arg in remap:
            zt = ctx.input(zp_arg)
            v = v - cast(load(remap[zp_arg], zt, _zp_index(zt, ctx.input(arg), idx, row)), DType.int32)
        return v

    body = operand(0, 2, a_idx, m) * operand(1, 3, b_idx, None)
    ctx.emit(TensorExpr("matmul_integer", types, y, body, red), [ctx.node.inputs[k] for k in used], ctx.out_name(0))


def _ref_qlinear_matmul(node, inputs, opset):
    a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp = inputs
    acc = _ref_matmul_integer(node, [a, b, a_zp, b_zp], opset)[0]
    a_s = a_s.reshape(-1, 1) if a_s.ndim == 1 and a_s.size > 1 else (a_s.reshape(()) if a_s.size == 1 else a_s)
    b_s = b_s.reshape(()) if b_s.size == 1 else b_s
    mult = (a_s * b_s) / y_s.reshape(())
    r = acc.astype(np.float64) * mult.astype(np.float32).astype(np.float64) + float(y_zp.reshape(()))
    info = np.iinfo(y_zp.dtype)
    return [np.clip(np.rint(r), info.min, info.max).astype(y_zp.dtype)]


@register("QLinearMatMul", reference=_ref_qlinear_matmul)
def lower_qlinear_matmul(ctx: LowerCtx) -> None:
    a, b, y = ctx.input(0), ctx.input(3), ctx.out_types[0]
    ts = tuple(ctx.input(k) for k in range(8))
    (kv,), red = reduction_axes([a.shape[-1]])
    a_idx, b_idx, m, n = _matmul_indices(a, b, y, kv)

    def operand(arg, zp_arg, idx, row):
        v = cast(load(arg, ts[arg], idx), DType.int32)
        return v - cast(load(zp_arg, ts[zp_arg], _zp_index(ts[zp_arg], ts[arg], idx, row)), DType.int32)

    body = operand(0, 2, a_idx, m) * operand(3, 5, b_idx, None)
    # per-row / per-column scales have extent 1 along K, so the epilogue only sees output vars
    a_sc = load(1, ts[1], _zp_index(ts[1], a, a_idx, m))
    b_sc = load(4, ts[4], _zp_index(ts[4], b, b_idx, None))
    scale = (a_sc * b_sc) / load(6, ts[6], _scalar_or_vec_index(ts[6], None))
    epi = _requantize(acc_var(body), scale, ts[7], 7, y.dtype)
    ctx.emit(TensorExpr("qlinear_matmul", ts, y, body, red, epi), list(ctx.node.inputs[:8]), ctx.out_name(0))


def _requantize(acc: Expr, scale: Expr, zp_t: TensorType, zp_arg: int, out: DType) -> Expr:
    """saturate(rint(acc * scale) + zero_point), computed in double as the reference does."""
    r = cast(acc, DType.float64) * cast(scale, DType.float32 if scale.dtype is not DType.float64 else DType.float64)
    r = cast(r, DType.float64) + cast(load(zp_arg, zp_t, _scalar_or_vec_index(zp_t, None)), DType.float64)
    info = np.iinfo(out.np)
    r = unary("round", r)
    r = minimum(maximum(r, float(info.min)), float(info.max))
    return cast(r, out)


# --- Gemm -----------------------------------------------------------------------------------------

def _ref_gemm(node, inputs, opset):
    a, b = _wide(inputs[0]), _wide(inputs[1])
    c = inputs[2] if len(inputs) > 2 else None
    if node.attr("transA", 0):
        a = a.T
    if node.attr("transB", 0):
        b = b.T
    alpha, beta = float(node.attr("alpha", 1.0)), float(node.attr("beta", 1.0))
    if a.dtype.kind != "f":  # integer Gemm: the float factors apply as integers
        alpha, beta = int(alpha), int(beta)
    y = alpha * (a @ b)
    if c is not None:
        y = y + beta * _wide(c)
    return [np.asarray(y).astype(inputs[0].dtype)]


@register("Gemm", reference=_ref_gemm)
def lower_gemm(ctx: LowerCtx) -> None:
    a, b, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    ta, tb = int(ctx.attr("transA", 0)), int(ctx.attr("transB", 0))
    alpha, beta = float(ctx.attr("alpha", 1.0)), float(ctx.attr("beta", 1.0))
    i, j = out_vars(2)
    kdim = a.shape[0] if ta else a.shape[1]
    (kv,), red = reduction_axes([kdim])
    body = load(0, a, (kv, i) if ta else (i, kv)) * load(1, b, (j, kv) if tb else (kv, j))
    types, names = [a, b], [ctx.in_name(0), ctx.in_name(1)]
    epi = acc_var(body)
    if alpha != 1.0:
        epi = epi * (alpha if body.dtype.is_float else int(alpha))
    if ctx.has_input(2):
        c = ctx.input(2)
        cv = load(2, c, broadcast_index(y.shape, c.shape, (i, j)))
        if beta != 1.0:
            cv = cv * (beta if c.dtype.is_float else int(beta))
        epi = epi + cv
        types.append(c)
        names.append(ctx.in_name(2))
    ctx.emit(TensorExpr("gemm", tuple(types), y, body, red, epi), names, ctx.out_name(0))


# --- Einsum ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EinsumSpec:
    """A parsed equation: per operand its labels (ellipsis dims named '.0', '.1', ...), the output's."""

    operands: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]
    sizes: tuple[tuple[str, int], ...]


def _split_term(term: str) -> tuple[list[str], bool, list[str]]:
    if term.count("...") > 1:
        raise ValueError(f"einsum term {term!r} has more than one ellipsis")
    if "..." in term:
        pre, post = term.split("...")
        return list(pre), True, list(post)
    return list(term), False, []


def parse_einsum(equation: str, shapes) -> EinsumSpec:
    """Labels of every operand and of the output (numpy's implicit-output rule when no '->')."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum {equation!r}: {len(terms)} terms for {len(shapes)} inputs")
    ell_rank = 0
    parsed = []
    for term, shape in zip(terms, shapes):
        pre, has_ell, post = _split_term(term)
        n_ell = len(shape) - len(pre) - len(post)
        if n_ell < 0 or (n_ell > 0 and not has_ell):
            raise ValueError(f"einsum term {term!r} does not match rank {len(shape)}")
        parsed.append((pre, n_ell, post))
        ell_rank = max(ell_rank, n_ell)
    sizes: dict[str, int] = {}
    operands = []
    for (pre, n_ell, post), shape in zip(parsed, shapes):
        labels = pre + [f".{ell_rank - n_ell + k}" for k in range(n_ell)] + post
        for lab, d in zip(labels, shape):
            if lab in sizes and sizes[lab] != d and 1 not in (sizes[lab], d):
                raise ValueError(f"einsum label {lab} has sizes {sizes[lab]} and {d}")
            sizes[lab] = max(sizes.get(lab, d), d) if d != 1 else sizes.get(lab, 1)
        operands.append(tuple(labels))
    ell = [f".{k}" for k in range(ell_rank)]
    if arrow:
        pre, has_ell, post = _split_term(rhs)
        output = pre + (ell if has_ell else []) + post
    else:
        letters = [c for c in lhs if c.isalpha()]
        output = ell + sorted(c for c in set(letters) if letters.count(c) == 1)
    return EinsumSpec(tuple(operands), tuple(output), tuple(sorted(sizes.items())))


def _ref_einsum(node, inputs, opset):
    eq = _str_attr(node, "equation", "")
    arrs = [_wide(x) for x in inputs]
    return [np.asarray(np.einsum(eq, *arrs)).astype(inputs[0].dtype)]


@register("Einsum", reference=_ref_einsum)
def lower_einsum(ctx: LowerCtx) -> None:
    y = ctx.out_types[0]
    types = [ctx.input(k) for k in range(len(ctx.node.inputs))]
    try:
        spec = parse_einsum(_str_attr(ctx.node, "equation", ""), [t.shape for t in types])
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    sizes = dict(spec.sizes)
    if len(set(spec.output)) != len(spec.output):
        raise ctx.unsupported("repeated label in the einsum output")
    var_of: dict[str, Expr] = dict(zip(spec.output, out_vars(y.rank)))
    reduced = [lab for lab in sorted(sizes) if lab not in var_of]
    rexprs, red = reduction_axes([sizes[lab] for lab in reduced])
    var_of.update(zip(reduced, rexprs))
    body = None
    for k, (labels, t) in enumerate(zip(spec.operands, types)):
        idx = tuple(const(0, DType.int64) if d == 1 and sizes[lab] != 1 else var_of[lab]
                    for lab, d in zip(labels, t.shape))
        v = load(k, t, idx)
        body = v if body is None else body * v
    if not reduced:
        red = None
    ctx.emit(TensorExpr("einsum", tuple(types), y, body, red), list(ctx.node.inputs), ctx.out_name(0))


# --- Conv -------------------------------------------------------------------------------------------

def _kernel_shape(node, w_shape) -> tuple[int, ...]:
    """The kernel's spatial extents: W's, which the kernel_shape attribute may only repeat (ONNX
    infers the output from the attribute, so a contradicting one would size the output by one
    kernel and read another)."""
    kernel = _ints(node.attr("kernel_shape"), w_shape[2:])
    if tuple(kernel) != tuple(w_shape[2:]):
        raise ShapeError(f"kernel_shape {list(kernel)} contradicts the weight's spatial shape {list(w_shape[2:])} "
                         f"(W is {list(w_shape)})", node=getattr(node, "name", None))
    return kernel


def conv_window(node, x_shape, w_shape) -> Window:
    return window_geometry(node, x_shape[2:], _kernel_shape(node, w_shape))


def conv_reference(x, w, b, node, *, integer=False, x_zp=None, w_zp=None):
    """Direct convolution (float64, or int64 with zero points subtracted), for Conv and ConvInteger."""
    win = conv_window(node, x.shape, w.shape)
    group = int(node.attr("group", 1))
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    mg = m // group
    acc_t = np.int64 if integer else np.float64
    xs = x.astype(acc_t) - (x_zp if x_zp is not None else 0)
    ws = w.astype(acc_t) - (w_zp if w_zp is not None else 0)
    out = np.zeros((n, m) + win.out_shape, dtype=acc_t)
    for koff, vals, _ in gather_windows(xs, win, 0):
        for g in range(group):
            xg = vals[:, g * cg:(g + 1) * cg].reshape(n, cg, -1)
            wg = ws[(slice(g * mg, (g + 1) * mg), slice(None)) + koff]
            out[:, g * mg:(g + 1) * mg] += np.einsum("ncp,mc->nmp", xg, wg).reshape((n, mg) + win.out_shape)
    if b is not None:
        out = out + b.astype(acc_t).reshape((1, m) + (1,) * len(win.out_shape))
    return out


def _ref_conv(node, inputs, opset):
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    return [conv_reference(x, w, b, node).astype(x.dtype)]


def _conv_body(ctx: LowerCtx, x: TensorType, w: TensorType, y: TensorType, x_val, w_val):
    """Reduction body and axes of a (grouped) convolution; x_val/w_val load an element."""
    win = conv_window(ctx.node, x.shape, w.shape)
    if tuple(win.out_shape) != tuple(y.shape[2:]):
        raise ctx.unsupported(f"output extent {y.shape[2:]} disagrees with the window geometry {win.out_shape}")
    group = int(ctx.attr("group", 1))
    m, cg = w.shape[:2]
    if m % group or x.shape[1] != cg * group:
        raise ctx.unsupported(f"channels C={x.shape[1]}, M={m} do not match group={group}")
    mg = m // group
    i = out_vars(y.rank)
    rex, red = reduction_axes([cg] + list(win.kernel))
    c, ks = rex[0], rex[1:]
    chan = c if group == 1 else (i[1] // mg) * cg + c
    pos = [win.position(d, i[2 + d], ks[d]) for d in range(len(ks))]
    xv = x_val((i[0], chan) + tuple(pos))
    guard = window_guard(win, pos)
    if guard is not None:
        xv = select(guard, xv, const(0, xv.dtype))
    body = xv * w_val((i[1], c) + tuple(ks))
    return body, red


@register("Conv", reference=_ref_conv)
def lower_conv(ctx: LowerCtx) -> None:
    x, w, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    body, red = _conv_body(ctx, x, w, y, lambda idx: load(0, x, idx), lambda idx: load(1, w, idx))
    types, names, epi = [x, w], [ctx.in_name(0), ctx.in_name(1)], None
    if ctx.has_input(2):
        bt = ctx.input(2)
        epi = acc_var(body) + load(2, bt, (out_vars(y.rank)[1],))
        types.append(bt)
        names.append(ctx.in_name(2))
    ctx.emit(TensorExpr("conv", tuple(types), y, body, red, epi), names, ctx.out_name(0))


def _zp_array(z, w_like: bool, rank: int):
    if z is None:
        return None
    z = z.astype(np.int64)
    if w_like and z.ndim == 1 and z.size > 1:
        return z.reshape((-1,) + (1,) * (rank - 1))
    return z.reshape(())


def _ref_conv_integer(node, inputs, opset):
    x, w = inputs[0], inputs[1]
    xz = inputs[2] if len(inputs) > 2 else None
    wz = inputs[3] if len(inputs) > 3 else None
    out = conv_reference(x, w, None, node, integer=True, x_zp=_zp_array(xz, False, x.ndim),
                         w_zp=_zp_array(wz, True, w.ndim))
    return [out.astype(np.int32)]


@register("ConvInteger", reference=_ref_conv_integer)
def lower_conv_integer(ctx: LowerCtx) -> None:
    x, w, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    used = [0, 1] + [k for k in (2, 3) if ctx.has_input(k)]
    remap = {k: j for j, k in enumerate(used)}

    def xval(idx):
        v = cast(load(0, x, idx), DType.int32)
        if 2 in remap:
            v = v - cast(load(remap[2], ctx.input(2), _scalar_or_vec_index(ctx.input(2), None)), DType.int32)
        return v

    def wval(idx):
        v = cast(load(1, w, idx), DType.int32)
        if 3 in remap:
            v = v - cast(load(remap[3], ctx.input(3), _scalar_or_vec_index(ctx.input(3), idx[0])), DType.int32)
        return v

    body, red = _conv_body(ctx, x, w, y, xval, wval)
    ctx.emit(TensorExpr("conv_integer", tuple(ctx.input(k) for k in used), y, body, red),
             [ctx.node.inputs[k] for k in used], ctx.out_name(0))


def _ref_qlinear_conv(node, inputs, opset):
    x, xs, xz, w, ws, wz, ys, yz = inputs[:8]
    b = inputs[8] if len(inputs) > 8 else None
    acc = conv_reference(x, w, b, node, integer=True, x_zp=_zp_array(xz, False, x.ndim),
                         w_zp=_zp_array(wz, True, w.ndim))
    m = w.shape[0]
    ws = ws.reshape((1, m) + (1,) * (x.ndim - 2)) if ws.size > 1 else ws.reshape(())
    mult = (xs.reshape(()) * ws) / ys.reshape(())
    r = acc.astype(np.int32).astype(np.float64) * mult.astype(np.float32).astype(np.float64) + float(yz.reshape(()))
    info = np.iinfo(yz.dtype)
    return [np.clip(np.rint(r), info.min, info.max).astype(yz.dtype)]


@register("QLinearConv", reference=_ref_qlinear_conv)
def lower_qlinear_conv(ctx: LowerCtx) -> None:
    y = ctx.out_types[0]
    n_in = 9 if ctx.has_input(8) else 8
    ts = tuple(ctx.input(k) for k in range(n_in))
    x, w = ts[0], ts[3]

    def xval(idx):
        return cast(load(0, x, idx), DType.int32) - cast(load(2, ts[2], _scalar_or_vec_index(ts[2], None)), DType.int32)

    def wval(idx):
        return cast(load(3, w, idx), DType.int32) - cast(load(5, ts[5], _scalar_or_vec_index(ts[5], idx[0])), DType.int32)

    body, red = _conv_body(ctx, x, w, y, xval, wval)
    i = out_vars(y.rank)
    acc = acc_var(body)
    if n_in == 9:
        acc = acc + cast(load(8, ts[8], (i[1],)), DType.int32)
    scale = (load(1, ts[1], _scalar_or_vec_index(ts[1], None)) * load(4, ts[4], _scalar_or_vec_index(ts[4], i[1]))) \
        / load(6, ts[6], _scalar_or_vec_index(ts[6], None))
    epi = _requantize(acc, scale, ts[7], 7, y.dtype)
    ctx.emit(TensorExpr("qlinear_conv", ts, y, body, red, epi), list(ctx.node.inputs[:n_in]), ctx.out_name(0))


# --- ConvTranspose ------------------------------------------------------------------------------------

def convtranspose_geometry(node, x_shape, w_shape) -> Window:
    """Pads and output extent of ConvTranspose (output_shape and auto_pad per the spec)."""
    n = len(x_shape) - 2
    ins = x_shape[2:]
    kernel = _kernel_shape(node, w_shape)
    strides = _ints(node.attr("strides"), [1] * n)
    dil = _ints(node.attr("dilations"), [1] * n)
    opad = _ints(node.attr("output_padding"), [0] * n)
    auto_pad = _auto_pad(node)
    out_shape = node.attr("output_shape")
    full = [s * (i - 1) + op + (k - 1) * d + 1 for s, i, op, k, d in zip(strides, ins, opad, kernel, dil)]
    pads = node.attr("pads")
    if out_shape is not None or (pads is None and auto_pad in ("SAME_UPPER", "SAME_LOWER")):
        out = list(out_shape)[-n:] if out_shape is not None else [i * s for i, s in zip(ins, strides)]
        total = [f - o for f, o in zip(full, out)]
        if auto_pad == "SAME_UPPER":
            pb = [t // 2 for t in total]
        else:
            pb = [t - t // 2 for t in total]
        pe = [t - b for t, b in zip(total, pb)]
    else:
        p = list(_ints(pads, [0] * (2 * n))) if auto_pad != "VALID" else [0] * (2 * n)
        pb, pe = p[:n], p[n:]
        out = [f - b - e for f, b, e in zip(full, pb, pe)]
    return Window(tuple(ins), kernel, strides, dil, tuple(pb), tuple(pe), tuple(out))


def _ref_conv_transpose(node, inputs, opset):
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    win = convtranspose_geometry(node, x.shape, w.shape)
    group = int(node.attr("group", 1))
    n, c = x.shape[:2]
    cg, mg = c // group, w.shape[1]
    m = mg * group
    xs, ws = x.astype(np.float64), w.astype(np.float64)
    out = np.zeros((n, m) + win.out_shape)
    nd = len(win.kernel)
    for koff in np.ndindex(*win.kernel):
        # input position i lands on output o = i*s + k*d - pb; keep the i whose o is inside
        isl, osl, empty = [], [], False
        for d in range(nd):
            base = koff[d] * win.dilations[d] - win.pads_begin[d]
            i_lo = max(0, -(-(-base) // win.strides[d]))
            i_hi = min(win.in_shape[d], (win.out_shape[d] - 1 - base) // win.strides[d] + 1)
            if i_hi <= i_lo:
                empty = True
                break
            isl.append(slice(i_lo, i_hi))
            o0 = i_lo * win.strides[d] + base
            osl.append(slice(o0, o0 + (i_hi - i_lo - 1) * win.strides[d] + 1, win.strides[d]))
        if empty:
            continue
        for g in range(group):
            xg = xs[(slice(None), slice(g * cg, (g + 1) * cg)) + tuple(isl)]
            wg = ws[(slice(g * cg, (g + 1) * cg), slice(None)) + koff]
            out[(slice(None), slice(g * mg, (g + 1) * mg)) + tuple(osl)] += np.einsum("nc...,cm->nm...", xg, wg)
    if b is not None:
        out += b.astype(np.float64).reshape((1, m) + (1,) * nd)
    return [out.astype(x.dtype)]


@register("ConvTranspose", reference=_ref_conv_transpose)
def lower_conv_transpose(ctx: LowerCtx) -> None:
    x, w, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    win = convtranspose_geometry(ctx.node, x.shape, w.shape)
    if tuple(win.out_shape) != tuple(y.shape[2:]):
        raise ctx.unsupported(f"output extent {y.shape[2:]} disagrees with the geometry {win.out_shape}")
    group = int(ctx.attr("group", 1))
    cg, mg = x.shape[1] // group, w.shape[1]
    i = out_vars(y.rank)
    rex, red = reduction_axes([cg] + list(win.kernel))
    c, ks = rex[0], rex[1:]
    chan = c if group == 1 else (i[1] // mg) * cg + c
    # o = p*s + k*d - pb  =>  p = (o + pb - k*d) / s when that divides and lands inside the input
    conds, pos = [], []
    for d, k in enumerate(ks):
        t = i[2 + d] + win.pads_begin[d] - k * win.dilations[d]
        s = win.strides[d]
        conds.append(binary("ge", t, 0))
        if s != 1:
            conds.append(binary("eq", t % s, 0))
        p = t // s
        conds.append(binary("lt", p, win.in_shape[d]))
        pos.append(p)
    guard = conds[0]
    for cnd in conds[1:]:
        guard = logical_and(guard, cnd)
    xv = select(guard, load(0, x, (i[0], chan) + tuple(pos)), 0.0 if x.dtype.is_float else 0)
    body = xv * load(1, w, (chan, i[1] % mg if group != 1 else i[1]) + tuple(ks))
    types, names, epi = [x, w], [ctx.in_name(0), ctx.in_name(1)], None
    if ctx.has_input(2):
        bt = ctx.input(2)
        epi = acc_var(body) + load(2, bt, (i[1],))
        types.append(bt)
        names.append(ctx.in_name(2))
    ctx.emit(TensorExpr("conv_transpose", tuple(types), y, body, red, epi), names, ctx.out_name(0))
