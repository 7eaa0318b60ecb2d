"""report.json (DESIGN section 7) and its readable HTML page, and the artifact's header: what
compiler/pipeline.py's epilogue (package) writes from the plan and the passes' results."""
from __future__ import annotations

import html

from .ir.dataflow import all_types, graph_obstacle
from .ir.plan import Plan
from .roller.cost_model import LAUNCH_US, kernel_flops, kernel_flops_dense, kernel_us
from .targets import Target
from .version import compiler_key, package_version


def make_header(imported, target: Target, plan: Plan, options) -> dict:
    """The artifact's header: the model, the target, the compiler, the plan's signature and options."""
    types = dict(plan.types)
    sig = lambda names: [{"name": n, "dtype": types[n].dtype.name, "shape": list(types[n].shape)} for n in names]
    return {"model": {"sha256": imported.model_sha256, "name": imported.name},
            "target": {"name": target.name, "arch": target.arch}, "compiler_version": package_version(),
            "compiler_key": compiler_key(),
            "inputs": sig(plan.inputs), "outputs": sig(plan.outputs), "options": {
                "precision": options.precision, "input_shapes": {n: list(s) for n, s in options.input_shapes},
                "disable": list(options.disable)}}


def make_report(imported, target, plan: Plan, builds, records, seconds, verification, options,
                tuning: dict | None = None) -> dict:
    """report.json: the compilation (stage records, cache hits), one entry per kernel, latency,
    verification, the op histogram and the tuning record."""
    types = dict(plan.types)
    tuning = tuning or {"info": {"status": "skipped", "reason": "not run", "times": "predicted"}, "measured": {}}
    measured = tuning["measured"]
    kernels = []
    total_pred = 0.0
    flops = {"dense": 0, "executed": 0}
    for k in plan.kernels():
        b = builds.get(k.digest, {})
        pred = kernel_us(k, types, target)
        total_pred += pred + LAUNCH_US
        cfg = dict(k.config)
        executed, dense = kernel_flops(k), kernel_flops_dense(k)
        flops["dense"] += dense
        flops["executed"] += executed
        sparse = {"format": cfg["format"], "density": cfg["density"]} if "format" in cfg else {}
        kernels.append({"digest": k.digest, "name": k.entry, "ops": list(k.ops), "config": cfg,
                        "flops": {"dense": dense, "executed": executed, **sparse},
                        "grid": list(k.grid), "block": list(k.block),
                        "shared_bytes": k.shared_bytes + int(b.get("static_shared", 0)),
                        "registers": int(b.get("registers", 0)), "spills": int(b.get("spills", 0)),
                        "predicted_us": round(pred, 3), "measured_us": measured.get(k.digest),
                        "carried": [{"value": v, "level": lvl} for v, lvl in k.carried]})
    build_info = next((r.info for r in records if r.name == "build"), {})
    return {
        "format": 1, "compiler_version": package_version(), "compiler_key": compiler_key(),
        "model": {"sha256": imported.model_sha256, "name": imported.name},
        "target": {"name": target.name, "arch": target.arch}, "precision": options.precision,
        "compile": {"seconds": seconds, "stages": [{"name": r.name, "seconds": r.seconds} for r in records],
                    "cache": {"hits": build_info.get("hits", 0), "misses": build_info.get("misses", 0)}},
        "kernels": kernels,
        "latency": {"predicted_us": round(total_pred, 3), "measured_us": None, "device": None},
        "launches_per_inference": len(kernels),
        "traffic": {"dram_bytes": dram_bytes(plan),
                    "basis": "each launch reads its input buffers and writes its outputs once; region bodies once"},
        "fusion": _fusion(records),
        "flops": flops,
        "sparsity": _sparsity(records),
        "schedule": dict(_schedule(records), cuda_graph=_cuda_graph(plan)),
        "control_flow": _control_flow(records),
        "verification": verification,
        "ops": imported.graph.op_histogram(),
        "times": tuning["info"].get("times", "predicted"),   # kernel times: "measured" or "predicted"
        "tune": tuning["info"],
    }


