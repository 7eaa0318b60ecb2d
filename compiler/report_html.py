"""report.html: report.json as a page a user reads offline (DESIGN section 7; docs/report.md).

One self-contained file: the summary (latency, where it goes, the five slowest kernels and what
bounds each), the time split and the kernels' roofline as SVG drawn here, the kernel table (its
headers sort it, by the page's own script), the techniques, fusion groups, schedule and control
flow. Nothing is fetched: no CDN, no font, no image. Reads the report dict only (no compiler
imports), so any report.json renders."""
from __future__ import annotations

import html
import math

e = html.escape

BOUND_COLORS = {"compute": "#c0392b", "memory": "#2471a3", "latency": "#7f8c8d"}
SPLIT_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
OVERHEAD_COLOR = "#d62728"
SPLIT_GROUPS = 7     # op-type groups drawn in the time split before the rest are "other kernels"
# the welder's policies for a map that reads a reduction in part (passes/welder.py PART_READS)
PART_READ_WORDS = {"never": "never taken", "cheap": "taken where cheap", "always": "always taken"}


def _us(v) -> str:
    return "" if v is None else f"{v:,.2f}"


def _pct(x) -> str:
    return "" if x is None else f"{100 * x:.0f}%" if x >= 0.01 else f"{100 * x:.1f}%"


def _bytes(n) -> str:
    if n is None:
        return ""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


def _count(n) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return str(n)


def verification_sentence(v: dict | None) -> str:
    """The verify stage's result as a sentence: not run, passed, within rounding, inconclusive or
    failed (and by how much)."""
    v = v or {}
    device, err, tol = v.get("device"), v.get("max_rel_error"), v.get("tolerance")
    outcome = v.get("outcome") or ("not run" if device is None else "passed")
    if device is None or outcome == "not run":
        return ("Verification was not run: compile with --verify host (or --verify gpu) to compare the "
                "compiled model with onnxruntime on random inputs.")
    where = "on the host (the generated CUDA run on the CPU)" if device == "host" else f"on the {device}"
    if v.get("inputs") == "given":
        where += ", on the given inputs"
    if v.get("non_finite"):
        return (f"Verification failed {where}: the outputs differ from onnxruntime's by "
                f"{'NaN' if v['non_finite'] == 'nan' else 'an infinite amount'}.")
    tol_text = "" if tol is None else f" (tolerance {tol:.0e})"
    if outcome == "passed":
        return (f"Verification passed {where}: the outputs match onnxruntime's within a max relative "
                f"error of {err:.2e}{tol_text}.")
    rounding = v.get("rounding_error")
    if outcome == "inconclusive":
        return (f"Verification {where} was inconclusive: onnxruntime's outputs on the verification inputs are all "
                f"NaN or infinite, and the compiled model's agree, so no number was compared. Check the model "
                f"with inputs it is meant for (`brickyard run` on an .npz).")
    if outcome == "within rounding":
        against = v.get("rounded_reference_error")
        if rounding is not None and err > rounding and against is not None:
            return (f"Verification {where}: the outputs differ from onnxruntime's by a max relative error of "
                    f"{err:.2e}{tol_text}, and match onnxruntime's with the contractions' operands rounded the "
                    f"same way within {against:.2e} (that rounding alone moves onnxruntime by {rounding:.2e}): the "
                    f"model is sensitive to this precision.")
        return (f"Verification {where}: the outputs differ from onnxruntime's by a max relative error of "
                f"{err:.2e}{tol_text}, no more than onnxruntime's own error of {rounding:.2e} with the "
                f"contractions' operands rounded the same way: the model is sensitive to this precision.")
    also = ("" if rounding is None else
            f" (onnxruntime with the contractions' operands rounded the same way is off by {rounding:.2e})")
    return (f"Verification failed {where}: the outputs differ from onnxruntime's by a max relative "
            f"error of {err:.2e}{tol_text}{also}.")


def _t(us) -> str:
    """A short duration: ns under 0.1 µs, three significant digits."""
    return f"{us * 1e3:.3g} ns" if us < 0.1 else f"{us:.3g} µs"


