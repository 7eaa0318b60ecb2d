"""Recognises what a tensor expression is, from its index maps alone: a contraction (GEMM view),
a reduction, or an elementwise map. No op names are consulted.

A contraction is a sum whose body is a product of factors; the factors split into two operands A
and B. Output axes only A reads fuse into M, those only B reads into N, those both read (or
neither) into a batch; the reduction axes fuse into K. Conv (implicit GEMM), batched MatMul, Gemm
with its epilogue and Einsum contractions are all this one shape. For the tensor-core kernels,
TcOperand says how one operand is staged (its rounding to the mma type, and whether it is a
plain strided load the kernel can copy in 16-byte chunks).

Memory-bound maps are read through affine forms of their load indices (sum(coeff * var) +
const): VectorView, an elementwise map computed 16 bytes of output at a time, and TransposeView,
one whose output's fast axis reads an input with a large stride. Access simulation
(sectors_per_request, for given lane index values) scores how well a warp's loads coalesce."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..ir.texpr import Binary, Const, Expr, Fold, Load, Select, TensorExpr, Unary, Var, Cast, load_counts, walk

# Compute types the tiled kernels stage and shuffle (bool and 8/16-bit integers stay naive).
TILED_CTYPES = ("float", "double", "int", "long long")


@dataclass(frozen=True)
class GemmView:
    """A contraction seen as batch x (M x K) . (K x N); each group lists (var, extent), last fastest."""

    batch: tuple[tuple[str, int], ...]
    m: tuple[tuple[str, int], ...]
    n: tuple[tuple[str, int], ...]
    k: tuple[tuple[str, int], ...]
    unit: tuple[str, ...]          # output vars of extent 1 (always 0)
    a: Expr                        # product of A's factors: over batch, m and k vars
    b: Expr                        # product of B's factors: over batch, n and k vars
    a_k_fastest: bool              # A's innermost memory axis is a reduction axis
    b_k_fastest: bool

    # extents, once per view (the kinds' searches ask them of every configuration)
    @functools.cached_property
    def B(self) -> int: return math.prod(e for _, e in self.batch)
    @functools.cached_property
    def M(self) -> int: return math.prod(e for _, e in self.m)
    @functools.cached_property
    def N(self) -> int: return math.prod(e for _, e in self.n)
    @functools.cached_property
    def K(self) -> int: return math.prod(e for _, e in self.k)


@dataclass(frozen=True)
class ReduceView:
    """outputs x K reduction: `rows` outputs (all output vars), each a reduction over the K axes."""

    rows: tuple[tuple[str, int], ...]
    k: tuple[tuple[str, int], ...]
    unit: tuple[str, ...]
    k_contiguous: bool             # consecutive k read consecutive addresses of the main input

    @property
    def R(self) -> int: return math.prod(e for _, e in self.rows)
    @property
    def K(self) -> int: return math.prod(e for _, e in self.k)


@dataclass(frozen=True)
class ElementwiseView:
    """One output element per index, no reduction."""

    n: int


def vars_of(e: Expr) -> set[str]:
    return {x.name for x in walk(e) if isinstance(x, Var) and x.name != "acc"}


def mul_factors(e: Expr) -> list[Expr]:
    """The factors of a product tree (a single factor when e is not a multiplication)."""
    if isinstance(e, Binary) and e.fn == "mul" and e.a.dtype is e.dtype and e.b.dtype is e.dtype:
        return mul_factors(e.a) + mul_factors(e.b)
    return [e]


def _product(fs: list[Expr]) -> Expr:
    out = fs[0]
    for f in fs[1:]:
        out = Binary("mul", out, f, out.dtype)
    return out


def _first_load(e: Expr) -> Load | None:
    loads = [x for x in walk(e) if isinstance(x, Load) and x.index]
    return max(loads, key=lambda l: 0 if l.index is None else len(l.index)) if loads else None


def _k_fastest(e: Expr, spatial: set[str], reduce_names: set[str]) -> bool:
    """Whether the innermost index of e's main load moves with a reduction var and no spatial one."""
    ld = _first_load(e)
    if ld is None:
        return True
    inner = vars_of(ld.index[-1])
    return bool(inner & reduce_names) and not (inner & spatial)


