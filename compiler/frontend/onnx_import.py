"""Stage 1, import: read and check an ONNX model, type every value statically, fold constants and
shape arithmetic, canonicalise. `import_model` is the only entry point."""
from __future__ import annotations

import collections
import dataclasses
import hashlib
import heapq
import itertools
import math
import os
import stat
import sys
from dataclasses import dataclass

import onnx
import onnx.inliner
from google.protobuf.message import DecodeError

from ..errors import ModelError, UnsupportedOp
from ..ir.dtypes import DType
from ..ir.graph import Graph, TensorType
from ..ops.registry import lookup
from .canonicalize import canonicalize
from .qdq_integer import integer_contractions
from .convert import dtype_of, elem_type_name
from .dims import declared_dims, resolve_shapes
from .expand import expand_function_ops
from .qlinear import expand_qlinear_ops
from .fold import FRONTEND_OPS
from .sequences import SEQUENCE_OPS
from .graph_import import ImportContext, Scope, import_graph
from .model_archive import ModelArchive, compression, is_tar, open_archive
from .selection_caps import SelectionCap, selection_caps

GiB = 1 << 30
_IN_MEMORY = "the model"  # how messages name a model given as bytes or a proto


@dataclass(frozen=True)
class ImportLimits:
    """Bounds on what import accepts, so a hostile or broken file fails fast and cleanly."""

    max_bytes: int = 2 * GiB            # the serialized model (protobuf cannot hold more anyway)
    max_external_bytes: int = 256 * GiB  # weights read from external data files beside a path model
    external_data: bool = True          # read those files at all; the service says no (an upload has no
    #                                     directory); a model archive's own members are read regardless
    max_nodes: int = 200_000            # nodes in all graphs together
    max_nesting: int = 16               # subgraphs inside subgraphs
    max_chain: int = 20_000             # longest chain of dependent nodes, through subgraphs
    max_fold_elements: int = 1 << 22    # largest value constant folding may create
    # a fold that broadcasts constants into more elements than this stays a node (fold.defers)
    defer_fold_elements: int = 1 << 18


@dataclass(frozen=True)
class ImportedModel:
    """The imported model: its graph in IR form and what is known about where it came from."""

    graph: Graph
    opset: int                          # version of the default (ai.onnx) operator set
    model_sha256: str                   # of the serialized model bytes and the external data they read
    name: str
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]
    warnings: tuple[str, ...]
    producer: str
    # NonMaxSuppression nodes capped at the rows their readers read (selection_caps.py)
    selection_caps: tuple[SelectionCap, ...] = ()
    # values computed from constants whose folds were deferred (fold.defers), and those of them a
    # node still computes with the model (the rest a later fold read, or nothing reads)
    deferred_folds: tuple[str, ...] = ()
    deferred_run: tuple[str, ...] = ()
    # nodes (subgraphs' included) that repeated an earlier one and were merged into it
    repeats_merged: int = 0
    # QDQ Conv / MatMul nodes rewritten as integer contractions (qdq_integer.py)
    qdq_integer: int = 0


def import_model(model: str | os.PathLike | bytes | onnx.ModelProto, *,
                 input_shapes: dict[str, tuple[int, ...]] | None = None,
                 limits: ImportLimits = ImportLimits(), max_trip_count: int | None = None,
                 cap_selections: bool = True, scatter_boxes: bool = True, defer_folds: bool = True,
                 merge_repeats: bool = True, qdq_integer: bool = True) -> ImportedModel:
    """Reads, checks and imports an ONNX model into a statically typed, canonical IR Graph.

    `max_trip_count` bounds the Loops whose iteration count is only known at run time and that have
    scan outputs (see graph_import._trip_bound); `cap_selections` caps each NonMaxSuppression at
    the rows its readers read (selection_caps.py); `defer_folds` leaves large broadcasts of
    constants to run (fold.defers); `merge_repeats` merges a node repeating an earlier one
    (canonicalize.merge_repeats); `qdq_integer` makes a QDQ Conv / MatMul an integer contraction
    (qdq_integer.py)."""
    return import_checked(read_checked(model, limits), input_shapes=input_shapes, limits=limits,
                          max_trip_count=max_trip_count, cap_selections=cap_selections, scatter_boxes=scatter_boxes,
                          defer_folds=defer_folds, merge_repeats=merge_repeats, qdq_integer=qdq_integer)


