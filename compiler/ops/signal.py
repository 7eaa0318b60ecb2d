"""Signal ops: BitCast, the Hann/Hamming/Blackman windows, MelWeightMatrix, DFT and STFT.

BitCast is a view (the same bytes under another element type of the same size): no kernel.
Windows are one TensorExpr over the output index. MelWeightMatrix depends only on its scalar
inputs: it is computed by the reference and written as constant values. DFT and STFT are direct
O(N^2) transforms, one sum reduction per output element in float64 with exact angle reduction
((k * n) mod N): correct for any length, a first form that an FFT kernel should replace for long
signals."""
from __future__ import annotations

import math

import numpy as np

from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import (Expr, Reduce, TensorExpr, Var, binary, cast, const, load, out_vars, select,
                        unary)
from .movement import emit_values, norm_axis, opt
from .registry import LowerCtx, dtype_of_code, register

F64 = DType.float64


def _scalar(v) -> float | int:
    return np.asarray(v).reshape(-1)[0].item()


# --- BitCast -------------------------------------------------------------------------------------

def _ref_bitcast(node, inputs, opset):
    x = np.asarray(inputs[0])
    to = dtype_of_code(node.attr("to", 0), node)
    if to.itemsize != x.dtype.itemsize:
        raise ValueError(f"BitCast from {x.dtype} to {to.name}: element sizes differ")
    return [x.view(to.np)]


@register("BitCast", reference=_ref_bitcast)
def lower_bitcast(ctx: LowerCtx) -> None:
    """The input's bytes under the output's element type: an alias, no kernel."""
    x, y = ctx.input(0), ctx.out_types[0]
    if x.dtype.itemsize != y.dtype.itemsize or x.shape != y.shape:
        raise ctx.unsupported(f"bit cast of {x} to {y}")
    ctx.alias(ctx.out_name(0), ctx.in_name(0))


# --- windows -------------------------------------------------------------------------------------

# w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic) or size - 1
_WINDOWS = {
    "HannWindow": (0.5, 0.5, 0.0),
    "HammingWindow": (25.0 / 46.0, 1.0 - 25.0 / 46.0, 0.0),
    "BlackmanWindow": (0.42, 0.5, 0.08),
}


def _window_denominator(node, size: int) -> int:
    return size if int(node.attr("periodic", 1)) else size - 1


def _ref_window(node, inputs, opset):
    size = int(_scalar(inputs[0]))
    a0, a1, a2 = _WINDOWS[node.op]
    n = np.arange(size, dtype=np.float64)
    big_n = _window_denominator(node, size)
    with np.errstate(all="ignore"):
        w = a0 - a1 * np.cos(2 * np.pi * n / big_n) + a2 * np.cos(4 * np.pi * n / big_n)
    return [w.astype(dtype_of_code(node.attr("output_datatype", 1), node).np)]


def _lower_window(ctx: LowerCtx) -> None:
    """One thread per sample: the cosine sum in float64, converted to output_datatype."""
    size = int(_scalar(ctx.require_const(0, "size")))
    y = ctx.out_types[0]
    if y.shape != (size,):
        raise ctx.unsupported(f"output {y} for size {size}")
    a0, a1, a2 = _WINDOWS[ctx.node.op]
    big_n = _window_denominator(ctx.node, size)
    n = cast(out_vars(1)[0], F64)
    w = const(a0, F64) - unary("cos", n * (2 * math.pi / big_n)) * a1 if big_n else const(math.nan, F64)
    if a2 and big_n:
        w = w + unary("cos", n * (4 * math.pi / big_n)) * a2
    ctx.emit(TensorExpr(ctx.node.op.lower(), (), y, cast(w, y.dtype)), [], ctx.out_name(0))


for _op in _WINDOWS:
    register(_op, reference=_ref_window)(_lower_window)


# --- MelWeightMatrix -------------------------------------------------------------------------------

def _mel_edges_np(num_mel: int, lower, upper) -> np.ndarray:
    """Hertz of the num_mel + 2 mel-spaced band edges: the mel of each bound in the bounds' own type
    (as the ONNX reference does), everything after in float64."""
    lower, upper = np.asarray(lower), np.asarray(upper)
    ft = np.float32 if lower.dtype != np.float64 else np.float64

    def to_mel(hz):
        return float(ft(2595) * np.log1p(ft(hz) / ft(700))) / math.log(10)

    lo_mel, hi_mel = to_mel(lower), to_mel(upper)
    step = (hi_mel - lo_mel) / (num_mel + 2)
    mels = np.arange(num_mel + 2) * step + lo_mel
    return 700.0 * np.expm1(mels / 2595.0 * math.log(10))