def gemm_view(te: TensorExpr) -> GemmView | None:
    """The GEMM view of a sum-of-products expression, or None when it is not a contraction."""
    if te.reduce is None or te.reduce.op != "sum" or te.body.dtype.compute_ctype not in TILED_CTYPES:
        return None
    factors = mul_factors(te.body)
    if len(factors) < 2 or any(f.dtype is not te.body.dtype for f in factors):
        return None
    out_vars = [f"i{d}" for d in range(te.output.rank)]
    extents = dict(zip(out_vars, te.output.shape))
    unit = {v for v in out_vars if extents[v] == 1}
    spatial = [vars_of(f) & (set(out_vars) - unit) for f in factors]
    # Every split of the factors into A and B (the first factor in A; few factors in practice):
    # keep the one with the largest min(M, N), then M*N; axes both read become the batch.
    if len(factors) > 8:
        return None
    best = None
    for mask in range(1 << (len(factors) - 1)):
        ga = [0] + [i for i in range(1, len(factors)) if not (mask >> (i - 1)) & 1]
        gb = [i for i in range(1, len(factors)) if (mask >> (i - 1)) & 1]
        if not gb:
            continue
        va = set().union(*(spatial[i] for i in ga))
        vb = set().union(*(spatial[i] for i in gb))
        msz = math.prod(extents[v] for v in va - vb)
        nsz = math.prod(extents[v] for v in vb - va)
        if not (va - vb) or not (vb - va):
            continue
        score = (min(msz, nsz), msz * nsz)
        if best is None or score > best[0]:
            best = (score, ga, gb, va, vb)
    if best is None:
        return None
    _, ga, gb, va, vb = best
    both = va & vb
    m_set, n_set = va - both, vb - both
    if not m_set or not n_set:
        return None
    # N is the group holding the output's innermost axis, so consecutive threads write consecutively.
    inner = next((v for v in reversed(out_vars) if v not in unit), None)
    if inner in m_set:
        ga, gb, m_set, n_set = gb, ga, n_set, m_set
    batch = [v for v in out_vars if v not in unit and v not in m_set and v not in n_set]
    a = _product([factors[i] for i in sorted(ga)])
    b = _product([factors[i] for i in sorted(gb)])
    red_names = {n for n, _ in te.reduce.axes}
    return GemmView(batch=tuple((v, extents[v]) for v in batch),
                    m=tuple((v, extents[v]) for v in out_vars if v in m_set),
                    n=tuple((v, extents[v]) for v in out_vars if v in n_set),
                    k=tuple(te.reduce.axes), unit=tuple(sorted(unit, key=out_vars.index)), a=a, b=b,
                    a_k_fastest=_k_fastest(a, m_set, red_names), b_k_fastest=_k_fastest(b, n_set, red_names))


REDUCE_TILED_OPS = ("sum", "prod", "max", "min")


def reduce_view(te: TensorExpr) -> ReduceView | None:
    """Any sum/prod/max/min reduction over a body the tiled kernels can shuffle."""
    if te.reduce is None or not te.reduce.axes or te.reduce.op not in REDUCE_TILED_OPS:
        return None  # an empty reduction (Resize's degenerate windows) stays a naive kernel
    if te.body.dtype.compute_ctype not in TILED_CTYPES:
        return None
    out_vars = [f"i{d}" for d in range(te.output.rank)]
    unit = tuple(v for v, e in zip(out_vars, te.output.shape) if e == 1)
    rows = tuple((v, e) for v, e in zip(out_vars, te.output.shape) if e != 1)
    last_k = te.reduce.axes[-1][0]
    ld = _first_load(te.body)
    k_contig = ld is not None and vars_of(ld.index[-1]) == {last_k}
    return ReduceView(rows=rows, k=tuple(te.reduce.axes), unit=unit, k_contiguous=k_contig)


