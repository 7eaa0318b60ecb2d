"""Grinder's effect on the CPU (no GPU): each control-flow model compiled with the grinder stage on
(the default) and with `--disable grinder`, then run on the host harness: kernel launches and host
round trips per inference as the runtime counted them (with the report's prediction of the round
trips beside), each region's decision and predicted microseconds per iteration both ways, compile
time (NVRTC builds included, fresh kernel cache each) and the error against onnxruntime.

    .venv/bin/python bench/control_flow.py [--size small|full] [--no-run] [--target h100] [--out DIR]

Models: the shared rnn_loop.onnx and branchy.onnx, and Cocktailer's set adapted
(bench/control_flow_models.py: lstm_loop, nasrnn, seq2seq, attn_decode, blockdrop) at the given
size. Writes bench/results/control_flow-<UTC time>.json (suite `control_flow`). Launch and round
trip counts are the runtime's; times are the cost model's predictions, not measurements (on a
GPU, bench/e2e.py with and without --disable grinder measures them)."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _models(size: str, shared: Path):
    import onnx
    import control_flow_models as cfm
    out = []
    for name in ("rnn_loop", "branchy"):
        path = shared / "models" / f"{name}.onnx"
        if path.exists():
            data = np.load(shared / "models" / f"{name}.npz")
            out.append((name, onnx.load(str(path)), {k[3:]: data[k] for k in data.files if k.startswith("in:")}))
    for name, make in cfm.MODELS.items():
        m = make(cfm.SIZES[size])
        out.append((name, m, cfm.sample_inputs(m)))
    return out


def measure(model, inputs: dict, target: str, disable: tuple[str, ...], run: bool) -> dict:
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, HostBackend
    from kernel_cache import KernelStore
    with tempfile.TemporaryDirectory(prefix="brickyard-cf-") as store:
        t0 = time.perf_counter()
        art = compile(model, target, CompileOptions(disable=disable), store=KernelStore(store))
        seconds = time.perf_counter() - t0
    cf = art.report["control_flow"]
    row = {"compile_s": round(seconds, 3), "kernels": art.report["launches_per_inference"],
           "predicted_round_trips": cf["host_round_trips_per_inference"],
           "regions": [{k: r[k] for k in ("node", "op", "runs", "why", "kernel", "hoisted",
                                          "predicted_us_per_iteration") if k in r} for r in cf["regions"]]}
    if run:
        import onnxruntime as ort
        ex = Executor(art.plan, HostBackend())
        got = ex.run(inputs)
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, inputs)))
        err = max(float(np.max(np.abs(got[k].astype(np.float64) - ref[k]) / (np.max(np.abs(ref[k])) or 1.0)))
                  for k in ref)
        row.update(launches=ex.launches, round_trips=ex.host_round_trips, max_rel_error=err)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=["small", "full"], default="small")
    ap.add_argument("--no-run", action="store_true", help="compile only (full size on the host harness is slow)")
    ap.add_argument("--target", default="h100")
    ap.add_argument("--shared", default=os.environ.get("BRICKYARD_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    rows = []
    print(f"{'model':12} {'launches on/off':>16} {'round trips on/off':>19} {'pred rt off':>11} "
          f"{'compile s on/off':>17}  regions on the device")
    for name, model, inputs in _models(a.size, Path(a.shared)):
        on = measure(model, inputs, a.target, (), not a.no_run)
        off = measure(model, inputs, a.target, ("grinder",), not a.no_run)
        rows.append({"model": name, "size": a.size, "grinder": on, "disable_grinder": off})
        dev = sum(r["runs"] == "device" for r in on["regions"])
        print(f"{name:12} {str(on.get('launches', '-')) + '/' + str(off.get('launches', '-')):>16} "
              f"{str(on.get('round_trips', '-')) + '/' + str(off.get('round_trips', '-')):>19} "
              f"{str(off['predicted_round_trips']):>11} {on['compile_s']:>8.2f}/{off['compile_s']:<8.2f} "
              f"{dev}/{len(on['regions'])}")
    from bench.kernels import write_results
    path = write_results("control_flow", "host harness (no GPU)",
                         {"target": a.target, "size": a.size, "run": not a.no_run,
                          "basis": "launches and round trips counted by the runtime on the host harness; "
                                   "times are the cost model's predictions"}, rows, a.out)
    print(path)


if __name__ == "__main__":
    main()
