"""What the service tells a user about an uploaded model: the import stage's checks and findings."""
from __future__ import annotations

from pathlib import Path

import onnx

from compiler.errors import ShapeError
from compiler.frontend.onnx_import import ImportLimits, import_model


def _signature(graph, names) -> list[dict]:
    return [{"name": n, "dtype": graph.type_of(n).dtype.name, "shape": list(graph.type_of(n).shape)}
            for n in names]


def _declared_inputs(path: Path) -> list[dict]:
    """Runtime inputs as declared in the file: a dynamic dimension is its name (or '?')."""
    proto = onnx.load(str(path), load_external_data=False)
    inits = {t.name for t in proto.graph.initializer}
    out = []
    for vi in proto.graph.input:
        if vi.name in inits or vi.type.WhichOneof("value") != "tensor_type":
            continue
        tt = vi.type.tensor_type
        dims = None
        if tt.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim]
        out.append({"name": vi.name, "dtype": onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type).name
                    if tt.elem_type else "?", "shape": dims})
    return out


def describe_model(path: Path, *, max_bytes: int) -> dict:
    """Imports the model (raising CompilerError if it is not acceptable) and describes it.

    A model with dynamic input dimensions is accepted: it is checked with every dynamic size set to 1,
    and a compilation of it must give options.input_shapes."""
    limits = ImportLimits(max_bytes=max_bytes)
    try:
        imported = import_model(path, limits=limits)
        inputs = _signature(imported.graph, imported.graph.inputs)
        extra_warnings: list[str] = []
    except ShapeError:
        declared = _declared_inputs(path)
        dynamic = [d for d in declared if d["shape"] is None or any(isinstance(x, str) for x in d["shape"])]
        if not dynamic or any(d["shape"] is None for d in dynamic):
            raise
        fill = {d["name"]: tuple(x if isinstance(x, int) else 1 for x in d["shape"]) for d in dynamic}
        imported = import_model(path, input_shapes=fill, limits=limits)
        inputs = declared
        extra_warnings = [f"input '{d['name']}' has dynamic dimensions {d['shape']}: give "
                          f"options.input_shapes when compiling (checked with them set to 1)" for d in dynamic]
    return {"inputs": inputs, "outputs": _signature(imported.graph, imported.graph.outputs),
            "op_histogram": imported.graph.op_histogram(), "warnings": list(imported.warnings) + extra_warnings,
            "opset": imported.opset, "name": imported.name}