def elementwise_view(te: TensorExpr) -> ElementwiseView | None:
    if te.reduce is not None or te.output.size == 0:
        return None
    return ElementwiseView(n=te.output.size)


# ---- index evaluation (coalescing, bank and footprint checks) -----------------------------------

def eval_index(e: Expr, env: dict[str, int]) -> int | None:
    """The integer value of an index expression (None when it depends on loaded data)."""
    if isinstance(e, Var):
        return env.get(e.name, 0)
    if isinstance(e, Const):
        return int(e.value) if not isinstance(e.value, float) else None
    if isinstance(e, Binary):
        a, b = eval_index(e.a, env), eval_index(e.b, env)
        if a is None or b is None:
            return None
        f = e.fn
        if f == "add": return a + b
        if f == "sub": return a - b
        if f == "mul": return a * b
        if f == "idiv": return int(a / b) if b else None
        if f == "imod": return int(math.fmod(a, b)) if b else None
        if f == "min": return min(a, b)
        if f == "max": return max(a, b)
        return None
    if isinstance(e, Cast) and not e.x.dtype.is_float:
        return eval_index(e.x, env)
    if isinstance(e, Select):
        c = eval_index(e.cond, env)
        return None if c is None else eval_index(e.a if c else e.b, env)
    if isinstance(e, Unary):
        return None
    return None


def _loads_with_strides(loads, inputs) -> list[tuple[Load, tuple[int, ...], int]]:
    out = []
    for x in loads:
        t = inputs[x.arg]
        strides, s = [], 1
        for d in reversed(t.shape):
            strides.append(s)
            s *= d
        out.append((x, tuple(reversed(strides)), t.dtype.itemsize))
    return out


def load_offset(x: Load, strides: tuple[int, ...], item: int, env: dict[str, int]) -> int | None:
    """The byte offset load `x` reads at the index values env (None when its index depends on
    loaded data)."""
    off = 0
    for idx, st in zip(x.index, strides):
        v = eval_index(idx, env)
        if v is None:
            return None
        off += v * st
    return off * item


