"""Sequences (and optionals) resolved at import, where their length and positions are known at
compile time.

ONNX's sequence type has no device form, but exporters write sequences whose structure never
depends on the data: torchvision's MViT splits its tokens by a Loop of one constant iteration that
SequenceInserts a slice, then reads the pieces back by SequenceAt at constant positions; a Python
list of tensors becomes SequenceConstruct and ConcatFromSequence. While the graph is imported each
sequence value is the tuple of the tensor values it holds (`Scope.sequences`), each optional the
value it holds or "" (`Scope.optionals`); a sequence op rewrites to plain tensor ops (Identity,
Slice, Unsqueeze, Concat) or to a constant, and a Loop that carries a sequence, or a SequenceMap,
is unrolled: its body imported once per iteration with its values renamed. A Loop of a run-time
iteration count whose body only appends to the sequences it carries, each starting empty (a
scripted loop's `list.append`), becomes a device Loop whose scan outputs stack the elements
(loop_appends.py): such a sequence is its stacked elements (`Scope.stacked`), read by
ConcatFromSequence, SequenceLength and SequenceAt; so is a SplitToSequence into single slices of
an axis whose length is only known at run time. What cannot be resolved so (a position known
only at run time, any other Loop whose iteration count is, a sequence as a model input or output,
or crossing into a region that stays a device loop) is an UnsupportedOp that says so."""
from __future__ import annotations

from typing import Callable

import numpy as np
import onnx
from onnx import numpy_helper

from ..errors import ModelError, UnsupportedOp
from ..ir.graph import TensorType
from . import loop_appends

# the ops this module resolves (the optional ones too: an optional is a sequence of at most one)
SEQUENCE_OPS = frozenset({"SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceErase",
                          "SequenceLength", "ConcatFromSequence", "SplitToSequence", "SequenceMap",
                          "Optional", "OptionalHasElement", "OptionalGetElement"})
# An unrolled Loop or SequenceMap runs at most this many iterations: each is a copy of its body.
MAX_UNROLLED_ITERATIONS = 1024

ImportProtos = Callable[[list], list]     # imports plain NodeProtos into the current scope, gives IR nodes


def handles(pn: onnx.NodeProto, scope) -> bool:
    """Whether the node is a sequence or optional op, or an Identity or Loop that reads a sequence or an optional."""
    if pn.domain not in ("", "ai.onnx"):
        return False
    if pn.op_type in SEQUENCE_OPS:
        return True
    if pn.op_type in ("Identity", "Loop"):
        return any(i and (scope.sequence(i) is not None or scope.optional(i) is not None
                          or scope.stacked_sequence(i) is not None) for i in pn.input)
    return False


def import_sequence_node(pn: onnx.NodeProto, name: str, ctx, scope, import_protos: ImportProtos) -> list:
    """The IR nodes that stand for one sequence node (none where it only moves tensor names)."""
    op = pn.op_type
    ins = list(pn.input)
    if op == "SequenceEmpty":
        scope.sequences[pn.output[0]] = ()
        return []
    if op == "SequenceConstruct":
        for i in ins:
            _tensor(i, scope, name, op)
        scope.sequences[pn.output[0]] = tuple(ins)
        return []
    if op == "Identity":       # of a sequence or an optional (handles)
        alias(scope, pn.output[0], ins[0])
        return []
    if op.startswith("Optional"):
        return _optional_node(pn, name, scope, import_protos)
    if op == "Loop":
        if any(i and scope.stacked_sequence(i) is not None for i in ins[2:]):
            raise UnsupportedOp("Loop", node=name, detail=(
                "this Loop carries a sequence whose length is only known at run time (another Loop appended to "
                "it); only its readers ConcatFromSequence, SequenceLength and SequenceAt are supported"))
        return _unrolled_loop(pn, name, ctx, scope, import_protos)
    if ins and ins[0] and scope.stacked_sequence(ins[0]) is not None:
        return import_protos(_stacked_reader(pn, scope.stacked_sequence(ins[0]), name, ctx, scope))
    if op == "SequenceMap":
        return _unrolled_map(pn, name, ctx, scope, import_protos)
    if op == "SplitToSequence":
        stacked = _stacked_split(pn, name, ctx, scope)
        if stacked is not None:
            return import_protos(stacked)
        protos, pieces = _split_protos(pn, name, ctx, scope)
        scope.sequences[pn.output[0]] = pieces
        return import_protos(protos)
    seq = _sequence(ins[0], scope, name, op)
    if op == "SequenceLength":
        return import_protos([_constant(pn.output[0], np.array(len(seq), np.int64), name)])
    if op == "SequenceInsert":
        _tensor(ins[1], scope, name, op)
        at = _position(ins[2] if len(ins) > 2 else "", len(seq), len(seq), scope, name, op, inclusive=True)
        scope.sequences[pn.output[0]] = seq[:at] + (ins[1],) + seq[at:]
        return []
    if op == "SequenceErase":
        at = _position(ins[1] if len(ins) > 1 else "", len(seq) - 1, len(seq), scope, name, op)
        scope.sequences[pn.output[0]] = seq[:at] + seq[at + 1:]
        return []
    if op == "SequenceAt":
        at = _position(ins[1], None, len(seq), scope, name, op)
        return import_protos([onnx.helper.make_node("Identity", [seq[at]], [pn.output[0]], name=name)])
    if op == "ConcatFromSequence":
        return import_protos(_concat_protos(pn, seq, name, ctx, scope))
    raise UnsupportedOp(op, node=name, detail="no import rule for this sequence op")   # SEQUENCE_OPS is complete