def why_slow(k: dict, report: dict) -> str:
    """What bounds a kernel, in words, from its roofline fields."""
    r = k.get("roofline", {})
    frac = k.get("roofline_fraction", 0.0)
    bound = k.get("bound")
    ceiling = e(r.get("ceiling", "fp32 SIMT"))
    if bound == "compute":
        return f"compute-bound: reaches {_pct(frac)} of the {ceiling} peak ({r.get('peak_tflops', 0):g} TFLOP/s)"
    if bound == "memory":
        bw = report.get("roofline", {}).get("dram_gbps", 0)
        return (f"memory-bound: moves {_bytes(k.get('dram_bytes'))} at {_pct(frac)} of DRAM bandwidth "
                f"({bw:g} GB/s)")
    fill = r.get("thread_fill", 1.0)
    cause = (f"its {'×'.join(map(str, k['grid']))} blocks of {'×'.join(map(str, k['block']))} threads fill "
             f"{_pct(fill)} of the GPU's thread slots, too few to hide latency" if fill < 0.5 else
             "the GPU is full, so dependent steps and synchronisation, not throughput, set its time")
    return (f"latency-bound: reaches {_pct(frac)} of its roofline (at peak, its FLOPs take {_t(r.get('compute_us', 0))} "
            f"on {ceiling} and its DRAM bytes {_t(r.get('memory_us', 0))}); {cause}")


def _summary(report: dict) -> str:
    lat = report.get("latency", {})
    split = report.get("time_split", {})
    kernels = report.get("kernels", [])
    target = report.get("target", {})
    measured = lat.get("measured_us")
    if measured is not None:
        head = f"Measured latency <b id='latency'>{_us(measured)} µs</b> on {e(str(lat.get('device')))}"
        head += f" (predicted {_us(lat.get('predicted_us'))} µs)."
    else:
        head = (f"Predicted latency <b id='latency'>{_us(lat.get('predicted_us'))} µs</b> per inference on "
                f"{e(target.get('name', ''))} ({e(target.get('arch', ''))}): the cost model's figure, no GPU "
                f"measured it.")
    total = split.get("total_us") or 0.0
    kshare = split.get("kernel_share", 0.0)
    basis = split.get("kernel_time_basis", "predicted")
    where = (f"Where it goes: <b>{_us(split.get('kernels_us'))} µs ({_pct(kshare)})</b> in {len(kernels)} kernels "
             f"({basis} kernel times) and <b>{_us(split.get('launch_overhead_us'))} µs ({_pct(1 - kshare if total else 0)})"
             f"</b> in launch overhead ({split.get('launches', 0)} launches × {split.get('launch_us_each', 0):g} µs).")
    by_bound = split.get("by_bound", {})
    kus = split.get("kernels_us") or 0.0
    if kus:
        where += " Of the kernel time, " + ", ".join(
            f"{_pct(by_bound[b] / kus)} is {b}-bound" for b in ("latency", "memory", "compute")
            if by_bound.get(b)) + "."
    ops = report.get("by_op_type", [])[:3]
    op_text = ("Most kernel time by op type: " + "; ".join(
        f"{e(o['op_types'])} {_pct(o['share'])} ({o['kernels']} kernel{'s' if o['kernels'] != 1 else ''})"
        for o in ops) + ".") if ops else ""
    order = sorted(range(len(kernels)), key=lambda i: -kernels[i].get("time_us", 0.0))[:5]
    top = "".join(
        f"<li data-kernel='{i}'><a href='#k{i}'><code>{e(kernels[i]['name'])}</code></a> "
        f"({e(', '.join(kernels[i].get('op_types', [])))}; {len(kernels[i]['ops'])} node"
        f"{'s' if len(kernels[i]['ops']) != 1 else ''}): <b>{_us(kernels[i].get('time_us'))} µs</b>"
        f" ({_pct(kernels[i].get('time_us', 0) / total if total else 0)} of the total). "
        f"{why_slow(kernels[i], report)}.</li>" for i in order)
    mem = report.get("memory", {})
    mem_text = (f"Device memory: {_bytes(mem.get('total_bytes'))} in all: weights {_bytes(mem.get('weights_bytes'))}, "
                f"the arena of intermediates and outputs {_bytes(mem.get('arena_bytes'))} (of it split workspaces "
                f"{_bytes(mem.get('workspace_bytes', 0))}), inputs {_bytes(mem.get('inputs_bytes'))}.") if mem else ""
    shapes = report.get("input_shapes", {})
    shape_text = ("Compiled for inputs " + ", ".join(
        f"<code>{e(n)}</code> [{', '.join(str(d) for d in s)}]" for n, s in shapes.items()) +
        f" at precision {e(str(report.get('precision')))}.") if shapes else ""
    return (f"<section id='summary'><h2>Summary</h2><p class='headline'>{head}</p><p id='where'>{where}</p>"
            f"<p>{op_text}</p><h3>The five slowest kernels</h3><ol id='top-kernels'>{top}</ol>"
            f"<p id='verification'>{e(verification_sentence(report.get('verification')))}</p>"
            f"<p id='memory'>{mem_text}</p><p id='inputs'>{shape_text}</p></section>")


