"""The graph IR: typed values, constant data, nodes and (sub)graphs, all frozen with sha256 keys."""
from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .dtypes import DType


def sha256_of(obj: Any) -> str:
    """sha256 over a canonical JSON serialisation (never Python's salted hash())."""
    return hashlib.sha256(json.dumps(canonical(obj), sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def canonical(obj: Any) -> Any:
    """A JSON-able, order-stable form of IR objects, enums, tuples and scalars."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if hasattr(type(obj), "key"):
            return {"$key": obj.key}
        return {"$t": type(obj).__name__, "f": [canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj)]}
    if isinstance(obj, DType):
        return obj.name
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, (tuple, list)):
        return [canonical(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): canonical(v) for k, v in sorted(obj.items())}
    if isinstance(obj, float):
        return {"$f": obj.hex()} if obj == obj else {"$f": "nan"}
    if isinstance(obj, bytes):
        return {"$b": hashlib.sha256(obj).hexdigest()}
    if isinstance(obj, (np.integer, np.floating)):
        return canonical(obj.item())
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    raise TypeError(f"no canonical form for {type(obj).__name__}")


def _fields_key(obj) -> str:
    return sha256_of([type(obj).__name__] + [canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj)])


@dataclass(frozen=True)
class TensorType:
    """Element type and static shape of a value."""

    dtype: DType
    shape: tuple[int, ...]

    @staticmethod
    def of(a: np.ndarray) -> "TensorType":
        """The type of a NumPy array."""
        return TensorType(DType.from_numpy(a.dtype), tuple(int(d) for d in a.shape))

    @property
    def rank(self) -> int:
        return len(self.shape)

    @functools.cached_property
    def size(self) -> int:      # computed once: the searches ask for it per candidate
        return math.prod(int(d) for d in self.shape)  # Python ints: NumPy's int64 product wraps silently

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    def __str__(self) -> str:
        return f"{self.dtype.name}[{','.join(map(str, self.shape))}]"


def view_axis(src: tuple[int, ...], dst: tuple[int, ...], axis: int) -> int | None:
    """The axis of a view `dst` of `src`'s bytes that is `src`'s `axis` (the same elements before,
    along and after it), else None."""
    before, after = math.prod(src[:axis]), math.prod(src[axis + 1:])
    for d in range(len(dst)):
        if dst[d] == src[axis] and math.prod(dst[:d]) == before and math.prod(dst[d + 1:]) == after:
            return d
    return None


def _bytes_of(a: np.ndarray) -> bytes:
    """The array's data as bytes; a C-contiguous array over a whole bytes object (a weight read from
    its protobuf) shares that object instead of copying it: weights are most of a model's memory."""
    base = a
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    if isinstance(base, bytes) and a.flags.c_contiguous and len(base) == a.nbytes \
            and a.__array_interface__["data"][0] == np.frombuffer(base, np.uint8).__array_interface__["data"][0]:
        return base
    return a.tobytes()      # C order whatever the layout, in one copy (a transposed weight's too)


@dataclass(frozen=True)
class Constant:
    """Constant tensor data (weights, folded values), held as raw C-order bytes."""

    dtype: DType
    shape: tuple[int, ...]
    data: bytes = dataclasses.field(repr=False)

    @staticmethod
    def from_array(a: np.ndarray) -> "Constant":
        a = np.asarray(a)
        dt = DType.from_numpy(a.dtype)
        return Constant(dt, tuple(int(d) for d in a.shape), _bytes_of(a))

    def array(self) -> np.ndarray:
        """A read-only NumPy view of the data."""
        a = np.frombuffer(self.data, dtype=self.dtype.np).reshape(self.shape)
        return a

    @property
    def type(self) -> TensorType:
        return TensorType(self.dtype, self.shape)

    @functools.cached_property
    def key(self) -> str:
        return sha256_of(["Constant", self.dtype.name, list(self.shape), hashlib.sha256(self.data).hexdigest()])


@dataclass(frozen=True)
class Node:
    """One operator application; attribute values are scalars, strings, tuples, Constants or Graphs."""

    op: str
    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: tuple[tuple[str, Any], ...] = ()
    domain: str = ""

    def attr(self, name: str, default: Any = None) -> Any:
        for k, v in self.attrs:
            if k == name:
                return v
        return default

    def has_attr(self, name: str) -> bool:
        return any(k == name for k, _ in self.attrs)

    def has_input(self, i: int) -> bool:
        """Whether optional input i is given (present and not the empty name)."""
        return i < len(self.inputs) and self.inputs[i] != ""

    def has_output(self, i: int) -> bool:
        """Whether optional output i is wanted (present and not the empty name)."""
        return i < len(self.outputs) and self.outputs[i] != ""

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    def subgraphs(self) -> list["Graph"]:
        out = []
        for _, v in self.attrs:
            if isinstance(v, Graph):
                out.append(v)
            elif isinstance(v, tuple) and v and isinstance(v[0], Graph):
                out.extend(v)
        return out


@dataclass(frozen=True)
class Graph:
    """A graph: its inputs/outputs by name, nodes in topological order, every value's type.

    `outer` lists values a subgraph reads from the enclosing graph's scope (ONNX allows it). Values
    whose extent on an axis is only known at run time (a bounded Loop's scan outputs, an op's
    OpDef.bounded outputs, an If's branches one axis apart, what is computed from them) are typed at
    their bound; the lowering finds them (Plan.output_lengths, passes/bounded_rows.py)."""

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    nodes: tuple[Node, ...]
    types: tuple[tuple[str, TensorType], ...]
    constants: tuple[tuple[str, Constant], ...] = ()
    outer: tuple[str, ...] = ()

    @functools.cached_property
    def type_map(self) -> dict[str, TensorType]:
        return dict(self.types)

    @functools.cached_property
    def const_map(self) -> dict[str, Constant]:
        return dict(self.constants)

    def type_of(self, name: str) -> TensorType:
        return self.type_map[name]

    def constant(self, name: str) -> Constant | None:
        return self.const_map.get(name)

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    def replace(self, **changes) -> "Graph":
        return dataclasses.replace(self, **changes)

    def op_histogram(self) -> dict[str, int]:
        hist: dict[str, int] = {}
        for n in self.nodes:
            hist[n.op] = hist.get(n.op, 0) + 1
            for g in n.subgraphs():
                for k, v in g.op_histogram().items():
                    hist[k] = hist.get(k, 0) + v
        return dict(sorted(hist.items()))
