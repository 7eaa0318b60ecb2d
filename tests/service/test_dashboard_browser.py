"""The dashboard in a real headless Chromium (Debian's, driven by Playwright): log in with a token, load the
page with real jobs behind it, check that every chart drew its data points and that it updates without a
reload, open a job's report, and save a screenshot."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from .chromium import launch, playwright_sync_api, require_chromium
from .conftest import Service, upload
from .test_projects import TARGETS, mlp

pytestmark = pytest.mark.service
sync_api = playwright_sync_api()


@pytest.fixture(scope="module")
def busy_service(tmp_path_factory):
    """A service with a project whose commit compiled two models for two targets."""
    require_chromium()
    svc = Service(tmp_path_factory.mktemp("dash")).start()
    try:
        with svc.client() as c:
            a = upload(c, mlp(2, seed=11), "alpha.onnx").json()["id"]
            b = upload(c, mlp(3, width=48, seed=12), "beta.onnx").json()["id"]
            r = c.post("/v1/projects", json={"name": "dash", "targets": TARGETS,
                                             "models": [{"name": "alpha", "source": a}, {"name": "beta", "source": b}]})
            assert r.status_code == 201, r.text
            r = c.post("/v1/projects/dash/commits", json={"commit": "1" * 40, "ref": "refs/heads/main"})
            assert r.status_code == 202, r.text
            deadline = time.monotonic() + 90
            while c.get("/v1/projects/dash/commits/" + "1" * 40).json()["verdict"] == "pending":
                assert time.monotonic() < deadline, svc.tail()
                time.sleep(0.2)
        yield svc
    finally:
        svc.stop()


def test_dashboard_draws_real_jobs(busy_service, tmp_path):
    svc = busy_service
    with svc.client() as c:
        data = c.get("/v1/dashboard").json()
    n_points = sum(len(s["points"]) for s in data["compile_times"])
    assert n_points == 4 and len(data["compile_times"]) == 4, data["compile_times"]
    assert data["stages"] and data["workers"], data
    with sync_api.sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto(svc.url + "/dashboard")
            page.wait_for_selector("#login:not(.hidden)")
            # a wrong token is refused, then the right one logs in
            page.fill("#token", "bky_wrong")
            page.click("#login-button")
            page.wait_for_function("document.getElementById('error').textContent.includes('refused')")
            page.fill("#token", svc.admin_token)
            page.click("#login-button")
            page.wait_for_function("Number(document.body.dataset.loaded || 0) >= 1", timeout=15000)
            assert page.locator("#owner").inner_text() == "admin"
            # every chart drew its data points
            assert page.locator("#chart-compile circle.pt").count() == n_points
            series = set(page.eval_on_selector_all("#chart-compile circle.pt", "els => els.map(e => e.dataset.series)"))
            assert series == {s["name"] for s in data["compile_times"]}
            values = sorted(float(v) for v in page.eval_on_selector_all(
                "#chart-compile circle.pt", "els => els.map(e => e.dataset.value)"))
            assert values == sorted(p["seconds"] for s in data["compile_times"] for p in s["points"])
            stages = page.eval_on_selector_all("#chart-stages rect.pt", "els => els.map(e => e.dataset.label)")
            assert stages == [s["stage"] for s in data["stages"]] and "build" in stages
            assert page.locator("#chart-cache rect.pt").count() == 3
            assert page.locator("#chart-queue circle.pt").count() >= 3  # queued, running, workers: one sample each
            assert int(page.locator("#workers").inner_text()) >= 1
            assert page.locator("#hit-rate").inner_text().endswith("%")
            assert page.locator("#projects tbody tr").count() == 1
            assert "pass" in page.locator("#projects tbody").inner_text()
            assert page.locator("#recent tbody tr").count() == 4
            # it updates without a reload: the queue chart gains samples
            page.wait_for_function("document.querySelectorAll('#chart-queue circle.pt').length >= 6", timeout=15000)
            # a recent job's report opens
            with page.expect_popup() as popup:
                page.locator("#recent a.report-link").first.click()
            report = popup.value
            report.wait_for_load_state()
            # the report page's headline: the predicted (or measured) latency per inference
            assert report.locator("#latency").inner_text().endswith("µs")
            assert "latency" in report.locator("body").inner_text()
            shot = tmp_path / "dashboard.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
            out = os.environ.get("BRICKYARD_SCREENSHOT_DIR")
            if out:
                Path(out).mkdir(parents=True, exist_ok=True)
                shutil.copy(shot, Path(out) / "dashboard.png")
            assert not errors, errors
            # nothing came from outside the service (no CDN)
            assert all(u.startswith((svc.url, "blob:", "data:")) for u in requests), requests
        finally:
            browser.close()
