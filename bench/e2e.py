#!/usr/bin/env python3
"""End-to-end benchmark: whole models through Brickyard against PyTorch eager and torch.compile.

BERT-base (seq 128), GPT-2 small (seq 128), ViT-B/16, ResNet-50, MobileNetV2 (224), the 2-layer
LSTM, the Loop and the If model at the published sizes of ../shared/tools/zoo.py (`--size full`),
exported on the GPU machine by zoo.py's own export() at batch 1 and 16, in fp32 and fp16. For each:
Brickyard (plain launches; as one CUDA graph once the runtime can capture one), PyTorch eager,
torch.compile default and max-autotune (batch 1 fp16 only, unless asked): the median of >= 100
runs timed one by one with CUDA events after warm-up, every system's compile time, Brickyard's
kernel launches per inference, and every system's error against PyTorch fp32.

  python3 bench/e2e.py --smoke                  device, driver, one NVRTC-built kernel runs (fail fast)
  python3 bench/e2e.py --part N                 one part of the suite (each fits a 9-minute command)
  python3 bench/e2e.py --models bert --batches 1 --dtypes fp16
  python3 bench/e2e.py --dry-run [--only a,b]   the whole script on the CPU: the tiny shared models
                                                on the host harness, peers skipped (CI runs this)

Writes bench/results/e2e-<UTC date>[-partN].json (DESIGN section 10: suite, device, driver,
versions, git commit, every sample), rewritten after every row so that a cut-off run keeps what
it measured, and prints a markdown table last. See bench/README.md."""
from __future__ import annotations

import argparse
import copy
import datetime as _dt
import hashlib
import importlib.util
import json
import math
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.kernels import _fmt, _round, git_commit, pick_target  # noqa: E402  (the kernel bench's helpers)

# ---- the suite ----------------------------------------------------------------------------------

# zoo.py name -> what it is at --size full
MODELS = {
    "bert": "BERT-base, seq 128",
    "gpt2": "GPT-2 small, seq 128",
    "vit": "ViT-B/16, 224",
    "resnet": "ResNet-50, 224",
    "mobilenetv2": "MobileNetV2 1.0, 224",
    "lstm": "2-layer LSTM tagger, hidden 768, seq 128",
    "rnn_loop": "Loop: RNN cell in an ONNX Loop, hidden 768, 32 steps",
    "branchy": "If: ONNX If on the input's mean, hidden 768, seq 128",
}
BATCH_AXIS = {"rnn_loop": 1}          # the batch axis of the input where not 0: WhileRNN takes [steps, batch, hidden]
# Models whose forward makes tensors without a device (WhileRNN's loop counter): their peers run
# inside `with torch.device("cuda")`; the others as they are.
DEVICE_CONTEXT = {"rnn_loop"}
# Each part fits one 9-minute device command; `make gpu-check` runs part 1 as its step (d).
PARTS = {
    1: ["branchy", "rnn_loop"],
    2: ["bert", "gpt2", "vit"],
    3: ["resnet", "mobilenetv2", "lstm"],
}
# Row order inside a run: the headline configuration first, so that a run cut short by its
# deadline still has it for every model.
CONFIGS = [(1, "fp16"), (1, "fp32"), (16, "fp16"), (16, "fp32")]
SYSTEMS = ("brickyard", "torch", "torch_compile", "torch_compile_max_autotune")
TC_MODES = {"torch_compile": None, "torch_compile_max_autotune": "max-autotune"}

RUNTIME_GRAPH_MISSING = "not available in the runtime"


@dataclass
class Ctx:
    """Everything a row needs; filled by gpu_main or dry_main."""

    args: argparse.Namespace
    mode: str                            # "gpu" | "dry-run" | "dry-run-cpu-peers"
    deadline: float
    on_gpu: bool = True                  # False: Brickyard on the host harness, the peers on the CPU
    target: object = None
    store: object = None
    refs: dict = field(default_factory=dict)          # (model, batch) -> fp32 reference outputs (numpy)
    fault: str | None = None                          # a sticky device error: nothing after it is measured
    exporter: object = None                           # Exporter: zoo.py exports in child processes
    torch_models: dict = field(default_factory=dict)  # (model, batch) -> (cpu fp32 module, inputs, check)
    exports: dict = field(default_factory=dict)       # (model, batch) -> export record
    zoo: object = None
    flush: object = None

    def left(self) -> float:
        return self.deadline - time.time()


class CutOff(BaseException):
    """SIGTERM (the command's time limit): stop, keep what was measured. A BaseException, so that
    the handlers that keep one system's failure from stopping the row let it through."""


def _on_sigterm(signum, frame):
    # once: `timeout` signals the command and then its whole process group, and the second must
    # not interrupt the final save (its -k SIGKILL is the backstop)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise CutOff(f"signal {signum}")


# ---- timing ---------------------------------------------------------------------------------------

class HostClock:
    """The host harness runs synchronously: a host clock around each run is the run."""

    name = "host perf_counter around each run (the host harness is synchronous)"

    def sample_us(self, fn) -> float:
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e6

    def synchronize(self) -> None:
        pass


class CupyEvents:
    """CUDA events on CuPy's current stream (the one Brickyard's GPU backend launches on)."""

    name = "CUDA events (CuPy, current stream) around each run, synchronized after each sample"

    def __init__(self):
        import cupy
        self.cp = cupy

    def sample_us(self, fn) -> float:
        cp = self.cp
        s, e = cp.cuda.Event(), cp.cuda.Event()
        st = cp.cuda.get_current_stream()
        s.record(st)
        fn()
        e.record(st)
        e.synchronize()
        return float(cp.cuda.get_elapsed_time(s, e)) * 1000.0

    def synchronize(self) -> None:
        self.cp.cuda.get_current_stream().synchronize()


class TorchEvents:
    """CUDA events on PyTorch's current stream."""

    name = "CUDA events (PyTorch, current stream) around each run, synchronized after each sample"

    def __init__(self):
        import torch
        self.torch = torch

    def sample_us(self, fn) -> float:
        t = self.torch
        s, e = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        return float(s.elapsed_time(e)) * 1000.0

    def synchronize(self) -> None:
        self.torch.cuda.synchronize()


def measure(fn, clock, ctx: Ctx, *, reserve_s: float = 10.0) -> dict:
    """Warm-up (at least `warmup_runs` runs and `warmup_s` seconds), then `samples` runs, each
    timed on its own between two events and synchronized; the L2 flushed before each sample only
    with --flush-l2. Fewer samples only when the deadline leaves no room (said in `note`)."""
    from compiler.runtime.timing import summarize
    a = ctx.args
    t0 = time.perf_counter()
    n = 0
    while n < a.warmup_runs or (time.perf_counter() - t0 < a.warmup_s and n < 10_000):
        fn()
        clock.synchronize()
        n += 1
    est_s = (time.perf_counter() - t0) / n
    samples = a.samples
    note = ""
    fit = int(max(0.0, ctx.left() - reserve_s) / max(est_s * 1.3, 1e-6))
    if fit < samples:
        samples = max(min(samples, 10), fit)
        note = f"samples cut from {a.samples} to {samples}: the deadline was near"
    xs = []
    for _ in range(samples):
        if ctx.flush is not None:
            ctx.flush()
        xs.append(clock.sample_us(fn))
    t = summarize(xs, inner=1, sets=1, method="events" if clock.__class__ is not HostClock else "host-clock",
                  note=note).as_dict()
    t.update(warmup_runs=n, clock=clock.name, samples_us=[round(x, 3) for x in xs])
    return t


# ---- errors ---------------------------------------------------------------------------------------

def max_rel(got: list, ref: list) -> float | None:
    """max over outputs of max|got - ref| / max|ref| (compiler.verify's measure); inf on a mismatch."""
    from compiler.verify import max_rel_error
    if ref is None or got is None:
        return None
    if len(got) != len(ref):
        return math.inf
    return max_rel_error(dict(enumerate(got)), dict(enumerate(ref)))


