"""torchvision's detection models as its TorchScript exporter writes them, compiled whole.

    # 1. export (PyTorch and torchvision: a side venv, bench/README.md)
    /tmp/tvvenv/bin/python bench/detection_models.py export --out var/detection_models
    # 2. compile each and run it on the host harness against onnxruntime (nothing but the compiler)
    .venv/bin/python bench/detection_models.py compile --models-dir var/detection_models --out bench/results

The models have random weights (no download here): the normalisations' statistics and the heads'
weights are spread so that scores differ from anchor to anchor, the class logits scaled to a
spread of LOGIT_STD on the image (unscaled, every score rounds to 1.0), and the image has
structure and noise. Where scores still tie or nearly tie, a postprocess (TopK,
NonMaxSuppression) orders near-ties by rounding, and a whole-output comparison with onnxruntime is
not conclusive. Each row
gives: compiled or the error, predicted microseconds, launches, compile seconds, and the rows of
the plan's detections found among onnxruntime's (same label, score within 1e-4, box within 1e-2)
beside how many of onnxruntime's rows are in exact (label, score) ties, and how many of the rows
not found have the label and score of such a tied group (the two kept different members)."""
from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import numpy as np

MODELS = ("ssdlite320_mobilenet_v3_large", "fasterrcnn_mobilenet_v3_large_320_fpn", "fcos_resnet50_fpn",
          "retinanet_resnet50_fpn", "maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn", "ssd300_vgg16")


HEADS = ("classification_head", "cls_logits", "box_predictor", "bbox_pred")
CLASS_LOGITS = ("classification_head", "cls_logits", "cls_score")
LOGIT_STD = 1.5     # random heads' logits scaled to this spread: a sigmoid or softmax short of 1.0


def _calibrate_class_logits(m, img) -> None:
    """Scales each layer of the class heads (the conv and linear layers under CLASS_LOGITS, in
    order, one forward pass each) so its outputs on `img` spread by LOGIT_STD: random weights over
    hundreds of channels, unnormalised, give logits in the tens or beyond (every score then rounds
    to 1.0, and ties decide which boxes a postprocess keeps)."""
    import torch
    layers = [(n, mod) for n, mod in m.named_modules() if any(h in n for h in CLASS_LOGITS)
              and isinstance(mod, (torch.nn.Conv2d, torch.nn.Linear))]
    with torch.no_grad():
        for _, mod in layers:
            seen = []
            hook = mod.register_forward_hook(lambda _m, _i, o: seen.append(o.detach().flatten()))
            m([img])
            hook.remove()
            std = float(torch.cat(seen).std()) if seen else 0.0
            if 0 < std < float("inf"):
                mod.weight.mul_(LOGIT_STD / std)
                if mod.bias is not None:
                    mod.bias.mul_(LOGIT_STD / std)


def export(out: Path, size: int, models: list[str]) -> None:
    import torch
    import torchvision
    from torchvision.models import detection
    out.mkdir(parents=True, exist_ok=True)
    for name in models:
        torch.manual_seed(0)
        extra = dict(min_size=size, max_size=size) if not name.startswith("ssd") else {}
        m = getattr(detection, name)(weights=None, weights_backbone=None, **extra).eval()
        with torch.no_grad():   # random weights give every class the same score: spread them
            for mod in m.modules():
                if isinstance(mod, (torch.nn.BatchNorm2d, torchvision.ops.FrozenBatchNorm2d)):
                    mod.weight.uniform_(0.5, 1.5)
                    mod.bias.uniform_(-0.5, 0.5)
                    mod.running_mean.uniform_(-0.2, 0.2)
                    mod.running_var.uniform_(0.5, 2.0)
            for pname, p in m.named_parameters():
                if any(h in pname for h in HEADS):
                    p.normal_(0.0, 0.3)
        yy, xx = torch.meshgrid(torch.linspace(0, 1, size), torch.linspace(0, 1, size), indexing="ij")
        img = torch.stack([torch.sin(9 * xx) * 0.5 + 0.5, xx * yy, torch.rand(size, size)])
        _calibrate_class_logits(m, img)
        with torch.no_grad():
            names = list(m([img])[0].keys())
        torch.onnx.export(m, ([img],), str(out / f"{name}.onnx"), opset_version=17, dynamo=False,
                          input_names=["image"], output_names=names)
        np.savez(out / f"{name}_in.npz", image=img.numpy())
        print("exported", name, flush=True)


def compile_all(models_dir: Path, out: Path, target: str, models: list[str], build: bool = False) -> None:
    import onnxruntime as ort
    from bench.kernels import compile_row, fresh_store, run_started, write_results
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    rows = []
    started = run_started()
    settings = {"target": target, "build": build,
                "verify": "host harness against onnxruntime: each row looked up among onnxruntime's"}

    def save() -> Path:      # after every row: a run stopped part way keeps what it measured
        return write_results("detection_models", "none (host harness; predicted times)", settings, rows, out, started)
    for name in models:
        model_path = models_dir / f"{name}.onnx"
        if not model_path.exists():
            continue
        data = model_path.read_bytes()
        feed = dict(np.load(models_dir / f"{name}_in.npz"))
        row = {"name": name}
        with fresh_store(build) as store:
            art = compile_row(row, data, target, CompileOptions(build=build), store)
        if art is None:
            rows.append(row)
            print(name, "not compiled:", row["error"][:200], flush=True)
            save()
            continue
        row["launches"] = art.report["schedule"]["launches"]    # this suite's: after Rammer's co-launches
        sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
        want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feed)))
        got = Executor(art.plan, make_backend("host")).run(feed)
        row["shapes_equal"] = all(got[k].shape == w.shape for k, w in want.items())
        if {"boxes", "scores", "labels"} <= set(want):
            wb, ws, wl = want["boxes"], want["scores"], want["labels"]
            gb, gs, gl = got["boxes"], got["scores"], got["labels"]
            row["rows"] = int(len(wl))
            found = [bool(((wl == gl[i]) & (np.abs(ws - gs[i]) < 1e-4) & (np.abs(wb - gb[i]).max(axis=1) < 1e-2)).any())
                     for i in range(len(gl))]
            row["rows_found_in_onnxruntime"] = int(sum(found))
            ties = collections.Counter(zip(wl.tolist(), ws.tolist()))
            row["onnxruntime_rows_in_exact_ties"] = int(sum(v for v in ties.values() if v > 1))
            # a row not found whose label and score (within 1e-5) are one of onnxruntime's tied
            # groups: the two took different members of the group
            tied = [(lab, sc) for (lab, sc), v in ties.items() if v > 1]
            row["rows_not_found_in_a_tied_group"] = int(sum(
                not f and any(lab == gl[i] and abs(sc - gs[i]) < 1e-5 for lab, sc in tied) for i, f in enumerate(found)))
        rows.append(row)
        print(json.dumps(row), flush=True)
        save()
    print("wrote", save())


def main(argv=None) -> None:
    from bench.vision_models import compile_parser
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="export the models (needs PyTorch and torchvision)")
    e.add_argument("--out", default="var/detection_models")
    e.add_argument("--size", type=int, default=320)
    e.add_argument("--models", default=",".join(MODELS), help="comma-separated")
    compile_parser(sub, "detection_models", ",".join(MODELS),
                   "compile each and run it on the host harness against onnxruntime", precision=False)
    a = ap.parse_args(argv)
    if a.cmd == "export":
        export(Path(a.out), a.size, a.models.split(","))
    else:
        compile_all(Path(a.models_dir), Path(a.out), a.target, a.models.split(","), a.build)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
