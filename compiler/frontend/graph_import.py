"""ONNX graph -> IR Graph: every value typed statically, constants folded, subgraphs imported.

Subgraphs (If branches, Loop and Scan bodies) are self-contained for constants: a constant they
read from an enclosing scope is copied into their own `constants`; `Graph.outer` lists only the
runtime values they read from enclosing scopes."""
from __future__ import annotations

import dataclasses

import numpy as np
import onnx
from onnx import numpy_helper

from ..errors import ModelError, ShapeError, UnsupportedOp
from ..ir.dtypes import DType
from ..ir.graph import Constant, Graph, Node, TensorType
from ..ops.registry import lookup
from .convert import external_array, plain_attribute, static_type, tensor_to_array, type_proto
from .fold import constant_node_value, defers, fold_with_reference, shape_op_axes, shape_op_value, within_inputs
from .element_bounds import MAX_ELEMENTS, Bounds, element_bounds, exact_bounds
from . import loop_appends, sequences

# Constant inputs up to this many elements are handed to ONNX's inference (Reshape's shape, Slice's
# starts, ...); larger ones (weights) are never needed for shapes and are costly to serialise.
_INFER_DATA_ELEMENTS = 4096
CONTROL_FLOW = ("If", "Loop", "Scan")


class ImportContext:
    """Model-wide state of one import: opsets, limits, warnings, names taken so far."""

    def __init__(self, opsets: dict[str, int], opset_imports, ir_version: int, max_fold_elements: int,
                 read_names: set[str] | None = None, max_trip_count: int | None = None,
                 external: dict[str, bytes] | None = None, selection_caps: dict[str, int] | None = None,
                 defer_fold_elements: int | None = None, weight_reads: frozenset[str] = frozenset()):
        """`defer_fold_elements`: the size past which a broadcast of constants is deferred
        (fold.defers); None folds every one (--disable defer_folds)."""
        self.opsets = opsets
        # NonMaxSuppression nodes (by name) whose max_output_boxes_per_class becomes the most rows
        # their readers read (selection_caps.py)
        self.selection_caps = selection_caps or {}
        self.external = external or {}   # main-graph initializers' bytes kept out of the proto
        self.max_trip_count = max_trip_count  # the user's bound on loops whose iteration count is dynamic
        self.read_names = read_names  # every value some node or graph output reads; None: assume all
        self.opset_imports = list(opset_imports)
        self.ir_version = ir_version
        self.max_fold_elements = max_fold_elements
        self.defer_fold_elements = defer_fold_elements
        # values of constants only computations on constants read (onnx_import._weight_reads)
        self.weight_reads = weight_reads
        self.deferred: list[str] = []     # the values whose folds were deferred, in import order
        self.warnings: list[str] = []
        self.node_names: set[str] = set()
        self._schemas: dict = {}
        self._type_protos: dict[TensorType, onnx.TypeProto] = {}

    @property
    def opset(self) -> int:
        """Version of the default-domain operator set."""
        return self.opsets.get("", 0)

    def unique_node_name(self, name: str, op: str, index: int) -> str:
        """The node's own name if still free, else a suffixed one (ONNX names may be empty or repeat)."""
        base = name or f"{op}_{index}"
        out, k = base, 1
        while out in self.node_names:
            out, k = f"{base}__{k}", k + 1
        self.node_names.add(out)
        return out

    def schema(self, op: str, domain: str, node: str):
        """ONNX's schema of op at the model's opset of its domain (cached)."""
        key = (op, domain)
        if key not in self._schemas:
            try:
                self._schemas[key] = onnx.defs.get_schema(op, self.opsets.get(domain, 1), domain)
            except onnx.defs.SchemaError:
                raise ShapeError(f"ONNX has no schema for {domain or 'ai.onnx'}::{op} at opset "
                                 f"{self.opsets.get(domain)}, so its output shapes cannot be inferred",
                                 node=node, hint="export the model with a newer opset or replace the op") from None
        return self._schemas[key]

    def type_proto(self, t: TensorType) -> onnx.TypeProto:
        """A TypeProto for t (cached: the same types recur on every node)."""
        tp = self._type_protos.get(t)
        if tp is None:
            tp = self._type_protos[t] = type_proto(t)
        return tp


