"""report.json (DESIGN section 7; every field in docs/report.md, checked by report.schema.json beside
this file) and its readable page (report_html.py), and the artifact's header: what
compiler/pipeline.py's epilogue (package) writes from the plan and the passes' results."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from .analysis.dependence import unread_bytes
from .ir.dataflow import all_types, graph_obstacle, reads, writes
from .ir.plan import ComputeStep, LaunchStep, Plan
from .ir.spec import KernelSpec
from .kinds import KINDS
from .passes.grinder import plan_us
from .report_html import report_html
from .roller.cost_model import LAUNCH_US, kernel_flops, kernel_flops_dense, kernel_skipped_bytes, kernel_us
from .targets import Target
from .version import compiler_key, package_version

__all__ = ["FORMAT", "SCHEMA_PATH", "dram_bytes", "make_header", "make_report", "plan_traffic", "report_html",
           "split_specs", "validate_report"]

# report.json's format: 2 added per kernel the roofline fields and op types; time_split, by_op_type,
# roofline, input_shapes, techniques, memory's workspace and verification's outcome (docs/report.md).
FORMAT = 2
SCHEMA_PATH = Path(__file__).with_name("report.schema.json")
# A kernel whose time reaches under this fraction of both its compute and its memory ceiling is
# latency-bound: Nsight Compute's SOLBottleneck rule ("below 60.0% of peak typically indicate latency issues").
LATENCY_SOL = 0.6
# The largest max relative error against onnxruntime a verification passes with, per precision: the
# shared models' acceptance measure in fp32 (tests/models), the tensor-core tests' in reduced precision.
TOLERANCE = {"fp32": 1e-3, "tf32": 1e-2, "fp16": 1e-2, "bf16": 1e-2}
MOE_OPS = ("MoE", "QMoE")     # the ops whose lowering may group experts (ops/moe_groups.py)
NONZERO_OPS = ("NonZero", "Compress")   # the ops whose lowering may scan across a grid (ops/indexing.py)


def make_header(imported, target: Target, plan: Plan, options) -> dict:
    """The artifact's header: the model, the target, the compiler, the plan's signature and options."""
    types = dict(plan.types)
    # an output whose extent on an axis is only known at run time: its shape there is the bound,
    # and a run returns it trimmed (Plan.output_lengths)
    runtime_axis = {o: axis for o, _, axis in plan.output_lengths}
    sig = lambda names: [{"name": n, "dtype": types[n].dtype.name, "shape": list(types[n].shape),
                          **({"runtime_axis": runtime_axis[n]} if n in runtime_axis else {})} for n in names]
    return {"model": {"sha256": imported.model_sha256, "name": imported.name},
            "target": {"name": target.name, "arch": target.arch}, "compiler_version": package_version(),
            "compiler_key": compiler_key(),
            "inputs": sig(plan.inputs), "outputs": sig(plan.outputs), "options": {
                "precision": options.precision, "input_shapes": {n: list(s) for n, s in options.input_shapes},
                "disable": list(options.disable), "kv_cache": options.kv_cache}}


def make_report(imported, target, plan: Plan, builds, records, seconds, verification, options,
                tuning: dict | None = None, memory: dict | None = None) -> dict:
    """report.json: the compilation (stage records, cache hits), one entry per kernel with its place
    on the target's roofline, latency and where it goes, the techniques' measured effects,
    verification, the op histogram and the tuning record."""
    types = all_types(plan)
    tuning = tuning or {"info": {"status": "skipped", "reason": "not run", "times": "predicted"}, "measured": {}}
    measured = tuning["measured"]
    op_types = _op_types(imported.graph)
    kernels = []
    flops = {"dense": 0, "executed": 0}
    for k in plan.kernels():
        b = builds.get(k.digest, {})
        pred = kernel_us(k, types, target)
        cfg = dict(k.config)
        executed, dense = kernel_flops(k), kernel_flops_dense(k)
        flops["dense"] += dense
        flops["executed"] += executed
        sparse = {"format": cfg["format"], "density": cfg["density"]} if "format" in cfg else {}
        meas = measured.get(k.digest)
        kernels.append({"digest": k.digest, "name": k.entry, "ops": list(k.ops),
                        "op_types": _unique(op_types.get(o, "?") for o in k.ops), "config": cfg,
                        "flops": {"dense": dense, "executed": executed, **sparse},
                        "grid": list(k.grid), "block": list(k.block),
                        "shared_bytes": k.shared_bytes + int(b.get("static_shared", 0)),
                        "registers": int(b.get("registers", 0)), "spills": int(b.get("spills", 0)),
                        "predicted_us": round(pred, 3), "measured_us": meas,
                        # the micro-model's (Roller tiled it), or cost_model's fallback (roofline at the grid's share)
                        "prediction": "micro-model" if "predicted_us" in cfg else "fallback estimate",
                        "carried": [{"value": v, "level": lvl} for v, lvl in k.carried],
                        **roofline_point(k, executed, kernel_dram_bytes(k, types),
                                         pred if meas is None else meas, target,
                                         "predicted" if meas is None else "measured")})
    # the launches, and the regions left on the host by their iterations (a kernel of a host
    # region's body is listed once above; an If's branch not taken costs nothing)
    total_pred = plan_us(plan, types, target)
    build_info = next((r.info for r in records if r.name == "build"), {})
    report = {
        "format": FORMAT, "compiler_version": package_version(), "compiler_key": compiler_key(),
        "model": {"sha256": imported.model_sha256, "name": imported.name},
        "target": {"name": target.name, "arch": target.arch}, "precision": options.precision,
        "input_shapes": {n: list(types[n].shape) for n in plan.inputs},
        "compile": {"seconds": seconds, "stages": [{"name": r.name, "seconds": r.seconds} for r in records],
                    "cache": {"hits": build_info.get("hits", 0), "misses": build_info.get("misses", 0)}},
        "kernels": kernels,
        "latency": {"predicted_us": round(total_pred, 3), "measured_us": None, "device": None},
        "launches_per_inference": len(kernels),
        "time_split": _time_split(kernels),
        "by_op_type": _by_op_type(kernels),
        "roofline": _roofline(target),
        "traffic": {"dram_bytes": dram_bytes(plan),
                    "basis": "each launch reads its input buffers and writes its outputs once; region bodies once"},
        "memory": _memory(memory, records),
        "fusion": _fusion(records),
        "flops": flops,
        "sparsity": _sparsity(records),
        "schedule": dict(_schedule(records), cuda_graph=_cuda_graph(plan)),
        "control_flow": _control_flow(records),
        # --kv-cache: how KV-cache nodes give their present; each donated output is written into
        # its input's buffer, which the runtime returns as the output (docs/llm.md)
        "kv_cache": {"mode": options.kv_cache, "donated": {out: src for out, src in plan.donated}},
        "verification": _verification(verification, options.precision),
        "ops": imported.graph.op_histogram(),
        "times": tuning["info"].get("times", "predicted"),   # kernel times: "measured" or "predicted"
        "tune": tuning["info"],
    }
    report["techniques"] = _techniques(report, records, options, imported.selection_caps,
                                       (len(imported.deferred_folds), len(imported.deferred_run)),
                                       imported.repeats_merged, imported.qdq_integer)
    if os.environ.get("BRICKYARD_CHECK_REPORT") == "1":   # the tests set it (tests/conftest.py)
        validate_report(report)
    return report


def validate_report(report: dict) -> None:
    """Raise jsonschema.ValidationError where `report` breaks report.schema.json (jsonschema is a
    test dependency, imported only here)."""
    import jsonschema
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.validate(report, schema, cls=jsonschema.Draft202012Validator)


def kernel_dram_bytes(kernel, types: dict) -> int:
    """A launch's compulsory DRAM traffic: each buffer it reads and each it writes once (a buffer
    several members of a co-launch read counts once; one a joined launch writes and reads counts
    both ways), less the zero tiles a block-sparse kernel never reads."""
    touched = sum(types[v].nbytes for v, _ in {(p.value, p.output) for p in kernel.params} if v in types)
    return touched - kernel_skipped_bytes(kernel)


def roofline_point(kernel, flops: int, nbytes: int, time_us: float, target: Target, basis: str) -> dict:
    """A kernel's place on the target's roofline: its arithmetic intensity, the time its FLOPs take
    at the compute ceiling its instructions can reach and its bytes at DRAM bandwidth, the fraction
    of the roofline (the larger of the two over its time) its time reaches, and what bounds it."""
    ceiling, peak = compute_ceiling(kernel, target)
    compute_us = flops / (peak * 1e6) if peak > 0 else 0.0
    memory_us = nbytes / (target.dram_gbps * 1e3)
    fraction = max(compute_us, memory_us) / time_us if time_us > 0 else 0.0
    if fraction < LATENCY_SOL:
        bound = "latency"
    else:
        bound = "compute" if compute_us >= memory_us else "memory"
    threads = kernel.blocks * kernel.threads
    return {"dram_bytes": nbytes, "arithmetic_intensity": round(flops / nbytes, 4) if nbytes else None,
            "time_us": round(time_us, 3), "time_basis": basis, "bound": bound,
            "roofline_fraction": round(fraction, 4),
            "roofline": {"ceiling": ceiling, "peak_tflops": peak, "compute_us": round(compute_us, 4),
                         "memory_us": round(memory_us, 4),
                         "thread_fill": round(min(1.0, threads / (target.sms * target.max_threads_per_sm)), 4)}}


def compute_ceiling(kernel, target: Target) -> tuple[str, float]:
    """The compute ceiling a kernel's instructions can reach, named, and its peak TFLOP/s (the
    target's figures): the tensor-core peak of its element type for a kind whose arithmetic runs on
    tensor cores (the kind module says so: TENSOR_CORE), fp32 SIMT for every other kernel."""
    cfg = dict(kernel.config)
    if cfg.get("member_math"):      # a launch of several kernels: its members' ceilings, FLOP-weighted
        parts = [(_ceiling(schedule, elem, target), flops) for schedule, elem, flops in cfg["member_math"]]
        names = list(dict.fromkeys(name for (name, _), _ in parts))
        total = sum(f for _, f in parts)
        seconds = sum(f / peak for (_, peak), f in parts if peak > 0)
        if len(names) > 1 and total > 0 and seconds > 0:
            return " + ".join(names), round(total / seconds, 3)
        return parts[0][0] if len(names) == 1 else ("fp32 SIMT", float(target.fp32_tflops))
    return _ceiling(str(cfg.get("schedule", "")), cfg.get("elem"), target)


def _ceiling(schedule: str, elem, target: Target) -> tuple[str, float]:
    kind = KINDS.get(schedule.removeprefix("roller_"))
    if getattr(kind, "TENSOR_CORE", False) and elem:
        peak = target.tensor_core_tflops(elem)
        if peak > 0:
            return f"tensor core {elem}", float(peak)
    return "fp32 SIMT", float(target.fp32_tflops)


def _op_types(graph) -> dict[str, str]:
    """ONNX node name -> op type, subgraphs' nodes included."""
    out: dict[str, str] = {}
    for n in graph.nodes:
        out[n.name] = n.op
        for g in n.subgraphs():
            out.update(_op_types(g))
    return out