def _time_split_svg(report: dict) -> str:
    """A stacked bar: kernel time per op-type group, then launch overhead; widths proportional."""
    split = report.get("time_split", {})
    groups = list(report.get("by_op_type", []))
    segs = [(g["op_types"], g["time_us"]) for g in groups[:SPLIT_GROUPS]]
    rest = sum(g["time_us"] for g in groups[SPLIT_GROUPS:])
    if rest > 0:
        segs.append((f"other kernels ({len(groups) - SPLIT_GROUPS} op-type groups)", rest))
    segs.append(("launch overhead", split.get("launch_overhead_us", 0.0)))
    total = sum(us for _, us in segs) or 1.0
    width, height, x = 900.0, 36.0, 0.0
    rects, legend = [], []
    for i, (label, us) in enumerate(segs):
        overhead = i == len(segs) - 1
        color = OVERHEAD_COLOR if overhead else SPLIT_COLORS[i % len(SPLIT_COLORS)]
        w = width * us / total
        tip = f"{label}: {us:.2f} µs ({100 * us / total:.1f}%)"
        rects.append(f"<rect class='split-seg{' overhead' if overhead else ''}' x='{x:.2f}' y='0' "
                     f"width='{w:.2f}' height='{height}' fill='{color}' data-us='{us:.3f}' "
                     f"data-label='{e(label)}'><title>{e(tip)}</title></rect>")
        legend.append(f"<li><span class='swatch' style='background:{color}'></span>{e(tip)}</li>")
        x += w
    return (f"<section id='time-split'><h2>Time split</h2><svg class='split' viewBox='0 0 {width:.0f} {height:.0f}' "
            f"width='{width:.0f}' height='{height:.0f}' role='img' aria-label='time split'>{''.join(rects)}</svg>"
            f"<ul class='legend'>{''.join(legend)}</ul></section>")