def sectors_per_request(e: Expr, inputs, envs: list[dict[str, int]], sector: int = 32) -> float:
    """32-byte sectors one warp touches per load instruction, over the lanes' index values envs:
    the mean over the loads `walk` meets (a load met again in a shared subtree counted again,
    its offsets evaluated once)."""
    counts = load_counts(e)
    total = weight = 0
    for x, strides, item in _loads_with_strides(counts, inputs):
        touched = {off // sector for env in envs for off in (load_offset(x, strides, item, env),) if off is not None}
        if touched:
            total += counts[x] * len(touched)
            weight += counts[x]
    return total / weight if weight else 0.0


def decompose(lin: int, group) -> dict[str, int]:
    """Mixed-radix split of a fused index over (var, extent) pairs, last fastest."""
    env = {}
    for v, e in reversed(group):
        env[v] = lin % e
        lin //= e
    return env


# ---- tensor-core operands ----------------------------------------------------------------------

MMA_ELEMS = {"fp16": "float16", "bf16": "bfloat16", "tf32": "float32"}


@dataclass(frozen=True)
class TcOperand:
    """How a tensor-core kernel stages one GEMM operand into shared memory.

    `source` is the float value of one element; the kernel rounds it to the mma element type (a
    no-op when `stored`, i.e. the source is a load whose storage already is that type). A direct
    operand is a plain strided load of input `arg`: its row group and its reduction group each one
    var or several that walk consecutive whole dimensions (named by the group's first var), batch
    vars and broadcast zeros; `inner` names the axis its innermost dimension follows ("k" or
    "r" for the row group) and `strides` gives every var's element stride. A dimension indexed by a
    loaded value of batch vars (an expert's weights) or of the row var (a gathered row) is `gathered`."""

    source: Expr
    stored: bool
    arg: int | None = None
    storage: str | None = None               # DType name of the direct load's input
    inner: str | None = None
    strides: tuple[tuple[str, int], ...] = ()
    # the dimensions indexed by a loaded value, as (key, index expression): `strides` names them by
    # key ("@0", ...); an expression of batch vars is one base per block, one of the row var a row's
    gathered: tuple[tuple[str, Expr], ...] = ()

    @property
    def direct(self) -> bool:
        return self.arg is not None

    def aligned(self, chunk_elems: int) -> bool:
        """Whether every row of the operand starts on a `chunk_elems` boundary (16-byte accesses)."""
        return self.direct and all(s % chunk_elems == 0 for _, s in self.strides if s != 1)


def _gather_of(e: Expr, elem: str) -> bool:
    """Whether `e` only selects stored `elem` values: a load, a constant, or a guard between them
    (the values pass to shared memory exactly; nothing is computed in the half type)."""
    if e.dtype.name != elem:
        return False
    if isinstance(e, (Load, Const)):
        return True
    return isinstance(e, Select) and not e.cond.dtype.is_float and _gather_of(e.a, elem) and _gather_of(e.b, elem)


def _strip_rounding(e: Expr, elem: str) -> tuple[Expr, bool] | None:
    """(source, stored) of an operand the precision pass prepared for `elem`, else None."""
    if elem in ("int8", "uint8"):
        # an 8-bit integer widened to int32 where the product reads it (passes/imma.py's operands)
        return (e.x, True) if isinstance(e, Cast) and e.dtype.name == "int32" and _gather_of(e.x, elem) else None
    if elem == "float32":
        return (e, isinstance(e, Load) and e.dtype.name == "float32") if e.dtype.name == "float32" else None
    if _gather_of(e, elem):
        # the model's own half tensor, or a guarded gather of it (implicit-GEMM Conv's zero padding):
        # its products compute and accumulate in float (DType.compute_ctype), exactly what the mma does
        return e, True
    if isinstance(e, Cast) and e.dtype.name == elem and e.x.dtype.name == "float32":
        # a value computed in float and rounded to the half type where it is read (a dequantized
        # weight in a half model: ops/contrib_quant.py), the same rounding the precision pass writes
        return e.x, False
    if not (isinstance(e, Cast) and e.dtype.name == "float32"):
        return None
    x = e.x
    if _gather_of(x, elem):     # a value stored in half (passes/half_storage.py), guarded or not
        return x, True
    if isinstance(x, Cast) and x.dtype.name == elem and x.x.dtype.name == "float32":
        y = x.x
        if isinstance(y, Cast) and _gather_of(y.x, elem):
            return y.x, True      # a half value widened, then rounded back: itself, exactly
        return y, False
    return None


def tc_operand(te: TensorExpr, view: GemmView, side: str, elem: str) -> TcOperand | None:
    """The tensor-core view of operand `side` ("a" or "b") for mma element type `elem` (a DType name)."""
    e, group = (view.a, view.m) if side == "a" else (view.b, view.n)
    s = _strip_rounding(e, elem)
    if s is None:
        return None
    src, stored = s
    if not isinstance(src, Load):
        return TcOperand(src, stored)
    t = te.inputs[src.arg]
    allowed = {v for v, _ in view.batch} | set(view.unit)
    row_var, k_var = group[0][0], view.k[0][0]
    entries = []            # (var, element stride, dimension), outermost first
    gathered = []           # (key, index expression) of the dimensions indexed by loaded values
    st = 1
    for idx, dim in zip(reversed(src.index), reversed(t.shape)):
        if isinstance(idx, Var):
            entries.append((idx.name, st, dim))
        elif _gathered_index(idx, allowed | ({row_var} if len(group) == 1 else set())):
            key = f"@{len(gathered)}"
            gathered.append((key, idx))
            entries.append((key, st, dim))
        elif not (isinstance(idx, Const) and idx.value == 0):
            return TcOperand(src, stored)
        st *= dim
    entries.reverse()
    # a group of several vars that walk consecutive dimensions whole (a Conv weight's (c, r, s), an
    # activation's (h, w) at batch 1) is one strided var: its flat index times the innermost stride
    for grp in (group, view.k):
        entries = _merged(entries, grp)
        if entries is None:
            return TcOperand(src, stored)
    names = [v for v, _, _ in entries]
    keys = {k for k, _ in gathered}
    # a row read at a loaded index (a gathered row) stands for the row var, which is then nowhere else
    row_at = [k for k, x in gathered if row_var in vars_of(x)]
    if len(set(names)) != len(names) or k_var not in names or len(row_at) > 1 \
            or (row_var in names) == bool(row_at) or not set(names) - {row_var, k_var} - keys <= allowed:
        return TcOperand(src, stored)
    if names[-1] not in (row_var, k_var):
        return TcOperand(src, stored)
    return TcOperand(src, stored, src.arg, t.dtype.name, "k" if names[-1] == k_var else "r",
                     tuple((v, st) for v, st, _ in entries), tuple(reversed(gathered)))


def _gathered_index(idx: Expr, allowed: set[str]) -> bool:
    """Whether a load index is read from memory (a Gather's, an expert's) and depends on `allowed`
    vars only (batch and unit vars, and the row var where the row group is one var), so a kernel
    computes it once per block or once per tile row."""
    return any(isinstance(x, Load) for x in walk(idx)) and vars_of(idx) <= allowed


def _merged(entries: list, grp: tuple[tuple[str, int], ...]) -> list | None:
    """`entries` with the vars of `grp` (last fastest) as one entry named by its first var, or None
    when they do not index consecutive, contiguous, whole dimensions in that order (vars of extent
    1 that the load does not read are skipped)."""
    if len(grp) == 1:
        return entries
    names = [v for v, _, _ in entries]
    used = [(v, n) for v, n in grp if v in names or n != 1]
    if not used or any(v not in names for v, _ in used):
        return None
    pos = [names.index(v) for v, _ in used]
    if pos != list(range(pos[0], pos[0] + len(pos))):
        return None
    for (v, n), p in zip(used, pos):
        if entries[p][2] != n:
            return None
    for p in pos[:-1]:
        if entries[p][1] != entries[p + 1][1] * entries[p + 1][2]:
            return None
    merged = (grp[0][0], entries[pos[-1]][1], math.prod(n for _, n in used))
    return entries[:pos[0]] + [merged] + entries[pos[-1] + 1:]


# ---- memory-bound maps: affine loads, vector access, transposes -------------------------------

def affine(e: Expr) -> tuple[dict[str, int], int] | None:
    """e as sum(coeff * var) + const over integer vars, or None when it is not affine (divisions,
    data-dependent indices, selects)."""
    if isinstance(e, Var):
        return {e.name: 1}, 0
    if isinstance(e, Const):
        return ({}, int(e.value)) if isinstance(e.value, (int, bool)) and not isinstance(e.value, float) else None
    if isinstance(e, Cast) and not e.dtype.is_float and not e.x.dtype.is_float:
        return affine(e.x)
    if isinstance(e, Binary) and e.fn in ("add", "sub", "mul"):
        a, b = affine(e.a), affine(e.b)
        return None if a is None or b is None else combine_affine(e.fn, a, b)
    return None


def combine_affine(fn: str, a: tuple[dict, int], b: tuple[dict, int]) -> tuple[dict, int] | None:
    """a fn b for two affine forms ({term: coefficient}, constant) and fn add, sub or mul; None for
    the product of two non-constant forms (not affine)."""
    if fn == "mul":
        if a[0] and b[0]:
            return None
        (c, k), s = (a, b[1]) if not b[0] else (b, a[1])
        return {v: x * s for v, x in c.items() if x * s}, k * s
    sign = 1 if fn == "add" else -1
    c = dict(a[0])
    for v, x in b[0].items():
        c[v] = c.get(v, 0) + sign * x
    return {v: x for v, x in c.items() if x}, a[1] + sign * b[1]


def load_affine(ld: Load, shape: tuple[int, ...]) -> tuple[dict[str, int], int] | None:
    """The element offset of a load into a contiguous input of `shape`, as an affine form."""
    coeffs: dict[str, int] = {}
    const = 0
    st = 1
    for idx, dim in zip(reversed(ld.index), reversed(shape)):
        a = affine(idx)
        if a is None:
            return None
        for v, x in a[0].items():
            coeffs[v] = coeffs.get(v, 0) + x * st
        const += a[1] * st
        st *= dim
    return {v: x for v, x in coeffs.items() if x}, const


def distinct_loads(e: Expr) -> tuple[Load, ...]:
    """The different loads of an expression, in first-visit order."""
    out: list[Load] = []
    for x in walk(e):
        if isinstance(x, Load) and x not in out:
            out.append(x)
    return tuple(out)


def vars_outside_loads(e: Expr) -> set[str]:
    """Index vars the expression uses other than in load indices (iota-like values)."""
    if isinstance(e, Var):
        return {e.name}
    if isinstance(e, Load):
        return set()
    if isinstance(e, Fold):     # its own axes are bound inside it
        return vars_outside_loads(e.body) - {name for name, _ in e.axes}
    out: set[str] = set()
    for c in _children(e):
        out |= vars_outside_loads(c)
    return out


def _children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Unary, Cast)):
        return (e.x,)
    if isinstance(e, Binary):
        return (e.a, e.b)
    if isinstance(e, Select):
        return (e.cond, e.a, e.b)
    return ()