def dram_bytes(plan: Plan) -> int:
    """The plan's compulsory DRAM traffic per inference: every launch reads each buffer it takes and
    writes each it produces once (what fusion removes: an intermediate kept inside a kernel is
    neither written nor read back). A buffer several members of a co-launch read counts once; one
    a joined launch writes and reads (the barrier variant) counts both ways. Region bodies once."""
    types = all_types(plan)
    total = 0
    for k in plan.kernels():
        total += sum(types[v].nbytes for v, _ in {(p.value, p.output) for p in k.params} if v in types)
    return total


def _fusion(records) -> dict:
    """The welder stage's decisions: its groups (ops, carried values and their levels, the edge that
    stopped each; a shared-memory group's predictions fused and apart), the row chains the cost
    model declined, and the kernel counts before and after."""
    info = next((r.info for r in records if r.name == "welder"), {})
    if not info.get("enabled"):
        return {"enabled": False, "groups": []}
    return {"enabled": True, "kernels_before": info["kernels_before"], "kernels_after": info["kernels_after"],
            "groups": info["groups"], "declined": info.get("declined", [])}


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
    """The rammer stage's decisions: kernels before scheduling, launches after, and each co-launch
    (its members with their blocks and predicted times, the wave, both predictions)."""
    info = next((r.info for r in records if r.name == "rammer"), {})
    if not info.get("enabled"):
        return {"enabled": False, "co_launches": []}
    return {"enabled": True, "kernels": info["kernels"], "launches": info["launches"],
            "co_launches": info["co_launches"], "barriers": info.get("barriers", False),
            "barrier_launches": info.get("barrier_launches", [])}


def _waiting_members(joined: dict) -> str:
    return ", ".join(f"{m['entry']} ({m['blocks']}, waits for {m['waits_for']})" for m in joined["members"])


def _members(co_launch: dict) -> str:
    return ", ".join(f"{m['entry']} ({m['blocks']})" for m in co_launch["members"])


def _fmt(v) -> str:
    return "" if v is None else f"{v:.2f}"


