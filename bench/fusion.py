"""Fusion's predicted effect (CPU, no GPU): each shared model, and bench/decoder_models.py's Llama
decoders (eager and SDPA attention), compiled with the welder stage on (the default) and with
`--disable welder`; launches per inference and predicted DRAM bytes per inference
from report.json, their ratios, and compile time (NVRTC builds included, fresh kernel cache each).
The first table runs both sides with `--disable rammer`, so its counts are the welder stage's
alone (the rammer stage's co-launches are measured by bench/schedule.py); the second splits the
effect by level (the register level alone: `--disable shared_level`); the third is the
issue's acceptance comparison, the default pipeline against `--disable welder`, rammer on both
sides (a buffer read by several kernels of one co-launch counts once).

    .venv/bin/python bench/fusion.py [--models bert,gpt2] [--target h100] [--precision fp32] [--out DIR]

Writes bench/results/fusion-<UTC time>.json (suite `fusion`) and prints a table. The ratios are
predictions from the plan (what the kernels read and write), not measurements; on a GPU the
end-to-end benchmark measures fused against `--disable welder` (bench/e2e.py --disable welder)."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def compile_one(path: Path, target: str, precision: str, disable: tuple[str, ...]) -> dict:
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from kernel_cache import KernelStore
    with tempfile.TemporaryDirectory(prefix="brickyard-fusion-") as store:
        t0 = time.perf_counter()
        art = compile(str(path), target, CompileOptions(precision=precision, disable=disable),
                      store=KernelStore(store))
        seconds = time.perf_counter() - t0
    rep = art.report
    return {"launches": rep["launches_per_inference"], "dram_bytes": rep["traffic"]["dram_bytes"],
            "compile_s": round(seconds, 3), "groups": len(rep["fusion"]["groups"]),
            "kernels_built": rep["compile"]["cache"]["misses"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated names: the shared models folder's and "
                    "bench/decoder_models.py's (default: all)")
    ap.add_argument("--shared", default=os.environ.get("BRICKYARD_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument("--target", default="h100")
    ap.add_argument("--precision", default="fp32")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    models_dir = Path(a.shared) / "models"
    sys.path.insert(0, str(ROOT / "bench"))
    import decoder_models
    built = tempfile.TemporaryDirectory(prefix="brickyard-fusion-models-")
    paths = {p.stem: p for p in models_dir.glob("*.onnx")}
    for name, make in decoder_models.MODELS.items():     # models beyond the shared set
        paths[name] = Path(built.name) / f"{name}.onnx"
        paths[name].write_bytes(make().SerializeToString())
    names = a.models.split(",") if a.models else sorted(paths)
    unknown = [n for n in names if n not in paths]
    if unknown:
        ap.error(f"unknown models {unknown}: choose from {sorted(paths)}")
    rows = []
    for name in names:
        fused = compile_one(paths[name], a.target, a.precision, ("rammer",))
        unfused = compile_one(paths[name], a.target, a.precision, ("rammer", "welder"))
        register = compile_one(paths[name], a.target, a.precision, ("rammer", "shared_level"))   # one level's share
        # the acceptance's comparison: the default pipeline (rammer on) against --disable welder
        default = compile_one(paths[name], a.target, a.precision, ())
        no_welder = compile_one(paths[name], a.target, a.precision, ("welder",))
        rows.append({"name": name, "fused": fused, "unfused": unfused, "register_level": register,
                     "launch_ratio": round(fused["launches"] / unfused["launches"], 4),
                     "dram_ratio": round(fused["dram_bytes"] / unfused["dram_bytes"], 4),
                     "compile_ratio": round(fused["compile_s"] / unfused["compile_s"], 4),
                     "default": default, "no_welder": no_welder,
                     "default_launch_ratio": round(default["launches"] / no_welder["launches"], 4),
                     "default_dram_ratio": round(default["dram_bytes"] / no_welder["dram_bytes"], 4)})
    from bench.kernels import write_results
    out = write_results("fusion", "none (predicted from report.json)",
                        {"target": a.target, "precision": a.precision,
                         "compile": "fresh kernel cache per compile, NVRTC builds included",
                         "both_sides": "--disable rammer (fused, unfused, register_level: also --disable "
                                       "shared_level); rammer on (default, no_welder)"}, rows, a.out)
    print("welder alone (--disable rammer on both sides):")
    print(f"{'model':<18} {'launches':>16} {'ratio':>6} {'DRAM bytes':>24} {'ratio':>6} {'compile s':>14}")
    for r in rows:
        f, u = r["fused"], r["unfused"]
        print(f"{r['name']:<18} {f['launches']:>7} / {u['launches']:<6} {r['launch_ratio']:>6.2f} "
              f"{f['dram_bytes']:>11} / {u['dram_bytes']:<10} {r['dram_ratio']:>6.2f} "
              f"{f['compile_s']:>6.2f} / {u['compile_s']:<6.2f}")
    print("each level's share (--disable rammer): launches and DRAM bytes unfused, register level alone "
          "(--disable shared_level), both levels")
    for r in rows:
        u, g, f = r["unfused"], r["register_level"], r["fused"]
        print(f"{r['name']:<18} {u['launches']:>5} {g['launches']:>5} {f['launches']:>5}   "
              f"{u['dram_bytes']:>11} {g['dram_bytes']:>11} {f['dram_bytes']:>11}")
    print("default against --disable welder (rammer on both sides; co-launched kernels share reads):")
    print(f"{'model':<18} {'launches':>16} {'ratio':>6} {'DRAM bytes':>24} {'ratio':>6}")
    for r in rows:
        f, u = r["default"], r["no_welder"]
        print(f"{r['name']:<18} {f['launches']:>7} / {u['launches']:<6} {r['default_launch_ratio']:>6.2f} "
              f"{f['dram_bytes']:>11} / {u['dram_bytes']:<10} {r['default_dram_ratio']:>6.3f}")
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
