"""Index expressions simplified as quasi-affine forms: sums of integer multiples of variables and
of floor divisions and remainders by positive constants, with each division's and remainder's
argument split by the bounds of the variables.

Reshapes and expands lower to linearised indices (idiv and imod of a flat offset): a grouped-query
attention's key cache read as K[(r + 128 j + 524288 h) / 2097152 % 8, ...] is K[h / 4, ...] for
h < 32, j < 4096, r < 128. `simplify` proves such identities from the bounds alone:

- x / s with x >= 0 is A + R / s where x = s A + R and every coefficient of R is in [0, s); when
  R's bounds lie in one [k s, (k + 1) s) the quotient is A + k and the division is gone;
- x % s with x >= 0 is R % s, and R - k s when R's bounds lie in one [k s, (k + 1) s).

Each rule is exact on integers, and a division or remainder whose argument may be negative (C's
truncation is not floor there) is left as it was, so the result is the same function of the
variables within their bounds. Used by kinds that ask whether an operand depends on a variable
(kinds/flash_decoding.py: which heads read the same keys)."""
from __future__ import annotations

import math

from ..ir.dtypes import DType
from ..ir.texpr import Binary, Const, Expr, Var, binary, children, const, index_interval, map_children, substitute_vars, walk
from .views import combine_affine

INDEX = DType.int64
# a linear form: {term: coefficient} and a constant; a term is a Var or a canonical idiv / imod
Linear = tuple[dict[Expr, int], int]


def simplify(e: Expr, bounds: dict[str, tuple[int, int]]) -> Expr:
    """`e` with every integer index sub-expression rewritten as its quasi-affine form, equal to it
    wherever each variable lies within its inclusive `bounds`."""
    if e.dtype is INDEX:
        form = _linear(e, bounds)
        if form is not None:
            return _expr(form)
    return map_children(e, lambda c: simplify(c, bounds))


def fewer_divisions(e: Expr, bounds: dict[str, tuple[int, int]]) -> Expr:
    """`e` with each integer index sub-expression replaced by its quasi-affine form only where
    that form has fewer divisions and remainders (the generated code's costliest index
    arithmetic: 64-bit, a sequence of instructions each); everything else as it was."""
    return _fewer_divisions(e, bounds, {}, {})


def _fewer_divisions(e: Expr, bounds, forms: dict, counts: dict) -> Expr:
    """fewer_divisions with the forms and division counts of the sub-expressions found so far: an
    index composed through many reshapes (a channel shuffle's) nests each form inside the next,
    and every level would otherwise find its operands' forms again."""
    if e.dtype is INDEX:
        form = _linear(e, bounds, forms)
        if form is not None:
            out = _expr(form)
            if _divisions(out, counts) < _divisions(e, counts):
                return out
    if not _divisions(e, counts):
        return e
    return map_children(e, lambda c: _fewer_divisions(c, bounds, forms, counts))


def _divisions(e: Expr, counts: dict) -> int:
    if e not in counts:
        counts[e] = (isinstance(e, Binary) and e.fn in ("idiv", "imod")) + sum(_divisions(c, counts) for c in children(e))
    return counts[e]


def divisions(e: Expr) -> int:
    """The integer divisions and remainders in `e`."""
    return sum(isinstance(n, Binary) and n.fn in ("idiv", "imod") for n in walk(e))


def linear_form(e: Expr, bounds: dict[str, tuple[int, int]]) -> Linear | None:
    """`e`'s quasi-affine form ({term: coefficient}, constant), or None where it has none."""
    return _linear(e, bounds)


def divisor(form: Linear, bounds: dict[str, tuple[int, int]]) -> int:
    """A number every value of the form's terms part (its constant left out) is a multiple of."""
    return math.gcd(*(c * _multiple(t, bounds) for t, c in form[0].items())) if form[0] else 0


def _linear(e: Expr, bounds, memo: dict | None = None) -> Linear | None:
    """`e`'s form; `memo` keeps the forms found (for one `bounds`) across calls."""
    if memo is None:
        memo = {}
    if e not in memo:
        memo[e] = _linear_of(e, bounds, memo)
    return memo[e]