def _roofline_svg(report: dict) -> str:
    """Log-log roofline: achieved GFLOP/s against FLOPs per DRAM byte, one point per kernel, under the
    DRAM slope and the compute ceilings the kernels use (kernels without FLOPs sit on the floor)."""
    kernels = report.get("kernels", [])
    roof = report.get("roofline", {})
    bw = roof.get("dram_gbps", 1.0)                   # GB/s: GFLOP/s = bw * intensity on the slope
    used = {k.get("roofline", {}).get("ceiling") for k in kernels} | {"fp32 SIMT"}
    ceilings = [c for c in roof.get("ceilings", []) if c["name"] in used]
    pts = []
    for i, k in enumerate(kernels):
        t = k.get("time_us") or 0.0
        flops = k.get("flops", {}).get("executed", 0)
        gflops = flops / (t * 1e3) if t > 0 else 0.0
        pts.append((i, k.get("arithmetic_intensity"), gflops))
    xs = [x for _, x, _ in pts if x] or [1.0]
    ys = [y for _, _, y in pts if y > 0] or [1.0]
    peak = max((c["peak_tflops"] * 1e3 for c in ceilings), default=1e3)
    ridge = min(c["peak_tflops"] * 1e3 for c in ceilings) / bw if ceilings else 1.0
    x_lo = 10 ** math.floor(math.log10(min(xs + [ridge]) / 2))
    x_hi = 10 ** math.ceil(math.log10(max(xs + [ridge * 10]) * 2))
    y_lo = 10 ** math.floor(math.log10(min(ys) / 2))
    y_hi = 10 ** math.ceil(math.log10(peak * 2))
    W, H, L, R, T, B = 720, 440, 70, 20, 20, 50

    def px(x):
        return L + (math.log10(x) - math.log10(x_lo)) / (math.log10(x_hi) - math.log10(x_lo)) * (W - L - R)

    def py(y):
        return H - B - (math.log10(y) - math.log10(y_lo)) / (math.log10(y_hi) - math.log10(y_lo)) * (H - T - B)

    parts = [f"<rect x='{L}' y='{T}' width='{W - L - R}' height='{H - T - B}' fill='#fafafa' stroke='#999'/>"]
    for d in range(round(math.log10(x_lo)), round(math.log10(x_hi)) + 1):
        X = px(10.0 ** d)
        parts.append(f"<line x1='{X:.1f}' y1='{T}' x2='{X:.1f}' y2='{H - B}' stroke='#e5e5e5'/>"
                     f"<text x='{X:.1f}' y='{H - B + 16}' text-anchor='middle' class='tick'>1e{d}</text>")
    for d in range(round(math.log10(y_lo)), round(math.log10(y_hi)) + 1):
        Y = py(10.0 ** d)
        parts.append(f"<line x1='{L}' y1='{Y:.1f}' x2='{W - R}' y2='{Y:.1f}' stroke='#e5e5e5'/>"
                     f"<text x='{L - 6}' y='{Y + 4:.1f}' text-anchor='end' class='tick'>1e{d}</text>")
    parts.append(f"<text x='{(L + W - R) / 2}' y='{H - 10}' text-anchor='middle'>arithmetic intensity "
                 f"(FLOP per DRAM byte)</text><text transform='translate(16,{(T + H - B) / 2}) rotate(-90)' "
                 f"text-anchor='middle'>achieved GFLOP/s</text>")
    for c in ceilings:
        p = c["peak_tflops"] * 1e3
        knee = p / bw
        x0 = max(x_lo, y_lo / bw)
        parts.append(f"<polyline class='roof' fill='none' stroke='#333' stroke-width='1.5' "
                     f"stroke-dasharray='{'none' if c['name'] == 'fp32 SIMT' else '6 4'}' points='"
                     f"{px(x0):.1f},{py(bw * x0):.1f} {px(knee):.1f},{py(p):.1f} {px(x_hi):.1f},{py(p):.1f}'>"
                     f"<title>{e(c['name'])}: {c['peak_tflops']:g} TFLOP/s; DRAM {bw:g} GB/s</title></polyline>"
                     f"<text x='{W - R - 4}' y='{py(p) - 5:.1f}' text-anchor='end' class='tick'>{e(c['name'])} "
                     f"{c['peak_tflops']:g} TFLOP/s</text>")
    for i, x, y in pts:
        k = kernels[i]
        floor = not x or y <= 0
        X, Y = px(x if x else x_lo), py(y if y > 0 else y_lo)
        color = BOUND_COLORS.get(k.get("bound"), "#555")
        tip = (f"{k['name']} ({', '.join(k.get('op_types', []))}): {k.get('time_us', 0):.2f} µs, "
               f"{k.get('bound')}-bound, {_pct(k.get('roofline_fraction'))} of the roofline"
               + ("; no FLOPs counted (moves data)" if floor else f"; {y:,.1f} GFLOP/s at {x:.3g} FLOP/B"))
        parts.append(f"<circle class='kpoint{' floor' if floor else ''}' data-kernel='{i}' "
                     f"data-bound='{e(str(k.get('bound')))}' "
                     f"cx='{X:.1f}' cy='{Y:.1f}' r='5' fill='{'white' if floor else color}' stroke='{color}' "
                     f"stroke-width='1.5'><title>{e(tip)}</title></circle>")
    legend = " ".join(f"<span><span class='swatch' style='background:{c}'></span>{b}-bound</span>"
                      for b, c in BOUND_COLORS.items())
    basis = e(report.get("time_split", {}).get("kernel_time_basis", "predicted"))
    return (f"<section id='roofline'><h2>Roofline</h2><p>Each point is one kernel at its {basis} "
            f"time against the {e(report.get('target', {}).get('name', ''))} roofline (DRAM {bw:g} GB/s; the ceilings "
            f"its kernels use). Hollow points on the floor count no FLOPs. {legend}</p>"
            f"<svg class='roofline' viewBox='0 0 {W} {H}' width='{W}' height='{H}' role='img' "
            f"aria-label='roofline'>{''.join(parts)}</svg></section>")


# (header, sort type, cell value for sorting, cell text) for the kernel table
def _kernel_columns(report: dict):
    total = report.get("time_split", {}).get("total_us") or 0.0
    return [
        ("#", "num", lambda i, k: i, lambda i, k: str(i)),
        ("kernel", "text", lambda i, k: k["name"], lambda i, k: f"<code>{e(k['name'])}</code>"),
        ("ONNX nodes", "text", lambda i, k: ", ".join(k["ops"]), lambda i, k: e(", ".join(k["ops"]))),
        ("op types", "text", lambda i, k: " + ".join(k.get("op_types", [])),
         lambda i, k: e(" + ".join(k.get("op_types", [])))),
        ("µs", "num", lambda i, k: k.get("time_us", 0), lambda i, k: _us(k.get("time_us"))),
        ("% of total", "num", lambda i, k: k.get("time_us", 0) / total if total else 0,
         lambda i, k: _pct(k.get("time_us", 0) / total if total else 0)),
        ("bound", "text", lambda i, k: k.get("bound", ""), lambda i, k: e(str(k.get("bound", "")))),
        ("roofline", "num", lambda i, k: k.get("roofline_fraction", 0), lambda i, k: _pct(k.get("roofline_fraction"))),
        ("FLOPs", "num", lambda i, k: k["flops"]["executed"], lambda i, k: _count(k["flops"]["executed"])),
        ("DRAM bytes", "num", lambda i, k: k.get("dram_bytes", 0), lambda i, k: _bytes(k.get("dram_bytes"))),
        ("FLOP/B", "num", lambda i, k: k.get("arithmetic_intensity") or 0,
         lambda i, k: "" if k.get("arithmetic_intensity") is None else f"{k['arithmetic_intensity']:.3g}"),
        ("grid", "text", lambda i, k: k["grid"], lambda i, k: "×".join(map(str, k["grid"]))),
        ("block", "text", lambda i, k: k["block"], lambda i, k: "×".join(map(str, k["block"]))),
        ("smem", "num", lambda i, k: k["shared_bytes"], lambda i, k: str(k["shared_bytes"])),
        ("regs", "num", lambda i, k: k["registers"], lambda i, k: str(k["registers"])),
        ("spills", "num", lambda i, k: k["spills"], lambda i, k: str(k["spills"])),
        ("pred µs", "num", lambda i, k: k["predicted_us"], lambda i, k: _us(k["predicted_us"])),
        ("predicted by", "text", lambda i, k: k.get("prediction", ""), lambda i, k: e(k.get("prediction", ""))),
        ("meas µs", "num", lambda i, k: -1 if k.get("measured_us") is None else k["measured_us"],
         lambda i, k: _us(k.get("measured_us"))),
    ]


