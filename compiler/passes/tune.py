"""The tune stage (DESIGN stage 9), on the spec plan between roller and render: on a GPU of the
target's kind, each tiled spec's top-K configurations (`KernelSpec.candidates`, typed) are
rendered with the spec's kinds, built through the kernel cache, checked against the model's choice
and timed; the fastest becomes the spec's `config`, which the render stage then renders. Each
measurement is stored in the kernel cache under what the GPU runs (`tune_key`: the candidate
launches and their buffers' types, the toolchain, device and driver), never under value names: the
same contraction in each layer of a model is measured once per run, and never again on that device
and driver. Without a GPU, or on a GPU of another architecture, the stage
does nothing and says why: the micro-model's choice stands.

A candidate is rendered exactly as the render stage renders the spec with that configuration
chosen (`render_candidate`), so a measured time is keyed by the launch's digest and the report
finds it on the launch the render stage makes. Every candidate is one launch: tc_gemm's split-K
and reduce_split sum their slices inside their launch (the workspace is one more buffer of the
bench, and the plan gains or loses the workspace with the choice). An untiled one-stage spec
(naive) is measured alone, for the report.

The pure parts (candidates, rendering, cache keys, the gate, the choice) need no GPU; the
measuring part imports CuPy only when it runs."""
from __future__ import annotations

import dataclasses
import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from ..codegen.nvrtc import build_workers
from ..ir.kernel import Kernel
from ..errors import CompilerError, CudaCompileError, RuntimeFault
from .render import render_spec
from .roller import with_workspace
from ..ir.dataflow import all_types, rewrite
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec, Spec
from ..ir.texpr import TensorExpr
from ..targets import Target
from ..ir.tiles import KernelConfig

TUNE_FORMAT = 3   # 3: keyed by the launches measured, not by the spec (names)
# A candidate must beat the model's choice by this much (or by its own spread) to replace it.
MIN_GAIN = 0.02
# Candidates whose output differs from the model's choice by more than this are rejected.
TOLERANCE = {2: 2e-2, 4: 1e-3, 8: 1e-9}


# ---- pure parts ----------------------------------------------------------------------------------

def candidate_configs(spec: Spec) -> list[KernelConfig]:
    """The configurations the tuner chooses among, in the model's order (its choice first): the
    spec's candidates. None for an untiled or hand-written spec."""
    if not isinstance(spec, KernelSpec) or spec.config is None:
        return []
    return list(spec.candidates)


def with_config(spec: KernelSpec, cfg: KernelConfig) -> KernelSpec:
    """`spec` with `cfg` chosen (its kind too: the top K may mix kinds of one tier) and a workspace
    when `cfg` needs one (named here for rendering; replace_specs sizes it in the plan)."""
    return with_workspace(dataclasses.replace(spec, kind=cfg.kind, config=cfg), {})


def render_candidate(spec: KernelSpec, cfg: KernelConfig, target: Target) -> Kernel:
    """The launch the render stage makes of `spec` with `cfg` chosen."""
    (k,) = render_spec(with_config(spec, cfg), target)
    return k


def candidate_launches(spec: KernelSpec, configs: list[KernelConfig], target: Target) -> list[Kernel]:
    """The launches the tuner measures, in rank order: each configuration rendered, or the spec's
    own launch when it has none."""
    return [render_candidate(spec, c, target) for c in configs] if configs else list(render_spec(spec, target))


