"""A tensor expression's value evaluated with NumPy over whole grids of index values at once, for
the passes that reason about constant data: SparTA's propagation (indices and conditions that
depend only on index variables and constant inputs) and its specialisation (what a contraction's
constant operand holds at every (row, k)). Integer division and remainder truncate toward zero,
as C does. What depends on data that is not known, and ops not listed, give None."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..ir.dtypes import DType
from ..ir.texpr import Binary, Cast, Const, Expr, Load, Select, Unary, Var


def evaluate(e: Expr, env: dict[str, np.ndarray], inputs: Sequence[np.ndarray | None],
             memo: dict[int, np.ndarray | None] | None = None) -> np.ndarray | None:
    """The value of `e` at the index values `env` (arrays that broadcast together); `inputs[k]` is
    input k's data, None where it is not known at compile time. `memo` (by node identity, for
    one expression that stays alive) lets a caller evaluate many sub-expressions of it. A load
    that reads its input whole over the grid gives a read-only view of the data (_moved)."""
    memo = {} if memo is None else memo
    with np.errstate(all="ignore"):
        return _value(e, env, inputs, memo)


def grid_env(groups: Sequence[Sequence[tuple[str, int]]]) -> dict[str, np.ndarray]:
    """Index variables over the grid of several fused groups (each (var, extent)..., last fastest):
    group g's variables vary along axis g of the result, decomposed from its linear index."""
    env: dict[str, np.ndarray] = {}
    n = len(groups)
    for g, group in enumerate(groups):
        total = int(np.prod([ext for _, ext in group], dtype=np.int64)) if group else 1
        lin = np.arange(total, dtype=np.int64)
        for v, ext in reversed(group):
            shape = [1] * n
            shape[g] = total
            env[v] = (lin % ext).reshape(shape)
            lin = lin // ext
    return env


def _value(e: Expr, env, inputs, memo) -> np.ndarray | None:
    k = id(e)
    if k not in memo:
        memo[k] = _compute(e, env, inputs, memo)
    return memo[k]


def _compute(e: Expr, env, inputs, memo) -> np.ndarray | None:
    if isinstance(e, Var):
        return env.get(e.name)
    if isinstance(e, Const):
        return np.asarray(e.value, dtype=e.dtype.np)
    if isinstance(e, Load):
        return _load(e, env, inputs, memo)
    if isinstance(e, Cast):
        v = _value(e.x, env, inputs, memo)
        return None if v is None else np.asarray(v).astype(e.dtype.np)
    if isinstance(e, Select):
        c, a, b = (_value(x, env, inputs, memo) for x in (e.cond, e.a, e.b))
        return None if c is None or a is None or b is None else np.where(c, a, b)
    if isinstance(e, Unary) and e.fn in UNARY:
        v = _value(e.x, env, inputs, memo)
        return None if v is None else np.asarray(UNARY[e.fn](v)).astype(e.dtype.np)
    if isinstance(e, Binary) and e.fn in BINARY:
        a, b = _value(e.a, env, inputs, memo), _value(e.b, env, inputs, memo)
        if a is None or b is None:
            return None
        return np.asarray(BINARY[e.fn](a, b, e.a.dtype)).astype(e.dtype.np)
    return None   # a Fold, or an op not listed


def _load(e: Load, env, inputs, memo) -> np.ndarray | None:
    data = inputs[e.arg] if e.arg < len(inputs) else None
    if data is None or data.size == 0 or len(e.index) != data.ndim:
        return None
    idx = [_value(x, env, inputs, memo) for x in e.index]
    if any(v is None for v in idx):
        return None
    # a guarded load (under a Select) may be asked out of bounds: the Select discards it
    at = tuple(np.clip(np.asarray(v).astype(np.int64), 0, n - 1) for v, n in zip(idx, data.shape))
    moved = _moved(data, at)
    return data[at] if moved is None else moved


def _moved(data: np.ndarray, at: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """data[at] without the gather where each index runs 0..n-1 along a grid axis of its own (a
    constant read whole over the grid, transposed or not: the searches read weights so): the data
    with its axes moved there, a read-only view. None where the indices are any other."""
    ndim = max((a.ndim for a in at), default=0)
    if ndim == 0:
        return None         # one element (a scalar, as the gather gives it)
    shape = [1] * ndim
    placed: dict[int, int] = {}         # grid axis -> the data axis that runs along it
    for d, (a, n) in enumerate(zip(at, data.shape)):
        along = [k for k, s in enumerate((1,) * (ndim - a.ndim) + a.shape) if s != 1]
        if n == 1 and not along:
            continue        # an axis of one, read at 0
        if len(along) != 1 or along[0] in placed or a.size != n or not np.array_equal(a.ravel(), np.arange(n)):
            return None
        placed[along[0]] = d
        shape[along[0]] = n
    order = [placed[k] for k in sorted(placed)]
    moved = np.transpose(data, order + [d for d in range(data.ndim) if d not in order]).reshape(shape)
    moved.flags.writeable = False
    return moved


def _trunc_div(a, b, dtype: DType):
    if dtype.is_float:
        return a / b
    b = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def _c_mod(a, b, dtype: DType):
    return np.fmod(a, np.where(b == 0, 1, b)) if not dtype.is_float else np.fmod(a, b)


UNARY = {"neg": np.negative, "abs": np.abs, "sign": np.sign, "floor": np.floor, "ceil": np.ceil,
         "not": np.logical_not, "bitnot": np.invert, "isnan": np.isnan, "isinf": np.isinf,
         "isposinf": np.isposinf, "isneginf": np.isneginf}
BINARY = {
    "add": lambda a, b, t: a + b, "sub": lambda a, b, t: a - b, "mul": lambda a, b, t: a * b,
    "div": _trunc_div, "idiv": _trunc_div, "imod": _c_mod,
    "min": lambda a, b, t: np.minimum(a, b), "max": lambda a, b, t: np.maximum(a, b),
    "eq": lambda a, b, t: a == b, "ne": lambda a, b, t: a != b, "lt": lambda a, b, t: a < b,
    "le": lambda a, b, t: a <= b, "gt": lambda a, b, t: a > b, "ge": lambda a, b, t: a >= b,
    "and": lambda a, b, t: np.logical_and(a, b), "or": lambda a, b, t: np.logical_or(a, b),
    "xor": lambda a, b, t: np.logical_xor(a, b), "bitand": lambda a, b, t: a & b,
    "bitor": lambda a, b, t: a | b, "bitxor": lambda a, b, t: a ^ b,
}