def refuse_sequence_boundary(value: str, scope, graph: str, main: bool) -> None:
    """A graph output that is a sequence or an optional: the model's outputs are tensors, and a
    region that stays a device loop or branch passes only tensors."""
    kind = "sequence" if scope.sequence(value) is not None else "optional" if scope.optional(value) is not None else None
    if kind is None:
        return
    if main:
        raise UnsupportedOp("SequenceOutput", node=value, detail=(
            f"the model's output '{value}' is a{'n' if kind == 'optional' else ''} {kind}; Brickyard's outputs "
            "are tensors. Join a sequence in the model (ConcatFromSequence, or torch.stack/torch.cat before "
            "returning)"))
    raise UnsupportedOp("SequenceOutput", node=value, detail=(
        f"subgraph '{graph}' returns the {kind} '{value}' from a region that runs on the device (an If "
        "whose condition is only known at run time, or a Loop Brickyard does not unroll); sequences and "
        "optionals are resolved at import, so their structure must be known at compile time"))


def _optional_node(pn, name, scope, import_protos: ImportProtos) -> list:
    """Optional, OptionalHasElement, OptionalGetElement: an optional is its element's value (a
    tensor or a sequence) or None, so whether it has one is a constant."""
    op, src = pn.op_type, (pn.input[0] if pn.input else "")
    if op == "Optional":
        if src and scope.sequence(src) is None:
            _tensor(src, scope, name, op)
        scope.optionals[pn.output[0]] = src
        return []
    if not src:
        element = None
    elif scope.optional(src) is not None:
        element = scope.optional(src) or None
    else:       # a tensor or a sequence given where an optional may be
        element = src
    if op == "OptionalHasElement":
        return import_protos([_constant(pn.output[0], np.array(element is not None), name)])
    if element is None:
        raise ModelError("OptionalGetElement of an empty optional", node=name)
    return import_protos(_bind_value(scope, pn.output[0], element, name))


# --- helpers -------------------------------------------------------------------------------------

def _sequence(value: str, scope, name: str, op: str) -> tuple[str, ...]:
    seq = scope.sequence(value) if value else None
    if seq is None:
        raise ModelError(f"{op} reads '{value}' as a sequence, but it is not one", node=name,
                         hint="the model is malformed; check it with onnx.checker")
    return seq


def _tensor(value: str, scope, name: str, op: str) -> None:
    if not value or scope.sequence(value) is not None or not scope.resolve(value):
        raise ModelError(f"{op} reads '{value}' as a tensor, but no tensor of that name is defined", node=name,
                         hint="the model is malformed; check it with onnx.checker")


def _position(value: str, default: int | None, length: int, scope, name: str, op: str,
              inclusive: bool = False) -> int:
    """A constant position into a sequence of `length` (negative counts from the end); `inclusive`
    allows `length` itself (an insert at the back)."""
    if not value:
        if default is None or default < 0:
            raise ModelError(f"{op} on an empty sequence", node=name)
        return default
    if not scope.resolve(value) or value not in scope.consts:
        raise UnsupportedOp(op, node=name, detail=(
            f"its position '{value}' is only known at run time; Brickyard resolves sequences at import, "
            "so their positions must be constants"))
    pos = int(np.asarray(scope.consts[value]).reshape(-1)[0])
    top = length if inclusive else length - 1
    if not -length <= pos <= top:
        raise ModelError(f"{op} position {pos} is out of range for a sequence of {length}", node=name)
    return pos + length if pos < 0 else pos