def _unique(items) -> list:
    return list(dict.fromkeys(items))


def _time_split(kernels: list[dict]) -> dict:
    """The inference's time: in kernels (measured where the tuner measured them, else predicted)
    and in launch overhead (the cost model's per-launch figure), which the kernel rows alone omit."""
    kernel_us = sum(k["time_us"] for k in kernels)
    overhead = LAUNCH_US * len(kernels)
    total = kernel_us + overhead
    bases = {k["time_basis"] for k in kernels}
    return {"total_us": round(total, 3), "kernels_us": round(kernel_us, 3), "launch_overhead_us": round(overhead, 3),
            "launches": len(kernels), "launch_us_each": LAUNCH_US,
            "kernel_share": round(kernel_us / total, 4) if total else 0.0,
            "kernel_time_basis": bases.pop() if len(bases) == 1 else ("mixed" if bases else "predicted"),
            "by_bound": {b: round(sum(k["time_us"] for k in kernels if k["bound"] == b), 3)
                         for b in ("compute", "memory", "latency")}}


def _by_op_type(kernels: list[dict]) -> list[dict]:
    """Kernel time, FLOPs and traffic per op type as the kernels fused them (a Conv fused with its
    Relu counts under "Conv + Relu": a fused kernel's time is not split among its ops), largest first."""
    rows: dict[str, dict] = {}
    for k in kernels:
        key = " + ".join(k["op_types"]) or "(none)"
        row = rows.setdefault(key, {"op_types": key, "kernels": 0, "nodes": 0, "time_us": 0.0, "flops": 0,
                                    "dram_bytes": 0})
        row["kernels"] += 1
        row["nodes"] += len(k["ops"])
        row["time_us"] += k["time_us"]
        row["flops"] += k["flops"]["executed"]
        row["dram_bytes"] += k["dram_bytes"]
    total = sum(r["time_us"] for r in rows.values())
    for r in rows.values():
        r["time_us"] = round(r["time_us"], 3)
        r["share"] = round(r["time_us"] / total, 4) if total else 0.0
    return sorted(rows.values(), key=lambda r: (-r["time_us"], r["op_types"]))


