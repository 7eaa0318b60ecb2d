"""The tune stage as a pipeline pass, on the spec plan between roller and render: on a GPU of the
target's arch, each tiled spec's fastest top-K candidate becomes its config (compiler/passes/tune.py
measures them, building each through the kernel cache, and caches the results); elsewhere the plan
is unchanged, the model's choice stands and the times stay predicted. Writes `ctx.tuning` (the
report's `tune` record, and the measured times keyed by the digest of the launch the render stage
makes of each chosen configuration)."""
from __future__ import annotations

from .build import cached_build, toolchain_key
from .context import CompileContext
from .ir.plan import Plan


def tune(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    from .passes.tune import tune_gate, tune_plan
    target = ctx.target
    device, why = tune_gate(target, ctx.options.enabled("tune"), ctx.options.build)
    if device is None:
        info = {"status": "skipped", "reason": why, "times": "predicted"}
        ctx.tuning = {"info": info, "measured": {}}
        return plan, info
    store = ctx.kernel_store()
    tool = toolchain_key(target.arch)
    # every candidate's cubin lands in the cache: the build stage finds the chosen ones there
    plan, measured, info = tune_plan(plan, target, store=store, device=device, toolchain=tool,
                                     build=lambda k: cached_build(k, target, store, tool)["cubin"])
    summary = {key: v for key, v in info.items() if key != "kernel_records"}
    summary["target_check"] = device.get("target_mismatches") or "the device matches the target's limits"
    keep = ("rank", "key", "predicted_us", "measured_us", "spread", "status", "error")
    report_info = dict(summary, kernels=[dict({n: r[n] for n in r if n != "candidates"},
                                              candidates=[{n: c.get(n) for n in keep} for c in r["candidates"]])
                                         for r in info["kernel_records"]])
    ctx.tuning = {"info": report_info, "measured": measured}
    return plan, summary
