"""Half storage's predicted effect (CPU, no GPU): each model compiled in fp16 (or bf16) with the
stage on (the default) and with `--disable half_storage`: the values stored in half and those
kept fp32, predicted latency and DRAM bytes per inference from report.json, and compile seconds
without NVRTC builds (the stage prices every value with Roller's candidates: that time is its cost).

    .venv/bin/python bench/half_storage.py [--models bert,vit] [--models-dir DIR] [--precision fp16] [--out DIR]

The models are the shared folder's, plus every .onnx of `--models-dir` (e.g. var/architectures,
bench/architectures.py's exports). Writes bench/results/half_storage-<UTC time>.json (suite
`half_storage`) and prints a table. The figures are the cost model's; on a GPU,
tests/gpu/test_half_storage_gpu.py times both plans of a BERT-base feed-forward block."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def compile_one(path: Path, target: str, precision: str, disable: tuple[str, ...]) -> dict:
    from compiler import compile
    from compiler.pipeline import CompileOptions
    t0 = time.perf_counter()
    art = compile(str(path), target, CompileOptions(precision=precision, build=False, disable=disable))
    seconds = time.perf_counter() - t0
    rep = art.report
    stage = next(t for t in rep["techniques"] if t["name"] == "half storage")["effect"]
    return {"launches": rep["launches_per_inference"], "predicted_us": rep["latency"]["predicted_us"],
            "dram_bytes": rep["traffic"]["dram_bytes"], "compile_s": round(seconds, 3),
            "stored": stage.get("values", []), "kept": [k["value"] for k in stage.get("kept", [])]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated names (default: all)")
    ap.add_argument("--shared", default=os.environ.get("BRICKYARD_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument("--models-dir", action="append", default=[], help="more .onnx models (repeatable)")
    ap.add_argument("--target", default="h100")
    ap.add_argument("--precision", default="fp16", choices=["fp16", "bf16"])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    from bench.kernels import model_paths
    paths = model_paths(a.shared, a.models_dir)
    names = a.models.split(",") if a.models else sorted(paths)
    unknown = [n for n in names if n not in paths]
    if unknown:
        ap.error(f"unknown models {unknown}: choose from {sorted(paths)}")
    rows = []
    for name in names:
        on = compile_one(paths[name], a.target, a.precision, ())
        # compiled twice: the second compile's time is the one kept (the first warms the process)
        on["compile_s"] = compile_one(paths[name], a.target, a.precision, ())["compile_s"]
        off = compile_one(paths[name], a.target, a.precision, ("half_storage",))
        rows.append({"name": name, "half_storage": on, "disabled": off,
                     "latency_ratio": round(on["predicted_us"] / off["predicted_us"], 4),
                     "dram_ratio": round(on["dram_bytes"] / off["dram_bytes"], 4),
                     "compile_ratio": round(on["compile_s"] / off["compile_s"], 4)})
        r = rows[-1]
        print(f"{name:<20} {len(on['stored']):>3} stored {len(on['kept']):>2} kept  "
              f"{on['predicted_us']:>9.3f} / {off['predicted_us']:<9.3f} us {r['latency_ratio']:>6.3f}  "
              f"{on['dram_bytes']:>11} / {off['dram_bytes']:<11} B {r['dram_ratio']:>6.3f}  "
              f"{on['compile_s']:>6.2f} / {off['compile_s']:<6.2f} s", flush=True)
    from bench.kernels import write_results
    out = write_results("half_storage", "none (predicted from report.json)",
                        {"target": a.target, "precision": a.precision, "build": False,
                         "sides": "default against --disable half_storage"}, rows, a.out)
    import math
    geo = lambda xs: round(math.exp(sum(math.log(x) for x in xs) / len(xs)), 4)   # noqa: E731
    print(f"geomean over {len(rows)} models: latency {geo([r['latency_ratio'] for r in rows])}, "
          f"DRAM bytes {geo([r['dram_ratio'] for r in rows])}, compile time {geo([r['compile_ratio'] for r in rows])}"
          f" -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
