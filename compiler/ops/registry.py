"""The op registry: for every ONNX op, its lowering to kernels and its NumPy reference.

To add an op: in the family module of compiler/ops/, write

    def _ref_myop(node, inputs, opset): ...          # NumPy semantics, returns a list of arrays
    @register("MyOp", reference=_ref_myop)
    def lower_myop(ctx: LowerCtx) -> None: ...       # emits TensorExprs (specs) / extern kernels / aliases

Output shapes come from ONNX's own per-node shape inference in the frontend, so a lowering
reads `ctx.out_types` and never recomputes them."""
from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import NeedsConstant, ShapeError, UnsupportedOp
from ..ir.dtypes import DType
from ..ir.graph import Node, TensorType
from ..ir.texpr import TensorExpr, unguarded_loads, without_empty_reduction

Reference = Callable[[Node, list, int], list]


@dataclass(frozen=True)
class OpDef:
    """How one op is lowered and what it means (NumPy)."""

    op: str
    lower: Callable[["LowerCtx"], None]
    reference: Reference
    domain: str = ""
    foldable: bool = True       # may be constant-folded with its reference when inputs are constant
    # output types from the node, its input types and its constant inputs' values (None where not
    # constant), for an op ONNX has no schema for (onnxruntime's com.microsoft operators:
    # compiler/ops/contrib.py); None: ONNX's own shape inference
    infer: Callable[[Any, list, list], list] | None = None
    # (output, axis) pairs whose extent is known only at run time (NonMaxSuppression's selected
    # boxes), or a function of the node and its input types giving them (Compress: its axis):
    # typed at import with a static upper bound, `infer` gives one more output than the node has,
    # an int64 scalar the op writes with the real extent; rows past it hold zeros, and the lowering
    # follows the value (passes/bounded_rows.py) to the outputs it trims (docs/adding-ops.md)
    bounded: tuple[tuple[int, int], ...] | Callable[[Any, list], tuple[tuple[int, int], ...]] = ()
    # `infer` takes a fourth argument: each input's element (lower, upper, source) where it is a
    # small integer known only at run time (frontend/element_bounds.py), to size an output by one
    # (TopK's K, ConstantOfShape's shape)
    infer_bounds: bool = False

    def bounded_axes(self, node, in_types: list) -> tuple[tuple[int, int], ...]:
        return self.bounded(node, in_types) if callable(self.bounded) else self.bounded


REGISTRY: dict[tuple[str, str], OpDef] = {}


class Inferred(list):
    """Output types an op's `infer` gives, with node attributes it decided on the way (the axis of
    ConstantOfShape's output that is known only at run time), which the import adds to the node,
    and (output, bound) pairs for outputs with an axis of run-time length whose extent is another
    value's (no count output of their own: the lowering names it, LowerCtx.set_run_time_extent).
    An `infer` may also return None: ONNX's own inference types the node."""

    def __init__(self, types, attrs: tuple[tuple[str, Any], ...] = (), run_time: tuple[tuple[int, int], ...] = ()):
        super().__init__(types)
        self.attrs = tuple(attrs)
        self.run_time = tuple(run_time)


def bounded_result(node, exact: np.ndarray, axis: int) -> list[np.ndarray]:
    """A bounded op's reference result (OpDef.bounded) as `node` computes it: `exact` where the node
    has no extent output (constant folding), else `exact` padded with zeros along `axis` to the
    node's bound (graph_import gives it as max_extent), and the real extent."""
    if len(node.outputs) < 2:
        return [exact]
    shape = list(exact.shape)
    shape[axis] = node.attr("max_extent")
    padded = np.zeros(shape, exact.dtype)
    padded[(slice(None),) * axis + (slice(0, exact.shape[axis]),)] = exact
    return [padded, np.array(exact.shape[axis], dtype=np.int64)]


def register(op: str, *, reference: Reference, domain: str = "", foldable: bool = True,
             infer: Callable[[Any, list, list], list] | None = None,
             bounded: tuple[tuple[int, int], ...] | Callable[[Any, list], tuple[tuple[int, int], ...]] = (),
             infer_bounds: bool = False):
    """Decorator: registers `fn` as the lowering of `op` (also under 'ai.onnx' for the default domain)."""
    def deco(fn):
        d = OpDef(op, fn, reference, domain, foldable, infer, bounded, infer_bounds)
        REGISTRY[(domain, op)] = d
        if domain == "":
            REGISTRY[("ai.onnx", op)] = d
        return fn
    return deco


def lookup(op: str, domain: str = "", node: str | None = None) -> OpDef:
    _load_families()
    d = REGISTRY.get((domain, op))
    if d is None:
        raise UnsupportedOp(op, node=node, domain=domain)
    return d


