"""The tune stage (DESIGN stage 9): on a GPU of the target's kind, each tiled kernel's top-K
configurations (kept by the roller stage on `Kernel.config["top_k"]`) are rendered, built,
checked against the model's first choice and timed; the fastest is kept. Each measurement is
stored in the kernel cache under (kernel, candidates, toolchain, device, driver), so the same
kernel on the same device and driver is never measured twice. Without a GPU, or on a GPU of
another architecture, the stage does nothing and says why: the micro-model's choice stands.

The pure parts (candidate enumeration, re-rendering, cache keys, the gate) need no GPU; the
measuring part imports CuPy only when it runs."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from ..ir.kernel import Kernel
from ..errors import CompilerError, CudaCompileError, RuntimeFault
from .render import render_candidate as render_config_kernel
from .roller import DEFAULT_TOP_K
from ..ir.dataflow import all_types, rewrite
from ..ir.plan import LaunchStep, Plan
from ..targets import Target
from ..kinds import construct_rtiles
from ..roller.micro_model import predict
from ..ir.tiles import KernelConfig

TUNE_FORMAT = 1
# A candidate must beat the model's choice by this much (or by its own spread) to replace it.
MIN_GAIN = 0.02
# Candidates whose output differs from the model's choice by more than this are rejected.
TOLERANCE = {2: 2e-2, 4: 1e-3, 8: 1e-9}


# ---- pure parts ----------------------------------------------------------------------------------

def stored_top_k(kernel: Kernel) -> list[dict]:
    """The top-K summaries the roller stage left on a kernel (empty for untiled kernels)."""
    raw = dict(kernel.config).get("top_k")
    return json.loads(raw) if raw else []


def kernel_precision(kernel: Kernel) -> str | None:
    """The precision a launch's configurations were constructed for: the precision stage's mark
    (tf32, fp16, bf16), None when unmarked (the construction infers it, so a contraction of
    fp16/bf16 tensors gets tensor cores under fp32 too). Candidates are rebuilt with the same rule."""
    return dict(kernel.config).get("precision")


def _split(cfg: KernelConfig) -> int:
    return int(cfg.param("split_k", 1) or 1)


def candidate_configs(kernel: Kernel, target: Target) -> list[KernelConfig]:
    """The kernel's top-K configurations, rebuilt from its expression, in the model's order.

    Construction is deterministic, so the configurations are the ones the roller stage ranked;
    each is matched to the stored summary by its key (a mismatch means another target). Split-K
    configurations are left out: they launch twice, through a workspace, and are not
    interchangeable with a single launch."""
    top = stored_top_k(kernel)
    if not top or kernel.expr is None:
        return []
    n = max(len(top), DEFAULT_TOP_K)
    made = construct_rtiles(kernel.expr, target, n, kernel_precision(kernel))     # the roller stage's rule
    built = {c.key[:16]: c for c in made}
    missing = [d["key"] for d in top if d["key"] not in built]
    if missing:
        raise CompilerError(f"kernel {kernel.entry}: {len(missing)} of its top-{len(top)} configurations "
                            f"are not constructed for target {target.name}",
                            hint="tune with the target the kernel was compiled for")
    return [built[d["key"]] for d in top if _split(built[d["key"]]) == 1]


def render_candidate(kernel: Kernel, config: KernelConfig, target: Target) -> Kernel:
    """`kernel` re-rendered with `config` (same parameters, same top-K list, config fields updated)."""
    te = kernel.expr
    ins = tuple(p.value for p in kernel.params[:-1])
    out = kernel.params[-1].value
    k = render_config_kernel(te, config, te.name, out, ins)
    pred = predict(config, target)
    updates = {"schedule": f"roller_{config.kind}", "config_key": config.key[:16], "tiles": config.text(),
               **dict(config.params), "predicted_us": round(pred.us, 4),
               "model": json.dumps(pred.as_dict(), sort_keys=True)}
    fields = []
    for name, value in kernel.config:
        fields.append((name, updates.pop(name) if name in updates else value))
    fields.extend(updates.items())
    return dataclasses.replace(k, ops=kernel.ops, config=tuple(fields))


def tune_key(kernel: Kernel, toolchain: str, device: str, driver: str) -> str:
    """The cache key of one kernel's measurement: its source, its candidates, the toolchain that
    builds them, and the device and driver that ran them."""
    top = dict(kernel.config).get("top_k", "")
    parts = [f"brickyard-tune/{TUNE_FORMAT}", kernel.digest, hashlib.sha256(str(top).encode()).hexdigest(),
             toolchain, device, driver]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def tune_gate(target: Target, enabled: bool = True, build: bool = True) -> tuple[dict | None, str]:
    """(device info, "") when this process may tune for `target`, else (None, the reason)."""
    if not enabled:
        return None, "tuning switched off (tune=false)"
    if not build:
        return None, "no cubins were built (build=false)"
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


def replace_kernels(plan: Plan, by_digest: dict[str, Kernel]) -> Plan:
    """The plan with each launch of a kernel in `by_digest` (old digest -> new kernel) replaced."""
    def swap(step, types):
        if isinstance(step, LaunchStep) and step.kernel.digest in by_digest:
            return LaunchStep(by_digest[step.kernel.digest])
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
    """Buffers for one kernel signature (rotating input sets) and the candidates' timings."""

    def __init__(self, kernel: Kernel, arch: str, l2_bytes: int, seed: int = 0):
        import cupy
        from ..runtime.gpu import GpuBackend
        from ..runtime.timing import CupyClock, rotation_sets
        self.cp = cupy
        self.backend = GpuBackend(cubins={}, arch=arch)
        self.clock = CupyClock()
        te = kernel.expr
        self.in_types = list(te.inputs)
        self.out_type = te.output
        per_set = sum(t.nbytes for t in self.in_types) + self.out_type.nbytes
        self.sets = rotation_sets(per_set, l2_bytes, max_sets=16, max_bytes=1 << 30)
        self.args = []
        for s in range(self.sets):
            ins = [_random_buffer(cupy, t, seed + 97 * s + j) for j, t in enumerate(self.in_types)]
            out = cupy.empty(max(1, self.out_type.size), dtype=_storage(cupy, self.out_type.dtype))
            self.args.append(ins + [out])
        cupy.cuda.runtime.deviceSynchronize()   # the clock's stream does not wait for the null stream

    def load(self, kernel: Kernel, cubin: bytes) -> None:
        self.backend.cubins[kernel.digest] = cubin
        self.backend.prepare([kernel])

    def run_once(self, kernel: Kernel):
        """Output of one launch on input set 0, the output buffer poisoned first."""
        out = self.args[0][-1]
        with self.clock.active():
            _poison(self.cp, out, self.out_type.dtype)
            self.backend.launch(kernel, self.args[0])
        self.clock.synchronize()
        self.cp.cuda.runtime.deviceSynchronize()     # surfaces a launch error here, not later
        return out.copy()

    def time(self, kernel: Kernel, **kw):
        from ..runtime.timing import measure
        args = self.args
        n = self.sets

        def enqueue(i: int) -> None:
            self.backend.launch(kernel, args[i % n])

        return measure(enqueue, self.clock, sets=n, **kw)

    def error(self, got, ref) -> float:
        return _rel_error(self.cp, got, ref, self.out_type.dtype)

    def close(self) -> None:
        self.args = []
        self.cp.get_default_memory_pool().free_all_blocks()