def import_checked(checked: "CheckedModel", *, input_shapes: dict[str, tuple[int, ...]] | None = None,
                   limits: ImportLimits = ImportLimits(), max_trip_count: int | None = None,
                   cap_selections: bool = True, scatter_boxes: bool = True, defer_folds: bool = True,
                   merge_repeats: bool = True, qdq_integer: bool = True) -> ImportedModel:
    """Imports a model read_checked has already read and checked (the service describes and imports
    one upload from a single parse)."""
    proto, opsets, source_name, model_sha256 = checked.proto, checked.opsets, checked.source_name, checked.sha256
    inputs = _input_types(proto.graph, input_shapes or {})

    def imported(caps: dict[str, int]) -> tuple[Graph, list[str], tuple[str, ...], int, int]:
        ctx = ImportContext(opsets, proto.opset_import, proto.ir_version, limits.max_fold_elements,
                            defer_fold_elements=limits.defer_fold_elements if defer_folds else None,
                            read_names=_read_names(proto.graph), max_trip_count=max_trip_count,
                            external=checked.external, selection_caps=caps,
                            weight_reads=_weight_reads(proto.graph))
        graph = import_graph(proto.graph, ctx, Scope(), inputs, proto.graph.name or "main")
        warnings = ctx.warnings + _declared_output_mismatches(proto.graph, graph)
        canonical, merged = canonicalize(graph, boxes=scatter_boxes, repeats=merge_repeats)
        integer = 0
        if qdq_integer:
            canonical, integer = integer_contractions(canonical, opsets[""])
        return canonical, warnings, tuple(ctx.deferred), merged, integer

    graph, warnings, deferred, merged, integer = imported({})
    caps = selection_caps(graph) if cap_selections else ()
    if caps:   # every type after a capped node changes: import again with the caps
        graph, warnings, deferred, merged, integer = imported({c.node: c.cap for c in caps})
    computed = _node_outputs(graph)
    producer = f"{proto.producer_name} {proto.producer_version}".strip()
    return ImportedModel(
        graph=graph, opset=opsets[""], model_sha256=model_sha256,
        name=os.path.splitext(source_name)[0] if source_name != _IN_MEMORY else (proto.graph.name or "model"),
        input_names=graph.inputs, output_names=graph.outputs, warnings=tuple(warnings), producer=producer,
        selection_caps=caps, deferred_folds=deferred, deferred_run=tuple(v for v in deferred if v in computed),
        repeats_merged=merged, qdq_integer=integer,
    )


def _node_outputs(graph: Graph) -> set[str]:
    """The values some node of the graph or of its subgraphs computes."""
    out = {o for n in graph.nodes for o in n.outputs if o}
    for n in graph.nodes:
        for sg in n.subgraphs():
            out |= _node_outputs(sg)
    return out


@dataclass(frozen=True)
class CheckedModel:
    """A parsed model that passed every structural check (limits, external data read or refused,
    known domains, topological order, the ONNX checker, every op defined), before any shape is known."""

    proto: onnx.ModelProto
    opsets: dict
    source_name: str
    sha256: str
    # main-graph initializers' bytes by name, kept out of the proto (_load_external_data)
    external: dict = dataclasses.field(default_factory=dict, repr=False)


def read_checked(model: str | os.PathLike | bytes | onnx.ModelProto,
                 limits: ImportLimits = ImportLimits()) -> CheckedModel:
    """Reads, parses and checks a model: what import_model and the model summary share."""
    data, source_name, model_dir = _read(model, limits)
    digest = hashlib.sha256(data)
    proto = _parse(data, source_name)
    del data  # the parsed proto holds every weight: a second copy would double the peak memory
    _check_size_limits(proto, limits)
    external = [(t, where) for t, where in _tensors(proto) if _is_external(t)]
    # an archive's members are its own bytes; a directory's files are read only where allowed
    if external and (model_dir is None or isinstance(model_dir, str) and not limits.external_data):
        _refuse_external_data(*external[0], model_dir)
    # ops with an ONNX function body and no lowering of their own become local functions of it
    proto = expand_function_ops(proto, source_name)
    # onnxruntime's quantized contrib ops likewise, each its float op between DQ and Q (qlinear.py)
    proto = expand_qlinear_ops(proto, source_name)
    if len(proto.functions):
        proto = _inline_functions(proto, source_name)  # model-local functions become plain nodes
        _check_size_limits(proto, limits)
    side: dict[str, bytes] = {}
    if external:  # after inlining, whose C++ copy of the model would otherwise hold every weight
        side = _load_external_data(proto, model_dir, limits, digest)
    opsets = _opsets(proto)
    _check_domains(proto.graph)
    _sort_graph(proto.graph, outer=set())
    chain = _longest_chain(proto.graph)
    if chain > limits.max_chain:
        raise ModelError(f"the model's longest chain of dependent nodes is {chain}, over the limit of "
                         f"{limits.max_chain}", hint="raise ImportLimits.max_chain if the model is genuine")
    try:
        onnx.checker.check_model(_as_onnxruntime_reads_it(_without_weights(proto)), full_check=False)
    except onnx.checker.ValidationError as e:
        raise ModelError(f"{source_name} fails the ONNX checker: {_first_lines(str(e))}",
                         hint="re-export the model or repair it; onnx.checker.check_model shows the same error") from None
    _check_registry(proto.graph)

    return CheckedModel(proto, opsets, source_name, digest.hexdigest(), side)


# --- reading -------------------------------------------------------------------------------------

