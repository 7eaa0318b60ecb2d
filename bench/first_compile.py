"""A model's first compile, as a user or a service meets it: every stage and every kernel built with
NVRTC into a fresh kernel store (nothing cached), per model and precision.

    # full-size models (zoo.py needs PyTorch and transformers: the architectures side venv, bench/README.md)
    /tmp/zoovenv/bin/python ../shared/tools/zoo.py var/full --size full --only bert,gpt2,resnet,vit
    .venv/bin/python bench/first_compile.py --models-dir var/full --models bert,gpt2,resnet,vit --precision fp32,fp16

Writes bench/results/first_compile-<UTC time>.json (suite `first_compile`) and prints a row a model:
compile seconds, seconds per stage (the build stage is NVRTC's), kernels built and the largest
register count among them, launches and the predicted latency (so two runs can be checked to have
compiled the same plans). No GPU: the builds are NVRTC's, nothing runs."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--models", required=True, help="comma-separated names of <models-dir>/<name>.onnx")
    ap.add_argument("--precision", default="fp32", help="comma-separated: fp32, tf32, fp16, bf16")
    ap.add_argument("--target", default="h100")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args(argv)
    from bench.kernels import compile_row, fresh_store, run_started, write_results
    from compiler.pipeline import CompileOptions
    rows: list[dict] = []
    started = run_started()
    settings = {"target": a.target, "build": True, "store": "a fresh kernel store per compile"}
    for name in a.models.split(","):
        path = Path(a.models_dir) / f"{name}.onnx"
        for precision in a.precision.split(","):
            row = {"name": name, "precision": precision}
            with fresh_store(True) as store:
                compile_row(row, path.read_bytes(), a.target, CompileOptions(precision=precision), store)
            rows.append(row)
            print(json.dumps(row), flush=True)
            write_results("first_compile", "none (NVRTC builds; predicted times)", settings, rows, Path(a.out), started)
    print("wrote", write_results("first_compile", "none (NVRTC builds; predicted times)", settings, rows,
                                 Path(a.out), started))
    return 0 if all(r.get("compiled") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
