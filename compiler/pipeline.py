"""compile(): the named stages, in order, and nothing else (DESIGN section 2).

`PASSES` below is the table of contents: every stage between import and package, in order, each a
pass `(plan, context) -> (plan, record)`. The plan is what passes transform; the record (a dict) is
the stage's line in the compile log; results that are not the plan (builds, tuning, the memory
footprint, verification) are written on the `CompileContext` (compiler/context.py). `compile()` is
the loop over the table: it times each pass, keeps a `StageRecord`, runs the IR verifiers after it
when BRICKYARD_CHECK_IR=1, and reports progress.

Two stages are not passes and are the loop's prologue and epilogue: `import` (model -> graph; there
is no plan yet, and its result builds the context) and `package` (plan and context -> Artifact).
`STAGES` names all of them, in order.

Where the stages live: lower, precision, imma, welder, half_storage, roller, render, rammer, grinder, memory_plan
and fit in compiler/passes/
(adapted to the pass shape below); tune (on specs, before render) in compiler/tuning.py (over
compiler/passes/tune.py); build in compiler/build.py; verify in compiler/verify.py; report.json
and the header in compiler/report.py."""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from typing import Callable

from .artifact import Artifact
from .build import build, build_key, toolchain_key
from .codegen.co_launch import can_co_launch
from .context import CompileContext, CompileOptions
from .frontend.onnx_import import ImportedModel, ImportLimits, import_model
from .ir.dataflow import all_plans, all_types
from .ir.plan import ComputeStep, Plan
from .ir.spec import ExternSpec, KernelSpec
from .ir.tesa import summary as tesa_summary
from .ir.verify import verify_graph, verify_plan
from .passes.fit import check_graph, check_plan
from .passes.grinder import grinder_plan, host_regions, host_round_trips, plan_us
from .passes.indices import simplify_plan
from .passes.lower import lower_graph
from .passes.memory_plan import plan_memory
from .passes.half_storage import half_storage_plan
from .passes.imma import imma_plan
from .passes.precision import HALF, precision_plan
from .passes.render import render_plan
from .passes import sparta
from .passes.roller import SpecPrices, roller_plan
from .passes.sparse24 import sparse24_plan, sparse24_speedup
from .passes.sparta_cover import cover_plan, cover_speedup
from .passes.sparta_rows import chain_walks, sparta_rows
from .passes.sparta_specialize import nonzeros, sparse_speedup, sparta_specialize
from .passes.rammer import alike_us, rammer_plan
from .passes.prologue import prologue_plan
from .passes.resident import Options as ResidentOptions, resident_plan
from .passes.split_rows import split_rows_plan
from .passes.stitch_maps import stitch_maps_plan
from .passes.welder import PART_READS, welder_plan
from .report import TOLERANCE, make_header, make_report, plan_traffic, split_specs
from .roller.construct import compilation_scope
from .roller.cost_model import kernel_bytes, kernel_us, resident_per_sm
from .targets import Target, get_target
from .tuning import tune

__all__ = ["CompileContext", "CompileOptions", "PASSES", "Pass", "STAGES", "StageRecord", "build_key", "compile",
           "make_report", "plan_before", "toolchain_key"]

Progress = Callable[[str, float], None]

# A pass: (plan, context) -> (plan, record). Only lower receives None: it makes the first plan
# from context.imported.
Pass = Callable[[Plan | None, CompileContext], tuple[Plan, dict]]


@dataclass
class StageRecord:
    name: str
    seconds: float
    info: dict


def _lower(plan: None, ctx: CompileContext) -> tuple[Plan, dict]:
    choices: list[dict] = []
    plan = lower_graph(ctx.imported.graph, ctx.imported.opset, donate_inputs=ctx.options.kv_cache == "in-place",
                       disabled=frozenset(ctx.options.disable), price=_lowering_price(ctx), choices=choices)
    info = {"kernels": len(plan.specs())}
    if choices:
        info["choices"] = choices
    if plan.donated:
        info["donated"] = {out: src for out, src in plan.donated}
    return plan, info


