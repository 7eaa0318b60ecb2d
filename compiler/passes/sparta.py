"""SparTA's analysis half: TeSA attributes of the weights (`annotate`) and their propagation through
every node's tensor expressions (`propagate`), DESIGN sections 2 (stage 4) and 4; docs/sparta.md.

Propagation keeps an exact boolean zero mask per value (True: the element is zero in every run)
and summarises it as a TeSA at the end. A node's masks come from its lowering, never its name:
each stage's expression is evaluated over the masks with NumPy, its index maps moving the mask
(transposes, slices, gathers with constant indices) and its scalar expression deciding whether an
element is provably zero (x*0 = 0, relu(0) = 0, 0+0 = 0, a sum of zeros is 0: a contraction's
output element is zero when every term of its reduction has a zero factor, TeSA's Boolean
semiring). A node that lowers to a hand-written kernel falls back to tensor scrambling. Masks only
grow (an element once proved zero stays zero), so the worklist reaches a fixpoint."""
from __future__ import annotations

import dataclasses
import math
import re
from collections import deque

import numpy as np

from ..analysis.evaluate import evaluate
from ..analysis.views import vars_of
from ..ir.dtypes import DType
from ..ir.graph import Graph, Node, TensorType
from ..ir.plan import AliasStep, ComputeStep
from ..ir.spec import KernelSpec
from ..ir.tesa import TeSA, default_bits, detect, from_zero_mask
from ..ir.texpr import ACC, Binary, Cast, Const, Expr, Fold, Load, Select, TensorExpr, Unary, Var, children, fold_axes, walk
from ..ops.registry import LowerCtx, lookup

GRID_LIMIT = 1 << 24        # elements of one evaluation chunk (output index x reduction axes)
GRID_TOTAL_LIMIT = 1 << 32  # elements of all chunks: above it an expression is left dense (a TopK's
                            # ranks over 672000 scores would take 28000 chunks)
PROBE = 32                  # terms of a reduction looked at first (zero_mask's probe)
SCRAMBLE_LIMIT = 1 << 20    # elements over a node's inputs and outputs, above which it is not scrambled
SCRAMBLE_RUNS = 8           # all positive, all negative, then mixed signs


# ---- annotate -------------------------------------------------------------------------------------

def annotate(graph: Graph, opset: int = 21, zeros: dict[str, np.ndarray] | None = None) -> dict[str, TeSA]:
    """The TeSA of every constant that is not dense (absent: dense), and of every DequantizeLinear
    output whose integer input is a constant (its bit width is the integer's). `opset` only picks
    DequantizeLinear's reference semantics: an attribute a model's older opset lacks is absent, so
    the default reads it the same. `zeros`, where given, receives the zero mask of every constant
    that holds a zero, for `propagate` (one pass over the weights, not two)."""
    out: dict[str, TeSA] = {}
    for name, c in graph.constants:
        zero = c.array() == 0
        t = from_zero_mask(zero, c.dtype, matrix=_weight_view(c.shape), reduction_axis=_weight_axis(c.shape))
        if zeros is not None and zero.any():
            zeros[name] = zero
        if not t.is_dense:
            out[name] = t
    out.update(_dequantized(graph, opset))
    return out


def _is_conv_weight(shape: tuple[int, ...]) -> bool:
    # a rank-4 constant with several leading rows is read as a Conv weight (O, I, kh, kw); one with a
    # single leading row is a broadcast operand (an attention mask [1, 1, S, S])
    return len(shape) == 4 and shape[0] > 1


def _weight_view(shape: tuple[int, ...]) -> tuple[int, int] | None:
    # a Conv weight's GEMM matrix is O x (I*kh*kw), reduced along its columns
    return (shape[0], math.prod(shape[1:])) if _is_conv_weight(shape) else None


def _weight_axis(shape: tuple[int, ...]) -> int | None:
    return 1 if _is_conv_weight(shape) else None


def _dequantized(graph: Graph, opset: int) -> dict[str, TeSA]:
    """A weight stored as integers and dequantized by the graph keeps the integers' bit width."""
    out: dict[str, TeSA] = {}
    for node in graph.nodes:
        if node.op != "DequantizeLinear" or node.domain not in ("", "ai.onnx") or not node.has_output(0):
            continue
        consts = [graph.constant(n) if n else None for n in node.inputs]
        if any(n and c is None for n, c in zip(node.inputs, consts)) or not consts[0].dtype.is_int:
            continue
        try:
            args = [c.array() if c is not None else None for c in consts]
            value = lookup(node.op, node.domain).reference(node, args, opset)[0]
        except Exception:       # a DequantizeLinear its reference refuses has no attribute to give
            continue
        bits = default_bits(consts[0].dtype)
        out[node.outputs[0]] = detect(value, bits=bits,
                                      origin=f"weight {node.inputs[0]} (int{bits}, dequantized by {node.name})")
    return out


