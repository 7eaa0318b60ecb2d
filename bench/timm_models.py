"""timm's image models (PyTorch Image Models, the library most vision users take their backbones
from) as torch.onnx writes them, compiled whole and checked on the host harness: families neither
torchvision nor transformers have (MetaFormers, NFNets, RepVGG/MobileOne, Sequencer's LSTMs, HaloNet,
lambda layers, VOLO's outlookers, Hiera, EfficientViT, MobileNetV4, ...).

    # 1. export (PyTorch, torchvision and timm: the side venv of bench/README.md, plus `pip install timm`)
    /tmp/tvvenv/bin/python bench/timm_models.py export --out var/timm_models [--exporter dynamo]
    # 2. compile each and run it on the host harness against onnxruntime and PyTorch
    .venv/bin/python bench/timm_models.py compile --models-dir var/timm_models --out bench/results

Random weights (`timm.create_model(name, pretrained=False)`: nothing is downloaded), spread as
bench/vision_models.py spreads torchvision's, and every parameter initialised to one value (a
layer scale of 1e-5, a skip gain of 0, a norm's ones) drawn around it, so that no residual branch is
invisible to the check. Each model takes a random image at the smallest size of `MODELS` its
layout accepts (64 unless a fixed grid needs more), with `img_size` passed where the model sizes
its positions by it. Rows as bench/vision_models.py's, written to bench/results/timm_models-<UTC
time>.json."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

# name -> (timm.create_model keyword arguments beyond pretrained=False, image side)
SIDE = 64
MODELS: dict[str, tuple[dict, int]] = {
    # convolutional networks
    "resnest14d": ({}, SIDE),                      # split attention (radix softmax)
    "res2net50_14w_8s": ({}, SIDE),
    "skresnet18": ({}, SIDE),                      # selective kernels
    "seresnext26d_32x4d": ({}, SIDE),
    "ecaresnet26t": ({}, SIDE),                    # ECA: a 1-D convolution over channels
    "gcresnet33ts": ({"img_size": SIDE}, SIDE),    # global context blocks
    "tresnet_m": ({}, SIDE),                       # space-to-depth stem, anti-aliased downsampling
    "nf_resnet26": ({}, SIDE),                     # normalizer-free: weights standardised in the graph
    "dm_nfnet_f0": ({}, SIDE),
    "regnetz_b16": ({"img_size": SIDE}, SIDE),
    "dla34": ({}, SIDE),
    "dpn68b": ({}, SIDE),                          # dual path: residual and dense channels
    "cspresnet50": ({}, SIDE),
    "cs3darknet_s": ({}, SIDE),
    "hrnet_w18_small": ({}, SIDE),                 # parallel resolutions, upsampled and summed
    "selecsls42b": ({}, SIDE),
    "xception41": ({}, SIDE),
    "inception_v4": ({}, 299),                     # its reductions need 299
    "inception_resnet_v2": ({}, 299),
    "ese_vovnet19b_dw": ({}, SIDE),
    "gernet_s": ({"img_size": SIDE}, SIDE),
    "hgnet_tiny": ({}, SIDE),
    "hgnetv2_b0": ({}, SIDE),                      # learnable affine blocks
    "rdnet_tiny": ({}, SIDE),
    "convmixer_768_32": ({}, SIDE),
    "inception_next_tiny": ({}, SIDE),
    "starnet_s1": ({}, SIDE),                      # element-wise products of branches
    "fasternet_t0": ({}, SIDE),                    # partial convolutions
    # mobile networks
    "mixnet_s": ({}, SIDE),                        # mixed kernel sizes in one depthwise layer
    "ghostnetv2_100": ({}, SIDE),
    "repghostnet_050": ({}, SIDE),
    "rexnet_100": ({}, SIDE),
    "lcnet_050": ({}, SIDE),
    "mobilenetv4_conv_small": ({}, SIDE),
    "mobilenetv4_hybrid_medium": ({}, SIDE),       # mobile multi-query attention
    "repvgg_a0": ({"img_size": SIDE}, SIDE),       # training-time branches (not re-parameterised)
    "mobileone_s0": ({"img_size": SIDE}, SIDE),
    "fastvit_t8": ({}, SIDE),
    "fastvit_mci0": ({}, SIDE),
    "mobilevit_xxs": ({"img_size": SIDE}, SIDE),
    "efficientvit_b0": ({}, SIDE),                 # ReLU linear attention
    "efficientvit_m0": ({"img_size": SIDE}, SIDE),  # cascaded group attention
    "edgenext_xx_small": ({}, SIDE),
    "shvit_s1": ({}, SIDE),
    "swiftformer_xs": ({"img_size": SIDE}, SIDE),
    "efficientformer_l1": ({}, 224),               # its attention biases are sized for 224
    "efficientformerv2_s0": ({"img_size": SIDE}, SIDE),
    "levit_128s": ({"img_size": SIDE}, SIDE),
    "tiny_vit_5m_224": ({}, SIDE),
    "csatv2": ({}, SIDE),
    # MLPs and MetaFormers
    "mixer_s16_224": ({"img_size": SIDE}, SIDE),
    "resmlp_12_224": ({"img_size": SIDE}, SIDE),
    "gmlp_ti16_224": ({"img_size": SIDE}, SIDE),
    "poolformerv2_s12": ({}, SIDE),
    "caformer_s18": ({}, SIDE),
    "mambaout_femto": ({}, SIDE),
    "sequencer2d_s": ({"img_size": SIDE}, SIDE),   # bidirectional LSTMs along rows and columns
    # vision transformers
    "deit_tiny_distilled_patch16_224": ({"img_size": SIDE}, SIDE),
    "cait_xxs24_224": ({"img_size": SIDE}, SIDE),  # class attention, talking heads
    "xcit_nano_12_p16_224": ({"img_size": SIDE}, SIDE),  # cross-covariance attention
    "eva02_tiny_patch14_224": ({"img_size": SIDE}, SIDE),  # rotary positions, SwiGLU
    "vit_relpos_small_patch16_224": ({"img_size": SIDE}, SIDE),
    "vit_small_patch14_reg4_dinov2": ({"img_size": SIDE}, SIDE),
    "vit_small_patch16_rope_224": ({"img_size": SIDE}, SIDE),
    "vitamin_small_224": ({"img_size": SIDE}, SIDE),
    "pit_ti_224": ({"img_size": SIDE}, SIDE),
    "crossvit_tiny_240": ({}, SIDE),
    "convit_tiny": ({"img_size": SIDE}, SIDE),     # gated positional self-attention
    "tnt_s_patch16_224": ({"img_size": SIDE}, SIDE),
    "visformer_tiny": ({"img_size": SIDE}, SIDE),
    "twins_pcpvt_small": ({"img_size": SIDE}, SIDE),
    "pvt_v2_b0": ({}, SIDE),
    "coat_lite_tiny": ({"img_size": SIDE}, SIDE),
    "nest_tiny_jx": ({"img_size": SIDE}, SIDE),
    "volo_d1_224": ({"img_size": SIDE}, SIDE),     # outlook attention (unfold, fold)
    "focalnet_tiny_srf": ({}, SIDE),
    "davit_tiny": ({}, SIDE),
    "gcvit_xxtiny": ({"img_size": SIDE}, SIDE),
    "coatnet_0_rw_224": ({"img_size": SIDE}, SIDE),
    "nextvit_small": ({}, SIDE),
    "hiera_tiny_224": ({"img_size": SIDE}, SIDE),  # mask-unit attention
    "botnet26t_256": ({"img_size": SIDE}, SIDE),   # relative-position self-attention in a ResNet
    "halonet26t": ({}, 256),                       # blocked local attention: its halos need 256
    "lambda_resnet26t": ({"img_size": SIDE}, SIDE),
}


def wake_constants(m):
    """Draw every parameter that holds one value around it (a zero among +-0.1, a value c among
    0.5..1.5 times max(|c|, 0.1) with its sign): a layer scale of 1e-5 or a skip gain of 0 would
    hide its branch from the check. Returns `m`."""
    import torch
    with torch.no_grad():
        for p in m.parameters():
            if p.numel() < 2:
                continue
            first = p.flatten()[0].item()
            if not bool((p == first).all()):
                continue
            if first == 0.0:
                p.uniform_(-0.1, 0.1)
            else:
                scale = max(abs(first), 0.1) * (1.0 if first > 0 else -1.0)
                p.uniform_(0.5, 1.5).mul_(scale)
    return m


def export(out: Path, models: list[str], exporter: str = "torchscript") -> None:
    import timm
    import torch
    from bench.vision_models import EXPORTERS, spread
    out.mkdir(parents=True, exist_ok=True)
    kwargs_of_export, words = EXPORTERS[exporter]
    (out / "export.json").write_text(json.dumps({"exporter": exporter, "export": words,
                                                 "timm": timm.__version__, "torch": torch.__version__}) + "\n")
    for name in models:
        kwargs, side = MODELS[name]
        torch.manual_seed(0)
        m = wake_constants(spread(timm.create_model(name, pretrained=False, **kwargs).eval()))
        x = torch.rand(1, 3, side, side)
        with torch.no_grad():
            ref = m(x)
        try:
            torch.onnx.export(m, (x,), str(out / f"{name}.onnx"), input_names=["x"], output_names=["y"],
                              **kwargs_of_export)
        except Exception as e:      # the export's own failure, printed; the model is left out
            print("not exported", name, f"{type(e).__name__}: {e}"[:300], flush=True)
            continue
        np.savez(out / f"{name}_in.npz", x=x.numpy(), torch_y=ref.numpy())
        print("exported", name, flush=True)


def main(argv=None) -> None:
    from bench.vision_models import EXPORTERS, compile_all, compile_parser
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="export the models (needs PyTorch and timm)")
    e.add_argument("--out", default="var/timm_models")
    e.add_argument("--models", default=",".join(MODELS), help="comma-separated")
    e.add_argument("--exporter", default="torchscript", choices=list(EXPORTERS))
    compile_parser(sub, "timm_models", ",".join(MODELS),
                   "compile each and run it on the host harness against onnxruntime and PyTorch")
    a = ap.parse_args(argv)
    if a.cmd == "export":
        export(Path(a.out), a.models.split(","), a.exporter)
    else:
        compile_all(Path(a.models_dir), Path(a.out), a.target, a.models.split(","), a.precision, a.build,
                    suite="timm_models")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
