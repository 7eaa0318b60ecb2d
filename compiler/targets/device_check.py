"""A target checked against the GPU a worker really has: the numbers the construction and the model use,
compared with the device's properties (the tune gate reports any that differ), and a target corrected to
the device.

Properties are read with CuPy (cudaGetDeviceProperties: the field names below); the comparison is a
pure function of a properties dict, so it is tested without a GPU."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from . import Target

# Target field <- device property. Exact limits: a wrong value builds kernels the device rejects or
# leaves it idle. SMs and L2 also differ between boards of one chip (H100 PCIe 114 SMs, SXM 132).
EXACT_FIELDS = {
    "sms": "multiProcessorCount",
    "warp_size": "warpSize",
    "max_threads_per_block": "maxThreadsPerBlock",
    "max_threads_per_sm": "maxThreadsPerMultiProcessor",
    "registers_per_sm": "regsPerMultiprocessor",
    "registers_per_block": "regsPerBlock",
    "shared_per_sm": "sharedMemPerMultiprocessor",
    "shared_per_block": "sharedMemPerBlockOptin",
    "shared_per_block_default": "sharedMemPerBlock",
    "l2_bytes": "l2CacheSize",
    "max_blocks_per_sm": "maxBlocksPerMultiProcessor",
}


# Device memory: boards report a little less than the GiB they are sold with (an H100 80GB shows
# 81559 MiB); a difference beyond this fraction is another board (an H100 NVL has 94 GB).
MEMORY_TOLERANCE = 0.03


@dataclass(frozen=True)
class Mismatch:
    """One number where the preset and the device disagree."""

    field: str
    target_value: object
    device_value: object

    def line(self) -> str:
        return f"{self.field}: target {self.target_value}, device {self.device_value}"


def device_arch(props: dict) -> str:
    return f"sm_{int(props['major'])}{int(props['minor'])}"


def compare(target: Target, props: dict) -> list[Mismatch]:
    """Every field of EXACT_FIELDS (and the architecture) on which `target` and the device disagree.

    A property the driver did not report is skipped, not counted as a mismatch."""
    out = []
    if "major" in props and "minor" in props and device_arch(props) != target.arch.rstrip("a"):
        out.append(Mismatch("arch", target.arch, device_arch(props)))
    for field, prop in EXACT_FIELDS.items():
        if prop in props and props[prop] and int(props[prop]) != getattr(target, field):
            out.append(Mismatch(field, getattr(target, field), int(props[prop])))
    mem = int(props.get("totalGlobalMem") or 0)
    if mem and abs(mem - target.memory_bytes) > MEMORY_TOLERANCE * target.memory_bytes:
        out.append(Mismatch("memory_bytes", target.memory_bytes, mem))
    return out


def corrected(target: Target, props: dict) -> Target:
    """The target with the device's exact limits (same name: its real SM count and shared memory); the
    architecture must match, the throughputs stay the preset's."""
    bad_arch = [m for m in compare(target, props) if m.field == "arch"]
    if bad_arch:
        raise ValueError(f"target {target.name} is {target.arch}, the device is {bad_arch[0].device_value}")
    fixes = {m.field: m.device_value for m in compare(target, props)}
    return dataclasses.replace(target, **fixes) if fixes else target


def device_properties(device_id: int | None = None) -> dict:
    """The current GPU's properties (needs CuPy and a GPU)."""
    import cupy
    dev = cupy.cuda.Device(device_id) if device_id is not None else cupy.cuda.Device()
    props = dict(cupy.cuda.runtime.getDeviceProperties(dev.id))
    name = props.get("name", b"")
    props["name"] = name.decode() if isinstance(name, bytes) else str(name)
    return props