def tune_key(launches: list[Kernel], expr: TensorExpr, toolchain: str, device: str, driver: str) -> str:
    """The cache key of one measurement: what the GPU runs and nothing else -- each candidate launch
    in rank order (its source, grid, block, shared memory, tensor maps), the types of the buffers
    it runs on, the toolchain that builds it, and the device and driver that run it. Value and op
    names are in no part of it, so the same contraction in each of a model's layers is measured
    once (a spec's key names its values: BERT-base's 12 layers would be measured 12 times)."""
    parts = [f"brickyard-tune/{TUNE_FORMAT}", toolchain, device, driver,
             repr([(t.dtype.name, t.shape) for t in (*expr.inputs, expr.output)])]
    for k in launches:
        parts.append(repr((k.digest, k.grid, k.block, k.shared_bytes, k.cooperative, k.arch_specific,
                           k.tensor_maps)))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def tune_gate(target: Target, enabled: bool = True, build: bool = True) -> tuple[dict | None, str]:
    """(device info, "") when this process may tune for `target`, else (None, the reason)."""
    if not enabled:
        return None, "tuning switched off (tune=false)"
    if not build:
        return None, "no cubins are built (build=false)"
    from ..runtime.timing import device_info, gpu_presence
    ok, why = gpu_presence()
    if not ok:
        return None, why
    try:
        dev = device_info()
    except Exception as e:   # a driver that answers the count but not the properties
        return None, f"no usable GPU: {type(e).__name__}: {str(e)[:160]}"
    if dev["arch"] != target.arch:
        return None, f"the GPU ({dev['name']}, {dev['arch']}) does not match the target's {target.arch}"
    from ..targets.device_check import compare, device_properties
    try:
        dev["properties"] = device_properties()
        dev["target_mismatches"] = [m.line() for m in compare(target, dev["properties"])]
    except Exception as e:  # noqa: BLE001 - the check informs; tuning does not depend on it
        dev["target_mismatches"] = [f"device properties unreadable: {type(e).__name__}: {str(e)[:120]}"]
    return dev, ""


def replace_specs(plan: Plan, by_key: dict[str, KernelSpec]) -> Plan:
    """The plan with each spec in `by_key` (old spec key -> new spec) replaced, in every body; the
    workspace a new choice needs is sized in its plan's types (one it no longer needs leaves)."""
    def swap(step, types):
        if isinstance(step, ComputeStep) and step.spec.key in by_key:
            # the workspace keeps its name when the spec had one, else gets a fresh one
            new = dataclasses.replace(by_key[step.spec.key], workspace=step.spec.workspace)
            return ComputeStep(with_workspace(new, types))
        return step
    return rewrite(plan, swap)


def pick_fastest(results: list[dict]) -> dict | None:
    """The fastest correct candidate; the model's choice (rank 0) stays unless beaten by more
    than MIN_GAIN and the winner's own spread."""
    ok = [r for r in results if r.get("status") == "ok" and r.get("measured_us") is not None]
    if not ok:
        return None
    best = min(ok, key=lambda r: (r["measured_us"], r["rank"]))
    first = next((r for r in ok if r["rank"] == 0), None)
    if first is None or first is best:
        return best
    margin = max(MIN_GAIN, float(best.get("spread") or 0.0))
    return best if best["measured_us"] < first["measured_us"] * (1.0 - margin) else first


# ---- measuring (GPU) -----------------------------------------------------------------------------

def _random_buffer(cp, t, rng_seed: int):
    """A device array holding random values of TensorType t (integers 0: always a valid index)."""
    from ..ir.dtypes import DType
    n = max(1, int(t.size))
    rs = cp.random.RandomState(rng_seed)
    if t.dtype is DType.bfloat16:
        f = rs.standard_normal(n, dtype=cp.float32)
        return (f.view(cp.uint32) >> 16).astype(cp.uint16)
    if t.dtype.is_float:
        return rs.standard_normal(n, dtype=cp.float64 if t.dtype is DType.float64 else cp.float32).astype(t.dtype.np)
    if t.dtype is DType.bool:
        return rs.random_sample(n) < 0.5
    return cp.zeros(n, dtype=t.dtype.np)


def _storage(cp, dtype):
    """The CuPy dtype that holds a DType's bits (CuPy has no bfloat16: its bits as uint16)."""
    from ..ir.dtypes import DType
    return cp.uint16 if dtype is DType.bfloat16 else dtype.np


def _as_float64(cp, a, dtype):
    from ..ir.dtypes import DType
    if dtype is DType.bfloat16:
        return (a.view(cp.uint16).astype(cp.uint32) << 16).view(cp.float32).astype(cp.float64)
    return a.astype(cp.float64)