def _roofline(target: Target) -> dict:
    """The ceilings the kernels' roofline fractions are taken against (the target's own figures)."""
    ceilings = [{"name": "fp32 SIMT", "peak_tflops": float(target.fp32_tflops)}]
    for elem in ("float16", "bfloat16", "float32"):
        peak = target.tensor_core_tflops(elem)
        if peak > 0:
            ceilings.append({"name": f"tensor core {elem}", "peak_tflops": float(peak)})
    return {"dram_gbps": float(target.dram_gbps), "ceilings": ceilings, "latency_threshold": LATENCY_SOL,
            "basis": "a kernel's FLOPs at its ceiling and its compulsory DRAM bytes at the target's bandwidth; "
                     "the fraction is the larger over its time; under the threshold it is latency-bound"}


def kept_splits(records) -> list[dict]:
    """The render stage's split specs (split_specs) that the plan kept: less those the rammer
    stage co-launched in their unsplit forms (its record's `unsplit`, by ops)."""
    render = next((r.info for r in records if r.name == "render"), {})
    rammer = next((r.info for r in records if r.name == "rammer"), {})
    swapped = [u["ops"] for u in rammer.get("unsplit", [])]
    return [x for x in render.get("split", []) if x["ops"] not in swapped]


def _memory(footprint: dict | None, records) -> dict:
    """Device memory: the fit stage's footprint (weights, inputs, the arena with intermediates and
    outputs) and the split configurations' workspaces within the arena (the render stage's record)."""
    fp = footprint or next((r.info for r in records if r.name == "fit"), None) or {}
    return {"weights_bytes": int(fp.get("weights_bytes", 0)), "inputs_bytes": int(fp.get("inputs_bytes", 0)),
            "arena_bytes": int(fp.get("arena_bytes", 0)),
            "workspace_bytes": sum(x["workspace_bytes"] for x in kept_splits(records)),
            "total_bytes": int(fp.get("total_bytes", 0))}


