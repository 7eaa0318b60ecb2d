"""SparTA's predicted effect (CPU, no GPU): each shared model compiled with the sparta stage on (the
default) and with `--disable sparta`; from report.json, the FLOPs executed against dense, the
contractions made block-sparse with their predicted times dense and sparse, the plan's predicted
latency, and compile time (NVRTC builds included, fresh kernel cache each, so the sparse kernels'
baked tables go through NVRTC too).

    .venv/bin/python bench/sparta.py [--models bert_block_sparse,bert] [--target h100] [--out DIR]

Writes bench/results/sparta-<UTC time>.json (suite `sparta`) and prints a table. The figures are
the micro-model's predictions, not measurements; on a GPU bench/kernels.py and bench/e2e.py measure."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def compile_one(path: Path, target: str, disable: tuple[str, ...]) -> dict:
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from kernel_cache import KernelStore
    with tempfile.TemporaryDirectory(prefix="brickyard-sparta-") as store:
        t0 = time.perf_counter()
        art = compile(str(path), target, CompileOptions(disable=disable), store=KernelStore(store))
        seconds = time.perf_counter() - t0
    rep = art.report
    chosen = [e for e in rep["sparsity"]["kernels"] if e["chosen"] == "block_sparse"]
    stage = next(s["seconds"] for s in rep["compile"]["stages"] if s["name"] == "sparta")
    return {"flops": rep["flops"], "predicted_us": rep["latency"]["predicted_us"],
            "launches": rep["launches_per_inference"], "compile_s": round(seconds, 3),
            "sparta_stage_s": round(stage, 4), "sparse_tensors": len(rep["sparsity"]["tensors"]),
            "sparse_gemms": len(chosen),
            "sparse_gemm_flops": {"dense": sum(e["flops_dense"] for e in chosen),
                                  "executed": sum(e["flops_executed"] for e in chosen)},
            "sparse_gemm_us": {"dense": round(sum(e["predicted_us"]["dense"] for e in chosen), 3),
                               "block_sparse": round(sum(e["predicted_us"]["block_sparse"] for e in chosen), 3)},
            "kernels": rep["sparsity"]["kernels"]}


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
        off = compile_one(models_dir / f"{name}.onnx", a.target, ("sparta",))
        rows.append({"name": name, "sparta": on, "disabled": off})
    from bench.kernels import write_results
    out = write_results("sparta", "none (predicted from report.json)",
                        {"target": a.target, "compile": "fresh kernel cache per compile, NVRTC builds included"},
                        rows, a.out)
    print(f"{'model':<18} {'sparse GEMMs':>12} {'GEMM FLOPs exec/dense':>22} {'GEMM us dense/sparse':>21} "
          f"{'plan FLOPs exec/dense':>22} {'pred us on/off':>16} {'compile s on/off':>17}")
    for r in rows:
        on, off = r["sparta"], r["disabled"]
        g = on["sparse_gemm_flops"]
        gf = f"{g['executed'] / g['dense']:.3f}" if g["dense"] else "-"
        gu = on["sparse_gemm_us"]
        gs = f"{gu['dense'] / gu['block_sparse']:.2f}x" if gu["block_sparse"] else "-"
        pf = on["flops"]["executed"] / on["flops"]["dense"] if on["flops"]["dense"] else 1.0
        print(f"{r['name']:<18} {on['sparse_gemms']:>12} {gf:>22} {gs:>21} {pf:>22.3f} "
              f"{on['predicted_us']:>7.1f}/{off['predicted_us']:<8.1f} {on['compile_s']:>8.2f}/{off['compile_s']:<8.2f}")
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
