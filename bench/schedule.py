"""The rammer stage's predicted effect (CPU, no GPU): each shared model compiled with the stage on
(the default) and with `--disable rammer`, and with the barrier variant (`--barriers`); kernels,
launches per inference and the predicted latency (report.json: kernel predictions plus a launch
each) on every side, and the co-launches.

    .venv/bin/python bench/schedule.py [--models bert,vit] [--target h100] [--out DIR]

Writes bench/results/schedule-<UTC time>.json (suite `schedule`) and prints a table. Predictions,
not measurements: on a GPU, bench/e2e.py --disable rammer measures the same comparison."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def compile_one(path: Path, target: str, disable: tuple[str, ...], barriers: bool = False) -> dict:
    from compiler import compile
    from compiler.pipeline import CompileOptions
    rep = compile(str(path), target, CompileOptions(build=False, disable=disable, barriers=barriers)).report
    sched = rep["schedule"]
    return {"launches": rep["launches_per_inference"], "kernels": sched.get("kernels", rep["launches_per_inference"]),
            "predicted_us": rep["latency"]["predicted_us"],
            "co_launches": [[m["entry"] for m in c["members"]] for c in sched["co_launches"]]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated names in the shared models folder (default: all)")
    ap.add_argument("--shared", default=os.environ.get("BRICKYARD_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument("--target", default="h100")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    models_dir = Path(a.shared) / "models"
    names = a.models.split(",") if a.models else sorted(p.stem for p in models_dir.glob("*.onnx"))
    rows = []
    for name in names:
        on = compile_one(models_dir / f"{name}.onnx", a.target, ())
        off = compile_one(models_dir / f"{name}.onnx", a.target, ("rammer",))
        joined = compile_one(models_dir / f"{name}.onnx", a.target, (), barriers=True)
        rows.append({"name": name, "rammer": on, "plain": off, "barriers": joined})
    from bench.kernels import write_results
    out = write_results("schedule", "none (predicted from report.json)", {"target": a.target}, rows, a.out)
    print(f"{'model':<18} {'kernels':>7} {'launches':>8} {'co-launches':>11} {'pred us':>18} "
          f"{'--barriers launches':>20} {'pred us':>8}")
    for r in rows:
        on, off, j = r["rammer"], r["plain"], r["barriers"]
        print(f"{r['name']:<18} {on['kernels']:>7} {on['launches']:>8} {len(on['co_launches']):>11} "
              f"{on['predicted_us']:>8.1f} / {off['predicted_us']:<8.1f} {j['launches']:>20} {j['predicted_us']:>8.1f}")
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
