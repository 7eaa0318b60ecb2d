"""Renders tensor expressions to CUDA C against the prelude: one thread per output element."""
from __future__ import annotations

import math

from ..ir.dtypes import DType
from ..ir.texpr import (ACC, Binary, Cast, Const, Expr, Fold, Load, Select, TensorExpr, Unary, Var,
                        children, fold_axes, reduce_identity)
from .block_function import BLOCK_X, GRID_X, finish_kernel
from ..ir.kernel import Kernel, KernelParam

INT32_LIMIT = 2**31 - 1
MAX_GRID_X = INT32_LIMIT          # blocks a launch may have along grid.x
# config["schedule"] of render_texpr's one-thread-per-output kernel: what the precision and roller
# stages look for to rewrite
NAIVE_SCHEDULE = "simt_elementwise"
UNROLLED_FOLD_TRIPS = 4           # a fold of more iterations is rendered as a rolled loop


def c_const(value, dtype: DType) -> str:
    """A C literal of the compute type of dtype."""
    if dtype is DType.bool:
        return "true" if value else "false"
    if dtype.is_float:
        ct = dtype.compute_ctype
        if value != value:
            return "by_nan_d()" if ct == "double" else "by_nan_f()"
        if math.isinf(value):
            s = "-" if value < 0 else ""
            return f"({s}by_inf_d())" if ct == "double" else f"({s}by_inf_f())"
        r = repr(float(value))
        if "e" not in r and "." not in r:
            r += ".0"
        return f"{r}f" if ct == "float" else f"{r}"
    if dtype in (DType.uint64,):
        return f"{int(value)}ull"
    if dtype in (DType.uint32,):
        return f"{int(value)}u"
    if dtype is DType.int64:
        v = int(value)
        return f"({v}ll)" if v >= 0 else f"({v}ll)"
    return f"(({dtype.ctype}){int(value)})"


_INFIX = {"add": "+", "sub": "-", "mul": "*", "idiv": "/", "imod": "%", "eq": "==", "ne": "!=",
          "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "and": "&&", "or": "||",
          "bitand": "&", "bitor": "|", "bitxor": "^", "shl": "<<", "shr": ">>"}