_constant = loop_appends.constant_node


def _on_axis(op: str, x: str, axis: int, out: str, name: str, ctx) -> list[onnx.NodeProto]:
    return loop_appends.on_axis(op, x, axis, out, name, ctx.opset)


def _attr(pn: onnx.NodeProto, key: str, default: int) -> int:
    return next((a.i for a in pn.attribute if a.name == key), default)


def _concat_protos(pn, seq, name, ctx, scope) -> list[onnx.NodeProto]:
    """ConcatFromSequence as a Concat of the elements (each unsqueezed first where new_axis=1)."""
    if not seq:
        raise ModelError("ConcatFromSequence of an empty sequence has no type", node=name)
    axis, new_axis = _attr(pn, "axis", 0), _attr(pn, "new_axis", 0)
    rank = scope.types[seq[0]].rank + (1 if new_axis else 0)
    if not -rank <= axis < rank:
        raise ModelError(f"ConcatFromSequence axis {axis} is out of range for rank {rank}", node=name)
    axis = axis + rank if axis < 0 else axis
    protos, parts = [], list(seq)
    if new_axis:
        parts = [f"{pn.output[0]}#item{k}" for k in range(len(seq))]
        for x, part in zip(seq, parts):
            protos += _on_axis("Unsqueeze", x, axis, part, name, ctx)
    protos.append(onnx.helper.make_node("Concat", parts, [pn.output[0]], name=name, axis=axis))
    return protos


def _split_axis(pn, name, scope) -> tuple[str, TensorType, int]:
    """SplitToSequence's input, its type and the split axis (non-negative)."""
    x = pn.input[0]
    _tensor(x, scope, name, "SplitToSequence")
    t = scope.types[x]
    axis = _attr(pn, "axis", 0)
    if not -t.rank <= axis < t.rank:
        raise ModelError(f"SplitToSequence axis {axis} is out of range for rank {t.rank}", node=name)
    return x, t, axis + t.rank if axis < 0 else axis