def _linear_of(e: Expr, bounds, memo: dict) -> Linear | None:
    if isinstance(e, Var):
        return ({e: 1}, 0) if e.name in bounds else None
    if isinstance(e, Const):
        return ({}, int(e.value)) if e.dtype is INDEX else None
    if not isinstance(e, Binary) or e.dtype is not INDEX:
        return None
    if e.fn in ("add", "sub", "mul"):
        a, b = _linear(e.a, bounds, memo), _linear(e.b, bounds, memo)
        return None if a is None or b is None else combine_affine(e.fn, a, b)
    if e.fn in ("idiv", "imod") and isinstance(e.b, Const) and e.b.dtype is INDEX and int(e.b.value) > 0:
        x = _linear(e.a, bounds, memo)
        s = int(e.b.value)
        if x is None:
            return None
        lo_hi = _interval(x, bounds)
        if lo_hi is None or lo_hi[0] < 0:
            return None                 # C truncates toward zero: floor's identities need x >= 0
        # x = s A + R, every coefficient of R (and its constant) in [0, s): R >= 0
        outer = {t: c // s for t, c in x[0].items() if c // s}
        rest = ({t: c % s for t, c in x[0].items() if c % s}, x[1] % s)
        r_lo, r_hi = _interval(rest, bounds)
        k = r_lo // s
        whole = r_hi // s == k          # R / s is the constant k everywhere
        if e.fn == "idiv":
            if whole:
                return outer, x[1] // s + k
        elif whole:
            return rest[0], rest[1] - k * s
        # R = L + r with L >= 0 a multiple of g = gcd(s, L's steps) and 0 <= r < g: L % s is at most
        # s - g, so r never carries: R / s = L / s and R % s = L % s + r (an index unrolled by a
        # vector of r's: every element's division the same expression, kinds/tc_gemm.py)
        g = math.gcd(s, *(c * _multiple(t, bounds, memo) for t, c in rest[0].items()))
        if rest[0] and rest[1] < g and r_lo - rest[1] >= 0:
            lin = (rest[0], 0)
            if e.fn == "idiv":
                outer[Binary("idiv", _expr(lin), const(s, INDEX), INDEX)] = 1
                return outer, x[1] // s
            if g == s:                  # L is a multiple of s
                return {}, rest[1]
            return {Binary("imod", _expr(lin), const(s, INDEX), INDEX): 1}, rest[1]
        if e.fn == "idiv":
            outer[Binary("idiv", _expr(rest), const(s, INDEX), INDEX)] = 1
            return outer, x[1] // s
        return {Binary("imod", _expr(rest), const(s, INDEX), INDEX): 1}, 0
    return None


def _multiple(t: Expr, bounds, memo: dict | None = None) -> int:
    """A number every value of term `t` is a multiple of: a remainder x % s of an x whose steps
    and constant share a divisor with s is a multiple of that divisor; a quotient x / s of an x
    that is a multiple d of s (the division exact) a multiple of d / s; anything else, 1."""
    if isinstance(t, Binary) and t.fn in ("imod", "idiv") and isinstance(t.b, Const):
        x = _linear(t.a, bounds, memo)
        if x is not None:
            s = int(t.b.value)
            d = math.gcd(x[1], *(c * _multiple(u, bounds, memo) for u, c in x[0].items()))
            if t.fn == "imod":
                return math.gcd(s, d)
            if d and d % s == 0:
                return d // s
    return 1


def _interval(form: Linear, bounds) -> tuple[int, int] | None:
    lo = hi = form[1]
    for t, c in form[0].items():
        b = index_interval(t, bounds)
        if b is None:
            return None
        lo, hi = lo + min(c * b[0], c * b[1]), hi + max(c * b[0], c * b[1])
    return lo, hi


def _expr(form: Linear) -> Expr:
    """The form as an expression, its terms in a fixed order (by their text)."""
    out: Expr = const(form[1], INDEX)
    for t, c in sorted(form[0].items(), key=lambda tc: repr(tc[0])):
        out = binary("add", out, t if c == 1 else binary("mul", t, const(c, INDEX)))
    return out


def unrolled(e: Expr, var: str, width: int, bounds: dict[str, tuple[int, int]], vector: str = "by_vv") -> list[Expr]:
    """`e` at var = width * vector + q for q = 0 .. width - 1, each simplified: the elements of a
    vector of `width` consecutive values of `var` (`bounds` of every other variable; `vector`'s own
    is derived from var's). Indices the elements share come out as the same expression, so the
    code computes them once (a packed weight's byte for two 4-bit values, a block's scale for all)."""
    lo, hi = bounds[var]
    vb = {k: v for k, v in bounds.items() if k != var}
    vb[vector] = (lo // width, hi // width)
    return [simplify(substitute_vars(e, {var: binary("add", binary("mul", Var(vector, INDEX), const(width, INDEX)),
                                                                  const(q, INDEX))}), vb)
            for q in range(width)]


def gemm_vector_sources(view, source: Expr, side: str, width: int, along: str = "k") -> list[Expr] | None:
    """A GEMM operand (`view` a GemmView, side "a" or "b") at `width` consecutive values of its
    reduction variable (`along` "k") or of its row variable ("r": m for A, n for B), v = width
    by_vv + q (`unrolled`, every variable bounded by its extent): the tensor-core generic_vec
    loader's expressions. None where that axis is not one variable."""
    group = view.m if side == "a" else view.n
    axis = view.k if along == "k" else group
    if len(axis) != 1:
        return None
    bounds = {v: (0, n - 1) for v, n in tuple(group) + tuple(view.batch) + tuple(view.k)}
    bounds.update({v: (0, 0) for v in view.unit})
    return unrolled(source, axis[0][0], width, bounds)