def supported_ops() -> list[str]:
    _load_families()
    return sorted({op for (dom, op) in REGISTRY if dom in ("", "ai.onnx")})


_loaded = False
_load_lock = threading.Lock()


def _load_families():
    """Imports every family module once; safe when several threads ask at the same time."""
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        import importlib
        import pkgutil
        from .. import ops
        for m in pkgutil.iter_modules(ops.__path__):
            if m.name != "registry":
                importlib.import_module(f"{ops.__name__}.{m.name}")
        _loaded = True  # only once every family is registered


class LowerCtx:
    """What a lowering sees of its node, and how it emits steps (kernels, aliases, temporaries)."""

    def __init__(self, node: Node, in_types: list[TensorType | None], out_types: list[TensorType],
                 consts: list[np.ndarray | None], opset: int, emit: Callable[[Any], None],
                 new_name: Callable[[str], str], donate: Callable[[list], bool] | None = None,
                 disabled: frozenset[str] = frozenset(),
                 price: Callable[[list, dict], float | None] | None = None, choices: list | None = None,
                 extents: dict[str, tuple[str, int]] | None = None, shared: dict[str, str] | None = None):
        self.node = node
        self._extents = extents or {}
        self._shared = shared if shared is not None else {}
        # outputs this lowering gave a run-time extent of its own (set_run_time_extent)
        self.run_time_outputs: dict[str, tuple[str, int]] = {}
        self._donate = donate
        self._disabled = disabled
        self._price = price
        self._choices = choices
        self.in_types = in_types
        self.out_types = out_types
        self.consts = consts
        self.opset = opset
        self._emit = emit
        self._new_name = new_name
        self.temps: dict[str, TensorType] = {}

    def enabled(self, technique: str) -> bool:
        """Whether a lowering technique (one of CompileOptions' switchable names) is on."""
        return technique not in self._disabled

    def cheapest(self, ways: dict[str, Callable[[], None]]) -> str:
        """Lowers the node the cheapest of several ways (name -> a function that emits it): each
        is lowered on trial and priced by `price` (its kernels as the stages after lowering would
        tile them, passes/lower.py); the first way where not every way prices, or on a tie.
        Returns the name of the way taken; each priced choice is appended to `choices`."""
        names = list(ways)
        best = names[0]
        if self._price is not None and len(names) > 1:
            costs = {n: self._price(*self._trial(ways[n])) for n in names}
            if all(c is not None for c in costs.values()):
                best = min(names, key=lambda n: costs[n])
            if self._choices is not None:       # the lower stage's record: what was priced, what taken
                self._choices.append({"node": self.node.name, "op": self.node.op, "chosen": best, "predicted_us": {
                    n: None if c is None else round(c, 3) for n, c in costs.items()}})
        ways[best]()
        return best

    def _trial(self, build: Callable[[], None]) -> tuple[list, dict]:
        """(steps, temporaries) `build` emits, kept out of the plan and its names."""
        saved = self._emit, self._new_name, self.temps
        steps: list = []
        names = itertools.count()
        self._emit, self.temps = steps.append, {}
        self._new_name = lambda hint: f"trial{next(names)}:{hint}"
        try:
            build()
            return steps, {**saved[2], **self.temps}     # the node's earlier temporaries too
        finally:
            self._emit, self._new_name, self.temps = saved

    # --- reading the node -------------------------------------------------------------
    def attr(self, name: str, default: Any = None) -> Any:
        return self.node.attr(name, default)

    def input(self, i: int) -> TensorType | None:
        """Type of input i; None when the optional input is absent."""
        return self.in_types[i] if i < len(self.in_types) else None

    def const(self, i: int) -> np.ndarray | None:
        """Value of input i when it is a compile-time constant, else None."""
        return self.consts[i] if i < len(self.consts) else None

    def run_time_extent(self, i: int) -> tuple[str, int] | None:
        """(the int64 scalar holding it, the axis) where input i's extent on that axis is known only
        at run time (passes/bounded_rows.py), else None. A hand-written kernel that reads such an
        input reads that scalar too, and honours it."""
        return self.run_time_extent_of(self.node.inputs[i]) if self.has_input(i) else None

    def run_time_extent_of(self, value: str) -> tuple[str, int] | None:
        """(the int64 scalar holding it, the axis) where `value` (any value the lowering has met,
        not only this node's inputs) has a length known only at run time, else None."""
        return self._extents.get(value)

    def shared_temp(self, key: str, t: TensorType, hint: str, emit: Callable[[str], None]) -> str:
        """A temporary of type t that `emit` computes, once per plan for `key`: two nodes asking for
        one key get one value (two Concats of the same lists get one run-time length, so what
        reads both reads rows of one length)."""
        if key not in self._shared:
            name = self.temp(t, hint)
            emit(name)
            self._shared[key] = name
        return self._shared[key]

    def set_run_time_extent(self, i: int, count: str, axis: int) -> None:
        """Output i has a length known only at run time on `axis`, held in the int64 scalar `count`
        this lowering writes (Concat of values of run-time length along it): the lowering follows it
        from there (passes/bounded_rows.py) and does not check how this node's kernels read theirs."""
        self.run_time_outputs[self.out_name(i)] = (count, axis)

    def has_input(self, i: int) -> bool:
        """Whether optional input i is given (named, with a type)."""
        return self.node.has_input(i) and self.input(i) is not None

    def require_const(self, i: int, what: str) -> np.ndarray:
        v = self.const(i)
        if v is None:
            raise NeedsConstant(self.node.op, node=self.node.name,
                                detail=f"{what} (input {i}) must be a constant")
        return v

    def in_name(self, i: int) -> str:
        return self.node.inputs[i]

    def out_name(self, i: int = 0) -> str:
        return self.node.outputs[i]

    def unsupported(self, detail: str, *, feature: bool = False) -> UnsupportedOp:
        """The error a lowering raises for what it cannot do; `feature`: a refused attribute or
        input, not a shape, so a zero-size tensor elsewhere in the node is not blamed for it."""
        return UnsupportedOp(self.node.op, node=self.node.name, detail=detail, feature=feature)

    def empty_error(self, detail: str, tensor: tuple[str, TensorType] | None = None) -> ShapeError:
        """What a lowering raises for a zero-size tensor it cannot give a meaning: a ShapeError
        naming the op, the node and the zero-size tensor (`tensor`, else the node's first)."""
        return zero_size_error(self.node, self.in_types, self.out_types, detail, tensor)

    # --- emitting -----------------------------------------------------------------------
    def temp(self, ttype: TensorType, hint: str = "tmp") -> str:
        """A new intermediate value of type ttype, private to this lowering."""
        name = self._new_name(f"{self.node.name}/{hint}")
        self.temps[name] = ttype
        return name

    def emit(self, te: TensorExpr, inputs: list[str] | tuple[str, ...], output: str) -> None:
        """Emits a kernel computing output = te(inputs): a one-stage spec (rendered by the render stage)."""
        from ..ir.plan import ComputeStep
        from ..ir.spec import KernelSpec, Stage
        if len(inputs) != len(te.inputs):
            raise ValueError(f"{te.name}: {len(te.inputs)} inputs expected, {len(inputs)} given")
        if te.reduce is not None and te.reduce.extent == 0 and te.output.size > 0:
            # a reduction over an empty set: every output is the epilogue of the combiner's identity
            mapped = without_empty_reduction(te)
            if mapped is None:
                raise self.empty_error(f"{te.reduce.op} over an empty set has no value")
            te = mapped
        if te.output.size > 0:
            # every output element would read an element of a zero-size input: none exists
            for arg in sorted(unguarded_loads(te)):
                if te.inputs[arg].size == 0:
                    raise self.empty_error("its non-empty output reads elements of it (every index into an "
                                           "empty axis is out of range)", tensor=(inputs[arg], te.inputs[arg]))
        self._check_declared(output, te.output)
        self._emit(ComputeStep(KernelSpec(stages=(Stage(te, tuple(inputs), output),), ops=(self.node.name,))))

    def _check_declared(self, output: str, made: TensorType) -> None:
        """ShapeError where the lowering makes one of the node's outputs in another shape than the
        graph declares it (ONNX's inference, which the graph's types come from, trusting an
        attribute the inputs contradict): the plan would otherwise hold two shapes for one value."""
        if output in self.node.outputs:
            declared = self.out_types[self.node.outputs.index(output)]
            if declared is not None and tuple(declared.shape) != tuple(made.shape):
                raise ShapeError(f"output {output!r} is declared {list(declared.shape)}, but the node's inputs and "
                                 f"attributes make it {list(made.shape)}", node=self.node.name)

    def emit_stages(self, stages, shared: tuple[str, ...]) -> None:
        """Emits one kernel of several stages ((te, inputs, output), in order) whose values named in
        `shared` are kept in shared memory and the others in registers (a row chain: softmax's
        statistics, compiler/kinds/resident_rows.py); it writes the last stage's output."""
        from ..ir.plan import ComputeStep
        from ..ir.spec import KernelSpec, Level, Stage
        st = tuple(Stage(te, tuple(ins), out) for te, ins, out in stages)
        self._check_declared(st[-1].output, st[-1].expr.output)
        carried = tuple((s.output, Level.SHARED if s.output in shared else Level.REGISTER) for s in st[:-1])
        self._emit(ComputeStep(KernelSpec(stages=st, carried=carried, ops=(self.node.name,))))

    def emit_kernel(self, kernel) -> None:
        """Emits a hand-written kernel (see compiler/ir/kernel.py) as an extern spec."""
        from ..ir.plan import ComputeStep
        from ..ir.spec import ExternSpec
        self._emit(ComputeStep(ExternSpec(_with_ops(kernel, self.node.name))))

    def lower_as(self, op: str, inputs, out_type: TensorType, attrs=(), *, out: str | None = None,
                 opset: int = 18) -> str:
        """Lowers standard op `op` and returns the name of what it wrote: `out`, else a new
        temporary of `out_type`. `inputs` are this node's inputs by number (a number it lacks is an
        absent optional input) or (name, type) of values this lowering made. An op of another domain
        that is a standard one and a map (com.microsoft FusedConv, compiler/ops/contrib_fused.py)
        reuses the standard lowering, and fusion joins the map."""
        out = out or self.temp(out_type, op.lower())
        names, types, consts = [], [], []
        for i in inputs:
            if isinstance(i, int):
                given = self.has_input(i)
                names.append(self.node.inputs[i] if given else "")
                types.append(self.input(i) if given else None)
                consts.append(self.const(i) if given else None)
            else:
                names.append(i[0])
                types.append(i[1])
                consts.append(None)
        child = LowerCtx(Node(op, self.node.name, tuple(names), (out,), tuple(attrs)), types, [out_type], consts,
                         opset, self._emit, self._new_name)
        lookup(op, node=self.node.name).lower(child)
        self.temps.update(child.temps)
        return out

    def donate(self, pairs: list[tuple[int, int]]) -> bool:
        """Whether each output o of `pairs` [(input i, output o)] may be written into input i's
        buffer, and if so records it (Plan.donated): the compilation asked for it (--kv-cache
        in-place), each input is a graph input only this node reads, each output a graph output
        of its type. All or none. A lowering given True writes the outputs' changed elements
        only and never reads those inputs (their bytes are the outputs' now)."""
        if self._donate is None or not all(self.has_input(i) and self.node.has_output(o) for i, o in pairs):
            return False
        return self._donate([(self.in_name(i), self.out_name(o)) for i, o in pairs])

    def alias(self, output: str, source: str) -> None:
        """output is source's bytes under output's type (Reshape, Squeeze, ...): no kernel. A
        ShapeError where the graph declares the output with another element count than its source
        has (a stale value_info: the bytes cannot be both)."""
        from ..ir.plan import AliasStep
        made = self.temps.get(source) or next(
            (t for name, t in zip(self.node.inputs, self.in_types) if name == source and t is not None), None)
        if output in self.node.outputs and made is not None:
            declared = self.out_types[self.node.outputs.index(output)]
            if declared is not None and declared.size != made.size:
                raise ShapeError(f"output {output!r} is declared {list(declared.shape)} ({declared.size} elements), "
                                 f"but it is a view of {source!r}, {list(made.shape)} ({made.size} elements)",
                                 node=self.node.name)
        self._emit(AliasStep(output, source))