def _verification(verification: dict | None, precision: str) -> dict:
    """The verify stage's result with its outcome against the precision's tolerance; a NaN or
    infinite error (not JSON) is null with `non_finite` saying which. Over the tolerance in tf32, fp16
    or bf16, the outcome is `within rounding` where onnxruntime itself, with the contractions' operands
    rounded the same way, moves at least as far (`rounding_error`), or where the plan matches that
    rounded onnxruntime within the tolerance (`rounded_reference_error`): the model's sensitivity to the
    precision, not a wrong kernel. Where onnxruntime's outputs hold no finite value, the outcome is
    `inconclusive`: both sides' NaNs agree, but no number was compared."""
    v = verification or {}
    device, err = v.get("device"), v.get("max_rel_error")
    tol = TOLERANCE.get(precision, TOLERANCE["fp32"])
    rounding = v.get("rounding_error")
    rounding = rounding if rounding is not None and math.isfinite(rounding) else None
    against_rounded = v.get("rounded_reference_error")
    against_rounded = against_rounded if against_rounded is not None and math.isfinite(against_rounded) else None
    out = {"device": device, "max_rel_error": err, "tolerance": tol, "non_finite": None, "rounding_error": rounding,
           "rounded_reference_error": against_rounded, "reference_finite": v.get("reference_finite"),
           "inputs": v.get("inputs")}
    if device is None:
        return dict(out, outcome="not run")
    if err is None or not math.isfinite(err):
        kind = None if err is None else ("nan" if math.isnan(err) else "inf")
        return dict(out, max_rel_error=None, non_finite=kind, outcome="failed")
    if out["reference_finite"] == 0.0:    # onnxruntime gave NaN or infinity everywhere: equal, but nothing was compared
        return dict(out, outcome="inconclusive")
    if err <= tol:
        return dict(out, outcome="passed")
    # the precision explains the error: the rounded reference moves as far, or the plan matches it
    explained = rounding is not None and (err <= rounding or against_rounded is not None and against_rounded <= tol)
    return dict(out, outcome="within rounding" if explained else "failed")