class Scope:
    """The values visible in one graph: its own, and (through `parent`) its enclosing graphs'."""

    def __init__(self, parent: "Scope | None" = None):
        self.parent = parent
        self.types: dict[str, TensorType] = {}
        self.consts: dict[str, np.ndarray] = {}
        self.outer: dict[str, None] = {}  # runtime values read from enclosing scopes, in first-use order
        # values that may have an axis whose length is only known at run time (a bounded Loop's scan
        # outputs, NonMaxSuppression's selected boxes, and what is computed from them): value -> the
        # static bounds of such axes (the lowering finds the axis: passes/bounded_rows.py)
        self.bounded: dict[str, frozenset[int]] = {}
        # small integer values known only at run time: each element's (lower, upper) bounds and
        # source, the value and axis it measures (element_bounds.py)
        self.element_bounds: dict[str, Bounds] = {}
        # sequence values, resolved at import: each the tensor values it holds (sequences.py)
        self.sequences: dict[str, tuple[str, ...]] = {}
        # optionals, resolved at import the same way: each its element's value, "" when empty
        self.optionals: dict[str, str] = {}
        # sequences a Loop with a run-time iteration count appended to: each its elements stacked
        # ([length, *element], a scan output of run-time length: loop_appends.py)
        self.stacked: dict[str, str] = {}
        # values computed from constants alone whose fold was deferred (fold.defers): value -> its
        # node's (opdef, node, opset, output types) and the elements of the constants it is computed
        # from; the node stays in the graph, and a fold that reads the value evaluates it then
        self.deferred: dict[str, tuple] = {}
        self.source_elements: dict[str, int] = {}
        self._evaluated: dict[str, np.ndarray] = {}

    def folding_input(self, name: str) -> np.ndarray | None:
        """The value of `name` for a fold: a constant's, or a deferred value's, evaluated once (with
        what it reads) and kept for the rest of the import; None for a value computed at run time,
        or a deferred one its op's reference cannot evaluate (the reader then runs too)."""
        if name in self.consts:
            return self.consts[name]
        if name not in self.deferred:
            return None
        if name not in self._evaluated:
            opdef, node, opset, out_types = self.deferred[name]
            inputs = [self.folding_input(i) if i else None for i in node.inputs]
            arrays = None
            if all(a is not None for i, a in zip(node.inputs, inputs) if i):
                arrays, _ = fold_with_reference(opdef, node, inputs, opset, out_types)
            for k, o in enumerate(node.outputs):
                if o:
                    self._evaluated[o] = arrays[k] if arrays is not None else None
        return self._evaluated[name]

    def sources(self, name: str) -> int:
        """Elements of the constants `name` is computed from (its own, for a constant)."""
        return self.source_elements[name] if name in self.deferred else int(self.consts[name].size)

    def sequence(self, name: str) -> tuple[str, ...] | None:
        """The tensor values the sequence `name` holds (here or in an enclosing scope); None if not a sequence."""
        if name in self.sequences:
            return self.sequences[name]
        return self.parent.sequence(name) if self.parent is not None else None

    def stacked_sequence(self, name: str) -> str | None:
        """The stacked elements of the sequence `name` a Loop appended to (here or in an enclosing
        scope); None if not such a sequence."""
        if name in self.stacked:
            return self.stacked[name]
        return self.parent.stacked_sequence(name) if self.parent is not None else None

    def optional(self, name: str) -> str | None:
        """The value the optional `name` holds ("" when empty; here or in an enclosing scope); None if not an optional."""
        if name in self.optionals:
            return self.optionals[name]
        return self.parent.optional(name) if self.parent is not None else None

    def bounds_of(self, name: str) -> Bounds | None:
        """Each element's (lower, upper, source) of `name`: its value twice where constant (an integer
        or a bool), else what element_bounds found (here or in an enclosing scope), else None."""
        if name in self.consts:
            a = self.consts[name]
            return exact_bounds(a) if a.dtype.kind in "iub" and a.size <= MAX_ELEMENTS else None
        if name in self.element_bounds:
            return self.element_bounds[name]
        return self.parent.bounds_of(name) if self.parent is not None else None

    def bounds(self, name: str) -> frozenset[int]:
        """The bounds of `name`'s run-time axes (here or in an enclosing scope); empty when it has none."""
        if name in self.bounded:
            return self.bounded[name]
        return self.parent.bounds(name) if self.parent is not None else frozenset()

    def resolve(self, name: str) -> bool:
        """Makes `name` visible here (borrowing it from an enclosing scope if needed); False if unknown."""
        if name in self.types:
            return True
        if self.parent is None or not self.parent.resolve(name):
            return False
        self.types[name] = self.parent.types[name]
        if name in self.parent.consts:
            self.consts[name] = self.parent.consts[name]
        else:
            self.outer[name] = None
        return True

    def fresh(self, base: str) -> str:
        """`base`, or `base~k` where a value of that name is already visible: a name for a new value."""
        out, k = base, 1
        while self.visible(out):
            out, k = f"{base}~{k}", k + 1
        return out

    def visible(self, name: str) -> bool:
        """Whether `name` is defined here or in an enclosing scope (without borrowing it)."""
        return name in self.types or (self.parent is not None and self.parent.visible(name))


def import_graph(g: onnx.GraphProto, ctx: ImportContext, scope: Scope,
                 inputs: list[tuple[str, TensorType]], name: str) -> Graph:
    """Imports one graph whose runtime inputs have the given static types."""
    for n, t in inputs:
        scope.types[n] = t
    input_names = {n for n, _ in inputs}
    for init in g.initializer:
        if init.name in input_names:
            continue  # an older model lists initializers among inputs; the caller already chose
        data = ctx.external.get(init.name) if scope.parent is None else None   # the main graph's
        a = external_array(init, data) if data is not None else tensor_to_array(init, op="Initializer", node=init.name)
        scope.consts[init.name] = a
        scope.types[init.name] = TensorType.of(a)
    if len(g.sparse_initializer):
        raise UnsupportedOp("SparseInitializer", node=g.sparse_initializer[0].values.name,
                            detail="sparse initializers are not supported; store the weight densely")
    nodes = _import_nodes(g.node, ctx, scope)
    outputs = tuple(o.name for o in g.output)
    for o in outputs:
        sequences.refuse_sequence_boundary(o, scope, name, main=scope.parent is None)
        if not scope.resolve(o):
            raise ModelError(f"graph '{name}' has output '{o}', which nothing defines",
                             hint="the model is malformed; re-export it")
    return finish_graph(name, tuple(n for n, _ in inputs), outputs, nodes, scope)