class ExprRenderer:
    """Renders an expression tree to C, hoisting shared unguarded sub-expressions into locals."""

    def __init__(self, arg_names: list[str], strides: list[tuple[int, ...]], index_ctype: str, prefix: str = "t"):
        self.arg_names = arg_names
        self.strides = strides
        self.index_ctype = index_ctype
        self.prefix = prefix      # of hoisted locals: a fold's own renderer gets a distinct one
        self.lines: list[str] = []
        self.memo: dict[Expr, str] = {}
        self.counter = 0

    def hoistable(self, root: Expr) -> set[Expr]:
        """Sub-expressions used more than once and not only under a Select branch."""
        uses: dict[Expr, int] = {}
        unguarded: set[Expr] = set()

        def visit(e: Expr, guarded: bool):
            uses[e] = uses.get(e, 0) + 1
            if not guarded:
                unguarded.add(e)
            if uses[e] > 1:
                return
            if isinstance(e, Select):
                visit(e.cond, guarded); visit(e.a, True); visit(e.b, True)
            elif not isinstance(e, Fold):   # a fold's body varies with its axes: hoisted inside it only
                for c in children(e):
                    visit(c, guarded)

        visit(root, False)
        return {e for e, n in uses.items() if n > 1 and e in unguarded
                and not isinstance(e, (Var, Const))}

    def render(self, root: Expr, indent: str) -> str:
        self.hoist = self.hoistable(root)
        self.indent = indent
        return self.r(root)

    def r(self, e: Expr) -> str:
        if e in self.memo:
            return self.memo[e]
        s = self._r(e)
        if e in self.hoist:
            name = f"{self.prefix}{self.counter}"
            self.counter += 1
            ct = self.index_ctype if e.dtype is DType.int64 and _is_index(e) else e.dtype.compute_ctype
            self.lines.append(f"{self.indent}const {ct} {name} = {s};")
            self.memo[e] = name
            return name
        return s

    def _r(self, e: Expr) -> str:
        if isinstance(e, Var):
            return e.name
        if isinstance(e, Const):
            return c_const(e.value, e.dtype)
        if isinstance(e, Load):
            terms = [f"({self.r(i)})*{s}" if s != 1 else f"({self.r(i)})"
                     for i, s in zip(e.index, self.strides[e.arg]) if not (isinstance(i, Const) and i.value == 0)]
            off = " + ".join(terms) if terms else "0"
            ct = e.dtype.compute_ctype
            base = f"{self.arg_names[e.arg]}[{off}]"
            return f"(({ct}){base})" if ct != e.dtype.ctype else base
        if isinstance(e, Unary):
            x = self.r(e.x)
            if e.fn == "not":
                return f"(!{x})"
            if e.fn == "bitnot":
                return f"(({e.dtype.ctype})~{x})"
            if e.fn == "neg" and e.dtype is DType.bool:
                return x
            return f"by_{e.fn}({x})"
        if isinstance(e, Binary):
            a, b = self.r(e.a), self.r(e.b)
            if e.fn in _INFIX:
                return f"({a} {_INFIX[e.fn]} {b})"
            if e.fn == "xor":
                return f"(({a}) != ({b}))"
            if e.fn == "div":
                return f"({a} / {b})"
            if e.fn == "pow":
                return f"by_ipow({a}, {b})" if not e.dtype.is_float else f"by_pow({a}, {b})"
            if e.fn in ("fmod",):
                return f"by_fmod({a}, {b})" if e.dtype.is_float else f"({a} % {b})"
            if e.fn in ("min", "max", "pymod", "atan2"):
                if e.dtype is DType.int64:  # index vars may render as int, loaded int64 as long long
                    return f"by_{e.fn}((long long)({a}), (long long)({b}))"
                return f"by_{e.fn}({a}, {b})"
            raise ValueError(f"no C rendering for binary {e.fn}")
        if isinstance(e, Select):
            return f"({self.r(e.cond)} ? {self.r(e.a)} : {self.r(e.b)})"
        if isinstance(e, Fold):
            return self._fold(e)
        if isinstance(e, Cast):
            x = self.r(e.x)
            if e.dtype is DType.bool:
                return f"(({x}) != 0)"
            if e.dtype in (DType.float16, DType.bfloat16):  # a cast to a half type rounds
                return f"((float)({e.dtype.ctype})((float)({x})))"
            return f"(({e.dtype.compute_ctype})({x}))"
        raise TypeError(f"cannot render {type(e).__name__}")

    def _fold(self, e: Fold) -> str:
        """A fold as an immediately invoked lambda: its loop is a statement, and the lambda keeps it
        an expression, evaluated only where the expression is (never in a Select's other branch)."""
        name = f"{self.prefix}f{self.counter}"
        self.counter += 1
        inner = ExprRenderer(self.arg_names, self.strides, self.index_ctype, prefix=f"{name}_")
        value = inner.render(e.body, "")
        ct = e.dtype.compute_ctype
        acc = f"{name}_acc"
        # a tiled kind renders its epilogue in fully unrolled loops over a thread's outputs: a fold
        # unrolled in each copy multiplies the code until ptxas spills (SparTA's ELL remainder in an
        # 8 x 8 tile: bench/spmm.py --dry-run --only mag records registers and spills)
        rolled = "BY_ROLLED " if math.prod(n for _, n in e.axes) > UNROLLED_FOLD_TRIPS else ""
        loops = "".join(f"{rolled}for ({self.index_ctype} {v} = 0; {v} < {n}; ++{v}) " for v, n in e.axes)
        body = " ".join([line.strip() for line in inner.lines] + [f"{acc} = {combine(e.op, acc, value)};"])
        init = self.r(reduce_identity(e.op, e.dtype))
        return f"([&]() {{ {ct} {acc} = {init}; {loops}{{ {body} }} return {acc}; }}())"