def _read(model, limits: ImportLimits) -> tuple[bytes, str, str | ModelArchive | None]:
    """The serialized bytes (size-checked before reading), a display name for messages, and where
    external data is read from: the model file's directory, the model archive it came in
    (frontend/model_archive.py), or None for bytes or a proto (they have none)."""
    if isinstance(model, onnx.ModelProto):
        size = model.ByteSize()
        _check_bytes(size, limits, "the model")
        return model.SerializeToString(), _IN_MEMORY, None
    if isinstance(model, (bytes, bytearray, memoryview)):
        _check_bytes(len(model), limits, "the model")
        return bytes(model), _IN_MEMORY, None
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        try:
            st = os.stat(path)
        except OSError as e:
            raise ModelError(f"cannot read model file {path}: {e.strerror}") from None
        if not os.path.isfile(path):
            raise ModelError(f"{path} is not a regular file")
        with open(path, "rb") as f:
            head = f.read(512)         # a compressed file or a model archive shows in its first bytes
            packed = compression(head)
            if packed:
                raise ModelError(f"{path} is {packed}-compressed, not an ONNX model or an uncompressed tar of one",
                                 hint="decompress it; a model with its data files goes as one uncompressed tar "
                                      "(`tar cf model.tar model.onnx model.onnx.data`)")
            archive = is_tar(head)     # a model archive: its .onnx member, its members the external data
            if not archive:
                _check_bytes(st.st_size, limits, path)
                f.seek(0)          # one read: joining the head to the rest would copy the whole model
                data = f.read(limits.max_bytes + 1)  # (it may grow after stat)
        if archive:
            return _read_archive(path, limits)
        _check_bytes(len(data), limits, path)
        return data, os.path.basename(path), os.path.realpath(os.path.dirname(os.path.abspath(path)))
    raise TypeError(f"import_model takes a path, bytes or an onnx.ModelProto, not {type(model).__name__}")


def _read_archive(path: str, limits: ImportLimits) -> tuple[bytes, str, ModelArchive]:
    archive = open_archive(path)
    offset, size = archive.member(archive.model)
    _check_bytes(size, limits, f"{path}:{archive.model}")
    with open(archive.path, "rb") as f:
        f.seek(offset)
        data = f.read(size)
    if len(data) != size:
        raise ModelError(f"{path} ends inside {archive.model}", hint="the archive changed while it was read")
    return data, archive.name, archive


def _check_bytes(size: int, limits: ImportLimits, what: str) -> None:
    if size > limits.max_bytes:
        raise ModelError(f"{what} is {size} bytes, over the limit of {limits.max_bytes} bytes",
                         hint="raise ImportLimits.max_bytes if the model is genuine")


def _parse(data: bytes, source_name: str) -> onnx.ModelProto:
    proto = onnx.ModelProto()
    try:
        proto.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as e:
        raise ModelError(f"{source_name} is not a valid ONNX model: {e or 'the protobuf does not parse'}",
                         hint="the file may be truncated or not an ONNX file") from None
    if not proto.HasField("graph"):
        raise ModelError(f"{source_name} is not a valid ONNX model: it has no graph",
                         hint="the file may be truncated or not an ONNX file")
    _check_strings(proto, source_name)
    return proto


def _check_strings(proto: onnx.ModelProto, source_name: str) -> None:
    """Every `string` field of the model, at any depth, holds valid UTF-8.

    ONNX's schema is proto2, whose parser does not check that: protobuf's upb backend hands an
    invalid one back as `bytes` instead of `str`, and the ONNX checker (its messages quote names)
    and the importer then fail with UnicodeDecodeError or TypeError far from the cause. `bytes`
    fields (raw_data, string tensors, attribute values) may hold anything and are not looked at.
    The walk is iterative (subgraphs nest as deep as protobuf lets a file nest) and keeps no
    paths; only when it finds a bad string does a second walk say where it is."""
    stack: list = [proto]
    while stack:
        for field, value in _set_fields(stack.pop()):
            kind, repeated = _FIELD_KINDS.get(field) or _field_kind(field)
            if kind == _MESSAGE:
                if repeated:
                    stack.extend(value)
                else:
                    stack.append(value)
            elif kind == _STRING and (any(type(v) is not str for v in value) if repeated else
                                      type(value) is not str):
                raise _not_utf8(proto, source_name)


_MESSAGE, _STRING, _OTHER = 0, 1, 2
_FIELD_KINDS: dict = {}  # field descriptor -> (kind, repeated)
_NOT_BYTES: dict = {}    # message descriptor -> its fields that are not `bytes`, or None if all are


def _set_fields(msg) -> list:
    """`msg.ListFields()` without its `bytes` fields where it has any: reading one copies it into
    Python (a weight's raw_data, hundreds of megabytes in a large model), and they are not
    checked."""
    desc = msg.DESCRIPTOR
    if desc not in _NOT_BYTES:
        kept = tuple(f for f in desc.fields if f.type != f.TYPE_BYTES)
        _NOT_BYTES[desc] = kept if len(kept) < len(desc.fields) else None
    kept = _NOT_BYTES[desc]
    if kept is None:
        return msg.ListFields()
    return [(f, getattr(msg, f.name)) for f in kept
            if (len(getattr(msg, f.name)) if f.is_repeated else msg.HasField(f.name))]


def _field_kind(field) -> tuple[int, bool]:
    kind = (_MESSAGE if field.type == field.TYPE_MESSAGE else
            _STRING if field.type == field.TYPE_STRING else _OTHER)
    _FIELD_KINDS[field] = (kind, field.is_repeated)
    return kind, field.is_repeated