# ---- propagate ------------------------------------------------------------------------------------

def propagate(graph: Graph, attrs: dict[str, TeSA], opset: int,
              zeros: dict[str, np.ndarray] | None = None) -> dict[str, TeSA]:
    """`attrs` (the caller's facts: annotate's, or declared sparsity of inputs) and the TeSA of
    every other value found not dense, by propagation to a fixpoint; both only for values whose
    zeros matter (`mask_relevant`: an index tensor's do not). Constants are read from their data
    (or their zero masks from `zeros`, annotate's: a constant absent there has no zero); graph
    inputs are dense unless `attrs` says otherwise."""
    lowered = [_lower(node, graph, opset) for node in graph.nodes]
    relevant = mask_relevant(graph, lowered)
    attrs = {k: t for k, t in attrs.items() if k in relevant}
    if zeros is not None:
        zeros = {k: z for k, z in zeros.items() if k in relevant}
    return _fixpoint(graph, attrs, opset, zeros, lowered, relevant).summaries(attrs)


def zero_masks(graph: Graph, attrs: dict[str, TeSA], opset: int) -> dict[str, np.ndarray]:
    """The exact masks behind `propagate`'s summaries: for every value (constants included) found
    to hold a zero, a bool array of its shape, True where the element is zero in every run (the
    positions an UNSTRUCTURED summary does not keep); a value absent has no zero."""
    return dict(_fixpoint(graph, attrs, opset).zero)


def mask_relevant(graph: Graph, lowered: list) -> set[str]:
    """The values whose zeros matter: every floating-point value (the operands whose zeros a
    kernel could skip, and the report's subject), and every other value whose zero mask some node
    reads into one that matters. A value read only as an index or a shape (a scatter's index
    tensor, a Gather's indices) is not: its data decides which element is read, its zeros nothing.
    One pass backwards over the nodes (`lowered`: `_lower` of each, in order)."""
    relevant = {name for name, t in graph.type_map.items() if t.dtype.is_float}
    for node, steps in zip(reversed(graph.nodes), reversed(lowered)):
        if any(o in relevant for o in node.outputs if o):
            relevant |= _mask_inputs(node, steps, graph)
    return relevant


def _mask_inputs(node: Node, lowered, graph: Graph) -> set[str]:
    """The values whose zero masks `_node_zeros` may read for this node (a superset)."""
    if lowered is None:         # control flow: its outputs are dense
        return set()
    steps, _ = lowered
    if not _exact(steps):
        return set(n for n in node.inputs if n) if _scramblable(node, graph) else set()
    out: set[str] = set()
    for step in steps:
        if isinstance(step, AliasStep):
            out.add(step.src)
            continue
        for st in step.spec.stages:
            out.update(st.inputs[k] for k in _mask_args(st.expr.body, st.expr.epilogue))
    return out


def _mask_args(*roots: Expr | None) -> set[int]:
    """The inputs whose zero masks `zero_mask` may read: each Load reached other than inside
    another Load's index (an index's data is evaluated, never its zeros)."""
    out: set[int] = set()
    seen: set[int] = set()
    stack = [r for r in roots if r is not None]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, Load):
            out.add(x.arg)
            continue
        stack.extend(children(x))
    return out


def _exact(steps: list) -> bool:
    """Whether a node's steps are all tensor expressions (or aliases): its zeros follow exactly."""
    return bool(steps) and all(isinstance(s, AliasStep) or
                               (isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec)) for s in steps)


def _fixpoint(graph: Graph, attrs: dict[str, TeSA], opset: int, zeros: dict[str, np.ndarray] | None = None,
              lowered: list | None = None, relevant: set[str] | None = None) -> "_State":
    """Every value's zero mask to a fixpoint; with `relevant`, only the nodes with an output in it
    are evaluated (the others' outputs stay without a mask: dense)."""
    state = _State(graph, attrs, zeros)
    consumers: dict[str, list[int]] = {}
    for i, node in enumerate(graph.nodes):
        for v in node.inputs:
            consumers.setdefault(v, []).append(i)
    todo = [i for i, node in enumerate(graph.nodes)
            if relevant is None or any(o in relevant for o in node.outputs if o)]
    work, queued, todo_set = deque(todo), set(todo), set(todo)
    lowered = dict(enumerate(lowered)) if lowered is not None else {}
    while work:
        i = work.popleft()
        queued.discard(i)
        node = graph.nodes[i]
        if i not in lowered:
            lowered[i] = _lower(node, graph, opset)
        for value in state.update(node, _node_zeros(node, lowered[i], state, opset)):
            for j in consumers.get(value, ()):
                if j not in queued and (relevant is None or j in todo_set):
                    work.append(j)
                    queued.add(j)
    return state