def _kernel_table(report: dict) -> str:
    cols = _kernel_columns(report)
    head = "".join(f"<th data-type='{t}' aria-sort='none' title='click to sort'>{e(h)}</th>" for h, t, _, _ in cols)
    rows = []
    for i, k in enumerate(report.get("kernels", [])):
        cells = "".join(f"<td data-v='{e(str(v(i, k)))}'>{txt(i, k)}</td>" for _, _, v, txt in cols)
        rows.append(f"<tr id='k{i}' data-bound='{e(str(k.get('bound')))}'>{cells}</tr>")
    return (f"<section id='kernels'><h2>Kernels ({len(rows)} launches; click a header to sort)</h2>"
            f"<div class='scroll'><table class='sortable' id='kernel-table'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div></section>")


def _op_type_table(report: dict) -> str:
    rows = "".join(f"<tr><td>{e(o['op_types'])}</td><td>{o['kernels']}</td><td>{o['nodes']}</td>"
                   f"<td>{_us(o['time_us'])}</td><td>{_pct(o['share'])}</td><td>{_count(o['flops'])}</td>"
                   f"<td>{_bytes(o['dram_bytes'])}</td></tr>" for o in report.get("by_op_type", []))
    return (f"<section id='op-types'><h2>Kernel time by op type (as fused)</h2><table><tr><th>op types</th>"
            f"<th>kernels</th><th>nodes</th><th>µs</th><th>share</th><th>FLOPs</th><th>DRAM bytes</th></tr>"
            f"{rows}</table></section>")


