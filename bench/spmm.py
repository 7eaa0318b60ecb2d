#!/usr/bin/env python3
"""SpMM benchmark (issue 16): y = x @ W with a pruned constant W, Brickyard's sparse kernels against
cuBLAS on the dense W and, for 2:4, torch's semi-structured sparse matmul (cuSPARSELt/CUTLASS).

Cases: 1024^3 and BERT-base's Linear shapes (4096 tokens; 768x768, 768x3072, 3072x768), each with
W block-sparse (32x32 blocks, 50/75/90/95/99% of the blocks zero: fp32, the block_sparse_gemm
kind; 50/90/99% at fp16 too: the block_sparse_tc_gemm kind on tensor cores), magnitude-pruned element by element (95/99%: fp32, the weighted cover's ELL remainder) and 2:4 (fp16: the sparse24_gemm kind, mma.sp). Brickyard compiles a two-input ONNX model
(x, the initializer W) for the device's target preset and is timed as bench/kernels.py times its
rows (compiler.runtime.timing: CUDA events, warm-up, median, rotating inputs); each row also
carries the sparta stage's predictions, and `brickyard_dense_us`: the same model with
--disable sparta, so the sparse kernels' own effect shows next to the peers'.

  python3 bench/spmm.py --list          the cases
  python3 bench/spmm.py --dry-run       compile every case here (no GPU): predicted dense and sparse us,
                                        compile times (bench/results/spmm-dry-*.json)
  python3 bench/spmm.py [--only SUBSTR] on a GPU

Writes bench/results/spmm-<UTC time>.json (suite `spmm`) and prints a table."""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.kernels import PlanLauncher, pick_target, rel_error, write_results  # noqa: E402

BLOCK = 32
BLOCK_ZEROS = (0.5, 0.75, 0.9, 0.95, 0.99)
BLOCK_ZEROS_FP16 = (0.5, 0.9, 0.99)     # block-sparse on tensor cores, against cuBLAS in fp16
MAGNITUDE_ZEROS = (0.95, 0.99)      # unstructured: no zero tile; the sparta stage's cover (ELL)
SHAPES = {"1024^3": (1024, 1024, 1024), "bert-qkv-proj": (4096, 768, 768), "bert-ffn1": (4096, 3072, 768),
          "bert-ffn2": (4096, 768, 3072)}


@dataclass(frozen=True)
class Case:
    shape: str
    M: int
    N: int
    K: int
    pattern: str          # "block", "magnitude" (element by element: the weighted cover's case) or "2:4"
    zeros: float          # share of W that is zero (blocks for "block")
    half: bool = False    # a block-sparse case at fp16 (2:4 is always fp16)

    @property
    def id(self) -> str:
        tag = {"block": "block", "magnitude": "mag"}.get(self.pattern)
        p = f"{tag}{int(round(100 * self.zeros))}" if tag else self.pattern
        return f"{self.shape}/{p}" + ("/fp16" if self.half else "")

    @property
    def precision(self) -> str:
        return "fp16" if self.pattern == "2:4" or self.half else "fp32"


def all_cases() -> list[Case]:
    out = []
    for name, (M, N, K) in SHAPES.items():
        out += [Case(name, M, N, K, "block", z) for z in BLOCK_ZEROS]
        out += [Case(name, M, N, K, "block", z, half=True) for z in BLOCK_ZEROS_FP16]
        out += [Case(name, M, N, K, "magnitude", z) for z in MAGNITUDE_ZEROS]
        out.append(Case(name, M, N, K, "2:4", 0.5))
    return out


