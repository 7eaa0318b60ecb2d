"""Element types: how each maps to NumPy, ONNX and the C type of the device/host prelude."""
from __future__ import annotations

import enum

import numpy as np

try:  # bfloat16 has no NumPy type of its own; ml_dtypes (an onnx dependency) provides one
    import ml_dtypes
    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - onnx always brings ml_dtypes
    _BF16 = None


class DType(enum.Enum):
    """A tensor element type; the value is the ONNX TensorProto code."""

    float32 = 1
    uint8 = 2
    int8 = 3
    uint16 = 4
    int16 = 5
    int32 = 6
    int64 = 7
    bool = 9
    float16 = 10
    float64 = 11
    uint32 = 12
    uint64 = 13
    bfloat16 = 16

    @property
    def np(self) -> np.dtype:
        """The NumPy dtype that holds this type's bits."""
        if self is DType.bfloat16:
            if _BF16 is None:
                raise TypeError("bfloat16 needs the ml_dtypes package")
            return _BF16
        return np.dtype(_NP[self])

    @property
    def ctype(self) -> str:
        """The C type name in the preludes."""
        return _C[self]

    @property
    def compute_ctype(self) -> str:
        """The C type arithmetic is done in: half types compute in float."""
        return _COMPUTE_C[self]

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self]

    @property
    def is_float(self) -> bool:
        return self in (DType.float32, DType.float16, DType.bfloat16, DType.float64)

    @property
    def is_int(self) -> bool:
        return not self.is_float and self is not DType.bool

    @property
    def is_signed(self) -> bool:
        return self.is_float or self in (DType.int8, DType.int16, DType.int32, DType.int64)

    @staticmethod
    def from_onnx(code: int) -> "DType":
        try:
            return DType(code)
        except ValueError:
            import onnx
            name = onnx.TensorProto.DataType.Name(code) if code in onnx.TensorProto.DataType.values() else str(code)
            raise TypeError(f"unsupported element type {name}") from None

    @staticmethod
    def from_numpy(dt) -> "DType":
        dt = np.dtype(dt)
        if _BF16 is not None and dt == _BF16:
            return DType.bfloat16
        for k, v in _NP.items():
            if np.dtype(v) == dt:
                return k
        raise TypeError(f"unsupported NumPy dtype {dt}")


_NP = {
    DType.float32: "float32", DType.uint8: "uint8", DType.int8: "int8", DType.uint16: "uint16",
    DType.int16: "int16", DType.int32: "int32", DType.int64: "int64", DType.bool: "bool",
    DType.float16: "float16", DType.float64: "float64", DType.uint32: "uint32",
    DType.uint64: "uint64", DType.bfloat16: "uint16",
}
_C = {
    DType.float32: "float", DType.uint8: "unsigned char", DType.int8: "signed char",
    DType.uint16: "unsigned short", DType.int16: "short", DType.int32: "int",
    DType.int64: "long long", DType.bool: "bool", DType.float16: "by_half",
    DType.float64: "double", DType.uint32: "unsigned int", DType.uint64: "unsigned long long",
    DType.bfloat16: "by_bfloat16",
}
# bytes per element, and the C type arithmetic is done in (dicts: the searches ask per candidate)
_ITEMSIZE = {d: np.dtype(n).itemsize for d, n in _NP.items()}
_COMPUTE_C = {d: "float" if d in (DType.float16, DType.bfloat16) else c for d, c in _C.items()}

FLOATS = (DType.float32, DType.float16, DType.bfloat16, DType.float64)
INTS = (DType.int8, DType.int16, DType.int32, DType.int64, DType.uint8, DType.uint16, DType.uint32, DType.uint64)
NUMERIC = FLOATS + INTS
ALL = NUMERIC + (DType.bool,)