def finish_graph(name: str, inputs: tuple[str, ...], outputs: tuple[str, ...], nodes: list[Node],
                 scope: Scope) -> Graph:
    """Builds the Graph: only the constants and outer values that remain in use, every value typed."""
    used: set[str] = set(outputs)
    for n in nodes:
        used.update(n.inputs)
        for sg in n.subgraphs():
            used.update(sg.outer)
    defined = set(inputs)
    for n in nodes:
        defined.update(o for o in n.outputs if o)
    consts = {k: v for k, v in scope.consts.items() if k in used and k not in defined}
    outer = tuple(k for k in scope.outer if k in used)
    typed = defined | set(consts) | set(outer)
    return Graph(
        name=name, inputs=inputs, outputs=outputs, nodes=tuple(nodes),
        types=tuple(sorted((k, scope.types[k]) for k in typed)),
        constants=tuple(sorted((k, Constant.from_array(v)) for k, v in consts.items())),
        outer=outer,
    )


def _import_nodes(protos, ctx: ImportContext, scope: Scope) -> list[Node]:
    nodes: list[Node] = []
    for i, pn in enumerate(protos):
        if sequences.handles(pn, scope):
            name = ctx.unique_node_name(pn.name, pn.op_type, i)
            nodes += sequences.import_sequence_node(pn, name, ctx, scope,
                                                    lambda ps: _import_nodes(ps, ctx, scope))
            continue
        appended = _appended_values(pn, scope)
        if appended:
            nodes += loop_appends.import_appending_loop(
                pn, pn.name or f"Loop_{i}", appended, lambda v: scope.types[v], scope.fresh,
                ctx.opset, lambda ps: _import_nodes(ps, ctx, scope))
            continue
        inlined = _inline_constant_if(pn, i, ctx, scope)
        if inlined is not None:
            nodes += inlined
            continue
        node = _import_node(pn, i, ctx, scope)
        if node is not None:
            nodes.append(node)
    return nodes


def _appended_values(pn: onnx.NodeProto, scope: Scope) -> dict[int, loop_appends.Append]:
    """A Loop's carried values that its body only appends to (loop_appends.py); empty for any other node."""
    if pn.op_type != "Loop" or pn.domain not in ("", "ai.onnx"):
        return {}
    return loop_appends.appended_values(pn, [scope.types[i] if i and scope.resolve(i) else None
                                             for i in pn.input[2:]])


def _inline_constant_if(pn: onnx.NodeProto, index: int, ctx: ImportContext, scope: Scope) -> list[Node] | None:
    """An If whose predicate is known at import is its chosen branch, spliced into the enclosing
    graph; the other branch is never imported (exporters guard shape arithmetic this way, and the
    branch not taken may not even type-check for this model's shapes). None: not such an If."""
    if pn.op_type != "If" or pn.domain not in ("", "ai.onnx") or not pn.input or not scope.resolve(pn.input[0]):
        return None
    if pn.input[0] not in scope.consts:
        return None
    cond = np.asarray(scope.consts[pn.input[0]])
    if cond.size != 1:
        return None
    name = ctx.unique_node_name(pn.name, "If", index)
    branch = next((a.g for a in pn.attribute
                   if a.name == ("then_branch" if bool(cond.reshape(-1)[0]) else "else_branch")), None)
    if branch is None:
        raise ModelError("If has no then_branch or else_branch", node=name, hint="the model is malformed; re-export it")
    if len(branch.output) != len(pn.output):
        raise ModelError(f"If branch '{branch.name}' has {len(branch.output)} outputs for {len(pn.output)}", node=name)
    defined = {init.name for init in branch.initializer} | {o for n in branch.node for o in n.output if o}
    if any(scope.visible(v) for v in defined):
        return None   # a branch name shadows an enclosing one: keep the branch a scope of its own
    for init in branch.initializer:
        a = tensor_to_array(init, op="Initializer", node=init.name)
        scope.consts[init.name] = a
        scope.types[init.name] = TensorType.of(a)
    nodes = _import_nodes(branch.node, ctx, scope)
    for k, (src, dst) in enumerate(zip((o.name for o in branch.output), pn.output)):
        if not dst:
            continue
        if sequences.alias(scope, dst, src):      # a sequence or an optional, resolved at import
            continue
        if not scope.resolve(src):
            raise ModelError(f"If branch '{branch.name}' has output '{src}', which nothing defines", node=name)
        if src in scope.consts:
            _set_const(scope, dst, scope.consts[src], name, "If")
        else:
            nodes.append(Node("Identity", f"{name}/out{k}", (src,), (dst,)))
            scope.types[dst] = scope.types[src]
    return nodes