def technique_sentence(t: dict) -> str:
    """A technique's record in words."""
    name, fx = t["name"], t.get("effect", {})
    if not t.get("enabled"):
        if name == "precision":
            return "Precision: fp32 throughout (--precision tf32, fp16 or bf16 puts contractions on tensor cores)."
        if name == "tuning":
            return f"Tuning: not run ({fx.get('reason', 'skipped')}); kernel times are predicted."
        if name == "half storage":
            return "Half storage: off (values stay fp32 between kernels; it runs with --precision fp16 or bf16)."
        if name == "CUDA graph replay":
            return f"CUDA graph replay: off ({fx.get('why_not', '')})."
        return f"{name[0].upper()}{name[1:]} ({t['stage']}): off."
    if name == "fusion":
        s = f"Fusion (welder): {fx.get('kernels_before')} kernels before, {fx.get('kernels_after')} after"
        if "dram_bytes_before" in fx:
            s += (f"; DRAM traffic {_bytes(fx['dram_bytes_before'])} before, {_bytes(fx['dram_bytes_after'])} "
                  f"after")
        chains = fx.get("float_epilogues", {})
        if chains.get("changed"):
            us = chains["predicted_us"]
            s += (f"; float epilogue chains {'kept' if chains['kept'] else 'left off'} ({us['with']} us predicted "
                  f"with them, {us['without']} us without)")
        part = fx.get("part_reads", {})
        if part.get("changed"):
            us = part["predicted_us"]
            s += (f"; a map that reads a reduction in part {PART_READ_WORDS[part['kept']]} ("
                  + ", ".join(f"{us[p]} us {PART_READ_WORDS[p]}" for p in ("never", "cheap", "always")) + " predicted)")
        return s + "."
    if name == "scheduling":
        return (f"Scheduling (rammer): {fx.get('launches_before')} kernels in {fx.get('launches_after')} launches "
                f"({fx.get('co_launches')} co-launches, {fx.get('barrier_launches')} joined by barriers).")
    if name == "sparsity":
        return (f"Sparsity (sparta): {fx.get('sparse_kernels')} sparse kernels (block-sparse, cover, 2:4, or a row "
                f"chain walking its pruned weights' tiles); "
                f"{_count(fx.get('flops_skipped', 0))} of {_count(fx.get('flops_dense', 0))} FLOPs skipped.")
    if name == "control flow on the device":
        if not fx.get("regions"):
            return "Control flow (grinder): the model has no If/Loop/Scan regions."
        after = fx.get("host_round_trips_after")
        before = fx.get("host_round_trips_before")
        word = lambda n: "data-dependent" if n is None else str(n)   # noqa: E731
        return (f"Control flow (grinder): {fx.get('on_device')} of {fx.get('regions')} regions on the device; host "
                f"round trips per inference {word(before)} before, {word(after)} after.")
    if name == "precision":
        return (f"Precision: {e(str(fx.get('precision')))} contractions; {fx.get('tensor_core_kernels')} kernels on "
                f"tensor cores.")
    if name == "half storage":
        return (f"Half storage: {len(fx.get('values', []))} values every reader rounds to half stored in half "
                f"({_bytes(fx.get('bytes_saved', 0))} less to write); DRAM traffic "
                f"{_bytes(fx.get('dram_bytes_before', 0))} before, {_bytes(fx.get('dram_bytes_after', 0))} after"
                + (f"; {len(fx['kept'])} kept fp32 (their kernels predicted slower in half)." if fx.get("kept") else "."))
    if name == "tuning":
        return f"Tuning: {e(str(fx.get('status')))}; kernel times are {e(str(fx.get('times', 'predicted')))}."
    if name == "split-K":
        if not fx.get("split_kernels"):
            return "Split-K (roller): no kernel divides its reduction among blocks (none predicted faster)."
        return (f"Split-K (roller): {fx['split_kernels']} kernels divide their reduction among blocks, each "
                f"slice's partial sums in a workspace ({_bytes(fx.get('workspace_bytes', 0))}) that the last "
                f"block combines; --disable split_k keeps every reduction in one block.")
    if name == "deferred folds":
        return (f"deferred folds (import): {fx.get('deferred', 0)} broadcasts of constants far larger than their "
                f"source not folded, {fx.get('run_with_the_model', 0)} of them computed with the model (the "
                f"rest read by a later fold, or by nothing); --disable defer_folds folds them all.")
    if name == "merged repeats":
        return (f"merged repeats (import): {fx.get('merged', 0)} nodes that repeated an earlier one (the same op, "
                f"inputs and attributes) merged into it; --disable merge_repeats keeps them.")
    if name == "integer QDQ contractions":
        return (f"integer QDQ contractions (import): {fx.get('rewritten', 0)} Conv / MatMul nodes of dequantized "
                f"8-bit values computed as integer contractions scaled back to float; --disable qdq_integer keeps "
                f"the float contractions.")
    if name == "int8 tensor cores":
        kept = fx.get("kept") or {}
        why = "; kept: " + ", ".join(f"{n} ({e(k)})" for k, n in kept.items()) if kept else ""
        return (f"int8 tensor cores (imma): {fx.get('contractions', 0)} integer contractions with raw 8-bit "
                f"operands (zero points out of the products), {fx.get('integer_mma_kernels', 0)} kernels on the "
                f"integer mma{why}; --disable imma keeps them as they were.")
    if name == "box scatter":
        boxes, left = fx.get("scatter_boxes", 0), fx.get("scatter_nd_left", 0)
        return (f"box scatter (import): {boxes} ScatterND over a box of indices as one elementwise select "
                f"each; {left} ScatterND kept as an update kernel.")
    if name == "NMS cap":
        capped = fx.get("capped") or []
        if not capped:
            return ("NMS cap (import): no NonMaxSuppression whose readers read only its first rows (or the "
                    "model has none).")
        return (f"NMS cap (import): {len(capped)} NonMaxSuppression nodes select at most the rows their readers "
                f"read: " + ", ".join(f"{e(str(c['node']))} at most {c['cap']} boxes a class" for c in capped)
                + "; --disable nms_cap keeps the model's max_output_boxes_per_class.")
    if name in ("bitmask NMS", "radix TopK", "grid NonZero"):
        nodes, chosen = {"bitmask NMS": ("nms_nodes", "bitmask"), "radix TopK": ("topk_nodes", "radix"),
                         "grid NonZero": ("nonzero_nodes", "grid")}[name]
        if not fx.get(nodes):
            return f"{e(name)} (lower): the model has no such node."
        return (f"{e(name)} (lower): {fx.get(chosen, 0)} of {fx[nodes]} nodes take this form; the others keep "
                f"the plain one (too small to price, or priced slower).")
    if name == "CUDA graph replay":
        return "CUDA graph replay: the GPU runtime replays the whole plan as one graph."
    if name == "grouped experts":
        if not fx.get("moe_nodes"):
            return "Grouped experts (lower): the model has no MoE nodes."
        s = (f"Grouped experts (lower): {fx.get('grouped')} of {fx.get('moe_nodes')} MoE nodes sort their "
             f"token-expert pairs by expert into groups (each FC a batched GEMM); the others keep one "
             f"matrix-vector product per pair (too few pairs per expert, or predicted slower grouped).")
        priced = fx.get("priced") or []
        if priced:
            p = priced[0]["predicted_us"]
            s += (f" {len(priced)} priced their ways; the first, {e(str(priced[0]['node']))}: "
                  + ", ".join(f"{e(str(k))} {v} us" for k, v in p.items()) + ".")
        return s
    return f"{e(name)}: on."


