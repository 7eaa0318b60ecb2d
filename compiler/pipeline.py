"""compile(): the named stages, in order, and nothing else (DESIGN section 2)."""
from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

from . import __version__
from .artifact import Artifact
from .codegen.nvrtc import arch_options, build_arch, build_cubin, nvrtc_version
from .errors import CompilerError
from .frontend.onnx_import import ImportLimits, import_model
from .passes.lower import lower_graph
from .passes.fit import check_graph, check_plan
from .passes.memory_plan import plan_memory
from .passes.precision import check_precision, precision_plan
from .passes.render import render_plan
from .passes.roller import roller_plan
from .roller.cost_model import LAUNCH_US, predict_kernel_us
from .ir.plan import Plan
from .targets import Target, get_target
from .version import compiler_key

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class CompileOptions:
    """What the user may choose; part of the cache key of a compilation."""

    input_shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()
    precision: str = "fp32"   # fp32 | tf32 | fp16 | bf16: contractions' inputs (accumulation stays fp32)
    build: bool = True          # NVRTC cubins (off only for host-only test runs)
    verify: str | None = None   # "host": run the compiled plan on the harness against onnxruntime
    roller: bool = True         # re-tile kernels with Roller's construction and micro-model
    tune: bool = True           # on a GPU of the target's arch: measure the top-K, keep the fastest

    def __post_init__(self):
        check_precision(self.precision)
        if self.verify not in (None, "host", "gpu"):
            raise CompilerError(f"verify must be host, gpu or none, not {self.verify!r}")

    @property
    def key(self) -> str:
        return hashlib.sha256(repr(dataclasses.astuple(self)).encode()).hexdigest()


@dataclass
class StageRecord:
    name: str
    seconds: float
    info: dict


STAGES = ("import", "lower", "precision", "roller", "render", "build", "tune", "memory_plan", "fit", "verify", "package")


def compile(model, target: str | dict | Target = "h100", options: CompileOptions | None = None, *,
            store=None, progress: Progress | None = None, limits: ImportLimits | None = None,
            name: str | None = None) -> Artifact:
    """ONNX model (path, bytes or ModelProto) -> Artifact for `target`; `name` overrides the model's
    name in the report (the service compiles files named by their digest)."""
    options = options or CompileOptions()
    target = get_target(target)
    records: list[StageRecord] = []
    t_start = time.perf_counter()

    def stage(stage_name: str, fn, *args):
        t0 = time.perf_counter()
        out, info = fn(*args)
        records.append(StageRecord(stage_name, time.perf_counter() - t0, info))
        if CHECK_IR:
            _check_ir(stage_name, out)
        if progress:
            progress(stage_name, (STAGES.index(stage_name) + 1) / len(STAGES))
        return out

    imported = stage("import", lambda: _import(model, target, options, limits))
    if name:
        imported = dataclasses.replace(imported, name=name)
    plan = stage("lower", lambda: _lower(imported))
    plan = stage("precision", lambda: precision_plan(plan, options.precision))
    plan = stage("roller", lambda: _roller(plan, target, options.roller))
    plan = stage("render", lambda: render_plan(plan, target))
    builds = stage("build", lambda: _build(plan, target, store, options.build))
    plan, builds, tuning = stage("tune", lambda: _tune(plan, target, store, builds, options))
    plan = stage("memory_plan", lambda: (plan_memory(plan), {}))
    memory = stage("fit", lambda: _fit(plan, target))
    plan_m = plan
    verification = stage("verify", lambda: _verify(plan_m, model, options.verify))
    seconds = time.perf_counter() - t_start
    report = make_report(imported, target, plan, builds, records, seconds, verification, options, tuning)
    report["memory"] = memory
    artifact = stage("package", lambda: (Artifact(plan=plan, cubins={d: b["cubin"] for d, b in builds.items() if b.get("cubin")},
                                                  report=report, header=_header(imported, target, plan, options)), {}))
    # package's own time lands in the report after the fact
    report["compile"]["stages"].append({"name": "package", "seconds": records[-1].seconds})
    report["compile"]["seconds"] = time.perf_counter() - t_start
    return artifact


