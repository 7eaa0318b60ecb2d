"""Shared by the op tests: a one-node ONNX model for an op, and its node in IR form."""
from __future__ import annotations

import onnx
from onnx import helper

from compiler.frontend.convert import plain_attribute
from compiler.ir.graph import Node


def one_node_model(op: str, inputs: list, attrs: dict, opset: int, nout: int = 1) -> tuple[onnx.ModelProto, onnx.NodeProto]:
    """Inputs x0.. (None = omitted optional input; trailing omissions dropped), outputs y0.. untyped."""
    names = ["" if a is None else f"x{k}" for k, a in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    outs = [f"y{k}" for k in range(nout)]
    node = helper.make_node(op, names, outs, name=op.lower(), **attrs)
    vis = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in zip(names, inputs) if n]
    g = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info(o, 0, None) for o in outs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m, node


def ir_node(node: onnx.NodeProto) -> Node:
    """The IR form of an ONNX node, attributes sorted by name."""
    attrs = tuple(sorted((a.name, plain_attribute(a, op=node.op_type, node=node.name)) for a in node.attribute))
    return Node(node.op_type, node.name, tuple(node.input), tuple(node.output), attrs)