class SubstRenderer(ExprRenderer):
    """An ExprRenderer that renders chosen loads as given C expressions (vector lanes, staged tiles)."""

    def __init__(self, te: TensorExpr, it: str, subst: dict[Load, str]):
        super().__init__([f"in{k}" for k in range(len(te.inputs))],
                         [contiguous_strides(t.shape) for t in te.inputs], it)
        self.subst = subst

    def _r(self, e: Expr) -> str:
        if isinstance(e, Load) and e in self.subst:
            ct = e.dtype.compute_ctype
            v = self.subst[e]
            return f"(({ct}){v})" if ct != e.dtype.ctype else v
        return super()._r(e)


def combine(op: str, a: str, b: str) -> str:
    """C for reduction `op` (sum, prod, max, min) combining accumulator `a` with value `b`."""
    if op == "sum":
        return f"{a} + {b}"
    if op == "prod":
        return f"{a} * {b}"
    return f"by_{op}({a}, {b})"


def _is_index(e: Expr) -> bool:
    return isinstance(e, (Var, Binary)) and not any(isinstance(x, Load) for x in _walk(e))


def _walk(e):
    yield e
    for c in children(e):
        yield from _walk(c)


def index_bound(te: TensorExpr) -> float:
    """The largest magnitude the index arithmetic of `te` can reach: interval arithmetic over its
    expressions, with each output variable in [0, extent) and each reduction axis in [0, extent).

    Counted are the integer (int64) sub-expressions free of loads, which the renderers evaluate
    in the index type (a product of two index variables, an offset hoisted into an index-typed
    local), and each load's offset sum(|index| * stride). Values read from memory are data, not
    index arithmetic (the renderers compute with them in their own 64-bit type). math.inf when a
    sub-expression cannot be bounded."""
    ranges = {f"i{k}": (0, n - 1) for k, n in enumerate(te.output.shape)}
    if te.reduce is not None:
        ranges.update((name, (0, n - 1)) for name, n in te.reduce.axes)
    ranges.update((name, (0, n - 1)) for name, n in fold_axes(te.body, te.epilogue).items())
    memo: dict[Expr, tuple] = {}
    worst = [0.0]

    def note(iv) -> None:
        worst[0] = max(worst[0], math.inf if iv is None else max(abs(iv[0]), abs(iv[1])))

    def visit(e: Expr):
        """(interval or None, free of loads and of the accumulator)"""
        if e not in memo:
            iv, pure = _interval(e, ranges, visit)
            if pure and e.dtype is DType.int64 and not isinstance(e, Const):
                note(iv)
            if isinstance(e, Load):
                terms = [visit(i) for i in e.index]
                if all(p for _, p in terms):
                    note(None if any(iv is None for iv, _ in terms) else
                         (0, sum(max(abs(iv[0]), abs(iv[1])) * s
                                 for (iv, _), s in zip(terms, contiguous_strides(te.inputs[e.arg].shape)))))
            memo[e] = (iv, pure)
        return memo[e]

    visit(te.body)
    if te.epilogue is not None:
        visit(te.epilogue)
    return worst[0]


