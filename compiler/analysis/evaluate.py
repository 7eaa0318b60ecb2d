"""A tensor expression evaluated with NumPy over whole grids of index values at once: what an
operand of a contraction holds at every (row, k), for passes that specialise a kernel to constant
data (SparTA's zero tiles). Only what such operands use is evaluated; anything else gives None,
and the caller keeps the dense kernel."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..ir.texpr import Binary, Cast, Const, Expr, Load, Select, Unary, Var

_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
           "min": np.minimum, "max": np.maximum, "eq": np.equal, "ne": np.not_equal,
           "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
           "and": np.logical_and, "or": np.logical_or}
_UNARY = {"neg": np.negative, "abs": np.abs}


def evaluate(e: Expr, env: dict[str, np.ndarray], inputs: Sequence[np.ndarray | None]) -> np.ndarray | None:
    """The value of `e` at the index values `env` (arrays that broadcast together); `inputs[k]`
    is input k's data, None where it is not known at compile time. None: not evaluable."""
    with np.errstate(all="ignore"):
        return _eval(e, env, inputs)


def _eval(e: Expr, env, inputs):
    if isinstance(e, Var):
        return env.get(e.name)
    if isinstance(e, Const):
        return np.asarray(e.value)
    if isinstance(e, Load):
        data = inputs[e.arg] if e.arg < len(inputs) else None
        if data is None or len(e.index) != data.ndim:
            return None
        idx = []
        for d, ix in enumerate(e.index):
            v = _eval(ix, env, inputs)
            if v is None:
                return None
            # a guarded load (under a Select) may be asked out of bounds: the Select discards it
            idx.append(np.clip(np.asarray(v, dtype=np.int64), 0, max(data.shape[d] - 1, 0)))
        return data[tuple(np.broadcast_arrays(*idx))] if idx else data[()]
    if isinstance(e, Binary):
        a, b = _eval(e.a, env, inputs), _eval(e.b, env, inputs)
        if a is None or b is None:
            return None
        if e.fn == "idiv":
            return np.where(b != 0, np.trunc(a / np.where(b != 0, b, 1)), 0).astype(np.int64)
        if e.fn == "imod":
            return np.fmod(a, np.where(b != 0, b, 1)).astype(np.int64)
        f = _BINARY.get(e.fn)
        return None if f is None else f(a, b)
    if isinstance(e, Unary):
        x = _eval(e.x, env, inputs)
        f = _UNARY.get(e.fn)
        return None if x is None or f is None else f(x)
    if isinstance(e, Select):
        c, a, b = (_eval(x, env, inputs) for x in (e.cond, e.a, e.b))
        return None if c is None or a is None or b is None else np.where(c, a, b)
    if isinstance(e, Cast):
        x = _eval(e.x, env, inputs)
        return None if x is None else np.asarray(x).astype(e.dtype.np if e.dtype.np is not None else np.float64)
    return None   # a Fold or an op not listed: not evaluated


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