def _poison(cp, a, dtype) -> None:
    if dtype.is_float:
        a.view(cp.uint8).fill(255)       # all-ones bits: NaN in every float format
    else:
        a.view(cp.uint8).fill(0x5A)


def _rel_error(cp, got, ref, dtype) -> float:
    """||got - ref|| / ||ref|| over ref's finite elements; inf when a non-finite pattern differs."""
    g, r = _as_float64(cp, got, dtype), _as_float64(cp, ref, dtype)
    fin = cp.isfinite(r)
    if not bool(cp.all(cp.isfinite(g) == fin)):
        # NaN/inf must sit where the reference has them (NaN poison marks unwritten elements)
        same = cp.where(fin, True, (cp.isnan(r) & cp.isnan(g)) | (r == g))
        if not bool(cp.all(same & (cp.isfinite(g) == fin))):
            return float("inf")
    d = cp.where(fin, g - r, 0.0)
    num = float(cp.linalg.norm(d))
    den = float(cp.linalg.norm(cp.where(fin, r, 0.0)))
    return num / den if den > 0 else num


class CandidateBench:
    """Buffers for one expression's inputs and output (rotating input sets) and the candidates' timings."""

    def __init__(self, te: TensorExpr, arch: str, l2_bytes: int, seed: int = 0):
        import cupy
        from ..runtime.gpu import GpuBackend
        from ..runtime.timing import CupyClock, rotation_sets
        self.cp = cupy
        self.backend = GpuBackend(cubins={}, arch=arch)
        self.clock = CupyClock()
        self.in_types = list(te.inputs)
        self.out_type = te.output
        per_set = sum(t.nbytes for t in self.in_types) + self.out_type.nbytes
        self.sets = rotation_sets(per_set, l2_bytes, max_sets=16, max_bytes=1 << 30)
        self.args = []
        self.workspace = None
        for s in range(self.sets):
            ins = [_random_buffer(cupy, t, seed + 97 * s + j) for j, t in enumerate(self.in_types)]
            out = cupy.empty(max(1, self.out_type.size), dtype=_storage(cupy, self.out_type.dtype))
            self.args.append(ins + [out])
        cupy.cuda.runtime.deviceSynchronize()   # the clock's stream does not wait for the null stream

    def load(self, kernel: Kernel, cubin: bytes) -> None:
        self.backend.cubins[kernel.digest] = cubin
        self.backend.prepare([kernel])

    def _args(self, kernel: Kernel, i: int) -> list:
        """Input set i's buffers for `kernel`: a split-K launch's workspace (param before the
        output, fp32, every set sharing one) between the inputs and the output."""
        args = self.args[i]
        if len(kernel.params) == len(args):
            return args
        n = int(dict(kernel.config).get("ws_elems") or 0)
        if len(kernel.params) != len(args) + 1 or n <= 0:
            raise CompilerError(f"{kernel.entry}: {len(kernel.params)} buffers for {len(args)} the expression has, "
                                f"and no workspace size (ws_elems {n}) in its config")
        if self.workspace is None or self.workspace.size < n:
            self.workspace = self.cp.empty(n, dtype=self.cp.float32)
        return args[:-1] + [self.workspace[:n]] + args[-1:]

    def run_once(self, kernel: Kernel):
        """Output of one launch on input set 0, the output buffer poisoned first."""
        out = self.args[0][-1]
        with self.clock.active():
            _poison(self.cp, out, self.out_type.dtype)
            self.backend.launch(kernel, self._args(kernel, 0))
        self.clock.synchronize()
        self.cp.cuda.runtime.deviceSynchronize()     # surfaces a launch error here, not later
        return out.copy()

    def time(self, kernel: Kernel, **kw):
        from ..runtime.timing import measure
        n = self.sets
        sets = [self._args(kernel, i) for i in range(n)]

        def enqueue(i: int) -> None:
            self.backend.launch(kernel, sets[i % n])

        return measure(enqueue, self.clock, sets=n, **kw)

    def error(self, got, ref) -> float:
        return _rel_error(self.cp, got, ref, self.out_type.dtype)

    def close(self) -> None:
        self.args = []
        self.workspace = None
        self.cp.get_default_memory_pool().free_all_blocks()