class _State:
    """Every value's zero mask (True: zero), the constants' data, and where each fact came from."""

    def __init__(self, graph: Graph, attrs: dict[str, TeSA], zeros: dict[str, np.ndarray] | None = None):
        self.graph = graph
        self.values = {n: c.array() for n, c in graph.constants}
        # a constant without a zero needs no mask (`mask` gives an all-False one)
        self.zero = dict(zeros) if zeros is not None else \
            {n: z for n, a in self.values.items() if (z := a == 0).any()}
        self.seeded: dict[str, np.ndarray] = {}
        for n, t in attrs.items():
            ty = graph.type_map.get(n)
            if n not in self.values and ty is not None and tuple(t.shape) == tuple(ty.shape):
                self.seeded[n] = ~t.may_be_nonzero()
                self.zero[n] = self.seeded[n].copy()
        self.origin: dict[str, str] = {}

    def mask(self, name: str, ty: TensorType) -> np.ndarray:
        m = self.zero.get(name)
        return m if m is not None else np.zeros(ty.shape, dtype=bool)

    def update(self, node: Node, found: tuple[dict[str, np.ndarray], str]) -> list[str]:
        """Grows the masks of the node's outputs; the names that changed."""
        masks, how = found
        changed = []
        for name, z in masks.items():
            ty = self.graph.type_map.get(name)
            if ty is None or tuple(z.shape) != tuple(ty.shape) or name in self.values:
                continue
            old = self.mask(name, ty)
            new = old | z
            if (new != old).any():
                self.zero[name] = new
                self.origin[name] = how if how == "scrambling" else self._propagated(node)
                changed.append(name)
        return changed

    def _propagated(self, node: Node) -> str:
        src = next((v for v in node.inputs if v and v in self.zero and self.zero[v].any()), None)
        return f"propagated from {src} through {node.name}" if src else f"computed by {node.name}"

    def summaries(self, attrs: dict[str, TeSA]) -> dict[str, TeSA]:
        out = dict(attrs)
        for name, origin in self.origin.items():
            ty = self.graph.type_of(name)
            seed = self.seeded.get(name)
            if seed is not None and (seed == self.zero[name]).all():
                continue          # nothing learnt beyond the caller's own attribute
            given = attrs.get(name)
            bits = given.bits if given is not None else default_bits(ty.dtype)
            t = from_zero_mask(self.zero[name], ty.dtype, bits=bits, origin=origin)
            if given is not None and dataclasses.replace(t, origin=given.origin) == given:
                continue          # the same summary the caller gave: its origin stands
            if not t.is_dense:
                out[name] = t
        return out


# ---- one node -------------------------------------------------------------------------------------

def _lower(node: Node, graph: Graph, opset: int) -> tuple[list, dict[str, TensorType]] | None:
    """The node's steps as lower_graph would make them and the types of its outputs and
    temporaries; no steps for a node that does not lower; None for one with subgraphs (control flow)."""
    if node.subgraphs():
        return None
    used = set(graph.type_map)

    def new_name(hint: str) -> str:
        base, k = re.sub(r"[^A-Za-z0-9_/.:-]", "_", hint), 0
        name = base
        while name in used:
            k += 1
            name = f"{base}.{k}"
        used.add(name)
        return name

    steps: list = []
    in_types = [graph.type_of(n) if n else None for n in node.inputs]
    out_types = [graph.type_of(n) if n else None for n in node.outputs]
    consts = [graph.constant(n).array() if n and graph.constant(n) is not None else None for n in node.inputs]
    ctx = LowerCtx(node, in_types, out_types, consts, opset, steps.append, new_name)
    try:
        lookup(node.op, node.domain, node=node.name).lower(ctx)
    except Exception:         # no lowering (or a shape it refuses): scrambling may still say something
        return [], {}
    types = {n: t for n, t in zip(node.outputs, out_types) if n}
    types.update(ctx.temps)
    return steps, types


