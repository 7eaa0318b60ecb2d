"""Roller's micro-performance model: a kernel's time from its configuration's workload.

Per memory level, time = bytes moved / bandwidth (DRAM and L2 device-wide, shared memory per SM);
compute = operations / SIMT throughput, scaled by how well the resident warps hide latency.
Tensor-core workloads (compute_dtype "tc:<type>" for mma.sync, "wgmma:<type>" for Hopper
warpgroup mma) take the target's dense tensor-core peak instead (mma.sync only a fraction of it
on sm_90), with issue efficiency from the construction (mma vs. fragment and loader
instructions; kinds/wgmma_gemm.py for register-staged operands) and more bytes in flight per
warp for their 16-byte staged loads. Occupancy (blocks per SM, limited by threads, registers,
shared memory and the block limit) and waves (blocks over SMs x resident blocks) decide how much
of the machine the kernel uses. The kernel's time is the slowest level on the busiest SM (levels
overlap, as on the GPU), or, when longer, the pipeline's: a contraction's k-loop waits for its
k-tiles one round trip after another, S - 1 of them in flight, however many warps are resident
(Workload.serial_steps after the first, which the wave's latency term counts, x the L2
latency)."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..targets import Target
from ..ir.tiles import KernelConfig, Workload

# Warps x independent operations per SM needed to keep the FMA pipes busy (4 schedulers x ~4-cycle latency).
LATENCY_HIDING_OPS = 16
# Warps per SM whose outstanding loads saturate DRAM / L2 (Little's law at ~600 ns latency).
MEMORY_WARPS_PER_SM = 16
# Tensor-core kernels move their operands in 16-byte accesses (cp.async, vector loads) with k-tiles
# in flight across stages: a warp keeps about this many times a scalar SIMT warp's bytes in flight.
TC_BYTES_IN_FLIGHT = 4
# Estimates, to be checked on an H100/H200 (tests/gpu and bench/ have not measured them yet):
# mma.sync (warp-level, Ampere-style) on Hopper issues too slowly to reach the dense tensor peak
# the targets list, which wgmma reaches; we assume this fraction of it.
MMA_SYNC_PEAK_FRACTION_SM90 = 0.6


@dataclass(frozen=True)
class Prediction:
    """Predicted microseconds and the per-level breakdown that produced them."""

    us: float
    dram_us: float
    l2_us: float
    shared_us: float
    compute_us: float
    blocks_per_sm: int
    waves: int
    occupancy: float      # resident warps / max warps per SM
    bound: str            # the level that sets the time
    pipeline_us: float = 0.0   # the k-loops' serial round trips on the busiest SM

    def as_dict(self) -> dict:
        return {"us": round(self.us, 4), "dram_us": round(self.dram_us, 4), "l2_us": round(self.l2_us, 4),
                "shared_us": round(self.shared_us, 4), "compute_us": round(self.compute_us, 4),
                "blocks_per_sm": self.blocks_per_sm, "waves": self.waves,
                "occupancy": round(self.occupancy, 4), "bound": self.bound,
                "pipeline_us": round(self.pipeline_us, 4)}


def blocks_per_sm(w: Workload, target: Target) -> int:
    """Resident blocks per SM (0 when one block does not fit)."""
    return resident_blocks(w.threads, w.shared_bytes, w.registers, target)


@functools.lru_cache(maxsize=1 << 16)
def resident_blocks(threads: int, shared_bytes: int, registers: int, target: Target) -> int:
    """Blocks of `threads` threads, `shared_bytes` of shared memory and `registers` per thread
    one SM holds at once (0 when one block does not fit). Remembered: the searches price
    thousands of configurations that share a few block shapes."""
    warps = math.ceil(threads / target.warp_size)
    if threads > target.max_threads_per_block or shared_bytes > target.shared_per_block:
        return 0
    by_threads = target.max_threads_per_sm // max(1, warps * target.warp_size)
    regs_per_warp = math.ceil(max(1, registers) * target.warp_size / target.register_alloc_unit) \
        * target.register_alloc_unit
    if registers > target.max_registers_per_thread or regs_per_warp * warps > target.registers_per_block:
        return 0
    by_regs = target.registers_per_sm // (regs_per_warp * warps)
    if shared_bytes:
        unit = target.shared_alloc_unit
        by_smem = target.shared_per_sm // (math.ceil(shared_bytes / unit) * unit)
    else:
        by_smem = target.max_blocks_per_sm
    return max(0, min(target.max_blocks_per_sm, by_threads, by_regs, by_smem))


@functools.lru_cache(maxsize=256)
def sm_rate(compute_dtype: str, target: Target) -> tuple[float, bool]:
    """(operations per microsecond of one SM, whether on tensor cores) for a workload's
    compute_dtype: "tc:<input type>" mma.sync, "wgmma:<input type>" warpgroup mma, else SIMT."""
    if compute_dtype.startswith("tc:"):
        rate = target.tensor_core_tflops(compute_dtype[3:]) * 1e6 / target.sms
        return rate * (MMA_SYNC_PEAK_FRACTION_SM90 if target.sm_version == 90 else 1.0), True
    if compute_dtype.startswith("wgmma:"):
        return target.tensor_core_tflops(compute_dtype[6:]) * 1e6 / target.sms, True
    return target.simt_tflops(compute_dtype) * 1e6 / target.sms, False


def predict_workload(w: Workload, target: Target) -> Prediction:
    """Predicted time of a workload on `target` (inf when a block cannot be resident)."""
    per_sm = blocks_per_sm(w, target)
    if per_sm == 0 or w.blocks <= 0:
        return Prediction(math.inf, math.inf, math.inf, math.inf, math.inf, 0, 0, 0.0, "unlaunchable")
    busiest = math.ceil(w.blocks / target.sms)          # blocks the busiest SM runs
    resident = min(per_sm, busiest)                     # of them at once
    waves = math.ceil(busiest / per_sm)
    warps = math.ceil(w.threads / target.warp_size)
    active_sms = min(target.sms, w.blocks)
    occupancy = resident * warps * target.warp_size / target.max_threads_per_sm
    # compute on the busiest SM, with latency hiding from resident warps x independent accumulators
    hide = min(1.0, resident * warps * max(1.0, w.ilp) / LATENCY_HIDING_OPS) * max(0.05, w.issue_efficiency)
    sm_ops_per_us, tensor = sm_rate(w.compute_dtype, target)
    compute_us = (w.flops / w.blocks) * busiest / (sm_ops_per_us * hide)
    # memory levels: device-wide bandwidth, reached only with enough warps in flight
    if w.bytes_in_flight > 0:
        # Little's law: DRAM bandwidth x latency bytes must be in flight to reach the bandwidth
        need = target.dram_gbps * target.dram_latency_ns
        mlp = min(1.0, active_sms * resident * w.threads * w.bytes_in_flight / need)
    else:
        mem_warps = warps * (TC_BYTES_IN_FLIGHT if tensor else 1)
        mlp = min(1.0, active_sms * resident * mem_warps / (target.sms * MEMORY_WARPS_PER_SM))
    mlp = max(mlp, 1.0 / (target.sms * MEMORY_WARPS_PER_SM))
    dram_us = w.dram_bytes / (target.dram_gbps * 1e3 * mlp)
    l2_us = w.l2_bytes / (target.l2_gbps * 1e3 * mlp)
    shared_us = (w.shared_bytes_moved / w.blocks) * busiest / (target.shared_gbps_per_sm * 1e3)
    # the first round trip of a wave is the latency term below; the loop waits for the others
    pipeline_us = waves * max(0.0, w.serial_steps - 1.0) * target.l2_latency_ns * 1e-3
    # the slowest level, ties to the later name (as max over (time, name) pairs; without a key
    # function, as every search prices thousands of workloads)
    bound, top = "compute", compute_us
    for name, us in (("dram", dram_us), ("l2", l2_us), ("pipeline", pipeline_us), ("shared", shared_us)):
        if us >= top:
            bound, top = name, us
    # one DRAM round trip per wave that cannot be hidden behind another wave's work
    latency_us = waves * target.dram_latency_ns * 1e-3 * (1.0 if resident == 1 else 0.5)
    return Prediction(top + latency_us, dram_us, l2_us, shared_us, compute_us, per_sm, waves,
                      min(1.0, occupancy), bound, pipeline_us)


def predict(config: KernelConfig, target: Target) -> Prediction:
    """Predicted time of one configuration on `target`."""
    return predict_workload(config.workload, target)
