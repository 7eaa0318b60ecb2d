"""The roller stage (Plan -> Plan): each kernel rendered from a tensor expression is re-tiled.

For every launch whose kernel is the naive rendering of a TensorExpr, Roller constructs aligned
rTile candidates, ranks them with the micro-model and renders the best; the top K configurations
stay on the kernel's `config` (JSON) for the tuner. Kernels that no tiled pattern covers, and
hand-written kernels, are left as they are."""
from __future__ import annotations

import dataclasses
import json

from ..codegen.kernel import Kernel
from ..codegen.tiled import render_config
from ..roller.construct import classify, construct_rtiles, view_for
from ..roller.micro_model import predict
from ..roller.rtile import configs_json
from ..runtime.plan import IfStep, LaunchStep, LoopStep, Plan, ScanStep
from ..targets import Target

NAIVE_SCHEDULE = "simt_elementwise"
DEFAULT_TOP_K = 8


def roller_plan(plan: Plan, target: Target, *, top_k: int = DEFAULT_TOP_K) -> tuple[Plan, dict]:
    """The plan with every tileable kernel replaced by its best-predicted tiled version."""
    memo: dict = {}
    stats = {"tiled": 0, "naive": 0, "kinds": {}}
    return _plan(plan, target, top_k, memo, stats), stats


def _plan(plan: Plan, target: Target, top_k: int, memo: dict, stats: dict) -> Plan:
    steps = []
    for s in plan.steps:
        if isinstance(s, LaunchStep):
            s = LaunchStep(tile_kernel(s.kernel, target, top_k, memo, stats))
        elif isinstance(s, IfStep):
            s = dataclasses.replace(s, then_plan=_plan(s.then_plan, target, top_k, memo, stats),
                                    else_plan=_plan(s.else_plan, target, top_k, memo, stats))
        elif isinstance(s, (LoopStep, ScanStep)):
            s = dataclasses.replace(s, body=_plan(s.body, target, top_k, memo, stats))
        steps.append(s)
    return dataclasses.replace(plan, steps=tuple(steps))


def tile_kernel(kernel: Kernel, target: Target, top_k: int = DEFAULT_TOP_K, memo: dict | None = None,
                stats: dict | None = None) -> Kernel:
    """The tiled kernel for one naive TensorExpr kernel (the kernel itself when none applies)."""
    te = kernel.expr
    if te is None or dict(kernel.config).get("schedule") != NAIVE_SCHEDULE:
        return kernel
    memo = {} if memo is None else memo
    # in-process memo keyed by the expression itself (equal expressions, equal candidates)
    if te not in memo:
        c = classify(te)
        memo[te] = (c, construct_rtiles(te, target, top_k) if c is not None else [])
    c, configs = memo[te]
    if not configs:
        if stats is not None:
            stats["naive"] += 1
        return kernel
    best = configs[0]
    kind, view = best.kind, view_for(te, best.kind)
    ins = tuple(p.value for p in kernel.params[:-1])
    out = kernel.params[-1].value
    k = render_config(te, view, best, te.name, out, ins)
    pred = predict(best, target)
    config = (("schedule", f"roller_{kind}"), ("config_key", best.key[:16]), ("tiles", best.text()),
              *best.params, ("predicted_us", round(pred.us, 4)),
              ("model", json.dumps(pred.as_dict(), sort_keys=True)),
              ("top_k", configs_json(configs)))
    if stats is not None:
        stats["tiled"] += 1
        stats["kinds"][kind] = stats["kinds"].get(kind, 0) + 1
    return dataclasses.replace(k, ops=kernel.ops, config=config)
