"""Tensor expressions: each output element as a scalar expression over input elements.

An op's definition is a `TensorExpr`: output index variables i0..i{n-1}, optional reduction axes
with a combiner, a body, and an epilogue over the accumulator. Tile propagation, traffic and
codegen all work from these expressions rather than from per-op special cases."""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Union

import numpy as np

from .dtypes import DType
from .graph import TensorType, _fields_key

Scalar = Union[int, float, bool]


class Expr:
    """Base of scalar expressions; arithmetic operators build Binary nodes with constant folding."""

    dtype: DType

    def __add__(self, o): return binary("add", self, o)
    def __radd__(self, o): return binary("add", o, self)
    def __sub__(self, o): return binary("sub", self, o)
    def __rsub__(self, o): return binary("sub", o, self)
    def __mul__(self, o): return binary("mul", self, o)
    def __rmul__(self, o): return binary("mul", o, self)
    def __truediv__(self, o): return binary("div", self, o)
    def __rtruediv__(self, o): return binary("div", o, self)
    def __floordiv__(self, o): return binary("idiv", self, o)
    def __mod__(self, o): return binary("imod", self, o)
    def __neg__(self): return unary("neg", self)
    def __lt__(self, o): return binary("lt", self, o)
    def __le__(self, o): return binary("le", self, o)
    def __gt__(self, o): return binary("gt", self, o)
    def __ge__(self, o): return binary("ge", self, o)

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}


@dataclass(frozen=True, eq=True)
class Var(Expr):
    """An index variable: an output axis (i0, i1, ...), a reduction axis (r0, ...) or `acc`."""

    name: str
    dtype: DType = DType.int64



@dataclass(frozen=True, eq=True)
class Const(Expr):
    value: Scalar
    dtype: DType



@dataclass(frozen=True, eq=True)
class Load(Expr):
    """Element `index` of input number `arg`, converted to its compute type."""

    arg: int
    index: tuple[Expr, ...]
    dtype: DType



@dataclass(frozen=True, eq=True)
class Unary(Expr):
    fn: str
    x: Expr
    dtype: DType



@dataclass(frozen=True, eq=True)
class Binary(Expr):
    fn: str
    a: Expr
    b: Expr
    dtype: DType



@dataclass(frozen=True, eq=True)
class Select(Expr):
    """cond ? a : b, evaluated lazily (a guarded load is never executed out of bounds)."""

    cond: Expr
    a: Expr
    b: Expr
    dtype: DType



@dataclass(frozen=True, eq=True)
class Cast(Expr):
    x: Expr
    dtype: DType



FOLD_OPS = ("sum", "prod", "max", "min")


@dataclass(frozen=True, eq=True)
class Fold(Expr):
    """A reduction inside an expression: `op` of `body` over its own axes (name, extent), evaluated
    where it is read. The register level carries a small reduction into its reader this way (a
    depthwise conv recomputed in the loads of the pointwise conv after it, a 1x1 shortcut conv in
    the epilogue of the conv it is added to). Axis names are unique within the whole expression."""

    op: str
    axes: tuple[tuple[str, int], ...]
    body: Expr
    dtype: DType

    def __post_init__(self):
        if self.op not in FOLD_OPS:
            raise ValueError(f"no fold for reduction {self.op}")

    @property
    def extent(self) -> int:
        return math.prod(n for _, n in self.axes)


def _remember_hash(cls):
    """A node's hash computed once: the generated one hashes the whole subtree, and the passes
    key dictionaries and sets by expressions whose parents they hash too. Kept out of pickles
    (`Expr.__getstate__`): a str's hash differs from process to process."""
    computed = cls.__hash__

    def __hash__(self):
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = computed(self)
        return h
    cls.__hash__ = __hash__


for _node in (Var, Const, Load, Unary, Binary, Select, Cast, Fold):
    _remember_hash(_node)


# Unary functions: name -> whether the result is bool (else the operand's type).
UNARY = {
    "neg": False, "abs": False, "sign": False, "exp": False, "log": False, "sqrt": False,
    "rsqrt": False, "reciprocal": False, "sin": False, "cos": False, "tan": False, "asin": False,
    "acos": False, "atan": False, "sinh": False, "cosh": False, "tanh": False, "asinh": False,
    "acosh": False, "atanh": False, "erf": False, "floor": False, "ceil": False, "round": False,
    "sigmoid": False, "softplus": False, "log1p": False, "expm1": False, "bitnot": False,
    "isnan": True, "isinf": True, "isposinf": True, "isneginf": True, "not": True,
}
# Binary functions: name -> whether the result is bool.
BINARY = {
    "add": False, "sub": False, "mul": False, "div": False, "idiv": False, "imod": False,
    "fmod": False, "pymod": False, "pow": False, "min": False, "max": False, "atan2": False,
    "bitand": False, "bitor": False, "bitxor": False, "shl": False, "shr": False,
    "eq": True, "ne": True, "lt": True, "le": True, "gt": True, "ge": True,
    "and": True, "or": True, "xor": True,
}
REDUCE_OPS = ("sum", "prod", "max", "min", "argmax", "argmin", "argmax_last", "argmin_last")