def _ref_mel_weight_matrix(node, inputs, opset):
    """Triangular filters between mel-spaced edges rounded down to spectrogram bins, as ONNX defines."""
    num_mel, dft_length, sample_rate = (int(_scalar(v)) for v in inputs[:3])
    n_spec = dft_length // 2 + 1
    hz = _mel_edges_np(num_mel, inputs[3], inputs[4])
    bins = np.floor((dft_length + 1) * hz / sample_rate).astype(np.int64)
    w = np.zeros((n_spec, num_mel), dtype=np.float64)
    for m in range(num_mel):
        left, center, right = int(bins[m]), int(bins[m + 1]), int(bins[m + 2])
        for j in range(left, center):
            w[j, m] = (j - left) / (center - left)
        for j in range(center + 1, right):
            w[j, m] = (right - j) / (right - center)
        w[center, m] = 1.0
    return [w.astype(dtype_of_code(node.attr("output_datatype", 1), node).np)]


def _mel_bin(ctx: LowerCtx, k: Expr, num_mel: int, dft_length: int, sample_rate: int) -> Expr:
    """Spectrogram bin of band edge k, from the bounds (inputs 3 and 4) read at run time."""
    lo_t, hi_t = ctx.input(3), ctx.input(4)
    ft = F64 if lo_t.dtype is F64 else DType.float32

    def to_mel(arg, t):
        v = cast(load(arg, t, tuple(const(0, DType.int64) for _ in t.shape)), ft)
        return cast(unary("log1p", v / 700.0) * 2595.0, F64) / math.log(10)

    lo_mel, hi_mel = to_mel(0, lo_t), to_mel(1, hi_t)
    mel = cast(k, F64) * ((hi_mel - lo_mel) / float(num_mel + 2)) + lo_mel
    hz = unary("expm1", mel / 2595.0 * math.log(10)) * 700.0
    return cast(unary("floor", hz * float(dft_length + 1) / float(sample_rate)), DType.int64)