# Tests set BRICKYARD_CHECK_IR=1: the IR verifiers then run after every stage (DESIGN section 3).
CHECK_IR = os.environ.get("BRICKYARD_CHECK_IR") == "1"


def _check_ir(stage_name: str, out) -> None:
    from .ir.verify import verify_graph, verify_plan
    if stage_name == "import":
        verify_graph(out.graph)
    elif isinstance(out, Plan):
        verify_plan(out)
    elif isinstance(out, tuple) and out and isinstance(out[0], Plan):  # tune: (plan, builds, tuning)
        verify_plan(out[0])


def _import(model, target: Target, options: CompileOptions, limits: ImportLimits | None):
    """Import, then every tensor checked against the target before anything is built."""
    imported = import_model(model, input_shapes=dict(options.input_shapes), limits=limits or ImportLimits())
    return imported, check_graph(imported.graph, target)


def _fit(plan: Plan, target: Target):
    """The plan's footprint, refused (TooLarge) when it or a launch exceeds the target; the footprint
    is both the stage's record and the report's `memory`."""
    footprint = check_plan(plan, target)
    return footprint, footprint


def _lower(imported):
    plan = lower_graph(imported.graph, imported.opset)
    return plan, {"kernels": len(plan.specs())}


def _roller(plan: Plan, target: Target, enabled: bool):
    if not enabled:
        return plan, {"enabled": False}
    plan, stats = roller_plan(plan, target)
    return plan, dict(stats, enabled=True)


def toolchain_key(arch: str) -> str:
    """What made a kernel: the compiler (version and source key), NVRTC's version and options, the arch.
    Part of every kernel build key, tuning record key and the service's dedup key."""
    flags = hashlib.sha256(" ".join(arch_options(arch)).encode()).hexdigest()[:12]
    return f"brickyard-{__version__}/{compiler_key()[:20]}/nvrtc-{nvrtc_version()}-{flags}/{arch}"


def _build(plan: Plan, target: Target, store, enabled: bool):
    """NVRTC -> cubin for each distinct kernel, through the kernel cache."""
    kernels = {k.digest: k for k in plan.kernels()}
    builds: dict[str, dict] = {}
    if not enabled:
        return builds, {"hits": 0, "misses": 0, "kernels": len(kernels)}
    if store is None:
        from kernel_cache import default_store
        store = default_store()
    tool = toolchain_key(target.arch)
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = pool.map(lambda k: (k.digest, _cached_build(k, target, store, tool)), kernels.values())
        builds = dict(done)
    hits = sum(1 for b in builds.values() if b["cached"])
    misses = len(builds) - hits
    return builds, {"hits": hits, "misses": misses, "kernels": len(kernels)}


def build_key(kernel_digest: str, tool: str) -> str:
    """A kernel's cubin in the cache: its source (prelude excluded: the compiler key in `tool` covers it)."""
    return hashlib.sha256(f"{kernel_digest}|{tool}".encode()).hexdigest()


def _cached_build(k, target: Target, store, tool: str) -> dict:
    """One kernel's cubin and ptxas report through the kernel cache (built when absent)."""
    key = build_key(k.digest, tool)
    found = store.lookup_kernel(key)
    if found is not None:
        meta, cubin = found
        return dict(meta, cubin=cubin, cached=True)
    r = build_cubin(k.source, k.entry, build_arch(target.arch, k.arch_specific))
    meta = {"registers": r.registers, "spills": r.spills, "static_shared": r.shared_bytes, "arch": r.arch}
    store.record_kernel(key, r.cubin, meta)
    return dict(meta, cubin=r.cubin, cached=False)


