"""onnxruntime's com.microsoft MatMulNBits: a product with a weight quantized to 2, 4 or 8 bits in
blocks along the reduction axis, as onnxruntime's weight-only quantizer writes it
(`onnxruntime.quantization.matmul_nbits_quantizer`, the int4 format of its LLM exports).

    Y[.., n] = sum_k A[.., k] * W[n, k] (+ bias[n]),
    W[n, k] = (q[n, k] - zero_point[n, k / block_size]) * scale[n, k / block_size]

q is packed into bytes, `bits` a value, low bits first: B (N, k_blocks, block_size * bits / 8);
scales (N * k_blocks) or (N, k_blocks); zero points packed the same way per row of N, padded to
a whole byte (N, ceil(k_blocks * bits / 8)), or in A's type, or absent (2^(bits - 1)).

Lowered as one contraction whose weight operand unpacks and dequantizes each element where the
kernel loads it (a shift, a mask, a subtraction and a scale: DequantizeLinear's dequantization in
the loader, as for a weight-only int8 Linear), so the weight stays packed in the plan, 1/8 of its
fp32 bytes at 4 bits, and nothing dequantized exists in memory. Act-order (g_idx) and onnxruntime's
`accuracy_level` 4 (activations rounded to int8, a speed trade of its CPU kernel, not the model's
meaning) are not followed: g_idx is refused, and the product is exact."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import TensorExpr, binary, cast, const, load, out_vars
from .contraction import acc_var, reduction_axes
from .contrib import MS, ProtoNode
from .registry import LowerCtx, register

_A, _B, _SCALES, _ZERO_POINTS, _G_IDX, _BIAS = range(6)
BITS = (2, 4, 8)


def _sizes(attr) -> tuple[int, int, int, int, int]:
    """(K, N, bits, block_size, k_blocks); ValueError when the attributes are not usable."""
    K, N = int(attr("K", 0) or 0), int(attr("N", 0) or 0)
    bits, block = int(attr("bits", 4)), int(attr("block_size", 0) or 0)
    if K <= 0 or N <= 0:
        raise ValueError("K and N must be positive")
    if bits not in BITS:
        raise ValueError(f"bits={bits} is not one of {BITS}")
    if block < 16 or block & (block - 1):
        raise ValueError(f"block_size={block} is not a power of two of at least 16")
    return K, N, bits, block, -(-K // block)


def _infer(pn, in_types, consts) -> list:
    a = in_types[_A]
    try:
        K, N, *_ = _sizes(ProtoNode(pn).attr)
    except ValueError as e:
        raise ShapeError(f"MatMulNBits: {e}", node=pn.name) from None
    if a is None or a.rank < 1 or a.shape[-1] != K:
        raise ShapeError(f"MatMulNBits: input A {None if a is None else a.shape} does not end in K={K}", node=pn.name)
    return [TensorType(a.dtype, a.shape[:-1] + (N,))]


def _unpack(packed: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The `count` values of `bits` bits packed low bits first into each row of bytes."""
    per = 8 // bits
    shifts = np.arange(per, dtype=np.uint8) * bits
    vals = (packed[..., None] >> shifts) & ((1 << bits) - 1)
    return vals.reshape(packed.shape[:-1] + (-1,))[..., :count]


