"""Canonicalisations after import, each a pure Graph -> Graph that keeps the graph's output names
and recurses into subgraphs: Identity/Dropout removal, repeated nodes merged, Gemm -> MatMul + Add,
BatchNormalization folded into the Conv before it, ScatterND over a box of indices as a box update,
dead-node removal."""
from __future__ import annotations

import dataclasses

import numpy as np

from ..ir.graph import Constant, Graph, Node, TensorType
from ..ops.elementwise import ELEMENTWISE_OPS


def canonicalize(graph: Graph, boxes: bool = True, repeats: bool = True) -> tuple[Graph, int]:
    """All canonicalisations, in order (`boxes`: ScatterND over a box of indices as a ScatterBox,
    off under --disable scatter_box; `repeats`: repeated nodes merged, off under --disable
    merge_repeats), and how many nodes merge_repeats merged (for the report)."""
    off = {scatter_boxes: not boxes, merge_repeats: not repeats}
    merged = 0
    for step in (remove_identities, merge_repeats, gemm_to_matmul, fold_batchnorm_into_conv, scatter_boxes,
                 remove_dead_nodes):
        if off.get(step):
            continue
        before = node_count(graph) if step is merge_repeats else 0
        graph = step(graph)
        if step is merge_repeats:
            merged = before - node_count(graph)
    return graph, merged


def node_count(graph: Graph) -> int:
    """Nodes in the graph and, recursively, in its nodes' subgraphs."""
    return sum(1 + sum(node_count(sg) for sg in n.subgraphs()) for n in graph.nodes)


# --- Identity and inference-mode Dropout ---------------------------------------------------------

def remove_identities(graph: Graph) -> Graph:
    """Identity, and Dropout in inference mode, become renamings instead of copies."""
    graph = _map_subgraphs(graph, remove_identities)
    uses = _uses(graph)
    produced = {o for n in graph.nodes for o in n.outputs if o}
    outputs = set(graph.outputs)
    alias: dict[str, str] = {}    # y -> x: readers of y read x
    rename: dict[str, str] = {}   # x -> y: x is a node output that takes the graph output's name y
    new_consts: dict[str, Constant] = {}

    def sub(v: str) -> str:
        v = alias.get(v, v)
        return rename.get(v, v)

    keep = []
    for n in graph.nodes:
        if _is_identity(n, graph, uses):
            x, y = sub(n.inputs[0]), n.outputs[0]
            if y not in outputs:
                alias[y] = x
                continue
            if x in produced and x not in outputs and x not in rename:
                rename[x] = y
                continue
            c = graph.constant(x) if x not in produced else None
            if c is not None and x not in graph.inputs and x not in graph.outer:
                new_consts[y] = c
                continue
        keep.append(n)
    if not alias and not rename and not new_consts:
        return graph
    nodes = []
    for n in keep:
        m = {v: sub(v) for v in list(n.inputs) + _outer_reads(n) if v and sub(v) != v}
        nodes.append(dataclasses.replace(
            n, inputs=tuple(m.get(i, i) for i in n.inputs),
            outputs=tuple(rename.get(o, o) for o in n.outputs),
            attrs=_rename_attrs(n.attrs, m)))
    return _rebuild(graph, nodes, new_consts, {})


def _is_identity(n: Node, graph: Graph, uses: dict[str, int]) -> bool:
    if n.domain != "" or not n.inputs or not n.outputs or not n.inputs[0]:
        return False
    if n.op == "Identity":
        return True
    if n.op != "Dropout":
        return False
    if len(n.outputs) > 1 and n.outputs[1] and uses.get(n.outputs[1], 0):
        return False  # the mask is read
    if len(n.inputs) > 2 and n.inputs[2]:
        mode = graph.constant(n.inputs[2])
        return mode is not None and not bool(np.asarray(mode.array()).reshape(-1)[0])
    return True


# --- repeated nodes -------------------------------------------------------------------------------

