"""A decoder's step at a 7B model's attention geometry, as a serving loop runs it: transformers'
LlamaModel with one layer (hidden 4096, 32 heads of 128, intermediate 1024), one new token
against a key/value cache, with 32 key/value heads and 2047 cached positions and with 8 (GQA) and
4095. Exported by ../shared/tools/zoo.py's export() (bench/architectures.py `decoder_step`),
compiled for h100 (build off) in fp32 and fp16, default against `--disable welder`. Each row:
launches and predicted us both ways, and the attention chain's record from report.json's fusion
section (the kind chosen and the predicted us of every kind that could render it, against its
members apart).

    # 1. export (PyTorch and transformers: the side venv of bench/README.md; ~570 MB of ONNX)
    /tmp/zoovenv/bin/python bench/decoder_step.py export --out var/decoder_steps
    # 2. compile (the project's venv, no GPU)
    .venv/bin/python bench/decoder_step.py compile --models-dir var/decoder_steps

Writes bench/results/decoder_step-<UTC time>.json (suite `decoder_step`) and prints a table.
These are the micro-model's predictions; the GPU half of bench/README.md measures."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GEOMETRY = dict(hidden_size=4096, num_hidden_layers=1, num_attention_heads=32, intermediate_size=1024)
STEPS = {"llama7b_step_mha_2047": (2047, 32), "llama7b_step_gqa_4095": (4095, 8)}   # cached, kv heads


def export(a) -> int:
    sys.path.insert(0, str(Path(a.shared) / "tools"))
    import torch
    import transformers as tf
    import zoo
    from bench.architectures import decoder_step
    Path(a.out).mkdir(parents=True, exist_ok=True)
    for name, (cached, kv) in STEPS.items():
        make, inputs = decoder_step(zoo, tf, torch, "Llama", cached, **GEOMETRY, num_key_value_heads=kv,
                                    max_position_embeddings=cached + 64)
        print("exported", zoo.export(name, make, inputs, a.out), flush=True)
    return 0


def attention_record(report: dict) -> dict:
    """The fusion record of the chain priced by attention kinds (kept or declined), or {}."""
    fusion = report["fusion"]
    for g in fusion["groups"] + fusion["declined"]:
        kinds = g.get("predicted_us", {}).get("kinds", {})
        if any(k.startswith("flash_") for k in kinds):
            # with the operand maps tried in its loads (passes/prologue.py): operand, ops, joined
            prologues = [{"operand": p["operand"], "ops": len(p["ops"]), "joined": p["joined"]}
                         for p in fusion.get("prologues", [])]
            return {"kept": g in fusion["groups"], **g["predicted_us"], "prologues": prologues}
    return {}


def compile_all(a) -> int:
    from bench.kernels import write_results
    from compiler import compile
    from compiler.pipeline import CompileOptions
    rows = []
    print(f"{'model':<24} {'prec':<5} {'launches':>9} {'us':>9} {'no-welder us':>13}  attention")
    for name in STEPS:
        path = Path(a.models_dir) / f"{name}.onnx"
        for precision in ("fp32", "fp16"):
            on = compile(str(path), "h100", CompileOptions(precision=precision, build=False)).report
            off = compile(str(path), "h100", CompileOptions(precision=precision, build=False,
                                                            disable=("welder",))).report
            att = attention_record(on)
            rows.append({"name": name, "precision": precision, "launches": on["launches_per_inference"],
                         "predicted_us": on["latency"]["predicted_us"],
                         "no_welder_launches": off["launches_per_inference"],
                         "no_welder_predicted_us": off["latency"]["predicted_us"], "attention": att})
            print(f"{name:<24} {precision:<5} {on['launches_per_inference']:>4}/{off['launches_per_inference']:<4} "
                  f"{on['latency']['predicted_us']:>9.3f} {off['latency']['predicted_us']:>13.3f}  "
                  f"{att.get('kind')} {att.get('kinds')} apart {att.get('apart')} "
                  f"prologues {att.get('prologues')}", flush=True)
    out = write_results("decoder_step", "none (predicted from report.json)",
                        {"target": "h100", "build": False, "geometry": GEOMETRY, "steps": STEPS}, rows, a.out)
    print(f"-> {out}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="export the two steps (needs PyTorch and transformers)")
    e.add_argument("--out", required=True)
    e.add_argument("--shared", default=os.environ.get("BRICKYARD_SHARED", str(ROOT.parent / "shared")))
    c = sub.add_parser("compile", help="compile them, default against --disable welder")
    c.add_argument("--models-dir", required=True)
    c.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    return export(a) if a.cmd == "export" else compile_all(a)


if __name__ == "__main__":
    raise SystemExit(main())