def _not_utf8(proto: onnx.ModelProto, source_name: str) -> ModelError:
    """The error for a string field that is not valid UTF-8, naming its path in the model."""
    stack: list = [(proto, "", None)]  # (message, its path, the node it belongs to)
    while stack:
        msg, path, node = stack.pop()
        if isinstance(msg, onnx.NodeProto) and type(msg.name) is str:
            node = msg.name or None
        for field, value in msg.ListFields():
            kind, repeated = _FIELD_KINDS.get(field) or _field_kind(field)
            items = list(enumerate(value)) if repeated else [(None, value)]
            for i, v in items:
                where = f"{path}.{field.name}" if i is None else f"{path}.{field.name}[{i}]"
                if kind == _MESSAGE:
                    stack.append((v, where, node))
                elif kind == _STRING and type(v) is not str:
                    shown = repr(bytes(v[:40])) + ("..." if len(v) > 40 else "")
                    return ModelError(f"{source_name} is not a valid ONNX model: a string field is not "
                                      f"valid UTF-8 ({where.lstrip('.')} = {shown})", node=node,
                                      hint="the file is corrupt or its exporter is broken; re-export the model")
    return ModelError(f"{source_name} is not a valid ONNX model: a string field is not valid UTF-8")


def _inline_functions(proto: onnx.ModelProto, source_name: str) -> onnx.ModelProto:
    """The model with its local functions' bodies in place of their calls. ONNX's inliner checks
    the functions as it goes: a recursive or duplicated function is a ValidationError, a call with
    more inputs or outputs than the function declares fails a C++ assertion (RuntimeError)."""
    try:
        return onnx.inliner.inline_local_functions(proto)
    except (onnx.checker.ValidationError, RuntimeError) as e:
        raise ModelError(f"{source_name} has model-local functions that cannot be inlined: "
                         f"{_first_lines(str(e))}", hint="re-export the model or repair it; "
                         "onnx.inliner.inline_local_functions shows the same error") from None


def _as_onnxruntime_reads_it(view: onnx.ModelProto) -> onnx.ModelProto:
    """The checker's copy with the ops onnxruntime adds to the ONNX domain (SimplifiedLayerNormalization,
    which its optimizer writes) moved to onnxruntime's own domain: ONNX has no schema for them, and
    the registry types them itself (compiler/ops/contrib.py)."""
    from ..ops.contrib import MS, ORT_ONNX_DOMAIN_OPS
    moved = False
    for g, _ in _all_graphs(view.graph):
        for n in g.node:
            if n.domain in ("", "ai.onnx") and n.op_type in ORT_ONNX_DOMAIN_OPS and not onnx.defs.has(n.op_type):
                n.domain = MS
                moved = True
    if moved and not any(o.domain == MS for o in view.opset_import):
        view.opset_import.append(onnx.helper.make_opsetid(MS, 1))
    return view


def _without_weights(proto: onnx.ModelProto) -> onnx.ModelProto:
    """The model for the ONNX checker, its main graph's initializers emptied (name and type kept).

    The checker serializes the whole model into C++; with the weights that is two more copies of
    them at once. Their payloads are checked where they are read (tensor_to_array)."""
    return weightless_copy(proto, keep_dims=False)


def weightless_copy(proto: onnx.ModelProto, *, keep_dims: bool, keep_elements: int = 0) -> onnx.ModelProto:
    """The model without its main graph's initializer payloads (names and types kept; their dims too
    when keep_dims, else [0]); initializers of at most keep_elements elements are kept whole."""
    view = onnx.ModelProto()
    for field, value in proto.ListFields():
        if field.name != "graph":
            _copy_field(view, field, value)
    for field, value in proto.graph.ListFields():
        if field.name != "initializer":
            _copy_field(view.graph, field, value)
            continue
        for t in value:
            if keep_elements and math.prod(t.dims) <= keep_elements:
                view.graph.initializer.add().CopyFrom(t)
            else:
                view.graph.initializer.add(name=t.name, data_type=t.data_type, dims=t.dims if keep_dims else [0])
    return view


def _copy_field(dst, field, value) -> None:
    if field.is_repeated:
        getattr(dst, field.name).extend(value)
    elif field.type == field.TYPE_MESSAGE:
        getattr(dst, field.name).CopyFrom(value)
    else:
        setattr(dst, field.name, value)


def _first_lines(text: str, n: int = 3) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " ".join(lines[:n])


# --- external data -------------------------------------------------------------------------------
# A model over 2 GiB cannot be one protobuf, so exporters keep its weights in files beside it
# (onnxruntime-genai writes model.onnx + model.onnx.data). They are read only for a model given as
# a path, and only from inside its own directory: a location is a name the model's author chose.

_BESIDE_HINT = "keep the model's external data files beside it, as it was saved"
_SINGLE_FILE_HINT = ("save the model as one file (it must be under 2 GiB): "
                     "onnx.save_model(onnx.load(path), out, save_as_external_data=False)")