# ops whose every run draws new values: two of them are not one
_DRAWS = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                    "Bernoulli"})
# what fusion recomputes in each reader for a load (a map composed into its reader, data movement
# in its readers' loads: passes/duplicate.py): a repeat of one stays, read by its own readers, since
# one node read by two groups would be written to DRAM for them (FCOS's per-level `idx % classes`,
# a second copy of which its detections' Concat computed in its own kernel)
_RECOMPUTED = ELEMENTWISE_OPS | {
    "Cast", "CastLike", "Clip", "Where", "Max", "Min", "Sum", "Mean", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
    "Transpose", "Slice", "Split", "Concat", "Expand", "Tile", "Pad", "Gather", "GatherElements", "GatherND",
    "DepthToSpace", "SpaceToDepth"}


def merge_repeats(graph: Graph) -> Graph:
    """A node that repeats an earlier one (the same op, the same values read, attributes and outputs
    asked for) is dropped and its readers read the earlier one's outputs. Exporters repeat work:
    torchvision's SSD postprocess masks the scores and the boxes of each class by one comparison,
    exported as two NonZeros of it, each a scan at run time. A repeat of what fusion recomputes
    for free (_RECOMPUTED) is kept, but counts as the value it repeats, so that what reads it can
    still be found a repeat. A node holding subgraphs, one that draws random values, one writing a
    graph output and one whose attributes do not hash are kept."""
    graph = _map_subgraphs(graph, merge_repeats)
    outputs = set(graph.outputs)
    first: dict[tuple, Node] = {}
    alias: dict[str, str] = {}      # a dropped node's output -> the earlier one's
    same: dict[str, str] = {}       # every repeat's output -> the earlier one's (for the keys)
    nodes = []
    for n in graph.nodes:
        m = {v: alias[v] for v in list(n.inputs) + _outer_reads(n) if v in alias}
        if m:
            n = dataclasses.replace(n, inputs=tuple(m.get(i, i) for i in n.inputs), attrs=_rename_attrs(n.attrs, m))
        nodes.append(n)
        if n.subgraphs() or n.op in _DRAWS or any(o in outputs for o in n.outputs):
            continue
        key = (n.op, n.domain, tuple(same.get(i, i) for i in n.inputs), n.attrs, tuple(bool(o) for o in n.outputs))
        try:
            earlier = first.setdefault(key, n)
        except TypeError:       # an attribute holding an array: compared by nothing here
            continue
        if earlier is n:
            continue
        pairs = [(o, e) for o, e in zip(n.outputs, earlier.outputs) if o]
        same.update(pairs)
        if n.op not in _RECOMPUTED:
            nodes.pop()
            alias.update(pairs)
    if not alias:
        return graph
    return _rebuild(graph, nodes, {}, {})


# --- Gemm ----------------------------------------------------------------------------------------

def gemm_to_matmul(graph: Graph) -> Graph:
    """Gemm -> [Transpose] MatMul [Mul] [Add]: transposes and alpha/beta fold into constant operands."""
    graph = _map_subgraphs(graph, gemm_to_matmul)
    if not any(n.op == "Gemm" and n.domain == "" for n in graph.nodes):
        return graph
    names = _Names(graph)
    new_consts: dict[str, Constant] = {}
    new_types: dict[str, TensorType] = {}
    memo: dict[tuple, str] = {}
    nodes: list[Node] = []
    for n in graph.nodes:
        repl = None
        if n.op == "Gemm" and n.domain == "":
            repl = _lower_gemm(n, graph, names, new_consts, new_types, memo)
        nodes.extend(repl if repl is not None else [n])
    return _rebuild(graph, nodes, new_consts, new_types)


