"""NVRTC driver: kernel source -> cubin for one architecture, with ptxas's resource report."""
from __future__ import annotations

import functools
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ..errors import CudaCompileError

PRELUDE_DIR = Path(__file__).parent


@functools.lru_cache(maxsize=1)
def device_prelude() -> str:
    """The device prelude with the common part inlined (one self-contained text)."""
    dev = (PRELUDE_DIR / "prelude_device.cuh").read_text()
    common = (PRELUDE_DIR / "prelude_common.h").read_text()
    return dev.replace('#include "prelude_common.h"', common)


@dataclass(frozen=True)
class BuildResult:
    """A cubin and what ptxas reported about the kernel."""

    cubin: bytes
    arch: str
    registers: int
    spills: int          # spill stores + loads, bytes
    shared_bytes: int    # static shared memory
    log: str


def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError:  # older cuda-python layout
        try:
            from cuda import nvrtc  # type: ignore
        except ImportError as e:
            raise CudaCompileError(
                "NVRTC is not available: install cuda-bindings and nvidia-cuda-nvrtc (make install)") from e
    return nvrtc


@functools.lru_cache(maxsize=1)
def nvrtc_version() -> str:
    nvrtc = _nvrtc()
    _, major, minor = nvrtc.nvrtcVersion()
    return f"{major}.{minor}"


def _check(result, what, prog=None, source="", opts=()):
    nvrtc = _nvrtc()
    err = result[0] if isinstance(result, tuple) else result
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        log = _log(prog) if prog is not None else ""
        raise CudaCompileError(f"NVRTC {what} failed: {err.name}", source=source, log=log,
                               repro=repro_command(opts))


def _log(prog) -> str:
    nvrtc = _nvrtc()
    _, n = nvrtc.nvrtcGetProgramLogSize(prog)
    buf = b" " * n
    nvrtc.nvrtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\x00 ").decode(errors="replace")


def repro_command(opts) -> str:
    return "nvcc -cubin " + " ".join(shlex.quote(o) for o in opts) + " kernel.cu  # kernel.cu = prelude + source"


def build_arch(arch: str, arch_specific: bool = False) -> str:
    """The NVRTC target of a kernel: `arch`, or its arch-specific variant (sm_90 -> sm_90a) for
    kernels that use instructions only that target has (wgmma). NVRTC 13.0 accepts -arch=sm_90a
    and rejects wgmma under -arch=sm_90; an sm_90a cubin loads on sm_90 devices only."""
    if not arch_specific or arch.endswith("a"):
        return arch
    return arch + "a"


def arch_options(arch: str) -> list[str]:
    return [f"-arch={arch}", "-std=c++17", "--use_fast_math=false", "-Xptxas=-v", "-default-device"]


def build_workers() -> int:
    """Threads that build kernels at once: NVRTC releases the GIL while it compiles, so builds
    scale with the cores, up to 8."""
    return max(1, min(8, os.cpu_count() or 1))


def build_cubin(source: str, entry: str, arch: str) -> BuildResult:
    """Compiles prelude + source to a cubin for `arch` (e.g. 'sm_90'); raises CudaCompileError."""
    nvrtc = _nvrtc()
    full = device_prelude() + "\n" + source
    opts = [o for o in arch_options(arch) if o != "--use_fast_math=false"]
    err, prog = nvrtc.nvrtcCreateProgram(full.encode(), f"{entry}.cu".encode(), 0, [], [])
    _check(err, "create", source=full, opts=opts)
    try:
        res = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        _check(res, f"compile of {entry} for {arch}", prog, full, opts)
        log = _log(prog)
        _, n = nvrtc.nvrtcGetCUBINSize(prog)
        cubin = b" " * n
        _check(nvrtc.nvrtcGetCUBIN(prog, cubin), "get cubin", prog, full, opts)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return BuildResult(cubin=bytes(cubin), arch=arch, log=log, **parse_ptxas(log, entry))


def parse_ptxas(log: str, entry: str) -> dict:
    """Registers, spill bytes and static shared memory of `entry` from a -Xptxas=-v log."""
    regs = spills = smem = 0
    section = log.split(f"Function properties for {entry}", 1)
    text = section[1] if len(section) > 1 else log
    m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
    if m:
        spills = int(m.group(1)) + int(m.group(2))
    m = re.search(r"Used (\d+) registers", text)
    if m:
        regs = int(m.group(1))
    m = re.search(r"(\d+) bytes smem", text)
    if m:
        smem = int(m.group(1))
    return {"registers": regs, "spills": spills, "shared_bytes": smem}