def norm_rel(got: list, ref: list) -> float | None:
    """max over outputs of ||got - ref|| / ||ref|| (the kernel bench's measure)."""
    import numpy as np
    if ref is None or got is None:
        return None
    if len(got) != len(ref):
        return math.inf
    worst = 0.0
    for g, r in zip(got, ref):
        g, r = np.asarray(g, dtype=np.float64).ravel(), np.asarray(r, dtype=np.float64).ravel()
        if g.shape != r.shape:
            return math.inf
        den = float(np.linalg.norm(r))
        num = float(np.linalg.norm(g - r))
        if math.isnan(num):
            return math.nan
        worst = max(worst, num / den if den > 0 else num)
    return worst


# ---- Brickyard ------------------------------------------------------------------------------------

def runtime_graph_status():
    """The GPU runtime's CUDA-graph capture, if it has one: (callable or None, words). The contract
    this bench uses: GpuBackend.capture(fn) -> replay, where replay() re-issues fn's launches as one
    CUDA graph on the current stream (compiler/runtime/gpu.py has it; Executor(graph=True) uses
    the same stream capture for `brickyard run --device gpu`)."""
    from compiler.runtime.gpu import GpuBackend
    cap = getattr(GpuBackend, "capture", None)
    if callable(cap):
        return cap, "GpuBackend.capture"
    return None, RUNTIME_GRAPH_MISSING


class PlanRunner:
    """A compiled plan on a backend with its inputs already on the device: run() is one inference
    through compiler.runtime.executor.Executor (kernels launched one by one; If/Loop conditions
    read on the host), without the host<->device copies of Executor.run."""

    def __init__(self, plan, backend, inputs: dict):
        import numpy as np
        from compiler.runtime.executor import Executor
        self.plan = plan
        self.backend = backend
        self.ex = Executor(plan, backend)           # loads every kernel, uploads the weights
        types = dict(plan.types)
        self.inputs = {}
        for name in plan.inputs:
            a = np.asarray(inputs[name])
            t = types[name]
            if tuple(a.shape) != tuple(t.shape):
                raise ValueError(f"input {name} has shape {list(a.shape)}, the plan expects {list(t.shape)}")
            self.inputs[name] = backend.to_device(np.require(a.astype(t.dtype.np, copy=False), requirements="C"))

    def run(self):
        from compiler.runtime.executor import Scope
        scope = Scope()
        scope.values.update(self.inputs)
        self.ex._run_plan(self.plan, scope)
        return [scope[n] for n in self.plan.outputs]

    def run_counted(self):
        """One inference on the host side of the outputs, and the kernel launches it made."""
        import numpy as np
        count = [0]
        launch = self.backend.launch

        def counted(kernel, args):
            count[0] += 1
            launch(kernel, args)
        self.backend.launch = counted
        try:
            outs = self.run()
            self.backend.synchronize()
        finally:
            del self.backend.launch                 # the class's method again
        return [np.array(self.backend.to_host(o), copy=True) for o in outs], count[0]

    def kernel_profile(self, clock, report_kernels: list, runs: int = 3, top: int = 15) -> list[dict]:
        """Each launch timed alone (the clock around it, synchronized), over `runs` inferences: per
        kernel its launches per inference, median and total microseconds, and the report's
        prediction; the `top` kernels by total time. Where the end-to-end time goes, kernel by
        kernel, which the first GPU run could not say."""
        import statistics
        samples: dict[str, list[float]] = {}
        launch = self.backend.launch

        def timed(kernel, args):
            clock.synchronize()
            samples.setdefault(kernel.entry, []).append(clock.sample_us(lambda: launch(kernel, args)))
        self.backend.launch = timed
        try:
            for _ in range(runs):
                self.run()
                clock.synchronize()
        finally:
            del self.backend.launch                 # the class's method again
        predicted = {}
        for k in report_kernels:
            predicted.setdefault(k["name"], k.get("predicted_us"))
        rows = [{"kernel": name, "launches": len(ts) // runs, "median_us": _round(statistics.median(ts), 3),
                 "total_us": _round(sum(ts) / runs, 3), "predicted_us": predicted.get(name)}
                for name, ts in samples.items()]
        return sorted(rows, key=lambda r: -r["total_us"])[:top]


def brickyard_row(row: dict, onnx_path: Path, inputs: dict, dtype: str, ref: list | None, ctx: Ctx,
                  device: str) -> None:
    """Compile (cold store unless --store), load, check, count launches, time; fills row."""
    from compiler import compile as by_compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import make_backend
    t0 = time.perf_counter()
    art = by_compile(str(onnx_path), ctx.target,
                     CompileOptions(precision=dtype, disable=tuple(ctx.args.disable)),
                     store=ctx.store)
    row["brickyard_compile_s"] = round(time.perf_counter() - t0, 3)
    rep = art.report
    tune = rep.get("tune") or {}
    row["brickyard"] = {
        "compile": {"seconds": _round(rep["compile"]["seconds"], 3), "cache": rep["compile"]["cache"],
                    "stages": {s["name"]: round(s["seconds"], 3) for s in rep["compile"]["stages"]}},
        "kernels": len(rep["kernels"]), "distinct_kernels": len({k["digest"] for k in rep["kernels"]}),
        "predicted_us": rep["latency"]["predicted_us"], "tune": _tune_summary(tune),
        "times": rep.get("times"), "precision": rep.get("precision"), "disable": list(ctx.args.disable),
        "dram_bytes_predicted": (rep.get("traffic") or {}).get("dram_bytes"),
        "memory": rep.get("memory")}
    row["kernels_in_plan"] = rep["launches_per_inference"]
    kw = {"cubins": art.cubins, "arch": ctx.target.arch} if device == "gpu" else {}
    backend = make_backend(device, **kw)
    t0 = time.perf_counter()
    runner = PlanRunner(art.plan, backend, inputs)
    row["brickyard_load_s"] = round(time.perf_counter() - t0, 3)
    outs, launches = runner.run_counted()
    row["launches_per_inference"] = launches
    row["outputs"] = [{"name": n, "shape": list(o.shape), "dtype": str(o.dtype)} for n, o in zip(art.plan.outputs, outs)]
    row["err_brickyard"] = _round(max_rel(outs, ref), 8)
    row.setdefault("errors_norm", {})["brickyard"] = _round(norm_rel(outs, ref), 8)
    npz_out = row.pop("_npz_outputs", None)
    if npz_out is not None:
        row["err_brickyard_vs_export"] = _round(max_rel(outs, npz_out), 8)
    del outs
    clock = CupyEvents() if device == "gpu" else HostClock()
    t = measure(runner.run, clock, ctx)
    row["brickyard_us"] = _round(t["median_us"], 3)
    row["brickyard"]["timing"] = t
    if time.time() < ctx.deadline - 30:
        row["brickyard"]["kernel_profile"] = runner.kernel_profile(clock, rep["kernels"])
    cap, why = runtime_graph_status()
    if cap is None or device != "gpu":
        row["cuda_graph"] = why if cap is None else "not on the host harness"
        row["brickyard_graph_us"] = None
    else:
        try:
            replay = cap(backend, runner.run)
            t = measure(replay, clock, ctx)
            row["cuda_graph"] = "captured by the runtime (" + why + ")"
            row["brickyard_graph_us"] = _round(t["median_us"], 3)
            row["brickyard_graph"] = {"timing": t}
        except Exception as e:       # e.g. a plan whose If/Loop reads its condition on the host
            row["cuda_graph"] = f"capture failed: {type(e).__name__}: {str(e)[:200]}"
            row["brickyard_graph_us"] = None
    del runner, backend
    if device == "gpu":
        import cupy
        cupy.cuda.runtime.deviceSynchronize()
        cupy.get_default_memory_pool().free_all_blocks()


# ---- the models (GPU machine: zoo.py and PyTorch) -----------------------------------------------

def load_zoo(path: Path):
    """zoo.py as the module `zoo` (registered: dynamo re-imports the module of torch.cond's and
    while_loop's functions by name while it traces them)."""
    if "zoo" in sys.modules and getattr(sys.modules["zoo"], "__file__", None) == str(path):
        return sys.modules["zoo"]
    spec = importlib.util.spec_from_file_location("zoo", str(path))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["zoo"] = mod
    spec.loader.exec_module(mod)
    return mod