VECTOR_BYTES = 16          # one global access per thread: LDG.128 / STG.128


@dataclass(frozen=True)
class VectorView:
    """An elementwise map computed `width` consecutive outputs at a time (16-byte accesses).

    `group` is the suffix of output axes (var, extent) the vectors run along: all non-unit axes
    (then a scalar tail covers n % width) or a suffix whose extent is a multiple of width, so a
    vector never straddles two rows. `vector` lists the loads read as whole vectors (contiguous
    along the group, offsets a multiple of width); every other load is constant along the group
    and read once per vector."""

    n: int
    width: int
    group: tuple[tuple[str, int], ...]
    outer: tuple[tuple[str, int], ...]
    unit: tuple[str, ...]
    vector: tuple[Load, ...]
    uniform: tuple[Load, ...]

    @property
    def flat(self) -> bool:
        return not self.outer


def _out_axes(te: TensorExpr):
    out_vars = [f"i{d}" for d in range(te.output.rank)]
    unit = tuple(v for v, e in zip(out_vars, te.output.shape) if e == 1)
    axes = tuple((v, e) for v, e in zip(out_vars, te.output.shape) if e != 1)
    return axes, unit


def vector_view(te: TensorExpr) -> VectorView | None:
    """The vectorised view of an elementwise map, or None when a load gathers, the body uses its
    indices as values, or the element types differ in size from the output's."""
    if te.reduce is not None or te.output.size == 0 or te.output.dtype.itemsize not in (2, 4, 8):
        return None
    if vars_outside_loads(te.body):
        return None
    item = te.output.dtype.itemsize
    width = VECTOR_BYTES // item
    axes, unit = _out_axes(te)
    if te.output.size < width or not axes:
        return None
    loads = distinct_loads(te.body)
    forms = []
    for ld in loads:
        f = load_affine(ld, te.inputs[ld.arg].shape)
        if f is None:
            return None
        forms.append(f)
    for start in range(len(axes)):       # the longest suffix first
        group, outer = axes[start:], axes[:start]
        ext = math.prod(e for _, e in group)
        if outer and ext % width:
            continue
        vec, uni, ok = [], [], True
        for ld, (co, k) in zip(loads, forms):
            g = {v: co.get(v, 0) for v, _ in group}
            if not any(g.values()):
                uni.append(ld)
            elif _group_contiguous(g, group) and te.inputs[ld.arg].dtype.itemsize == item \
                    and k % width == 0 and all(co.get(v, 0) % width == 0 for v, _ in outer):
                vec.append(ld)
            else:
                ok = False
                break
        if ok:
            return VectorView(te.output.size, width, group, outer, unit, tuple(vec), tuple(uni))
    return None


