"""What the tiled kinds share: the one-stage test of `applies`, and the launches of a tiled spec.

A tiled spec renders as its kind's kernel for the chosen configuration; a split configuration as
one launch whose blocks combine their partial results in the spec's workspace (split-K),
or as two (a split reduction): partial results into the workspace, then their combination with
the epilogue. Each launch record's `config` is the report's summary of
the choice: kind, tiles, the micro-model's prediction, the top K."""
from __future__ import annotations

import dataclasses
import json
from typing import Callable

from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig, configs_json
from ..roller.micro_model import predict
from ..targets import Target

RenderConfig = Callable[..., Kernel]   # (te, config, prefix, out, ins[, workspace=]) -> Kernel


def one_stage(spec, view: Callable, what: str) -> str | None:
    """None when `spec` is one stage that `view` sees, else why the kind does not apply."""
    if not isinstance(spec, KernelSpec):
        return "a hand-written kernel"
    if not spec.composable:
        return f"{len(spec.stages)} stages that are not one expression (a tiled kind renders one)"
    return None if view(spec.expr) is not None else what


def render_tiled(spec: KernelSpec, target: Target | None, render_config: RenderConfig,
                 workspace_in_launch: bool = False) -> list[Kernel]:
    """The launch of a one-stage spec whose configuration this kind chose; a kind that finishes a
    split inside its launch (`workspace_in_launch`: tc_gemm's and sparse24_gemm's split-K,
    reduce_split) gets the workspace as a keyword ("" unsplit)."""
    if target is None:
        raise ValueError(f"spec {spec.name} of kind {spec.kind}: rendering it needs the target")
    stage = spec.stage
    te, ins, out = stage.expr, stage.inputs, stage.output
    best, configs, precision = spec.config, spec.candidates, spec.precision
    kind = best.kind
    if spec.workspace and not workspace_in_launch:
        raise ValueError(f"spec {spec.name}: kind {kind} has no use for a workspace")
    why = (("declined", "; ".join(spec.declined)),) if spec.declined else ()
    extra = (("precision", precision),) if precision not in (None, "fp32") and best.param("precision") is None \
        else ()
    pred = predict(best, target)
    k = render_config(te, best, te.name, out, ins, **({"workspace": spec.workspace} if workspace_in_launch else {}))
    config = (("schedule", f"roller_{kind}"), ("config_key", best.key[:16]), ("tiles", best.text()),
              *best.params, *extra, *why, ("predicted_us", round(pred.us, 4)),
              ("model", json.dumps(pred.as_dict(), sort_keys=True)),
              ("top_k", configs_json(configs)))
    return [dataclasses.replace(k, ops=spec.ops, config=config)]