def _lower_gemm(n: Node, graph: Graph, names: "_Names", new_consts, new_types, memo) -> list[Node] | None:
    a_in, b_in = n.inputs[0], n.inputs[1]
    c_in = n.inputs[2] if len(n.inputs) > 2 else ""
    alpha, beta = float(n.attr("alpha", 1.0)), float(n.attr("beta", 1.0))
    trans_a, trans_b = int(n.attr("transA", 0)), int(n.attr("transB", 0))
    out = n.outputs[0]
    out_t = graph.type_of(out)
    dt = out_t.dtype
    c_const = graph.constant(c_in) if c_in else None
    if not dt.is_float and (alpha != 1.0 or beta != 1.0):
        return None  # integer Gemm scales in float; leave it whole
    if c_in and c_const is None and beta != 1.0:
        return None  # a runtime C scaled by beta: no constant to fold beta into
    new: list[Node] = []

    def constant(key: tuple, base: str, make) -> str:
        if key not in memo:
            arr = make()           # (Constant.from_array lays it out in C order, in one copy)
            name = names.value(base)
            new_consts[name] = Constant.from_array(arr)
            new_types[name] = new_consts[name].type
            memo[key] = name
        return memo[key]

    def transpose(src: str) -> str:
        t = graph.type_of(src)
        dst = names.value(f"{src}/T")
        new_types[dst] = TensorType(t.dtype, t.shape[::-1])
        new.append(Node("Transpose", names.node(f"{n.name}/transpose"), (src,), (dst,), (("perm", (1, 0)),)))
        return dst

    a = a_in
    if trans_a:
        ca = graph.constant(a_in)
        a = (constant(("T", a_in), f"{a_in}_T", lambda: ca.array().T) if ca is not None else transpose(a_in))
    cb = graph.constant(b_in)
    scale_after = alpha != 1.0
    if cb is not None:
        if trans_b or alpha != 1.0:
            def make_b():
                b = cb.array().T if trans_b else cb.array()
                return _scaled(b, alpha) if alpha != 1.0 else b
            b = constant(("B", b_in, trans_b, alpha), f"{b_in}_gemm", make_b)
        else:
            b = b_in
        scale_after = False
    else:
        b = transpose(b_in) if trans_b else b_in
    steps_after = int(scale_after) + int(bool(c_in))
    mm = out if steps_after == 0 else names.value(f"{out}/matmul")
    new_types[mm] = out_t
    new.append(Node("MatMul", names.node(f"{n.name}/matmul"), (a, b), (mm,)))
    cur = mm
    if scale_after:
        s = constant(("alpha", alpha, dt), f"{n.name}/alpha", lambda: np.array(alpha, dtype=np.float64).astype(dt.np))
        nxt = out if not c_in else names.value(f"{out}/scaled")
        new_types[nxt] = out_t
        new.append(Node("Mul", names.node(f"{n.name}/alpha"), (cur, s), (nxt,)))
        cur = nxt
    if c_in:
        c = c_in
        if beta != 1.0:
            c = constant(("C", c_in, beta), f"{c_in}_beta", lambda: _scaled(c_const.array(), beta))
        new.append(Node("Add", names.node(f"{n.name}/bias"), (cur, c), (out,)))
    return new


def _scaled(a: np.ndarray, k: float) -> np.ndarray:
    wide = np.float64 if a.dtype == np.float64 else np.float32
    return (a.astype(wide) * wide(k)).astype(a.dtype)


# --- BatchNormalization after Conv ---------------------------------------------------------------