def _tune(plan: Plan, target: Target, store, builds: dict, options: CompileOptions):
    """Stage 9: on a GPU of the target's arch, the fastest of each kernel's top K (measured and
    cached); elsewhere the model's choice stands and the times stay predicted."""
    from .passes.tune import tune_gate, tune_plan
    device, why = tune_gate(target, options.tune, options.build)
    if device is None:
        info = {"status": "skipped", "reason": why, "times": "predicted"}
        return (plan, builds, {"info": info, "measured": {}}), info
    if store is None:
        from kernel_cache import default_store
        store = default_store()
    tool = toolchain_key(target.arch)
    cubins = {d: b["cubin"] for d, b in builds.items() if b.get("cubin")}
    plan, measured, info = tune_plan(plan, target, store=store, cubins=cubins, device=device, toolchain=tool,
                                     build=lambda k: _cached_build(k, target, store, tool)["cubin"])
    # the artifact carries the chosen kernels only (every candidate's cubin stays in the cache)
    builds = {k.digest: builds.get(k.digest) or _cached_build(k, target, store, tool) for k in plan.kernels()}
    summary = {key: v for key, v in info.items() if key != "kernel_records"}
    summary["target_check"] = device.get("target_mismatches") or "the device matches the target's limits"
    keep = ("rank", "key", "predicted_us", "measured_us", "spread", "status", "error")
    report_info = dict(summary, kernels=[dict({n: r[n] for n in r if n != "candidates"},
                                              candidates=[{n: c.get(n) for n in keep} for c in r["candidates"]])
                                         for r in info["kernel_records"]])
    return (plan, builds, {"info": report_info, "measured": measured}), summary


def _verify(plan: Plan, model, device: str | None):
    if device is None:
        return {"device": None, "max_rel_error": None}, {}
    from .verify import measure_error
    err = measure_error(plan, model, device)
    return {"device": device, "max_rel_error": err}, {}


def _header(imported, target: Target, plan: Plan, options: CompileOptions) -> dict:
    types = dict(plan.types)
    sig = lambda names: [{"name": n, "dtype": types[n].dtype.name, "shape": list(types[n].shape)} for n in names]
    return {"model": {"sha256": imported.model_sha256, "name": imported.name},
            "target": {"name": target.name, "arch": target.arch}, "compiler_version": __version__,
            "compiler_key": compiler_key(),
            "inputs": sig(plan.inputs), "outputs": sig(plan.outputs), "options": {
                "precision": options.precision, "input_shapes": {n: list(s) for n, s in options.input_shapes}}}


def make_report(imported, target, plan: Plan, builds, records, seconds, verification, options,
                tuning: dict | None = None) -> dict:
    types = dict(plan.types)
    tuning = tuning or {"info": {"status": "skipped", "reason": "not run", "times": "predicted"}, "measured": {}}
    measured = tuning["measured"]
    kernels = []
    total_pred = 0.0
    for k in plan.kernels():
        b = builds.get(k.digest, {})
        cfg = dict(k.config)
        pred = float(cfg["predicted_us"]) if "predicted_us" in cfg else predict_kernel_us(k, types, target)
        total_pred += pred + LAUNCH_US
        kernels.append({"digest": k.digest, "name": k.entry, "ops": list(k.ops), "config": dict(k.config),
                        "grid": list(k.grid), "block": list(k.block),
                        "shared_bytes": k.shared_bytes + int(b.get("static_shared", 0)),
                        "registers": int(b.get("registers", 0)), "spills": int(b.get("spills", 0)),
                        "predicted_us": round(pred, 3), "measured_us": measured.get(k.digest)})
    build_info = next((r.info for r in records if r.name == "build"), {})
    return {
        "format": 1, "compiler_version": __version__, "compiler_key": compiler_key(),
        "model": {"sha256": imported.model_sha256, "name": imported.name},
        "target": {"name": target.name, "arch": target.arch}, "precision": options.precision,
        "compile": {"seconds": seconds, "stages": [{"name": r.name, "seconds": r.seconds} for r in records],
                    "cache": {"hits": build_info.get("hits", 0), "misses": build_info.get("misses", 0)}},
        "kernels": kernels,
        "latency": {"predicted_us": round(total_pred, 3), "measured_us": None, "device": None},
        "launches_per_inference": len(kernels),
        "verification": verification,
        "ops": imported.graph.op_histogram(),
        "times": tuning["info"].get("times", "predicted"),   # kernel times: "measured" or "predicted"
        "tune": tuning["info"],
    }
