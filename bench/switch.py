"""One technique's predicted effect (CPU, no GPU): each model compiled as is and with
`--disable NAME`, the report's launches, predicted latency, DRAM bytes per inference, workspace
bytes and compile seconds without NVRTC builds, and the effect of each technique whose `enabled`
the switch flipped (report.json's `techniques`).

    .venv/bin/python bench/switch.py split_k [--models bert,vit] [--models-dir DIR] [--precision fp32,fp16]
                                     [--also-disable welder] [--out DIR]

The models are the shared folder's, plus every .onnx of `--models-dir` (e.g. var/full, zoo.py's
full-size models). `--also-disable` switches techniques off in both compiles. Writes
bench/results/switch-<UTC time>.json (suite `switch`) and prints a table with the geometric means.
The figures are the cost model's: on a GPU, bench/e2e.py measures a plan and its --disable pair."""
from __future__ import annotations

import argparse
import math
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
    return {"launches": rep["launches_per_inference"], "predicted_us": rep["latency"]["predicted_us"],
            "dram_bytes": rep["traffic"]["dram_bytes"], "workspace_bytes": rep["memory"]["workspace_bytes"],
            "compile_s": round(seconds, 3), "techniques": {t["name"]: t for t in rep["techniques"]}}


def flipped(on: dict, off: dict) -> dict:
    """The effects of the techniques the switch turned off, as the default compile reports them."""
    return {name: t["effect"] for name, t in on["techniques"].items()
            if t["enabled"] and not off["techniques"].get(name, {}).get("enabled", True)}


def geomean(xs: list[float]) -> float:
    return round(math.exp(sum(math.log(x) for x in xs) / len(xs)), 4) if xs else float("nan")


def main() -> int:
    from compiler.context import SWITCHABLE
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("technique", choices=SWITCHABLE, help="the --disable name compared")
    ap.add_argument("--models", help="comma-separated names (default: all)")
    ap.add_argument("--shared", default=os.environ.get("BRICKYARD_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument("--models-dir", action="append", default=[], help="more .onnx models (repeatable)")
    ap.add_argument("--target", default="h100")
    ap.add_argument("--precision", default="fp32", help="comma-separated: fp32, tf32, fp16, bf16")
    ap.add_argument("--also-disable", action="append", default=[], choices=SWITCHABLE,
                    help="switched off in both compiles (repeatable)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    from bench.kernels import model_paths
    paths = model_paths(a.shared, a.models_dir)
    names = a.models.split(",") if a.models else sorted(paths)
    unknown = [n for n in names if n not in paths]
    if unknown:
        ap.error(f"unknown models {unknown}: choose from {sorted(paths)}")
    both = tuple(a.also_disable)
    rows = []
    for precision in a.precision.split(","):
        for name in names:
            compile_one(paths[name], a.target, precision, both)     # warms the process: not kept
            on = compile_one(paths[name], a.target, precision, both)
            off = compile_one(paths[name], a.target, precision, both + (a.technique,))
            row = {"name": name, "precision": precision, "effect": flipped(on, off),
                   "default": {k: v for k, v in on.items() if k != "techniques"},
                   "disabled": {k: v for k, v in off.items() if k != "techniques"},
                   "latency_ratio": round(on["predicted_us"] / off["predicted_us"], 4),
                   "dram_ratio": round(on["dram_bytes"] / off["dram_bytes"], 4),
                   "compile_ratio": round(on["compile_s"] / off["compile_s"], 4)}
            rows.append(row)
            print(f"{name:<22} {precision:<5} {on['launches']:>4} / {off['launches']:<4} launches  "
                  f"{on['predicted_us']:>10.3f} / {off['predicted_us']:<10.3f} us {row['latency_ratio']:>6.3f}  "
                  f"{on['dram_bytes']:>11} / {off['dram_bytes']:<11} B  "
                  f"{on['compile_s']:>6.2f} / {off['compile_s']:<6.2f} s", flush=True)
    from bench.kernels import write_results
    out = write_results("switch", "none (predicted from report.json)",
                        {"target": a.target, "precision": a.precision, "build": False, "technique": a.technique,
                         "also_disabled": list(both),
                         "sides": f"default against --disable {a.technique}"}, rows, a.out)
    print(f"geomean over {len(rows)} rows (default / disabled): latency {geomean([r['latency_ratio'] for r in rows])}, "
          f"DRAM bytes {geomean([r['dram_ratio'] for r in rows])}, "
          f"compile time {geomean([r['compile_ratio'] for r in rows])} -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
