"""A thread's loads of consecutive elements as aligned 16-byte vector loads.

A matrix-vector product over a packed or dequantized weight (a decoder step's x . W with W int4 in
MatMulNBits' layout, k contiguous) done one k at a time loads a byte per k (each byte holds two
4-bit values) and a block's scale per k, and the activation element by element: scalar requests
that cost more L2 traffic and issue slots than the bytes are worth. A thread that takes `width`
consecutive k at once (`chunk_sum`: the body unrolled over k = width * by_vv + q, its shared
sub-expressions the same expression) reads a run of consecutive elements of each operand whose k
steps by one element: those runs become one 16-byte load each (`vector_loads`), where the
quasi-affine form of the flat offset proves the run's start a multiple of the vector (the tensor's
base is 256-byte aligned, runtime/executor.py) and the tensor a whole number of vectors, so no
vector reads past its end. kinds/reduce.py prices it, codegen/tiled.py renders it."""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.texpr import Binary, Expr, Load, Select, TensorExpr, children, const
from .quasi_affine import INDEX, _expr, divisor, linear_form, unrolled
from .views import ReduceView

VECTOR_BYTES = 16
CHUNK = "by_vv"          # the chunk variable: k = width * by_vv + q


@dataclass(frozen=True)
class VectorLoad:
    """One 16-byte load of input `arg`: `elems` elements from flat element offset `start`."""

    arg: int
    start: Expr
    elems: int


def chunk_bounds(view: ReduceView, width: int) -> dict[str, tuple[int, int]]:
    """Every index variable's inclusive bounds in a chunked reduction (`width` k per chunk)."""
    bounds = {v: (0, n - 1) for v, n in view.rows}
    bounds.update({v: (0, 0) for v in view.unit})
    (k, K), = view.k
    bounds[k] = (0, K - 1)
    bounds[CHUNK] = (0, K // width - 1)
    return bounds


def chunk_sum(te: TensorExpr, view: ReduceView, width: int) -> Expr | None:
    """The body summed over `width` consecutive k of chunk `by_vv` (one thread's share of a
    sum over one k variable whose extent `width` divides), each element's indices simplified so
    that what two elements share is one expression; None where the reduction is not such a sum."""
    if te.reduce is None or te.reduce.op != "sum" or len(view.k) != 1 or view.K % width or view.K < width:
        return None
    bounds = chunk_bounds(view, width)
    k = view.k[0][0]
    parts = unrolled(te.body, k, width, {v: b for v, b in bounds.items() if v != CHUNK}, CHUNK)
    total = parts[0]
    for p in parts[1:]:
        total = Binary("add", total, p, total.dtype)
    return total


def _unguarded_loads(e: Expr) -> list[Load]:
    """Loads every evaluation of `e` makes (not under a Select's branch), in first-seen order."""
    seen: dict[Load, None] = {}

    def visit(x: Expr) -> None:
        if isinstance(x, Load):
            seen.setdefault(x, None)
        if isinstance(x, Select):
            visit(x.cond)
            return
        for c in children(x):
            visit(c)
    visit(e)
    return list(seen)


def flat_offset(ld: Load, shape: tuple[int, ...]) -> Expr:
    """The load's flat element offset as an index expression."""
    out: Expr = const(0, INDEX)
    stride = 1
    for idx, n in reversed(list(zip(ld.index, shape))):
        out = Binary("add", out, Binary("mul", idx, const(stride, INDEX), INDEX), INDEX)
        stride *= n
    return out


def vector_loads(e: Expr, inputs, bounds: dict[str, tuple[int, int]]) -> tuple[list[VectorLoad], dict[Load, tuple[int, int]]]:
    """The 16-byte vectors that serve `e`'s unguarded loads: loads of one input whose flat offsets
    differ by constants, within one aligned window of 16 bytes, at least two of them. Returns the
    vectors and, for each load they serve, (vector number, element)."""
    # (input, the offset's terms) -> window start -> [(load, its offset's constant)]
    runs: dict[tuple[int, frozenset], dict[int, list[tuple[Load, int]]]] = {}
    for ld in _unguarded_loads(e):
        t = inputs[ld.arg]
        n = VECTOR_BYTES // t.dtype.itemsize
        if VECTOR_BYTES % t.dtype.itemsize or t.size % n:
            continue
        form = linear_form(flat_offset(ld, t.shape), bounds)
        if form is None or divisor(form, bounds) % n:
            continue                # the run's start is not provably a multiple of the vector
        key = (ld.arg, frozenset(form[0].items()))
        runs.setdefault(key, {}).setdefault(form[1] - form[1] % n, []).append((ld, form[1]))
    vectors: list[VectorLoad] = []
    where: dict[Load, tuple[int, int]] = {}
    for (arg, terms), windows in runs.items():
        n = VECTOR_BYTES // inputs[arg].dtype.itemsize
        for start, loads in sorted(windows.items()):
            if len({c for _, c in loads}) < 2:
                continue            # one element: a scalar load is as good
            vectors.append(VectorLoad(arg, _expr((dict(terms), start)), n))
            for ld, c in loads:
                where[ld] = (len(vectors) - 1, c - start)
    return vectors, where


def chunked(te: TensorExpr, view: ReduceView, width: int):
    """(chunk expression, bounds, vectors, where) of a reduction taken `width` k at a time, or None
    where it cannot be or no vector serves it (memoised: the roller prices it, render draws it)."""
    key = (te.key, view, width)
    if key not in _MEMO:
        if len(_MEMO) > 256:
            _MEMO.clear()
        chunk = chunk_sum(te, view, width)
        found = None
        if chunk is not None:
            bounds = chunk_bounds(view, width)
            vectors, where = vector_loads(chunk, te.inputs, bounds)
            found = (chunk, bounds, vectors, where) if vectors else None
        _MEMO[key] = found
    return _MEMO[key]


_MEMO: dict = {}