def _lowering_price(ctx: CompileContext) -> Callable[..., float | None] | None:
    """How a lowering with several ways (LowerCtx.cheapest) prices one: its steps through the
    precision stage, then each kernel as Roller tiles it alone (a hand-written one by its own
    config: cost_model.kernel_us), plus a launch each (fusion is left out for every way alike);
    None where a kernel has no tiled kind, and no pricing at all with roller off. `copies`: the
    node and its alike siblings of its wave (passes/lower.py, which gives none with rammer off),
    each kernel priced as one of that many the rammer stage co-launches (rammer.alike_us)."""
    if not ctx.options.enabled("roller"):
        return None
    prices = SpecPrices(ctx.target)

    def price(plan: Plan, copies: int = 1) -> float | None:
        plan, _ = precision_plan(plan, ctx.options.precision, weights=False)
        types = dict(plan.types)
        total = 0.0
        for spec in plan.specs():
            alone = False       # a kernel that never shares a launch (cooperative, tensor maps)
            if isinstance(spec, KernelSpec):
                facts = prices.launch(spec)
            elif isinstance(spec, ExternSpec):
                k = spec.kernel
                facts = (kernel_us(k, types, ctx.target), k.blocks, resident_per_sm(k, ctx.target),
                         kernel_bytes(k, types))
                alone = can_co_launch(k) is not None
            else:
                facts = None
            if facts is None:
                return None
            total += alike_us(*facts, 1 if alone else copies, ctx.target)
        return total
    return price


