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

from ..ir.dtypes import DType
from ..ir.texpr import Binary, Const, Expr, Var, binary, const, index_interval, map_children, walk
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
    if e.dtype is INDEX:
        form = _linear(e, bounds)
        if form is not None:
            out = _expr(form)
            if divisions(out) < divisions(e):
                return out
    if not any(isinstance(n, Binary) and n.fn in ("idiv", "imod") for n in walk(e)):
        return e
    return map_children(e, lambda c: fewer_divisions(c, bounds))


def divisions(e: Expr) -> int:
    """The integer divisions and remainders in `e`."""
    return sum(isinstance(n, Binary) and n.fn in ("idiv", "imod") for n in walk(e))


def _linear(e: Expr, bounds) -> Linear | None:
    if isinstance(e, Var):
        return ({e: 1}, 0) if e.name in bounds else None
    if isinstance(e, Const):
        return ({}, int(e.value)) if e.dtype is INDEX else None
    if not isinstance(e, Binary) or e.dtype is not INDEX:
        return None
    if e.fn in ("add", "sub", "mul"):
        a, b = _linear(e.a, bounds), _linear(e.b, bounds)
        return None if a is None or b is None else combine_affine(e.fn, a, b)
    if e.fn in ("idiv", "imod") and isinstance(e.b, Const) and e.b.dtype is INDEX and int(e.b.value) > 0:
        x = _linear(e.a, bounds)
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
            outer[Binary("idiv", _expr(rest), const(s, INDEX), INDEX)] = 1
            return outer, x[1] // s
        if whole:
            return rest[0], rest[1] - k * s
        return {Binary("imod", _expr(rest), const(s, INDEX), INDEX): 1}, 0
    return None


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