def _import_node(pn: onnx.NodeProto, index: int, ctx: ImportContext, scope: Scope) -> Node | None:
    """Types (or folds) one node; returns the IR node, or None when its outputs became constants."""
    op = pn.op_type
    domain = "" if pn.domain == "ai.onnx" else pn.domain
    name = ctx.unique_node_name(pn.name, op, index)
    for inp in pn.input:
        if inp and not scope.resolve(inp):
            raise ModelError(f"node reads '{inp}', which no earlier node, input or initializer defines",
                             node=name, hint="the model is malformed; re-export it")
    if name in ctx.selection_caps and domain == "" and op == "NonMaxSuppression" and len(pn.input) > 2:
        pn = _capped_selection(pn, name, ctx.selection_caps[name], scope)
    if domain == "" and op == "Constant":
        a = constant_node_value(pn, name)
        _set_const(scope, pn.output[0], a, name, op)
        return None
    if domain == "" and op in ("Shape", "Size"):
        value = shape_op_value(op, pn, scope.types[pn.input[0]])
        if not _reports_bounded_extent(pn, op, scope):
            _set_const(scope, pn.output[0], value, name, op)
            return None
        # an extent it reports may be known only at run time: the lowering reads it (ops/shape_ops.py)
        node = Node(op, name, tuple(pn.input), tuple(pn.output),
                    tuple(sorted((a.name, plain_attribute(a, op=op, node=name)) for a in pn.attribute)), domain)
        _set_types(scope, node.outputs, [TensorType(DType.int64, value.shape)])
        # at most the static extents (the bounds), at least 0 on an axis of run-time length, which
        # is its source's real extent
        shape, run_time = scope.types[pn.input[0]].shape, scope.bounds(pn.input[0])
        found = element_bounds(pn, [], value.shape, static_shape=(
            tuple(0 if e in run_time else e for e in shape), shape,
            tuple((pn.input[0], a) if e in run_time else None for a, e in enumerate(shape))))
        if found is not None:
            scope.element_bounds[pn.output[0]] = found
        return node

    opdef = lookup(op, domain, node=name)
    in_types = [scope.types[i] if i else None for i in pn.input]
    attrs, graph_attrs = [], []
    for a in pn.attribute:
        if a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
            graph_attrs.append(a)
        else:
            attrs.append((a.name, plain_attribute(a, op=op, node=name)))

    if graph_attrs:
        if domain != "" or op not in CONTROL_FLOW:
            raise UnsupportedOp(op, node=name, domain=domain,
                                detail="only If, Loop and Scan may carry subgraphs")
        bodies, out_types = _import_control_flow(pn, op, name, attrs, in_types, graph_attrs, ctx, scope)
        outputs = tuple(pn.output)
        if op == "If" and "run_time_outputs" in bodies:     # their real extents, outputs of the If's own
            outputs += tuple(scope.fresh(f"{name}#count{k}") for k, _, _, _ in bodies["run_time_outputs"])
        elif len(out_types) > len(outputs):      # a bounded Loop's iteration count (see _trip_bound)
            outputs += (scope.fresh(f"{name}#iterations"),)
            for v in outputs[len(pn.input) - 2:-1]:   # its scan outputs
                if v:
                    scope.bounded[v] = frozenset({bodies["max_trip_count"]})
        node = Node(op, name, tuple(pn.input), outputs,
                    tuple(sorted(attrs + list(bodies.items()), key=_by_name)), domain)
        _set_types(scope, outputs, out_types)
        return node

    node = Node(op, name, tuple(pn.input), tuple(pn.output), tuple(sorted(attrs, key=_by_name)), domain)
    all_const = opdef.foldable and all(i == "" or i in scope.consts or i in scope.deferred for i in pn.input)
    try:
        # a bounded op on constants folds to its exact extent: its reference gives the types
        out_types = None if opdef.bounded and all_const else _infer(pn, op, domain, name, in_types, ctx, scope)
    except ShapeError:
        if not all_const:
            raise
        out_types = None  # the reference may still evaluate it (and so give the types)
    if getattr(out_types, "attrs", ()):     # what the op's infer decided (registry.Inferred)
        node = dataclasses.replace(node, attrs=tuple(sorted(node.attrs + out_types.attrs, key=_by_name)))
    if out_types is not None and any(o and t is None for o, t in zip(pn.output, out_types)):
        node = dataclasses.replace(node, outputs=tuple(o if t is not None else ""
                                                       for o, t in zip(pn.output, out_types)))
    opset = ctx.opset if domain == "" else ctx.opsets.get(domain, 1)
    source = sum(scope.sources(i) for i in pn.input if i) if all_const else 0
    # a fold past the size limit that rewrites a weight (fold.within_inputs) replaces what it reads
    rewrites_weight = all_const and within_inputs(pn.input, in_types, out_types, ctx.weight_reads,
                                                  ctx.max_fold_elements, scope.deferred)
    if all_const and ctx.defer_fold_elements is not None and defers(out_types, source, ctx.defer_fold_elements):
        for o in pn.output:
            if o:
                scope.deferred[o] = (opdef, node, opset, out_types)
                scope.source_elements[o] = source
                ctx.deferred.append(o)
    elif all_const and (out_types is None or rewrites_weight or
                        all(t is None or t.size <= ctx.max_fold_elements for t in out_types)):
        inputs = [scope.folding_input(i) if i else None for i in pn.input]
        arrays, why = (fold_with_reference(opdef, node, inputs, opset, out_types)
                       if all(a is not None for i, a in zip(pn.input, inputs) if i) else
                       (None, "a deferred input could not be evaluated"))
        if arrays is not None and (all(a.size <= ctx.max_fold_elements for a in arrays) or rewrites_weight):
            for o, a in zip(pn.output, arrays):
                if o:
                    _set_const(scope, o, a, name, op)
            return None
        if out_types is None:  # neither inference nor evaluation gives the types: re-raise inference's error
            out_types = _infer(pn, op, domain, name, in_types, ctx, scope)
        if why:
            ctx.warnings.append(f"node {name} ({op}) was not constant-folded: {why}")
    taint = frozenset().union(*(scope.bounds(i) for i in pn.input if i))
    if taint:
        # an axis of a new extent below a bound may be a run-time one's first rows (a slice from 0)
        seen = {e for i in pn.input if i and scope.bounds(i) for e in scope.types[i].shape}
        # a Concat along a run-time axis: the sum of the bounds (ops/movement.py joins the real rows)
        joined = ({out_types[0].shape[_axis_attr(pn, out_types[0].rank)]}
                  if op == "Concat" and domain == "" and out_types and out_types[0] is not None else set())
        for o, t in zip(pn.output, out_types):
            if o and t is not None:
                scope.bounded[o] = taint | joined | {e for e in t.shape if e not in seen and e < max(taint)}
    for k, bound in getattr(out_types, "run_time", ()):     # the extent of another value (registry.Inferred)
        scope.bounded[pn.output[k]] = taint | {bound}
    if opdef.bounded and len(out_types) > len(pn.output):
        # its run-time extent, an output the op writes (OpDef.bounded)
        count = scope.fresh(f"{name}#count")
        axes = opdef.bounded_axes(node, in_types)
        k, axis = axes[0]
        # the bound its reference pads to, as a bounded Loop's max_trip_count
        extent = ("max_extent", out_types[k].shape[axis])
        node = dataclasses.replace(node, outputs=node.outputs + (count,),
                                   attrs=tuple(sorted(node.attrs + (extent,), key=_by_name)))
        for k, axis in axes:
            if k < len(pn.output) and pn.output[k]:
                scope.bounded[pn.output[k]] = taint | {out_types[k].shape[axis]}
        _set_types(scope, node.outputs, out_types)
        return node
    _set_types(scope, pn.output, out_types)
    t = out_types[0] if out_types else None
    if pn.output and pn.output[0] and t is not None and (t.dtype.is_int or t.dtype is DType.bool):
        found = element_bounds(pn, [scope.bounds_of(i) if i else None for i in pn.input], t.shape)
        if found is not None and not np.all(np.isinf(found[1])):
            scope.element_bounds[pn.output[0]] = found
    return node