def fold_batchnorm_into_conv(graph: Graph) -> Graph:
    """Conv -> BatchNormalization (inference) becomes one Conv with scaled weights and shifted bias."""
    graph = _map_subgraphs(graph, fold_batchnorm_into_conv)
    if not any(n.op == "BatchNormalization" for n in graph.nodes):
        return graph
    uses = _uses(graph)
    producer = {o: i for i, n in enumerate(graph.nodes) for o in n.outputs if o}
    names = _Names(graph)
    new_consts: dict[str, Constant] = {}
    new_types: dict[str, TensorType] = {}
    replaced: dict[int, Node] = {}
    dropped: set[int] = set()
    for j, bn in enumerate(graph.nodes):
        if bn.op != "BatchNormalization" or bn.domain != "":
            continue
        i = producer.get(bn.inputs[0])
        if i is None or i in replaced:
            continue
        conv = graph.nodes[i]
        folded = _fold_bn(conv, bn, graph, uses)
        if folded is None:
            continue
        w, b = folded
        w_name, b_name = names.value(f"{conv.inputs[1]}_bn"), names.value(f"{bn.name}/conv_bias")
        for name, arr in ((w_name, w), (b_name, b)):
            new_consts[name] = Constant.from_array(arr)
            new_types[name] = new_consts[name].type
        replaced[i] = dataclasses.replace(conv, inputs=(conv.inputs[0], w_name, b_name),
                                          outputs=(bn.outputs[0],))
        dropped.add(j)
    if not replaced:
        return graph
    nodes = [replaced.get(i, n) for i, n in enumerate(graph.nodes) if i not in dropped]
    return _rebuild(graph, nodes, new_consts, new_types)


def _fold_bn(conv: Node, bn: Node, graph: Graph, uses: dict[str, int]):
    """(W', B') for Conv followed by this BatchNormalization, or None if it does not apply."""
    if conv.op != "Conv" or conv.domain != "" or len(conv.outputs) != 1:
        return None
    x = conv.outputs[0]
    if uses.get(x, 0) != 1 or x in graph.outputs:
        return None  # someone else reads the un-normalised value
    if int(bn.attr("training_mode", 0)) != 0 or int(bn.attr("spatial", 1)) != 1:
        return None
    if any(o and uses.get(o, 0) for o in bn.outputs[1:]):
        return None  # running statistics are read: training-mode graph
    w = graph.constant(conv.inputs[1])
    cb = graph.constant(conv.inputs[2]) if len(conv.inputs) > 2 and conv.inputs[2] else None
    if w is None or (len(conv.inputs) > 2 and conv.inputs[2] and cb is None) or not w.dtype.is_float:
        return None
    params = [graph.constant(v) if v else None for v in bn.inputs[1:5]]
    if len(params) != 4 or any(p is None for p in params):
        return None
    scale, shift, mean, var = (p.array().astype(np.float64).reshape(-1) for p in params)
    m = w.shape[0]
    if any(v.size != m for v in (scale, shift, mean, var)):
        return None
    eps = float(bn.attr("epsilon", 1e-5))
    s = scale / np.sqrt(var + eps)
    w_new = w.array().astype(np.float64) * s.reshape((m,) + (1,) * (len(w.shape) - 1))
    b_old = cb.array().astype(np.float64).reshape(-1) if cb is not None else np.zeros(m)
    b_new = (b_old - mean) * s + shift
    return w_new.astype(w.dtype.np), b_new.astype(w.dtype.np)


# --- dead nodes ----------------------------------------------------------------------------------

def remove_dead_nodes(graph: Graph) -> Graph:
    """Drops nodes none of whose outputs is read, then constants and types nothing refers to."""
    graph = _map_subgraphs(graph, remove_dead_nodes)
    live = set(graph.outputs)
    keep = []
    for n in reversed(graph.nodes):
        if any(o and o in live for o in n.outputs):
            keep.append(n)
            live.update(n.inputs)
            live.update(_outer_reads(n))
    keep.reverse()
    return _rebuild(graph, keep, {}, {})


# --- ScatterND over a box of indices -------------------------------------------------------------