def _group_contiguous(coeffs: dict[str, int], group) -> bool:
    """Whether the coefficients are the contiguous strides of the group (last var stride 1)."""
    st = 1
    for v, e in reversed(group):
        if coeffs[v] != st:
            return False
        st *= e
    return True


@dataclass(frozen=True)
class TransposeView:
    """An elementwise map whose output's fastest axis `b` reads some input with a large stride,
    while that input's own fast axis follows output axes `a` (fused, last fastest): a tile of
    a x b is read coalesced along a into shared memory and written coalesced along b. `staged`
    are the loads read that way; the others are read directly (they are contiguous or constant
    along b). `outer` axes are folded into the grid."""

    a: tuple[tuple[str, int], ...]
    b: tuple[tuple[str, int], ...]
    outer: tuple[tuple[str, int], ...]
    unit: tuple[str, ...]
    staged: tuple[Load, ...]

    @property
    def A(self) -> int: return math.prod(e for _, e in self.a)
    @property
    def B(self) -> int: return math.prod(e for _, e in self.b)
    @property
    def outer_size(self) -> int: return math.prod(e for _, e in self.outer)


def transpose_view(te: TensorExpr, sector: int = 32) -> TransposeView | None:
    """The transpose view of an elementwise map, or None when no load is strided along the
    output's fastest axis (in sectors: consecutive outputs touch a new sector each) or some
    strided load has no output axis along which it is contiguous."""
    if te.reduce is not None or te.output.size == 0:
        return None
    axes, unit = _out_axes(te)
    if len(axes) < 2:
        return None
    bvar = axes[-1][0]
    staged, a_var = [], None
    forms = {}
    for ld in distinct_loads(te.body):
        f = load_affine(ld, te.inputs[ld.arg].shape)
        if f is None:
            return None
        forms[ld] = f[0]
        cb = f[0].get(bvar, 0)
        if cb in (0, 1):
            continue
        if abs(cb) * te.inputs[ld.arg].dtype.itemsize < sector:
            return None          # a small stride: each sector still serves several lanes
        fast = [v for v, x in f[0].items() if x == 1 and v != bvar]
        if len(fast) != 1 or (a_var is not None and fast[0] != a_var):
            return None
        if te.inputs[ld.arg].dtype.compute_ctype not in TILED_CTYPES:
            return None
        a_var = fast[0]
        staged.append(ld)
    if not staged:
        return None
    names = [v for v, _ in axes]
    ia = names.index(a_var)
    start = ia
    # fuse the output axes before `a` whose strides continue a's in every staged load
    while start > 0:
        pv, (nv, ne) = names[start - 1], axes[start]
        if all(forms[ld].get(pv, 0) == forms[ld].get(nv, 0) * ne for ld in staged):
            start -= 1
        else:
            break
    a = axes[start:ia + 1]
    outer = tuple(x for x in axes[:-1] if x not in a)
    return TransposeView(a=a, b=(axes[-1],), outer=outer, unit=unit, staged=tuple(staged))


def int8_elems(view: GemmView) -> tuple[str, str] | None:
    """(A's, B's) 8-bit integer type where both operands of the contraction are 8-bit integers
    widened to int32 (an integer mma's operands), else None."""
    out = []
    for e in (view.a, view.b):
        elem = e.x.dtype.name if isinstance(e, Cast) else ""
        if elem not in ("int8", "uint8") or _strip_rounding(e, elem) is None:
            return None
        out.append(elem)
    return out[0], out[1]


def inferred_precision(te: TensorExpr, view: GemmView) -> str:
    """fp16 or bf16 when both operands of the contraction are rounded to that type, else fp32."""
    for p in ("fp16", "bf16"):
        a, b = tc_operand(te, view, "a", MMA_ELEMS[p]), tc_operand(te, view, "b", MMA_ELEMS[p])
        if a is not None and b is not None:
            return p
    return "fp32"
