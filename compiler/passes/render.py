"""The render stage (Plan -> Plan): the one place CUDA is written (DESIGN section 2, stage 10).

Every `ComputeStep` becomes the launch(es) of its spec: an untiled one-stage spec one thread per
output element, a tiled one through its kind's renderer (a split configuration as two launches:
partial sums into the workspace, then their combination with the epilogue), a hand-written
(extern) spec as its op wrote it. The launch record's `config` is the report's summary of the
spec's choice (kind, tiles, the micro-model's prediction, the top K)."""
from __future__ import annotations

import dataclasses
import json

from ..codegen.cuda import render_texpr
from ..codegen.memory_bound import render_split_combine
from ..codegen.tensor_core import render_splitk_reduce, render_tc_gemm
from ..codegen.tiled import render_elementwise, render_gemm, render_reduce
from ..codegen.wgmma import render_wgmma_gemm
from ..codegen import memory_bound
from ..ir.dataflow import rewrite
from ..kinds import kind_for
from ..ir.kernel import Kernel
from ..ir.plan import ComputeStep, LaunchStep, Plan
from ..ir.spec import ExternSpec, KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig, configs_json
from ..roller.construct import view_for
from ..roller.micro_model import predict, predict_workload, second_pass_workload
from ..targets import Target

_RENDERERS = {
    "gemm": render_gemm, "reduce": render_reduce, "elementwise": render_elementwise,
    "elementwise_vec": memory_bound.render_vector_elementwise, "transpose": memory_bound.render_transpose,
    "reduce_split": memory_bound.render_split_reduce, "tc_gemm": render_tc_gemm, "wgmma_gemm": render_wgmma_gemm,
}


def render_plan(plan: Plan, target: Target) -> tuple[Plan, dict]:
    """Every spec rendered; the record counts launches per kind."""
    stats: dict = {"launches": 0, "kinds": {}}

    def render(step, types):
        if not isinstance(step, ComputeStep):
            return step
        kernels = render_spec(step.spec, target)
        stats["launches"] += len(kernels)
        kind = "extern" if isinstance(step.spec, ExternSpec) else step.spec.kind or "naive"
        stats["kinds"][kind] = stats["kinds"].get(kind, 0) + len(kernels)
        return [LaunchStep(k) for k in kernels]

    return rewrite(plan, render), stats


def render_step(step, target: Target | None = None) -> list:
    """One step as the render stage writes it: a ComputeStep's launch steps; any other step as it is."""
    if isinstance(step, ComputeStep):
        return [LaunchStep(k) for k in render_spec(step.spec, target)]
    return [step]


def render_candidate(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values) -> Kernel:
    """The kernel of one configuration of any kind (for a split configuration, the partial-sum
    kernel, whose output is the workspace)."""
    return _RENDERERS[cfg.kind](te, view_for(te, cfg.kind), cfg, prefix, out_value, in_values)


def render_spec(spec: KernelSpec | ExternSpec, target: Target | None = None) -> list[Kernel]:
    """The launches of one spec, in order (`target` is needed only by a tiled spec's prediction)."""
    if isinstance(spec, ExternSpec):
        return [spec.kernel]
    if len(spec.stages) != 1:
        return kind_for(spec).render(spec)
    stage = spec.stages[0]
    te, ins, out = stage.expr, stage.inputs, stage.output
    if spec.kind is None:
        k = render_texpr(te, te.name, out, ins)
        extra = (("precision", spec.precision),) if spec.precision is not None else ()
        return [dataclasses.replace(k, ops=spec.ops, config=k.config + extra)]
    if target is None:
        raise ValueError(f"spec {spec.name} of kind {spec.kind}: rendering it needs the target")
    best, configs, precision = spec.config, spec.candidates, spec.precision
    kind = best.kind
    why = (("declined", "; ".join(spec.declined)),) if spec.declined else ()
    if not spec.workspace:
        extra = (("precision", precision),) if precision not in (None, "fp32") and best.param("precision") is None \
            else ()
        pred = predict(best, target)
        k = render_candidate(te, best, te.name, out, ins)
        config = (("schedule", f"roller_{kind}"), ("config_key", best.key[:16]), ("tiles", best.text()),
                  *best.params, *extra, *why, ("predicted_us", round(pred.us, 4)),
                  ("model", json.dumps(pred.as_dict(), sort_keys=True)),
                  ("top_k", configs_json(configs)))
        return [dataclasses.replace(k, ops=spec.ops, config=config)]
    split = int(best.param("split_k", 1) or 1)
    ws = spec.workspace
    main_pred = predict_workload(best.workload, target)
    red_pred = predict_workload(second_pass_workload(best), target)
    k1 = render_candidate(te, best, te.name, ws, ins)
    k1 = dataclasses.replace(k1, ops=spec.ops, config=(
        ("schedule", f"roller_{kind}"), ("config_key", best.key[:16]), ("tiles", best.text()), *best.params, *why,
        ("predicted_us", round(main_pred.us, 4)), ("model", json.dumps(main_pred.as_dict(), sort_keys=True)),
        ("top_k", configs_json([c for c in configs if int(c.param("split_k", 1) or 1) == split]))))
    if kind == "reduce_split":
        k2 = render_split_combine(te, view_for(te, kind), split, f"{te.name}_combine", ws, out, ins)
    else:
        k2 = render_splitk_reduce(te, split, f"{te.name}_splitk", ws, out, ins)
    k2 = dataclasses.replace(k2, ops=spec.ops, config=(
        ("schedule", "roller_split_combine" if kind == "reduce_split" else "roller_splitk_reduce"), ("split_k", split),
        ("precision", precision), ("predicted_us", round(red_pred.us, 4)),
        ("model", json.dumps(red_pred.as_dict(), sort_keys=True))))
    return [k1, k2]
