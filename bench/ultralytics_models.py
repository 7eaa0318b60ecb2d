"""Ultralytics' YOLO family (the detectors most users deploy) as its own exporter writes them
(`YOLO(...).export(format="onnx")`, TorchScript, opset 17), compiled whole and checked on the
host harness against onnxruntime: detection heads from YOLOv3 to YOLO26 (the NMS-free v10 and 26
select their top detections in the graph), instance segmentation (mask prototypes), pose, oriented
boxes, classification and RT-DETR (a transformer decoder over deformable attention).

    # 1. export (PyTorch and ultralytics: the side venv of bench/README.md, plus `pip install ultralytics`)
    /tmp/tvvenv/bin/python bench/ultralytics_models.py export --out var/ultralytics_models
    # 2. compile each and run it on the host harness against onnxruntime
    .venv/bin/python bench/ultralytics_models.py compile --models-dir var/ultralytics_models --out bench/results

Each model is built from its YAML (random weights: nothing is downloaded), its BatchNorm
statistics spread as bench/vision_models.py's, and exported at SIDE x SIDE. The reference is
onnxruntime on the exported file (the exporter rewrites the head for export, so the module's own
output is not the file's). Rows as bench/vision_models.py's, written to
bench/results/ultralytics_models-<UTC time>.json."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

SIDE = 320
# name -> the YAML ultralytics builds it from (its scale letter picks the size)
MODELS: dict[str, str] = {
    "yolov3-tiny": "yolov3-tiny.yaml",
    "yolov5n": "yolov5n.yaml",
    "yolov6n": "yolov6n.yaml",
    "yolov8n": "yolov8n.yaml",
    "yolov8n-seg": "yolov8n-seg.yaml",
    "yolov8n-pose": "yolov8n-pose.yaml",
    "yolov8n-obb": "yolov8n-obb.yaml",
    "yolov8n-cls": "yolov8n-cls.yaml",
    "yolov9t": "yolov9t.yaml",
    "yolov10n": "yolov10n.yaml",
    "yolo11n": "yolo11n.yaml",
    "yolo11n-seg": "yolo11n-seg.yaml",
    "yolo12n": "yolo12n.yaml",
    "yolo26n": "yolo26n.yaml",
    "rtdetr-l": "rtdetr-l.yaml",
}


def export(out: Path, models: list[str]) -> None:
    import torch
    import ultralytics
    from ultralytics import RTDETR, YOLO
    from bench.vision_models import spread
    out.mkdir(parents=True, exist_ok=True)
    (out / "export.json").write_text(json.dumps({
        "exporter": "ultralytics", "export": "YOLO.export(format='onnx', opset=17), torch.onnx TorchScript",
        "ultralytics": ultralytics.__version__, "torch": torch.__version__, "side": SIDE}) + "\n")
    for name in models:
        torch.manual_seed(0)
        model = (RTDETR if name.startswith("rtdetr") else YOLO)(MODELS[name])
        spread(model.model)
        side = 224 if name.endswith("-cls") else SIDE
        with tempfile.TemporaryDirectory() as tmp:
            cwd = os.getcwd()
            os.chdir(tmp)       # the exporter writes beside the model's name, here
            try:
                written = model.export(format="onnx", imgsz=side, opset=17, simplify=False, dynamic=False,
                                       device="cpu", half=False)
                shutil.move(str(Path(tmp) / written), out / f"{name}.onnx")
            except Exception as e:      # the export's own failure, printed; the model is left out
                print("not exported", name, f"{type(e).__name__}: {e}"[:300], flush=True)
                continue
            finally:
                os.chdir(cwd)
        np.savez(out / f"{name}_in.npz", images=np.random.default_rng(0).random((1, 3, side, side), np.float32))
        print("exported", name, flush=True)


def main(argv=None) -> None:
    from bench.vision_models import compile_all, compile_parser
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="export the models (needs PyTorch and ultralytics)")
    e.add_argument("--out", default="var/ultralytics_models")
    e.add_argument("--models", default=",".join(MODELS), help="comma-separated")
    compile_parser(sub, "ultralytics_models", ",".join(MODELS),
                   "compile each and run it on the host harness against onnxruntime")
    a = ap.parse_args(argv)
    if a.cmd == "export":
        export(Path(a.out).resolve(), a.models.split(","))
    else:
        compile_all(Path(a.models_dir), Path(a.out), a.target, a.models.split(","), a.precision, a.build,
                    suite="ultralytics_models")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