def _interval(e: Expr, ranges: dict, visit) -> tuple:
    """(interval of e or None when unbounded, whether e is free of loads and the accumulator)."""
    if isinstance(e, Var):
        iv = ranges.get(e.name)
        return iv, iv is not None
    if isinstance(e, Const):
        v = e.value
        return ((float(v), float(v)) if isinstance(v, float) and math.isfinite(v) else
                (None if isinstance(v, float) else (int(v), int(v)))), True
    if isinstance(e, Load):
        for i in e.index:
            visit(i)
        return None, False
    kids = [visit(c) for c in children(e)]
    pure = all(p for _, p in kids)
    ivs = [iv for iv, _ in kids]
    if e.dtype is DType.bool:
        return (0, 1), pure
    if isinstance(e, Select):
        a, b = ivs[1], ivs[2]
        return (None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))), pure
    if any(iv is None for iv in ivs):
        return None, pure
    if isinstance(e, Cast):
        (lo, hi), = ivs
        if not e.dtype.is_float and (isinstance(lo, float) or isinstance(hi, float)):
            lo, hi = math.floor(lo), math.ceil(hi)
        return (lo, hi), pure
    if isinstance(e, Unary):
        (lo, hi), = ivs
        if e.fn in ("floor", "ceil", "round"):     # monotone; round's ties only move a bound by one
            f = {"floor": math.floor, "ceil": math.ceil, "round": round}[e.fn]
            return (f(lo), f(hi)), pure
        if e.fn == "neg":
            return (-hi, -lo), pure
        if e.fn == "abs":
            return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi))), pure
        if e.fn == "sign":
            return (-1, 1), pure
        if e.fn in ("sin", "cos", "tanh", "erf"):
            return (-1.0, 1.0), pure
        if e.fn == "sqrt" and lo >= 0:
            return (math.sqrt(lo), math.sqrt(hi)), pure
        return None, pure
    if isinstance(e, Binary):
        (alo, ahi), (blo, bhi) = ivs
        fn = e.fn
        if fn in ("add", "sub", "mul"):
            op = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y}[fn]
            cs = [op(x, y) for x in (alo, ahi) for y in (blo, bhi)]
            return (min(cs), max(cs)), pure
        if fn in ("div", "idiv"):
            if blo <= 0 <= bhi:
                return None, pure
            cs = [x / y if fn == "div" or e.dtype.is_float else abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
                  for x in (alo, ahi) for y in (blo, bhi)]
            return (min(cs), max(cs)), pure
        if fn in ("imod", "fmod", "pymod"):
            m = max(abs(blo), abs(bhi))
            if fn == "pymod":
                return ((0, m) if blo > 0 else (-m, m)), pure
            return ((0, min(ahi, m)) if alo >= 0 else (-m, m)), pure
        if fn in ("min", "max"):
            f = min if fn == "min" else max
            return (f(alo, blo), f(ahi, bhi)), pure
        if fn == "atan2":
            return (-math.pi, math.pi), pure
        if alo >= 0 and blo >= 0 and not e.dtype.is_float:
            if fn == "bitand":
                return (0, min(ahi, bhi)), pure
            if fn in ("bitor", "bitxor"):
                return (0, (1 << int(max(ahi, bhi)).bit_length()) - 1), pure
            if fn == "shr":
                return (int(alo) >> int(bhi), int(ahi) >> int(blo)), pure
            if fn == "shl" and bhi < 64:
                return (int(alo) << int(blo), int(ahi) << int(bhi)), pure
        return None, pure
    return None, pure


def index_ctype(te: TensorExpr) -> str:
    """The C type of a kernel's indices: `int` while every size and index computation of `te`
    stays below 2^30 (half the int range: grid-stride steps and tile overhangs past the last
    element stay representable), else `long long`. 32-bit indices are cheaper; 64-bit ones are
    what a tensor of 2^31 elements or more, or a product of large indices, needs."""
    sizes = [t.size for t in te.inputs] + [te.output.size]
    if te.reduce is not None:
        sizes.append(te.reduce.extent)
    worst = max(sizes + [1, index_bound(te)])
    return "int" if worst * 2 < INT32_LIMIT else "long long"


def decompose_index(indent: str, lin: str, shape, names, tmp: str, index_ctype: str = "long long") -> list[str]:
    """C lines declaring index variables `names` of the row-major linear index `lin` over `shape`
    (`tmp` names the remainder)."""
    if not shape:
        return []
    out = [f"{indent}{index_ctype} {tmp} = {lin};"]
    for k in reversed(range(len(shape))):
        if k == 0:
            out.append(f"{indent}const {index_ctype} {names[k]} = {tmp};")
        else:
            out.append(f"{indent}const {index_ctype} {names[k]} = {tmp} % {shape[k]}; {tmp} /= {shape[k]};")
    out.append(f"{indent}(void){tmp};")
    return out


def contiguous_strides(shape) -> tuple[int, ...]:
    strides, s = [], 1
    for d in reversed(shape):
        strides.append(s)
        s *= d
    return tuple(reversed(strides))


_REDUCE_INIT = {"sum": "0", "prod": "1"}


