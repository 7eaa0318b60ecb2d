"""GPU targets: frozen hardware descriptions and the presets users name (`--target h100`)."""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from ..errors import TargetError
from ..ir.graph import _fields_key


@dataclass(frozen=True)
class Target:
    """What the compiler needs to know about a GPU. Bandwidths in GB/s, throughputs in TFLOP/s."""

    name: str
    arch: str                       # "sm_90"
    sms: int
    warp_size: int = 32
    max_threads_per_block: int = 1024
    max_threads_per_sm: int = 2048
    registers_per_sm: int = 65536
    registers_per_block: int = 65536
    max_registers_per_thread: int = 255
    shared_per_sm: int = 228 * 1024
    shared_per_block: int = 227 * 1024
    l2_bytes: int = 50 * 1024 * 1024
    transaction_bytes: int = 32
    shared_banks: int = 32
    dram_gbps: float = 3350.0
    l2_gbps: float = 10000.0
    shared_gbps_per_sm: float = 128 * 1.98
    fp32_tflops: float = 67.0
    fp16_tc_tflops: float = 990.0
    bf16_tc_tflops: float = 990.0
    tf32_tc_tflops: float = 495.0
    int8_tc_tops: float = 1980.0
    mma_shapes: tuple[tuple[int, int, int], ...] = ((16, 8, 16),)
    # What Roller's construction and micro-model need beyond the headline numbers.
    max_blocks_per_sm: int = 32
    shared_per_block_default: int = 48 * 1024   # without the opt-in launch attribute
    register_alloc_unit: int = 256               # registers are allocated per warp in these units
    shared_alloc_unit: int = 128                 # shared memory per block rounds up to this
    fp64_tflops: float = 34.0                    # SIMT
    fp16_tflops: float = 134.0                   # SIMT, half2
    int32_tops: float = 33.5                     # SIMT integer multiply-add
    dram_latency_ns: float = 600.0
    # an L2 hit as a pipelined k-loop waits for it (load, wait, barrier): an estimate of a few
    # hundred cycles until a GPU run calibrates it (the kernel suite's GEMMs at 2 against 4 stages)
    l2_latency_ns: float = 300.0
    launch_us: float = 2.0
    # What a compilation must fit: device memory (weights + arena + inputs and outputs) and launch limits.
    memory_bytes: int = 80 * 1024**3
    max_grid: tuple[int, int, int] = (2**31 - 1, 65535, 65535)

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    def __hash__(self) -> int:
        # the searches key their memos by target thousands of times: its digest's hash, once,
        # rather than the dataclass's hash of every field each time (equality stays field-wise)
        return hash(self.key)

    @property
    def compute_capability(self) -> tuple[int, int]:
        n = int(self.arch.split("_")[1].rstrip("a"))
        return n // 10, n % 10

    def describe(self) -> dict:
        return dataclasses.asdict(self)

    @property
    def sm_version(self) -> int:
        major, minor = self.compute_capability
        return major * 10 + minor

    @property
    def has_cp_async(self) -> bool:
        return self.sm_version >= 80

    def simt_tflops(self, dtype_name: str) -> float:
        """Peak SIMT throughput (TFLOP/s or TOP/s, multiply-add = 2) for a compute type."""
        return {"float64": self.fp64_tflops, "float16": self.fp16_tflops, "bfloat16": self.fp16_tflops,
                "float32": self.fp32_tflops}.get(dtype_name, self.int32_tops)

    def tensor_core_tflops(self, dtype_name: str) -> float:
        """Peak tensor-core throughput for an input type (0 where the target has none)."""
        return {"float16": self.fp16_tc_tflops, "bfloat16": self.bf16_tc_tflops, "float32": self.tf32_tc_tflops,
                "int8": self.int8_tc_tops, "uint8": self.int8_tc_tops}.get(dtype_name, 0.0)

    def mma_shape(self, dtype_name: str) -> tuple[int, int, int] | None:
        """The mma.sync instruction shape (m, n, k) for an input type, or None."""
        if self.tensor_core_tflops(dtype_name) <= 0:
            return None
        if dtype_name in ("float16", "bfloat16"):
            return max(self.mma_shapes, key=lambda s: s[2])
        if dtype_name == "float32":
            return (16, 8, 8)
        return (16, 8, 32) if self.sm_version >= 80 else (8, 8, 16)