def _split_protos(pn, name, ctx, scope) -> tuple[list[onnx.NodeProto], tuple[str, ...]]:
    """SplitToSequence as one Slice a piece (squeezed where keepdims=0 and no split is given)."""
    x, t, axis = _split_axis(pn, name, scope)
    extent = t.shape[axis]
    split = pn.input[1] if len(pn.input) > 1 else ""
    squeeze = not split and _attr(pn, "keepdims", 1) == 0
    if not split:
        lengths = [1] * extent
    else:
        if not scope.resolve(split) or split not in scope.consts:
            raise UnsupportedOp("SplitToSequence", node=name, detail=(
                f"its split '{split}' is only known at run time; sequences are resolved at import"))
        s = np.asarray(scope.consts[split]).astype(np.int64)
        if s.ndim == 0:
            if s <= 0:
                raise ModelError(f"SplitToSequence split {int(s)} is not positive", node=name)
            lengths = [int(s)] * (extent // int(s)) + ([extent % int(s)] if extent % int(s) else [])
        else:
            lengths = [int(v) for v in s]
            if any(v < 0 for v in lengths) or sum(lengths) != extent:
                raise ModelError(f"SplitToSequence lengths {lengths} do not split axis {axis} of {extent}",
                                 node=name)
    protos, pieces, start = [], [], 0
    for k, n in enumerate(lengths):
        piece = f"{pn.output[0]}#{k}"
        sliced = f"{piece}#slice" if squeeze else piece
        consts = [(f"{piece}#{what}", np.array([v], np.int64))
                  for what, v in (("starts", start), ("ends", start + n), ("axes", axis))]
        protos += [_constant(c, a, name) for c, a in consts]
        protos.append(onnx.helper.make_node("Slice", [x] + [c for c, _ in consts], [sliced], name=f"{name}/{k}"))
        if squeeze:
            protos += _on_axis("Squeeze", sliced, axis, piece, name, ctx)
        pieces.append(piece)
        start += n
    return protos, tuple(pieces)


# --- unrolling ------------------------------------------------------------------------------------

def _defined_names(g: onnx.GraphProto) -> set[str]:
    """Every value a graph and its subgraphs define (inputs, initializers, node outputs)."""
    out = {i.name for i in g.input} | {t.name for t in g.initializer}
    for n in g.node:
        out.update(o for o in n.output if o)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                out |= _defined_names(a.g)
    return out


def _rename_in_place(g: onnx.GraphProto, names: dict[str, str]) -> None:
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        vi.name = names.get(vi.name, vi.name)
    for t in g.initializer:
        t.name = names.get(t.name, t.name)
    for n in g.node:
        _rename_node(n, names)


def _rename_node(n: onnx.NodeProto, names: dict[str, str]) -> None:
    for k, v in enumerate(n.input):
        n.input[k] = names.get(v, v)
    for k, v in enumerate(n.output):
        n.output[k] = names.get(v, v)
    for a in n.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            _rename_in_place(a.g, names)


def _body_copy(body: onnx.GraphProto, bind: dict[str, str], tag: str, ctx) -> tuple[list[onnx.NodeProto], list[str]]:
    """One iteration's nodes of `body`: its inputs bound to the values in `bind`, every value it
    defines renamed with `tag`, its initializers as Constant nodes. Also its outputs' new names."""
    names = {v: f"{v}@{tag}" for v in _defined_names(body)}
    names.update(bind)
    if ctx.read_names is not None:      # a renamed value is read where its original is
        ctx.read_names.update(names[v] for v in list(names) if v in ctx.read_names)
    protos = [_constant(names[t.name], numpy_helper.to_array(t), f"{body.name}@{tag}") for t in body.initializer]
    for k, n in enumerate(body.node):
        c = onnx.NodeProto()
        c.CopyFrom(n)
        _rename_node(c, names)
        c.name = f"{n.name or n.op_type + '_' + str(k)}@{tag}"
        protos.append(c)
    return protos, [names.get(o.name, o.name) for o in body.output]


def alias(scope, dst: str, src: str) -> bool:
    """`dst` holds what the sequence or optional `src` holds; False (nothing done) for a tensor."""
    if scope.optional(src) is not None:
        scope.optionals[dst] = scope.optional(src)
        return True
    if scope.sequence(src) is not None:
        scope.sequences[dst] = scope.sequence(src)
        return True
    if scope.stacked_sequence(src) is not None:
        scope.stacked[dst] = scope.stacked_sequence(src)
        return True
    return False


def _bind_value(scope, dst: str, src: str, name: str) -> list[onnx.NodeProto]:
    """`dst` takes the value `src`: a sequence or an optional by what it holds, a tensor through an Identity."""
    if not dst or alias(scope, dst, src):
        return []
    return [onnx.helper.make_node("Identity", [src], [dst], name=f"{name}/{dst}")]


def _const_int(value: str, scope) -> int | None:
    if value and scope.resolve(value) and value in scope.consts:
        return int(np.asarray(scope.consts[value]).reshape(-1)[0])
    return None


def _unrolled_loop(pn, name, ctx, scope, import_protos: ImportProtos) -> list:
    """A Loop that carries a sequence, imported as its iterations one after another. Its trip count
    must be a constant, and its condition a constant after every iteration."""
    body = next((a.g for a in pn.attribute if a.name == "body"), None)
    if body is None:
        raise ModelError("Loop has no body", node=name)
    trips_in = pn.input[0] if len(pn.input) > 0 else ""
    cond_in = pn.input[1] if len(pn.input) > 1 else ""
    trips = _const_int(trips_in, scope)
    if trips is None or (cond_in and _const_int(cond_in, scope) is None):
        stacked = _stacked_loop(pn, name, ctx, scope, import_protos)
        if stacked is not None:
            return stacked
    if trips is None:
        raise UnsupportedOp("Loop", node=name, detail=(
            "this Loop carries a sequence and runs a number of iterations only known at run time; sequences "
            "are resolved at import, so a Loop that carries one needs a constant trip count, or a body that "
            "only appends to it (SequenceInsert at the back of a sequence that starts empty)"))
    if trips > MAX_UNROLLED_ITERATIONS:
        raise UnsupportedOp("Loop", node=name, detail=(
            f"this Loop carries a sequence through {trips} iterations, over the {MAX_UNROLLED_ITERATIONS} "
            "Brickyard unrolls at import"))
    carried = list(pn.input[2:])
    n_carried = len(carried)
    if len(body.input) != 2 + n_carried or len(body.output) < 1 + n_carried:
        raise ModelError(f"Loop body has {len(body.input)} inputs and {len(body.output)} outputs for "
                         f"{n_carried} carried values", node=name)
    n_scan = len(body.output) - 1 - n_carried
    if len(pn.output) != n_carried + n_scan:
        raise ModelError(f"Loop has {len(pn.output)} outputs for {n_carried} carried values and {n_scan} scan "
                         "outputs", node=name)
    nodes: list = []
    if cond_in and _const_int(cond_in, scope) is None:
        raise UnsupportedOp("Loop", node=name, detail=(
            "this Loop carries a sequence and its first condition is only known at run time; sequences are "
            "resolved at import"))
    running = not cond_in or bool(_const_int(cond_in, scope))
    scans: list[list[str]] = [[] for _ in range(n_scan)]
    for k in range(trips if running else 0):
        tag = f"{name}.{k}"
        it = f"{name}#iteration{k}"
        bind = {body.input[0].name: it, body.input[1].name: cond_in or f"{name}#true"}
        bind.update({vi.name: v for vi, v in zip(body.input[2:], carried)})
        protos, outs = _body_copy(body, bind, tag, ctx)
        first = [_constant(it, np.array(k, np.int64), name)]
        if not cond_in and k == 0:
            first.append(_constant(f"{name}#true", np.array(True), name))
        nodes += import_protos(first + protos)
        carried = outs[1:1 + n_carried]
        for j, v in enumerate(outs[1 + n_carried:]):
            scans[j].append(v)
        cond = _const_int(outs[0], scope)
        if cond is None:
            raise UnsupportedOp("Loop", node=name, detail=(
                "this Loop carries a sequence and its condition is only known at run time; sequences are "
                "resolved at import, so a Loop that carries one must stop at a constant trip count"))
        if not cond:
            break
    protos = []
    for dst, src in zip(pn.output[:n_carried], carried):
        protos += _bind_value(scope, dst, src, name)
    for dst, values in zip(pn.output[n_carried:], scans):
        if not dst:
            continue
        if not values:
            raise UnsupportedOp("Loop", node=name, detail="an unrolled Loop that runs no iteration has scan "
                                "outputs of no known type")
        parts = [f"{dst}#{k}" for k in range(len(values))]
        for v, part in zip(values, parts):
            protos += _on_axis("Unsqueeze", v, 0, part, name, ctx)
        protos.append(onnx.helper.make_node("Concat", parts, [dst], name=f"{name}/{dst}", axis=0))
    return nodes + import_protos(protos)


def _unrolled_map(pn, name, ctx, scope, import_protos: ImportProtos) -> list:
    """SequenceMap: its body once per element of its sequence inputs, the outputs gathered into sequences."""
    body = next((a.g for a in pn.attribute if a.name == "body"), None)
    if body is None:
        raise ModelError("SequenceMap has no body", node=name)
    if len(body.input) != len(pn.input) or len(body.output) != len(pn.output):
        raise ModelError(f"SequenceMap body has {len(body.input)} inputs and {len(body.output)} outputs for "
                         f"{len(pn.input)} and {len(pn.output)}", node=name)
    seqs = [scope.sequence(i) for i in pn.input]
    if seqs[0] is None:
        raise ModelError(f"SequenceMap reads '{pn.input[0]}' as a sequence, but it is not one", node=name)
    length = len(seqs[0])
    if any(s is not None and len(s) != length for s in seqs):
        raise ModelError("SequenceMap's sequences differ in length", node=name)
    if length > MAX_UNROLLED_ITERATIONS:
        raise UnsupportedOp("SequenceMap", node=name, detail=f"a sequence of {length} elements, over the "
                            f"{MAX_UNROLLED_ITERATIONS} Brickyard unrolls at import")
    nodes, outs = [], [[] for _ in pn.output]
    for k in range(length):
        bind = {vi.name: (s[k] if s is not None else v) for vi, v, s in zip(body.input, pn.input, seqs)}
        protos, got = _body_copy(body, bind, f"{name}.{k}", ctx)
        nodes += import_protos(protos)
        for j, v in enumerate(got):
            outs[j].append(v)
    for dst, values in zip(pn.output, outs):
        if dst:
            for v in values:
                if scope.sequence(v) is not None:
                    raise UnsupportedOp("SequenceMap", node=name, detail="a body that returns sequences")
            scope.sequences[dst] = tuple(values)
    return nodes


# --- sequences of run-time length ----------------------------------------------------------------

def _stacked_loop(pn, name, ctx, scope, import_protos: ImportProtos) -> list | None:
    """A Loop that cannot be unrolled (its iteration count is only known at run time) whose body
    only appends to the sequences it carries, each starting empty (a Python list `append`ed in a
    scripted loop): a device Loop whose scan outputs stack each sequence's elements
    (loop_appends.py); the Loop's sequence outputs are those stacked elements (`Scope.stacked`),
    of the run-time length the Loop's iteration count gives. None: not such a Loop."""
    carried = list(pn.input[2:])
    empty = frozenset(k for k, v in enumerate(carried) if v and scope.sequence(v) == ())
    if not empty or any(scope.sequence(v) is not None or scope.optional(v) is not None
                        for k, v in enumerate(carried) if v and k not in empty):
        return None
    types = [scope.types[v] if v and k not in empty and scope.resolve(v) else None for k, v in enumerate(carried)]
    appended = loop_appends.appended_values(pn, types, empty)
    if not empty <= set(appended):
        return None

    def stacked(seq: str, value: str) -> None:
        scope.stacked[seq] = value

    return loop_appends.import_appending_loop(pn, pn.name or name, appended, lambda v: scope.types[v], scope.fresh,
                                              ctx.opset, import_protos, stacked)


def _stacked_split(pn, name, ctx, scope) -> list[onnx.NodeProto] | None:
    """SplitToSequence into single slices along an axis whose length may be known only at run time
    (a list of selected boxes, `for b in boxes` in a script): the sequence is its elements stacked
    (`Scope.stacked`: the axis moved first, a unit axis kept in its place where keepdims), so its
    length is the real one; slices of the bound would count the padding as elements. None where
    the axis is static."""
    x, t, axis = _split_axis(pn, name, scope)
    if t.shape[axis] not in scope.bounds(x):
        return None
    if len(pn.input) > 1 and pn.input[1]:
        raise UnsupportedOp("SplitToSequence", node=name, detail=(
            f"a split into given lengths of axis {axis}, whose length is only known at run time; only a split "
            "into single slices (no split input) of such an axis is supported"))
    protos, value = [], x
    if axis > 0:
        value = f"{pn.output[0]}#moved"
        protos.append(onnx.helper.make_node("Transpose", [x], [value], name=f"{name}/move",
                                            perm=[axis] + [d for d in range(t.rank) if d != axis]))
    if _attr(pn, "keepdims", 1):
        kept = f"{pn.output[0]}#elements"
        protos += _on_axis("Unsqueeze", value, axis + 1, kept, name, ctx)
        value = kept
    scope.stacked[pn.output[0]] = value
    return protos


def _stacked_reader(pn, stacked: str, name, ctx, scope) -> list[onnx.NodeProto]:
    """A sequence op on a stacked sequence (`stacked`: [length, *element], the length known only
    at run time), as tensor ops: ConcatFromSequence a Reshape or Transpose of it (or a view),
    SequenceLength its rows' count, SequenceAt a Gather of a row."""
    scope.resolve(stacked)      # an enclosing scope's (a branch reading the list)
    op, t = pn.op_type, scope.types[stacked]
    if op == "ConcatFromSequence":
        axis, new_axis = _attr(pn, "axis", 0), bool(_attr(pn, "new_axis", 0))
        rank = t.rank - 1 + (1 if new_axis else 0)
        if not -rank <= axis < rank:
            raise ModelError(f"ConcatFromSequence axis {axis} is out of range for rank {rank}", node=name)
        return loop_appends.joined_elements(stacked, t, axis % rank, new_axis, pn.output[0], name, scope.fresh,
                                            ctx.opset)
    if op == "SequenceLength":
        shape, first = f"{pn.output[0]}#shape", f"{pn.output[0]}#first"
        return [onnx.helper.make_node("Shape", [stacked], [shape], name=f"{name}/shape"),
                _constant(first, np.array(0, np.int64), name),
                onnx.helper.make_node("Gather", [shape, first], [pn.output[0]], name=name, axis=0)]
    if op == "SequenceAt":
        at = _const_int(pn.input[1], scope)
        if at is not None and at < 0:
            raise UnsupportedOp(op, node=name, detail=(
                f"position {at} counts from the end of a sequence whose length is only known at run time "
                "(a Loop appended to it); read it at a position from its front"))
        return [onnx.helper.make_node("Gather", [stacked, pn.input[1]], [pn.output[0]], name=name, axis=0)]
    raise UnsupportedOp(op, node=name, detail=(
        "this sequence's length is only known at run time (a Loop appended to it); of the sequence ops only "
        "ConcatFromSequence, SequenceLength and SequenceAt read such a sequence"))
