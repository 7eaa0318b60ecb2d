"""report.html in a real headless Chromium (Debian's, driven by Playwright), offline: the pages that
`brickyard compile` packs for bert (fused, with rammer co-launches) and resnet (fused) show the
summary, the time split with its segments, the roofline with one point per kernel and a kernel
table whose headers sort it, and attempt no request beyond the file itself."""
from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from .chromium import launch, playwright_sync_api, require_chromium

sync_api = playwright_sync_api()
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pages(models_dir, tmp_path_factory):
    """{model: (report.json, path of report.html)} from the CLI's artifacts."""
    require_chromium()
    out = {}
    for name in ("bert", "resnet"):
        d = tmp_path_factory.mktemp(name)
        art = d / f"{name}.tar"
        subprocess.run([sys.executable, "-m", "compiler", "compile", str(models_dir / f"{name}.onnx"),
                        "--target", "h100", "-o", str(art), "-q"], cwd=REPO, check=True, timeout=300)
        with tarfile.open(art) as tar:
            report = json.load(tar.extractfile("report.json"))
            (d / "report.html").write_bytes(tar.extractfile("report.html").read())
        out[name] = (report, d / "report.html")
    return out


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = launch(pw)
        try:
            yield b
        finally:
            b.close()


def _cells(page, col: int) -> list[str]:
    return page.eval_on_selector_all(f"#kernel-table tbody tr td:nth-child({col + 1})",
                                     "els => els.map(e => e.dataset.v)")


@pytest.mark.parametrize("name", ["bert", "resnet"])
def test_report_page_offline(pages, browser, name, tmp_path):
    report, path = pages[name]
    kernels = report["kernels"]
    assert report["fusion"]["enabled"] and report["fusion"]["kernels_after"] < report["fusion"]["kernels_before"]
    if name == "bert":
        assert report["schedule"]["co_launches"], "bert's page should show a scheduled plan"
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    attempted: list[str] = []

    def gate(route):
        url = route.request.url
        if url.startswith("file:"):
            route.continue_()
        else:    # anything else (a CDN, a font, another host) is blocked and remembered
            attempted.append(url)
            route.abort()
    page.route("**/*", gate)
    # the page's Content-Security-Policy blocks an external load before routing sees it: count those too
    page.on("request", lambda r: None if r.url.startswith("file:") else attempted.append(r.url))
    page.on("console", lambda m: "Content Security Policy" in m.text and attempted.append(m.text))
    page.goto(path.as_uri())

    # the summary: the headline latency, where it goes, the five slowest kernels and what bounds each
    split = report["time_split"]
    assert page.locator("#latency").inner_text() == f"{report['latency']['predicted_us']:,.2f} µs"
    where = page.locator("#where").inner_text()
    assert f"{split['launch_overhead_us']:,.2f} µs" in where and "launch overhead" in where
    top = page.locator("#top-kernels li")
    assert top.count() == min(5, len(kernels))
    slowest = max(kernels, key=lambda k: k["time_us"])
    assert slowest["name"] in top.nth(0).inner_text()
    for i in range(top.count()):
        k = kernels[int(top.nth(i).get_attribute("data-kernel"))]
        assert f"{k['bound']}-bound" in top.nth(i).inner_text()
    assert page.locator("#verification").inner_text().startswith("Verification was not run")

    # the roofline: one point per kernel, each drawn inside the plot, coloured by its bound
    points = page.locator("#roofline circle.kpoint")
    assert points.count() == len(kernels)
    assert page.eval_on_selector_all("#roofline circle.kpoint", "els => els.map(e => +e.dataset.kernel)") == \
        list(range(len(kernels)))
    assert page.eval_on_selector_all("#roofline circle.kpoint", "els => els.map(e => e.dataset.bound)") == \
        [k["bound"] for k in kernels]
    box = page.locator("#roofline svg").bounding_box()
    for i in range(points.count()):
        b = points.nth(i).bounding_box()
        assert b and box["x"] <= b["x"] and b["x"] + b["width"] <= box["x"] + box["width"] + 1
        assert box["y"] <= b["y"] and b["y"] + b["height"] <= box["y"] + box["height"] + 1
    assert page.locator("#roofline polyline.roof").count() >= 1

    # the time split: a segment per op-type group (at most 7, then the rest) and one for launch overhead
    groups = len(report["by_op_type"])
    segs = page.locator("#time-split rect.split-seg")
    assert segs.count() == min(groups, 7) + (groups > 7) + 1
    us = [float(v) for v in page.eval_on_selector_all("#time-split rect.split-seg", "els => els.map(e => e.dataset.us)")]
    assert us[-1] == pytest.approx(split["launch_overhead_us"], abs=1e-3)
    assert sum(us) == pytest.approx(split["total_us"], abs=0.01)
    widths = [segs.nth(i).bounding_box()["width"] for i in range(segs.count())]
    assert widths[-1] / sum(widths) == pytest.approx(split["launch_overhead_us"] / split["total_us"], abs=0.01)

    # the kernel table: one row per launch with its ONNX nodes; a click on a header sorts by it
    rows = page.locator("#kernel-table tbody tr")
    assert rows.count() == len(kernels)
    for i, k in enumerate(kernels):
        assert page.locator(f"#k{i} td").nth(2).inner_text() == ", ".join(k["ops"])
    header = page.locator("#kernel-table th", has_text="µs").first
    header.click()
    times = [float(v) for v in _cells(page, 4)]
    assert times == sorted(k["time_us"] for k in kernels) and header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert [float(v) for v in _cells(page, 4)] == sorted(times, reverse=True)
    assert page.locator("#kernel-table tbody tr").first.locator("td").nth(1).inner_text() == slowest["name"]
    page.locator("#kernel-table th", has_text="kernel").first.click()
    assert sorted(_cells(page, 1)) == sorted(k["name"] for k in kernels)
    assert page.eval_on_selector_all(   # in the page's own (locale) order
        "#kernel-table tbody tr td:nth-child(2)",
        "els => els.every((e, i) => i === 0 || els[i - 1].dataset.v.localeCompare(e.dataset.v) <= 0)")
    page.locator("#kernel-table th", has_text="#").first.click()
    assert [int(v) for v in _cells(page, 0)] == list(range(len(kernels)))

    # fusion groups, and a click on a roofline point picks its row
    assert page.locator("#fusion table.groups tr").count() == len(report["fusion"]["groups"]) + 1
    duplicated = report["fusion"]["duplicated"]
    assert page.locator("#fusion table.duplicated tr").count() == (len(duplicated) + 1 if duplicated else 0)
    points.nth(len(kernels) - 1).click()
    assert page.locator("tr.picked").get_attribute("id") == f"k{len(kernels) - 1}"

    page.screenshot(path=str(tmp_path / f"{name}-report.png"), full_page=True)
    assert not errors, errors
    assert attempted == [], attempted
    page.close()