def _tensors(proto: onnx.ModelProto):
    """(tensor, where it is for messages) for every tensor that can hold data: initializers, sparse
    initializers and tensor attributes, in every graph, subgraph and model-local function."""
    graphs = [g for g, _ in _all_graphs(proto.graph)]
    for f in proto.functions:
        for n in f.node:
            for a in n.attribute:
                subgraphs = [a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)
                graphs += [g for sg in subgraphs for g, _ in _all_graphs(sg)]
    for g in graphs:
        for t in g.initializer:
            yield t, "initializer"
        for st in g.sparse_initializer:
            yield st.values, "sparse initializer"
            yield st.indices, "sparse initializer"
    for nodes in [g.node for g in graphs] + [f.node for f in proto.functions]:
        for n in nodes:
            for a in n.attribute:
                where = f"attribute '{a.name}' of node '{n.name or n.op_type}'"
                for t in [a.t] if a.type == onnx.AttributeProto.TENSOR else a.tensors:
                    yield t, where
                sparse = [a.sparse_tensor] if a.type == onnx.AttributeProto.SPARSE_TENSOR else a.sparse_tensors
                for st in sparse:
                    yield st.values, where
                    yield st.indices, where


def _is_external(t: onnx.TensorProto) -> bool:
    return t.data_location == onnx.TensorProto.EXTERNAL or len(t.external_data) > 0


def _location(t: onnx.TensorProto) -> str:
    return next((e.value for e in t.external_data if e.key == "location"), "<no location given>")


def _refuse_external_data(t: onnx.TensorProto, where: str, model_dir: str | None) -> None:
    """Refuses a tensor whose bytes live in another file, for a model that may not read one; no such
    file is ever opened."""
    if model_dir is None:
        why = "a model given as bytes or an onnx.ModelProto cannot reference external data files"
        hint = "compile it from its file path, with its data files beside it, or " + _SINGLE_FILE_HINT
    else:
        why = "this import reads no external data files (ImportLimits.external_data is off, as in the service)"
        hint = ("upload the model with its data files as one uncompressed tar (`tar cf model.tar model.onnx "
                "model.onnx.data`), or " + _SINGLE_FILE_HINT)
    raise ModelError(f"tensor '{t.name}' ({where}) keeps its data in the external file '{_location(t)}'; {why}",
                     hint=hint)


@dataclass(frozen=True)
class _ExternalRange:
    """Where one tensor's bytes are, checked: a regular file inside the model's directory, and a
    range within it."""

    tensor: onnx.TensorProto
    location: str                       # as the model names it
    path: str                           # resolved (no symlink left), inside the model's directory
    offset: int
    length: int


SIDE_BYTES = 1 << 20    # an external weight at least this large stays out of the proto (_load_external_data)


def _load_external_data(proto: onnx.ModelProto, model_dir: str, limits: ImportLimits, digest) -> dict[str, bytes]:
    """Reads every external tensor's bytes. Every location, file and range is checked, and the total
    bounded, before the first file is opened. `digest` takes each tensor's bytes too (a model's
    identity is its weights as well), length first so that two splits of the same bytes differ; the
    order (by location, then offset) follows from the model bytes it already holds.

    A main-graph initializer of SIDE_BYTES or more, of a type NumPy reads as it is stored, is
    returned by name (the import makes its array over these very bytes, in the main graph's scope);
    the rest go into the proto. A name that another tensor of the model has too (a subgraph's) is
    not kept aside: the name must say which tensor's bytes these are. Protobuf copies bytes on the
    way in and again on the way out: three copies of every weight, seconds for a model of
    gigabytes."""
    names = collections.Counter(t.name for t, _ in _tensors(proto))
    main = {t.name for t in proto.graph.initializer if names[t.name] == 1}
    side: dict[str, bytes] = {}
    ranges, total = [], 0
    for t, where in _tensors(proto):
        if not _is_external(t):
            continue
        r = _external_range(t, where, model_dir)
        total += r.length
        if total > limits.max_external_bytes:
            raise ModelError(f"tensor '{t.name}' ({where}) brings the external data read to {total} bytes, over the "
                             f"limit of {limits.max_external_bytes} bytes",
                             hint="raise ImportLimits.max_external_bytes if the model is genuine")
        ranges.append(r)
    ranges.sort(key=lambda r: (r.location, r.offset, r.length))
    for _, same_file in itertools.groupby(ranges, key=lambda r: r.location):
        same_file = list(same_file)
        with _open_regular(same_file[0]) as f:
            for r in same_file:
                data = _read_range(f, r)
                digest.update(len(data).to_bytes(8, "little"))
                digest.update(data)
                if r.tensor.name in main and _stored_as_read(r.tensor, len(data)):
                    side[r.tensor.name] = data
                    continue
                r.tensor.raw_data = data
                del r.tensor.external_data[:]
                r.tensor.data_location = onnx.TensorProto.DEFAULT
    return side


def _stored_as_read(t: onnx.TensorProto, length: int) -> bool:
    """Whether `length` bytes of a tensor of t's type and dims, read with NumPy's dtype of that type,
    are its elements (not for sub-byte types, nor a payload of the wrong length: those take
    onnx's path and its errors)."""
    if length < SIDE_BYTES:
        return False
    try:
        dt = DType.from_onnx(t.data_type)
    except TypeError:
        return False
    return dt.np.itemsize * math.prod(t.dims) == length and sys.byteorder == "little"


