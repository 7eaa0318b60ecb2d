"""onnxruntime's quantized com.microsoft operators (what its quantizer writes in the QOperator
format, and the ONNX Model Zoo's int8 models carry): each QLinear op is its float op between
DequantizeLinear and QuantizeLinear, as onnxruntime's contrib spec defines it (y = quantize(op(
dequantize(x)))), so each call becomes a call of a model-local function of those standard nodes,
which the import inlines (as expand.py's bodies) and the welder fuses as a QDQ model's nodes:
QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax,
QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat and QGemm; and the two its optimizer
writes into a dynamically quantized model (DynamicQuantizeMatMul, MatMulIntegerToFloat: an integer
MatMul whose result is scaled back to float). A channels-last pool
(`channels_last=1`) averages over the middle axes. onnxruntime computes some of them with integer
or table arithmetic, so a value on a quantization step's boundary may land one step apart."""
from __future__ import annotations

import onnx
from onnx import helper

from ..errors import ModelError, UnsupportedOp
from .expand import EXPANDED_DOMAIN, _graphs, _inferred_types, _value_types

MS = "com.microsoft"
QLINEAR_OPS = ("QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax",
               "QLinearGlobalAveragePool", "QLinearAveragePool", "QLinearConcat", "QGemm",
               "DynamicQuantizeMatMul", "MatMulIntegerToFloat")
_FLOAT = onnx.TensorProto.FLOAT