def render_texpr(te: TensorExpr, prefix: str, out_value: str, in_values: tuple[str, ...],
                 *, block_threads: int = 256, max_blocks: int = 65535 * 4) -> Kernel:
    """CUDA for a tensor expression: a grid-stride loop, one output element per iteration."""
    index_ct = index_ctype(te)
    args = [f"in{k}" for k in range(len(te.inputs))]
    rend = ExprRenderer(args, [contiguous_strides(t.shape) for t in te.inputs], index_ct)
    out_t = te.output
    n = out_t.size
    L: list[str] = []
    params = [f"const {t.dtype.ctype}* __restrict__ in{k}" for k, t in enumerate(te.inputs)]
    params.append(f"{out_t.dtype.ctype}* __restrict__ out")
    L.append(f"  for ({index_ct} lin = ({index_ct}){BLOCK_X} * blockDim.x + threadIdx.x; lin < {n}; "
             f"lin += ({index_ct}){GRID_X} * blockDim.x) {{")
    shape = out_t.shape
    if shape:
        L.append(f"    {index_ct} rem = lin;")
    for k in reversed(range(len(shape))):
        if k == 0:
            L.append(f"    const {index_ct} i0 = rem;")
        else:
            L.append(f"    const {index_ct} i{k} = rem % {shape[k]}; rem /= {shape[k]};")
    body_indent = "    "
    if te.reduce is None:
        rend.lines = []
        val = rend.render(te.body, body_indent)
        L.extend(rend.lines)
        result, result_dt = val, te.body.dtype
    else:
        red = te.reduce
        acc_dt = DType.int64 if red.op.startswith("arg") else te.body.dtype
        vct = te.body.dtype.compute_ctype
        if red.op in ("sum", "prod"):
            L.append(f"    {vct} acc = {_REDUCE_INIT[red.op]};")
        elif red.op in ("max", "min"):
            L.append(f"    {vct} acc = 0; bool have = false;")
        else:
            L.append(f"    {vct} best = 0; long long acc = 0; bool have = false; long long pos = 0;")
        ind = "    "
        for name, extent in red.axes:
            L.append(f"{ind}for ({index_ct} {name} = 0; {name} < {extent}; ++{name}) {{")
            ind += "  "
        rend.lines = []
        v = rend.render(te.body, ind)
        L.extend(rend.lines)
        L.append(f"{ind}const {vct} v = {v};")
        if red.op == "sum":
            L.append(f"{ind}acc += v;")
        elif red.op == "prod":
            L.append(f"{ind}acc *= v;")
        elif red.op in ("max", "min"):
            L.append(f"{ind}acc = have ? by_{red.op}(acc, v) : v; have = true;")
        else:
            cmp = ">" if red.op.startswith("argmax") else "<"
            if red.op.endswith("_last"):
                cmp += "="
            L.append(f"{ind}if (!have || v {cmp} best) {{ best = v; acc = pos; have = true; }} ++pos;")
        for _ in red.axes:
            ind = ind[:-2]
            L.append(f"{ind}}}")
        if te.epilogue is not None:
            rend.lines = []
            rend.memo = {}
            val = rend.render(te.epilogue, body_indent)
            L.extend(rend.lines)
            result, result_dt = val, te.epilogue.dtype
        else:
            result, result_dt = ACC, acc_dt
    oct_ = out_t.dtype.ctype
    if out_t.dtype is DType.bool and result_dt is not DType.bool:
        L.append(f"    out[lin] = (({result}) != 0);")
    else:
        L.append(f"    out[lin] = ({oct_})({result});")
    L.append("  }")
    entry, source = finish_kernel(prefix, params, L, launch_bounds=(block_threads,))
    blocks = max(1, min(math.ceil(n / block_threads), max_blocks))
    kparams = tuple(KernelParam(t.dtype.ctype, v, False) for t, v in zip(te.inputs, in_values))
    kparams += (KernelParam(oct_, out_value, True),)
    return Kernel(entry=entry, source=source, params=kparams, grid=(blocks, 1, 1),
                  block=(block_threads, 1, 1), config=(("block_threads", block_threads), ("schedule", NAIVE_SCHEDULE)),
                  expr=te)
