"""TeSA (SparTA's tensor-with-sparsity-attribute): which elements of a tensor are exactly zero, and
their bit width, summarised as one of a few patterns a kernel can exploit (DESIGN section 4).

Patterns: DENSE (no claim), UNSTRUCTURED (zeros anywhere: only their density is kept), BLOCK
(zeros in whole blocks of a [rows, cols] view: the non-zero blocks are listed) and NM_2_4 (at most
2 non-zeros in every 4 consecutive elements along the view's reduction axis, what sparse tensor
cores take). An attribute never guesses: `detect` reads the exact zeros of an array, and a block
is zero only if every element in it is exactly zero.

Detection rules (docs/sparta.md):
- fewer than DENSE_BELOW of the elements zero: DENSE; every element zero: UNSTRUCTURED, density 0;
- rank >= 2: the matrix view is [prod(shape[:-1]), shape[-1]] unless the caller names one;
  the largest of BLOCK_SHAPES whose all-zero blocks hold at least BLOCK_EXPLAINS of the zeros
  and leave at most BLOCK_MAX_DENSITY of the blocks non-zero: BLOCK;
  else 2:4 along the reduction axis (rows first, a MatMul weight's K, unless the caller names it):
  NM_2_4;
- otherwise UNSTRUCTURED."""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from .dtypes import DType
from .graph import _fields_key

DENSE_BELOW = 0.05          # zero fraction under which a tensor is called dense: nothing to skip
BLOCK_SHAPES = ((64, 64), (32, 32), (16, 16), (1, 32), (32, 1))   # tried largest first
BLOCK_MAX_DENSITY = 0.5     # at least half the blocks must be zero for block skipping to pay
BLOCK_EXPLAINS = 0.95       # the zero blocks must hold this share of all zeros (stray zeros tolerated)


class Pattern(str, Enum):
    DENSE = "dense"
    UNSTRUCTURED = "unstructured"
    BLOCK = "block"
    NM_2_4 = "2:4"


