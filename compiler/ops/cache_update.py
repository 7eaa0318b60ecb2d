"""A KV cache updated in place: each batch entry's new key and value rows written into the cache's
own buffer at the entry's run-time position, nothing else moved (GroupQueryAttention's, and the
ONNX TensorScatter's, whose meaning it is).

With `--kv-cache in-place` the present K/V of a GroupQueryAttention is its past's buffer
(Plan.donated); this kernel is the whole of their update: per step it moves the new rows (S per
entry and head), where building a new present moves the whole cache (two passes over
kv_heads x length x head size elements per entry). The new rows are read where they already are:
a packed QKV's columns or the rotated keys, each row `width` wide with the head's columns from
`offset`. Rows at or past the cache's end are dropped, as onnxruntime drops them."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..codegen.block_function import BLOCK_X, GRID_X, finish_kernel
from ..ir.graph import TensorType
from ..ir.kernel import Kernel, KernelParam

BLOCK = 256


@dataclass(frozen=True)
class NewRows:
    """Where one step's new rows are: value `name` of type (batch, new rows, width), head g's
    columns at offset + g * head_size."""

    name: str
    type: TensorType
    offset: int

    @property
    def width(self) -> int:
        return self.type.shape[2]


def cache_update_kernel(seqlens: tuple[str, TensorType], rows: tuple[NewRows, NewRows],
                        caches: tuple[str, str], cache_type: TensorType) -> Kernel:
    """The kernel writing keys rows[0] into cache caches[0] and values rows[1] into caches[1]
    (each of `cache_type`, (B, kv_heads, T, H)): entry b's row s at position
    max(seqlens[b] + 1 - S, 0) + s (seqlens: each entry's total length minus one)."""
    B, Nk, T, H = cache_type.shape
    S = rows[0].type.shape[1]
    seq_name, seq_t = seqlens
    et = cache_type.dtype.ctype
    total = 2 * B * S * Nk * H
    params = [f"const {seq_t.dtype.ctype}* __restrict__ seqlens",
              f"const {et}* __restrict__ k_rows", f"const {et}* __restrict__ v_rows",
              f"{et}* __restrict__ k_cache", f"{et}* __restrict__ v_cache"]
    k, v = rows
    body = [
        f"for (long long p = (long long){BLOCK_X} * blockDim.x + threadIdx.x; p < {total}ll; "
        f"p += (long long){GRID_X} * blockDim.x) {{",
        f"  long long d = p % {H}ll, r = p / {H}ll;",
        f"  long long g = r % {Nk}ll; r /= {Nk}ll;",
        f"  long long s = r % {S}ll; r /= {S}ll;",
        f"  long long b = r % {B}ll; bool value = r >= {B}ll;",
        f"  long long start = (long long)seqlens[b] + {1 - S}ll;",
        "  if (start < 0) start = 0;",
        f"  if (start + s >= {T}ll) continue;     // past the cache's end: dropped",
        f"  long long at = ((b * {Nk}ll + g) * {T}ll + start + s) * {H}ll + d;",
        f"  if (value) v_cache[at] = v_rows[(b * {S}ll + s) * {v.width}ll + {v.offset}ll + g * {H}ll + d];",
        f"  else k_cache[at] = k_rows[(b * {S}ll + s) * {k.width}ll + {k.offset}ll + g * {H}ll + d];",
        "}",
    ]
    entry, src = finish_kernel("cache_update", params, body)
    moved = B * S * Nk * H * cache_type.dtype.itemsize       # per cache: the bytes written, and read from rows
    skipped = sum(r.type.nbytes - moved for r in rows) + 2 * (cache_type.nbytes - moved)
    return Kernel(
        entry=entry, source=src,
        params=(KernelParam(seq_t.dtype.ctype, seq_name, False), KernelParam(et, k.name, False),
                KernelParam(et, v.name, False), KernelParam(et, caches[0], True), KernelParam(et, caches[1], True)),
        grid=(max(1, min(math.ceil(total / BLOCK), 4096)), 1, 1), block=(BLOCK, 1, 1),
        # each thread loads its entry's seqlens, then its row: two round trips before the store
        config=(("schedule", "cache_update"), ("skipped_bytes", skipped), ("dependent_loads", 2)))


def tensor_scatter_kernel(update: tuple[str, TensorType], indices: tuple[str, TensorType] | None, cache: str,
                          cache_type: TensorType, axis: int, circular: bool) -> Kernel:
    """ONNX TensorScatter written into its past's buffer (`cache`, of `cache_type`): update element
    (b, ..., j, ...) at j + write_indices[b] along `axis` (0 without indices), wrapped modulo the
    axis in circular mode, dropped past its ends in linear mode."""
    (upd, upd_t), shape = update, cache_type.shape
    big, seq = shape[axis], upd_t.shape[axis]
    mid, tail = math.prod(shape[1:axis]), math.prod(shape[axis + 1:])
    et = cache_type.dtype.ctype
    params = [f"const {et}* __restrict__ upd"]
    if indices is not None:
        params.append(f"const {indices[1].dtype.ctype}* __restrict__ write_indices")
    params.append(f"{et}* __restrict__ cache")
    start = "(long long)write_indices[r / %dll]" % mid if indices is not None else "0ll"
    wrap = (f"  s = ((s % {big}ll) + {big}ll) % {big}ll;" if circular else
            f"  if (s < 0 || s >= {big}ll) continue;     // past the cache's ends: dropped")
    body = [
        f"for (long long p = (long long){BLOCK_X} * blockDim.x + threadIdx.x; p < {upd_t.size}ll; "
        f"p += (long long){GRID_X} * blockDim.x) {{",
        f"  long long t = p % {tail}ll, r = p / {tail}ll;",
        f"  long long j = r % {seq}ll; r /= {seq}ll;",
        f"  long long s = j + {start};",
        wrap,
        f"  cache[(r * {big}ll + s) * {tail}ll + t] = upd[p];",
        "}",
    ]
    entry, src = finish_kernel("tensor_scatter_update", params, body)
    kparams = [KernelParam(et, upd, False)]
    if indices is not None:
        kparams.append(KernelParam(indices[1].dtype.ctype, indices[0], False))
    kparams.append(KernelParam(et, cache, True))
    return Kernel(
        entry=entry, source=src, params=tuple(kparams),
        grid=(max(1, min(math.ceil(upd_t.size / BLOCK), 4096)), 1, 1), block=(BLOCK, 1, 1),
        config=(("schedule", "cache_update"), ("skipped_bytes", cache_type.nbytes - upd_t.nbytes)) +
               ((("dependent_loads", 1),) if indices is not None else ()))