def batched_inputs(make_inputs, batch: int, axis: int):
    """zoo's make_inputs at another batch: `batch` independent draws joined on the batch axis
    (batch 1 is zoo's own function, so its export is exactly `zoo.py --size full`'s)."""
    if batch == 1:
        return make_inputs

    def make():
        import torch
        parts = [make_inputs() for _ in range(batch)]
        return tuple(torch.cat([p[i] for p in parts], dim=axis) for i in range(len(parts[0])))
    return make


def export_one(name: str, size: str, batch: int, zoo_path: Path, out_dir: Path) -> dict:
    """Runs in a child process: zoo.export() of one model at `batch` into out_dir, with a record."""
    out_dir.mkdir(parents=True, exist_ok=True)
    zoo = load_zoo(zoo_path)
    mk, inp = zoo.zoo(size)[name]
    t0 = time.time()
    info = zoo.export(name, mk, batched_inputs(inp, batch, BATCH_AXIS.get(name, 0)), str(out_dir))
    rec = {"model": name, "size": size, "batch": batch, "zoo_sha256": _sha256(zoo_path), "seconds": round(time.time() - t0, 2),
           "bytes": info.get("bytes"), "exporter_seconds": info.get("seconds"), "torch": _dist_version("torch")}
    (out_dir / f"{name}.export.json").write_text(json.dumps(rec, indent=1))
    return rec


class Exporter:
    """Every (model, batch) the run needs, exported by zoo.py in child processes (niced, in
    parallel) started at once; a row waits only for its own export, so the first rows run while
    the later exports go on (each row records how many were still running). An export already on
    disk from the same zoo.py is reused."""

    def __init__(self, pairs: list[tuple[str, int]], ctx: Ctx):
        self.ctx = ctx
        a = ctx.args
        zoo_sha = _sha256(a.zoo)
        self.pending, self.running = [], []
        for name, b in pairs:
            d = Path(a.models_dir) / f"{a.size}-b{b}"
            meta = d / f"{name}.export.json"
            if meta.exists() and (d / f"{name}.onnx").exists() and (d / f"{name}.npz").exists():
                try:
                    rec = json.loads(meta.read_text())
                    if rec.get("zoo_sha256") == zoo_sha:
                        ctx.exports[(name, b)] = dict(rec, reused=True, dir=str(d))
                        continue
                except ValueError:
                    pass
            self.pending.append((name, b, d))
        self.jobs = max(1, min(a.export_jobs, len(self.pending) or 1))
        threads = max(1, (os.cpu_count() or 2) // self.jobs)
        self.env = dict(os.environ, OMP_NUM_THREADS=str(threads), PYTHONUNBUFFERED="1")
        if self.pending:
            print(f"exporting {len(self.pending)} model(s) with zoo.py ({self.jobs} at a time, {threads} threads "
                  f"each)", flush=True)
        self.poll()

    def poll(self) -> None:
        """Starts what may start, collects what finished (kills what the deadline overtook)."""
        ctx, a = self.ctx, self.ctx.args
        near = ctx.left() < 30
        while self.pending and len(self.running) < self.jobs and not near:
            name, b, d = self.pending.pop(0)
            d.mkdir(parents=True, exist_ok=True)
            log = open(d / f"{name}.export.log", "w")
            cmd = [sys.executable, str(Path(__file__).resolve()), "--export-one", name, "--batch", str(b),
                   "--size", a.size, "--zoo", str(a.zoo), "--models-dir", str(a.models_dir)]
            p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                 preexec_fn=lambda: os.nice(10))
            self.running.append((p, name, b, d, log, time.time()))
        if near:
            for name, b, d in self.pending:
                ctx.exports[(name, b)] = {"model": name, "batch": b, "error": "not exported: the deadline was near"}
            self.pending = []
        for item in list(self.running):
            p, name, b, d, log, t0 = item
            rc = p.poll()
            if rc is None and not near:
                continue
            if rc is None:
                p.kill()
                p.wait()
            log.close()
            self.running.remove(item)
            meta = d / f"{name}.export.json"
            if rc == 0 and meta.exists():
                rec = json.loads(meta.read_text())
                ctx.exports[(name, b)] = dict(rec, reused=False, dir=str(d), wall_s=round(time.time() - t0, 1))
                print(f"  exported {name} batch {b}: {rec['seconds']} s, {(rec.get('bytes') or 0) / 2**20:.0f} MiB",
                      flush=True)
            else:
                tail = Path(log.name).read_text(errors="replace")[-3000:]
                last = ([ln for ln in tail.splitlines() if ln.strip()] or [""])[-1].strip()
                why = "killed: the deadline was near" if rc is None else f"exit {rc}"
                ctx.exports[(name, b)] = {"model": name, "batch": b, "error": f"export failed ({why}): {last[:300]}",
                                          "log_tail": tail}
                print(f"  export of {name} batch {b} FAILED ({why})\n{tail[-1500:]}", flush=True)

    def busy(self) -> int:
        self.poll()
        return len(self.running) + len(self.pending)

    def wait(self, name: str, batch: int) -> dict:
        key = (name, batch)
        t0 = time.time()
        while key not in self.ctx.exports:
            self.poll()
            if key not in self.ctx.exports:
                if not any(r[1:3] == key for r in self.running) and not any(q[:2] == key for q in self.pending):
                    self.ctx.exports[key] = {"model": name, "batch": batch, "error": "not exported"}
                    break
                time.sleep(0.25)
        if time.time() - t0 > 1:
            print(f"  waited {time.time() - t0:.0f} s for the export of {name} batch {batch}", flush=True)
        return self.ctx.exports[key]

    def close(self) -> None:
        for p, *_ in self.running:
            p.kill()
            p.wait()
        self.running = []


def torch_model(name: str, batch: int, ctx: Ctx):
    """The PyTorch module zoo.export() exported, rebuilt the same way (seed 0, zoo's constructor,
    BatchNorm calibration, then the inputs): (fp32 CPU module, inputs, inputs_match_export)."""
    key = (name, batch)
    if key in ctx.torch_models:
        return ctx.torch_models[key]
    import numpy as np
    import torch
    zoo = ctx.zoo
    mk, inp = zoo.zoo(ctx.args.size)[name]
    make_inputs = batched_inputs(inp, batch, BATCH_AXIS.get(name, 0))
    torch.manual_seed(0)
    model = mk().eval()
    if getattr(model, "calibrate_bn", False):
        model = zoo.calibrate_batchnorm(model, make_inputs)
    inputs = make_inputs()
    npz = np.load(Path(ctx.exports[key]["dir"]) / f"{name}.npz")
    saved = [npz[k] for k in sorted(f for f in npz.files if f.startswith("in:"))]
    same = len(saved) == len(inputs) and all(np.array_equal(s, x.numpy()) for s, x in zip(saved, inputs))
    if not same:   # the export's inputs are the ones Brickyard sees: the peers get them too
        inputs = tuple(torch.from_numpy(s) for s in saved)
    ctx.torch_models[key] = (model, inputs, same)
    return ctx.torch_models[key]


def _flat(out) -> list:
    import torch
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    if hasattr(out, "values"):
        return [t for o in out.values() for t in _flat(o)]
    return []


def _host(outs: list) -> list:
    return [o.detach().float().cpu().numpy() for o in outs]


def torch_ctx(name: str, ctx: Ctx):
    """inference_mode, plus the device context for models that need it (DEVICE_CONTEXT)."""
    import contextlib
    import torch
    stack = contextlib.ExitStack()
    stack.enter_context(torch.inference_mode())
    if name in DEVICE_CONTEXT:
        stack.enter_context(torch.device(_tdev(ctx)))
    return stack


def _tdev(ctx: Ctx) -> str:
    return "cuda" if ctx.on_gpu else "cpu"


def _tsync(ctx: Ctx) -> None:
    if ctx.on_gpu:
        import torch
        torch.cuda.synchronize()


