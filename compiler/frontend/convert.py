"""Conversions between ONNX protos and the IR: tensors, value types and plain attributes."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper

from ..errors import ModelError, ShapeError, UnsupportedOp
from ..ir.dtypes import DType
from ..ir.graph import Constant, TensorType

SUPPORTED_DTYPES = ", ".join(d.name for d in DType)


def elem_type_name(code: int) -> str:
    """The ONNX name of an element type code (FLOAT, STRING, ...)."""
    try:
        return onnx.TensorProto.DataType.Name(code)
    except ValueError:
        return f"type code {code}"


def dtype_of(code: int, *, op: str, node: str | None, what: str) -> DType:
    """The DType of an ONNX element type, or UnsupportedOp saying which value has which type."""
    try:
        return DType.from_onnx(code)
    except TypeError:
        raise UnsupportedOp(op, node=node, detail=f"{what} has element type {elem_type_name(code)}, "
                            f"which Brickyard does not support (supported: {SUPPORTED_DTYPES})") from None


def tensor_to_array(t: onnx.TensorProto, *, op: str, node: str | None) -> np.ndarray:
    """The data of a tensor proto as NumPy (external data is read into the proto, or refused, first)."""
    what = f"tensor '{t.name}'" if t.name else "a tensor attribute"
    dt = dtype_of(t.data_type, op=op, node=node, what=what)
    if any(d < 0 for d in t.dims):     # NumPy would read -1 as "the rest" and -2 as an error of its own
        raise ModelError(f"{what} has dims {list(t.dims)}: a dimension is negative", node=node,
                         hint="the file may be corrupt; re-export the model")
    try:
        a = numpy_helper.to_array(t)
    except ValueError as e:  # the payload's length disagrees with the dims
        raise ModelError(f"{what} has dims {list(t.dims)} but its data does not fit them: {e}",
                         node=node, hint="the file may be corrupt; re-export the model") from None
    if a.dtype != dt.np:  # bfloat16 arrives as ml_dtypes' type; every other type matches already
        a = a.view(dt.np) if a.dtype.itemsize == dt.np.itemsize else a.astype(dt.np)
    return a


def external_array(t: onnx.TensorProto, data: bytes) -> np.ndarray:
    """A tensor's array over bytes read from its external file, not copied (the IR's Constant keeps
    the same bytes object); onnx_import._stored_as_read checked that they are its elements."""
    return np.frombuffer(data, dtype=DType.from_onnx(t.data_type).np).reshape(tuple(t.dims))


def type_proto(t: TensorType) -> onnx.TypeProto:
    """An ONNX TypeProto for an IR type (for ONNX's per-node shape inference)."""
    return onnx.helper.make_tensor_type_proto(t.dtype.value, list(t.shape))


def static_type(tp: onnx.TypeProto, *, op: str, node: str | None, what: str) -> TensorType:
    """The static IR type of an inferred ONNX type, or ShapeError saying which dimension is unknown."""
    kind = tp.WhichOneof("value")
    if kind != "tensor_type":
        raise UnsupportedOp(op, node=node, detail=f"{what} is a {kind or 'value of unknown kind'}; "
                            "only tensors are supported")
    tt = tp.tensor_type
    if tt.elem_type == onnx.TensorProto.UNDEFINED:
        raise ShapeError(f"cannot infer the element type of {what} ({op})", node=node,
                         hint="the model may be invalid; check it with onnx.checker and onnxruntime")
    dt = dtype_of(tt.elem_type, op=op, node=node, what=what)
    if not tt.HasField("shape"):
        raise ShapeError(f"cannot infer the rank of {what} ({op})", node=node,
                         hint=_STATIC_HINT)
    dims = []
    for axis, d in enumerate(tt.shape.dim):
        if not d.HasField("dim_value") or d.dim_value < 0:
            shown = ",".join(str(x.dim_value) if x.HasField("dim_value") else (x.dim_param or "?")
                             for x in tt.shape.dim)
            raise ShapeError(f"cannot infer a static shape for {what} ({op}): got [{shown}], "
                             f"axis {axis} is unknown", node=node, hint=_STATIC_HINT)
        dims.append(int(d.dim_value))
    return TensorType(dt, tuple(dims))


_STATIC_HINT = ("Brickyard needs static shapes: fix dynamic input dimensions with --input-shape. A length "
                "that depends on the data is taken on one axis a value, sized at its upper bound, from the ops "
                "that register one (NonZero, Compress, NonMaxSuppression, TopK with a run-time K) and the "
                "shapes measured from such lengths (docs/adding-ops.md, 'Outputs of run-time length')")


def plain_attribute(a: onnx.AttributeProto, *, op: str, node: str | None):
    """An attribute value in IR form (no graphs): scalar, str, tuple, Constant or tuple of Constants."""
    A = onnx.AttributeProto
    if a.ref_attr_name:
        raise UnsupportedOp(op, node=node, detail=f"attribute '{a.name}' refers to a function attribute")
    if a.type == A.FLOAT:
        return float(a.f)
    if a.type == A.INT:
        return int(a.i)
    if a.type == A.STRING:
        return a.s.decode("utf-8", errors="replace")
    if a.type == A.FLOATS:
        return tuple(float(x) for x in a.floats)
    if a.type == A.INTS:
        return tuple(int(x) for x in a.ints)
    if a.type == A.STRINGS:
        return tuple(s.decode("utf-8", errors="replace") for s in a.strings)
    if a.type == A.TENSOR:
        return Constant.from_array(tensor_to_array(a.t, op=op, node=node))
    if a.type == A.TENSORS:
        return tuple(Constant.from_array(tensor_to_array(t, op=op, node=node)) for t in a.tensors)
    raise UnsupportedOp(op, node=node, detail=f"attribute '{a.name}' has kind "
                        f"{A.AttributeType.Name(a.type)}, which is not supported")
