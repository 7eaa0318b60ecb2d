"""Packaging at disk speed (issue 17 item 5): a model with BERT-base-sized weights (~434 MB of float32)
compiled end to end through `brickyard compile` (a fresh process, so imports count, as a user sees it)
cold and from the kernel cache, and, in process, the pipeline alone, `Artifact.save`, `load_artifact`,
and the worker's save into the service's store (two artifacts of one model, so the store's growth for
the second shows whether the weights are kept once).

    .venv/bin/python bench/artifact_speed.py [--layers 12] [--target h100] [--out DIR] [--keep DIR]

The model is built with onnx.helper and NumPy random weights (no torch): a 30522 x 768 embedding
table gathered by token ids, then per layer four 768x768 projections and a 768-3072-768 MLP (MatMul +
Add, Gelu in the MLP, a residual Add), as BERT-base's weight tensors are shaped. Writes
bench/results/packaging-<UTC time>.json (suite `packaging`) and prints a table. CPU only."""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HIDDEN, FFN, VOCAB, SEQ = 768, 3072, 30522, 128


def build_model(path: Path, layers: int, seed: int = 0) -> int:
    """Writes the BERT-base-shaped MLP stack to `path`; returns the bytes of its weights."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def weight(name: str, *shape: int) -> str:
        scale = 1.0 / np.sqrt(shape[0]) if len(shape) == 2 else 0.02
        inits.append(numpy_helper.from_array((rng.standard_normal(shape, dtype=np.float32) * scale)
                                             .astype(np.float32), name))
        return name

    def linear(x: str, name: str, n_in: int, n_out: int) -> str:
        nodes.append(helper.make_node("MatMul", [x, weight(f"{name}.w", n_in, n_out)], [f"{name}.mm"]))
        nodes.append(helper.make_node("Add", [f"{name}.mm", weight(f"{name}.b", n_out)], [f"{name}.out"]))
        return f"{name}.out"

    nodes.append(helper.make_node("Gather", [weight("embed", VOCAB, HIDDEN), "ids"], ["h0"], axis=0))
    h = "h0"
    for i in range(layers):
        x = h
        for proj in ("q", "k", "v", "o"):
            x = linear(x, f"l{i}.{proj}", HIDDEN, HIDDEN)
        u = linear(x, f"l{i}.up", HIDDEN, FFN)
        nodes.append(helper.make_node("Gelu", [u], [f"l{i}.gelu"]))
        d = linear(f"l{i}.gelu", f"l{i}.down", FFN, HIDDEN)
        nodes.append(helper.make_node("Add", [d, h], [f"l{i}.res"]))
        h = f"l{i}.res"
    graph = helper.make_graph(nodes, "bert_base_weights",
                              [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, SEQ])],
                              [helper.make_tensor_value_info(h, TensorProto.FLOAT, [1, SEQ, HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    onnx.save(model, str(path))
    return sum(t.raw_data.__len__() for t in inits)


def cli_compile(model: Path, out: Path, store: Path, target: str) -> dict:
    """`brickyard compile` in a fresh process: its wall time and the pipeline seconds it printed."""
    env = dict(os.environ, BRICKYARD_STORE=str(store))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "brickyard", "compile", str(model), "--target", target, "-o", str(out),
                        "-q"], env=env, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if p.returncode:
        raise SystemExit(f"brickyard compile failed ({p.returncode}): {p.stderr.strip()}")
    m = re.search(r" in ([0-9.]+) s:", p.stdout)
    hits = re.search(r"cache (\d+) hits, (\d+) misses", p.stdout)
    return {"wall_s": round(wall, 3), "pipeline_s": float(m.group(1)) if m else None,
            "cache_hits": int(hits.group(1)) if hits else None, "cache_misses": int(hits.group(2)) if hits else None,
            "artifact_bytes": out.stat().st_size}


def codecs(art, sample_mb: int) -> list[dict]:
    """The codecs the standard library has (a new one would be a dependency of the runtime, which needs only
    NumPy) on the first `sample_mb` MB of the artifact's weights: ratio and MB/s. zlib level 9 is what
    tarfile's "w:gz" used (format 1)."""
    import zlib
    buf, n = [], 0
    for _name, c in sorted(art.plan.constants):
        buf.append(c.data)
        n += len(c.data)
        if n >= sample_mb << 20:
            break
    sample = b"".join(buf)[:sample_mb << 20]
    rows = []
    for level in (1, 6, 9):
        t0 = time.perf_counter()
        packed = zlib.compress(sample, level)
        s = time.perf_counter() - t0
        rows.append({"codec": f"zlib-{level}", "ratio": round(len(packed) / len(sample), 4),
                     "mb_per_s": round(len(sample) / 1e6 / s, 1)})
    return rows