def scatter_boxes(graph: Graph) -> Graph:
    """ScatterND whose indices cover a strided box of the data becomes brickyard's ScatterBox
    (data, updates; the box as attributes), lowered to one elementwise select. torch writes
    x[:, :, 1:, 1:] = y as ScatterND over a grid of index progressions, each component an Expand
    of a small constant, the grid joined by a Concat along the last axis: too large to fold (MViT's
    are tens of millions of int64), so they would be computed and read on every inference. The
    indices are read here as the small arrays they broadcast; once the ScatterND no longer reads
    them, remove_dead_nodes drops what built them."""
    graph = _map_subgraphs(graph, scatter_boxes)
    if not any(n.op == "ScatterND" and n.domain == "" for n in graph.nodes):
        return graph
    from ..ops.indexing import BRICKYARD_DOMAIN, box_of      # the lowering's own test of a box
    producers = {o: n for n in graph.nodes for o in n.outputs if o}
    nodes, changed = [], False
    for n in graph.nodes:
        if n.op == "ScatterND" and n.domain == "" and len(n.inputs) == 3 and all(n.inputs):
            x, idx = graph.type_of(n.inputs[0]), graph.type_of(n.inputs[1])
            comps = _index_components(graph, n.inputs[1], producers)
            red = n.attr("reduction", "none")
            red = red.decode() if isinstance(red, bytes) else red
            box = box_of(comps, idx.shape[:-1], x.shape) if comps is not None and red in ("none", "add", "mul") else None
            if box is not None:
                n = Node("ScatterBox", n.name, (n.inputs[0], n.inputs[2]), n.outputs,
                         (("box", box), ("lead", idx.shape[:-1]), ("reduction", red)), BRICKYARD_DOMAIN)
                changed = True
        nodes.append(n)
    return _rebuild(graph, nodes, {}, {}) if changed else graph


def _index_components(graph: Graph, value: str, producers: dict) -> list[np.ndarray] | None:
    """ScatterND's indices [L.., k] as k arrays each broadcastable to L, where they are constants,
    broadcasts of constants, or such parts joined along the last axis; None otherwise."""
    t = graph.type_of(value)
    n = producers.get(value)
    axis = n.attr("axis", 0) if n is not None and n.op == "Concat" and n.domain == "" else None
    parts = list(n.inputs) if axis is not None and axis in (-1, t.rank - 1) else [value]
    comps = []
    for p in parts:
        a = _broadcast_source(graph, p, producers)
        if a is None:
            return None
        for m in range(graph.type_of(p).shape[-1]):
            comps.append(a[..., m if a.shape[-1] > 1 else 0])
    return comps if len(comps) == t.shape[-1] else None


def _broadcast_source(graph: Graph, value: str, producers: dict) -> np.ndarray | None:
    """An array of the value's rank, each axis its extent or 1, that broadcasts to the value: a
    constant's own data, or through Expand and the reshapes that only add or drop unit axes
    (Unsqueeze, Squeeze, Reshape) of such a value; None for anything else."""
    t = graph.type_of(value)
    c = graph.constant(value)
    if c is not None:
        return c.array()
    n = producers.get(value)
    if n is None or n.domain != "" or not n.inputs or not n.inputs[0]:
        return None
    if n.op == "Expand":
        a = _broadcast_source(graph, n.inputs[0], producers)
        if a is None or a.ndim > t.rank:
            return None
        a = a.reshape((1,) * (t.rank - a.ndim) + a.shape)      # broadcasting aligns the trailing axes
        return a if all(e in (1, te) for e, te in zip(a.shape, t.shape)) else None
    if n.op in ("Unsqueeze", "Squeeze", "Reshape"):
        src = graph.type_of(n.inputs[0]).shape
        if [e for e in src if e != 1] != [e for e in t.shape if e != 1]:
            return None
        a = _broadcast_source(graph, n.inputs[0], producers)
        if a is None:
            return None
        kept = iter([a.shape[d] for d, e in enumerate(src) if e != 1])
        return a.reshape([next(kept) if e != 1 else 1 for e in t.shape])
    return None


# --- shared helpers ------------------------------------------------------------------------------

def _outer_reads(n: Node) -> list[str]:
    return [v for sg in n.subgraphs() for v in sg.outer]


