"""Device timing (METHOD.md): CUDA events around the region, warm-up first, the median of many
samples, input sets rotated so that repeated runs do not measure the L2 cache, and launches
replayed from a CUDA graph where capture works so that launch gaps stay out of the numbers.

Needs a GPU only when a clock is made; importing this module needs neither CuPy nor PyTorch."""
from __future__ import annotations

import math
import statistics
import subprocess
import time
from dataclasses import asdict, dataclass
from typing import Callable

# A sample shorter than this is dominated by event resolution (~0.5 us): batch launches up to it.
MIN_SAMPLE_US = 200.0
# The most runs batched into one sample: a very short kernel (est. under MIN_SAMPLE_US / MAX_INNER,
# 0.1 us) gets samples shorter than MIN_SAMPLE_US rather than ever more launches per sample.
MAX_INNER = 2000


@dataclass(frozen=True)
class Timing:
    """One measurement: per-run microseconds (median and spread over samples) and how it was taken."""

    median_us: float
    min_us: float
    p20_us: float
    p80_us: float
    samples: int        # event pairs
    inner: int          # runs per event pair
    sets: int           # rotating input sets
    method: str         # "graph" (replayed CUDA graph) or "stream" (launched one by one)
    note: str = ""

    @property
    def spread(self) -> float:
        """(p80 - p20) / median: how noisy the samples were."""
        return (self.p80_us - self.p20_us) / self.median_us if self.median_us > 0 else math.inf

    def as_dict(self) -> dict:
        d = asdict(self)
        d["spread"] = round(self.spread, 4) if math.isfinite(self.spread) else None
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in d.items()}