def _tfree(ctx: Ctx) -> None:
    if ctx.on_gpu:
        import torch
        torch.cuda.empty_cache()


def peer(model, inputs, dtype: str, ctx: Ctx):
    """The module and inputs on the device in `dtype` (fp16: model.half(), float inputs half)."""
    import torch
    tdt = torch.float16 if dtype == "fp16" else torch.float32
    dev = _tdev(ctx)
    m = copy.deepcopy(model).to(device=dev, dtype=tdt)
    xs = [x.to(dev).to(tdt) if x.is_floating_point() else x.to(dev) for x in inputs]
    return m, xs


def reference(name: str, batch: int, ctx: Ctx) -> list:
    """PyTorch eager in fp32 on the GPU (TF32 off): every system's reference."""
    key = (name, batch)
    if key not in ctx.refs:
        model, inputs, _ = torch_model(name, batch, ctx)
        m, xs = peer(model, inputs, "fp32", ctx)
        with torch_ctx(name, ctx):
            out = _host(_flat(m(*xs)))
        del m, xs
        _tfree(ctx)
        ctx.refs[key] = out
    return ctx.refs[key]


def torch_systems(row: dict, name: str, batch: int, dtype: str, ref: list, systems: list[str], ctx: Ctx) -> None:
    """PyTorch eager and torch.compile on the same inputs, each timed like Brickyard."""
    model, inputs, _ = torch_model(name, batch, ctx)
    m, xs = peer(model, inputs, dtype, ctx)
    clock = TorchEvents() if ctx.on_gpu else HostClock()
    try:
        with torch_ctx(name, ctx):
            if "torch" in systems:
                try:
                    t0 = time.perf_counter()
                    out = _flat(m(*xs))
                    _tsync(ctx)
                    row["torch_first_call_s"] = round(time.perf_counter() - t0, 3)
                    out = _host(out)
                    row["err_torch"] = _round(max_rel(out, ref), 8)
                    row.setdefault("errors_norm", {})["torch"] = _round(norm_rel(out, ref), 8)
                    del out
                    t = measure(lambda: m(*xs), clock, ctx)
                    row["torch_us"] = _round(t["median_us"], 3)
                    row["torch"] = {"timing": t}
                except CutOff:
                    raise
                except Exception as e:
                    row.setdefault("error", {})["torch"] = _err(e)
            for sysname in ("torch_compile", "torch_compile_max_autotune"):
                if sysname not in systems:
                    continue
                left = ctx.left()
                need = ctx.args.max_autotune_reserve_s if sysname.endswith("autotune") else ctx.args.compile_reserve_s
                if left < need:
                    row.setdefault("skipped", {})[sysname] = f"budget spent ({left:.0f} s left, {need:.0f} s reserved)"
                    continue
                torch_compile(row, sysname, m, xs, ref, clock, ctx)
    finally:
        m = xs = None        # the GPU copies go before the next row
        _tfree(ctx)


def torch_compile(row: dict, sysname: str, m, xs, ref, clock, ctx: Ctx) -> None:
    import torch
    mode = TC_MODES[sysname]
    try:
        torch._dynamo.reset()
        cm = torch.compile(m, mode=mode, dynamic=False)
        graphs = mode == "max-autotune" and ctx.on_gpu   # Inductor's CUDA graphs (cudagraph trees) are on

        def call():
            if graphs:
                torch.compiler.cudagraph_mark_step_begin()
            return cm(*xs)
        t0 = time.perf_counter()
        out = _flat(call())
        _tsync(ctx)
        row[f"{sysname}_s"] = round(time.perf_counter() - t0, 3)
        out = _host(out)
        row[f"err_{sysname}"] = _round(max_rel(out, ref), 8)
        row.setdefault("errors_norm", {})[sysname] = _round(norm_rel(out, ref), 8)
        del out
        t = measure(call, clock, ctx)
        row[f"{sysname}_us"] = _round(t["median_us"], 3)
        row[sysname] = {"mode": mode or "default", "cuda_graphs": graphs, "timing": t}
    except CutOff:
        raise
    except Exception as e:
        row.setdefault("error", {})[sysname] = _err(e)
    finally:
        torch._dynamo.reset()


def _err(e: BaseException) -> str:
    return f"{type(e).__name__}: {str(e)[:400]}"


# ---- rows -----------------------------------------------------------------------------------------

def row_specs(models: list[str], batches: list[int], dtypes: list[str]) -> list[tuple[str, int, str]]:
    out = []
    for b, dt in CONFIGS + [(b, d) for b in batches for d in dtypes if (b, d) not in CONFIGS]:
        if b in batches and dt in dtypes:
            out.extend((m, b, dt) for m in models)
    return out


def base_row(name: str, batch: int, dtype: str, ctx: Ctx) -> dict:
    return {"name": f"{name}/b{batch}/{dtype}", "model": name, "title": MODELS[name], "size": ctx.args.size,
            "batch": batch, "dtype": dtype, "part": ctx.args.part}


def wants_max_autotune(batch: int, dtype: str, ctx: Ctx) -> bool:
    at = ctx.args.max_autotune_at
    return at == "all" or (batch, dtype) in at


def gpu_row(name: str, batch: int, dtype: str, ctx: Ctx, systems: list[str]) -> dict:
    import numpy as np
    row = base_row(name, batch, dtype, ctx)
    exp = ctx.exporter.wait(name, batch)
    if exp.get("error"):
        row["error"] = {"export": exp["error"]}
        return row
    row["export"] = {k: exp.get(k) for k in ("seconds", "bytes", "reused", "wall_s")}
    row["exports_running_at_start"] = ctx.exporter.busy()     # other exports sharing the CPU with this row
    d = Path(exp["dir"])
    npz = np.load(d / f"{name}.npz")
    inputs = {k[3:]: npz[k] for k in npz.files if k.startswith("in:")}
    npz_out = [npz[k] for k in sorted(f for f in npz.files if f.startswith("out:"))]
    row["inputs"] = [{"name": n, "shape": list(v.shape), "dtype": str(v.dtype)} for n, v in inputs.items()]
    _, _, same = torch_model(name, batch, ctx)
    row["peer_inputs_match_export"] = same
    ref = reference(name, batch, ctx)
    row["reference"] = "PyTorch eager fp32 on " + ("this GPU (TF32 off)" if ctx.on_gpu else "the CPU")
    row["err_torch_fp32_vs_export"] = _round(max_rel(ref, npz_out), 8)
    row["_npz_outputs"] = npz_out
    if "brickyard" in systems:
        try:
            brickyard_row(row, d / f"{name}.onnx", inputs, dtype, ref, ctx, "gpu" if ctx.on_gpu else "host")
        except CutOff:
            raise
        except Exception as e:
            row.setdefault("error", {})["brickyard"] = _err(e)
            row["traceback"] = traceback.format_exc()[-2000:]
            if ctx.on_gpu:
                _gpu_recover(ctx)
            if ctx.fault:
                return row
    row.pop("_npz_outputs", None)
    for s_ in SYSTEMS:
        if s_ not in systems:
            row.setdefault("skipped", {})[s_] = "not in --systems"
    peers = [s for s in systems if s != "brickyard" and s != "torch_compile_max_autotune"]
    if peers:
        torch_systems(row, name, batch, dtype, ref, peers, ctx)
    return row


def _gpu_recover(ctx: Ctx) -> None:
    """After a failure: a sticky device error poisons everything after it, so nothing more is
    measured once one is seen (ctx.fault)."""
    try:
        import cupy
        import torch
        cupy.cuda.runtime.deviceSynchronize()
        torch.cuda.synchronize()
        cupy.get_default_memory_pool().free_all_blocks()
    except Exception as e:
        ctx.fault = _err(e)
        print(f"DEVICE FAULT: {ctx.fault}", flush=True)


def derive(row: dict) -> None:
    by = row.get("brickyard_us")
    if by:
        for s in ("torch", "torch_compile", "torch_compile_max_autotune"):
            if row.get(f"{s}_us"):
                row[f"speedup_vs_{s}"] = _round(row[f"{s}_us"] / by, 3)


