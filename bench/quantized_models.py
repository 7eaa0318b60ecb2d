"""INT8 models as onnxruntime's quantization tool writes them (the way most users get one), compiled
whole and checked on the host harness against onnxruntime on the same file: each source model
quantized three ways,

- `dynamic`: `quantize_dynamic`, int8 weights, activations quantized at run time
  (DynamicQuantizeLinear, MatMulInteger / ConvInteger, their scales multiplied back in float);
- `qdq`: `quantize_static` in the QDQ format, calibrated: QuantizeLinear / DequantizeLinear pairs
  around float ops (what TensorRT and most runtimes read);
- `qoperator`: `quantize_static` in the QOperator format: QLinearConv, QLinearMatMul and
  onnxruntime's com.microsoft QLinear* ops (QLinearAdd, QLinearGlobalAveragePool, ...);
- `dynamic-optimized`: the `dynamic` file as an onnxruntime session saves it optimized
  (ORT_ENABLE_EXTENDED: DynamicQuantizeMatMul, MatMulIntegerToFloat, SkipLayerNormalization, ...),
  the form Optimum's quantized exports take.

    # 1. quantize (the project's venv: onnxruntime ships its quantizer)
    .venv/bin/python bench/quantized_models.py quantize --out var/quantized_models
    # 2. compile each and run it on the host harness against onnxruntime
    .venv/bin/python bench/quantized_models.py compile --models-dir var/quantized_models --out bench/results

The sources are exports of the other suites (`--vision-dir`: bench/vision_models.py's torchvision
CNNs and ViT; `--architectures-dir`: bench/architectures.py's transformers encoders), so run their
exports first. Static calibration reads the source's stored input and eight random ones like it (a
token id input: random ids below the largest stored). Rows as bench/vision_models.py's (the
error against onnxruntime on the stored input; an int8 model's output moves by a quantization step
where a float rounds differently near a step's boundary, so the error is read against the
output's spread, `reference_std`, and against onnxruntime with its graph optimizations off, the
ops as the file writes them: `rel_error_onnxruntime_unoptimized`, beside
`onnxruntime_levels_rel_error`, onnxruntime's two levels against each other), written to
bench/results/quantized_models-<UTC time>.json."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

VISION = ("resnet18", "mobilenet_v2", "efficientnet_b0", "squeezenet1_0", "convnext_tiny", "vit_b_16")
ARCHITECTURES = ("distilbert", "roberta", "albert")
SCHEMES = ("dynamic", "qdq", "qoperator", "dynamic-optimized")


def _sources(vision_dir: Path, arch_dir: Path) -> list[tuple[str, Path, dict[str, np.ndarray]]]:
    """(name, ONNX path, inputs by name) of each source found."""
    out = []
    for name in VISION:
        path = vision_dir / f"{name}.onnx"
        if path.exists():
            stored = dict(np.load(vision_dir / f"{name}_in.npz"))
            stored.pop("torch_y", None)      # PyTorch's float output: no reference for an int8 model
            out.append((name, path, stored))
    for name in ARCHITECTURES:
        path = arch_dir / f"{name}.onnx"
        if path.exists():
            npz = dict(np.load(arch_dir / f"{name}.npz"))
            out.append((name, path, {k[3:]: v for k, v in npz.items() if k.startswith("in:")}))
    return out


def _calibration(stored: dict[str, np.ndarray], count: int = 8):
    """The stored input, then `count` random ones like it (onnxruntime's CalibrationDataReader)."""
    from onnxruntime.quantization import CalibrationDataReader
    rng = np.random.default_rng(0)

    def like(a: np.ndarray) -> np.ndarray:
        if a.dtype.kind in "iu":
            return rng.integers(0, max(int(a.max()), 1) + 1, a.shape).astype(a.dtype)
        return (rng.standard_normal(a.shape) * a.std() + a.mean()).astype(a.dtype)

    feeds = [stored] + [{k: like(v) for k, v in stored.items()} for _ in range(count)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(feeds)

        def get_next(self):
            return next(self.it, None)
    return Reader()


def quantize(out: Path, vision_dir: Path, arch_dir: Path, schemes: list[str]) -> None:
    import onnxruntime
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process
    out.mkdir(parents=True, exist_ok=True)
    (out / "export.json").write_text(json.dumps({
        "export": f"onnxruntime {onnxruntime.__version__} quantization: " + ", ".join(schemes)}) + "\n")
    for name, path, stored in _sources(vision_dir, arch_dir):
        with tempfile.TemporaryDirectory() as tmp:
            pre = Path(tmp) / "pre.onnx"
            try:    # shape inference and graph cleanups onnxruntime recommends before quantizing
                quant_pre_process(str(path), str(pre), skip_symbolic_shape=True)
            except Exception as e:
                print("not preprocessed", name, f"{type(e).__name__}: {e}"[:200], flush=True)
                pre = path
            for scheme in schemes:
                target = out / f"{name}.{scheme}.onnx"
                try:
                    if scheme == "dynamic":
                        quantize_dynamic(str(pre), str(target), weight_type=QuantType.QInt8)
                    elif scheme == "dynamic-optimized":
                        dynamic = Path(tmp) / "dynamic.onnx"
                        quantize_dynamic(str(pre), str(dynamic), weight_type=QuantType.QInt8)
                        opts = onnxruntime.SessionOptions()
                        opts.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
                        opts.optimized_model_filepath = str(target)
                        onnxruntime.InferenceSession(str(dynamic), sess_options=opts,
                                                     providers=["CPUExecutionProvider"])
                    else:
                        fmt = QuantFormat.QDQ if scheme == "qdq" else QuantFormat.QOperator
                        quantize_static(str(pre), str(target), _calibration(stored), quant_format=fmt,
                                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
                except Exception as e:      # the quantizer's own failure, printed; the variant is left out
                    print("not quantized", name, scheme, f"{type(e).__name__}: {e}"[:300], flush=True)
                    continue
                np.savez(out / f"{name}.{scheme}_in.npz", **stored)
                print("quantized", name, scheme, flush=True)


def against_unoptimized(data: bytes, inputs: dict, got: dict, want: dict) -> dict:
    """onnxruntime's default session fuses a QDQ model's DequantizeLinear -> op -> QuantizeLinear
    into integer kernels, whose rounding differs from the float ops the file states by a step
    here and there, and a step early in a deep model moves many later ones. The plan against
    onnxruntime with its graph optimizations off (the ops as written), and onnxruntime's two
    levels against each other (`want`: compile_all's run at the default level, empty where
    onnxruntime failed): how far the reference moves by its own choice of kernels."""
    import onnxruntime as ort
    from compiler.verify import max_rel_error
    if not want:
        return {}
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        sess = ort.InferenceSession(data, sess_options=opts, providers=["CPUExecutionProvider"])
        names = [o.name for o in sess.get_outputs()]
        unoptimized = dict(zip(names, sess.run(names, inputs)))
    except Exception as e:     # onnxruntime's own failure at this level
        return {"unoptimized_error": f"{type(e).__name__}: {e}"[:200]}
    return {"rel_error_onnxruntime_unoptimized": max_rel_error(got, unoptimized),
            "onnxruntime_levels_rel_error": max_rel_error(unoptimized, want)}


def main(argv=None) -> None:
    from bench.vision_models import compile_all, compile_parser
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("quantize", help="quantize the source models (onnxruntime's quantizer)")
    q.add_argument("--out", default="var/quantized_models")
    q.add_argument("--vision-dir", default="var/vision_models")
    q.add_argument("--architectures-dir", default="var/architectures")
    q.add_argument("--schemes", default=",".join(SCHEMES), help="comma-separated")
    compile_parser(sub, "quantized_models", "", "compile each (every model in --models-dir unless --models "
                   "names some) and run it on the host harness against onnxruntime")
    a = ap.parse_args(argv)
    if a.cmd == "quantize":
        quantize(Path(a.out), Path(a.vision_dir), Path(a.architectures_dir), a.schemes.split(","))
    else:
        models_dir = Path(a.models_dir)
        models = a.models.split(",") if a.models else sorted(p.stem for p in models_dir.glob("*.onnx"))
        compile_all(models_dir, Path(a.out), a.target, models, a.precision, a.build, suite="quantized_models",
                    more_checks=against_unoptimized)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
