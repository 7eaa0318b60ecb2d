"""report.json (DESIGN section 7) and its readable HTML page."""
from __future__ import annotations

import html


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
<h2>Stages</h2><table><tr><th>stage</th><th>seconds</th></tr>{stages}</table>
<h2>Kernels ({len(report.get('kernels', []))})</h2>
<table><tr><th>kernel</th><th>ops</th><th>grid</th><th>block</th><th>smem</th><th>regs</th><th>spills</th><th>pred µs</th><th>meas µs</th></tr>{rows}</table>
</body></html>"""