# ---- output ---------------------------------------------------------------------------------------

def _dist_version(dist: str) -> str | None:
    from importlib import metadata
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def versions() -> dict:
    import compiler
    v = {"python": platform.python_version(), "brickyard": compiler.__version__}
    for dist in ("numpy", "onnx", "onnxruntime", "onnxscript", "torch", "transformers", "triton", "cuda-bindings",
                 "cupy-cuda13x", "cupy-cuda12x", "cupy", "nvidia-cuda-nvrtc"):
        got = _dist_version(dist)
        if got or dist in ("torch", "transformers", "triton"):
            v[dist] = got
    try:
        from compiler.codegen.nvrtc import nvrtc_version
        v["nvrtc"] = nvrtc_version()
    except Exception as e:
        v["nvrtc"] = f"unavailable ({type(e).__name__})"
    return v


def _sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class Results:
    """The JSON file, rewritten (atomically) after every row."""

    def __init__(self, ctx: Ctx, device: dict, settings: dict, tag: str):
        self.created = _dt.datetime.now(_dt.timezone.utc)
        a = ctx.args
        self.doc = {"suite": "e2e", "mode": ctx.mode, "device": device, "versions": versions(),
                    "git_commit": git_commit(), "created": self.created.isoformat(),
                    "run": {"part": a.part, "models": a.models_list, "batches": a.batches, "dtypes": a.dtypes,
                            "systems": a.systems, "max_autotune_at": _at_text(a.max_autotune_at),
                            "command": " ".join([Path(sys.argv[0]).name] + sys.argv[1:]), "host": platform.node(),
                            "deadline": _dt.datetime.fromtimestamp(ctx.deadline, _dt.timezone.utc).isoformat()},
                    "parts": {str(k): v for k, v in PARTS.items()},
                    "settings": settings, "exports": [], "complete": False, "seconds": 0.0, "rows": []}
        Path(a.out).mkdir(parents=True, exist_ok=True)
        self.path = Path(a.out) / f"e2e-{self.created.strftime('%Y%m%dT%H%M%SZ')}{tag}.json"
        self.t0 = time.time()

    @property
    def rows(self) -> list:
        return self.doc["rows"]

    def save(self, complete: bool = False) -> None:
        self.doc["complete"] = complete
        self.doc["seconds"] = round(time.time() - self.t0, 1)
        doc = dict(self.doc)
        if isinstance(doc["exports"], dict):      # (model, batch) -> record
            doc["exports"] = [dict(v, key=f"{k[0]}/b{k[1]}") for k, v in doc["exports"].items()]
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(doc, indent=1, default=str))
        os.replace(tmp, self.path)


def _at_text(at) -> list | str:
    return at if isinstance(at, str) else [f"{b}:{d}" for b, d in at]


def markdown_table(rows: list[dict]) -> str:
    head = ("| model | batch | dtype | brickyard us | by graph us | torch us | tc default us | tc max-autotune us "
            "| torch/by | launches | err by | err torch | err tc | by compile s | tc compile s | tc max-at compile s |")
    n = head.count("|") - 1
    lines = [head, "|" + "---|" * n]
    for r in rows:
        why = r.get("skipped_row") or (r.get("error") or {}).get("export")
        if why:
            why = " ".join(str(why).split()).replace("|", "/")
            lines.append(f"| {r['model']} | {r['batch']} | {r['dtype']} | {why[:100]} |" + " |" * (n - 4))
            continue
        errs = r.get("error") or {}
        by = _fmt(r.get("brickyard_us")) if "brickyard" not in errs else "error"
        gr = _fmt(r.get("brickyard_graph_us")) if r.get("brickyard_graph_us") else \
            ("n/a" if r.get("cuda_graph") == RUNTIME_GRAPH_MISSING else "-")

        def sys_cell(s):
            if s in errs:
                return "error"
            if s in (r.get("skipped") or {}):
                return "skip"
            return _fmt(r.get(f"{s}_us"))
        lines.append("| " + " | ".join([
            r["model"], str(r["batch"]), r["dtype"], by, gr, sys_cell("torch"), sys_cell("torch_compile"),
            sys_cell("torch_compile_max_autotune"), _fmt(r.get("speedup_vs_torch"), 2),
            _fmt(r.get("launches_per_inference")), _fmt(r.get("err_brickyard"), 2), _fmt(r.get("err_torch"), 2),
            _fmt(r.get("err_torch_compile"), 2), _fmt(r.get("brickyard_compile_s"), 1), _fmt(r.get("torch_compile_s"), 1),
            _fmt(r.get("torch_compile_max_autotune_s"), 1)]) + " |")
    lines.append("\nus: median microseconds per inference; n/a: the runtime cannot capture a CUDA graph; "
                 "err: max|out - ref| / max|ref| against PyTorch fp32; launches: kernel launches per inference")
    return "\n".join(lines)


def summarize(paths: list[str]) -> str:
    """One table from several runs' JSON (a later file's row replaces an earlier one's for the same
    model, batch and dtype, unless it has no Brickyard time), then per batch and dtype the geometric
    mean of each peer's time over Brickyard's, plain launches and as one CUDA graph (>1: Brickyard
    faster), over the rows where both ran; last, per row, what a plain launch costs over the graph
    and the tune stage's share of the compile."""
    rows: dict[tuple, dict] = {}
    for path in paths:
        for r in json.loads(Path(path).read_text()).get("rows", []):
            if r.get("brickyard_us") or (r["model"], r["batch"], r["dtype"]) not in rows:
                rows[r["model"], r["batch"], r["dtype"]] = dict(r, source=Path(path).name)
    lines = [markdown_table(list(rows.values())), ""]
    for batch, dtype in sorted({(b, d) for _, b, d in rows}):
        part = [r for (_, b, d), r in rows.items() if (b, d) == (batch, dtype)]
        for peer, label in (("torch", "PyTorch eager"), ("torch_compile", "torch.compile default"),
                            ("torch_compile_max_autotune", "torch.compile max-autotune")):
            for mine, how in (("brickyard_us", "plain launches"), ("brickyard_graph_us", "one CUDA graph")):
                both = [r for r in part if r.get(f"{peer}_us") and r.get(mine)]
                if both:
                    g = math.exp(sum(math.log(r[f"{peer}_us"] / r[mine]) for r in both) / len(both))
                    lines.append(f"batch {batch} {dtype}: {label} / Brickyard ({how}): geomean {g:.2f}x "
                                 f"over {len(both)} models ({', '.join(r['model'] for r in both)})")
    lines.append("")
    for r in rows.values():
        if not r.get("brickyard_us"):
            continue
        parts = []
        if r.get("brickyard_graph_us") and r.get("launches_per_inference"):
            per = (r["brickyard_us"] - r["brickyard_graph_us"]) / r["launches_per_inference"]
            parts.append(f"a plain launch costs {per:.1f} us over the graph")
        stages = ((r.get("brickyard") or {}).get("compile") or {}).get("stages") or {}
        if stages.get("tune") is not None and r.get("brickyard_compile_s"):
            parts.append(f"tune {stages['tune']:.1f} of {r['brickyard_compile_s']:.1f} s compile "
                         f"({100 * stages['tune'] / r['brickyard_compile_s']:.0f}%)")
        tune = (r.get("brickyard") or {}).get("tune") or {}
        if tune.get("distinct") is not None:
            phases = ", ".join(f"{n[:-2]} {v:.1f} s" for n, v in (tune.get("phases") or {}).items())
            parts.append(f"{tune.get('specs')} specs tuned as {tune['distinct']} distinct launch sets "
                         f"({tune.get('cache_hits')} from the cache; {phases})")
        if parts:
            lines.append(f"{r['model']} b{r['batch']} {r['dtype']}: " + "; ".join(parts))
    lines.append("sources: " + ", ".join(Path(p).name for p in paths))
    return "\n".join(lines)