def _with_ops(kernel, node_name: str):
    import dataclasses
    return dataclasses.replace(kernel, ops=kernel.ops + (node_name,)) if node_name not in kernel.ops else kernel


def zero_size_error(node: Node, in_types, out_types, detail: str,
                    tensor: tuple[str, TensorType] | None = None) -> ShapeError:
    """ShapeError for `node` naming the zero-size `tensor` (name, type), by default the node's
    first (inputs first), and its shape."""
    named = [(n, t) for n, t in zip(node.inputs, in_types) if n and t is not None] + \
        [(n, t) for n, t in zip(node.outputs, out_types) if n and t is not None]
    empty = tensor or next(((n, t) for n, t in named if t.size == 0), None)
    what = f"the zero-size tensor '{empty[0]}' {list(empty[1].shape)}" if empty else "a zero-size tensor"
    return ShapeError(f"{node.op} cannot take {what}: {detail}", node=node.name,
                      hint="ONNX gives this no defined result; make the dimension non-zero")


def dtype_of_code(code: int, node: Node) -> DType:
    """The DType of ONNX element-type code `code`; UnsupportedOp (on `node`) for the types Brickyard
    does not have (float8, int4, string, ...)."""
    try:
        return DType.from_onnx(int(code))
    except TypeError as e:
        raise UnsupportedOp(node.op, node=node.name, detail=str(e)) from None


def np_dtype(t: TensorType) -> np.dtype:
    return t.dtype.np


__all__ = ["register", "lookup", "LowerCtx", "OpDef", "REGISTRY", "supported_ops", "DType", "dtype_of_code"]