def _precision(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    return precision_plan(plan, ctx.options.precision)


def _imma(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    if not ctx.options.enabled("imma"):
        return plan, {"enabled": False}
    if ctx.target.mma_shape("int8") != (16, 8, 32):      # (16, 8, 32) from sm_80 on
        return plan, {"enabled": True, "contractions": 0, "why_not": f"{ctx.target.name} has no m16n8k32 integer mma"}
    plan, stats = imma_plan(plan)
    return plan, {"enabled": True, **stats}


def _welder(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    """The fusion stage. Two of its rules pay on some models and cost on others, so where they
    change a kernel the plans go through the planning stages after this one (`_planned_us`:
    through rammer's co-launches) and the one predicted fastest is kept:
    - a map that reads a reduction in part (a concat after a branch's conv; passes/welder.py
      `part_reads`): never taken, taken where its wasted FLOPs are cheap, or always; a tie keeps
      the earlier policy, the one with fewer FLOPs;
    - keeping a float contraction's whole epilogue chain for its group (a residual add of a map
      and a conv, the map an operand of the conv's group; `float_epilogues`) saves a kernel on
      some models and costs one or a co-launch on others (a map group cut short leaves a reader of
      its value a kernel of its own; a map that ran beside the conv now runs inside it); a tie
      keeps the rule off. Priced after the part-read policy, with it."""
    if not ctx.options.enabled("welder"):
        return plan, {"enabled": False}
    traffic_before = plan_traffic(plan)    # the report's fusion effect: DRAM traffic before and after
    tried = ctx.options.enabled("float_epilogues")
    fused, stats, part, fused_us = _part_read_policy(plan, ctx, tried)
    choice = {"enabled": tried, "decisions": stats.pop("float_epilogues", 0), "changed": False, "kept": False}
    if choice["decisions"]:
        without, stats_without = _fuse(plan, ctx, float_epilogues=False, part_reads=part["kept"])
        for key in ("float_epilogues", "part_reads", "part_taken"):
            stats_without.pop(key, None)
        choice["changed"] = _shape_of(fused) != _shape_of(without)      # else nothing to price
        if choice["changed"]:
            with_us = _planned_us(fused, ctx) if fused_us is None else fused_us    # priced already
            without_us = _planned_us(without, ctx)
            choice.update(predicted_us={"with": round(with_us, 3), "without": round(without_us, 3)},
                          kept=with_us < without_us)
            if not choice["kept"]:
                fused, stats = without, stats_without
    return fused, dict(stats, float_epilogues=choice, part_reads=part, dram_bytes_before=traffic_before,
                       dram_bytes_after=plan_traffic(fused))


def _part_read_policy(plan: Plan, ctx: CompileContext,
                      float_epilogues: bool) -> tuple[Plan, dict, dict, float | None]:
    """(plan, stats, record, its predicted us or None where unpriced) of the welder with the
    part-read policy that prices fastest (each of PART_READS where `part_reads` is on and the
    welder met such a map, else `always`, the rule off). The record: enabled, the maps met,
    whether the policies' plans differ, the policy kept and each policy's prediction where priced."""
    on = ctx.options.enabled("part_reads")
    first = "cheap" if on else "always"
    fused, stats = _fuse(plan, ctx, float_epilogues=float_epilogues, part_reads=first)
    record = {"enabled": on, "met": stats.pop("part_reads", 0), "changed": False, "kept": first}
    taken = stats.pop("part_taken", 0)
    if not (on and record["met"]):
        return fused, stats, record, None
    trials = {first: (fused, stats)}
    # a policy that would decide every map met as `cheap` did makes the same plan: not fused again
    same = {"never": taken == 0, "always": taken == record["met"]}
    for policy in PART_READS:
        if policy not in trials:
            trials[policy] = trials[first] if same[policy] else \
                _fuse(plan, ctx, float_epilogues=float_epilogues, part_reads=policy)
            trials[policy][1].pop("part_reads", None)
            trials[policy][1].pop("part_taken", None)
    by_trial: dict[int, tuple] = {}      # a trial two policies share is shaped once
    for fused_plan, _ in trials.values():
        if id(fused_plan) not in by_trial:
            by_trial[id(fused_plan)] = _shape_of(fused_plan)
    shapes = {policy: by_trial[id(trials[policy][0])] for policy in PART_READS}
    record["changed"] = len(set(shapes.values())) > 1
    if not record["changed"]:
        return fused, stats, record, None
    priced: dict[tuple, float] = {}      # a plan two policies share is priced once
    for policy in PART_READS:
        if shapes[policy] not in priced:
            priced[shapes[policy]] = _planned_us(trials[policy][0], ctx)
    us = {policy: priced[shapes[policy]] for policy in PART_READS}
    kept = min(PART_READS, key=lambda policy: us[policy])      # the first of equals: fewer FLOPs
    record.update(kept=kept, predicted_us={policy: round(t, 3) for policy, t in us.items()})
    return trials[kept][0], trials[kept][1], record, us[kept]


def _shape_of(plan: Plan) -> tuple:
    """What the stages after welder make a plan into: its steps in order, each kernel spec by key."""
    return tuple(s.spec.key if isinstance(s, ComputeStep) else type(s).__name__ for s in plan.steps_within())


def _planned_us(plan: Plan, ctx: CompileContext) -> float:
    """The predicted microseconds of `plan` after the planning stages that follow this one (half
    storage, roller, sparta's kernels, render, rammer, grinder; tune measures on a GPU and is left
    out: a trial is priced by the micro-model alone), as the report prices the final plan
    (grinder.plan_us), on a scratch context (the passes record their results there). Roller's
    rankings and sparta's choices (by expression) and the renders (by spec: ctx.rendered) are
    remembered for the compilation, so the kernels both trials share, and those of the plan kept,
    are made once."""
    scratch = dataclasses.replace(ctx, unsplit={})
    for run in (_half_storage, _roller, _sparse_kernels, _render, _rammer, _grinder):
        plan, _ = run(plan, scratch)
    return plan_us(plan, all_types(plan), ctx.target)


def _fuse(plan: Plan, ctx: CompileContext, float_epilogues: bool, part_reads: str) -> tuple[Plan, dict]:
    """The welder stage's passes in order: register-level groups, then the shared-memory level,
    attention prologues and stitched maps, each as the options allow."""
    split: list[dict] = []
    if ctx.options.enabled("shared_level") and ctx.options.enabled("split_rows"):   # few long rows: stages apart where faster
        plan, split = split_rows_plan(plan, ctx.target)
    plan, stats = welder_plan(plan, ctx.target, float_epilogues, part_reads)
    plan, indices = simplify_plan(plan)     # composed producers' linearised indices (passes/indices.py)
    shared = {"groups": [], "declined": [], "removed": 0, "moved": []}
    if ctx.options.enabled("shared_level"):
        chains = ResidentOptions(split=frozenset(v for e in split if e["split"] for v in e["statistics"]),
                                 sink_reshapes=ctx.options.enabled("sink_reshapes"),
                                 walks=chain_walks(plan, ctx.sparta_memo) if ctx.options.enabled("sparta") else None)
        plan, shared = resident_plan(plan, ctx.target, _sparse_speedup(plan, ctx), chains)   # the shared-memory level
    prologues = {"tried": [], "removed": 0}
    if ctx.options.enabled("prologue"):
        plan, prologues = prologue_plan(plan, ctx.target)      # operand maps into attention kernels' loads
    stitched = {"groups": [], "removed": 0}
    if ctx.options.enabled("stitched_maps"):
        plan, stitched = stitch_maps_plan(plan, ctx.target)     # maps sharing values: one kernel each group
    stats["groups"] += shared["groups"] + stitched["groups"]
    stats["declined"] = shared["declined"]
    stats["kernels_after"] -= shared["removed"] + prologues["removed"] + stitched["removed"]
    return plan, dict(stats, enabled=True, shared_level=ctx.options.enabled("shared_level"),
                      prologue=ctx.options.enabled("prologue"), stitched_maps=ctx.options.enabled("stitched_maps"),
                      sink_reshapes=ctx.options.enabled("sink_reshapes"),
                      index_divisions=indices, prologues=prologues["tried"], reshapes_sunk=shared["moved"], split_rows=split)


def _half_storage(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    if ctx.options.precision not in HALF or not ctx.options.enabled("half_storage"):
        return plan, {"enabled": False, "values": [], "count": 0, "bytes_saved": 0}
    before = plan_traffic(plan)
    plan, info = half_storage_plan(plan, ctx.target)
    return plan, dict(info, enabled=True, dram_bytes_before=before, dram_bytes_after=plan_traffic(plan))


def _sparse_speedup(plan: Plan, ctx: CompileContext) -> Callable[[KernelSpec], float | None] | None:
    """How much faster the sparta stage will make a contraction (block-sparse, a cover or 2:4), for
    the shared-memory level to price a member apart at that speed; None with sparta off. Only
    contractions over a constant at least a quarter zeros are asked about (fast for dense models)."""
    if not ctx.options.enabled("sparta"):
        return None
    constants = {n: c for p in all_plans(plan) for n, c in p.constants}
    known: dict[str, float | None] = {}
    zeros: dict[str, bool] = {}

    def sparse_weight(v: str) -> bool:
        """A constant matrix (or more) at least a quarter zeros: what either format could use."""
        if v not in zeros:
            a = constants[v].array() if v in constants else None
            zeros[v] = a is not None and a.ndim >= 2 and 4 * nonzeros(v, a, ctx.sparta_memo) <= 3 * a.size
        return zeros[v]

    def speedup(spec: KernelSpec) -> float | None:
        if not any(sparse_weight(v) for v in spec.inputs):     # dense weights: nothing to ask (fast)
            return None
        if spec.key not in known:
            found = [sparse_speedup(spec, constants, ctx.target, ctx.sparta_memo),
                     sparse24_speedup(spec, constants, ctx.target, ctx.sparta_memo),
                     cover_speedup(spec, constants, ctx.target, ctx.sparta_memo)]
            known[spec.key] = max((f for f in found if f), default=None)
        return known[spec.key]
    return speedup


def _roller(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    if not ctx.options.enabled("roller"):
        return plan, {"enabled": False}
    plan, stats = roller_plan(plan, ctx.target)
    return plan, dict(stats, enabled=True)


def _sparta(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    """SparTA: the weights' sparsity attributes (TeSA), propagated through the graph for the
    report, and the contractions over zero-tiled constants specialised to block-sparse kernels
    (or covered: the tiles that pay plus a scattered remainder), those over 2:4 constants (tensor
    cores at fp16/bf16, sm_80+) compressed for mma.sp."""
    if not ctx.options.enabled("sparta"):
        return plan, {"enabled": False}
    graph, opset = ctx.imported.graph, ctx.imported.opset
    zeros: dict = {}
    attrs = sparta.annotate(graph, opset, zeros)
    weights = len(attrs)
    if attrs:     # a dense model pays for the scan of its weights only
        annotated = attrs
        # what propagation keeps of annotate's: the constants whose zeros matter (not index tensors')
        attrs = sparta.propagate(graph, attrs, opset, zeros)
        weights = sum(1 for k in annotated if k in attrs)
    del zeros     # the masks: a bool per weight element, not needed past propagation
    plan, record = _sparse_kernels(plan, ctx)
    return plan, dict(record, sparse_weights=weights, tensors={
        name: tesa_summary(t) for name, t in sorted(attrs.items())})


def _sparse_kernels(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    """The sparta stage's plan transformation alone (the TeSA of the graph is the report's):
    block-sparse, covered and 2:4 kernels, and row chains walking their pruned weights' tiles."""
    if not ctx.options.enabled("sparta"):
        return plan, {"enabled": False}
    plan, record = sparta_specialize(plan, ctx.target, ctx.sparta_memo)
    plan = cover_plan(plan, ctx.target, record, ctx.sparta_memo)
    plan, two_four = sparse24_plan(plan, ctx.target)
    # one entry a contraction: a tensor-core one left dense by the block-sparse search (a 2:4
    # weight has no zero tile) is the 2:4 search's to describe
    priced = {tuple(e["ops"]) for e in two_four["kernels"]}
    record["kernels"] = [e for e in record["kernels"] if e["chosen"] != "dense" or tuple(e["ops"]) not in priced]
    record["kernels"] += two_four["kernels"]
    record["sparse_kernels"] += two_four["sparse24_kernels"]
    # the row chains Welder formed: their pruned contractions walk the listed tiles too
    plan, rows = sparta_rows(plan, ctx.target, ctx.sparta_memo)
    record["kernels"] += rows
    record["sparse_kernels"] += len({tuple(e["ops"]) for e in rows if e["chosen"] == "block_sparse"})   # a chain once
    return plan, dict(record, enabled=True)


def _render(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    # the report's memory and split-K effect: specs name their workspaces until rendered
    split = split_specs(plan)
    # only rammer reads the unsplit forms: without it they are not rendered
    plan, record = render_plan(plan, ctx.target, ctx.unsplit if ctx.options.enabled("rammer") else None,
                               memo=ctx.rendered)
    return plan, dict(record, split=split)


def _rammer(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    if not ctx.options.enabled("rammer"):
        return plan, {"enabled": False}
    plan, stats = rammer_plan(plan, ctx.target, barriers=ctx.options.barriers, unsplit=ctx.unsplit)
    return plan, dict(stats, enabled=True)


def _grinder(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    if not ctx.options.enabled("grinder"):
        return plan, dict(host_regions(plan, "--disable grinder"), enabled=False)
    before = host_round_trips(plan)        # the report's effect: device-to-host reads left on the host
    plan, stats = grinder_plan(plan, ctx.target)
    return plan, dict(stats, enabled=True, host_round_trips_before=before)


def _memory_plan(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    return plan_memory(plan), {}


def _fit(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    """The plan's footprint, refused (TooLarge) when it or a launch exceeds the target; the footprint
    is both the stage's record and the report's `memory`."""
    ctx.memory = check_plan(plan, ctx.target)
    return plan, ctx.memory


def _verify(plan: Plan, ctx: CompileContext) -> tuple[Plan, dict]:
    """With options.verify ("host" or "gpu"): run the plan and compare with onnxruntime."""
    device = ctx.options.verify
    if device is None:
        ctx.verification = {"device": None, "max_rel_error": None}
        return plan, {}
    from .verify import measure_error, rounding_errors
    measured = measure_error(plan, ctx.model, device, inputs=ctx.verify_inputs)
    err = measured.error
    ctx.verification = {"device": device, "max_rel_error": err, "reference_finite": measured.reference_finite,
                        "inputs": "seeded" if ctx.verify_inputs is None else "given"}
    # Over the tolerance in a reduced precision: how far the reference itself moves under the same
    # rounding tells a sensitive model from a wrong kernel (report.json's `rounding_error`).
    if err is not None and not err <= TOLERANCE.get(ctx.options.precision, TOLERANCE["fp32"]):
        rounded = rounding_errors(plan, ctx.model, ctx.options.precision, reference=measured.reference,
                                  outputs=measured.outputs)
        ctx.verification.update(rounding_error=rounded.rounding, rounded_reference_error=rounded.plan)
    return plan, {}


# The table of contents: (stage name, pass), in the order they run.
PASSES: tuple[tuple[str, Pass], ...] = (
    ("lower", _lower),              # graph -> kernel specs, extern kernels, aliases, regions
    ("precision", _precision),      # contractions' operand precision
    ("imma", _imma),                # integer contractions' zero points out of the products: 8-bit mma operands
    ("welder", _welder),            # fusion groups: register-level composition of producers and consumers
    ("half_storage", _half_storage),  # values every reader rounds to half, stored in half
    ("roller", _roller),            # kind, tile configuration and top K of each spec
    ("sparta", _sparta),            # TeSA of the weights, propagated; zero tiles -> block-sparse (+ ELL), 2:4 -> mma.sp
    ("tune", tune),                 # on a GPU of the target's arch: the fastest of the top K -> ctx.tuning
    ("render", _render),            # every spec -> CUDA launch records (the one place CUDA is written)
    ("rammer", _rammer),            # wavefront order; independent small kernels of a wave in one launch
    ("grinder", _grinder),          # If/Loop/Scan regions as persistent cooperative kernels (no host round trips)
    ("build", build),               # NVRTC cubins through the kernel cache -> ctx.builds
    ("memory_plan", _memory_plan),  # one arena for the intermediates
    ("fit", _fit),                  # footprint and launch limits against the target -> ctx.memory
    ("verify", _verify),            # optional: against onnxruntime -> ctx.verification
)

STAGES = ("import", *(name for name, _ in PASSES), "package")


def plan_before(stage: str, model, target: str | dict | Target = "h100", options: CompileOptions | None = None, *,
                store=None) -> Plan:
    """The plan as pass `stage` receives it: import, then the passes before it (their records and
    results dropped). For tools and tests that look at an intermediate plan, e.g. the specs and
    candidates the tuner chooses among: plan_before("tune", model)."""
    if stage not in dict(PASSES):
        raise ValueError(f"no pass {stage!r} (passes: {', '.join(name for name, _ in PASSES)})")
    options = options or CompileOptions()
    target = get_target(target)
    imported, _ = _import(model, target, options, None)
    ctx = CompileContext(model=model, imported=imported, target=target, options=options, store=store)
    plan = None
    with compilation_scope(splits=options.enabled("split_k")):
        for name, run in PASSES:
            if name == stage:
                break
            plan, _ = run(plan, ctx)
    return plan


def compile(model, target: str | dict | Target = "h100", options: CompileOptions | None = None, *,
            store=None, progress: Progress | None = None, limits: ImportLimits | None = None,
            name: str | None = None, verify_inputs: dict | None = None) -> Artifact:
    """ONNX model (path, bytes or ModelProto) -> Artifact for `target`; `name` overrides the model's
    name in the report (the service compiles files named by their digest); `verify_inputs` (input
    name -> array) are what options.verify runs the plan and onnxruntime on instead of seeded
    random ones."""
    options = options or CompileOptions()
    target = get_target(target)
    records: list[StageRecord] = []
    t_start = time.perf_counter()

    def done(stage_name: str, t0: float, info: dict, check: Callable[[], None] | None = None) -> None:
        """The stage's record (its time excludes the IR check), the IR check, progress."""
        records.append(StageRecord(stage_name, time.perf_counter() - t0, info))
        if CHECK_IR and check is not None:
            check()
        if progress:
            progress(stage_name, (STAGES.index(stage_name) + 1) / len(STAGES))

    # prologue: import (model -> graph, every tensor checked against the target)
    t0 = time.perf_counter()
    imported, info = _import(model, target, options, limits)
    if verify_inputs is not None:       # refused with the import, not after the whole compilation
        from .verify import checked_inputs
        verify_inputs = checked_inputs(imported.graph.inputs, imported.graph.type_of, verify_inputs)
    done("import", t0, info, lambda: verify_graph(imported.graph))
    if name:
        imported = dataclasses.replace(imported, name=name)
    ctx = CompileContext(model=model, imported=imported, target=target, options=options, store=store,
                         verify_inputs=verify_inputs)

    plan = None
    # Roller's searches, in whichever pass they run: splits as the options say, rankings remembered
    with compilation_scope(splits=options.enabled("split_k")):
        for stage_name, run in PASSES:
            t0 = time.perf_counter()
            before = plan
            plan, info = run(plan, ctx)
            # a plan the pass returned unchanged (the same frozen object) was checked after its maker
            done(stage_name, t0, info, None if plan is before else lambda: verify_plan(plan))

    # epilogue: package (plan and context -> Artifact; its own time lands in the report after the fact)
    seconds = time.perf_counter() - t_start
    report = make_report(imported, target, plan, ctx.builds, records, seconds, ctx.verification, options,
                         ctx.tuning, ctx.memory)
    t0 = time.perf_counter()
    artifact = Artifact(plan=plan, cubins={d: b["cubin"] for d, b in ctx.builds.items() if b.get("cubin")},
                        report=report, header=make_header(imported, target, plan, options))
    done("package", t0, {})
    report["compile"]["stages"].append({"name": "package", "seconds": records[-1].seconds})
    report["compile"]["seconds"] = time.perf_counter() - t_start
    return artifact


# Tests set BRICKYARD_CHECK_IR=1: the IR verifiers then run after every stage (DESIGN section 3).
CHECK_IR = os.environ.get("BRICKYARD_CHECK_IR") == "1"


def _import(model, target: Target, options: CompileOptions,
            limits: ImportLimits | None) -> tuple[ImportedModel, dict]:
    """Import, then every tensor checked against the target before anything is built."""
    imported = import_model(model, input_shapes=dict(options.input_shapes), limits=limits or ImportLimits(),
                            max_trip_count=options.max_trip_count, cap_selections=options.enabled("nms_cap"),
                            scatter_boxes=options.enabled("scatter_box"), defer_folds=options.enabled("defer_folds"),
                            merge_repeats=options.enabled("merge_repeats"),
                            qdq_integer=options.enabled("qdq_integer"))
    return imported, check_graph(imported.graph, target)
