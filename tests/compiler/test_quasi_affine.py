"""Quasi-affine simplification of index expressions (analysis/quasi_affine.py): each result is
checked equal to its input at every point of the variables' bounds (C's truncating division and
remainder, by NumPy over the whole grid), on the linearised indices reshapes and expands lower to."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from compiler.analysis.evaluate import evaluate
from compiler.analysis.quasi_affine import simplify
from compiler.analysis.views import vars_of
from compiler.ir.dtypes import DType
from compiler.ir.texpr import Binary, Expr, Var, binary, const, substitute_vars, walk

I64 = DType.int64


def c(x: int) -> Expr:
    return const(x, I64)


def grid(bounds: dict[str, tuple[int, int]]) -> dict[str, np.ndarray]:
    names = sorted(bounds)
    axes = np.meshgrid(*[np.arange(lo, hi + 1, dtype=np.int64) for lo, hi in (bounds[n] for n in names)],
                       indexing="ij")
    return dict(zip(names, axes))


def same_everywhere(a: Expr, b: Expr, bounds) -> bool:
    env = grid(bounds)
    return bool(np.array_equal(np.broadcast_to(evaluate(a, env, []), env[next(iter(env))].shape),
                               np.broadcast_to(evaluate(b, env, []), env[next(iter(env))].shape)))


def divisions(e: Expr) -> int:
    return sum(isinstance(n, Binary) and n.fn in ("idiv", "imod") for n in walk(e))


def delinearised(offset: Expr, shape: tuple[int, ...]) -> list[Expr]:
    """The index into `shape` of a row-major flat offset, as reshapes lower it."""
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    return [binary("imod", binary("idiv", offset, c(s)), c(n)) if d else binary("idiv", offset, c(s))
            for d, (s, n) in enumerate(zip(strides, shape))]


def test_a_repeated_key_heads_index_reads_the_key_head():
    """repeat_kv's key index, K[(r + 128 j + 524288 h) / 2097152 % 8, j, r] for 32 query heads over
    8 key heads: with h = 4 h' + g it reads K[h', j, r], and g is gone; with h = 8 h' + g (heads of
    different key heads) g stays."""
    h, j, r = Var("h"), Var("j"), Var("r")
    flat = r + j * 128 + h * 524288
    kv = binary("imod", binary("idiv", flat, c(2097152)), c(8))
    seq = binary("imod", binary("idiv", flat, c(128)), c(4096))
    for g_size in (2, 4, 8):
        bounds = {"hh": (0, 32 // g_size - 1), "g": (0, g_size - 1), "j": (0, 4095), "r": (0, 127)}
        split = substitute_vars(kv, {"h": Var("hh") * g_size + Var("g")})
        got = simplify(split, bounds)
        small = {**bounds, "j": (0, 3)}
        assert same_everywhere(got, split, small)
        # 4 heads a key head: proven. 8 span two key heads: g stays. 2 lie within one key head
        # but the division by 4 heads' span does not split: not proven (flash_decoding takes the
        # divisors of a proven group instead)
        assert ("g" in vars_of(got)) == (g_size != 4)
    got = simplify(substitute_vars(kv, {"h": Var("hh") * 4 + Var("g")}), {"hh": (0, 7), "g": (0, 3), "j": (0, 4095),
                                                                          "r": (0, 127)})
    assert got == Var("hh")
    assert simplify(seq, {"h": (0, 31), "j": (0, 4095), "r": (0, 127)}) == Var("j")


def test_a_division_that_may_see_a_negative_value_is_kept():
    """(x - 5) / 3 truncates toward zero where x < 5: floor's identities do not hold, so the
    division stays (the result is still right everywhere)."""
    x = Var("x")
    e = binary("idiv", x - 5 + x * 3, c(3))
    bounds = {"x": (0, 9)}
    got = simplify(e, bounds)
    assert divisions(got) == 1 and same_everywhere(got, e, bounds)
    pos = binary("idiv", x * 3 + 5, c(3))       # x + 1 + (2 / 3): the division goes
    assert simplify(pos, bounds) == simplify(x + 1, bounds) and divisions(simplify(pos, bounds)) == 0


def test_an_interleaved_head_keeps_its_offset():
    """Tile's index h % 2 for h = 4 h' + g is g % 2: it reads g."""
    e = binary("imod", Var("h"), c(2))
    got = simplify(substitute_vars(e, {"h": Var("hh") * 4 + Var("g")}), {"hh": (0, 3), "g": (0, 3)})
    assert "g" in vars_of(got) and "hh" not in vars_of(got)


@st.composite
def reshapes(draw):
    """A flat offset over one shape's variables (some split h = G h' + g), delinearised into
    another shape of the same size, the way a chain of reshapes and transposes lowers."""
    dims = draw(st.lists(st.integers(1, 6), min_size=1, max_size=4))
    size = math.prod(dims)
    names = [f"v{d}" for d in range(len(dims))]
    perm = draw(st.permutations(range(len(dims))))
    strides = [math.prod(dims[p] for p in perm[k + 1:]) for k in range(len(perm))]
    offset = c(0)
    for k, p in enumerate(perm):
        offset = offset + Var(names[p]) * strides[k]
    other = [size]
    for _ in range(draw(st.integers(0, 3))):
        n = other.pop()
        f = draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
        other += [f, n // f]
    bounds = {n: (0, d - 1) for n, d in zip(names, dims)}
    d0 = dims[0]
    split = draw(st.sampled_from([g for g in range(1, d0 + 1) if d0 % g == 0]))
    mapping = {}
    if split > 1:
        mapping = {names[0]: Var("hh") * split + Var("g")}
        bounds.pop(names[0])
        bounds.update(hh=(0, d0 // split - 1), g=(0, split - 1))
    return [substitute_vars(x, mapping) for x in delinearised(offset, tuple(other))], bounds


@settings(max_examples=150, deadline=None)
@given(reshapes())
def test_simplified_indices_are_the_same_function(case):
    index, bounds = case
    for e in index:
        got = simplify(e, bounds)
        assert same_everywhere(got, e, bounds)
        assert divisions(got) <= divisions(e)


@st.composite
def unrolled_packed_indices(draw):
    """An index into values packed `bits` to a byte in blocks along k (a quantized weight's byte,
    shift and block scale), with k unrolled by a vector: k = V kv + q."""
    bits = draw(st.sampled_from([1, 2, 4, 8]))
    block = draw(st.sampled_from([8, 16, 32, 64]))
    V = draw(st.sampled_from([2, 4, 8]))
    q = draw(st.integers(0, V - 1))
    kb, rows = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    k, n = Var("k"), Var("n")
    blob = block * bits // 8
    forms = [(n * kb + k // block) * blob + ((k % block) * bits) // 8,     # the byte
             ((k % block) * bits) % 8,                                      # the shift
             n * kb + k // block,                                           # the block's scale
             (k + q) // V, (k * 3 + 1) % 6]                                 # and a few others
    e = draw(st.sampled_from(forms))
    K = kb * block
    bounds = {"kv": (0, -(-K // V) - 1), "n": (0, rows - 1)}
    return substitute_vars(e, {"k": Var("kv") * V + q}), bounds, V


@settings(max_examples=200, deadline=None)
@given(unrolled_packed_indices())
def test_an_unrolled_vectors_indices_are_the_same_function(case):
    """The aligned-offset rule (x = L + r, L a multiple of g, r < g: no carry) is exact."""
    e, bounds, _ = case
    got = simplify(e, bounds)
    assert same_everywhere(got, e, bounds)
    assert divisions(got) <= divisions(e)


def test_a_vectors_packed_indices_are_shared_by_its_elements():
    """Eight consecutive k of 4-bit values in blocks of 32: four bytes, two shifts, one scale
    (what the tensor-core loader reads once per vector, kinds/tc_gemm.py)."""
    k, n, kv = Var("k"), Var("n"), Var("kv")
    byte = (n * 128 + k // 32) * 16 + ((k % 32) * 4) // 8
    shift = ((k % 32) * 4) % 8
    scale = n * 128 + k // 32
    bounds = {"kv": (0, 511), "n": (0, 63)}
    for e, distinct in ((byte, 4), (shift, 2), (scale, 1)):
        got = {simplify(substitute_vars(e, {"k": kv * 8 + q}), bounds) for q in range(8)}
        assert len(got) == distinct