def store_bytes(root: Path) -> int:
    from service.blobs import store_stats
    return store_stats(root)["bytes"]


def in_process(model: Path, work: Path, store: Path, target: str) -> dict:
    """Pipeline, save and load timed apart (kernel cache warm), then the worker's save path twice."""
    from compiler import compile
    from compiler.artifact import load_artifact
    from compiler.pipeline import CompileOptions
    from kernel_cache import KernelStore
    from worker.tasks import _store_artifact
    t0 = time.perf_counter()
    art = compile(str(model), target, CompileOptions(), store=KernelStore(store))
    pipeline_s = time.perf_counter() - t0
    out = work / "inproc.artifact"
    t0 = time.perf_counter()
    art.save(out)
    save_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    loaded = load_artifact(out)
    load_s = time.perf_counter() - t0
    n_constants = len(loaded.plan.constants)
    del loaded
    codec_rows = codecs(art, 64)
    # the disk's own speed for the same bytes: one buffer of the weights' size written the way save
    # writes (buffered, no fsync), what "packaging at disk speed" compares against
    buf = bytearray(sum(len(c.data) for _n, c in art.plan.constants))
    t0 = time.perf_counter()
    with open(work / "disk-speed.bin", "wb") as f:
        f.write(buf)
    disk_write_s = time.perf_counter() - t0
    (work / "disk-speed.bin").unlink()
    del buf
    # the worker's path into a service store: two artifacts of one model (different options)
    svc = SimpleNamespace(store_root=work / "svc-store", tmp_dir=work / "svc-tmp")
    art2 = compile(str(model), target, CompileOptions(disable=("rammer",)), store=KernelStore(store))
    service = []
    for a in (art, art2):
        before = store_bytes(svc.store_root) if svc.store_root.exists() else 0
        t0 = time.perf_counter()
        values = _store_artifact(a, svc)
        service.append({"store_s": round(time.perf_counter() - t0, 3),
                        "store_growth_bytes": store_bytes(svc.store_root) - before,
                        "artifact_bytes": values["artifact_size"]})
    return {"pipeline_s": round(pipeline_s, 3), "save_s": round(save_s, 3), "load_s": round(load_s, 3),
            "artifact_bytes": out.stat().st_size, "constants": n_constants,
            "disk_write_weights_s": round(disk_write_s, 3), "service": service,
            "codecs_on_64mb_of_weights": codec_rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--target", default="h100")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--keep", help="build the model and stores in this folder and leave them (default: a temp dir)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="brickyard-packaging-") as tmp:
        work = Path(a.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        model = work / "bert_base_weights.onnx"
        t0 = time.perf_counter()
        weight_bytes = build_model(model, a.layers)
        build_s = time.perf_counter() - t0
        store = work / "store"
        cold = cli_compile(model, work / "cold.artifact", store, a.target)
        warm = cli_compile(model, work / "warm.artifact", store, a.target)
        inproc = in_process(model, work, store, a.target)
    row = {"name": f"bert-base-weights-{a.layers}l", "weight_bytes": weight_bytes, "model_build_s": round(build_s, 2),
           "cli_cold": cold, "cli_warm": warm, **inproc}
    from bench.kernels import write_results
    out = write_results("packaging", "none (CPU: compile, save, load)",
                        {"target": a.target, "layers": a.layers,
                         "cli": "python -m brickyard compile -q, fresh process, BRICKYARD_STORE fresh then warm"},
                        [row], a.out)
    mb = 1e6
    print(f"model: {row['name']}, {weight_bytes / mb:.1f} MB of weights, {inproc['constants']} constants")
    print(f"{'':<28} {'wall s':>8} {'pipeline s':>11} {'artifact MB':>12}")
    for label, r in (("brickyard compile (cold)", cold), ("brickyard compile (warm)", warm)):
        print(f"{label:<28} {r['wall_s']:>8.2f} {r['pipeline_s']:>11.2f} {r['artifact_bytes'] / mb:>12.1f}")
    print(f"in process (warm): pipeline {inproc['pipeline_s']:.2f} s, save {inproc['save_s']:.2f} s, "
          f"load {inproc['load_s']:.2f} s, artifact {inproc['artifact_bytes'] / mb:.1f} MB; "
          f"writing the weights' bytes alone {inproc['disk_write_weights_s']:.2f} s")
    print("codecs on 64 MB of the weights: " + ", ".join(
        f"{c['codec']} ratio {c['ratio']:.3f} at {c['mb_per_s']:.0f} MB/s" for c in inproc["codecs_on_64mb_of_weights"]))
    for i, s in enumerate(inproc["service"], 1):
        print(f"service store, artifact {i}: {s['store_s']:.2f} s, store grew {s['store_growth_bytes'] / mb:.1f} MB "
              f"(artifact {s['artifact_bytes'] / mb:.1f} MB)")
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