def _axis_attr(pn: onnx.NodeProto, rank: int) -> int:
    axis = next((a.i for a in pn.attribute if a.name == "axis"), 0)
    return axis + rank if axis < 0 else axis


def _reports_bounded_extent(pn: onnx.NodeProto, op: str, scope: Scope) -> bool:
    """Whether Shape or Size reports an axis of its input that may have a length known only at
    run time (its static extent is such a value's bound): it does not fold to the static type."""
    bounds = scope.bounds(pn.input[0])
    if not bounds:
        return False
    t = scope.types[pn.input[0]]
    axes = shape_op_axes(pn, t.rank) if op == "Shape" else range(t.rank)
    return any(t.shape[a] in bounds for a in axes)


def _by_name(kv):
    return kv[0]


def _capped_selection(pn: onnx.NodeProto, name: str, cap: int, scope: Scope) -> onnx.NodeProto:
    """The NonMaxSuppression node reading `cap` as its max_output_boxes_per_class (a new constant)."""
    capped = onnx.NodeProto()
    capped.CopyFrom(pn)
    value = scope.fresh(f"{name}#max_output")
    _set_const(scope, value, np.array([cap], np.int64), name, pn.op_type)
    capped.input[2] = value
    return capped


def _set_const(scope: Scope, name: str, a: np.ndarray, node: str, op: str) -> None:
    try:
        scope.types[name] = TensorType.of(a)
    except TypeError as e:
        raise UnsupportedOp(op, node=node, detail=f"output '{name}': {e}") from None
    scope.consts[name] = a


def _set_types(scope: Scope, outputs, types) -> None:
    for o, t in zip(outputs, types):
        if o:
            scope.types[o] = t