def const(value: Scalar, dtype: DType) -> Const:
    """A constant of `dtype` (value normalised to the Python type of that dtype)."""
    if dtype is DType.bool:
        value = bool(value)
    elif dtype.is_float:
        value = float(value)
    else:
        value = int(value)
    return Const(value, dtype)


def as_expr(x, like: DType | None = None) -> Expr:
    if isinstance(x, Expr):
        return x
    if isinstance(x, bool):
        return const(x, DType.bool)
    if isinstance(x, int):
        return const(x, like if like is not None else DType.int64)
    if isinstance(x, float):
        return const(x, like if like is not None and like.is_float else DType.float32)
    raise TypeError(f"not an expression: {x!r}")


def unary(fn: str, x) -> Expr:
    if fn not in UNARY:
        raise ValueError(f"unknown unary function {fn}")
    x = as_expr(x)
    if fn == "neg" and isinstance(x, Const) and x.dtype is not DType.bool:
        return const(-x.value, x.dtype)
    return Unary(fn, x, DType.bool if UNARY[fn] else x.dtype)


def binary(fn: str, a, b) -> Expr:
    """a fn b; a Python number takes the other operand's type; index arithmetic is folded."""
    if fn not in BINARY:
        raise ValueError(f"unknown binary function {fn}")
    if not isinstance(a, Expr):
        b = as_expr(b)
        a = as_expr(a, b.dtype)
    else:
        b = as_expr(b, a.dtype)
    if isinstance(a, Const) and isinstance(b, Const) and a.dtype is DType.int64 and b.dtype is DType.int64:
        folded = _fold_int(fn, a.value, b.value)
        if folded is not None:
            return folded
    if fn == "add":
        if _is_zero(b): return a
        if _is_zero(a): return b
        cancelled = (_cancelled(a, b, 1) if isinstance(b, Const) else
                     _cancelled(b, a, 1) if isinstance(a, Const) else None)
        if cancelled is not None:
            return cancelled
    elif fn == "sub" and _is_zero(b):
        return a
    elif fn == "sub" and isinstance(b, Const):
        cancelled = _cancelled(a, b, -1)
        if cancelled is not None:
            return cancelled
    elif fn == "mul":
        if _is_one(b): return a
        if _is_one(a): return b
        if a.dtype is DType.int64 and (_is_zero(a) or _is_zero(b)): return const(0, DType.int64)
    elif fn in ("idiv",) and _is_one(b):
        return a
    elif fn == "imod" and _is_one(b):
        return const(0, a.dtype)
    return Binary(fn, a, b, DType.bool if BINARY[fn] else a.dtype)


def _cancelled(e: Expr, c: Const, sign: int) -> Expr | None:
    """x where e is x plus or minus an int64 constant that `sign` * c cancels ((x - 1) + 1, as a
    slice's offset composed with a scatter's writes it), else None: an index then reads as the
    same address wherever it recurs."""
    if e.dtype is not DType.int64 or c.dtype is not DType.int64 or not isinstance(e, Binary):
        return None
    if e.fn == "add" and isinstance(e.b, Const) and e.b.value + sign * c.value == 0:
        return e.a
    if e.fn == "add" and isinstance(e.a, Const) and e.a.value + sign * c.value == 0:
        return e.b
    if e.fn == "sub" and isinstance(e.b, Const) and -e.b.value + sign * c.value == 0:
        return e.a
    return None