def _techniques(report: dict, records, options, caps=(), deferred=(0, 0), merged=0, qdq_integer=0) -> list[dict]:
    """Each technique the pipeline applies, whether it ran, and its effect where a stage measured it."""
    info = {r.name: r.info for r in records}
    fusion, sched, sp, cf = report["fusion"], report["schedule"], report["sparsity"], report["control_flow"]
    welder, grinder, tune = info.get("welder", {}), info.get("grinder", {}), report["tune"]
    unsplit, split = sched.get("unsplit", []), kept_splits(records)
    half, imma = info.get("half_storage", {}), info.get("imma", {})
    dense, executed = report["flops"]["dense"], report["flops"]["executed"]
    regions = cf["regions"]
    graph = sched["cuda_graph"]
    def priced(ops) -> list[dict]:
        """The nodes of `ops` whose lowering priced its ways (LowerCtx.cheapest), and the way taken;
        `alike`: each way priced as one of that many nodes of its wave co-launched (passes/lower.py)."""
        return [{k: c[k] for k in ("node", "chosen", "predicted_us", "alike") if k in c}
                for c in info.get("lower", {}).get("choices", []) if c["op"] in ops]
    # only a MoE node whose ways were priced is grouped
    moe_choices, nms_choices = priced(MOE_OPS), priced(("NonMaxSuppression",))
    topk_choices, nonzero_choices = priced(("TopK",)), priced(NONZERO_OPS)
    return [
        {"name": "fusion", "stage": "welder", "enabled": fusion["enabled"], "effect": {
            k: welder[k] for k in ("kernels_before", "kernels_after", "dram_bytes_before", "dram_bytes_after",
                                   "float_epilogues", "part_reads") if k in welder}},
        {"name": "scheduling", "stage": "rammer", "enabled": sched["enabled"], "effect": {
            "launches_before": sched["kernels"], "launches_after": sched["launches"],
            "co_launches": len(sched["co_launches"]),
            "barrier_launches": len(sched.get("barrier_launches", []))} if sched["enabled"] else {}},
        {"name": "sparsity", "stage": "sparta", "enabled": sp["enabled"], "effect": {
            "sparse_kernels": sp["sparse_kernels"], "flops_dense": dense, "flops_executed": executed,
            "flops_skipped": dense - executed} if sp["enabled"] else {}},
        {"name": "control flow on the device", "stage": "grinder", "enabled": cf["enabled"], "effect": {
            "regions": len(regions), "on_device": sum(1 for r in regions if r.get("runs") == "device"),
            "host_round_trips_before": grinder.get("host_round_trips_before",
                                                   cf["host_round_trips_per_inference"]),
            "host_round_trips_after": cf["host_round_trips_per_inference"]}},
        {"name": "precision", "stage": "precision", "enabled": report["precision"] != "fp32", "effect": {
            "precision": report["precision"],
            "tensor_core_kernels": sum(1 for k in report["kernels"]
                                       if k["roofline"]["ceiling"].startswith("tensor core"))}},
        {"name": "int8 tensor cores", "stage": "imma", "enabled": imma.get("enabled", False), "effect": {
            "contractions": imma.get("contractions", 0), "weights_shifted": imma.get("weights", 0),
            "kept": imma.get("kept", {}), **({"why_not": imma["why_not"]} if "why_not" in imma else {}),
            "integer_mma_kernels": sum(1 for k in report["kernels"] if k["config"].get("elem") in ("int8", "uint8"))}
         if imma.get("enabled") else {}},
        {"name": "half storage", "stage": "half_storage", "enabled": half.get("enabled", False), "effect": {
            "values": [v["value"] for v in half["values"]], "bytes_saved": half["bytes_saved"],
            "kept": [{"value": v["value"], "predicted_us": v["predicted_us"]} for v in half.get("kept", [])],
            "dram_bytes_before": half["dram_bytes_before"], "dram_bytes_after": half["dram_bytes_after"]}
         if half.get("enabled") else {}},
        {"name": "split-K", "stage": "roller", "enabled": options.enabled("split_k") and options.enabled("roller"),
         "effect": {"split_kernels": len(split), "split": split, "unsplit_to_co_launch": len(unsplit),
                    "workspace_bytes": sum(x["workspace_bytes"] for x in split)}},
        {"name": "tuning", "stage": "tune", "enabled": tune.get("status") not in ("skipped", "disabled"),
         "effect": {k: tune[k] for k in ("status", "reason", "times") if k in tune}},
        {"name": "grouped experts", "stage": "lower", "enabled": options.enabled("grouped_experts"),
         "effect": {"moe_nodes": sum(n for op, n in report["ops"].items() if op in MOE_OPS),
                    "grouped": sum(c["chosen"] != "pairs" for c in moe_choices), "priced": moe_choices}},
        {"name": "NMS cap", "stage": "import", "enabled": options.enabled("nms_cap"),
         "effect": {"capped": [{"node": c.node, "requested": c.requested, "cap": c.cap, "readers": list(c.readers)}
                               for c in caps]}},
        {"name": "deferred folds", "stage": "import", "enabled": options.enabled("defer_folds"),
         "effect": {"deferred": deferred[0], "run_with_the_model": deferred[1]}},
        {"name": "merged repeats", "stage": "import", "enabled": options.enabled("merge_repeats"),
         "effect": {"merged": merged}},
        {"name": "integer QDQ contractions", "stage": "import", "enabled": options.enabled("qdq_integer"),
         "effect": {"rewritten": qdq_integer}},
        {"name": "box scatter", "stage": "import", "enabled": options.enabled("scatter_box"),
         "effect": {"scatter_boxes": report["ops"].get("ScatterBox", 0),
                    "scatter_nd_left": report["ops"].get("ScatterND", 0)}},
        {"name": "bitmask NMS", "stage": "lower", "enabled": options.enabled("nms_bitmask"),
         "effect": {"nms_nodes": report["ops"].get("NonMaxSuppression", 0),
                    "bitmask": sum(c["chosen"].startswith("bitmask") for c in nms_choices), "priced": nms_choices}},
        {"name": "radix TopK", "stage": "lower", "enabled": options.enabled("radix_topk"),
         "effect": {"topk_nodes": report["ops"].get("TopK", 0),
                    "radix": sum(c["chosen"] != "ranks" for c in topk_choices), "priced": topk_choices}},
        {"name": "grid NonZero", "stage": "lower", "enabled": options.enabled("nonzero_grid"),
         "effect": {"nonzero_nodes": sum(report["ops"].get(op, 0) for op in NONZERO_OPS),
                    "grid": sum(c["chosen"] == "grid" for c in nonzero_choices), "priced": nonzero_choices}},
        {"name": "KV cache in place", "stage": "lower", "enabled": bool(report["kv_cache"]["donated"]),
         "effect": {"donated_outputs": len(report["kv_cache"]["donated"])} if report["kv_cache"]["donated"] else
         {"mode": report["kv_cache"]["mode"]}},
        {"name": "CUDA graph replay", "stage": "runtime", "enabled": graph["replayed"],
         "effect": {} if graph["replayed"] else {"why_not": graph["why_not"]}},
    ]


