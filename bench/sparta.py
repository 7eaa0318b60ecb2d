"""SparTA's predicted effect (CPU, no GPU): each shared model compiled with the sparta stage on (the
default) and with `--disable sparta`; from report.json, the FLOPs executed against dense, the
contractions made sparse (block-sparse, a weighted cover, or 2:4 on sparse tensor cores at
fp16/bf16, or walked inside a row chain) with their predicted times dense and sparse, the
launches of either plan that hold them over the same nodes (`like_for_like`), the plan's predicted latency and DRAM
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
    # a row chain's walked contractions share its kernel's time: each chain counted once
    alone = [{"dense": e["predicted_us"]["dense"], "sparse": e["predicted_us"][e["chosen"]]} for e in chosen if "chain" not in e]
    chains = {tuple(e["ops"]): e["chain"]["predicted_us"] for e in chosen if "chain" in e}
    times = alone + [{"dense": c["dense"], "sparse": c["block_sparse"]} for c in chains.values()]
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
            "sparse_gemms_in_chains": sum("chain" in e for e in chosen),
            # the kernels holding them: the block-sparse GEMMs and the row chains that walk listed tiles
            "sparse_gemm_us": {"dense": round(sum(t["dense"] for t in times), 3),
                               "sparse": round(sum(t["sparse"] for t in times), 3)},
            "formats": sorted({e["chosen"] for e in chosen}),
            "host_check": host_check(art, path) if check else None,
            "kernels": rep["sparsity"]["kernels"],
            # every launch's nodes and predicted time, for like_for_like against the other compile
            "launch_ops": [[k["ops"], k["predicted_us"]] for k in rep["kernels"]]}


def like_for_like(on: dict, off: dict) -> dict:
    """The predicted time of the launches that hold the sparse GEMMs, with sparta and without
    (`--disable sparta`), over the same graph nodes: the pruned GEMMs' nodes, grown until no
    launch of either plan holds some of them and some others (a chain the sparse plan formed,
    a LayerNorm fused differently): the kernels' predicted time, and with each launch's overhead.
    A row chain's dense self is not what the dense plan runs: this compares with what it does run."""
    from compiler.roller.cost_model import LAUNCH_US
    launches = [(set(ops), us, side) for side, rep in (("on", on), ("off", off)) for ops, us in rep["launch_ops"]]
    nodes = {op for e in on["kernels"] if e["chosen"] in SPARSE for op in e["ops"]}
    grown = True
    while grown:
        grown = False
        for ops, _, _ in launches:
            if ops & nodes and not ops <= nodes:
                nodes |= ops
                grown = True
    held = [(us, side) for ops, us, side in launches if ops & nodes]
    return {"nodes": len(nodes), "launches": {side: sum(s == side for _, s in held) for side in ("on", "off")},
            "sparta_us": round(sum(us + LAUNCH_US for us, s in held if s == "on"), 3),
            "disabled_us": round(sum(us + LAUNCH_US for us, s in held if s == "off"), 3),
            # the kernels' own time: what the sparse formats change (the launches are the plan's)
            "sparta_kernel_us": round(sum(us for us, s in held if s == "on"), 3),
            "disabled_kernel_us": round(sum(us for us, s in held if s == "off"), 3)}


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
        rows.append({"name": name, "sparta": on, "disabled": off, "sparse_gemm_launches": like_for_like(on, off)})
    from bench.kernels import write_results
    out = write_results("sparta", "none (predicted from report.json)",
                        {"target": a.target, "precision": a.precision, "disabled_in_both": list(also),
                         "compile": "fresh kernel cache per compile, NVRTC builds included"},
                        rows, a.out)
    print(f"{'model':<18} {'sparse GEMMs':>12} {'GEMM FLOPs exec/dense':>22} {'their kernels us off/on':>24} "
          f"{'+launches':>9} "
          f"{'plan FLOPs exec/dense':>22} {'pred us on/off':>16} {'DRAM on/off':>12} {'compile s on/off':>17}")
    for r in rows:
        on, off = r["sparta"], r["disabled"]
        g = on["sparse_gemm_flops"]
        gf = f"{g['executed'] / g['dense']:.3f}" if g["dense"] else "-"
        lf = r["sparse_gemm_launches"]
        gs = f"{lf['disabled_kernel_us']:.1f}/{lf['sparta_kernel_us']:.1f} " \
            f"{lf['disabled_kernel_us'] / lf['sparta_kernel_us']:.2f}x" if lf["sparta_kernel_us"] else "-"
        gl = f"{lf['disabled_us'] / lf['sparta_us']:.2f}x" if lf["sparta_us"] else "-"
        pf = on["flops"]["executed"] / on["flops"]["dense"] if on["flops"]["dense"] else 1.0
        print(f"{r['name']:<18} {on['sparse_gemms']:>12} {gf:>22} {gs:>24} {gl:>9} {pf:>22.3f} "
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
