"""The build stage: NVRTC -> cubin for each distinct kernel, through the content-addressed kernel
cache (kernel_cache/), and the keys that name a build: `toolchain_key` (what made a kernel) and
`build_key` (one kernel's cubin in the cache). compiler/pipeline.py runs `build` as a pass; the tune
stage (compiler/tuning.py) builds its candidates through `cached_build`."""
from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor

from .codegen.nvrtc import arch_options, build_arch, build_cubin, build_workers, nvrtc_version
from .context import CompileContext
from .ir.plan import Plan
from .targets import Target
from .version import compiler_key, package_version


def toolchain_key(arch: str) -> str:
    """What made a kernel: the compiler (version and source key), NVRTC's version and options, the arch.
    Part of every kernel build key, tuning record key and the service's dedup key."""
    flags = hashlib.sha256(" ".join(arch_options(arch)).encode()).hexdigest()[:12]
    return f"brickyard-{package_version()}/{compiler_key()[:20]}/nvrtc-{nvrtc_version()}-{flags}/{arch}"


def build_key(kernel_digest: str, tool: str) -> str:
    """A kernel's cubin in the cache: its source (prelude excluded: the compiler key in `tool` covers it)."""
    return hashlib.sha256(f"{kernel_digest}|{tool}".encode()).hexdigest()


def cached_build(k, target: Target, store, tool: str) -> dict:
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


def build(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    """The pass: every distinct kernel's build into `ctx.builds` (none when options.build is off);
    the record counts cache hits and misses. The plan passes through unchanged."""
    kernels = {k.digest: k for k in plan.kernels()}
    if not ctx.options.build:
        ctx.builds = {}
        return plan, {"hits": 0, "misses": 0, "kernels": len(kernels)}
    store = ctx.kernel_store()
    tool = toolchain_key(ctx.target.arch)
    with ThreadPoolExecutor(max_workers=build_workers()) as pool:
        done = pool.map(lambda k: (k.digest, cached_build(k, ctx.target, store, tool)), kernels.values())
        builds = dict(done)
    ctx.builds = builds
    hits = sum(1 for b in builds.values() if b["cached"])
    return plan, {"hits": hits, "misses": len(builds) - hits, "kernels": len(kernels)}