def _waiting_members(joined: dict) -> str:
    return ", ".join(f"{m['entry']} ({m['blocks']}{_format(m)}, waits for {m['waits_for']})" for m in joined["members"])


def _members(co_launch: dict) -> str:
    return ", ".join(f"{m['entry']} ({m['blocks']}{_format(m)})" for m in co_launch["members"])


def _format(member: dict) -> str:
    """', bcsr 19%': a sparse member's format and density (report.json's rammer members)."""
    return f", {member['format']} {member['density']:.0%}" if member.get("format") else ""


def _details(report: dict) -> str:
    """Fusion groups, schedule and control flow (the stages' decisions), as before format 2."""
    fusion = report.get("fusion", {})
    groups = "".join(
        f"<tr><td>{e(', '.join(g['ops']))}</td><td>{e(', '.join(f'{v} ({lvl})' for v, lvl in g['carried'].items()))}</td>"
        f"<td>{e(g.get('stopped', ''))}</td></tr>" for g in fusion.get("groups", []))
    dup_rows = "".join(f"<tr><td>{e(', '.join(d['ops']))}</td><td>{e(d['value'])}</td><td>{d['into']}</td></tr>"
                       for d in fusion.get("duplicated", []))
    dup = (f"<h3>Data movement computed in its readers</h3><table class='duplicated'><tr><th>ONNX nodes</th><th>value</th>"
           f"<th>readers</th></tr>{dup_rows}</table>") if dup_rows else ""
    out = (f"<section id='fusion'><h2>Fusion groups ({len(fusion.get('groups', []))}: {fusion.get('kernels_before')} "
           f"kernels before, {fusion.get('kernels_after')} after)</h2><table class='groups'><tr><th>ONNX nodes</th>"
           f"<th>carried (level)</th><th>stopped by</th></tr>{groups}</table>{dup}</section>") if fusion.get("enabled") else \
        "<section id='fusion'><h2>Fusion</h2><p>off (--disable welder)</p></section>"
    sched = report.get("schedule", {})
    co_rows = "".join(
        f"<tr><td>{e(c['entry'])}</td><td>{c['wave']}</td><td>{e(_members(c))}</td>"
        f"<td>{c['predicted_us']['co_launch']:.2f}</td><td>{c['predicted_us']['apart']:.2f}</td></tr>"
        for c in sched.get("co_launches", []))
    bar_rows = "".join(
        f"<tr><td>{e(b['entry'])}</td><td>{b['launches_joined']}</td><td>{e(_waiting_members(b))}</td>"
        f"<td>{b['predicted_us']['joined']:.2f}</td><td>{b['predicted_us']['apart']:.2f}</td></tr>"
        for b in sched.get("barrier_launches", []))
    bar_html = (f"<h3>Launches joined by step counters (--barriers)</h3><table><tr><th>launch</th>"
                f"<th>launches joined</th><th>members (blocks, waits for)</th><th>pred µs</th>"
                f"<th>pred µs apart</th></tr>{bar_rows}</table>") if bar_rows else ""
    graph = sched.get("cuda_graph", {})
    bar_html += ("<p>CUDA graph: the GPU runtime replays the whole plan as one graph</p>" if graph.get("replayed")
                 else f"<p>CUDA graph: plain launches ({e(graph.get('why_not', ''))})</p>")
    out += (f"<section id='schedule'><h2>Schedule ({sched.get('kernels')} kernels in {sched.get('launches')} "
            f"launches)</h2><table><tr><th>co-launch</th><th>wave</th><th>members (blocks)</th><th>pred µs</th>"
            f"<th>pred µs apart</th></tr>{co_rows}</table>{bar_html}</section>") if sched.get("enabled") else \
        "<section id='schedule'><h2>Schedule</h2><p>off (--disable rammer)</p></section>"
    cf = report.get("control_flow", {})
    cf_rows = "".join(
        f"<tr><td>{e(r['node'])}</td><td>{e(r['op'])}</td><td>{e(r['runs'])}</td>"
        f"<td>{e(r.get('kernel', '') or r.get('why', ''))}</td></tr>" for r in cf.get("regions", []))
    trips = cf.get("host_round_trips_per_inference")
    out += (f"<section id='control-flow'><h2>Control flow ({'on' if cf.get('enabled') else 'off: --disable grinder'}; "
            f"host round trips per inference: {'depends on the data' if trips is None else trips})</h2><table><tr>"
            f"<th>region</th><th>op</th><th>runs on</th><th>kernel or why not</th></tr>{cf_rows}</table>"
            f"</section>") if cf_rows else ""
    return out