def _tune_summary(tune: dict) -> dict:
    """The report's tune record in brief: status, how many specs and distinct launch sets, cache
    hits, and the seconds its measurements spent in each phase (summed over the measured specs)."""
    out = {k: tune[k] for k in ("status", "reason", "distinct", "shared", "cache_hits", "candidates_measured")
           if k in tune}
    records = tune.get("kernels")
    if isinstance(records, list):
        out["specs"] = len(records)
        phases: dict[str, float] = {}
        for r in records:
            for name, v in (r.get("phases") or {}).items():
                if not r.get("cached"):
                    phases[name] = phases.get(name, 0.0) + float(v)
        out["phases"] = {n: round(v, 3) for n, v in phases.items()}
    return out


def _progress(r: dict) -> None:
    errs = r.get("error") or {}
    if r.get("skipped_row") or "export" in errs:
        print(f"{r['name']}: {r.get('skipped_row') or 'ERROR ' + errs['export']}", flush=True)
        return
    print(f"{r['name']}: by {r.get('brickyard_us')} us ({r.get('launches_per_inference')} launches, "
          f"err {r.get('err_brickyard')}), torch {r.get('torch_us')} us, torch.compile {r.get('torch_compile_us')} us, "
          f"max-autotune {r.get('torch_compile_max_autotune_us')} us"
          + (f"  {r['skipped_row']}" if r.get("skipped_row") else "")
          + "".join(f"  ERROR[{k}] {' '.join(v.split())[:200]}" for k, v in errs.items()), flush=True)


# ---- the smoke test -------------------------------------------------------------------------------

SMOKE_SRC = r"""
extern "C" __global__ void brickyard_smoke(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
"""


