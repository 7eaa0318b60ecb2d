"""Ops ONNX defines by a function body that the op registry has no lowering for (ai.onnx.preview's
FlexAttention: its score_mod and prob_mod subgraphs become plain nodes of its body): each call
becomes a call of a model-local function holding the body ONNX gives for it (the context-dependent
body built for that node's attributes and input types, or the op's fixed body; of the latest opset
ONNX defines one for up to the model's), which the import then inlines like any model-local
function. An op the registry lowers keeps its own lowering (a fused kernel is worth more than its
body's ops)."""
from __future__ import annotations

import onnx

from ..errors import ModelError, UnsupportedOp
from ..ops.registry import lookup

EXPANDED_DOMAIN = "brickyard.expanded"


def expand_function_ops(proto: onnx.ModelProto, source_name: str) -> onnx.ModelProto:
    """`proto` with every call of an op it has no lowering for but ONNX gives a body replaced by a
    call of a local function of that body (a call with an input of no tensor type, a sequence,
    stays: the import then names the op unsupported); unchanged when there is none."""
    opsets = {o.domain or "": o.version for o in proto.opset_import}
    calls = [n for g in _graphs(proto.graph) for n in g.node if _body_schema(n, opsets) is not None]
    if not calls:
        return proto
    types = _value_types(proto)
    if any(i and i not in types for n in calls for i in n.input):
        types.update(_inferred_types(proto))
    expanded = 0
    for k, node in enumerate(calls):
        domain = _domain(node)
        schema = _body_schema(node, opsets)
        version = _body_version(schema, opsets[domain])
        if version is None:
            continue
        if version in schema.context_dependent_function_opset_versions:
            if any(i and i not in types for i in node.input):
                continue    # a sequence or an untyped input: ONNX builds no body without its type
            arg_types = [(types[i] if i else onnx.TypeProto()).SerializeToString() for i in node.input]
            try:
                built = schema.get_context_dependent_function_with_opset_version(
                    version, node.SerializeToString(), arg_types)
            except Exception as e:  # noqa: BLE001 - ONNX refuses these attributes or input types
                raise ModelError(f"{source_name}: ONNX cannot expand {domain or 'ai.onnx'}::{node.op_type} "
                                 f"{node.name!r} into its function body: {str(e).splitlines()[0]}") from None
            body = onnx.FunctionProto()
            body.ParseFromString(built)
        else:
            body = onnx.FunctionProto()
            body.ParseFromString(schema.get_function_with_opset_version(version))
        if not body.node:
            continue        # ONNX built no body for this call: the import names the op unsupported
        body.name, body.domain = f"{node.op_type}_{k}", EXPANDED_DOMAIN
        # the model's opsets: ONNX's inliner leaves a function whose imports differ uninlined (a body
        # written at an older opset, Celu's at 12, reads the same under the model's)
        own = [o for o in body.opset_import if o.domain not in {m.domain for m in proto.opset_import}]
        del body.opset_import[:]
        body.opset_import.extend([*proto.opset_import, *own])
        declared = set(body.attribute) | {a.name for a in body.attribute_proto}
        # graph attributes are part of the context-dependent body already; the rest bind by name
        kept = [a for a in node.attribute if a.type not in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                and a.name in declared]
        del node.attribute[:]
        node.attribute.extend(kept)
        node.op_type, node.domain = body.name, EXPANDED_DOMAIN
        proto.functions.append(body)
        expanded += 1
    if expanded:
        proto.opset_import.append(onnx.helper.make_opsetid(EXPANDED_DOMAIN, 1))
    return proto


def _domain(node: onnx.NodeProto) -> str:
    return "" if node.domain in ("", "ai.onnx") else node.domain


def _body_schema(node: onnx.NodeProto, opsets: dict[str, int]):
    """The op's ONNX schema where the registry has no lowering for it and ONNX gives it a body."""
    domain = _domain(node)
    if domain == EXPANDED_DOMAIN or domain not in opsets:
        return None
    try:
        lookup(node.op_type, domain, node=node.name)
    except UnsupportedOp:
        try:
            schema = onnx.defs.get_schema(node.op_type, opsets[domain], domain)
        except onnx.defs.SchemaError:
            return None
        return schema if schema.has_function or schema.has_context_dependent_function else None
    return None     # the registry lowers it


def _body_version(schema, opset: int) -> int | None:
    """The opset of the op's body for a model at `opset`: the latest ONNX defines up to it."""
    versions = [v for v in (*schema.function_opset_versions, *schema.context_dependent_function_opset_versions)
                if v <= opset]
    return max(versions) if versions else None


def _graphs(g: onnx.GraphProto):
    yield g
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from _graphs(a.g)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for sg in a.graphs:
                    yield from _graphs(sg)


def _value_types(proto: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    """The types the model states: its graphs' inputs, outputs, value_info and initializers."""
    types: dict[str, onnx.TypeProto] = {}
    for g in _graphs(proto.graph):
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            if vi.type.HasField("tensor_type"):
                types[vi.name] = vi.type
        for t in g.initializer:
            types[t.name] = onnx.helper.make_tensor_type_proto(t.data_type, list(t.dims))
    return types


def _inferred_types(proto: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    """Every value's type by ONNX's shape inference (only where a call's input type is not stated)."""
    try:
        inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=False)
    except Exception:  # noqa: BLE001 - what inference cannot type, the body's builder is asked without
        return {}
    return _value_types(inferred)