def _fold_int(fn, x, y):
    ops = {"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y,
           "min": lambda: min(x, y), "max": lambda: max(x, y)}
    if fn in ops:
        return const(ops[fn](), DType.int64)
    if fn == "idiv" and y != 0:
        return const(int(x / y) if (x < 0) != (y < 0) else x // y, DType.int64)
    if fn == "imod" and y != 0:
        return const(int(math.fmod(x, y)), DType.int64)
    return None


def _is_zero(e: Expr) -> bool:
    return isinstance(e, Const) and e.dtype is not DType.bool and e.value == 0


def _is_one(e: Expr) -> bool:
    return isinstance(e, Const) and e.dtype is not DType.bool and e.value == 1


def select(cond, a, b) -> Expr:
    cond = as_expr(cond)
    if not isinstance(a, Expr):
        b = as_expr(b); a = as_expr(a, b.dtype)
    else:
        b = as_expr(b, a.dtype)
    if isinstance(cond, Const):
        return a if cond.value else b
    return Select(cond, a, b, a.dtype)


def cast(x, dtype: DType) -> Expr:
    x = as_expr(x)
    if x.dtype is dtype:
        return x
    if isinstance(x, Const) and not (x.dtype.is_float and not dtype.is_float):
        return const(x.value, dtype)
    return Cast(x, dtype)


def minimum(a, b) -> Expr: return binary("min", a, b)
def maximum(a, b) -> Expr: return binary("max", a, b)
def logical_and(a, b) -> Expr: return binary("and", a, b)
def logical_or(a, b) -> Expr: return binary("or", a, b)
def eq(a, b) -> Expr: return binary("eq", a, b)


def in_range(idx: Expr, lo: int, hi: int) -> Expr:
    """lo <= idx < hi as a bool expression (folded when statically true)."""
    return logical_and(binary("ge", idx, lo), binary("lt", idx, hi))


def index_interval(e: Expr, env: dict[str, tuple[int, int]]) -> tuple[int, int] | None:
    """Inclusive bounds of an integer index expression whose variables lie in `env`'s bounds
    (interval arithmetic over +, -, *, min, max and division and remainder by a positive
    constant); None when it cannot tell (a loaded or float value, another operation)."""
    if isinstance(e, Var):
        return env.get(e.name)
    if isinstance(e, Const):
        return None if isinstance(e.value, float) else (int(e.value), int(e.value))
    if not isinstance(e, Binary):
        return None
    a, b = index_interval(e.a, env), index_interval(e.b, env)
    if a is None or b is None:
        return None
    if e.fn == "add":
        return a[0] + b[0], a[1] + b[1]
    if e.fn == "sub":
        return a[0] - b[1], a[1] - b[0]
    if e.fn == "mul":
        p = [x * y for x in a for y in b]
        return min(p), max(p)
    if e.fn in ("min", "max"):
        f = min if e.fn == "min" else max
        return f(a[0], b[0]), f(a[1], b[1])
    if e.fn in ("idiv", "imod") and b[0] == b[1] and b[0] > 0 and a[0] >= 0:
        if e.fn == "idiv":
            return a[0] // b[0], a[1] // b[0]
        return (a[0] % b[0], a[1] % b[0]) if a[1] // b[0] == a[0] // b[0] else (0, b[0] - 1)
    return None


def out_vars(rank: int) -> tuple[Var, ...]:
    """The output index variables i0..i{rank-1}."""
    return tuple(Var(f"i{k}") for k in range(rank))


def reduce_vars(n: int) -> tuple[Var, ...]:
    return tuple(Var(f"r{k}") for k in range(n))


ACC = "acc"


@dataclass(frozen=True)
class Reduce:
    """Reduction over named axes with extents; `op` one of REDUCE_OPS."""

    op: str
    axes: tuple[tuple[str, int], ...]

    def __post_init__(self):
        if self.op not in REDUCE_OPS:
            raise ValueError(f"unknown reduction {self.op}")

    @property
    def extent(self) -> int:
        return math.prod(n for _, n in self.axes)

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)


def reduce_identity(op: str, dtype: DType) -> Expr | None:
    """The value of reduction `op` over an empty set, as a constant of `dtype` (ONNX: 0 for a sum,
    1 for a product, the lowest value for max and the highest for min); None where there is none
    (argmax / argmin)."""
    if op == "sum":
        return const(0, dtype)
    if op == "prod":
        return const(1, dtype)
    if op not in ("max", "min"):
        return None
    lowest = op == "max"
    if dtype is DType.bool:
        return const(not lowest, dtype)
    if dtype.is_float:
        return const(-math.inf if lowest else math.inf, dtype)
    info = np.iinfo(dtype.np)
    if lowest and dtype is DType.int64:   # -2^63 has no C literal: (-2^63 + 1) - 1, unfolded
        return Binary("sub", const(info.min + 1, dtype), const(1, dtype), dtype)
    return const(info.min if lowest else info.max, dtype)


