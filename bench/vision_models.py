"""torchvision's classification, segmentation, video and optical-flow models as torch.onnx's
TorchScript exporter (or its dynamo one) writes them, compiled whole and checked on the host harness.

    # 1. export (PyTorch and torchvision: the side venv of bench/README.md)
    /tmp/tvvenv/bin/python bench/vision_models.py export --out var/vision_models
    #    (or --exporter dynamo --out var/vision_dynamo: torch's default exporter since 2.9)
    # 2. compile each and run it on the host harness against onnxruntime and PyTorch (nothing but the compiler)
    .venv/bin/python bench/vision_models.py compile --models-dir var/vision_models --out bench/results

The models have random weights (no download here), their BatchNorm statistics spread so that no
channel is the identity and a weight initialised to zeros (ViT's head) drawn at random; each takes a random input at a small size the architecture accepts
(`MODELS`). The export stores PyTorch's own output beside the input, so a model onnxruntime cannot
run (it refuses MViT's Loops inside an If with inputs of unknown shape) is still checked. Each row:
compiled or the error that stops it, predicted microseconds, launches, compile seconds (and the
report's seconds per stage), and the
largest error relative to the reference's largest magnitude against onnxruntime and against PyTorch,
and the reference's standard deviation (a constant output would make the errors meaningless)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

# name -> (torchvision builder and keyword arguments, input shape); None: two images (optical flow)
MODELS: dict[str, tuple[str, dict, tuple[int, ...] | None]] = {
    "alexnet": ("alexnet", {}, (1, 3, 224, 224)),        # its adaptive pool exports only from 224
    "vgg11_bn": ("vgg11_bn", {}, (1, 3, 224, 224)),
    "resnet18": ("resnet18", {}, (1, 3, 64, 64)),
    "resnext50_32x4d": ("resnext50_32x4d", {}, (1, 3, 64, 64)),
    "wide_resnet50_2": ("wide_resnet50_2", {}, (1, 3, 64, 64)),
    "densenet121": ("densenet121", {}, (1, 3, 64, 64)),
    "googlenet": ("googlenet", {"aux_logits": False, "init_weights": True}, (1, 3, 64, 64)),
    "inception_v3": ("inception_v3", {"aux_logits": False, "init_weights": True}, (1, 3, 96, 96)),
    "mobilenet_v2": ("mobilenet_v2", {}, (1, 3, 64, 64)),
    "mobilenet_v3_small": ("mobilenet_v3_small", {}, (1, 3, 64, 64)),
    "mnasnet0_5": ("mnasnet0_5", {}, (1, 3, 64, 64)),
    "shufflenet_v2_x0_5": ("shufflenet_v2_x0_5", {}, (1, 3, 64, 64)),
    "squeezenet1_0": ("squeezenet1_0", {}, (1, 3, 64, 64)),
    "efficientnet_b0": ("efficientnet_b0", {}, (1, 3, 64, 64)),
    "efficientnet_v2_s": ("efficientnet_v2_s", {}, (1, 3, 64, 64)),
    "regnet_y_400mf": ("regnet_y_400mf", {}, (1, 3, 64, 64)),
    "convnext_tiny": ("convnext_tiny", {}, (1, 3, 64, 64)),
    "vit_b_16": ("vit_b_16", {"image_size": 64}, (1, 3, 64, 64)),
    "swin_t": ("swin_t", {}, (1, 3, 64, 64)),
    "swin_v2_t": ("swin_v2_t", {}, (1, 3, 64, 64)),
    "maxvit_t": ("maxvit_t", {}, (1, 3, 224, 224)),       # its partitions need 224
    "fcn_resnet50": ("segmentation.fcn_resnet50", {"weights_backbone": None, "aux_loss": False}, (1, 3, 64, 64)),
    "deeplabv3_mobilenet_v3_large": ("segmentation.deeplabv3_mobilenet_v3_large",
                                     {"weights_backbone": None, "aux_loss": False}, (1, 3, 64, 64)),
    "lraspp_mobilenet_v3_large": ("segmentation.lraspp_mobilenet_v3_large", {"weights_backbone": None}, (1, 3, 64, 64)),
    "r3d_18": ("video.r3d_18", {}, (1, 3, 4, 32, 32)),
    "r2plus1d_18": ("video.r2plus1d_18", {}, (1, 3, 4, 32, 32)),
    "swin3d_t": ("video.swin3d_t", {}, (1, 3, 4, 64, 64)),
    "mvit_v2_s": ("video.mvit_v2_s", {}, (1, 3, 16, 224, 224)),   # its positions are sized for 16 x 224 x 224
    "raft_small": ("optical_flow.raft_small", {}, None),
}
FLOW_SIZE = 128          # RAFT's correlation pyramid needs 16 x 16 features, images of 8 x 16
FLOW_UPDATES = 3


EXPORTERS = {     # --exporter -> what torch.onnx.export is called with, and the settings' words for it
    "torchscript": ({"opset_version": 17, "dynamo": False}, "torch.onnx.export, TorchScript, opset 17"),
    # torch's default since 2.9 (torch.export's graph, decomposed, optimized by onnxscript)
    "dynamo": ({"opset_version": 18, "dynamo": True, "external_data": False, "optimize": True, "verbose": False},
               "torch.onnx.export, dynamo (torch.export), opset 18"),
}


def export(out: Path, models: list[str], exporter: str = "torchscript") -> None:
    import torch
    from torchvision import models as tvm
    out.mkdir(parents=True, exist_ok=True)
    kwargs_of_export, words = EXPORTERS[exporter]
    (out / "export.json").write_text(json.dumps({"exporter": exporter, "export": words}) + "\n")
    for name in models:
        builder, kwargs, shape = MODELS[name]
        torch.manual_seed(0)
        fn = tvm
        for part in builder.split("."):
            fn = getattr(fn, part)
        m = spread(fn(weights=None, **kwargs).eval())
        if shape is None:
            model = _last_flow(m)
            args = (torch.rand(1, 3, FLOW_SIZE, FLOW_SIZE), torch.rand(1, 3, FLOW_SIZE, FLOW_SIZE))
            names = ["image1", "image2"]
        else:
            model, args, names = m, (torch.rand(*shape),), ["x"]
        with torch.no_grad():
            ref = model(*args)
        if isinstance(ref, dict):       # segmentation models return {"out": ...}
            ref = ref["out"]
        try:
            torch.onnx.export(model, args, str(out / f"{name}.onnx"), input_names=names, output_names=["y"],
                              **kwargs_of_export)
        except Exception as e:      # the row records what stops the export
            print("not exported", name, f"{type(e).__name__}: {e}"[:300], flush=True)
            continue
        np.savez(out / f"{name}_in.npz", **{n: a.numpy() for n, a in zip(names, args)}, torch_y=ref.numpy())
        print("exported", name, flush=True)


def spread(m):
    """A random-weight model made a fair check: a weight initialised to zeros (ViT's head: every
    output would be 0) drawn at random, and BatchNorm statistics spread so that no channel is the
    identity. Returns `m`."""
    import torch
    with torch.no_grad():
        for p in m.parameters():
            if p.ndim >= 2 and not p.any():
                p.normal_(0.0, 0.02)
        for mod in m.modules():
            if isinstance(mod, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d, torch.nn.BatchNorm3d)) and mod.affine \
                    and mod.running_mean is not None:
                mod.running_mean.uniform_(-0.2, 0.2)
                mod.running_var.uniform_(0.5, 2.0)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.5, 0.5)
    return m


def _last_flow(m):
    """RAFT returns one flow estimate per update; the export keeps the last."""
    import torch

    class LastFlow(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = m

        def forward(self, a, b):
            return self.m(a, b, num_flow_updates=FLOW_UPDATES)[-1]
    return LastFlow()


def compile_all(models_dir: Path, out: Path, target: str, models: list[str], precision: str = "fp32",
                build: bool = False, suite: str = "vision_models", more_checks=None) -> None:
    """Each model compiled and run on the host harness against onnxruntime (and PyTorch's output
    where the export stored one); `more_checks(data, inputs, outputs, onnxruntime's outputs)`: a
    suite's own further figures, a dict merged into the row."""
    import onnxruntime as ort
    from bench.kernels import compile_row, fresh_store, run_started, write_results
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.verify import max_rel_error
    rows = []
    started = run_started()
    made = models_dir / "export.json"     # written by export (an older export directory has none)
    settings = {"target": target, "precision": precision, "build": build,
                "export": json.loads(made.read_text())["export"] if made.exists() else EXPORTERS["torchscript"][1],
                "verify": "host harness against onnxruntime and PyTorch's output at export"}

    def save() -> Path:      # after every row: a run stopped part way keeps what it measured
        return write_results(suite, "none (host harness; predicted times)", settings, rows, out, started)
    for name in models:
        model_path = models_dir / f"{name}.onnx"
        if not model_path.exists():
            continue
        data = model_path.read_bytes()
        stored = dict(np.load(models_dir / f"{name}_in.npz"))
        torch_y = stored.pop("torch_y", None)     # None: an export whose PyTorch module is not what it wrote
        row = {"name": name, "precision": precision}
        with fresh_store(build) as store:
            art = compile_row(row, data, target, CompileOptions(build=build, precision=precision), store)
        if art is None:
            rows.append(row)
            print(name, "not compiled:", row["error"][:200], flush=True)
            save()
            continue
        got = Executor(art.plan, make_backend("host")).run(stored)
        if torch_y is not None:
            row["rel_error_torch"] = max_rel_error(got, {"y": torch_y})
        try:
            sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
            names = [o.name for o in sess.get_outputs()]
            want = dict(zip(names, sess.run(names, stored)))
            row["rel_error_onnxruntime"] = max_rel_error(got, want)
        except Exception as e:     # onnxruntime's own failure on the model, recorded
            row["onnxruntime_error"] = f"{type(e).__name__}: {e}"[:300]
            want = {}
        if more_checks is not None:
            row.update(more_checks(data, stored, got, want))
        # a degenerate (constant) output would show here: the spread of the first output
        first = torch_y if torch_y is not None else next(iter(want.values()), None)
        if first is not None:
            row["reference_std"] = float(np.asarray(first).std())
        rows.append(row)
        print(json.dumps(row), flush=True)
        save()
    print("wrote", save())