@register("MelWeightMatrix", reference=_ref_mel_weight_matrix)
def lower_mel_weight_matrix(ctx: LowerCtx) -> None:
    """The sizes must be constants; the band bounds may be read at run time (then one thread per
    weight recomputes its three band edges)."""
    sizes = [int(_scalar(ctx.require_const(k, name))) for k, name in
             enumerate(("num_mel_bins", "dft_length", "sample_rate"))]
    bounds = [ctx.const(3), ctx.const(4)]
    if all(b is not None for b in bounds):
        emit_values(ctx, _ref_mel_weight_matrix(ctx.node, sizes + bounds, ctx.opset)[0])
        return
    num_mel, dft_length, sample_rate = sizes
    y = ctx.out_types[0]
    if y.shape != (dft_length // 2 + 1, num_mel):
        raise ctx.unsupported(f"output {y} for {num_mel} bands of a {dft_length}-point DFT")
    j, m = out_vars(2)
    left, center, right = (_mel_bin(ctx, m + d, num_mel, dft_length, sample_rate) for d in range(3))
    up = cast(j - left, F64) / cast(center - left, F64)
    down = cast(right - j, F64) / cast(right - center, F64)
    w = select(binary("eq", j, center), const(1.0, F64),
               select(binary("and", binary("ge", j, left), binary("lt", j, center)), up,
                      select(binary("and", binary("gt", j, center), binary("lt", j, right)), down, const(0.0, F64))))
    ctx.emit(TensorExpr("mel_weight_matrix", (ctx.input(3), ctx.input(4)), y, cast(w, y.dtype)),
             [ctx.in_name(3), ctx.in_name(4)], ctx.out_name(0))


# --- DFT -----------------------------------------------------------------------------------------

def _complex(x: np.ndarray) -> np.ndarray:
    """[..., 1] real or [..., 2] (re, im) as a complex128 array without the last axis."""
    x = x.astype(np.float64)
    return x[..., 0] + (1j * x[..., 1] if x.shape[-1] == 2 else 0)


def _dft_params(node, opset: int, x_shape, dft_length, axis_in) -> tuple[int, int, bool, bool]:
    """(axis, N, inverse, onesided) with ONNX's defaults per opset."""
    rank = len(x_shape)
    if opset >= 20:
        axis = int(_scalar(axis_in)) if axis_in is not None else -2
    else:
        axis = int(node.attr("axis", 1))
    axis = norm_axis(axis, rank)
    if axis >= rank - 1:
        raise ValueError(f"DFT axis {axis} is the complex axis of a rank-{rank} input")
    inverse, onesided = bool(node.attr("inverse", 0)), bool(node.attr("onesided", 0))
    if dft_length is not None:
        n = int(_scalar(dft_length))
    elif inverse and onesided:
        n = 2 * (x_shape[axis] - 1)
    else:
        n = x_shape[axis]
    return axis, n, inverse, onesided


def _ref_dft(node, inputs, opset):
    x = np.asarray(inputs[0])
    dft_length = opt(inputs, 1) if node.has_input(1) else None
    axis_in = opt(inputs, 2) if node.has_input(2) else None
    axis, n, inverse, onesided = _dft_params(node, opset, x.shape, dft_length, axis_in)
    z = _complex(x)
    if inverse and onesided:
        r = np.fft.irfft(z, n=n, axis=axis)[..., np.newaxis]
    else:
        f = np.fft.ifft(z, n=n, axis=axis) if inverse else np.fft.fft(z, n=n, axis=axis)
        if onesided:
            f = np.take(f, range(n // 2 + 1), axis=axis)
        r = np.stack([f.real, f.imag], axis=-1)
    return [r.astype(x.dtype)]


def _angle(k: Expr, n: Expr, big_n: int) -> Expr:
    """2 pi ((k n) mod N) / N in float64: the reduction keeps the angle exact for long signals."""
    return cast(binary("imod", k * n, big_n), F64) * (2 * math.pi / big_n)


def _complex_parts(x: TensorType, idx: list, axis: int, pos: Expr) -> tuple[Expr, Expr]:
    """(re, im) of x at idx with the transform axis set to pos (im = 0 for a real input)."""
    at = list(idx)
    at[axis] = pos
    re = cast(load(0, x, at[:-1] + [const(0, DType.int64)]), F64)
    im = cast(load(0, x, at[:-1] + [const(1, DType.int64)]), F64) if x.shape[-1] == 2 else const(0.0, F64)
    return re, im


@register("DFT", reference=_ref_dft)
def lower_dft(ctx: LowerCtx) -> None:
    """out[.., k, .., c] = sum_n x[.., n, ..] e^(-+2 pi i k n / N), one reduction per output element."""
    x, y = ctx.input(0), ctx.out_types[0]
    if not x.dtype.is_float or x.shape[-1] not in (1, 2):
        raise ctx.unsupported(f"input {x}")
    dft_length = ctx.require_const(1, "dft_length") if ctx.node.has_input(1) else None
    axis_in = ctx.require_const(2, "axis") if ctx.node.has_input(2) else None
    try:
        axis, big_n, inverse, onesided = _dft_params(ctx.node, ctx.opset, x.shape, dft_length, axis_in)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    i = list(out_vars(y.rank))
    r = Var("r0")
    if inverse and onesided:  # real output of a Hermitian spectrum: each bin but 0 and N/2 twice
        extent = min(x.shape[axis], big_n // 2 + 1)
        re, im = _complex_parts(x, i, axis, r)
        th = _angle(r, i[axis], big_n)
        twice = binary("and", binary("gt", r, 0), binary("ne", r * 2, big_n))
        term = (re * unary("cos", th) - im * unary("sin", th)) * select(twice, const(2.0, F64), const(1.0, F64))
    else:
        extent = min(x.shape[axis], big_n)
        re, im = _complex_parts(x, i, axis, r)
        th = _angle(i[axis], r, big_n)
        c, s = unary("cos", th), unary("sin", th)
        if inverse:
            term = select(binary("eq", i[-1], 0), re * c - im * s, re * s + im * c)
        else:
            term = select(binary("eq", i[-1], 0), re * c + im * s, im * c - re * s)
    want = 1 if inverse and onesided else 2
    bins = big_n if inverse or not onesided else big_n // 2 + 1
    if extent <= 0 or y.shape[axis] != bins or y.shape[-1] != want:
        raise ctx.unsupported(f"output {y} for a {big_n}-point transform (onesided={int(onesided)})")
    acc = Var("acc", F64)
    epi = cast(acc / float(big_n) if inverse else acc, y.dtype)
    ctx.emit(TensorExpr("dft", (x,), y, term, Reduce("sum", (("r0", extent),)), epi),
             [ctx.in_name(0)], ctx.out_name(0))


# --- STFT ----------------------------------------------------------------------------------------

def _stft_params(node, x_shape, frame_step, window_shape, frame_length) -> tuple[int, int, int, int]:
    """(step, frame length N, window length, number of frames)."""
    step = int(_scalar(frame_step))
    if frame_length is not None:
        big_n = int(_scalar(frame_length))
    else:
        big_n = window_shape[0] if window_shape is not None else x_shape[-2]
    wlen = window_shape[0] if window_shape is not None else big_n
    frames = 1 + (x_shape[-2] - big_n) // step
    return step, big_n, wlen, frames


def _ref_stft(node, inputs, opset):
    x = np.asarray(inputs[0])
    window = opt(inputs, 2) if node.has_input(2) else None
    frame_length = opt(inputs, 3) if node.has_input(3) else None
    step, big_n, wlen, frames = _stft_params(node, x.shape, inputs[1], None if window is None else window.shape,
                                             frame_length)
    w = np.ones(wlen) if window is None else np.asarray(window).astype(np.float64)
    z = _complex(x)
    length = z.shape[-1]
    out = []
    for f in range(frames):
        seg = np.zeros(z.shape[:-1] + (wlen,), dtype=np.complex128)
        take = max(0, min(wlen, length - f * step))
        seg[..., :take] = z[..., f * step:f * step + take]
        out.append(np.fft.fft(seg * w, n=big_n, axis=-1))
    spec = np.stack(out, axis=-2)
    if int(node.attr("onesided", 1)):
        spec = spec[..., :big_n // 2 + 1]
    return [np.stack([spec.real, spec.imag], axis=-1).astype(x.dtype)]


@register("STFT", reference=_ref_stft)
def lower_stft(ctx: LowerCtx) -> None:
    """out[b, f, k, c] = sum_n x[b, f*step + n] w[n] e^(-2 pi i k n / N), one reduction per element."""
    x, y = ctx.input(0), ctx.out_types[0]
    if not x.dtype.is_float or x.rank != 3 or x.shape[-1] not in (1, 2):
        raise ctx.unsupported(f"signal {x}")
    wt = ctx.input(2) if ctx.node.has_input(2) else None
    frame_length = ctx.require_const(3, "frame_length") if ctx.node.has_input(3) else None
    step, big_n, wlen, frames = _stft_params(ctx.node, x.shape, ctx.require_const(1, "frame_step"),
                                             None if wt is None else wt.shape, frame_length)
    extent = min(wlen, big_n)
    bins = big_n // 2 + 1 if int(ctx.attr("onesided", 1)) else big_n
    if y.shape != (x.shape[0], frames, bins, 2) or extent <= 0:
        raise ctx.unsupported(f"output {y} for {frames} frames of {bins} bins")
    b, f, k, c = out_vars(4)
    r = Var("r0")
    pos = f * step + r
    re, im = _complex_parts(x, [b, pos, None], 1, pos)
    if wt is not None:
        w = cast(load(1, wt, (r,)), F64)
        re, im = re * w, im * w
    th = _angle(k, r, big_n)
    cs, sn = unary("cos", th), unary("sin", th)
    term = select(binary("eq", c, 0), re * cs + im * sn, im * cs - re * sn)
    if (frames - 1) * step + extent > x.shape[1]:  # the last frames run past the signal: zeros there
        term = select(binary("lt", pos, x.shape[1]), term, const(0.0, F64))
    types = (x,) if wt is None else (x, wt)
    names = [ctx.in_name(0)] + ([ctx.in_name(2)] if wt is not None else [])
    ctx.emit(TensorExpr("stft", types, y, term, Reduce("sum", (("r0", extent),)), cast(Var("acc", F64), y.dtype)),
             names, ctx.out_name(0))