def _external_range(t: onnx.TensorProto, where: str, model_dir: str | ModelArchive) -> _ExternalRange:
    """Checks where a tensor's external bytes are without opening anything: the location is
    relative and, symlinks followed, inside the model's directory (or names a regular member of
    its archive); the file is regular; the range lies within it."""
    what = f"tensor '{t.name}' ({where})"
    entries = {e.key: e.value for e in t.external_data}
    location = entries.get("location", "")
    stay_inside = ("external data files must lie in the model's directory, named relative to it "
                   "(no absolute path, no '..' or symlink leading out of it)")
    if t.data_location != onnx.TensorProto.EXTERNAL:
        raise ModelError(f"{what} has external_data entries ('{_location(t)}') but its data_location is not "
                         "EXTERNAL", hint="the model is malformed; re-export it")
    if not location:
        raise ModelError(f"{what} keeps its data in an external file but names none",
                         hint="the model is malformed; re-export it")
    if "\0" in location or os.path.isabs(location):
        raise ModelError(f"{what} keeps its data in '{location}', which is not a relative file name", hint=stay_inside)
    offset = _external_int(entries, "offset", what, location) or 0
    length = _external_int(entries, "length", what, location)
    if isinstance(model_dir, ModelArchive):
        return _archive_range(t, what, model_dir, location, offset, length)
    path = os.path.realpath(os.path.join(model_dir, location))
    if os.path.commonpath([path, model_dir]) != model_dir:
        raise ModelError(f"{what} keeps its data in '{location}', outside the model's directory {model_dir}",
                         hint=stay_inside)
    try:
        st = os.stat(path)
    except OSError as e:
        raise ModelError(f"{what} keeps its data in '{location}', which cannot be read: {e.strerror}",
                         hint=_BESIDE_HINT) from None
    if not stat.S_ISREG(st.st_mode):
        raise ModelError(f"{what} keeps its data in '{location}', which is not a regular file", hint=stay_inside)
    return _ExternalRange(t, location, path, offset, _range_length(what, location, offset, length, st.st_size))


def _range_length(what: str, location: str, offset: int, length: int | None, size: int) -> int:
    """The bytes a tensor reads from `offset` of a file (or archive member) of `size` bytes: its
    length, or to the end; an error where the range does not lie within."""
    end = size if length is None else offset + length
    if offset > size or end > size:
        raise ModelError(f"{what} reads bytes {offset} to {end} of '{location}', which has {size} bytes",
                         hint="the data file is truncated or belongs to another model")
    return end - offset


def _archive_range(t: onnx.TensorProto, what: str, archive: ModelArchive, location: str, offset: int,
                   length: int | None) -> _ExternalRange:
    """A tensor's bytes in a member of the model's archive: the range is checked against the
    member, then placed at the member's offset in the archive file."""
    name = archive.resolve(location)
    found = archive.member(name) if name is not None else None
    if found is None:
        why = "which leads out of the archive" if name is None else "which is no regular file of the archive"
        raise ModelError(f"{what} keeps its data in '{location}', {why} "
                         f"({os.path.basename(archive.path)})",
                         hint="put the data files the model names in the archive beside its .onnx, as it was saved")
    start, size = found
    return _ExternalRange(t, location, archive.path, start + offset, _range_length(what, location, offset, length, size))


def _external_int(entries: dict, key: str, what: str, location: str) -> int | None:
    """An external_data entry that is a byte count (offset, length), or None where it is not given."""
    if key not in entries:
        return None
    try:
        value = int(entries[key])
    except ValueError:
        value = -1
    if value < 0:
        raise ModelError(f"{what} gives '{location}' the {key} '{entries[key]}', not a byte count",
                         hint="the model is malformed; re-export it")
    return value