def rotation_sets(bytes_per_set: int, l2_bytes: int, *, max_sets: int = 32,
                  max_bytes: int = 4 << 30) -> int:
    """How many input sets to rotate so that between two uses of one set at least twice the L2
    has been touched (1 when one set alone overflows the L2 four times)."""
    b = max(1, int(bytes_per_set))
    if b >= 4 * l2_bytes:
        return 1
    n = 1 + math.ceil(2 * l2_bytes / b)
    n = min(n, max_sets, max(1, max_bytes // b))
    return max(1, n)


def percentile(xs: list[float], q: float) -> float:
    """Linear-interpolated percentile of a non-empty list (q in [0, 1])."""
    s = sorted(xs)
    if len(s) == 1:
        return s[0]
    pos = q * (len(s) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summarize(per_run_us: list[float], inner: int, sets: int, method: str, note: str = "") -> Timing:
    """A Timing from per-run times of each sample."""
    return Timing(median_us=statistics.median(per_run_us), min_us=min(per_run_us),
                  p20_us=percentile(per_run_us, 0.2), p80_us=percentile(per_run_us, 0.8),
                  samples=len(per_run_us), inner=inner, sets=sets, method=method, note=note)


def plan_samples(est_us: float, sets: int, rep_ms: float, min_samples: int, max_samples: int) -> tuple[int, int]:
    """(runs per sample, samples): each sample at least MIN_SAMPLE_US and a whole number of
    rotations of the input sets; as many samples as fit in rep_ms, within the bounds."""
    est_us = max(est_us, 0.05)
    inner = max(1, math.ceil(MIN_SAMPLE_US / est_us))
    inner = min(MAX_INNER, sets * math.ceil(inner / sets))
    inner = max(inner, sets)
    samples = int(rep_ms * 1000.0 / (inner * est_us))
    return inner, max(min_samples, min(max_samples, samples))


class CupyClock:
    """CUDA events and graph capture through CuPy, on a dedicated non-blocking stream."""

    name = "cupy"

    def __init__(self):
        import cupy
        self.cp = cupy
        self.stream = cupy.cuda.Stream(non_blocking=True)

    def active(self):
        """Context manager that makes the clock's stream current (work enqueued inside lands on it)."""
        return self.stream

    def event(self):
        return self.cp.cuda.Event()

    def record(self, ev) -> None:
        ev.record(self.stream)

    def elapsed_ms(self, a, b) -> float:
        return float(self.cp.cuda.get_elapsed_time(a, b))

    def synchronize(self) -> None:
        self.stream.synchronize()

    def capture(self, enqueue_all: Callable[[], None]) -> Callable[[], None]:
        """A replay function for the work `enqueue_all` enqueues (raises when capture fails)."""
        s = self.stream
        s.begin_capture()
        try:
            enqueue_all()
        except BaseException:
            try:
                s.end_capture()
            except Exception:
                pass
            raise
        graph = s.end_capture()
        return lambda: graph.launch(stream=s)


class TorchClock:
    """CUDA events and graph capture through PyTorch, on a side stream (peers run through it)."""

    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        self.stream = torch.cuda.Stream()
        self._graphs = []     # keep captured graphs (and their memory pools) alive while in use

    def active(self):
        return self.torch.cuda.stream(self.stream)

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def record(self, ev) -> None:
        ev.record(self.stream)

    def elapsed_ms(self, a, b) -> float:
        return float(a.elapsed_time(b))

    def synchronize(self) -> None:
        self.stream.synchronize()

    def capture(self, enqueue_all: Callable[[], None]) -> Callable[[], None]:
        g = self.torch.cuda.CUDAGraph()
        with self.torch.cuda.graph(g, stream=self.stream):
            enqueue_all()
        self._graphs.append(g)
        return g.replay

    def release(self) -> None:
        """Drops captured graphs so their private memory pools can be freed."""
        self._graphs.clear()


def measure(enqueue: Callable[[int], None], clock, *, sets: int = 1, warmup_ms: float = 10.0,
            rep_ms: float = 50.0, min_samples: int = 5, max_samples: int = 200, graph: bool = True,
            max_seconds: float = 30.0) -> Timing:
    """Times `enqueue(i)` (enqueue one run on input set i % sets; must not synchronize).

    Warm-up (at least one full rotation and `warmup_ms`), an estimate, then samples of `inner`
    runs between two events, replayed from a CUDA graph when capture works (else launched one by
    one, noted in `method`). Returns the per-run median and spread."""
    sets = max(1, int(sets))
    t_wall = time.perf_counter()
    with clock.active():
        clock.synchronize()
        for i in range(sets):                    # first touch: module load, handles, autotuning
            enqueue(i)
        clock.synchronize()
        # estimate from one rotation (at least 3 runs), events around it
        n0 = max(3, sets)
        a, b = clock.event(), clock.event()
        clock.record(a)
        for i in range(n0):
            enqueue(i)
        clock.record(b)
        clock.synchronize()
        est_us = max(clock.elapsed_ms(a, b) * 1000.0 / n0, 0.05)
        # the rest of the warm-up, bounded by time
        extra = min(int(warmup_ms * 1000.0 / est_us), 10 * MAX_INNER)
        budget_left = max_seconds - (time.perf_counter() - t_wall)
        extra = min(extra, int(max(0.0, budget_left) * 0.25e6 / est_us))
        for i in range(extra):
            enqueue(i)
        clock.synchronize()
        inner, samples = plan_samples(est_us, sets, rep_ms, min_samples, max_samples)
        # never plan past max_seconds (huge kernels): fewer samples, at least 3
        fit = int(max(0.0, max_seconds - (time.perf_counter() - t_wall)) * 1e6 / (inner * est_us))
        samples = max(3, min(samples, fit))
        method, note, replay = "stream", "", None
        if graph:
            def enqueue_all():
                for i in range(inner):
                    enqueue(i)
            try:
                replay = clock.capture(enqueue_all)
                replay()                           # first replay uploads the graph
                clock.synchronize()
                method = "graph"
            except Exception as e:                 # capture unsupported for this work: time launches
                replay = None
                note = f"graph capture failed ({type(e).__name__}: {str(e)[:120]}); launches timed one by one"
                clock.synchronize()
        events = [(clock.event(), clock.event()) for _ in range(samples)]
        for start, stop in events:
            clock.record(start)
            if replay is not None:
                replay()
            else:
                for i in range(inner):
                    enqueue(i)
            clock.record(stop)
        clock.synchronize()
    per_run = [clock.elapsed_ms(s, e) * 1000.0 / inner for s, e in events]
    return summarize(per_run, inner, sets, method, note)


def copy_bandwidth(nbytes: int = 1 << 30) -> dict:
    """Device-to-device copy bandwidth through CuPy (bytes read + bytes written per second)."""
    import cupy
    n = int(nbytes) // 4
    src = cupy.random.standard_normal(n, dtype=cupy.float32)
    dst = cupy.empty_like(src)
    clock = CupyClock()
    kind = cupy.cuda.runtime.memcpyDeviceToDevice

    def enqueue(i):
        cupy.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, n * 4, kind, clock.stream.ptr)

    t = measure(enqueue, clock, sets=1, warmup_ms=20.0, rep_ms=200.0, min_samples=10, max_samples=50)
    ok = bool(cupy.array_equal(dst, src))
    del src, dst
    cupy.get_default_memory_pool().free_all_blocks()
    return {"bytes": n * 4, "gbps": round(2 * n * 4 / (t.median_us * 1e-6) / 1e9, 1),
            "timing": t.as_dict(), "copy_correct": ok}


def gpu_presence() -> tuple[bool, str]:
    """(True, "") when CuPy imports and sees a device, else (False, why)."""
    try:
        import cupy
    except Exception as e:
        return False, f"no GPU: CuPy is not importable ({type(e).__name__})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return False, f"no GPU: {type(e).__name__}: {str(e)[:160]}"
    if n < 1:
        return False, "no GPU: no CUDA device"
    return True, ""


def driver_release() -> str:
    """The NVIDIA driver's release string (e.g. 580.159.04), or '' when nothing can tell."""
    try:
        import pynvml
        pynvml.nvmlInit()
        try:
            v = pynvml.nvmlSystemGetDriverVersion()
        finally:
            pynvml.nvmlShutdown()
        return v.decode() if isinstance(v, bytes) else str(v)
    except Exception:
        pass
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip().splitlines()[0].strip()
    except Exception:
        pass
    return ""


def device_info() -> dict:
    """Name, architecture, driver and CUDA versions, SMs and L2 of the current GPU (through CuPy)."""
    import cupy
    rt = cupy.cuda.runtime
    dev = cupy.cuda.Device()
    props = rt.getDeviceProperties(dev.id)
    name = props["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    cuda_driver = rt.driverGetVersion()
    cuda_runtime = rt.runtimeGetVersion()
    fmt = lambda v: f"{v // 1000}.{(v % 1000) // 10}"
    release = driver_release()
    return {"name": name, "arch": f"sm_{dev.compute_capability}",
            "driver": release or f"cuda-driver-{fmt(cuda_driver)}",
            "cuda_driver": fmt(cuda_driver), "cuda_runtime": fmt(cuda_runtime),
            "sms": int(props.get("multiProcessorCount", 0)), "l2_bytes": int(props.get("l2CacheSize", 0)),
            "memory_bytes": int(props.get("totalGlobalMem", 0))}
