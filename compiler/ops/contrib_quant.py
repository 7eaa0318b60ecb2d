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
meaning) are not followed: g_idx is refused, and the product is exact.

Also onnxruntime's GatherBlockQuantized, the genai model builder's read of a tied, quantized token
embedding from the LM head's MatMulNBits weight: an index map over the output (Gather's) whose
packed row is unpacked and dequantized where it is read (see its section below)."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import TensorExpr, binary, cast, const, in_range, load, out_vars, select
from .contraction import acc_var, reduction_axes
from .contrib import MS, ProtoNode
from .movement import emit_expr, index_value, wrap_index
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


def unpack_bits(packed: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The `count` values of `bits` bits packed low bits first into each row of bytes."""
    per = 8 // bits
    shifts = np.arange(per, dtype=np.uint8) * bits
    vals = (packed[..., None] >> shifts) & ((1 << bits) - 1)
    return vals.reshape(packed.shape[:-1] + (-1,))[..., :count]


def pack_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """Rows of `bits`-bit values packed into bytes, low bits first, each row padded to whole bytes
    (the layout of B and of packed zero points; `unpack_bits` reads it back)."""
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
    q = unpack_bits(b.reshape(N, kb, -1), bits, block).reshape(N, kb * block)[:, :K].astype(np.float64)
    s = np.repeat(scales.reshape(N, kb).astype(np.float64), block, axis=1)[:, :K]
    if zp is None:
        z = np.full((N, kb), 1 << (bits - 1), np.float64)
    elif zp.dtype == np.uint8:
        z = unpack_bits(zp.reshape(N, -1), bits, kb).astype(np.float64)
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

    def packed(arg: int, t: TensorType, row, pos, width: int):
        """The `bits`-bit value at position `pos` of row `row` of a tensor packed `width` bytes a row."""
        flat = row * width + pos * bits // 8
        return packed_field(load(arg, t, _flat_index(t, flat)), pos, bits)

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


def packed_field(byte, pos, bits: int):
    """Value number `pos` of a row packed `bits` bits a value, low bits first, from the loaded byte
    that holds it (byte `pos * bits // 8` of the row): a shift and a mask."""
    shift = cast((pos * bits) % 8, DType.uint8)
    return binary("bitand", binary("shr", byte, shift), const((1 << bits) - 1, DType.uint8))


def _flat_index(t: TensorType, flat) -> tuple:
    """Index of flat element `flat` in `t` (row-major)."""
    idx = []
    for d in reversed(t.shape[1:]):
        idx.append(flat % d)
        flat = flat // d
    return (flat,) + tuple(reversed(idx))


# --- GatherBlockQuantized ---------------------------------------------------------------------
#
# onnxruntime-genai's model builder reads an int4 LLM's token embeddings, tied to the LM head
# (Gemma, ERNIE), from the LM head's MatMulNBits weight: its B reshaped to (vocab, hidden * bits / 8)
# bytes, its scales (vocab, k_blocks) and packed zero points (vocab, ceil(k_blocks * bits / 8)):
#
#     Y[j.., c.., h] = (q[idx[j..], c.., h] - zero_point[idx[j..], c.., h / block_size])
#                      * scale[idx[j..], c.., h / block_size]
#
# q packed along the last axis, low bits first (uint8 data: onnxruntime gathers it along axis 0 and
# quantizes it along the last axis only); the default zero point 2^(bits - 1); an index in
# [-vocab, 0) counts from the end and one outside [-vocab, vocab) gives a row of zeros (onnxruntime's
# kernel; ONNX Gather leaves it undefined). Lowered as an index map over the output like Gather, the
# row's byte unpacked and dequantized where it is read, so the table stays packed in the plan and an
# elementwise consumer (Gemma's sqrt(hidden) scale) takes the gather into its kernel; a GEMM or a row
# kernel (a norm) does not, as it would recompute the shift, mask and range check per tile or per
# read (passes/welder.py: cheap). onnxruntime's int4/uint4 and float8/float4 `data` (its own
# quantizer's Gather format) are not Brickyard element types: the frontend refuses them by type.

_DATA, _INDICES, _GSCALES, _GZERO_POINTS = range(4)


def _gbq_attrs(attr, rank: int) -> tuple[int, int, int, int]:
    """(gather_axis, quantize_axis, bits, block_size), the axes made non-negative, with onnxruntime's
    defaults; ValueError when they are not usable."""
    g, qa = int(attr("gather_axis", 0)), int(attr("quantize_axis", 1))
    bits, block = int(attr("bits", 4)), int(attr("block_size", 128))
    for name, a in (("gather_axis", g), ("quantize_axis", qa)):
        if not -rank <= a < rank:
            raise ValueError(f"{name}={a} is outside [-{rank}, {rank - 1}] for data of rank {rank}")
    if bits not in BITS:
        raise ValueError(f"bits={bits} is not one of {BITS}")
    if block < 16 or block & (block - 1):
        raise ValueError(f"block_size={block} is not a power of two of at least 16")
    return g % rank, qa % rank, bits, block


def _gbq_layout(attr, data: TensorType, scales: TensorType, zp: TensorType | None) -> tuple[int, int, int, int]:
    """(bits, block_size, values per byte, blocks per row) of a layout the lowering takes: uint8 data
    of rank >= 2 gathered along axis 0 and quantized along the last axis (onnxruntime's only layout
    for uint8 data, the genai builder's), scales (.., k_blocks) of floats, zero points uint8 packed
    like the data (.., ceil(k_blocks / values per byte)); ValueError saying what is not."""
    if data.dtype is not DType.uint8:
        raise ValueError(f"data of {data.dtype.name} is not packed uint8 (the int4/uint4 and float8/float4 "
                         f"forms are not Brickyard element types)")
    r = data.rank
    if r < 2:
        raise ValueError(f"uint8 data of rank {r}: it needs a gathered axis and a quantized one")
    g, qa, bits, block = _gbq_attrs(attr, r)
    if g != 0:
        raise ValueError(f"gather_axis={g}: uint8 data is gathered along axis 0 only (as in onnxruntime)")
    if qa != r - 1:
        raise ValueError(f"quantize_axis={qa}: uint8 data is quantized along its last axis ({r - 1}) only, "
                         f"where its values are packed (as in onnxruntime)")
    per = 8 // bits
    kb = -(-data.shape[-1] * per // block)
    want = data.shape[:-1] + (kb,)
    if not scales.dtype.is_float or scales.shape != want:
        raise ValueError(f"scales of {scales.dtype.name} {list(scales.shape)} are not floats of shape {list(want)} "
                         f"(data {list(data.shape)}: {data.shape[-1] * per} values a row in blocks of {block})")
    if zp is not None:
        zwant = data.shape[:-1] + (-(-kb // per),)
        if zp.dtype is not DType.uint8 or zp.shape != zwant:
            raise ValueError(f"zero points of {zp.dtype.name} {list(zp.shape)} are not uint8 {list(zwant)} "
                             f"({kb} blocks a row, {per} a byte)")
    return bits, block, per, kb


def _gbq_infer(pn, in_types, consts) -> list:
    data, idx, scales = (in_types[k] if k < len(in_types) else None for k in (_DATA, _INDICES, _GSCALES))
    if data is None or idx is None or scales is None:
        raise ShapeError("GatherBlockQuantized needs data, indices and scales", node=pn.name)
    if not idx.dtype.is_int:
        raise ShapeError(f"GatherBlockQuantized: indices of {idx.dtype.name} are not integers", node=pn.name)
    if not scales.dtype.is_float:
        raise ShapeError(f"GatherBlockQuantized: scales of {scales.dtype.name} are not floats", node=pn.name)
    try:
        g, _, bits, _ = _gbq_attrs(ProtoNode(pn).attr, data.rank)
    except ValueError as e:
        raise ShapeError(f"GatherBlockQuantized: {e}", node=pn.name) from None
    shape = data.shape[:g] + idx.shape + data.shape[g + 1:]
    if data.dtype is DType.uint8 and bits < 8:     # the last axis holds 8 / bits values a byte
        shape = shape[:-1] + (shape[-1] * (8 // bits),)
    return [TensorType(scales.dtype, shape)]


def _gbq_ref(node, inputs, opset):
    data, idx, scales = inputs[0], inputs[1], inputs[2]
    zp = inputs[3] if len(inputs) > 3 else None
    bits, block, per, kb = _gbq_layout(node.attr, TensorType.of(data), TensorType.of(scales),
                                       None if zp is None else TensorType.of(zp))
    V, L = data.shape[0], data.shape[-1] * per
    idx = idx.astype(np.int64)
    valid = (idx >= -V) & (idx < V)
    rows = np.where(valid, np.where(idx < 0, idx + V, idx), 0)
    wdt = np.float64 if scales.dtype == np.float64 else np.float32
    q = unpack_bits(data[rows], bits, L).astype(wdt)
    if zp is None:
        z = np.full(rows.shape + data.shape[1:-1] + (kb,), 1 << (bits - 1), wdt)
    else:
        z = unpack_bits(zp[rows], bits, kb).astype(wdt)
    s = scales[rows].astype(wdt)
    # onnxruntime's float(q - zero_point) * float(scale), rounded once to the scales' type
    y = (q - np.repeat(z, block, axis=-1)[..., :L]) * np.repeat(s, block, axis=-1)[..., :L]
    y = np.where(valid.reshape(valid.shape + (1,) * (data.ndim - 1)), y, 0)
    return [y.astype(scales.dtype)]


@register("GatherBlockQuantized", reference=_gbq_ref, domain=MS, infer=_gbq_infer)
def lower_gather_block_quantized(ctx: LowerCtx) -> None:
    """out[j.., c.., h] = the dequantized value h of row idx[j..] (wrapped; zero out of range)."""
    data, it, st, y = ctx.input(_DATA), ctx.input(_INDICES), ctx.input(_GSCALES), ctx.out_types[0]
    zt = ctx.input(_GZERO_POINTS) if ctx.has_input(_GZERO_POINTS) else None
    try:
        bits, block, per, kb = _gbq_layout(ctx.attr, data, st, zt)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    wdt = DType.float64 if st.dtype is DType.float64 else DType.float32
    V, q = data.shape[0], it.rank
    iv = out_vars(y.rank)
    mid, h = tuple(iv[q:-1]), iv[-1]
    raw = index_value(load(1, it, iv[:q]))
    row = wrap_index(raw, V)
    block_of = h // block
    byte = load(0, data, (row,) + mid + (h // per,))
    value = byte if bits == 8 else packed_field(byte, h, bits)
    args = [_DATA, _INDICES, _GSCALES]
    if zt is None:
        zero = const(float(1 << (bits - 1)), wdt)
    else:
        args.append(_GZERO_POINTS)
        zbyte = load(3, zt, (row,) + mid + (block_of // per,))
        zero = zbyte if bits == 8 else packed_field(zbyte, block_of, bits)
    scale = cast(load(2, st, (row,) + mid + (block_of,)), wdt)
    deq = cast((cast(value, wdt) - cast(zero, wdt)) * scale, y.dtype)
    # an index outside [-V, V) reads nothing (the select's other branch) and gives 0
    body = select(in_range(raw, -V, V), deq, const(0.0, y.dtype))
    emit_expr(ctx, "gather_block_quantized", args, body)