def _open_regular(r: _ExternalRange):
    """The checked file, opened without following a symlink or waiting on a pipe put there since it
    was checked, and checked again once open."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(r.path, flags)
    except OSError as e:
        raise ModelError(f"tensor '{r.tensor.name}' keeps its data in '{r.location}', which cannot be read: "
                         f"{e.strerror}", hint=_BESIDE_HINT) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ModelError(f"tensor '{r.tensor.name}' keeps its data in '{r.location}', which is not a regular file")
    return os.fdopen(fd, "rb")


def _read_range(f, r: _ExternalRange) -> bytes:
    f.seek(r.offset)
    data = f.read(r.length)
    if len(data) != r.length:  # the file shrank since it was checked
        raise ModelError(f"tensor '{r.tensor.name}' reads bytes {r.offset} to {r.offset + r.length} of "
                         f"'{r.location}', which ends before them", hint="the data file changed while it was read")
    return data


# --- structure checks ----------------------------------------------------------------------------

def _all_graphs(proto_graph: onnx.GraphProto):
    """(graph, nesting depth) of a graph and every subgraph in it, without recursion."""
    stack = [(proto_graph, 0)]
    while stack:
        g, depth = stack.pop()
        yield g, depth
        for n in g.node:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    stack.append((a.g, depth + 1))
                elif a.type == onnx.AttributeProto.GRAPHS:
                    stack.extend((sg, depth + 1) for sg in a.graphs)


def _check_size_limits(proto: onnx.ModelProto, limits: ImportLimits) -> None:
    count = sum(len(f.node) for f in proto.functions)
    for g, depth in _all_graphs(proto.graph):
        if depth > limits.max_nesting:
            raise ModelError(f"subgraphs are nested {depth} deep, over the limit of {limits.max_nesting}",
                             hint="raise ImportLimits.max_nesting if the model is genuine")
        count += len(g.node)
        if count > limits.max_nodes:
            raise ModelError(f"the model has more than {limits.max_nodes} nodes",
                             hint="raise ImportLimits.max_nodes if the model is genuine")


def _opsets(proto: onnx.ModelProto) -> dict[str, int]:
    opsets = {("" if o.domain == "ai.onnx" else o.domain): int(o.version) for o in proto.opset_import}
    if "" not in opsets:
        raise ModelError("the model imports no version of the default ONNX operator set (ai.onnx)",
                         hint="re-export the model with an opset_import for domain ''")
    newest = onnx.defs.onnx_opset_version()
    if opsets[""] > newest:
        # an op's meaning may change with a version: one this onnx has no schema for is not guessed
        raise ModelError(f"the model imports version {opsets['']} of the default ONNX operator set; the newest "
                         f"Brickyard knows (onnx {onnx.__version__}) is {newest}",
                         hint=f"re-export the model at opset {newest} or lower (torch.onnx.export's "
                              "opset_version, or onnx.version_converter.convert_version)")
    return opsets


def _check_domains(graph: onnx.GraphProto) -> None:
    """Ops outside the standard domain are refused unless the registry defines them."""
    for g, _ in _all_graphs(graph):
        for n in g.node:
            if n.domain in ("", "ai.onnx"):
                continue
            try:
                lookup(n.op_type, n.domain, node=n.name)
            except UnsupportedOp:
                if n.domain == "com.microsoft.nchwc":
                    # onnxruntime's CPU blocked layout, written when a session saves its model at
                    # ORT_ENABLE_ALL: tied to the machine that optimized it, by onnxruntime's own warning
                    raise UnsupportedOp(n.op_type, node=n.name or None, domain=n.domain, detail=(
                        "this is onnxruntime's CPU-specific blocked layout, saved at ORT_ENABLE_ALL; save "
                        "the optimized model at ORT_ENABLE_EXTENDED (whose FusedConv and FusedMatMul "
                        "Brickyard compiles) or upload the original model")) from None
                raise UnsupportedOp(n.op_type, node=n.name or None, domain=n.domain, detail=(
                    f"operators of domain '{n.domain}' are not supported; Brickyard implements the "
                    "standard ONNX operators (domain ai.onnx) and a few of onnxruntime's com.microsoft "
                    "ones (compiler/ops/contrib*.py)")) from None


def _check_registry(graph: onnx.GraphProto) -> None:
    """Every op needs a registry entry; one error names the first and lists the others."""
    missing: dict[tuple[str, str], str] = {}
    for g, _ in _all_graphs(graph):
        for n in g.node:
            domain = "" if n.domain == "ai.onnx" else n.domain
            if domain == "" and (n.op_type in FRONTEND_OPS or n.op_type in SEQUENCE_OPS):
                continue
            try:
                lookup(n.op_type, domain, node=n.name)
            except UnsupportedOp:
                missing.setdefault((domain, n.op_type), n.name or n.op_type)
    if missing:
        (domain, op), node = next(iter(missing.items()))
        others = [o for (_, o) in list(missing)[1:]]
        detail = "no definition in compiler/ops/"
        if others:
            detail += f" (also unsupported: {', '.join(others[:10])}{', ...' if len(others) > 10 else ''})"
        raise UnsupportedOp(op, node=node, domain=domain, detail=detail)


def _reads(n: onnx.NodeProto) -> list[str]:
    """Values a node reads: its inputs and whatever its subgraphs read from outside themselves."""
    out = [i for i in n.input if i]
    for a in n.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            out.extend(_free_values(a.g))
        elif a.type == onnx.AttributeProto.GRAPHS:
            for sg in a.graphs:
                out.extend(_free_values(sg))
    return out


def _free_values(g: onnx.GraphProto) -> set[str]:
    defined = {i.name for i in g.input} | {t.name for t in g.initializer}
    defined |= {st.values.name for st in g.sparse_initializer}
    free: set[str] = set()
    for n in g.node:
        free.update(v for v in _reads(n) if v not in defined)
        defined.update(o for o in n.output if o)
    free.update(o.name for o in g.output if o.name not in defined)
    return free


def _sort_graph(g: onnx.GraphProto, outer: set[str]) -> None:
    """Puts the nodes of g (and of its subgraphs) in topological order; a cycle is a ModelError."""
    producer: dict[str, int] = {}
    for i, n in enumerate(g.node):
        for o in n.output:
            if o:
                producer[o] = i
    reads = [_reads(n) for n in g.node]
    defined = {i.name for i in g.input} | {t.name for t in g.initializer} | outer
    defined |= {st.values.name for st in g.sparse_initializer}
    in_order, seen = True, set(defined)
    for i, n in enumerate(g.node):
        if any(v not in seen and v in producer for v in reads[i]):
            in_order = False
            break
        seen.update(n.output)
    if not in_order:
        deps = [{producer[v] for v in r if v in producer and v not in defined} for r in reads]
        users: list[list[int]] = [[] for _ in g.node]
        for i, d in enumerate(deps):
            for j in d:
                users[j].append(i)
        waiting = [len(d) for d in deps]
        ready = [i for i, w in enumerate(waiting) if w == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            i = heapq.heappop(ready)  # lowest index first: keeps the file's order where it can
            order.append(i)
            for u in users[i]:
                waiting[u] -= 1
                if waiting[u] == 0:
                    heapq.heappush(ready, u)
        if len(order) != len(g.node):
            stuck = [g.node[i].name or g.node[i].op_type for i in range(len(g.node)) if waiting[i] > 0]
            raise ModelError(f"the graph '{g.name}' has a cycle through nodes {', '.join(stuck[:5])}",
                             node=stuck[0], hint="the model is malformed; re-export it")
        nodes = []
        for i in order:
            c = onnx.NodeProto()
            c.CopyFrom(g.node[i])
            nodes.append(c)
        del g.node[:]
        g.node.extend(nodes)
    visible = defined | set(producer)
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                _sort_graph(a.g, visible)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for sg in a.graphs:
                    _sort_graph(sg, visible)


def _read_names(graph: onnx.GraphProto) -> set[str]:
    """Every value name that some node (in any graph) or some graph output reads."""
    names: set[str] = set()
    for g, _ in _all_graphs(graph):
        names.update(o.name for o in g.output)
        for n in g.node:
            names.update(n.input)
    return names


def _weight_reads(graph: onnx.GraphProto) -> frozenset[str]:
    """The main graph's values computed from its constants alone that only such computations read:
    a weight that a standardisation or weight normalisation rewrites in the graph, and what it
    passes through on the way. Not an output, nor read inside a subgraph, nor by a node that also
    reads the data (a tied embedding's Gather), so folding them past the size limit
    (graph_import, fold.within_inputs) adds nothing the model would still hold beside them."""
    static = {i.name for i in graph.initializer} - {i.name for i in graph.input}   # (IR < 4 lists them as inputs)
    for n in graph.node:
        if n.op_type in ("Constant", "ConstantOfShape") or (
                n.op_type not in ("If", "Loop", "Scan", "RandomNormal", "RandomUniform", "RandomNormalLike",
                                  "RandomUniformLike", "Multinomial", "Bernoulli")
                and n.input and all(v == "" or v in static for v in n.input)):
            static.update(o for o in n.output if o)
    excluded = {o.name for o in graph.output}
    for n in graph.node:     # what a node that runs with the model reads (the data's, a Loop on constants)
        if any(o and o not in static for o in n.output):
            excluded.update(n.input)
    for sg, _ in _all_graphs(graph):
        if sg is not graph:
            excluded.update(v for n in sg.node for v in n.input)
    return frozenset(static - excluded)


def _longest_chain(g: onnx.GraphProto) -> int:
    """Longest chain of dependent nodes; a node with subgraphs adds its longest body chain."""
    depth: dict[str, int] = {}
    longest = 0
    for n in g.node:
        d = max((depth.get(v, 0) for v in _reads(n)), default=0) + 1
        bodies = [a.g for a in n.attribute if a.type == onnx.AttributeProto.GRAPH]
        bodies += [sg for a in n.attribute if a.type == onnx.AttributeProto.GRAPHS for sg in a.graphs]
        d += max((_longest_chain(b) for b in bodies), default=0)
        for o in n.output:
            depth[o] = d
        longest = max(longest, d)
    return longest


# --- inputs and outputs --------------------------------------------------------------------------

def runtime_inputs(g: onnx.GraphProto) -> list[onnx.ValueInfoProto]:
    """The graph inputs a caller feeds: those without an initializer (a default value)."""
    inits = {t.name for t in g.initializer} | {st.values.name for st in g.sparse_initializer}
    return [vi for vi in g.input if vi.name not in inits]


def _input_types(g: onnx.GraphProto, input_shapes: dict) -> list[tuple[str, TensorType]]:
    """Static types of the runtime inputs, dynamic dimensions fixed by input_shapes (frontend/dims.py)."""
    runtime = runtime_inputs(g)
    for vi in runtime:
        if vi.type.WhichOneof("value") != "tensor_type":
            raise UnsupportedOp("Input", node=vi.name, detail=f"input '{vi.name}' is a "
                                f"{vi.type.WhichOneof('value') or 'value of unknown kind'}; only tensors are supported")
    shapes = resolve_shapes({vi.name: declared_dims(vi) for vi in runtime}, input_shapes)
    return [(vi.name, TensorType(dtype_of(vi.type.tensor_type.elem_type, op="Input", node=vi.name,
                                          what=f"input '{vi.name}'"), shapes[vi.name])) for vi in runtime]


def _declared_output_mismatches(g: onnx.GraphProto, graph: Graph) -> list[str]:
    """Warnings where a declared graph output type disagrees with the inferred one."""
    out = []
    for vi in g.output:
        t = graph.type_of(vi.name)
        tt = vi.type.tensor_type
        if tt.elem_type and tt.elem_type != t.dtype.value:
            out.append(f"output '{vi.name}' is declared as {elem_type_name(tt.elem_type)} "
                       f"but computes {t.dtype.name}")
        dims = declared_dims(vi)
        if dims is not None and (len(dims) != t.rank or
                                 any(isinstance(d, int) and d != s for d, s in zip(dims, t.shape))):
            out.append(f"output '{vi.name}' is declared with shape {dims} but computes {list(t.shape)}")
    return out