def _uses(graph: Graph) -> dict[str, int]:
    """How many times each value is read: node inputs, subgraph outer reads, graph outputs."""
    count: dict[str, int] = {}
    for n in graph.nodes:
        for v in list(n.inputs) + _outer_reads(n):
            if v:
                count[v] = count.get(v, 0) + 1
    for o in graph.outputs:
        count[o] = count.get(o, 0) + 1
    return count


def _map_subgraphs(graph: Graph, fn) -> Graph:
    """Applies fn to every subgraph of every node (one level; fn itself recurses)."""
    if not any(n.subgraphs() for n in graph.nodes):
        return graph
    nodes = []
    for n in graph.nodes:
        if n.subgraphs():
            n = dataclasses.replace(n, attrs=tuple((k, _map_attr(v, fn)) for k, v in n.attrs))
        nodes.append(n)
    return graph.replace(nodes=tuple(nodes))


def _map_attr(v, fn):
    if isinstance(v, Graph):
        return fn(v)
    if isinstance(v, tuple) and v and isinstance(v[0], Graph):
        return tuple(fn(g) for g in v)
    return v


def _rename_attrs(attrs, mapping: dict[str, str]):
    """Renames outer-scope reads inside subgraph attributes."""
    if not mapping:
        return attrs
    return tuple((k, _map_attr(v, lambda g: _rename_outer(g, mapping))) for k, v in attrs)


def _rename_outer(g: Graph, mapping: dict[str, str]) -> Graph:
    """A subgraph reading its enclosing values under new names (only names it reads from outside)."""
    m = {k: v for k, v in mapping.items() if k in g.outer}
    if not m:
        return g
    nodes = tuple(dataclasses.replace(n, inputs=tuple(m.get(i, i) for i in n.inputs),
                                      attrs=_rename_attrs(n.attrs, m)) for n in g.nodes)
    types = tuple(sorted((m.get(k, k), t) for k, t in g.types))
    return g.replace(nodes=nodes, outputs=tuple(m.get(o, o) for o in g.outputs),
                     outer=tuple(dict.fromkeys(m.get(o, o) for o in g.outer)), types=types)


def _rebuild(graph: Graph, nodes: list[Node], new_consts: dict[str, Constant],
             new_types: dict[str, TensorType]) -> Graph:
    """The graph with new nodes: keeps only the constants, outer values and types still referred to."""
    consts = {**graph.const_map, **new_consts}
    types = {**graph.type_map, **new_types}
    used: dict[str, None] = dict.fromkeys(graph.outputs)
    for n in nodes:
        used.update(dict.fromkeys(v for v in list(n.inputs) + _outer_reads(n) if v))
    defined = set(graph.inputs) | {o for n in nodes for o in n.outputs if o}
    kept = {k: consts[k] for k in used if k not in defined and k in consts}
    free = [k for k in used if k not in defined and k not in kept]
    outer = tuple(k for k in graph.outer if k in free) + tuple(sorted(k for k in free if k not in graph.outer))
    typed = defined | set(kept) | set(outer)
    return graph.replace(nodes=tuple(nodes), constants=tuple(sorted(kept.items())),
                         types=tuple(sorted((k, types[k]) for k in typed)), outer=outer)


class _Names:
    """Fresh value and node names, unique across a graph and all its subgraphs."""

    def __init__(self, graph: Graph):
        self.taken: set[str] = set()
        stack = [graph]
        while stack:
            g = stack.pop()
            self.taken.update(k for k, _ in g.types)
            self.taken.update(g.inputs)
            for n in g.nodes:
                self.taken.add(n.name)
                self.taken.update(n.outputs)
                stack.extend(n.subgraphs())

    def value(self, base: str) -> str:
        return self._fresh(base)

    def node(self, base: str) -> str:
        return self._fresh(base)

    def _fresh(self, base: str) -> str:
        out, k = base, 1
        while out in self.taken:
            out, k = f"{base}_{k}", k + 1
        self.taken.add(out)
        return out
