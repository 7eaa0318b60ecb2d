"""The render stage (Plan -> Plan): the one place CUDA is written (DESIGN section 2, stage 10).

Every `ComputeStep` becomes the launch(es) its spec's kind renders (compiler/kinds/): a spec whose
kind the roller stage chose, through that kind; one whose kind is unset, through the first
untiled kind that applies (naive for one tensor expression — one stage, or stages composed in
registers —, stitched_naive for values carried in shared memory, extern for a hand-written
kernel). The launch record (`Kernel`) is made only here."""
from __future__ import annotations

import dataclasses

from ..analysis.dependence import unread_by_value
from ..ir.dataflow import rewrite
from ..ir.kernel import Kernel
from ..ir.plan import ComputeStep, LaunchStep, Plan
from ..ir.spec import ExternSpec, KernelSpec
from ..kinds import kind_for
from ..targets import Target


def render_plan(plan: Plan, target: Target, unsplit: dict | None = None,
                memo: dict | None = None) -> tuple[Plan, dict]:
    """Every spec rendered; the record counts launches per kind. `unsplit` (when given) gains, by
    launch (its kernel: the digest alone names the code, not the buffers), the launch of each
    one-launch spec that divides its reduction among blocks rendered from its best unsplit
    candidate: the rammer stage co-launches those where that pays (a split kernel fills the SMs
    alone, so it never shares a launch). `memo` (spec key -> its launches; its unsplit form) keeps
    renders for a later call on the same target: the welder stage's trials render most of the
    final plan's specs (pipeline._planned_us)."""
    stats: dict = {"launches": 0, "kinds": {}}
    memo = {} if memo is None else memo

    def render(step, types):
        if not isinstance(step, ComputeStep):
            return step
        kind = kind_for(step.spec)
        key = step.spec.key
        if key not in memo:
            memo[key] = render_spec(step.spec, target, kind)
        kernels = memo[key]
        stats["launches"] += len(kernels)
        stats["kinds"][kind.NAME] = stats["kinds"].get(kind.NAME, 0) + len(kernels)
        if unsplit is not None and len(kernels) == 1:
            if ("unsplit", key) not in memo:
                memo["unsplit", key] = unsplit_form(step.spec, target)
            if memo["unsplit", key] is not None:
                unsplit[kernels[0]] = memo["unsplit", key]
        return [LaunchStep(k) for k in kernels]

    return rewrite(plan, render), stats


def unsplit_form(spec: KernelSpec | ExternSpec, target: Target) -> Kernel | None:
    """The one launch of a split spec's best unsplit candidate (its candidates best first), None
    where the spec does not split or keeps no unsplit candidate."""
    if not isinstance(spec, KernelSpec) or spec.config is None or spec.config.split_k == 1:
        return None
    cfg = next((c for c in spec.candidates if c.split_k == 1 and c.kind == spec.config.kind), None)
    if cfg is None:
        return None
    kernels = render_spec(dataclasses.replace(spec, config=cfg, workspace=""), target)
    return kernels[0] if len(kernels) == 1 else None


def render_step(step, target: Target | None = None) -> list:
    """One step as the render stage writes it: a ComputeStep's launch steps; any other step as it is."""
    if isinstance(step, ComputeStep):
        return [LaunchStep(k) for k in render_spec(step.spec, target)]
    return [step]


def render_spec(spec: KernelSpec | ExternSpec, target: Target | None = None, kind=None) -> list[Kernel]:
    """The launches of one spec, in order (`target` is needed only by a tiled spec's prediction),
    each naming the values its spec's stages carry (a fused spec's, for the report), at the
    levels the spec gives them unless the kind says where it keeps them (register_rows: its
    statistics in registers)."""
    kernels = (kind or kind_for(spec)).render(spec, target)
    if isinstance(spec, KernelSpec) and len(kernels) == 1:
        kernels = [_with_unread(kernels[0], spec)]
    carried = tuple((v, lvl.value) for v, lvl in getattr(spec, "carried", ()))
    return [dataclasses.replace(k, carried=k.carried or carried) for k in kernels] if carried else kernels


def _with_unread(kernel: Kernel, spec: KernelSpec) -> Kernel:
    """The kernel with the bytes of its inputs it never reads (a gathered table's rows no index
    names, the rest of a sliced input) added to its config's `skipped_bytes`, which the report's
    DRAM bytes and the fallback prediction leave out, and named per input in `unread` (a co-launch
    of slices of one input reads the parts its members read: roller/cost_model.members_totals)."""
    unread = unread_by_value(spec.stages, spec.types)
    if not unread:
        return kernel
    cfg = dict(kernel.config)
    cfg["skipped_bytes"] = int(cfg.get("skipped_bytes", 0)) + sum(unread.values())
    cfg["unread"] = tuple(sorted(unread.items()))
    return dataclasses.replace(kernel, config=tuple(cfg.items()))
