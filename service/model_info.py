"""What the service tells a user about an uploaded model: the import stage's checks and findings."""
from __future__ import annotations

from pathlib import Path

from compiler.frontend.onnx_import import GiB, ImportLimits, import_checked, read_checked
from compiler.frontend.summary import summarize
from compiler.passes.lower import output_runtime_axes


def upload_limits(max_upload_bytes: int) -> ImportLimits:
    """What an upload may bring: the .onnx at most 2 GiB (a protobuf holds no more) and the upload's
    size, external data only from the upload's own archive members, all together the upload's size."""
    return ImportLimits(max_bytes=min(max_upload_bytes, 2 * GiB), max_external_bytes=max_upload_bytes,
                        external_data=False)


def _signature(graph, names, runtime_axis: dict[str, int]) -> list[dict]:
    return [{"name": n, "dtype": graph.type_of(n).dtype.name, "shape": list(graph.type_of(n).shape),
             **({"runtime_axis": runtime_axis[n]} if n in runtime_axis else {})} for n in names]


def describe_model(path: Path, *, max_bytes: int) -> dict:
    """Checks the model (raising CompilerError if it is not acceptable) and describes it.

    Every model gets the structural checks and the summary (compiler/frontend/summary.py). A model
    whose inputs are all fixed is imported in full too (shape inference, folding: the compile's first
    stage), so a model that cannot compile at its only size is refused here. A model with dynamic
    dimensions is not imported at invented sizes (a detector fails at 1x1); a compilation of it
    must fix them in options.input_shapes. An output whose length is known only at run time (NMS's
    selection, what is computed from it) carries `runtime_axis`, as the artifact's signature does.

    An upload is one file in a directory of other uploads: a model file's external data is refused,
    never read; a model archive's (an uncompressed tar of the .onnx and its data files:
    compiler/frontend/model_archive.py) is read from the archive's own members."""
    limits = upload_limits(max_bytes)
    checked = read_checked(path, limits)   # one parse for the summary and the import
    summary = summarize(checked)
    d = summary.as_dict()
    outputs, warnings = d["outputs"], list(d["warnings"])
    if not summary.dynamic_dims:
        imported = import_checked(checked, limits=limits)
        outputs = _signature(imported.graph, imported.graph.outputs,
                             output_runtime_axes(imported.graph, imported.opset))
        warnings += list(imported.warnings)
    else:
        listed = "; ".join(dd.describe() for dd in summary.dynamic_dims)
        warnings.append(f"dynamic dimensions: {listed}; give options.input_shapes when compiling")
    return {"inputs": d["inputs"], "outputs": outputs, "op_histogram": d["op_histogram"], "warnings": warnings,
            "opset": summary.opset, "name": summary.name,
            "summary": {k: d[k] for k in ("dynamic_dims", "example_input_shapes", "parameters", "parameter_bytes",
                                          "producer", "ir_version", "nodes")}}