def report_html(report: dict) -> str:
    """A self-contained page: summary, stage times, and one row per kernel."""
    e = html.escape
    comp = report.get("compile", {})
    lat = report.get("latency", {})
    ver = report.get("verification", {})
    rows = "".join(
        f"<tr><td><code>{e(k['name'])}</code></td><td>{e(', '.join(k['ops'][:3]))}{'…' if len(k['ops']) > 3 else ''}</td>"
        f"<td>{k['grid']}</td><td>{k['block']}</td><td>{k['shared_bytes']}</td><td>{k['registers']}</td>"
        f"<td>{k['spills']}</td><td>{k['predicted_us']:.2f}</td>"
        f"<td>{_fmt(k.get('measured_us'))}</td></tr>"
        for k in report.get("kernels", []))
    stages = "".join(f"<tr><td>{e(s['name'])}</td><td>{s['seconds']:.3f}</td></tr>" for s in comp.get("stages", []))
    measured = lat.get("measured_us")
    fusion = report.get("fusion", {})
    groups = "".join(
        f"<tr><td>{e(', '.join(g['ops']))}</td><td>{e(', '.join(f'{v} ({lvl})' for v, lvl in g['carried'].items()))}</td>"
        f"<td>{e(g.get('stopped', ''))}</td></tr>" for g in fusion.get("groups", []))
    fusion_html = (f"<h2>Fusion groups ({len(fusion.get('groups', []))}: {fusion.get('kernels_before')} kernels "
                   f"before, {fusion.get('kernels_after')} after)</h2><table><tr><th>ops</th><th>carried (level)</th>"
                   f"<th>stopped by</th></tr>{groups}</table>") if fusion.get("enabled") else \
        "<h2>Fusion</h2><p>off (--disable welder)</p>"
    sched = report.get("schedule", {})
    co_rows = "".join(
        f"<tr><td>{e(c['entry'])}</td><td>{c['wave']}</td>"
        f"<td>{e(_members(c))}</td>"
        f"<td>{c['predicted_us']['co_launch']:.2f}</td><td>{c['predicted_us']['apart']:.2f}</td></tr>"
        for c in sched.get("co_launches", []))
    bar_rows = "".join(
        f"<tr><td>{e(b['entry'])}</td><td>{b['launches_joined']}</td>"
        f"<td>{e(_waiting_members(b))}</td>"
        f"<td>{b['predicted_us']['joined']:.2f}</td><td>{b['predicted_us']['apart']:.2f}</td></tr>"
        for b in sched.get("barrier_launches", []))
    bar_html = (f"<h3>Launches joined by step counters (--barriers)</h3><table><tr><th>launch</th>"
                f"<th>launches joined</th><th>members (blocks, waits for)</th><th>pred µs</th>"
                f"<th>pred µs apart</th></tr>{bar_rows}</table>") if bar_rows else ""
    graph = sched.get("cuda_graph", {})
    bar_html += ("<p>CUDA graph: the GPU runtime replays the whole plan as one graph</p>" if graph.get("replayed")
                 else f"<p>CUDA graph: plain launches ({e(graph.get('why_not', ''))})</p>")
    sched_html = (f"<h2>Schedule ({sched.get('kernels')} kernels in {sched.get('launches')} launches)</h2>"
                  f"<table><tr><th>co-launch</th><th>wave</th><th>members (blocks)</th><th>pred µs</th>"
                  f"<th>pred µs apart</th></tr>{co_rows}</table>{bar_html}") if sched.get("enabled") else \
        "<h2>Schedule</h2><p>off (--disable rammer)</p>"
    traffic = report.get("traffic", {}).get("dram_bytes")
    cf = report.get("control_flow", {})
    cf_rows = "".join(
        f"<tr><td>{e(r['node'])}</td><td>{e(r['op'])}</td><td>{e(r['runs'])}</td>"
        f"<td>{e(r.get('kernel', '') or r.get('why', ''))}</td></tr>" for r in cf.get("regions", []))
    trips = cf.get("host_round_trips_per_inference")
    cf_html = (f"<h2>Control flow ({'on' if cf.get('enabled') else 'off: --disable grinder'}; host round trips per "
               f"inference: {'depends on the data' if trips is None else trips})</h2><table><tr><th>region</th>"
               f"<th>op</th><th>runs on</th><th>kernel or why not</th></tr>{cf_rows}</table>") if cf_rows else ""
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Brickyard report: {e(report['model']['name'])}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}td:first-child,th:first-child{{text-align:left}}</style></head><body>
<h1>{e(report['model']['name'])} for {e(report['target']['name'])} ({e(report['target']['arch'])})</h1>
<p>Compiler {e(report['compiler_version'])}; precision {e(report['precision'])}; model sha256 <code>{e(report['model']['sha256'][:16])}…</code></p>
<p>Compiled in <b>{comp.get('seconds', 0):.2f} s</b>; kernel cache: {comp.get('cache', {}).get('hits', 0)} hits,
{comp.get('cache', {}).get('misses', 0)} misses. {report.get('launches_per_inference', 0)} launches per inference.</p>
<p>Latency: predicted {lat.get('predicted_us', 0):.1f} µs{'' if measured is None else f', measured {measured:.1f} µs on ' + e(str(lat.get('device')))}
{'(times are predicted: no GPU of this kind measured them)' if measured is None else ''}.</p>
<p>Verification: {e(str(ver.get('device')))} max relative error {ver.get('max_rel_error')}</p>
<p>Predicted DRAM traffic per inference: {'' if traffic is None else f'{traffic:,} bytes'}</p>
<h2>Stages</h2><table><tr><th>stage</th><th>seconds</th></tr>{stages}</table>
<h2>Kernels ({len(report.get('kernels', []))})</h2>
<table><tr><th>kernel</th><th>ops</th><th>grid</th><th>block</th><th>smem</th><th>regs</th><th>spills</th><th>pred µs</th><th>meas µs</th></tr>{rows}</table>
{fusion_html}
{sched_html}
{cf_html}
</body></html>"""
