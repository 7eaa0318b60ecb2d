"""What a model is, before any size is fixed: `brickyard inspect`, and the service's upload answer.

Inputs and outputs keep their dynamic dimensions: an output dimension is shown as the input
dimension it equals (`batch`, `x[2]`) where ONNX shape inference can tell, and `?` where it cannot.
Nothing here needs sizes, so a detector whose feature maps would vanish at 1x1 is described as
well as any other model."""
from __future__ import annotations

import collections
import math
import os
from dataclasses import dataclass, field

import onnx
import onnx.shape_inference

from ..ir.dtypes import DType
from .convert import elem_type_name
from .dims import ANONYMOUS, DynamicDim, declared_dims, dynamic_dims, example_shapes
from .onnx_import import CheckedModel, ImportLimits, _all_graphs, read_checked, runtime_inputs, weightless_copy

_KEEP_DATA = 64   # initializer elements kept for shape inference (shape and axes tensors are small)


@dataclass(frozen=True)
class TensorSummary:
    name: str
    dtype: str
    shape: tuple[int | str, ...] | None      # None: rank unknown

    def as_dict(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, "shape": None if self.shape is None else list(self.shape)}


@dataclass(frozen=True)
class ModelSummary:
    name: str
    producer: str
    opset: int
    ir_version: int
    inputs: tuple[TensorSummary, ...]
    outputs: tuple[TensorSummary, ...]
    dynamic_dims: tuple[DynamicDim, ...]
    op_histogram: tuple[tuple[str, int], ...]
    nodes: int
    parameters: int
    parameter_bytes: int
    sha256: str
    warnings: tuple[str, ...] = field(default=())

    def declared(self) -> dict:
        return {t.name: None if t.shape is None else list(t.shape) for t in self.inputs}

    def as_dict(self) -> dict:
        return {"name": self.name, "producer": self.producer, "opset": self.opset, "ir_version": self.ir_version,
                "inputs": [t.as_dict() for t in self.inputs], "outputs": [t.as_dict() for t in self.outputs],
                "dynamic_dims": [d.as_dict() for d in self.dynamic_dims],
                "example_input_shapes": example_shapes(self.declared()) if self.dynamic_dims else {},
                "op_histogram": dict(self.op_histogram), "nodes": self.nodes, "parameters": self.parameters,
                "parameter_bytes": self.parameter_bytes, "sha256": self.sha256, "warnings": list(self.warnings)}


def summarize(model, limits: ImportLimits = ImportLimits()) -> ModelSummary:
    """Checks the model's structure (as import does) and describes it without fixing any size;
    `model` may also be a CheckedModel that read_checked gave."""
    checked = model if isinstance(model, CheckedModel) else read_checked(model, limits)
    proto = checked.proto
    g = proto.graph
    runtime = runtime_inputs(g)
    declared = {vi.name: declared_dims(vi) for vi in runtime if vi.type.WhichOneof("value") == "tensor_type"}
    inputs = tuple(TensorSummary(vi.name, _dtype_name(vi), _tuple(declared.get(vi.name))) for vi in runtime)
    dyn = tuple(dynamic_dims(declared))
    outputs, warnings = _output_shapes(proto, declared)
    hist: collections.Counter = collections.Counter()
    nodes = 0
    params = nbytes = 0
    for sg, _ in _all_graphs(g):
        for n in sg.node:
            hist[n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}::{n.op_type}"] += 1
            nodes += 1
        for t in list(sg.initializer) + [st.values for st in sg.sparse_initializer]:
            count = math.prod(t.dims)
            params += count
            nbytes += _bytes(t.data_type, count)
    name = (os.path.splitext(checked.source_name)[0] if checked.source_name != "the model"
            else (g.name or "model"))
    return ModelSummary(
        name=name, producer=f"{proto.producer_name} {proto.producer_version}".strip(), opset=checked.opsets[""],
        ir_version=int(proto.ir_version), inputs=inputs, outputs=outputs, dynamic_dims=dyn,
        op_histogram=tuple(sorted(hist.items(), key=lambda kv: (-kv[1], kv[0]))), nodes=nodes,
        parameters=params, parameter_bytes=nbytes, sha256=checked.sha256, warnings=tuple(warnings))


def _output_shapes(proto: onnx.ModelProto, declared: dict) -> tuple[tuple[TensorSummary, ...], list[str]]:
    """Output types by ONNX shape inference over a weightless copy whose dynamic input dims carry their
    symbols (so two `?` stay apart); an output dim equal to an input dim shows that dim."""
    light = weightless_copy(proto, keep_dims=True, keep_elements=_KEEP_DATA)
    symbols = set()
    for vi in light.graph.input:
        dims = declared.get(vi.name)
        if dims is None:
            continue
        for axis, (d, pd) in enumerate(zip(dims, vi.type.tensor_type.shape.dim)):
            if isinstance(d, str):
                sym = DynamicDim(vi.name, axis, d).symbol
                pd.Clear()
                pd.dim_param = sym
                symbols.add(sym)
    for vo in light.graph.output:   # declared `?`s would hide what inference finds
        vo.type.tensor_type.ClearField("shape")
    warnings = []
    try:
        inferred = onnx.shape_inference.infer_shapes(light, check_type=False, strict_mode=False, data_prop=True)
    except Exception as e:  # noqa: BLE001 - ONNX's inference raises several C++ error types; fall back to declared
        inferred = None
        warnings.append(f"ONNX shape inference failed ({str(e).splitlines()[0][:200]}); outputs shown as declared")
    by_name = {} if inferred is None else {
        vi.name: vi for vi in list(inferred.graph.output) + list(inferred.graph.value_info)}
    out = []
    for vo in proto.graph.output:
        vi = by_name.get(vo.name, vo)
        if not vi.type.tensor_type.HasField("shape"):
            vi = vo
        out.append(TensorSummary(vo.name, _dtype_name(vi if vi.type.tensor_type.elem_type else vo),
                                 _shown_dims(vi, symbols)))
    return tuple(out), warnings


def _shown_dims(vi: onnx.ValueInfoProto, symbols: set[str]) -> tuple[int | str, ...] | None:
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        return None
    out: list[int | str] = []
    for d in tt.shape.dim:
        if d.WhichOneof("value") == "dim_value" and d.dim_value >= 0:
            out.append(int(d.dim_value))
        elif d.WhichOneof("value") == "dim_param" and d.dim_param in symbols:
            out.append(d.dim_param)
        else:
            out.append(ANONYMOUS)
    return tuple(out)


def _dtype_name(vi: onnx.ValueInfoProto) -> str:
    code = vi.type.tensor_type.elem_type
    if not code:
        return "?"
    try:
        return DType.from_onnx(code).name
    except TypeError:   # a type Brickyard does not compute with (float8, int4, string): its ONNX name
        return elem_type_name(code).lower()


def _bytes(code: int, count: int) -> int:
    """Bytes of `count` elements of ONNX type `code`; types Brickyard lacks by their bit width."""
    try:
        return count * DType.from_onnx(code).itemsize
    except TypeError:
        name = elem_type_name(code)
        bits = 0 if name == "STRING" else 4 if name.endswith(("INT4", "FP4E2M1")) else 8
        return (count * bits + 7) // 8


def _tuple(dims):
    return None if dims is None else tuple(dims)