TIMING = dict(warmup_ms=5.0, rep_ms=20.0, min_samples=5, max_samples=50, max_seconds=5.0)


def tune_plan(plan: Plan, target: Target, *, store, build: Callable[[Kernel], bytes], device: dict, toolchain: str,
              top_k: int | None = None, timing: dict | None = None) -> tuple[Plan, dict[str, float], dict]:
    """(spec plan with each tiled spec's fastest candidate as its config, launch digest -> measured
    us, record).

    `build(kernel)` returns a kernel's cubin through the kernel cache. Untiled one-stage specs are
    measured alone, for the report. A candidate that NVRTC rejects or whose output differs from the
    model's choice is recorded as rejected, never chosen; a device fault while running one is raised."""
    timing = dict(TIMING, **(timing or {}))
    name, driver = device["name"], device["driver"]
    types = all_types(plan)
    specs = {}
    for s in plan.specs():
        if s.key not in specs and _measurable(s, types):
            specs[s.key] = s
    replaced: dict[str, KernelSpec] = {}
    measured: dict[str, float] = {}
    records = []
    hits = shared = n_measured = 0
    this_run: dict[str, dict] = {}       # tune key -> record, for the specs that repeat a launch set
    workers = build_workers()
    for skey, spec in specs.items():
        t0 = time.perf_counter()
        configs = candidate_configs(spec)
        if top_k is not None:
            configs = configs[:max(1, top_k)]
        launches = candidate_launches(spec, configs, target)
        key = tune_key(launches, spec.expr, toolchain, name, driver)
        cached = this_run.get(key)
        if cached is not None:
            shared += 1
            rec = dict(cached, cached=True)
        elif store is not None and (cached := store.get_ref(key)) is not None and cached.get("format") == TUNE_FORMAT:
            hits += 1
            rec = this_run[key] = dict(cached, cached=True)
        else:
            rec = _measure_spec(spec, configs, launches, target, device, timing, build, workers)
            rec.update(format=TUNE_FORMAT, device=name, driver=driver, toolchain=toolchain,
                       measured_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            n_measured += sum(1 for c in rec["candidates"] if c.get("measured_us") is not None)
            if store is not None:
                store.put_ref(key, rec)
            rec = this_run[key] = dict(rec, cached=False)
        chosen = rec.get("chosen")
        new = spec
        if chosen and configs and chosen != spec.config.key[:16]:
            cfg = next((c for c in configs if c.key[:16] == chosen), None)
            if cfg is None:
                raise CompilerError(f"spec {spec.name}: the cached choice {chosen} is not among its candidates")
            new = replaced[skey] = with_config(spec, cfg)
        # the launches the render stage makes of the spec as it came and as chosen (rendered above)
        rank = {c.key[:16]: i for i, c in enumerate(configs)}
        own = rank.get(spec.config.key[:16]) if configs else None
        before = launches[own] if own is not None else render_spec(spec, target)[0]
        after = launches[rank[chosen]] if new is not spec else before
        us = rec.get("chosen_us")
        if us is not None:    # the launch the render stage will make of the chosen configuration
            measured[after.digest] = float(us)
        records.append({"name": after.entry, "digest_before": before.digest, "digest": after.digest,
                        "model_choice": rec.get("model_choice"), "chosen": chosen,
                        "measured_us": us, "model_choice_us": rec.get("model_choice_us"),
                        "predicted_us": dict(after.config).get("predicted_us"), "cached": rec["cached"],
                        "tune_key": key[:16], "seconds": round(time.perf_counter() - t0, 4),
                        "phases": rec.get("phases"), "candidates": rec["candidates"]})
    plan = replace_specs(plan, replaced) if replaced else plan
    info = {"status": "measured", "times": "measured", "device": name, "driver": driver,
            "kernels": len(specs), "tuned": sum(1 for r in records if len(r["candidates"]) > 1),
            "changed": len(replaced), "distinct": len(this_run), "cache_hits": hits, "shared": shared,
            "candidates_measured": n_measured,
            "kernel_records": records}
    return plan, measured, info


def _measurable(spec, types: dict) -> bool:
    """Whether a spec renders as one launch whose buffers are its expression's inputs and output
    (and a split's workspace, which the bench adds), so that the tuner's buffers, made from the
    expression, are the right size: not true of a multi-stage spec, nor of a hand-written kernel."""
    if not isinstance(spec, KernelSpec) or not spec.composable:
        return False
    stage = spec.stage
    te = stage.expr
    for value, t in zip((*stage.inputs, stage.output), (*te.inputs, te.output)):
        have = types.get(value)
        if have is None or have.dtype != t.dtype or have.nbytes != t.nbytes:
            return False
    return True


def _measure_spec(spec: KernelSpec, configs, launches: list[Kernel], target: Target, device, timing, build,
                  workers) -> dict:
    """Builds, checks and times one spec's candidate launches (its launch alone when it has none);
    `phases` says where the seconds went (building, buffers, checking and timing)."""
    t0 = time.perf_counter()
    keys = [c.key[:16] for c in configs] or [None]
    cands = [(rank, key, float(dict(kern.config).get("predicted_us", 0.0) or 0.0), kern)
             for rank, (key, kern) in enumerate(zip(keys, launches))]

    def one(c):
        try:
            return c, build(c[3]), None
        except CudaCompileError as e:
            return c, None, f"build failed: {str(e)[:200]}"

    with ThreadPoolExecutor(max_workers=workers) as pool:
        built = list(pool.map(one, cands))
    t1 = time.perf_counter()
    bench = CandidateBench(spec.expr, device["arch"], int(device.get("l2_bytes") or target.l2_bytes))
    t2 = time.perf_counter()
    check_s = 0.0
    results = []
    ref = None
    try:
        for (rank, key, pred, kern), cubin, why in built:
            r = {"rank": rank, "key": key, "digest": kern.digest, "predicted_us": round(pred, 4),
                 "measured_us": None, "status": "ok"}
            if cubin is None:
                r["status"] = why
                results.append(r)
                continue
            tc = time.perf_counter()
            try:
                bench.load(kern, cubin)
                out = bench.run_once(kern)
            except Exception as e:
                raise RuntimeFault(f"tuning {spec.name}: candidate {key} failed on the device: "
                                   f"{type(e).__name__}: {str(e)[:200]}") from e
            if ref is None:
                ref = out              # the first built candidate (the model's choice) is the reference
                r["error"] = 0.0
            else:
                err = bench.error(out, ref)
                r["error"] = err if err != float("inf") else None
                dt = bench.out_type.dtype
                tol = TOLERANCE.get(dt.itemsize, 1e-3) if dt.is_float else 0.0
                if not (err <= tol):
                    r["status"] = f"output differs from the model's choice (rel. error {err:.3g} > {tol:g})"
                    results.append(r)
                    check_s += time.perf_counter() - tc
                    continue
            check_s += time.perf_counter() - tc
            t = bench.time(kern, **timing)
            r.update(measured_us=round(t.median_us, 4), spread=round(t.spread, 4), method=t.method,
                     samples=t.samples, inner=t.inner, sets=t.sets)
            if t.note:
                r["note"] = t.note
            results.append(r)
    finally:
        bench.close()
    t3 = time.perf_counter()
    best = pick_fastest(results)
    first = next((r for r in results if r["rank"] == 0), None)
    phases = {"build_s": t1 - t0, "buffers_s": t2 - t1, "check_s": check_s, "time_s": t3 - t2 - check_s}
    return {"candidates": results, "chosen": best["key"] if best else None,
            "phases": {n: round(v, 4) for n, v in phases.items()},
            "chosen_us": best["measured_us"] if best else None,
            "model_choice": first["key"] if first else None,
            "model_choice_us": first["measured_us"] if first else None}