def expand_qlinear_ops(proto: onnx.ModelProto, source_name: str) -> onnx.ModelProto:
    """`proto` with each QLinear call (QLINEAR_OPS) a call of a local function of standard ops;
    unchanged where there is none."""
    calls = [n for g in _graphs(proto.graph) for n in g.node if n.domain == MS and n.op_type in QLINEAR_OPS]
    if not calls:
        return proto
    opset = next((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")), 0)
    if opset < 13:
        raise UnsupportedOp(calls[0].op_type, node=calls[0].name, domain=MS,
                            detail=f"{source_name} imports ai.onnx opset {opset}: the quantized ops are "
                                   "expanded with per-axis DequantizeLinear, opset 13 or later")
    types = _value_types(proto)
    if any(i and i not in types for n in calls for i in n.input):
        types.update(_inferred_types(proto))
    for k, node in enumerate(calls):
        _check_types(node, types, source_name)
        body = _Body(node, types, opset)
        _BUILDERS[node.op_type](body)
        name = f"{node.op_type}_{k}"
        fn = helper.make_function(EXPANDED_DOMAIN, name, body.formals, ["y"], body.nodes,
                                  list(proto.opset_import))
        proto.functions.append(fn)
        present = [i for i in node.input if i]
        del node.input[:]
        node.input.extend(present)
        del node.attribute[:]
        node.op_type, node.domain = name, EXPANDED_DOMAIN
    if all(o.domain != EXPANDED_DOMAIN for o in proto.opset_import):
        proto.opset_import.append(helper.make_opsetid(EXPANDED_DOMAIN, 1))
    return proto


def _quantized_inputs(node: onnx.NodeProto) -> list[int]:
    """The positions of the node's int8/uint8 data inputs."""
    if node.op_type in ("QLinearAdd", "QLinearMul", "QGemm"):
        return [0, 3]
    if node.op_type == "DynamicQuantizeMatMul":
        return [1]
    if node.op_type == "MatMulIntegerToFloat":
        return [0, 1]
    if node.op_type == "QLinearConcat":
        return list(range(2, len(node.input), 3))
    return [0]


def _check_types(node: onnx.NodeProto, types: dict, source_name: str) -> None:
    """The contrib spec's types: int8 or uint8 data (QGemm's bias int32); a model breaking them
    (onnxruntime's quantizer writes an int32 bias into QLinearAdd for some transformers) is refused
    by onnxruntime too, so it is named here rather than compiled to an unverifiable meaning."""
    wanted = [(i, (onnx.TensorProto.INT8, onnx.TensorProto.UINT8)) for i in _quantized_inputs(node)]
    if node.op_type == "QGemm" and len(node.input) > 6 and node.input[6]:
        wanted.append((6, (onnx.TensorProto.INT32,)))
    for i, allowed in wanted:
        t = types.get(node.input[i]) if i < len(node.input) and node.input[i] else None
        if t is not None and t.tensor_type.elem_type not in allowed:
            got = onnx.TensorProto.DataType.Name(t.tensor_type.elem_type).lower()
            names = " or ".join(onnx.TensorProto.DataType.Name(a).lower() for a in allowed)
            raise ModelError(f"{source_name}: {MS}::{node.op_type} {node.name!r} input {i} "
                             f"({node.input[i]!r}) is {got}; the op takes {names}",
                             hint="onnxruntime refuses this model too: quantize it again (the QDQ format "
                                  "avoids the contrib ops) or fix the quantizer's output")


class _Body:
    """The nodes of one call's function: its present inputs are formals `x<i>` (i the input's
    position), absent optional ones read as ''."""

    def __init__(self, node: onnx.NodeProto, types: dict, opset: int):
        self.node, self.types, self.opset = node, types, opset
        self.formals = [f"x{i}" for i, v in enumerate(node.input) if v]
        self.nodes: list[onnx.NodeProto] = []
        self.attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def input(self, i: int) -> str:
        """The formal of input i, '' where it is absent."""
        return f"x{i}" if i < len(self.node.input) and self.node.input[i] else ""

    def rank(self, i: int) -> int | None:
        t = self.types.get(self.node.input[i])
        return len(t.tensor_type.shape.dim) if t is not None and t.tensor_type.HasField("shape") else None

    def elem_type(self, i: int) -> int | None:
        t = self.types.get(self.node.input[i])
        return t.tensor_type.elem_type if t is not None else None

    def add(self, op: str, inputs: list[str], out: str | None = None, **attrs) -> str:
        out = out or f"t{len(self.nodes)}"
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def add_outputs(self, op: str, inputs: list[str], count: int) -> list[str]:
        outs = [f"t{len(self.nodes)}_{k}" for k in range(count)]
        self.nodes.append(helper.make_node(op, inputs, outs))
        return outs

    def dequantize(self, x: int, scale: int, zero: int) -> str:
        """DequantizeLinear of input x by its scale and zero point (per axis where the scale is a
        vector: the axis its length names, which the op's own rules fix; QGemm passes its own)."""
        return self.add("DequantizeLinear", [self.input(x), self.input(scale), self.input(zero)])

    def quantize(self, y: str, scale: int, zero: int, like: int) -> str:
        """QuantizeLinear of y to the zero point's type; without a zero point, to input `like`'s
        (QuantizeLinear alone would pick uint8 where the op keeps int8)."""
        zp = self.input(zero)
        if not zp:
            dtype = self.elem_type(like) or onnx.TensorProto.UINT8
            zp = self.add("Constant", [], value=helper.make_tensor("zero", dtype, [], [0]))
        return self.add("QuantizeLinear", [y, self.input(scale), zp], out="y")

    def refuse(self, detail: str):
        raise UnsupportedOp(self.node.op_type, node=self.node.name, domain=MS, detail=detail)


def _binary(op: str):
    def build(b: _Body) -> None:     # A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp
        b.quantize(b.add(op, [b.dequantize(0, 1, 2), b.dequantize(3, 4, 5)]), 6, 7, like=0)
    return build


def _unary(op: str, **attrs):
    def build(b: _Body) -> None:     # X, X_scale, X_zp, Y_scale, Y_zp
        kept = {name: b.attrs.get(name, default) for name, default in attrs.items()}
        b.quantize(b.add(op, [b.dequantize(0, 1, 2)], **kept), 3, 4, like=0)
    return build


def _softmax(b: _Body) -> None:
    """Softmax along `axis`, or, where the node's `opset` attribute is before 13, over the axes from
    it on flattened into one (Softmax's meaning then)."""
    x = b.dequantize(0, 1, 2)
    axis = int(b.attrs.get("axis", -1))
    if int(b.attrs.get("opset", 13)) >= 13:
        b.quantize(b.add("Softmax", [x], axis=axis), 3, 4, like=0)
        return
    flat = b.add("Flatten", [x], axis=axis)
    shape = b.add("Shape", [x])
    b.quantize(b.add("Reshape", [b.add("Softmax", [flat], axis=1), shape]), 3, 4, like=0)


def _mean_over(b: _Body, x: str, axes: list[int]) -> str:
    if b.opset >= 18:
        const = b.add("Constant", [], value=helper.make_tensor("axes", onnx.TensorProto.INT64, [len(axes)], axes))
        return b.add("ReduceMean", [x, const], keepdims=1)
    return b.add("ReduceMean", [x], axes=axes, keepdims=1)


def _global_average_pool(b: _Body) -> None:
    x = b.dequantize(0, 1, 2)
    if int(b.attrs.get("channels_last", 0)):
        rank = b.rank(0)
        if rank is None:
            b.refuse("a channels-last input of unknown rank")
        b.quantize(_mean_over(b, x, list(range(1, rank - 1))), 3, 4, like=0)
    else:
        b.quantize(b.add("GlobalAveragePool", [x]), 3, 4, like=0)


def _average_pool(b: _Body) -> None:
    x = b.dequantize(0, 1, 2)
    attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in b.attrs.items() if k != "channels_last"}
    if int(b.attrs.get("channels_last", 0)):
        rank = b.rank(0)
        if rank is None:
            b.refuse("a channels-last input of unknown rank")
        to_first = [0, rank - 1] + list(range(1, rank - 1))
        to_last = [0] + list(range(2, rank)) + [1]
        pooled = b.add("AveragePool", [b.add("Transpose", [x], perm=to_first)], **attrs)
        b.quantize(b.add("Transpose", [pooled], perm=to_last), 3, 4, like=0)
    else:
        b.quantize(b.add("AveragePool", [x], **attrs), 3, 4, like=0)


def _concat(b: _Body) -> None:     # Y_scale, Y_zp, then (X, X_scale, X_zp) per input
    parts = [b.dequantize(i, i + 1, i + 2) for i in range(2, len(b.node.input), 3)]
    if not parts:
        b.refuse("no input to concatenate")
    b.quantize(b.add("Concat", parts, axis=int(b.attrs.get("axis", 0))), 0, 1, like=2)


def _gemm(b: _Body) -> None:
    """A, a_scale, a_zp, B, b_scale, b_zp, C, y_scale, y_zp: alpha A'B' + C, where C is int32 at
    scale a_scale * b_scale; quantized where y_scale is given, else float. A per-column scale of B
    names B's N axis (the first where B is transposed)."""
    trans_a, trans_b = int(b.attrs.get("transA", 0)), int(b.attrs.get("transB", 0))
    a = b.dequantize(0, 1, 2)
    scale_b = b.types.get(b.node.input[4])
    per_column = scale_b is not None and len(scale_b.tensor_type.shape.dim) == 1 and \
        scale_b.tensor_type.shape.dim[0].dim_value != 1
    w = b.add("DequantizeLinear", [b.input(3), b.input(4), b.input(5)], **({"axis": 0 if trans_b else 1}
                                                                            if per_column else {}))
    inputs = [a, w]
    if b.input(6):
        bias_scale = b.add("Mul", [b.input(1), b.input(4)])
        inputs.append(b.add("Mul", [b.add("Cast", [b.input(6)], to=_FLOAT), bias_scale]))
    y = b.add("Gemm", inputs, alpha=float(b.attrs.get("alpha", 1.0)), beta=1.0, transA=trans_a, transB=trans_b)
    if b.input(7):
        b.quantize(y, 7, 8, like=0)
    else:
        b.add("Identity", [y], out="y")


def _integer_matmul_to_float(b: _Body, a: str, a_zero: str, a_scale: str, scale_b: int, zero_b: int,
                             bias: int) -> None:
    """MatMulInteger(a, B) cast to float, times a_scale * b_scale, plus the bias where given (B is
    the node's input 1, its scale and zero point inputs `scale_b` and `zero_b`)."""
    acc = b.add("MatMulInteger", [a, b.input(1), a_zero, b.input(zero_b)])
    scale = b.add("Mul", [a_scale, b.input(scale_b)])
    y = b.add("Mul", [b.add("Cast", [acc], to=_FLOAT), scale])
    if b.input(bias):
        b.add("Add", [y, b.input(bias)], out="y")
    else:
        b.add("Identity", [y], out="y")


def _dynamic_quantize_matmul(b: _Body) -> None:
    """A (float), B, b_scale, b_zero_point, bias: A quantized at run time to uint8 by its own range
    (DynamicQuantizeLinear), then as MatMulIntegerToFloat."""
    q, q_scale, q_zero = b.add_outputs("DynamicQuantizeLinear", [b.input(0)], 3)
    _integer_matmul_to_float(b, q, q_zero, q_scale, scale_b=2, zero_b=3, bias=4)


def _matmul_integer_to_float(b: _Body) -> None:
    """A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias."""
    _integer_matmul_to_float(b, b.input(0), b.input(4), b.input(2), scale_b=3, zero_b=5, bias=6)


_BUILDERS = {
    "QLinearAdd": _binary("Add"), "QLinearMul": _binary("Mul"),
    "QLinearSigmoid": _unary("Sigmoid"), "QLinearLeakyRelu": _unary("LeakyRelu", alpha=0.01),
    "QLinearSoftmax": _softmax, "QLinearGlobalAveragePool": _global_average_pool,
    "QLinearAveragePool": _average_pool, "QLinearConcat": _concat, "QGemm": _gemm,
    "DynamicQuantizeMatMul": _dynamic_quantize_matmul, "MatMulIntegerToFloat": _matmul_integer_to_float,
}
