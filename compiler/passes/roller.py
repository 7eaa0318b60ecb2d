"""The roller stage (Plan -> Plan): each untiled spec that is one tensor expression (one stage, or
a fused group composed in registers) gets its kind and tiles.

For every spec of one tensor expression, Roller constructs aligned rTile candidates and ranks them
with the micro-model; the spec keeps the best as its configuration and the top K as its candidates
(for the tuner). Specs that no tiled kind covers, and hand-written (extern) specs, are left as they
are. A contraction the precision stage marked tf32, fp16 or bf16 also gets tensor-core candidates;
a split-K winner, and a split reduction of few long rows, gets an fp32 workspace (a temporary of
the plan) for its partial results: one launch whose tiles' (rows') last blocks combine them."""
from __future__ import annotations

import dataclasses

from ..ir.dataflow import rewrite
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec
from ..kinds import construct_rtiles, declined
from ..roller.micro_model import predict
from ..targets import Target

DEFAULT_TOP_K = 8


def roller_plan(plan: Plan, target: Target, *, top_k: int = DEFAULT_TOP_K) -> tuple[Plan, dict]:
    """The plan with every tileable spec given its best-predicted kind and configuration (what an
    earlier pass constructed for the same expression is not constructed again: construct's memo
    of the compilation, roller/construct.py `compilation_scope`)."""
    stats = {"tiled": 0, "naive": 0, "kinds": {}}

    def tile(step, types):
        if isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec):
            return ComputeStep(tile_spec(step.spec, target, top_k, stats, types))
        return step

    return rewrite(plan, tile), stats


def tile_spec(spec: KernelSpec, target: Target, top_k: int = DEFAULT_TOP_K, stats: dict | None = None,
              types: dict | None = None) -> KernelSpec:
    """`spec` with its kind, configuration and top-K candidates (as it is when no tiled kind applies);
    a split configuration's workspace is added to `types`."""
    if spec.kind is not None or not spec.composable:
        return spec
    te = spec.expr
    precision = spec.precision
    types = {} if types is None else types
    configs = construct_rtiles(te, target, top_k, precision)
    if not configs:
        if stats is not None:
            stats["naive"] += 1
        return spec
    best = configs[0]
    # kinds that would apply but decline this spec (e.g. 32-bit coordinates it exceeds): the reason
    why = declined(te, target, best.kind, precision)
    if stats is not None:
        stats["tiled"] += 1
        stats["kinds"][best.kind] = stats["kinds"].get(best.kind, 0) + 1
    if best.split_k > 1 and stats is not None:
        stats["split_k"] = stats.get("split_k", 0) + 1
    return with_workspace(dataclasses.replace(spec, kind=best.kind, config=best, candidates=tuple(configs),
                                              declined=tuple(why)), types)


def with_workspace(spec: KernelSpec, types: dict) -> KernelSpec:
    """`spec` with the workspace its configuration needs: a split configuration's fp32 partial
    sums, a temporary of the plan sized in `types` (its name kept when it has one), else none
    (a workspace it no longer needs leaves `types`)."""
    cfg = spec.config
    need = int(cfg.param("ws_elems", 0) or 0) if cfg is not None and cfg.split_k > 1 else 0
    if not need:
        if spec.workspace:
            types.pop(spec.workspace, None)
            return dataclasses.replace(spec, workspace="")
        return spec
    workspace = spec.workspace
    if not workspace:
        out = spec.stages[-1].output      # (a row chain's spec has several stages)
        workspace, n = f"{out}.splitk", 1
        while workspace in types:
            workspace, n = f"{out}.splitk{n}", n + 1
    types[workspace] = TensorType(DType.float32, (need,))
    return dataclasses.replace(spec, workspace=workspace)


class SpecPrices:
    """The micro-model's time of a spec's best configuration as Roller would tile it, None when no
    tiled kind takes it; by spec key (its stages' types are in its expressions, so the key tells
    e.g. an fp32 and a half state apart). What is constructed here for a spec the plan keeps is
    not constructed again by the roller stage (construct's memo of the compilation)."""

    def __init__(self, target: Target):
        self.target, self.facts = target, {}

    def __call__(self, spec: KernelSpec) -> float | None:
        facts = self.launch(spec)
        return None if facts is None else facts[0]

    def launch(self, spec: KernelSpec) -> tuple[float, int, int, float] | None:
        """(microseconds, blocks, blocks resident per SM, DRAM bytes) of the best configuration:
        what the rammer stage packs a launch by (passes/rammer.alike_us)."""
        if spec.key not in self.facts:
            cfg = tile_spec(spec, self.target).config
            if cfg is None:
                self.facts[spec.key] = None
            else:
                p = predict(cfg, self.target)
                self.facts[spec.key] = (p.us, cfg.workload.blocks, p.blocks_per_sm, cfg.workload.dram_bytes)
        return self.facts[spec.key]
