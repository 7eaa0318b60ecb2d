"""SparTA's predicted effect (CPU, no GPU): each shared model compiled with the sparta stage on (the
default) and with `--disable sparta`; from report.json, the FLOPs executed against dense, the
contractions made sparse (block-sparse, a weighted cover, or 2:4 on sparse tensor cores at
fp16/bf16) with their predicted times dense and sparse, the plan's predicted latency and DRAM
bytes, and compile time (NVRTC builds included, fresh kernel cache each, so the sparse kernels'
baked tables go through NVRTC too).

    .venv/bin/python bench/sparta.py [--models bert_block_sparse,bert] [--target h100] [--out DIR]
    .venv/bin/python bench/sparta.py --models-dir gpu/shared/models --models bert_24 --precision fp16 --check
    .venv/bin/python bench/sparta.py --models-dir gpu/shared/models --models bert_mag95 --disable welder

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


SPARSE = ("block_sparse", "cover", "sparse24")     # the sparta record's choices other than dense


def host_check(art, path: Path) -> dict | None:
    """The plan run on the host harness against the model's reference outputs (<model>.npz, as the
    shared models and zoo.py's exports carry): the largest absolute error and the reference's scale."""
    import numpy as np
    from compiler.runtime.executor import Executor, HostBackend
    ref = path.with_suffix(".npz")
    if not ref.exists():
        return None
    data = np.load(ref)
    out = Executor(art.plan, HostBackend()).run({k[3:]: data[k] for k in data if k.startswith("in:")})
    outs = [k for k in data if k.startswith("out:")]
    return {"max_abs_error": float(max(np.abs(out[k[4:]] - data[k]).max() for k in outs)),
            "max_abs_reference": float(max(np.abs(data[k]).max() for k in outs))}


def compile_one(path: Path, target: str, disable: tuple[str, ...], precision: str = "fp32",
                check: bool = False) -> dict:
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from kernel_cache import KernelStore
    with tempfile.TemporaryDirectory(prefix="brickyard-sparta-") as store:
        t0 = time.perf_counter()
        art = compile(str(path), target, CompileOptions(disable=disable, precision=precision), store=KernelStore(store))
        seconds = time.perf_counter() - t0
    rep = art.report
    chosen = [e for e in rep["sparsity"]["kernels"] if e["chosen"] in SPARSE]
    stages = {s["name"]: s["seconds"] for s in rep["compile"]["stages"]}
    return {"flops": rep["flops"], "predicted_us": rep["latency"]["predicted_us"],
            "dram_bytes": rep["traffic"]["dram_bytes"],
            "launches": rep["launches_per_inference"], "compile_s": round(seconds, 3),
            "sparta_stage_s": round(stages["sparta"], 4), "build_stage_s": round(stages.get("build", 0.0), 4),
            # each sparse kernel carries its weight's tables: distinct kernels are what NVRTC builds
            "distinct_kernels": len({k.entry for k in art.plan.kernels()}),
            "sparse_tensors": len(rep["sparsity"]["tensors"]),
            "sparse_gemms": len(chosen),
            "sparse_gemm_flops": {"dense": sum(e["flops_dense"] for e in chosen),
                                  "executed": sum(e["flops_executed"] for e in chosen)},
            "sparse_gemm_us": {"dense": round(sum(e["predicted_us"]["dense"] for e in chosen), 3),
                               "sparse": round(sum(e["predicted_us"][e["chosen"]] for e in chosen), 3)},
            "formats": sorted({e["chosen"] for e in chosen}),
            "host_check": host_check(art, path) if check else None,
            "kernels": rep["sparsity"]["kernels"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", help="comma-separated names in the shared models folder (default: all)")
    ap.add_argument("--shared", default=os.environ.get("BRICKYARD_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument("--models-dir", help="a folder of models instead of the shared one (e.g. gpu/shared/models, "
                    "where zoo.py's 2:4-pruned BERT is made: bench/README.md)")
    ap.add_argument("--target", default="h100")
    ap.add_argument("--precision", default="fp32", help="fp16 or bf16 for the 2:4 path (sparse tensor cores)")
    ap.add_argument("--check", action="store_true",
                    help="also run each plan on the host harness against the model's reference outputs")
    ap.add_argument("--disable", default="", help="stages off in both compiles (e.g. welder: every pruned GEMM "
                    "on its own, none folded into a row chain)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    also = tuple(x for x in a.disable.split(",") if x)
    models_dir = Path(a.models_dir) if a.models_dir else Path(a.shared) / "models"
    names = a.models.split(",") if a.models else sorted(p.stem for p in models_dir.glob("*.onnx"))
    rows = []
    for name in names:
        on = compile_one(models_dir / f"{name}.onnx", a.target, also, a.precision, a.check)
        off = compile_one(models_dir / f"{name}.onnx", a.target, also + ("sparta",), a.precision, a.check)
        rows.append({"name": name, "sparta": on, "disabled": off})
    from bench.kernels import write_results
    out = write_results("sparta", "none (predicted from report.json)",
                        {"target": a.target, "precision": a.precision, "disabled_in_both": list(also),
                         "compile": "fresh kernel cache per compile, NVRTC builds included"},
                        rows, a.out)
    print(f"{'model':<18} {'sparse GEMMs':>12} {'GEMM FLOPs exec/dense':>22} {'GEMM us dense/sparse':>21} "
          f"{'plan FLOPs exec/dense':>22} {'pred us on/off':>16} {'DRAM on/off':>12} {'compile s on/off':>17}")
    for r in rows:
        on, off = r["sparta"], r["disabled"]
        g = on["sparse_gemm_flops"]
        gf = f"{g['executed'] / g['dense']:.3f}" if g["dense"] else "-"
        gu = on["sparse_gemm_us"]
        gs = f"{gu['dense'] / gu['sparse']:.2f}x" if gu["sparse"] else "-"
        pf = on["flops"]["executed"] / on["flops"]["dense"] if on["flops"]["dense"] else 1.0
        print(f"{r['name']:<18} {on['sparse_gemms']:>12} {gf:>22} {gs:>21} {pf:>22.3f} "
              f"{on['predicted_us']:>7.1f}/{off['predicted_us']:<8.1f} {on['dram_bytes'] / off['dram_bytes']:>12.3f} "
              f"{on['compile_s']:>8.2f}/{off['compile_s']:<8.2f}"
              f" {','.join(on['formats'])}")
        for label, c in (("sparta", on["host_check"]), ("disabled", off["host_check"])):
            if c:
                print(f"  host harness ({label}): max |error| {c['max_abs_error']:.3g} against outputs up to "
                      f"{c['max_abs_reference']:.3g}")
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