def dram_bytes(plan: Plan) -> int:
    """The plan's compulsory DRAM traffic per inference: every launch reads each buffer it takes and
    writes each it produces once (what fusion removes: an intermediate kept inside a kernel is
    neither written nor read back). Region bodies once."""
    types = all_types(plan)
    return sum(kernel_dram_bytes(k, types) for k in plan.kernels())


def plan_traffic(plan: Plan) -> int:
    """dram_bytes of a plan whose kernels may not be rendered yet (what the welder stage measures
    before and after fusing): each spec reads its inputs and writes its outputs once."""
    types = all_types(plan)
    total = 0
    for s in plan.steps_within():
        if isinstance(s, LaunchStep):
            total += kernel_dram_bytes(s.kernel, types)
        elif isinstance(s, ComputeStep):
            total += sum(types[v].nbytes for v in reads(s) | writes(s) if v in types)
            if isinstance(s.spec, KernelSpec):
                total -= unread_bytes(s.spec.stages, types)
    return total


def split_specs(plan: Plan) -> list[dict]:
    """The unrendered specs whose configuration divides a reduction among blocks (split-K, a split
    reduction, flash decoding's key splits): `ops`, `kind`, `split_k` (the slices) and
    `workspace_bytes`, in plan order."""
    types = all_types(plan)
    return [{"ops": list(s.spec.ops), "kind": s.spec.kind, "split_k": s.spec.config.split_k,
             "workspace_bytes": types[s.spec.workspace].nbytes if s.spec.workspace in types else 0}
            for s in plan.steps_within() if isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec)
            and s.spec.config is not None and s.spec.config.split_k > 1]