def _infer(pn: onnx.NodeProto, op: str, domain: str, name: str, in_types, ctx: ImportContext,
           scope: Scope) -> list[TensorType | None]:
    """Static output types from ONNX's own per-node inference, with small constant inputs as data
    (for an op ONNX has no schema for, its registry entry's own rule)."""
    opdef = lookup(op, domain, node=name)
    if opdef.infer is not None:
        consts = [scope.consts.get(i) if i else None for i in pn.input]
        if opdef.infer_bounds:    # it sizes an output by an input's bounds (TopK's K)
            found = opdef.infer(pn, in_types, consts, [scope.bounds_of(i) if i else None for i in pn.input])
        else:
            found = opdef.infer(pn, in_types, consts)
        if found is not None:     # else ONNX's own inference (the op's rule declined)
            return found
    schema = ctx.schema(op, domain, name)
    pn = _with_default_attributes(pn, schema)
    types = {i: ctx.type_proto(t) for i, t in zip(pn.input, in_types) if i}
    data = {}
    for i in pn.input:
        a = scope.consts.get(i) if i else None
        if a is not None and a.size <= _INFER_DATA_ELEMENTS:
            data[i] = numpy_helper.from_array(a, i)
    try:
        res = onnx.shape_inference.infer_node_outputs(schema, pn, types, data,
                                                      opset_imports=ctx.opset_imports, ir_version=ctx.ir_version)
    except Exception as e:  # InferenceError and friends: the node is inconsistent with its inputs
        shown = ", ".join(f"{i}: {t}" for i, t in zip(pn.input, in_types) if i)
        raise ShapeError(f"shape inference failed for {op}: {e} (inputs {shown})", node=name,
                         hint="check the model with onnxruntime; fix input shapes with --input-shape") from None
    if any(o and (o not in res or not _is_static(res[o])) for o in pn.output):
        # Function-bodied ops (GroupNormalization, MVN, ...) are typed only when their body is
        # expanded, which whole-model inference does and per-node inference does not.
        res = {**res, **_infer_via_model(pn, types, data, ctx)}
        if op in _SHAPE_PRESERVING and pn.output[0] and not _is_static(res.get(pn.output[0], onnx.TypeProto())):
            # ONNX's own function body for these fails inference at some opsets; Y is X's shape.
            res[pn.output[0]] = types[pn.input[0]]
    out = []
    for k, o in enumerate(pn.output):
        if not o:
            out.append(None)
            continue
        unread = ctx.read_names is not None and o not in ctx.read_names
        if o not in res:
            if unread:  # an output nobody reads may stay untyped: it is dropped
                out.append(None)
                continue
            raise ShapeError(f"ONNX inferred no type for output {k} ('{o}') of {op}", node=name,
                             hint="Brickyard needs a static shape for every value")
        try:
            out.append(static_type(res[o], op=op, node=name, what=f"output {k} ('{o}')"))
        except ShapeError as e:
            if unread:
                out.append(None)
                continue
            runtime_ints = [i for i, t in zip(pn.input, in_types)
                            if i and t is not None and not t.dtype.is_float and i not in scope.consts]
            if runtime_ints:  # shape-like inputs computed at run time are the usual cause
                # the inputs' shapes are fixed by now (--input-shape): the data sizes this output
                e.hint = (f"its input(s) {', '.join(repr(i) for i in runtime_ints)} are computed from the data at "
                          "run time, so this output's shape is too. Brickyard sizes a value by its data only on one "
                          "axis, at an upper bound it can prove: the length of what NonZero, Compress, "
                          "NonMaxSuppression or TopK with a run-time K return, and shapes measured from such lengths "
                          "(docs/adding-ops.md, 'Outputs of run-time length'); a shape computed from values (a Resize "
                          "to a box's size) is not supported")
            raise
    return out


def _with_default_attributes(pn: onnx.NodeProto, schema) -> onnx.NodeProto:
    """The node with its schema's attribute defaults written out: per-node inference does not
    apply them (STFT's onesided, for one), so a defaulted attribute would be read as absent."""
    present = {a.name for a in pn.attribute}
    missing = [a.default_value for n, a in schema.attributes.items()
               if n not in present and a.default_value.type != onnx.AttributeProto.UNDEFINED]
    if not missing:
        return pn
    out = onnx.NodeProto()
    out.CopyFrom(pn)
    for d in missing:
        out.attribute.append(d)
    return out


_SHAPE_PRESERVING = {"MeanVarianceNormalization", "GroupNormalization", "LpNormalization"}


def _is_static(tp: onnx.TypeProto) -> bool:
    if not tp.HasField("tensor_type") or not tp.tensor_type.HasField("shape"):
        return False
    return all(d.HasField("dim_value") for d in tp.tensor_type.shape.dim)


def _infer_via_model(pn: onnx.NodeProto, types: dict, data: dict, ctx: ImportContext) -> dict:
    """Output types of one node by whole-model shape inference (expands function bodies)."""
    inputs = [onnx.helper.make_value_info(i, t) for i, t in types.items() if i not in data]
    g = onnx.helper.make_graph([pn], "one_node", inputs, [onnx.helper.make_value_info(o, onnx.TypeProto())
                                                          for o in pn.output if o],
                               initializer=list(data.values()))
    # The current IR version: function bodies use Constant attributes older IR versions lack.
    m = onnx.helper.make_model(g, opset_imports=list(ctx.opset_imports), ir_version=onnx.IR_VERSION)
    try:
        inferred = onnx.shape_inference.infer_shapes(m, strict_mode=False, data_prop=True)
    except Exception:  # the per-node answer stands; the caller reports what is missing
        return {}
    return {vi.name: vi.type for vi in list(inferred.graph.output) + list(inferred.graph.value_info)
            if vi.name in pn.output and _is_static(vi.type)}


# --- control flow --------------------------------------------------------------------------------