def _node_zeros(node: Node, lowered, state: _State, opset: int) -> tuple[dict[str, np.ndarray], str]:
    """The zero masks of a node's outputs: exact from its tensor expressions when it lowers to
    nothing else, else by scrambling; none (dense) for control flow."""
    if lowered is None:
        return {}, "exact"
    steps, types = lowered
    if not _exact(steps):
        return _scramble(node, state, opset), "scrambling"
    local: dict[str, np.ndarray] = {}

    def mask_of(name: str, ty: TensorType) -> np.ndarray:
        m = local[name] if name in local else state.mask(name, ty)
        # a lowering may read a value under another shape of the same bytes (row-major)
        return m if m.shape == tuple(ty.shape) else m.reshape(ty.shape)

    for step in steps:
        if isinstance(step, AliasStep):
            src_ty = types.get(step.src) or state.graph.type_of(step.src)
            local[step.dst] = mask_of(step.src, src_ty).reshape(types[step.dst].shape)
            continue
        for st in step.spec.stages:
            masks = [mask_of(v, t) for v, t in zip(st.inputs, st.expr.inputs)]
            values = [state.values.get(v) for v in st.inputs]
            zero_args = frozenset(k for k, m in enumerate(masks) if m.size == 0 or m.any())
            if may_make_zeros(st.expr, frozenset(k for k, v in enumerate(values) if v is not None), zero_args):
                local[st.output] = zero_mask(st.expr, masks, values)
            else:       # no zero the expression passes on or makes itself (x + a zero bias): dense, without a grid
                local[st.output] = np.zeros(st.expr.output.shape, dtype=bool)
    return {n: local[n] for n in node.outputs if n and n in local}, "exact"


# ---- tensor expressions over zero masks -----------------------------------------------------------

def zero_mask(te: TensorExpr, masks: list[np.ndarray], values: list[np.ndarray | None]) -> np.ndarray:
    """Which output elements of `te` are provably zero, given its inputs' zero masks (and the
    data of the constant ones, for indices and conditions). Evaluated over the index variables
    the answer can depend on (`_zero_vars`; the others are held at 0 and the mask broadcast along
    them), in chunks of the output's largest axis; an expression too large for GRID_LIMIT even
    one slice at a time, or for GRID_TOTAL_LIMIT in all, is dense."""
    if te.output.size == 0:
        return np.zeros(te.output.shape, dtype=bool)
    axes = [(f"i{d}", n) for d, n in enumerate(te.output.shape)]
    axes += list(te.reduce.axes) if te.reduce is not None else []
    axes += list(fold_axes(te.body, te.epilogue).items())
    keep = _zero_vars(te, masks, values)
    axes = [(n, e if n in keep else 1) for n, e in axes]
    return np.broadcast_to(_zero_mask_on(te, axes, masks, values), te.output.shape).copy()