# Sorts the kernel table by the clicked header (numbers by value, text by locale), toggling the order.
SORT_JS = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    th.addEventListener('click', function () {
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      Array.prototype.forEach.call(heads, function (h) { h.setAttribute('aria-sort', 'none'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var num = th.dataset.type === 'num', body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v;
        var c = num ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
document.querySelectorAll('circle.kpoint').forEach(function (c) {
  c.addEventListener('click', function () {
    var row = document.getElementById('k' + c.dataset.kernel);
    document.querySelectorAll('tr.picked').forEach(function (r) { r.classList.remove('picked'); });
    if (row) { row.classList.add('picked'); row.scrollIntoView({block: 'center'}); }
  });
});
"""

STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1280px;color:#222}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
td:nth-child(-n+4),th:nth-child(-n+4){text-align:left}table.groups td,table.groups th{text-align:left}
th[data-type]{cursor:pointer;background:#f2f2f2}th[aria-sort=ascending]::after{content:' \\25B2'}
th[aria-sort=descending]::after{content:' \\25BC'}tr.picked{background:#fff3b0}
#summary{background:#f6f8fa;border:1px solid #d0d7de;padding:0.5em 1.2em;border-radius:6px}
.headline{font-size:1.25em}.swatch{display:inline-block;width:12px;height:12px;margin:0 4px 0 10px;vertical-align:middle}
ul.legend{list-style:none;padding:0;columns:2;font-size:13px}.tick{font-size:11px;fill:#555}
.scroll{overflow-x:auto}circle.kpoint{cursor:pointer}"""


def report_html(report: dict) -> str:
    """A self-contained page (no external resource): summary, time split, roofline, kernel table,
    op types, techniques, fusion groups, schedule, control flow, stages."""
    comp = report.get("compile", {})
    stages = "".join(f"<tr><td>{e(s['name'])}</td><td>{s['seconds']:.3f}</td></tr>" for s in comp.get("stages", []))
    techniques = "".join(f"<li>{technique_sentence(t)}</li>" for t in report.get("techniques", []))
    traffic = report.get("traffic", {}).get("dram_bytes")
    model, target = report.get("model", {}), report.get("target", {})
    return f"""<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>Brickyard report: {e(model.get('name', ''))}</title><style>{STYLE}</style></head><body>
<h1>{e(model.get('name', ''))} for {e(target.get('name', ''))} ({e(target.get('arch', ''))})</h1>
{_summary(report)}
{_time_split_svg(report)}
{_roofline_svg(report)}
{_kernel_table(report)}
{_op_type_table(report)}
<section id='techniques'><h2>Techniques</h2><ul>{techniques}</ul>
<p>Predicted DRAM traffic per inference: {'' if traffic is None else _bytes(traffic)}</p></section>
{_details(report)}
<section id='compile'><h2>Compilation</h2>
<p>Compiler {e(str(report.get('compiler_version')))} (key <code>{e(str(report.get('compiler_key', ''))[:16])}…</code>);
report format {report.get('format')}; model sha256 <code>{e(str(model.get('sha256', ''))[:16])}…</code>.
Compiled in <b>{comp.get('seconds', 0):.2f} s</b>; kernel cache: {comp.get('cache', {}).get('hits', 0)} hits,
{comp.get('cache', {}).get('misses', 0)} misses.</p>
<table><tr><th>stage</th><th>seconds</th></tr>{stages}</table></section>
<script>{SORT_JS}</script>
</body></html>"""