def _import_control_flow(pn, op, name, attrs, in_types, graph_attrs, ctx, scope):
    """Imports the bodies of If/Loop/Scan and derives the node's output types from them."""
    bodies = {a.name: a.g for a in graph_attrs if a.type == onnx.AttributeProto.GRAPH}
    if len(bodies) != len(graph_attrs):
        raise UnsupportedOp(op, node=name, detail="a list-of-graphs attribute is not supported")
    attr = dict(attrs)
    n_out = len(pn.output)
    if op == "If":
        then_scope, else_scope = Scope(scope), Scope(scope)
        then_g = _import_body(bodies["then_branch"], [], ctx, then_scope, f"{name}/then_branch", name, op)
        else_g = _import_body(bodies["else_branch"], [], ctx, else_scope, f"{name}/else_branch", name, op)
        for g in (then_g, else_g):
            if len(g.outputs) != n_out:
                raise ModelError(f"If branch '{g.name}' has {len(g.outputs)} outputs for {n_out}", node=name)
        out_types, run_time = [], []
        for k, (a, b) in enumerate(zip(then_g.outputs, else_g.outputs)):
            ta, tb = then_g.type_of(a), else_g.type_of(b)
            if ta != tb:
                axis = _one_axis_apart(ta, tb)
                if axis is None:
                    raise ShapeError(f"the If branches give output {k} different types: then {ta}, else {tb}",
                                     node=name, hint="Brickyard needs a static shape for every value, or "
                                     "branches that differ only in one axis's length (the output then has a "
                                     "length only known at run time); make both branches produce the same shape")
                # the output has the longer branch's extent; the shorter branch's rows past its own are zeros
                # and the real extent is the branch's (the lowering gives it: passes/lower.py)
                bound = max(ta.shape[axis], tb.shape[axis])
                run_time.append((k, axis, ta.shape[axis], tb.shape[axis]))
                then_g = _padded_output(then_g, k, axis, bound)
                else_g = _padded_output(else_g, k, axis, bound)
                ta = then_g.type_of(then_g.outputs[k])
                taint = frozenset({bound}) | then_scope.bounds(a) | else_scope.bounds(b)
            else:
                taint = then_scope.bounds(a) | else_scope.bounds(b)
                if taint:
                    run_time.append((k, -1, -1, -1))    # the lowering finds whether, and on which axis
            if taint and pn.output[k]:      # the If's output may have a run-time axis of these bounds
                scope.bounded[pn.output[k]] = taint
            out_types.append(ta)
        bodies = {"then_branch": then_g, "else_branch": else_g}
        if run_time:     # (output, axis, then's extent, else's extent), -1 where the lowering finds them
            bodies["run_time_outputs"] = tuple(run_time)
            out_types += [TensorType(DType.int64, ())] * len(run_time)
        return bodies, out_types

    if op == "Loop":
        carried = in_types[2:]
        body_in = [TensorType(DType.int64, ()), TensorType(DType.bool, ())] + list(carried)
        body = _import_body(bodies["body"], body_in, ctx, scope, f"{name}/body", name, op)
        n_carried = len(carried)
        n_scan = len(body.outputs) - 1 - n_carried
        if n_scan < 0 or n_out != n_carried + n_scan:
            raise ModelError(f"Loop body has {len(body.outputs)} outputs for {n_carried} carried values "
                             f"and {n_out} node outputs", node=name)
        out_types = []
        for k, t in enumerate(carried):
            tb = body.type_of(body.outputs[1 + k])
            if tb != t:
                raise ShapeError(f"loop-carried value {k} enters the Loop as {t} but the body gives {tb}",
                                 node=name, hint="Brickyard needs loop-carried values of a fixed shape")
            out_types.append(t)
        extra: dict = {}
        if n_scan:
            trips = _static_trip_count(pn, body, scope)
            if trips is None:
                trips = _trip_bound(pn, name, scope, ctx)
                # the Loop's last output counts the iterations that ran: the scan outputs are
                # sized to the bound and trimmed to that count on return
                extra = {"max_trip_count": trips}
            for k in range(n_scan):
                tb = body.type_of(body.outputs[1 + n_carried + k])
                out_types.append(TensorType(tb.dtype, (trips,) + tb.shape))
            if extra:
                out_types.append(TensorType(DType.int64, ()))
        return {"body": body, **extra}, out_types

    # Scan (opset 9+): states, then scan inputs sliced along their scan axis
    if ctx.opset < 9:
        raise UnsupportedOp("Scan", node=name, detail="Scan before opset 9 (batched, with sequence_lens) "
                            "is not supported; convert the model to a newer opset")
    n_scan_in = int(attr.get("num_scan_inputs", 0))
    n_state = len(in_types) - n_scan_in
    if n_scan_in <= 0 or n_state < 0:
        raise ModelError(f"Scan has num_scan_inputs={n_scan_in} for {len(in_types)} inputs", node=name)
    scan_in = in_types[n_state:]
    in_axes = attr.get("scan_input_axes", (0,) * n_scan_in)
    lengths, elems = set(), []
    for t, ax in zip(scan_in, in_axes):
        ax = ax + t.rank if ax < 0 else ax
        if not 0 <= ax < t.rank:
            raise ModelError(f"Scan input axis {ax} is out of range for {t}", node=name)
        lengths.add(t.shape[ax])
        elems.append(TensorType(t.dtype, t.shape[:ax] + t.shape[ax + 1:]))
    if len(lengths) != 1:
        raise ShapeError(f"Scan inputs have different sequence lengths {sorted(lengths)}", node=name)
    seq = lengths.pop()
    body = _import_body(bodies["body"], list(in_types[:n_state]) + elems, ctx, scope, f"{name}/body", name, op)
    n_scan_out = len(body.outputs) - n_state
    if n_scan_out < 0 or n_out != len(body.outputs):
        raise ModelError(f"Scan body has {len(body.outputs)} outputs for {n_out} node outputs", node=name)
    out_types = []
    for k, t in enumerate(in_types[:n_state]):
        tb = body.type_of(body.outputs[k])
        if tb != t:
            raise ShapeError(f"Scan state {k} enters as {t} but the body gives {tb}", node=name,
                             hint="Brickyard needs Scan states of a fixed shape")
        out_types.append(t)
    out_axes = attr.get("scan_output_axes", (0,) * n_scan_out)
    for k in range(n_scan_out):
        tb = body.type_of(body.outputs[n_state + k])
        ax = out_axes[k] + tb.rank + 1 if out_axes[k] < 0 else out_axes[k]
        if not 0 <= ax <= tb.rank:
            raise ModelError(f"Scan output axis {out_axes[k]} is out of range for {tb}", node=name)
        out_types.append(TensorType(tb.dtype, tb.shape[:ax] + (seq,) + tb.shape[ax:]))
    return {"body": body}, out_types