def _fusion(records) -> dict:
    """The welder stage's decisions: its groups (ops, carried values and their levels, the edge that
    stopped each; a shared-memory group's predictions fused and apart), the row chains the cost
    model declined, the data-movement kernels duplicated into their readers, and the kernel counts
    before and after, the index divisions canonicalisation removed (passes/indices.py), the
    operand maps joined to attention kernels (passes/prologue.py), the maps moved into a
    reshaped reduction's shape (passes/sink_reshapes.py), and the choice of float epilogue chains
    (pipeline._welder: the decisions the rule changed, the plan priced with and without it, which
    was kept)."""
    info = next((r.info for r in records if r.name == "welder"), {})
    if not info.get("enabled"):
        return {"enabled": False, "groups": []}
    return {"enabled": True, "shared_level": info["shared_level"], "prologue": info["prologue"],
            "sink_reshapes": info.get("sink_reshapes", True),
            "stitched_maps": info["stitched_maps"],
            "kernels_before": info["kernels_before"], "kernels_after": info["kernels_after"],
            "groups": info["groups"], "duplicated": info.get("duplicated", []), "declined": info.get("declined", []),
            "index_divisions": info["index_divisions"], "prologues": info["prologues"],
            "reshapes_sunk": info.get("reshapes_sunk", []), "split_rows": info.get("split_rows", []),
            "float_epilogues": info.get("float_epilogues", {"enabled": False, "decisions": 0, "changed": False, "kept": False}),
            "part_reads": info.get("part_reads", {"enabled": False, "met": 0, "changed": False, "kept": "always"})}


def _sparsity(records) -> dict:
    """The sparta stage's findings: each sparse tensor's attribute (weights and what propagation
    derived) and, per contraction over a constant operand with zeros, the dense and block-sparse
    predictions and the choice."""
    info = next((r.info for r in records if r.name == "sparta"), {})
    return {"enabled": bool(info.get("enabled")), "tensors": info.get("tensors", {}),
            "kernels": info.get("kernels", []), "sparse_kernels": info.get("sparse_kernels", 0)}


def _control_flow(records) -> dict:
    """The grinder stage's decisions: per If/Loop/Scan region whether it runs on the device (one
    persistent kernel) or on the host, and why; the device-to-host reads left per inference (None
    where the data decides)."""
    info = next((r.info for r in records if r.name == "grinder"), {})
    return {"enabled": bool(info.get("enabled")), "regions": info.get("regions", []),
            "host_round_trips_per_inference": info.get("host_round_trips_per_inference", 0)}


def _cuda_graph(plan: Plan) -> dict:
    """Whether the GPU runtime replays this plan as one CUDA graph (its default), or why not."""
    why = graph_obstacle(plan)
    return {"replayed": why is None, "why_not": why or "",
            "basis": "brickyard run --device gpu and Executor(graph=True) capture once, replay per inference; "
                     "--launches plain opts out"}


def _schedule(records) -> dict:
    """The rammer stage's decisions: kernels before scheduling, launches after, each co-launch
    (its members with their blocks and predicted times, the wave, both predictions), and the
    split kernels it replaced by their unsplit forms to co-launch them (`unsplit`)."""
    info = next((r.info for r in records if r.name == "rammer"), {})
    if not info.get("enabled"):
        return {"enabled": False, "co_launches": [], "unsplit": []}
    return {"enabled": True, "kernels": info["kernels"], "launches": info["launches"],
            "co_launches": info["co_launches"], "barriers": info.get("barriers", False),
            "barrier_launches": info.get("barrier_launches", []), "unsplit": info.get("unsplit", [])}