def _zero_mask_on(te: TensorExpr, axes: list, masks, values) -> np.ndarray:
    """zero_mask over the grid `axes` (output axes first), shaped by their extents."""
    rank = te.output.rank
    shape = tuple(e for _, e in axes[:rank])
    out = np.zeros(shape, dtype=bool)
    total = math.prod(n for _, n in axes)
    acc_never = _accumulator_never_zero(te, axes, masks, values)
    if acc_never and te.epilogue is None:
        return out
    if acc_never:       # the epilogue's grid: the reduced axes are not looked at again
        reduced = {n for n, _ in te.reduce.axes}
        axes = [(n, 1 if n in reduced else e) for n, e in axes]
        total = math.prod(n for _, n in axes)
    split = max(range(rank), key=lambda d: shape[d], default=None)
    if split is None or total <= GRID_LIMIT or _contraction_factors(te, dict(axes)) is not None:
        return _MaskEval(te, axes, masks, values, None).output(acc_never)
    per_row = total // shape[split]
    if per_row > GRID_LIMIT or total > GRID_TOTAL_LIMIT:
        return out
    step = max(1, GRID_LIMIT // per_row)
    for lo in range(0, shape[split], step):
        hi = min(lo + step, shape[split])
        sl = [slice(None)] * rank
        sl[split] = slice(lo, hi)
        out[tuple(sl)] = _MaskEval(te, axes, masks, values, (split, lo, hi)).output(acc_never)
    return out


def _zero_vars(te: TensorExpr, masks: list[np.ndarray], values: list[np.ndarray | None]) -> set[str]:
    """The index variables `_MaskEval` can find the output's zeros to depend on: those of a
    condition or a value computed from indices and constants, and of the index of a load whose
    input holds a zero. A load of an input with no zero is nowhere zero, whatever it indexes: a
    depthwise convolution's channel (its weight and input dense) does not move the zeros its
    padding makes, which depend on the spatial positions alone."""
    known = {k for k, v in enumerate(values) if v is not None}
    # inputs with a zero somewhere (a constant's mask is its data's zeros; one of size 0 is never
    # read, zero everywhere alike)
    zeros = {k for k, m in enumerate(masks) if m.size > 0 and m.any()}
    cache: dict[int, set[str]] = {}
    computed: dict[int, bool] = {}

    def computable(e: Expr) -> bool:      # its value depends on indices and constants alone
        k = id(e)
        if k not in computed:
            own = e.arg in known if isinstance(e, Load) else not (isinstance(e, Var) and e.name == ACC)
            computed[k] = own and all(computable(c) for c in children(e))
        return computed[k]

    def index_vars(e: Expr) -> set[str]:
        return {x.name for x in walk(e) if isinstance(x, Var)} - {ACC}

    def of(e: Expr) -> set[str]:
        k = id(e)
        if k not in cache:
            cache[k] = _of(e)
        return cache[k]

    def _of(e: Expr) -> set[str]:
        if isinstance(e, Load):
            return set().union(*map(index_vars, e.index)) if e.arg in zeros else set()
        if computable(e):
            return index_vars(e)
        if isinstance(e, Var):
            return body if e.name == ACC else set()
        if isinstance(e, Cast):
            return of(e.x)
        if isinstance(e, Unary):
            return of(e.x) if e.fn in ZERO_PRESERVING else set()
        if isinstance(e, Binary):
            if e.fn in ZERO_IF_FIRST:
                return of(e.a)
            if e.fn in ZERO_IF_FIRST_BY_NONZERO or e.fn == "pow":
                return of(e.a) | index_vars(e.b)     # the divisor's value
            return of(e.a) | of(e.b) if e.fn in ZERO_IF_EITHER or e.fn in ZERO_IF_BOTH else set()
        if isinstance(e, Select):
            return (index_vars(e.cond) if computable(e.cond) else of(e.cond)) | of(e.a) | of(e.b)
        if isinstance(e, Fold):
            return of(e.body)
        return set()

    body = of(te.body)      # what the accumulator an epilogue reads depends on
    return body | (of(te.epilogue) if te.epilogue is not None else set())


def _accumulator_never_zero(te: TensorExpr, axes, masks, values) -> bool:
    """Whether a sum's (max's, min's) accumulator is provably non-zero everywhere, found on the
    first PROBE terms of its longest reduced axis: an accumulator is zero only where all its terms
    are, so where none of the probe's accumulators is zero, none of the whole's is. A dense
    weight's contraction (a quantized LM head: 201088 x 2880 dequantized values) is then looked at
    on 32 of its columns, not all; a pruned one goes on to the whole grid."""
    if te.reduce is None or FOLD_ZERO.get(te.reduce.op) != "all":
        return False
    reduced = {n for n, _ in te.reduce.axes}
    k = max((i for i, (n, _) in enumerate(axes) if n in reduced), key=lambda i: axes[i][1], default=None)
    if k is None:     # a reduction over no axis (a sum of one term)
        return False
    extent = axes[k][1]
    if extent <= 2 * PROBE:
        return False
    grid = math.prod(n for _, n in axes) // extent * PROBE
    if grid > GRID_LIMIT and _contraction_factors(te, dict(axes)) is None:
        return False
    return not np.any(_MaskEval(te, axes, masks, values, (k, 0, PROBE)).accumulator())


def may_make_zeros(te: TensorExpr, constant_args: frozenset[int], zero_args: frozenset[int] = frozenset()) -> bool:
    """Whether `zero_mask` could find a zero in `te`'s output when only the inputs in `zero_args`
    hold zeros (a known zero, a constant with a zero): False only where every rule of `_MaskEval`
    keeps the output non-zero, so that the propagation skips the grid of each node its zeros do
    not reach (most of a dense model's, and x + b with b a zero bias); True wherever a value
    computed from indices and constants alone could be 0 (a causal mask, an iota), or the rules
    are not followed through."""
    if te.reduce is None:
        return not _never_zero(te.body, constant_args, False, zero_args)
    if FOLD_ZERO.get(te.reduce.op) is None or not _never_zero(te.body, constant_args, False, zero_args):
        return True
    return te.epilogue is not None and not _never_zero(te.epilogue, constant_args, True, zero_args)


def _never_zero(e: Expr, constant_args: frozenset[int], acc_never: bool, zero_args: frozenset[int]) -> bool:
    """Whether `_MaskEval.zero(e)` is False everywhere, given no element of an input outside
    `zero_args` is zero (`acc_never`: the accumulator an epilogue reads is not zero either)."""
    if all(not isinstance(x, Load) or x.arg in constant_args for x in walk(e)):   # a concrete value
        if isinstance(e, Const):
            return e.value != 0
        return isinstance(e, Load) and e.arg not in zero_args   # a constant's element, with no zero
    if isinstance(e, Load):
        return e.arg not in zero_args
    if isinstance(e, Var):
        return e.name == ACC and acc_never
    if isinstance(e, Cast):
        return _never_zero(e.x, constant_args, acc_never, zero_args)
    if isinstance(e, Unary):
        return e.fn not in ZERO_PRESERVING or _never_zero(e.x, constant_args, acc_never, zero_args)
    if isinstance(e, Binary):
        a = _never_zero(e.a, constant_args, acc_never, zero_args)
        if e.fn in ZERO_IF_FIRST or e.fn in ZERO_IF_FIRST_BY_NONZERO or e.fn == "pow":
            return a
        b = _never_zero(e.b, constant_args, acc_never, zero_args)
        if e.fn in ZERO_IF_EITHER:
            return a and b
        return (a or b) if e.fn in ZERO_IF_BOTH else True
    if isinstance(e, Select):
        return (_never_zero(e.a, constant_args, acc_never, zero_args)
                and _never_zero(e.b, constant_args, acc_never, zero_args))
    if isinstance(e, Fold):
        return FOLD_ZERO.get(e.op) is not None and _never_zero(e.body, constant_args, acc_never, zero_args)
    return False


# unary functions with f(0) == 0 (or False: isnan(0), isinf(0))
ZERO_PRESERVING = {"neg", "abs", "sign", "sqrt", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh",
                   "atanh", "erf", "floor", "ceil", "round", "expm1", "log1p", "isnan", "isinf",
                   "isposinf", "isneginf"}
ZERO_IF_EITHER = {"mul", "and", "bitand"}
ZERO_IF_BOTH = {"add", "sub", "min", "max", "or", "xor", "bitor", "bitxor", "ne", "lt", "gt"}
ZERO_IF_FIRST = {"shl", "shr"}
ZERO_IF_FIRST_BY_NONZERO = {"div", "idiv", "imod", "fmod", "pymod"}   # 0/0 is NaN: the divisor must be known
FOLD_ZERO = {"sum": "all", "max": "all", "min": "all", "prod": "any"}


class _MaskEval:
    """One evaluation of a tensor expression over a grid of its index variables: each variable an
    arange along its own axis, everything else broadcast. `value` is the concrete value of what
    depends only on indices and constant inputs (None otherwise); `zero` whether it is provably 0."""

    def __init__(self, te: TensorExpr, axes, masks, values, chunk):
        self.te, self.masks, self.values = te, masks, values
        self.pos = {name: k for k, (name, _) in enumerate(axes)}
        self.ndim = len(axes)
        self.vars = {}
        for k, (name, n) in enumerate(axes):
            lo, hi = (chunk[1], chunk[2]) if chunk is not None and k == chunk[0] else (0, n)
            shape = [1] * self.ndim
            shape[k] = hi - lo
            self.vars[name] = np.arange(lo, hi, dtype=np.int64).reshape(shape)
        self.acc_zero: np.ndarray | None = None
        self._values: dict[int, np.ndarray | None] = {}
        self._zeros: dict[int, np.ndarray] = {}

    def output(self, acc_never: bool = False) -> np.ndarray:
        """The output's zero mask; `acc_never`: the accumulator is known non-zero (not evaluated)."""
        te = self.te
        if te.reduce is not None:
            z = np.False_ if acc_never else self.accumulator()
            if te.epilogue is not None:
                self.acc_zero = z
                z = self.zero(te.epilogue)
        else:
            z = self.zero(te.body)
        # the reductions left size-1 axes behind: broadcast over the output axes, drop the rest
        rank = te.output.rank
        target = tuple(self.vars[f"i{d}"].shape[d] for d in range(rank)) + (1,) * (self.ndim - rank)
        return np.broadcast_to(z, target).reshape(target[:rank])

    def accumulator(self) -> np.ndarray:
        """A reduction's accumulator's zero mask, reduced axes kept as size 1."""
        z = self._contracted()
        if z is None:
            z = self._reduce(self.zero(self.te.body), self.te.reduce.axes, FOLD_ZERO.get(self.te.reduce.op))
        return z

    def _contracted(self) -> np.ndarray | None:
        """A contraction's zero mask without its grid (`_contraction_factors`): an output element
        is zero when no term has both factors possibly non-zero, so the count of such terms is a
        product of the factors' non-zero masks, one matrix product over the distinct rows of one
        and columns of the other (a dense activation is one row; bench/tesa.py times it against the
        grid). None: not such a contraction, evaluate the grid."""
        factors = _contraction_factors(self.te, {n: int(np.size(v)) for n, v in self.vars.items()})
        if factors is None:
            return None
        za, zb = (np.broadcast_to(z, (1,) * self.ndim) if np.ndim(z) == 0 else np.asarray(z)
                  for z in map(self.zero, factors))
        red = {self.pos[name] for name, _ in self.te.reduce.axes}
        in_a = {d for d in range(self.ndim) if za.shape[d] > 1}
        in_b = {d for d in range(self.ndim) if zb.shape[d] > 1}
        if (in_a & in_b) - red:
            return None          # both vary along an output axis (a batched product): the grid
        # a term's factor that does not vary along a reduced axis is the same in all its terms
        only_a, only_b = tuple(sorted((in_a - in_b) & red)), tuple(sorted((in_b - in_a) & red))
        za = za.all(axis=only_a, keepdims=True) if only_a else za
        zb = zb.all(axis=only_b, keepdims=True) if only_b else zb
        both = sorted(in_a & in_b & red)
        if not both:
            return za | zb
        fa, fb = sorted(in_a - red), sorted(in_b - red)
        rest_a = [d for d in range(self.ndim) if d not in fa and d not in both]
        rest_b = [d for d in range(self.ndim) if d not in fb and d not in both]
        k = math.prod(za.shape[d] for d in both)
        a = ~np.transpose(za, fa + both + rest_a).reshape(-1, k)
        b = ~np.transpose(zb, both + fb + rest_b).reshape(k, -1)
        rows, row_of = _distinct_rows(a)
        cols, col_of = _distinct_rows(b.T)
        terms = rows.astype(np.float32) @ cols.T.astype(np.float32)   # counts of possibly non-zero terms
        z = (terms == 0)[np.ix_(row_of, col_of)]
        z = z.reshape([za.shape[d] for d in fa] + [zb.shape[d] for d in fb] + [1] * (self.ndim - len(fa) - len(fb)))
        return np.moveaxis(z, list(range(len(fa) + len(fb))), fa + fb)

    def _reduce(self, z: np.ndarray, axes, how: str | None) -> np.ndarray:
        if how is None:         # argmax and kin: an index, zero or not whatever the inputs
            return np.False_
        dims = tuple(self.pos[name] for name, _ in axes if self.pos[name] < np.ndim(z))
        z = np.asarray(z)
        if z.ndim == 0 or not dims:
            return z
        return z.all(axis=dims, keepdims=True) if how == "all" else z.any(axis=dims, keepdims=True)

    # -- concrete values (what depends only on indices and constant inputs) ------------------------
    def value(self, e: Expr) -> np.ndarray | None:
        return evaluate(e, self.vars, self.values, self._values)

    # -- provably zero ------------------------------------------------------------------------------
    def zero(self, e: Expr) -> np.ndarray:
        k = id(e)
        if k not in self._zeros:
            v = self.value(e)
            self._zeros[k] = (v == 0) if v is not None else self._zero(e)
        return self._zeros[k]

    def _zero(self, e: Expr) -> np.ndarray:
        if isinstance(e, Var):
            return self.acc_zero if e.name == ACC and self.acc_zero is not None else np.False_
        if isinstance(e, Load):
            return self._load_zero(e)
        if isinstance(e, Cast):
            return self.zero(e.x)           # a cast keeps 0 (and can only make more zeros)
        if isinstance(e, Unary):
            return self.zero(e.x) if e.fn in ZERO_PRESERVING else np.False_
        if isinstance(e, Binary):
            return self._binary_zero(e)
        if isinstance(e, Select):
            c = self.value(e.cond)
            if c is not None:
                return np.where(c, self.zero(e.a), self.zero(e.b))
            both = self.zero(e.a) & self.zero(e.b)
            return np.where(self.zero(e.cond), self.zero(e.b), both)   # a false condition picks b
        if isinstance(e, Fold):
            return self._reduce(self.zero(e.body), e.axes, FOLD_ZERO[e.op])
        return np.False_

    def _binary_zero(self, e: Binary) -> np.ndarray:
        za = self.zero(e.a)
        if e.fn in ZERO_IF_FIRST:
            return za
        if e.fn in ZERO_IF_FIRST_BY_NONZERO or e.fn == "pow":
            b = self.value(e.b)
            if b is None:
                return np.False_
            return za & ((b > 0) if e.fn == "pow" else (b != 0))
        zb = self.zero(e.b)
        if e.fn in ZERO_IF_EITHER:
            return za | zb
        if e.fn in ZERO_IF_BOTH:
            return za & zb
        return np.False_

    def _load_zero(self, e: Load) -> np.ndarray:
        """The loaded element's zero mask moved by the index map; an axis indexed by data that is
        not constant may read any element along it, so the mask is all-reduced over it."""
        mask = self.masks[e.arg]
        if mask.size == 0:
            return np.True_       # never read at run time (a guarded branch)
        idx = [self.value(x) for x in e.index]
        free = tuple(d for d, v in enumerate(idx) if v is None)
        if free:
            mask = mask.all(axis=free, keepdims=True)
        return mask[tuple(np.zeros((), np.int64) if v is None else np.clip(v.astype(np.int64), 0, n - 1)
                          for v, n in zip(idx, mask.shape))]


def _distinct_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a bool matrix, in first-seen order, and each row's index among them
    (by the rows' packed bytes: a sort of void rows is slower than the product it saves)."""
    first: dict[bytes, int] = {}
    of = np.empty(a.shape[0], dtype=np.int64)
    for r, key in enumerate(np.packbits(a, axis=1)):
        of[r] = first.setdefault(key.tobytes(), len(first))
    keep = np.zeros(len(first), dtype=np.int64)
    keep[of] = np.arange(a.shape[0])        # a row of each (they are equal)
    return a[keep], of


def _contraction_factors(te: TensorExpr, extents: dict[str, int]) -> tuple[Expr, Expr] | None:
    """The two factors of a contraction whose output element is zero when every term has a zero
    factor (a sum, max or min over a product, casts aside), when each factor alone is small
    enough to evaluate over the variables it reads; None otherwise."""
    if te.reduce is None or FOLD_ZERO.get(te.reduce.op) != "all":
        return None
    body = te.body
    while isinstance(body, Cast):
        body = body.x
    if not isinstance(body, Binary) or body.fn not in ZERO_IF_EITHER:
        return None
    used = [vars_of(f) for f in (body.a, body.b)]
    if any(math.prod(extents.get(v, 1) for v in u) > GRID_LIMIT for u in used):
        return None
    if any(v in extents and v.startswith("i") and extents[v] > 1 for v in used[0] & used[1]):
        return None      # both read an output axis (a batched product): each batch is its own
    return body.a, body.b


# ---- tensor scrambling ----------------------------------------------------------------------------

def _scramble(node: Node, state: _State, opset: int) -> dict[str, np.ndarray]:
    """SparTA's tensor scrambling for a node without an exact rule: its NumPy reference run
    SCRAMBLE_RUNS times with random non-zero values (all positive, all negative, mixed signs) where
    an input may be non-zero and zeros where it is zero; an output element zero in every run counts
    as zero. Constants keep their data; a node with a non-constant integer input (indices, shapes:
    random values would be invalid) or more than SCRAMBLE_LIMIT elements is left dense, and so is a
    node whose output extent depends on the data (OpDef.bounded, the node given its extent output:
    the zeros past its real extent are padding, not a pattern of its inputs' zeros)."""
    if not _scramblable(node, state.graph):
        return {}
    g = state.graph
    ins = [(n, g.type_of(n)) if n else (n, None) for n in node.inputs]
    rng = np.random.default_rng(0)
    reference = lookup(node.op, node.domain, node=node.name).reference
    always: list[np.ndarray] | None = None
    for run in range(SCRAMBLE_RUNS):
        args = [None if t is None else _scrambled(n, t, state, rng, run) for n, t in ins]
        try:
            with np.errstate(all="ignore"):
                results = reference(node, args, opset)
        except Exception:
            return {}
        zeros = [np.asarray(r) == 0 for r in results]
        always = zeros if always is None else [a & z if a.shape == z.shape else np.zeros_like(a)
                                               for a, z in zip(always, zeros)]
    return {n: z for n, z in zip(node.outputs, always or []) if n}


def _scramblable(node: Node, graph: Graph) -> bool:
    """Whether `_scramble` runs the node at all (its sizes, its inputs' types, its op), which
    depends on no zero mask."""
    ins = [(n, graph.type_of(n)) for n in node.inputs if n]
    outs = [graph.type_of(n) for n in node.outputs if n]
    if sum(t.size for _, t in ins) + sum(t.size for t in outs) > SCRAMBLE_LIMIT:
        return False
    if any(graph.constant(n) is None and not (t.dtype.is_float or t.dtype is DType.bool) for n, t in ins):
        return False
    try:
        opdef = lookup(node.op, node.domain, node=node.name)
    except Exception:
        return False
    return not (opdef.bounded and node.attr("max_extent") is not None)   # its extent is the data's


def _scrambled(name: str, ty: TensorType, state: _State, rng, run: int) -> np.ndarray:
    if name in state.values:
        return state.values[name]
    zero = state.mask(name, ty)
    if ty.dtype is DType.bool:
        v = np.ones(ty.shape, dtype=bool) if run == 0 else rng.random(ty.shape) < 0.5
        return v & ~zero
    sign = 1.0 if run == 0 else -1.0 if run == 1 else rng.choice([-1.0, 1.0], size=ty.shape)
    v = sign * rng.uniform(0.5, 2.0, size=ty.shape)
    return np.where(zero, 0.0, v).astype(ty.dtype.np)