def map_children(e: Expr, f) -> Expr:
    """`e` rebuilt with f applied to each direct child (a load's index expressions included); `e`
    itself when f returned every child as it was, so a rewrite leaves untouched subtrees shared."""
    if isinstance(e, Binary):
        a, b = f(e.a), f(e.b)
        # rebuilt through binary(): a substituted index folds as a written one does ((i - 1) + 1 is i)
        return e if a is e.a and b is e.b else binary(e.fn, a, b)
    if isinstance(e, Load):
        index = tuple(map(f, e.index))
        return e if all(n is o for n, o in zip(index, e.index)) else Load(e.arg, index, e.dtype)
    if isinstance(e, Unary):
        x = f(e.x)
        return e if x is e.x else Unary(e.fn, x, e.dtype)
    if isinstance(e, Select):
        c, a, b = f(e.cond), f(e.a), f(e.b)
        return e if c is e.cond and a is e.a and b is e.b else Select(c, a, b, e.dtype)
    if isinstance(e, Cast):
        x = f(e.x)
        return e if x is e.x else Cast(x, e.dtype)
    if isinstance(e, Fold):
        body = f(e.body)
        return e if body is e.body else Fold(e.op, e.axes, body, e.dtype)
    return e


# The two rewrites below visit each node object once (a memo by id; the root keeps the nodes
# alive, so an id stays its node's): a subtree the expression shares (a composed stage read twice
# at one index) is rewritten once and stays shared, so a rewrite costs the distinct nodes rather
# than the paths, which grow geometrically along a chain of stages that each read their producer
# twice.

def substitute_vars(e: Expr, mapping: dict[str, Expr]) -> Expr:
    """`e` with the named index variables replaced, all at once (a replacement is not revisited)."""
    if not mapping:
        return e
    memo: dict[int, Expr] = {}

    def go(x: Expr) -> Expr:
        if isinstance(x, Var):
            return mapping.get(x.name, x)
        if isinstance(x, Const):
            return x
        done = memo.get(id(x))
        if done is None:
            done = memo[id(x)] = map_children(x, go)
        return done
    return go(e)


def substitute(e: Expr, name: str, value: Expr) -> Expr:
    """`e` with every Var called `name` replaced by `value` (the tree otherwise as it is)."""
    return substitute_vars(e, {name: value})


def replace_loads(e: Expr, fn) -> Expr:
    """`e` with every Load replaced by fn(load) (its index already rewritten), innermost first."""
    memo: dict[int, Expr] = {}

    def go(x: Expr) -> Expr:
        if isinstance(x, (Var, Const)):
            return x
        done = memo.get(id(x))
        if done is None:
            done = map_children(x, go)
            done = memo[id(x)] = fn(done) if isinstance(x, Load) else done
        return done
    return go(e)


def unguarded_loads(te: "TensorExpr") -> set[int]:
    """The input numbers every evaluation of `te` loads from: loads outside any Select branch (a
    Select's condition always runs; its branches only when chosen), in the body or the epilogue."""
    found: set[int] = set()

    def visit(e: Expr) -> None:
        if isinstance(e, Load):
            found.add(e.arg)
        if isinstance(e, Select):
            visit(e.cond)
            return
        for c in children(e):
            visit(c)

    visit(te.body)
    if te.epilogue is not None:
        visit(te.epilogue)
    return found


def fold_axes(*roots: Expr | None) -> dict[str, int]:
    """The axes (name -> extent) of every Fold in the given expressions."""
    return {name: n for e in walk_distinct(*roots) if isinstance(e, Fold) for name, n in e.axes}


def fold_flops(e: Expr | None) -> int:
    """Arithmetic operations one evaluation of `e` spends inside its folds (2 per fold step: the
    body's product and the combine, as a contraction is counted), nested folds multiplied."""
    if e is None:
        return 0
    if isinstance(e, Fold):
        return e.extent * (2 + fold_flops(e.body))
    return sum(fold_flops(c) for c in children(e))


def value_ops(e: Expr | None) -> int:
    """Arithmetic operations one evaluation of `e` spends on loaded values: every unary and binary
    operation that depends on a load, the taken branch of a select (the larger, since which one
    runs is known only at run time), and inside folds one combine per step besides the body.
    Index arithmetic (a reshape's divisions, a concat's choice of source) is address computation
    the CUDA compiler hoists and strength-reduces, and is not counted, nor are casts."""
    def count(x: Expr) -> tuple[int, bool]:
        if isinstance(x, Load):
            return 0, True
        if isinstance(x, Fold):
            ops, _ = count(x.body)
            return x.extent * (1 + ops), True
        if isinstance(x, Select):
            (c, lc), (a, la), (b, lb) = count(x.cond), count(x.a), count(x.b)
            return c + max(a, b), lc or la or lb
        parts = [count(c) for c in children(x)]
        loaded = any(ld for _, ld in parts)
        own = 1 if loaded and isinstance(x, (Unary, Binary)) else 0
        return own + sum(n for n, _ in parts), loaded
    return 0 if e is None else count(e)[0]