_AMPERE_MMA = ((16, 8, 16), (16, 8, 8))
GB = 1024**3   # boards are sold in GiB: an '80 GB' H100 has 80 GiB
_A100 = Target("a100", "sm_80", memory_bytes=80 * GB, fp64_tflops=9.7, fp16_tflops=78, int32_tops=19.5, sms=108, shared_per_sm=164 * 1024, shared_per_block=163 * 1024, l2_bytes=40 * 1024**2,
               dram_gbps=2039, l2_gbps=5120, shared_gbps_per_sm=128 * 1.41, fp32_tflops=19.5, fp16_tc_tflops=312,
               bf16_tc_tflops=312, tf32_tc_tflops=156, int8_tc_tops=624, mma_shapes=_AMPERE_MMA)
PRESETS: dict[str, Target] = {t.name: t for t in [
    Target("t4", "sm_75", memory_bytes=16 * GB, max_blocks_per_sm=16, fp64_tflops=0.25, fp16_tflops=65, int32_tops=8.1, dram_latency_ns=700, sms=40, max_threads_per_sm=1024, shared_per_sm=64 * 1024, shared_per_block=64 * 1024,
           l2_bytes=4 * 1024**2, dram_gbps=320, l2_gbps=1300, shared_gbps_per_sm=128 * 1.59, fp32_tflops=8.1,
           fp16_tc_tflops=65, bf16_tc_tflops=0, tf32_tc_tflops=0, int8_tc_tops=130, mma_shapes=((16, 8, 8),)),
    Target("a10g", "sm_86", memory_bytes=24 * GB, max_blocks_per_sm=16, fp64_tflops=0.49, fp16_tflops=31.2, int32_tops=15.6, sms=80, max_threads_per_sm=1536, shared_per_sm=100 * 1024, shared_per_block=99 * 1024,
           l2_bytes=6 * 1024**2, dram_gbps=600, l2_gbps=2500, shared_gbps_per_sm=128 * 1.71, fp32_tflops=31.2,
           fp16_tc_tflops=125, bf16_tc_tflops=125, tf32_tc_tflops=62.5, int8_tc_tops=250, mma_shapes=_AMPERE_MMA),
    _A100,
    dataclasses.replace(_A100, name="a100-40gb", memory_bytes=40 * GB, dram_gbps=1555),  # the HBM2 board
    Target("l4", "sm_89", memory_bytes=24 * GB, max_blocks_per_sm=24, fp64_tflops=0.47, fp16_tflops=30.3, int32_tops=15.1, sms=58, max_threads_per_sm=1536, shared_per_sm=100 * 1024, shared_per_block=99 * 1024,
           l2_bytes=48 * 1024**2, dram_gbps=300, l2_gbps=2000, shared_gbps_per_sm=128 * 2.04, fp32_tflops=30.3,
           fp16_tc_tflops=121, bf16_tc_tflops=121, tf32_tc_tflops=60, int8_tc_tops=242, mma_shapes=_AMPERE_MMA),
    Target("l40s", "sm_89", memory_bytes=48 * GB, max_blocks_per_sm=24, fp64_tflops=1.4, fp16_tflops=91.6, int32_tops=45.8, sms=142, max_threads_per_sm=1536, shared_per_sm=100 * 1024, shared_per_block=99 * 1024,
           l2_bytes=96 * 1024**2, dram_gbps=864, l2_gbps=5000, shared_gbps_per_sm=128 * 2.52, fp32_tflops=91.6,
           fp16_tc_tflops=362, bf16_tc_tflops=362, tf32_tc_tflops=183, int8_tc_tops=733, mma_shapes=_AMPERE_MMA),
    Target("rtx4090", "sm_89", memory_bytes=24 * GB, max_blocks_per_sm=24, fp64_tflops=1.3, fp16_tflops=82.6, int32_tops=41.3, sms=128, max_threads_per_sm=1536, shared_per_sm=100 * 1024, shared_per_block=99 * 1024,
           l2_bytes=72 * 1024**2, dram_gbps=1008, l2_gbps=5000, shared_gbps_per_sm=128 * 2.52, fp32_tflops=82.6,
           fp16_tc_tflops=330, bf16_tc_tflops=330, tf32_tc_tflops=83, int8_tc_tops=660, mma_shapes=_AMPERE_MMA),
    Target("h100", "sm_90", memory_bytes=80 * GB, fp64_tflops=34, fp16_tflops=134, int32_tops=33.5, sms=132, l2_bytes=50 * 1024**2, dram_gbps=3350, l2_gbps=10000,
           shared_gbps_per_sm=128 * 1.98, fp32_tflops=67, fp16_tc_tflops=990, bf16_tc_tflops=990,
           tf32_tc_tflops=495, int8_tc_tops=1980, mma_shapes=_AMPERE_MMA),
    Target("h200", "sm_90", memory_bytes=141 * GB, fp64_tflops=34, fp16_tflops=134, int32_tops=33.5, sms=132, l2_bytes=60 * 1024**2, dram_gbps=4800, l2_gbps=10000,
           shared_gbps_per_sm=128 * 1.98, fp32_tflops=67, fp16_tc_tflops=990, bf16_tc_tflops=990,
           tf32_tc_tflops=495, int8_tc_tops=1980, mma_shapes=_AMPERE_MMA),
    Target("b200", "sm_100", memory_bytes=180 * GB, fp64_tflops=40, fp16_tflops=160, int32_tops=40, sms=148, l2_bytes=126 * 1024**2, dram_gbps=8000, l2_gbps=20000,
           shared_gbps_per_sm=128 * 1.97, fp32_tflops=80, fp16_tc_tflops=2250, bf16_tc_tflops=2250,
           tf32_tc_tflops=1100, int8_tc_tops=4500, mma_shapes=_AMPERE_MMA),
    Target("rtx5090", "sm_120", memory_bytes=32 * GB, fp64_tflops=1.6, fp16_tflops=104.8, int32_tops=52.4, sms=170, max_threads_per_sm=1536, shared_per_sm=100 * 1024, shared_per_block=99 * 1024,
           l2_bytes=96 * 1024**2, dram_gbps=1792, l2_gbps=7000, shared_gbps_per_sm=128 * 2.41, fp32_tflops=104.8,
           fp16_tc_tflops=419, bf16_tc_tflops=419, tf32_tc_tflops=105, int8_tc_tops=838, mma_shapes=_AMPERE_MMA),
]}
SUPPORTED_ARCHS = ("sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_120")