def pack_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """Rows of `bits`-bit values packed into bytes, low bits first, each row padded to whole bytes
    (the layout of B and of packed zero points; `_unpack` reads it back)."""
    per = 8 // bits
    rows, n = values.shape
    padded = np.zeros((rows, -(-n // per) * per), np.uint8)
    padded[:, :n] = values
    grouped = padded.reshape(rows, -1, per).astype(np.uint16)
    return (grouped << (np.arange(per, dtype=np.uint16) * bits)).sum(-1).astype(np.uint8)


def _ref(node, inputs, opset):
    a, b, scales = inputs[0], inputs[1], inputs[2]
    zp = inputs[3] if len(inputs) > 3 else None
    bias = inputs[5] if len(inputs) > 5 else None
    K, N, bits, block, kb = _sizes(node.attr)
    q = _unpack(b.reshape(N, kb, -1), bits, block).reshape(N, kb * block)[:, :K].astype(np.float64)
    s = np.repeat(scales.reshape(N, kb).astype(np.float64), block, axis=1)[:, :K]
    if zp is None:
        z = np.full((N, kb), 1 << (bits - 1), np.float64)
    elif zp.dtype == np.uint8:
        z = _unpack(zp.reshape(N, -1), bits, kb).astype(np.float64)
    else:
        z = zp.reshape(N, kb).astype(np.float64)
    w = (q - np.repeat(z, block, axis=1)[:, :K]) * s
    y = a.astype(np.float64) @ w.T
    if bias is not None:
        y = y + bias.astype(np.float64)
    return [y.astype(a.dtype)]


@register("MatMulNBits", reference=_ref, domain=MS, infer=_infer)
def lower_matmul_nbits(ctx: LowerCtx) -> None:
    """A (.., K) times the unpacked, dequantized weight (N, K), transposed, plus the bias."""
    if ctx.has_input(_G_IDX):
        raise ctx.unsupported("g_idx (act-order quantization) is not supported")
    a, bt, st, y = ctx.input(_A), ctx.input(_B), ctx.input(_SCALES), ctx.out_types[0]
    try:
        K, N, bits, block, kb = _sizes(ctx.attr)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    blob = block * bits // 8
    if bt.dtype is not DType.uint8 or bt.size != N * kb * blob:
        raise ctx.unsupported(f"B of {bt.dtype.name} {bt.shape} is not uint8 ({N}, {kb}, {blob})")
    if st.size != N * kb or not st.dtype.is_float:
        raise ctx.unsupported(f"scales of {st.dtype.name} {st.shape} are not {N * kb} floats")
    zt = ctx.input(_ZERO_POINTS) if ctx.has_input(_ZERO_POINTS) else None
    zp_row = -(-kb * bits // 8)
    if zt is not None and not ((zt.dtype is DType.uint8 and zt.size == N * zp_row)
                               or (zt.dtype.is_float and zt.size == N * kb)):
        raise ctx.unsupported(f"zero points of {zt.dtype.name} {zt.shape} are neither uint8 ({N}, {zp_row}) "
                              f"nor {N * kb} floats")
    # the weight dequantized in float and rounded to A's type (a half model's tensor cores take it)
    wdt = DType.float64 if a.dtype is DType.float64 else DType.float32

    iv = out_vars(y.rank)
    n = iv[-1]
    (k,), red = reduction_axes([K])
    block_of = k // block
    mask = (1 << bits) - 1

    def packed(arg: int, t: TensorType, row, pos, width: int):
        """The `bits`-bit value at position `pos` of row `row` of a tensor packed `width` bytes a row."""
        flat = row * width + pos * bits // 8
        byte = load(arg, t, _flat_index(t, flat))
        shift = cast((pos * bits) % 8, DType.uint8)
        return binary("bitand", binary("shr", byte, shift), const(mask, DType.uint8))

    ins, names = [a, bt, st], [ctx.in_name(_A), ctx.in_name(_B), ctx.in_name(_SCALES)]
    q = cast(packed(1, bt, n * kb + block_of, k % block, blob), wdt)
    if zt is None:
        zero = const(float(1 << (bits - 1)), wdt)
    else:
        ins.append(zt)
        names.append(ctx.in_name(_ZERO_POINTS))
        if zt.dtype is DType.uint8:
            zero = cast(packed(3, zt, n, block_of, zp_row), wdt)
        else:
            zero = cast(load(3, zt, _flat_index(zt, n * kb + block_of)), wdt)
    scale = cast(load(2, st, _flat_index(st, n * kb + block_of)), wdt)
    weight = (q - zero) * scale
    body = load(0, a, tuple(iv[:-1]) + (k,)) * cast(weight, a.dtype)
    epi = acc_var(body)
    if ctx.has_input(_BIAS):
        ins.append(ctx.input(_BIAS))
        names.append(ctx.in_name(_BIAS))
        epi = epi + load(len(ins) - 1, ctx.input(_BIAS), (n,))
    ctx.emit(TensorExpr("matmul_nbits", tuple(ins), y, body, red, epi), names, ctx.out_name(0))


def _flat_index(t: TensorType, flat) -> tuple:
    """Index of flat element `flat` in `t` (row-major)."""
    idx = []
    for d in reversed(t.shape[1:]):
        idx.append(flat % d)
        flat = flat // d
    return (flat,) + tuple(reversed(idx))