def weight(case: Case, seed: int = 0):
    """W [K, N]: magnitude-pruned random values (block: whole 32x32 blocks; magnitude: element by
    element; 2:4 along K)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((case.K, case.N)).astype(np.float32) / np.sqrt(case.K)
    if case.pattern == "block":
        norms = np.abs(w).reshape(case.K // BLOCK, BLOCK, case.N // BLOCK, BLOCK).sum(axis=(1, 3))
        keep = norms > np.quantile(norms, case.zeros)
        w *= np.kron(keep, np.ones((BLOCK, BLOCK), np.float32))
    elif case.pattern == "magnitude":
        w *= np.abs(w) > np.quantile(np.abs(w), case.zeros)
    else:
        g = w.T.reshape(case.N, case.K // 4, 4).copy()
        np.put_along_axis(g, np.argsort(np.abs(g), axis=2)[:, :, :2], 0.0, axis=2)
        w = g.reshape(case.N, case.K).T.copy()
    return w.astype(np.float32)


def onnx_model(case: Case, w) -> bytes:
    from onnx import TensorProto, helper, numpy_helper
    g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "spmm",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [case.M, case.K])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [case.M, case.N])],
                          [numpy_helper.from_array(w, "W")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def compile_case(case: Case, w, target, store, disable=()):
    from compiler import compile as by_compile
    from compiler.pipeline import CompileOptions
    t0 = time.perf_counter()
    art = by_compile(onnx_model(case, w), target, CompileOptions(precision=case.precision, disable=disable),
                     store=store)
    return art, round(time.perf_counter() - t0, 3)


def predictions(art) -> dict:
    entries = art.report["sparsity"]["kernels"]
    e = entries[0] if entries else {}
    return {"chosen": e.get("chosen", "dense"), "why": e.get("why"), "predicted_us": e.get("predicted_us"),
            "flops": art.report["flops"]}


def dry_run(cases, target_name: str, out_dir) -> int:
    from compiler.targets import get_target
    from kernel_cache.store import KernelStore
    target = get_target(target_name)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = KernelStore(tmp)
        for case in cases:
            art, secs = compile_case(case, weight(case), target, store)
            p = predictions(art)
            # the contraction's kernel as NVRTC built it (ptxas's registers and spill bytes) and the
            # stages' seconds: where a compile's time goes
            k = max(art.report["kernels"], key=lambda k: k["flops"]["dense"])
            stages = {st["name"]: st["seconds"] for st in art.report["compile"]["stages"]}
            rows.append({"name": case.id, "precision": case.precision, "compile_s": secs, **p,
                         "kernel": {"schedule": k["config"].get("schedule"), "format": k["config"].get("format"),
                                    "registers": k["registers"], "spills": k["spills"]},
                         "stage_s": {n: round(stages[n], 3) for n in ("welder", "sparta", "build") if n in stages}})
            print(f"{case.id:<26} {case.precision}: {p['chosen']:<12} predicted {p['predicted_us']}  "
                  f"FLOPs executed/dense {p['flops']['executed'] / p['flops']['dense']:.3f}  compile {secs} s "
                  f"(sparta {stages.get('sparta', 0):.2f} s, build {stages.get('build', 0):.2f} s; "
                  f"{k['registers']} registers, {k['spills']} B spilled)", flush=True)
    path = write_results("spmm-dry", "none (predicted; compile times on this machine, NVRTC builds included)",
                         {"target": target_name}, rows, out_dir)
    print(f"-> {path}")
    return 0


def run_case(case: Case, ctx: dict) -> dict:
    import cupy
    import numpy as np
    import torch
    from compiler.runtime.gpu import GpuBackend
    from compiler.runtime.timing import CupyClock, TorchClock, measure
    w = weight(case)
    row = {"name": case.id, "precision": case.precision, "shape": [case.M, case.N, case.K],
           "pattern": case.pattern, "zeros": case.zeros, "flops_dense": 2.0 * case.M * case.N * case.K}
    T = ctx["timing"]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    xs = [torch.randn((case.M, case.K), generator=gen, device="cuda") for _ in range(ctx["sets"])]
    clock = CupyClock()

    def brickyard(disable):
        art, secs = compile_case(case, w, ctx["target"], ctx["store"], disable)
        backend = GpuBackend(cubins=art.cubins, arch=ctx["target"].arch)
        backend.prepare(art.plan.kernels())
        ls = [PlanLauncher(art.plan, backend, {"x": cupy.from_dlpack(x)}) for x in xs]
        ls[0].enqueue()
        cupy.cuda.runtime.deviceSynchronize()
        out = torch.from_dlpack(ls[0].outputs[0]).clone()
        t = measure(lambda i: ls[i % len(ls)].enqueue(), clock, sets=len(ls), **T)
        return art, secs, out, t

    art, secs, out, t = brickyard(())
    row.update(predictions(art), brickyard_compile_s=secs, brickyard_us=round(t.median_us, 3),
               brickyard_timing=t.as_dict())
    _, _, out_dense, td = brickyard(("sparta",))
    row["brickyard_dense_us"] = round(td.median_us, 3)
    wt = torch.from_numpy(w).cuda()
    ref = xs[0].double() @ wt.double()
    row["err_brickyard"] = rel_error(out, ref)
    row["err_brickyard_dense"] = rel_error(out_dense, ref)
    tclock = TorchClock()
    half = torch.float16 if case.precision == "fp16" else torch.float32
    wd = wt.to(half)
    xh = [x.to(half) for x in xs]
    with torch.no_grad():
        te = measure(lambda i: xh[i % len(xh)] @ wd, tclock, sets=len(xh), **T)
        row["cublas_us"] = round(te.median_us, 3)
        if case.pattern == "2:4":
            try:
                from torch.sparse import to_sparse_semi_structured
                ws = to_sparse_semi_structured(wd.t().contiguous())      # [N, K], 2:4 along K
                got = torch.nn.functional.linear(xh[0], ws)
                row["err_torch_semi_structured"] = rel_error(got, ref)
                ts = measure(lambda i: torch.nn.functional.linear(xh[i % len(xh)], ws), tclock, sets=len(xh), **T)
                row["torch_semi_structured_us"] = round(ts.median_us, 3)
            except Exception as e:
                row["torch_semi_structured_error"] = f"{type(e).__name__}: {str(e)[:300]}"
    tclock.release()
    row["speedup_vs_cublas"] = round(row["cublas_us"] / row["brickyard_us"], 3)
    row["speedup_vs_brickyard_dense"] = round(row["brickyard_dense_us"] / row["brickyard_us"], 3)
    del xs, xh, wt, wd, out, out_dense
    torch.cuda.empty_cache()
    cupy.get_default_memory_pool().free_all_blocks()
    return row


def gpu_run(cases, args) -> int:
    from compiler.runtime.timing import device_info, gpu_presence
    ok, why = gpu_presence()
    if not ok:
        print(f"bench/spmm.py needs a GPU ({why}); use --list or --dry-run here", file=sys.stderr)
        return 2
    import torch
    from kernel_cache.store import KernelStore
    torch.backends.cuda.matmul.allow_tf32 = False       # fp32 rows are fp32 for cuBLAS too
    dev = device_info()
    target, preset = pick_target(dev)
    tmp = tempfile.TemporaryDirectory(prefix="brickyard-spmm-store-")
    deadline = time.time() + args.budget_s
    ctx = {"target": target, "store": KernelStore(tmp.name), "sets": 4,
           "timing": dict(warmup_ms=10.0, rep_ms=40.0, min_samples=5, max_samples=100, max_seconds=6.0)}
    print(f"device: {dev['name']} ({dev['arch']}); preset {preset}; {len(cases)} cases", flush=True)
    rows = []
    for case in cases:
        if time.time() > deadline - 30:
            rows.append({"name": case.id, "skipped": "budget spent"})
            continue
        try:
            row = run_case(case, ctx)
        except Exception as e:
            row = {"name": case.id, "error": f"{type(e).__name__}: {str(e)[:400]}",
                   "traceback": traceback.format_exc()[-2000:]}
        rows.append(row)
        print(f"{case.id:<26} by {row.get('brickyard_us')} us (dense {row.get('brickyard_dense_us')}), cuBLAS "
              f"{row.get('cublas_us')}, torch 2:4 {row.get('torch_semi_structured_us')}, err {row.get('err_brickyard')}"
              + (f"  ERROR {row['error'][:160]}" if row.get("error") else ""), flush=True)
    path = write_results("spmm", f"{dev['name']} ({dev['arch']})",
                         {"target_preset": preset, "torch": torch.__version__, "tf32": False,
                          "timing": ctx["timing"]}, rows, args.out)
    print(f"-> {path}")
    tmp.cleanup()
    return 1 if any(r.get("error") for r in rows) else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--dry-run", action="store_true", help="compile every case here: predictions, no GPU")
    ap.add_argument("--only", help="cases whose id contains this")
    ap.add_argument("--target", default="h100", help="--dry-run's target preset (a GPU run uses the device's)")
    ap.add_argument("--budget-s", type=float, default=480.0)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args(argv)
    cases = [c for c in all_cases() if not args.only or args.only in c.id]
    if args.list:
        for c in cases:
            print(f"{c.id}\t{c.precision}\t{c.M}x{c.N}x{c.K}")
        return 0
    if args.dry_run:
        return dry_run(cases, args.target, args.out)
    return gpu_run(cases, args)


if __name__ == "__main__":
    sys.exit(main())