TIMING = dict(warmup_ms=5.0, rep_ms=20.0, min_samples=5, max_samples=50, max_seconds=5.0)


def tune_plan(plan: Plan, target: Target, *, store, build: Callable[[Kernel], bytes],
              cubins: dict[str, bytes], device: dict, toolchain: str, top_k: int | None = None,
              timing: dict | None = None) -> tuple[Plan, dict[str, float], dict]:
    """(plan with the fastest candidate of each tiled kernel, digest -> measured us, record).

    `build(kernel)` returns a kernel's cubin through the kernel cache; `cubins` holds those the
    build stage made. Kernels rendered from an expression but not tiled are measured alone, for
    the report. A candidate that NVRTC rejects or whose output differs from the model's choice is
    recorded as rejected, never chosen; a device fault while running one is raised."""
    timing = dict(TIMING, **(timing or {}))
    if device.get("properties"):  # candidates sized for this board (its SMs, its shared memory)
        from ..targets.device_check import corrected
        target = corrected(target, device["properties"])
    name, driver = device["name"], device["driver"]
    kernels = {}
    types = _all_types(plan)
    for k in plan.kernels():
        if k.digest not in kernels and _measurable(k, types):
            kernels[k.digest] = k
    replaced: dict[str, Kernel] = {}
    measured: dict[str, float] = {}
    records = []
    hits = n_measured = 0
    workers = max(1, min(8, os.cpu_count() or 1))
    for digest, k in kernels.items():
        t0 = time.perf_counter()
        key = tune_key(k, toolchain, name, driver)
        configs = candidate_configs(k, target)
        if top_k is not None:
            configs = configs[:max(1, top_k)]
        cached = store.get_ref(key) if store is not None else None
        if cached is not None and cached.get("format") == TUNE_FORMAT:
            hits += 1
            rec = dict(cached, cached=True)
        else:
            rec = _measure_kernel(k, configs, target, build, cubins, device, timing, workers)
            rec.update(format=TUNE_FORMAT, device=name, driver=driver, toolchain=toolchain,
                       measured_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            n_measured += sum(1 for c in rec["candidates"] if c.get("measured_us") is not None)
            if store is not None:
                store.put_ref(key, rec)
            rec = dict(rec, cached=False)
        chosen = rec.get("chosen")
        new = k
        if chosen and configs and chosen != dict(k.config).get("config_key"):
            cfg = next((c for c in configs if c.key[:16] == chosen), None)
            if cfg is None:
                raise CompilerError(f"kernel {k.entry}: the cached choice {chosen} is not among its candidates")
            new = render_candidate(k, cfg, target)
            replaced[digest] = new
        us = rec.get("chosen_us")
        if us is not None:
            measured[new.digest] = float(us)
        records.append({"name": k.entry, "digest_before": digest, "digest": new.digest,
                        "model_choice": rec.get("model_choice"), "chosen": chosen,
                        "measured_us": us, "model_choice_us": rec.get("model_choice_us"),
                        "predicted_us": dict(new.config).get("predicted_us"), "cached": rec["cached"],
                        "seconds": round(time.perf_counter() - t0, 4), "candidates": rec["candidates"]})
    plan = replace_kernels(plan, replaced) if replaced else plan
    info = {"status": "measured", "times": "measured", "device": name, "driver": driver,
            "kernels": len(kernels), "tuned": sum(1 for r in records if len(r["candidates"]) > 1),
            "changed": len(replaced), "cache_hits": hits, "candidates_measured": n_measured,
            "kernel_records": records}
    return plan, measured, info


def _all_types(plan: Plan) -> dict:
    """Value name -> TensorType over the plan and its regions' bodies."""
    return all_types(plan)


def _measurable(k: Kernel, types: dict) -> bool:
    """Whether a kernel's buffers are exactly its expression's inputs and output (so that the
    tuner's buffers, made from the expression, are the right size): not true of a split-K
    kernel, whose output is a workspace, nor of hand-written kernels."""
    te = k.expr
    if te is None or len(k.params) != len(te.inputs) + 1:
        return False
    for p, t in zip(k.params, (*te.inputs, te.output)):
        have = types.get(p.value)
        if have is None or have.dtype != t.dtype or have.nbytes != t.nbytes:
            return False
    return _split_of(k) == 1


def _split_of(k: Kernel) -> int:
    return int(dict(k.config).get("split_k", 1) or 1)


def _measure_kernel(k: Kernel, configs, target: Target, build, cubins, device, timing, workers) -> dict:
    """Builds, checks and times one kernel's candidates (the kernel alone when it has none)."""
    if configs:
        cands = []
        for rank, cfg in enumerate(configs):
            kern = k if cfg.key[:16] == dict(k.config).get("config_key") else render_candidate(k, cfg, target)
            cands.append((rank, cfg.key[:16], float(dict(kern.config).get("predicted_us", 0.0)), kern))
    else:
        cands = [(0, None, float(dict(k.config).get("predicted_us", 0.0) or 0.0), k)]

    def one(c):
        rank, key, pred, kern = c
        if kern.digest in cubins:
            return c, cubins[kern.digest], None
        try:
            return c, build(kern), None
        except CudaCompileError as e:
            return c, None, f"build failed: {str(e)[:200]}"

    with ThreadPoolExecutor(max_workers=workers) as pool:
        built = list(pool.map(one, cands))
    bench = CandidateBench(k, device["arch"], int(device.get("l2_bytes") or target.l2_bytes))
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
            try:
                bench.load(kern, cubin)
                out = bench.run_once(kern)
            except Exception as e:
                raise RuntimeFault(f"tuning {k.entry}: candidate {key} failed on the device: "
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
                    continue
            t = bench.time(kern, **timing)
            r.update(measured_us=round(t.median_us, 4), spread=round(t.spread, 4), method=t.method,
                     samples=t.samples, inner=t.inner, sets=t.sets)
            if t.note:
                r["note"] = t.note
            results.append(r)
    finally:
        bench.close()
    best = pick_fastest(results)
    first = next((r for r in results if r["rank"] == 0), None)
    return {"candidates": results, "chosen": best["key"] if best else None,
            "chosen_us": best["measured_us"] if best else None,
            "model_choice": first["key"] if first else None,
            "model_choice_us": first["measured_us"] if first else None}