@dataclass(frozen=True)
class TeSA:
    """The sparsity attribute of one tensor.

    `density` is the exact share of non-zero elements. `matrix` is the [rows, cols] view BLOCK and
    NM_2_4 refer to (row-major reshape of `shape`); `block` the block shape and `nonzero_blocks`
    the (block row, block col) of every block holding a non-zero, row-major; `axis` the view's
    reduction axis for NM_2_4. `bits` is the element width; `origin` says where the fact came
    from ("weight", "propagated from <value> through <node>", "scrambling")."""

    pattern: Pattern
    shape: tuple[int, ...]
    density: float
    bits: int
    origin: str
    matrix: tuple[int, ...] = ()
    block: tuple[int, ...] = ()
    nonzero_blocks: tuple[tuple[int, int], ...] = ()
    axis: int | None = None

    def __post_init__(self):
        if not 0.0 <= self.density <= 1.0:
            raise ValueError(f"density {self.density} outside [0, 1]")
        if self.bits <= 0:
            raise ValueError(f"bit width {self.bits}")
        if self.pattern in (Pattern.BLOCK, Pattern.NM_2_4) and \
                (len(self.matrix) != 2 or math.prod(self.matrix) != math.prod(self.shape)):
            raise ValueError(f"{self.pattern.value} needs a [rows, cols] view of {self.shape}, got {self.matrix}")
        if self.pattern is Pattern.BLOCK:
            if len(self.block) != 2 or min(self.block) <= 0:
                raise ValueError(f"block shape {self.block}")
            rows, cols = self.block_grid
            if any(not (0 <= r < rows and 0 <= c < cols) for r, c in self.nonzero_blocks):
                raise ValueError(f"a block coordinate outside the {rows}x{cols} grid")
        if self.pattern is Pattern.NM_2_4 and self.axis not in (0, 1):
            raise ValueError("2:4 needs the reduction axis (0 or 1) of its view")

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    @property
    def is_dense(self) -> bool:
        return self.pattern is Pattern.DENSE

    @property
    def block_grid(self) -> tuple[int, int]:
        """Blocks per column and per row of the view (edge blocks may be partial); BLOCK only."""
        if self.pattern is not Pattern.BLOCK or len(self.block) != 2:
            raise ValueError(f"a {self.pattern.value} attribute has no blocks")
        return tuple(-(-n // b) for n, b in zip(self.matrix, self.block))

    @property
    def block_density(self) -> float:
        """Share of blocks holding a non-zero (BLOCK only)."""
        rows, cols = self.block_grid
        return len(self.nonzero_blocks) / (rows * cols)

    def may_be_nonzero(self) -> np.ndarray:
        """A bool mask over `shape`, False only where an element is known to be zero: exact for
        BLOCK's zero blocks and an all-zero tensor; UNSTRUCTURED and 2:4 keep no positions."""
        if self.pattern is Pattern.BLOCK:
            grid = np.zeros(self.block_grid, dtype=bool)
            for r, c in self.nonzero_blocks:
                grid[r, c] = True
            full = np.repeat(np.repeat(grid, self.block[0], axis=0), self.block[1], axis=1)
            return full[:self.matrix[0], :self.matrix[1]].reshape(self.shape)
        return np.full(self.shape, self.density > 0.0, dtype=bool)

    def with_bits(self, bits: int) -> "TeSA":
        return dataclasses.replace(self, bits=bits)


def default_bits(dtype: DType) -> int:
    """The bit width the dtype stores (32 for float32, 16 for the halves, 8 for int8)."""
    return dtype.itemsize * 8


def matrix_view(shape: tuple[int, ...]) -> tuple[int, int] | None:
    """The default [rows, cols] view: leading axes flattened into rows (None below rank 2)."""
    if len(shape) < 2:
        return None
    return math.prod(shape[:-1]), shape[-1]


def dense(shape: tuple[int, ...], dtype: DType, origin: str = "weight") -> TeSA:
    return TeSA(Pattern.DENSE, tuple(shape), 1.0, default_bits(dtype), origin)


def detect(array: np.ndarray, *, matrix: tuple[int, int] | None = None, reduction_axis: int | None = None,
           bits: int | None = None, origin: str = "weight") -> TeSA:
    """The exact attribute of `array`'s zeros (module docstring's rules)."""
    a = np.asarray(array)
    return from_zero_mask(a == 0, DType.from_numpy(a.dtype), matrix=matrix, reduction_axis=reduction_axis,
                          bits=bits, origin=origin)


def from_zero_mask(zero: np.ndarray, dtype: DType, *, matrix: tuple[int, int] | None = None,
                   reduction_axis: int | None = None, bits: int | None = None, origin: str = "weight") -> TeSA:
    """The attribute summarising an exact mask of zero elements (True: the element is zero)."""
    zero = np.asarray(zero, dtype=bool)
    shape = tuple(int(d) for d in zero.shape)
    bits = default_bits(dtype) if bits is None else bits
    zero_fraction = np.count_nonzero(zero) / zero.size if zero.size else 0.0
    if zero_fraction < DENSE_BELOW:
        return TeSA(Pattern.DENSE, shape, 1.0, bits, origin)
    density = float(1.0 - zero_fraction)
    if density == 0.0:
        return TeSA(Pattern.UNSTRUCTURED, shape, 0.0, bits, origin)   # all zero: no position to keep
    view = tuple(matrix) if matrix is not None else matrix_view(shape)
    if view is not None:
        z2 = zero.reshape(view)
        found = _best_block(z2)
        if found is not None:
            block, grid = found
            blocks = tuple((int(r), int(c)) for r, c in zip(*np.nonzero(~grid)))
            return TeSA(Pattern.BLOCK, shape, density, bits, origin, matrix=view, block=block, nonzero_blocks=blocks)
        for axis in ((0, 1) if reduction_axis is None else (reduction_axis,)):
            if _is_2_4(z2, axis):
                return TeSA(Pattern.NM_2_4, shape, density, bits, origin, matrix=view, axis=axis)
    return TeSA(Pattern.UNSTRUCTURED, shape, density, bits, origin)


def zero_blocks(zero2d: np.ndarray, block: tuple[int, int]) -> np.ndarray:
    """Per block of the view, whether all its elements are zero (edge blocks padded with zeros,
    so a partial block is zero when its real elements are)."""
    rows, cols = zero2d.shape
    br, bc = block
    gr, gc = -(-rows // br), -(-cols // bc)
    padded = np.ones((gr * br, gc * bc), dtype=bool)
    padded[:rows, :cols] = zero2d
    return padded.reshape(gr, br, gc, bc).all(axis=(1, 3))


def _best_block(zero2d: np.ndarray) -> tuple[tuple[int, int], np.ndarray] | None:
    """The largest block shape (BLOCK_SHAPES order) that explains the zeros, with its zero grid."""
    zeros = int(zero2d.sum())
    for block in BLOCK_SHAPES:
        if block[0] > zero2d.shape[0] or block[1] > zero2d.shape[1]:
            continue
        grid = zero_blocks(zero2d, block)
        if grid.size < 2:
            continue          # one block is the whole matrix: nothing to skip selectively
        explained = _zeros_in_zero_blocks(zero2d, grid, block)
        if explained >= BLOCK_EXPLAINS * zeros and 1.0 - grid.mean() <= BLOCK_MAX_DENSITY:
            return block, grid
    return None


def _zeros_in_zero_blocks(zero2d: np.ndarray, grid: np.ndarray, block: tuple[int, int]) -> int:
    # count real elements only: edge blocks are partial
    full = np.repeat(np.repeat(grid, block[0], axis=0), block[1], axis=1)
    return int(full[:zero2d.shape[0], :zero2d.shape[1]].sum())


def _is_2_4(zero2d: np.ndarray, axis: int) -> bool:
    """Every 4 consecutive elements along `axis` (groups aligned at multiples of 4) hold at most 2 non-zeros."""
    z = zero2d if axis == 1 else zero2d.T
    if z.shape[1] % 4 != 0 or z.size == 0:
        return False
    nonzero_per_group = (~z).reshape(z.shape[0], -1, 4).sum(axis=2)
    return bool((nonzero_per_group <= 2).all())


def summary(t: TeSA) -> dict:
    """The attribute as the report shows it (the list of non-zero blocks counted, not listed)."""
    out = {"pattern": t.pattern.value, "shape": list(t.shape), "density": round(t.density, 4), "bits": t.bits,
           "origin": t.origin}
    if t.pattern is Pattern.BLOCK:
        out.update(block=list(t.block), nonzero_blocks=len(t.nonzero_blocks), block_density=round(t.block_density, 4))
    if t.pattern is Pattern.NM_2_4:
        out["axis"] = t.axis
    return out