def smoke() -> int:
    """Device, driver, one kernel built by NVRTC loaded and run through CuPy, PyTorch sees the GPU."""
    def fail(what, e=None):
        print(f"SMOKE FAILED: {what}" + (f": {type(e).__name__}: {str(e)[:500]}" if e else ""), flush=True)
        return 2
    from compiler.runtime.timing import device_info, gpu_presence
    ok, why = gpu_presence()
    if not ok:
        return fail(why)
    try:
        dev = device_info()
    except Exception as e:
        return fail("reading the device's properties", e)
    print(f"device: {dev['name']} ({dev['arch']}, {dev['sms']} SMs, L2 {dev['l2_bytes'] >> 20} MiB, "
          f"{dev['memory_bytes'] / 2**30:.0f} GiB), driver {dev['driver']} (CUDA {dev['cuda_driver']}), "
          f"CUDA runtime {dev['cuda_runtime']}", flush=True)
    try:
        import numpy as np
        import cupy
        from compiler.codegen.nvrtc import build_arch, build_cubin, nvrtc_version
        t0 = time.perf_counter()
        r = build_cubin(SMOKE_SRC, "brickyard_smoke", build_arch(dev["arch"]))
        print(f"NVRTC {nvrtc_version()}: built brickyard_smoke for {r.arch} in {time.perf_counter() - t0:.2f} s "
              f"({len(r.cubin)} bytes, {r.registers} registers)", flush=True)
    except Exception as e:
        return fail("NVRTC could not build a kernel", e)
    try:
        mod = cupy.cuda.function.Module()
        mod.load(r.cubin)
        fn = mod.get_function("brickyard_smoke")
        n = 1 << 20
        x = cupy.random.standard_normal(n, dtype=cupy.float32)
        y = cupy.full(n, cupy.nan, dtype=cupy.float32)
        fn(((n + 255) // 256,), (256,), (x, y, np.int32(n)))
        cupy.cuda.runtime.deviceSynchronize()
        bad = int(cupy.count_nonzero(y != 2.0 * x + 1.0))
        if bad:
            return fail(f"the kernel ran but {bad} of {n} outputs are wrong")
        print(f"kernel loaded and ran: {n} outputs right", flush=True)
    except Exception as e:
        return fail("the NVRTC cubin did not load or run (driver older than NVRTC?)", e)
    try:
        import torch
        if not torch.cuda.is_available():
            return fail("PyTorch does not see the GPU (the peers need it)")
        print(f"PyTorch {torch.__version__} sees {torch.cuda.get_device_name()}", flush=True)
    except ImportError as e:
        return fail("PyTorch is not importable (the peers and the exports need it)", e)
    print("smoke test passed", flush=True)
    return 0


# ---- the runs -------------------------------------------------------------------------------------

def run_rows(specs, ctx: Ctx, res: Results, row_fn) -> int:
    """Rows in order under the deadline; then the max-autotune pass. Returns the exit code."""
    a = ctx.args
    cut = None
    try:
        for name, b, dt in specs:
            base = base_row(name, b, dt, ctx)
            if ctx.fault:
                res.rows.append(dict(base, skipped_row=f"not run after a device fault: {ctx.fault[:120]}"))
                continue
            if ctx.left() < a.row_reserve_s:
                res.rows.append(dict(base, skipped_row=f"budget spent ({ctx.left():.0f} s left)"))
                continue
            t0 = time.perf_counter()
            try:
                row = row_fn(name, b, dt)
            except CutOff:
                raise
            except Exception as e:
                row = dict(base, error={"row": _err(e)}, traceback=traceback.format_exc()[-2000:])
                if ctx.on_gpu and ctx.mode == "gpu":
                    _gpu_recover(ctx)
            row["wall_s"] = round(time.perf_counter() - t0, 2)
            derive(row)
            res.rows.append(row)
            _progress(row)
            res.save()
        if ctx.zoo is not None and "torch_compile_max_autotune" in a.systems:
            for row in res.rows:
                if row.get("skipped_row") or (row.get("error") or {}).get("export") or ctx.fault or \
                        not wants_max_autotune(row["batch"], row["dtype"], ctx):
                    continue
                left = ctx.left()
                if left < a.max_autotune_reserve_s:
                    row.setdefault("skipped", {})["torch_compile_max_autotune"] = \
                        f"budget spent ({left:.0f} s left, {a.max_autotune_reserve_s:.0f} s reserved)"
                    res.save()
                    continue
                t0 = time.perf_counter()
                model, inputs, _ = torch_model(row["model"], row["batch"], ctx)
                ref = reference(row["model"], row["batch"], ctx)
                m, xs = peer(model, inputs, row["dtype"], ctx)
                try:
                    with torch_ctx(row["model"], ctx):
                        torch_compile(row, "torch_compile_max_autotune", m, xs, ref,
                                      TorchEvents() if ctx.on_gpu else HostClock(), ctx)
                finally:
                    del m, xs
                    _tfree(ctx)
                row["wall_s"] = round(row.get("wall_s", 0) + time.perf_counter() - t0, 2)
                derive(row)
                print(f"{row['name']}: torch.compile max-autotune {row.get('torch_compile_max_autotune_us')} us, "
                      f"compile {row.get('torch_compile_max_autotune_s')} s"
                      + (f"  ERROR {row['error']['torch_compile_max_autotune'][:200]}"
                         if "torch_compile_max_autotune" in (row.get("error") or {}) else ""), flush=True)
                res.save()
            for row in res.rows:
                if not row.get("skipped_row") and not wants_max_autotune(row["batch"], row["dtype"], ctx):
                    row.setdefault("skipped", {}).setdefault(
                        "torch_compile_max_autotune", f"max-autotune runs at {_at_text(a.max_autotune_at)} only")
    except CutOff as e:
        cut = f"cut off by the time limit ({e})"
        done = {r["name"] for r in res.rows}
        for name, b, dt in specs:
            base = base_row(name, b, dt, ctx)
            if base["name"] not in done:
                res.rows.append(dict(base, skipped_row=f"not run: {cut}"))
        res.doc["cut_off"] = cut
    if ctx.fault:
        res.doc["device_fault"] = ctx.fault
    res.save(complete=cut is None)
    print(f"\nwrote {res.path}")
    print(markdown_table(res.rows), flush=True)
    bad = cut or ctx.fault or any((r.get("error") or {}) for r in res.rows)
    return 1 if bad else 0


def common_settings(ctx: Ctx, clock: str) -> dict:
    a = ctx.args
    _, graph = runtime_graph_status()
    return {
        "samples": a.samples, "warmup_runs": a.warmup_runs, "warmup_s": a.warmup_s, "clock": clock,
        "l2_flush": bool(a.flush_l2),
        "l2_flush_note": "between samples only with --flush-l2 (the issue asks it of the kernel suite)",
        "error": "max over outputs of max|out - ref| / max|ref| (errors_norm: ||out - ref|| / ||ref||)",
        "brickyard_runner": "compiler.runtime.executor.Executor on the backend, inputs already on the device "
                            "(no host<->device copies timed); kernels launched one by one",
        "brickyard_fp16": "CompileOptions(precision='fp16'): contractions' operands fp16, accumulation and every "
                          "other tensor fp32; inputs and outputs fp32",
        "brickyard_store": "given" if a.store else "fresh per run (cold compiles; rows of one run share it)",
        "brickyard_tune": "tune" not in a.disable,
        "brickyard_disable": list(a.disable),
        "cuda_graph": graph,
        "launches_per_inference": "counted at run time (loop iterations and the branch taken included); "
                                  "kernels_in_plan is the report's static count",
    }


def dry_main(ctx: Ctx) -> int:
    """The whole script on the CPU: the tiny shared models (exported by zoo.py at batch 1) on the
    host harness, the error against PyTorch's outputs in their .npz; peers and batch 16 skipped."""
    import numpy as np
    from compiler.targets import get_target
    from kernel_cache.store import KernelStore
    a = ctx.args
    shared = Path(a.shared)
    models_dir = shared / "models"
    if not models_dir.is_dir():
        print(f"--dry-run needs the shared models: {models_dir} is missing (set BRICKYARD_SHARED or --shared)",
              file=sys.stderr)
        return 2
    ctx.target = get_target(a.target)
    tmp = tempfile.TemporaryDirectory(prefix="brickyard-e2e-store-")
    ctx.store = KernelStore(a.store or tmp.name)
    device = {"name": "host harness (CPU)", "driver": None, "cuda": None, "arch": None,
              "compiled_for": f"{ctx.target.name} ({ctx.target.arch})", "cpu": platform.machine(),
              "cores": os.cpu_count()}
    settings = dict(common_settings(ctx, HostClock.name),
                    reference="PyTorch fp32 on the CPU at export: the outputs in the model's .npz (zoo.py)",
                    peers="skipped: the dry run has no PyTorch on a GPU", size="tiny (../shared/models)")
    res = Results(ctx, device, settings, "-dryrun")
    systems = [s for s in a.systems if s == "brickyard"]

    def row_fn(name, b, dt):
        row = base_row(name, b, dt, ctx)
        row["size"] = "tiny"
        if b != 1:
            row["skipped_row"] = ("the shared tiny models are exported at batch 1 (static shapes); other "
                                  "batches are exported on the GPU machine")
            return row
        onnx_path = models_dir / f"{name}.onnx"
        npz = np.load(models_dir / f"{name}.npz")
        inputs = {k[3:]: npz[k] for k in npz.files if k.startswith("in:")}
        ref = [npz[k] for k in sorted(f for f in npz.files if f.startswith("out:"))]
        row["inputs"] = [{"name": n, "shape": list(v.shape), "dtype": str(v.dtype)} for n, v in inputs.items()]
        row["reference"] = "PyTorch fp32 (CPU) outputs in the .npz"
        if "brickyard" in systems:
            try:
                brickyard_row(row, onnx_path, inputs, dt, ref, ctx, "host")
            except Exception as e:
                row.setdefault("error", {})["brickyard"] = _err(e)
                row["traceback"] = traceback.format_exc()[-2000:]
        for s in a.systems:
            if s != "brickyard":
                row.setdefault("skipped", {})[s] = "dry run: the peers need PyTorch on a GPU"
        return row
    try:
        return run_rows(row_specs(a.models_list, a.batches, a.dtypes), ctx, res, row_fn)
    finally:
        tmp.cleanup()


def gpu_main(ctx: Ctx) -> int:
    """The real run: exports with zoo.py, Brickyard on the GPU backend, the peers on the same GPU.
    With ctx.on_gpu False (--dry-run --cpu-peers) the same flow on the CPU: tiny exports, the host
    harness and the peers on the CPU, which checks the export and peer code without a GPU."""
    a = ctx.args
    if ctx.on_gpu:
        from compiler.runtime.timing import device_info, gpu_presence
        ok, why = gpu_presence()
        if not ok:
            print(f"bench/e2e.py needs a GPU ({why}); use --dry-run here", file=sys.stderr)
            return 2
    if not Path(a.zoo).is_file():
        print(f"zoo.py not found at {a.zoo}: copy ../shared into gpu/shared (bench/README.md) or pass --zoo",
              file=sys.stderr)
        return 2
    inductor_tmp = None
    if a.inductor_cache == "fresh":      # before torch is imported: cold torch.compile times, like Brickyard's
        inductor_tmp = tempfile.TemporaryDirectory(prefix="brickyard-e2e-inductor-")
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = inductor_tmp.name
        os.environ["TRITON_CACHE_DIR"] = os.path.join(inductor_tmp.name, "triton")
    try:
        import torch
    except ImportError as e:
        print(f"bench/e2e.py needs PyTorch for the exports and the peers ({e})", file=sys.stderr)
        return 2
    from kernel_cache.store import KernelStore
    torch.backends.cuda.matmul.allow_tf32 = False      # fp32 means fp32 for the peers too
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    if ctx.on_gpu:
        import cupy
        dev = device_info()
        ctx.target, preset = pick_target(dev)
        device = {"name": dev["name"], "driver": dev["driver"], "cuda": dev["cuda_runtime"],
                  "cuda_driver": dev["cuda_driver"], "arch": dev["arch"], "sms": dev["sms"],
                  "l2_bytes": dev["l2_bytes"], "memory_bytes": dev["memory_bytes"], "target_preset": preset}
        clock = CupyEvents.name + "; the peers: " + TorchEvents.name
        extra = {"cupy": cupy.__version__}
    else:
        from compiler.targets import get_target
        ctx.target = get_target(a.target)
        device = {"name": "host harness (CPU); peers on the CPU", "driver": None, "cuda": None, "arch": None,
                  "compiled_for": f"{ctx.target.name} ({ctx.target.arch})", "cpu": platform.machine(),
                  "cores": os.cpu_count()}
        clock = HostClock.name
        extra = {}
    tmp = tempfile.TemporaryDirectory(prefix="brickyard-e2e-store-")
    ctx.store = KernelStore(a.store or tmp.name)
    ctx.zoo = load_zoo(Path(a.zoo))
    if a.flush_l2 and ctx.on_gpu:
        buf = torch.empty(max(2 * (dev["l2_bytes"] or 50 << 20), 64 << 20), dtype=torch.uint8, device="cuda")

        def flush():
            buf.zero_()
            torch.cuda.synchronize()
        ctx.flush = flush
    where = "the same GPU, TF32 off" if ctx.on_gpu else "the CPU"
    settings = dict(common_settings(ctx, clock),
                    reference=f"PyTorch eager fp32 on {where}, on the exported inputs",
                    size=a.size, zoo=str(a.zoo), zoo_sha256=_sha256(a.zoo),
                    export="zoo.py's export() per (model, batch): batch 1 is `zoo.py --size SIZE` itself; batch B "
                           "joins B of zoo's input draws on the batch axis and exports again (static shapes)",
                    torch_fp16="model.half() and fp16 float inputs: weights and activations fp16",
                    torch_tf32=False, torch_compile={"torch_compile": "torch.compile(model, dynamic=False)",
                                                     "torch_compile_max_autotune": "torch.compile(model, mode='max-autotune', "
                                                     "dynamic=False): Inductor's CUDA graphs included"},
                    inductor_cache="fresh per run (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR in a temporary folder)"
                    if inductor_tmp else "the machine's", torch=torch.__version__, **extra)
    tag = (f"-part{a.part}" if a.part else "") + ("" if ctx.on_gpu else "-dryrun-cpu-peers")
    res = Results(ctx, device, settings, tag)
    print(f"device: {device['name']}; target {ctx.target.name} ({ctx.target.arch}); models {','.join(a.models_list)}; "
          f"batches {a.batches}; {', '.join(a.dtypes)}; {ctx.left():.0f} s to the deadline", flush=True)
    specs = row_specs(a.models_list, a.batches, a.dtypes)
    pairs = []
    for m, b, _ in specs:           # in row order: the first rows' exports start first
        if (m, b) not in pairs:
            pairs.append((m, b))
    res.doc["exports"] = ctx.exports          # filled in as they finish; saved with every row
    try:
        try:
            ctx.exporter = Exporter(pairs, ctx)
        except CutOff as e:
            res.doc["cut_off"] = f"cut off by the time limit ({e})"
            res.save()
            return 1
        return run_rows(specs, ctx, res, lambda name, b, dt: gpu_row(name, b, dt, ctx, list(a.systems)))
    finally:
        if ctx.exporter:
            ctx.exporter.close()
        tmp.cleanup()
        if inductor_tmp:
            inductor_tmp.cleanup()


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="the GPU smoke test: device, driver, an NVRTC kernel runs")
    ap.add_argument("--summarize", nargs="+", metavar="JSON",
                    help="no run: the table and geomean speedups of these result files (a later file's row wins)")
    ap.add_argument("--dry-run", action="store_true", help="on the CPU: tiny shared models, host harness, no peers")
    ap.add_argument("--cpu-peers", action="store_true",
                    help="with --dry-run, where PyTorch is installed: the GPU run's flow on the CPU (zoo.py exports at "
                         "--size tiny, the host harness, the peers on the CPU)")
    ap.add_argument("--part", type=int, choices=sorted(PARTS), help="the models of one part (PARTS)")
    ap.add_argument("--models", "--only", dest="models", help="comma-separated zoo names (default: the part's, or all)")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--dtypes", default="fp16,fp32")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--max-autotune-at", default="1:fp16", help="BATCH:DTYPE,... | all | none")
    ap.add_argument("--samples", type=int, help="timed runs per system (default 100; --dry-run 5)")
    ap.add_argument("--warmup-runs", type=int, help="at least this many warm-up runs (default 10; --dry-run 1)")
    ap.add_argument("--warmup-s", type=float, help="and at least this long (default 0.5 s; --dry-run 0)")
    ap.add_argument("--flush-l2", action="store_true", help="flush the L2 before each sample (GPU)")
    ap.add_argument("--no-tune", action="append_const", const="tune", dest="disable",
                    help="Brickyard without its tune stage (faster compiles): --disable tune")
    ap.add_argument("--disable", action="append", metavar="NAME",
                    help="Brickyard with a technique switched off (repeatable): welder, roller, tune; "
                         "compare with a run without it")
    ap.add_argument("--budget-s", type=float, help="stop starting work after this many seconds (default 520 with "
                                                    "--part, else 3 h; --dry-run 1 h)")
    ap.add_argument("--deadline", type=float, help="absolute end (epoch seconds) for the whole run")
    ap.add_argument("--row-reserve-s", type=float, default=None, help="do not start a row with less left (default 60)")
    ap.add_argument("--compile-reserve-s", type=float, default=40.0, help="... nor a torch.compile default")
    ap.add_argument("--max-autotune-reserve-s", type=float, default=150.0, help="... nor a max-autotune compile")
    ap.add_argument("--size", default="full", choices=["tiny", "full"], help="zoo size to export (GPU runs)")
    ap.add_argument("--zoo", help="zoo.py (default: $BRICKYARD_SHARED/tools/zoo.py, gpu/shared, ../shared)")
    ap.add_argument("--models-dir", default=str(ROOT / "gpu" / "models"), help="where exports go (git-ignored)")
    ap.add_argument("--export-jobs", type=int, default=8)
    ap.add_argument("--inductor-cache", default="fresh", choices=["fresh", "machine"])
    ap.add_argument("--shared", help="--dry-run's shared folder (default: $BRICKYARD_SHARED or ../shared)")
    ap.add_argument("--target", default="h100", help="--dry-run's target preset (a GPU run uses the device's)")
    ap.add_argument("--store", help="Brickyard kernel cache folder (default: a fresh temporary one)")
    ap.add_argument("--out", help="results folder (default bench/results; --dry-run var/bench-dry-run)")
    ap.add_argument("--export-one", help=argparse.SUPPRESS)
    ap.add_argument("--batch", type=int, default=1, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    a.disable = sorted(set(a.disable or ()))
    dry = a.dry_run
    if a.cpu_peers:
        if not dry:
            ap.error("--cpu-peers goes with --dry-run")
        a.size = "tiny"
    a.samples = a.samples if a.samples is not None else (5 if dry else 100)
    a.warmup_runs = a.warmup_runs if a.warmup_runs is not None else (1 if dry else 10)
    a.warmup_s = a.warmup_s if a.warmup_s is not None else (0.0 if dry else 0.5)
    a.row_reserve_s = a.row_reserve_s if a.row_reserve_s is not None else (0.0 if dry else 60.0)
    if a.samples < 1:
        ap.error("--samples must be at least 1")
    if a.models:
        a.models_list = [m for m in a.models.split(",") if m]
    elif a.part:
        a.models_list = list(PARTS[a.part])
    else:
        a.models_list = list(MODELS)
    unknown = [m for m in a.models_list if m not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {unknown}; the suite's are {list(MODELS)}")
    a.batches = [int(b) for b in a.batches.split(",") if b]
    a.dtypes = [d for d in a.dtypes.split(",") if d]
    if any(d not in ("fp32", "fp16") for d in a.dtypes):
        ap.error("--dtypes takes fp32 and fp16")
    a.systems = [s for s in a.systems.split(",") if s]
    if any(s not in SYSTEMS for s in a.systems):
        ap.error(f"--systems takes {', '.join(SYSTEMS)}")
    at = a.max_autotune_at.strip()
    if at in ("all", "none"):
        a.max_autotune_at = "all" if at == "all" else []
    else:
        a.max_autotune_at = [(int(x.split(":")[0]), x.split(":")[1]) for x in at.split(",") if x]
    shared = Path(os.environ.get("BRICKYARD_SHARED") or (ROOT.parent / "shared"))
    a.shared = a.shared or str(shared)
    if not a.zoo:
        for cand in (shared / "tools" / "zoo.py", ROOT / "gpu" / "shared" / "tools" / "zoo.py",
                     ROOT.parent / "shared" / "tools" / "zoo.py"):
            if cand.is_file():
                a.zoo = str(cand)
                break
        else:
            a.zoo = str(shared / "tools" / "zoo.py")
    a.out = a.out or str(ROOT / ("var/bench-dry-run" if dry else "bench/results"))
    if a.export_one is None and not a.smoke and a.dry_run and a.cpu_peers:
        a.models_dir = a.models_dir if a.models_dir != str(ROOT / "gpu" / "models") else str(ROOT / "var" / "e2e-models")
    return a


def main(argv=None) -> int:
    a = parse_args(argv)
    if a.export_one:
        rec = export_one(a.export_one, a.size, a.batch, Path(a.zoo), Path(a.models_dir) / f"{a.size}-b{a.batch}")
        print(json.dumps(rec))
        return 0
    if a.smoke:
        return smoke()
    if a.summarize:
        print(summarize(a.summarize))
        return 0
    start = time.time()
    budget = a.budget_s if a.budget_s is not None else (3600.0 if a.dry_run else 520.0 if a.part else 3 * 3600.0)
    deadline = start + budget
    if a.deadline:
        deadline = min(deadline, a.deadline)
    signal.signal(signal.SIGTERM, _on_sigterm)
    if a.dry_run and a.cpu_peers:
        return gpu_main(Ctx(args=a, mode="dry-run-cpu-peers", deadline=deadline, on_gpu=False))
    ctx = Ctx(args=a, mode="dry-run" if a.dry_run else "gpu", deadline=deadline)
    return dry_main(ctx) if a.dry_run else gpu_main(ctx)


if __name__ == "__main__":
    sys.exit(main())