def without_empty_reduction(te: "TensorExpr") -> "TensorExpr | None":
    """A tensor expression whose reduction runs over an empty set, as a map: the epilogue of the
    combiner's identity (or the identity itself); None when the combiner has no identity."""
    ident = reduce_identity(te.reduce.op, te.body.dtype)
    if ident is None:
        return None
    body = ident if te.epilogue is None else substitute(te.epilogue, ACC, ident)
    return TensorExpr(f"{te.name}_empty", te.inputs, te.output, body)


@dataclass(frozen=True)
class TensorExpr:
    """out[i0..] = epilogue(reduce_{r..} body) or body, for every output index."""

    name: str
    inputs: tuple[TensorType, ...]
    output: TensorType
    body: Expr
    reduce: Reduce | None = None
    epilogue: Expr | None = None  # over Var("acc", <acc dtype>) and the output vars

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    @functools.cached_property
    def loads(self) -> tuple[tuple["Load", ...], ...]:
        """Per input, its distinct loads in the body, then the epilogue (in walk order): what the
        analyses ask of an expression again and again, found once."""
        found: list[dict[Load, None]] = [{} for _ in self.inputs]
        for x in walk_distinct(self.body, self.epilogue):
            if isinstance(x, Load) and 0 <= x.arg < len(found):
                found[x.arg].setdefault(x)
        return tuple(tuple(d) for d in found)

    @functools.cached_property
    def fold_extents(self) -> tuple[tuple[str, int], ...]:
        """The axes (name, extent) of every Fold in the body and the epilogue (`fold_axes`): every
        candidate configuration Roller prices asks for them again."""
        return tuple(fold_axes(self.body, self.epilogue).items())

    def replace(self, **kw) -> "TensorExpr":
        return dataclasses.replace(self, **kw)


def load(arg: int, t: TensorType, index) -> Load:
    """Element `index` (a tuple of expressions, one per axis) of input `arg` of type `t`."""
    index = tuple(as_expr(i) for i in index)
    if len(index) != t.rank:
        raise ValueError(f"load of rank-{t.rank} input with {len(index)} indices")
    return Load(arg, index, t.dtype)


def broadcast_index(out_shape: tuple[int, ...], in_shape: tuple[int, ...], vars_) -> tuple[Expr, ...]:
    """Index into an input broadcast (numpy rules) to out_shape."""
    off = len(out_shape) - len(in_shape)
    return tuple(const(0, DType.int64) if d == 1 and out_shape[off + k] != 1 else vars_[off + k]
                 for k, d in enumerate(in_shape))


def walk(e: Expr):
    """Every sub-expression, parents before children, left to right (an explicit stack: nested
    generators would cost each node its depth)."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(children(x)))


def walk_distinct(*roots: Expr | None):
    """`walk`, each node object once: a subtree shared by several parents (a composed stage read
    twice) is not walked again. Every distinct node still comes in the order of its first visit
    by `walk`, so a search that keeps first occurrences finds what it would over `walk`."""
    seen: set[int] = set()
    stack = [r for r in reversed(roots) if r is not None]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend(reversed(children(x)))


def load_counts(e: Expr) -> dict[Load, int]:
    """Each distinct Load `walk(e)` meets (equal ones together) and how many times it meets it:
    the paths to it, counted over the distinct node objects (parents before children) without
    walking a shared subtree again, whose paths grow geometrically along a chain of stages that
    each read their producer twice."""
    post: list[Expr] = []           # children before parents, each node object once
    seen: set[int] = set()
    stack = [(e, False)]            # an explicit stack, as walk's: expressions nest thousands deep
    while stack:
        x, ready = stack.pop()
        if ready:
            post.append(x)
            continue
        if id(x) in seen:
            continue
        seen.add(id(x))
        stack.append((x, True))
        stack.extend((c, False) for c in reversed(children(x)) if id(c) not in seen)
    paths = {id(e): 1}
    counts: dict[Load, int] = {}
    for x in reversed(post):
        p = paths.get(id(x), 0)
        if isinstance(x, Load):
            counts[x] = counts.get(x, 0) + p
        for c in children(x):
            paths[id(c)] = paths.get(id(c), 0) + p
    return counts


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, Load):
        return e.index
    if isinstance(e, Unary):
        return (e.x,)
    if isinstance(e, Binary):
        return (e.a, e.b)
    if isinstance(e, Select):
        return (e.cond, e.a, e.b)
    if isinstance(e, Cast):
        return (e.x,)
    if isinstance(e, Fold):
        return (e.body,)
    return ()
