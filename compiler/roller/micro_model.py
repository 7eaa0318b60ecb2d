"""Roller's micro-performance model: a kernel's time from its configuration's workload.

Per memory level, time = bytes moved / bandwidth (DRAM and L2 device-wide, shared memory per SM);
compute = operations / SIMT throughput, scaled by how well the resident warps hide latency.
Occupancy (blocks per SM, limited by threads, registers, shared memory and the block limit) and
waves (blocks over SMs x resident blocks) decide how much of the machine the kernel uses.
The kernel's time is the slowest level on the busiest SM (levels overlap, as on the GPU)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..targets import Target
from .rtile import KernelConfig, Workload

# Warps x independent operations per SM needed to keep the FMA pipes busy (4 schedulers x ~4-cycle latency).
LATENCY_HIDING_OPS = 16
# Warps per SM whose outstanding loads saturate DRAM / L2 (Little's law at ~600 ns latency).
MEMORY_WARPS_PER_SM = 16


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

    def as_dict(self) -> dict:
        return {"us": round(self.us, 4), "dram_us": round(self.dram_us, 4), "l2_us": round(self.l2_us, 4),
                "shared_us": round(self.shared_us, 4), "compute_us": round(self.compute_us, 4),
                "blocks_per_sm": self.blocks_per_sm, "waves": self.waves,
                "occupancy": round(self.occupancy, 4), "bound": self.bound}


def blocks_per_sm(w: Workload, target: Target) -> int:
    """Resident blocks per SM (0 when one block does not fit)."""
    warps = math.ceil(w.threads / target.warp_size)
    if w.threads > target.max_threads_per_block or w.shared_bytes > target.shared_per_block:
        return 0
    by_threads = target.max_threads_per_sm // max(1, warps * target.warp_size)
    regs_per_warp = math.ceil(max(1, w.registers) * target.warp_size / target.register_alloc_unit) \
        * target.register_alloc_unit
    if w.registers > target.max_registers_per_thread or regs_per_warp * warps > target.registers_per_block:
        return 0
    by_regs = target.registers_per_sm // (regs_per_warp * warps)
    if w.shared_bytes:
        unit = target.shared_alloc_unit
        by_smem = target.shared_per_sm // (math.ceil(w.shared_bytes / unit) * unit)
    else:
        by_smem = target.max_blocks_per_sm
    return max(0, min(target.max_blocks_per_sm, by_threads, by_regs, by_smem))


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
    sm_ops_per_us = target.simt_tflops(w.compute_dtype) * 1e6 / target.sms
    compute_us = (w.flops / w.blocks) * busiest / (sm_ops_per_us * hide)
    # memory levels: device-wide bandwidth, reached only with enough warps in flight
    mlp = min(1.0, active_sms * resident * warps / (target.sms * MEMORY_WARPS_PER_SM))
    mlp = max(mlp, 1.0 / (target.sms * MEMORY_WARPS_PER_SM))
    dram_us = w.dram_bytes / (target.dram_gbps * 1e3 * mlp)
    l2_us = w.l2_bytes / (target.l2_gbps * 1e3 * mlp)
    shared_us = (w.shared_bytes_moved / w.blocks) * busiest / (target.shared_gbps_per_sm * 1e3)
    levels = {"compute": compute_us, "dram": dram_us, "l2": l2_us, "shared": shared_us}
    bound = max(levels, key=lambda k: (levels[k], k))
    # one DRAM round trip per wave that cannot be hidden behind another wave's work
    latency_us = waves * target.dram_latency_ns * 1e-3 * (1.0 if resident == 1 else 0.5)
    return Prediction(levels[bound] + latency_us, dram_us, l2_us, shared_us, compute_us, per_sm, waves,
                      min(1.0, occupancy), bound)


def predict(config: KernelConfig, target: Target) -> Prediction:
    """Predicted time of one configuration on `target`."""
    return predict_workload(config.workload, target)


def with_registers(config: KernelConfig, registers: int) -> KernelConfig:
    """The configuration with ptxas's register count in place of the estimate."""
    import dataclasses
    return dataclasses.replace(config, workload=dataclasses.replace(config.workload, registers=registers))