def _import_body(g: onnx.GraphProto, in_types: list[TensorType], ctx, scope, gname, node, op) -> Graph:
    """A region's body, imported in `scope` (an If branch's own) or a new scope inside it."""
    if len(g.input) != len(in_types):
        raise ModelError(f"{op} body '{gname}' has {len(g.input)} inputs, the op gives it {len(in_types)}",
                         node=node, hint="the model is malformed; re-export it")
    body_scope = scope if op == "If" else Scope(scope)
    return import_graph(g, ctx, body_scope, [(vi.name, t) for vi, t in zip(g.input, in_types)], gname)


def _one_axis_apart(a: TensorType, b: TensorType) -> int | None:
    """The one axis on which two types of one dtype and rank differ in extent, else None."""
    if a.dtype is not b.dtype or a.rank != b.rank:
        return None
    apart = [k for k in range(a.rank) if a.shape[k] != b.shape[k]]
    return apart[0] if len(apart) == 1 else None


def _padded_output(g: Graph, k: int, axis: int, extent: int) -> Graph:
    """`g` with output k padded with zeros to `extent` on `axis` (a Pad node at its end)."""
    out = g.outputs[k]
    t = g.type_of(out)
    if t.shape[axis] == extent:
        return g
    pads = np.zeros(2 * t.rank, np.int64)
    pads[t.rank + axis] = extent - t.shape[axis]
    padded, pads_name = f"{out}#padded", f"{out}#pads"
    shape = t.shape[:axis] + (extent,) + t.shape[axis + 1:]
    c = g.constant(out)
    if c is not None:    # a constant branch output (an exporter's empty result) padded here
        a = np.pad(c.array(), list(zip(pads[:t.rank], pads[t.rank:])))
        return dataclasses.replace(g, outputs=g.outputs[:k] + (padded,) + g.outputs[k + 1:],
                                   types=g.types + ((padded, TensorType(t.dtype, shape)),),
                                   constants=g.constants + ((padded, Constant.from_array(a)),))
    node = Node("Pad", f"{g.name}/pad{k}", (out, pads_name), (padded,), (("mode", "constant"),))
    return dataclasses.replace(g, nodes=g.nodes + (node,), outputs=g.outputs[:k] + (padded,) + g.outputs[k + 1:],
                               types=g.types + ((padded, TensorType(t.dtype, shape)),
                                                (pads_name, TensorType(DType.int64, pads.shape))),
                               constants=g.constants + ((pads_name, Constant.from_array(pads)),))


def _static_trip_count(pn: onnx.NodeProto, body: Graph, scope: Scope) -> int | None:
    """The trip count of a Loop that always runs exactly M iterations, else None."""
    m_name = pn.input[0] if len(pn.input) > 0 else ""
    cond_name = pn.input[1] if len(pn.input) > 1 else ""
    if not m_name or m_name not in scope.consts:
        return None
    if cond_name and not _is_true(scope.consts.get(cond_name)):
        return None
    cond_out = body.outputs[0]
    through_identity = {n.outputs[0]: n.inputs[0] for n in body.nodes if n.op == "Identity" and n.domain == ""}
    while cond_out in through_identity:
        cond_out = through_identity[cond_out]
    c = body.constant(cond_out)
    if cond_out != body.inputs[1] and not (c is not None and _is_true(c.array())):
        return None
    return max(int(np.asarray(scope.consts[m_name]).reshape(-1)[0]), 0)


def _trip_bound(pn: onnx.NodeProto, name: str, scope: Scope, ctx: ImportContext) -> int:
    """The most iterations a Loop with scan outputs and a run-time iteration count may run: its
    constant trip count when only the condition is dynamic, the trip count's upper bound where
    the import knows one, else the user's --max-trip-count."""
    if scope.parent is not None:
        raise UnsupportedOp("Loop", node=name, detail=(
            "a Loop whose scan outputs have a run-time length (a dynamic condition or trip count) inside another "
            "region's body is not supported: only the outermost graph can return a trimmed output"))
    m_name = pn.input[0] if len(pn.input) > 0 else ""
    if m_name and m_name in scope.consts:
        return max(int(np.asarray(scope.consts[m_name]).reshape(-1)[0]), 0)
    # a trip count computed from shapes (a list's length: the Shape of a value of run-time length)
    # is at most what its bounds say (element_bounds.py)
    found = scope.bounds_of(m_name) if m_name else None
    if found is not None and found[1].size == 1 and np.isfinite(found[1]).all():
        return max(int(found[1].reshape(-1)[0]), 0)
    if ctx.max_trip_count is None:
        raise UnsupportedOp("Loop", node=name, detail=(
            "this Loop has scan outputs and an iteration count only known at run time, so its scan outputs "
            "have no static shape; compile with --max-trip-count N (max_trip_count in the API's options) to size "
            "them for at most N iterations, trimmed to the real count on return"))
    return ctx.max_trip_count


def _is_true(a) -> bool:
    return a is not None and np.asarray(a).size == 1 and bool(np.asarray(a).reshape(-1)[0])