def get_target(spec: str | dict | Target) -> Target:
    """A preset by name, or a full spec (dict of Target fields) checked for consistency."""
    if isinstance(spec, Target):
        return spec
    if isinstance(spec, str):
        t = PRESETS.get(spec.lower())
        if t is None:
            raise TargetError(f"unknown target '{spec}'", hint=f"use one of: {', '.join(PRESETS)}")
        return t
    if isinstance(spec, dict):
        names = {f.name for f in dataclasses.fields(Target)}
        unknown = set(spec) - names
        if unknown:
            raise TargetError(f"unknown target fields: {', '.join(sorted(unknown))}")
        for req in ("name", "arch", "sms"):
            if req not in spec:
                raise TargetError(f"target spec needs '{req}'")
        if spec["arch"] not in SUPPORTED_ARCHS:
            raise TargetError(f"unsupported arch '{spec['arch']}'", hint=f"use one of {', '.join(SUPPORTED_ARCHS)}")
        kw = {k: (tuple(tuple(x) for x in v) if k == "mma_shapes" else tuple(v) if k == "max_grid" else v)
              for k, v in spec.items()}
        try:
            t = Target(**kw)
        except TypeError as e:
            raise TargetError(f"bad target spec: {e}") from None
        if t.sms <= 0 or t.max_threads_per_block <= 0 or t.memory_bytes <= 0:
            raise TargetError("target spec: sms, max_threads_per_block and memory_bytes must be positive")
        if len(t.max_grid) != 3 or not all(isinstance(g, int) and g > 0 for g in t.max_grid):
            raise TargetError(f"target spec: max_grid must be three positive integers, not {list(t.max_grid)}")
        return t
    raise TargetError(f"a target is a preset name or a spec, not {type(spec).__name__}")