def compile_parser(sub, suite: str, models: str, help: str, precision: bool = True):
    """The `compile` subcommand the model suites share: --models-dir (var/<suite>), --out,
    --target, --models (comma-separated; `models` by default), --precision where the suite
    compiles at others than fp32, --build."""
    c = sub.add_parser("compile", help=help)
    c.add_argument("--models-dir", default=f"var/{suite}")
    c.add_argument("--out", default="bench/results")
    c.add_argument("--target", default="h100")
    c.add_argument("--models", default=models, help="comma-separated")
    if precision:
        c.add_argument("--precision", default="fp32", choices=["fp32", "fp16", "bf16"],
                       help="the compile's precision (the references stay fp32: expect fp16's rounding)")
    c.add_argument("--build", action="store_true", help="also build every kernel with NVRTC into a fresh kernel "
                   "store, as a first compile does (stage_s's build, kernels_built, max_registers)")
    return c


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="export the models (needs PyTorch and torchvision)")
    e.add_argument("--out", default="var/vision_models")
    e.add_argument("--models", default=",".join(MODELS), help="comma-separated")
    e.add_argument("--exporter", default="torchscript", choices=list(EXPORTERS),
                   help="torch.onnx.export's TorchScript exporter (opset 17) or its dynamo one, torch's default "
                   "(opset 18)")
    compile_parser(sub, "vision_models", ",".join(MODELS),
                   "compile each and run it on the host harness against onnxruntime and PyTorch")
    a = ap.parse_args(argv)
    if a.cmd == "export":
        export(Path(a.out), a.models.split(","), a.exporter)
    else:
        compile_all(Path(a.models_dir), Path(a.out), a.target, a.models.split(","), a.precision, a.build)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
