"""The roller stage (Plan -> Plan): each kernel rendered from a tensor expression is re-tiled.

For every launch whose kernel is the naive rendering of a TensorExpr, Roller constructs aligned
rTile candidates, ranks them with the micro-model and renders the best; the top K configurations
stay on the kernel's `config` (JSON) for the tuner. Kernels that no tiled pattern covers, and
hand-written kernels, are left as they are. A contraction the precision stage marked tf32, fp16 or
bf16 also gets tensor-core candidates; a split-K winner, and a split reduction of few long rows,
becomes two launches (partial results into an fp32 workspace the plan gains as a temporary, then
their combination with the epilogue)."""
from __future__ import annotations

import dataclasses
import json

from ..codegen.cuda import NAIVE_SCHEDULE
from ..ir.kernel import Kernel
from ..codegen.tensor_core import render_splitk_reduce, render_tc_gemm
from ..codegen.tiled import render_config
from ..codegen.wgmma import render_wgmma_gemm
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..roller.construct import construct_rtiles, declined, view_for
from ..codegen.memory_bound import render_split_combine
from ..roller.micro_model import predict, predict_workload, second_pass_workload
from ..analysis.tiles import configs_json
from ..ir.plan import IfStep, LaunchStep, LoopStep, Plan, ScanStep
from ..targets import Target

DEFAULT_TOP_K = 8


def roller_plan(plan: Plan, target: Target, *, top_k: int = DEFAULT_TOP_K) -> tuple[Plan, dict]:
    """The plan with every tileable kernel replaced by its best-predicted tiled version(s)."""
    memo: dict = {}
    stats = {"tiled": 0, "naive": 0, "kinds": {}}
    return _plan(plan, target, top_k, memo, stats), stats


def _plan(plan: Plan, target: Target, top_k: int, memo: dict, stats: dict) -> Plan:
    steps = []
    types = dict(plan.types)
    for s in plan.steps:
        if isinstance(s, LaunchStep):
            steps += [LaunchStep(k) for k in tile_launch(s.kernel, target, top_k, memo, stats, types)]
            continue
        if isinstance(s, IfStep):
            s = dataclasses.replace(s, then_plan=_plan(s.then_plan, target, top_k, memo, stats),
                                    else_plan=_plan(s.else_plan, target, top_k, memo, stats))
        elif isinstance(s, (LoopStep, ScanStep)):
            s = dataclasses.replace(s, body=_plan(s.body, target, top_k, memo, stats))
        steps.append(s)
    return dataclasses.replace(plan, steps=tuple(steps), types=tuple(types.items()))


def render_candidate(te, cfg, prefix: str, out_value: str, in_values) -> Kernel:
    """The kernel of any configuration kind (tensor-core ones included; for split-K the partial-sum
    kernel, whose output is the workspace)."""
    view = view_for(te, cfg.kind)
    if cfg.kind == "tc_gemm":
        return render_tc_gemm(te, view, cfg, prefix, out_value, in_values)
    if cfg.kind == "wgmma_gemm":
        return render_wgmma_gemm(te, view, cfg, prefix, out_value, in_values)
    return render_config(te, view, cfg, prefix, out_value, in_values)


def kernel_precision(kernel: Kernel) -> str | None:
    """The precision a kernel's configurations are constructed for: the precision stage's mark
    (tf32, fp16, bf16; kept on the tiled kernel's config), None when unmarked (the construction
    infers it, so a contraction of fp16/bf16 tensors gets tensor cores under fp32 too: products of
    halves are exact in the fp32 accumulator). The tuner rebuilds candidates with the same rule."""
    return dict(kernel.config).get("precision")


def tile_launch(kernel: Kernel, target: Target, top_k: int = DEFAULT_TOP_K, memo: dict | None = None,
                stats: dict | None = None, types: dict | None = None) -> list[Kernel]:
    """The launches replacing one naive TensorExpr kernel ([kernel] when no tiled pattern applies);
    a split-K workspace is added to `types`."""
    te = kernel.expr
    if te is None or dict(kernel.config).get("schedule") != NAIVE_SCHEDULE:
        return [kernel]
    precision = kernel_precision(kernel)
    memo = {} if memo is None else memo
    types = {} if types is None else types
    # in-process memo keyed by the expression itself (equal expressions, equal candidates)
    if (te, precision) not in memo:
        memo[te, precision] = construct_rtiles(te, target, top_k, precision)
    configs = memo[te, precision]
    if not configs:
        if stats is not None:
            stats["naive"] += 1
        return [kernel]
    best = configs[0]
    kind = best.kind
    ins = tuple(p.value for p in kernel.params[:-1])
    out = kernel.params[-1].value
    split = int(best.param("split_k", 1) or 1)
    # kinds that would apply but decline this spec (e.g. 32-bit coordinates it exceeds): the reason
    why = declined(te, target, precision) if kind in ("gemm", "tc_gemm") else ()
    why = (("declined", "; ".join(why)),) if why else ()
    extra = (("precision", precision),) if precision not in (None, "fp32") and best.param("precision") is None \
        else ()
    extra += why
    if stats is not None:
        stats["tiled"] += 1
        stats["kinds"][kind] = stats["kinds"].get(kind, 0) + 1
    if split == 1:
        pred = predict(best, target)
        k = render_candidate(te, best, te.name, out, ins)
        config = (("schedule", f"roller_{kind}"), ("config_key", best.key[:16]), ("tiles", best.text()),
                  *best.params, *extra, ("predicted_us", round(pred.us, 4)),
                  ("model", json.dumps(pred.as_dict(), sort_keys=True)),
                  ("top_k", configs_json(configs)))
        return [dataclasses.replace(k, ops=kernel.ops, config=config)]
    ws = f"{out}.splitk"
    n = 1
    while ws in types:
        ws, n = f"{out}.splitk{n}", n + 1
    types[ws] = TensorType(DType.float32, (int(best.param("ws_elems")),))
    main_pred = predict_workload(best.workload, target)
    red_pred = predict_workload(second_pass_workload(best), target)
    k1 = render_candidate(te, best, te.name, ws, ins)
    k1 = dataclasses.replace(k1, ops=kernel.ops, config=(
        ("schedule", f"roller_{kind}"), ("config_key", best.key[:16]), ("tiles", best.text()), *best.params, *why,
        ("predicted_us", round(main_pred.us, 4)), ("model", json.dumps(main_pred.as_dict(), sort_keys=True)),
        ("top_k", configs_json([c for c in configs if int(c.param("split_k", 1) or 1) == split]))))
    if kind == "reduce_split":
        k2 = render_split_combine(te, view_for(te, kind), split, f"{te.name}_combine", ws, out, ins)
    else:
        k2 = render_splitk_reduce(te, split, f"{te.name}_splitk", ws, out, ins)
    k2 = dataclasses.replace(k2, ops=kernel.ops, config=(
        ("schedule", "roller_split_combine" if kind == "reduce_split" else "roller_splitk_reduce"), ("split_k", split), ("precision", precision),
        ("predicted_us", round(red_pred.us, 4)), ("model", json.dumps(red_pred.as_dict(), sort_keys=True))))
    if stats is not None:
        stats["split_k"] = stats.get("split_k", 0) + 1
    return [k1, k2]
