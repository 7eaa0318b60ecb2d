"""bench/e2e.py --dry-run: the end-to-end benchmark script runs whole on the CPU (tiny shared models
on the host harness, peers skipped), writes DESIGN section 10's JSON and prints its table last."""
from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
from datetime import datetime

import pytest

from tests.conftest import REPO

MODELS = ("branchy", "rnn_loop")     # the If and the Loop model: control flow, seconds each on the host


def run_dry(out, models_dir, *extra):
    env = dict(os.environ, BRICKYARD_SHARED=str(models_dir.parent), PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, str(REPO / "bench" / "e2e.py"), "--dry-run", "--only", ",".join(MODELS),
                           "--out", str(out), *extra], capture_output=True, text=True, timeout=600, env=env, cwd=REPO)


def test_dry_run_writes_the_schema_and_prints_the_table(tmp_path, models_dir):
    out = tmp_path / "results"
    proc = run_dry(out, models_dir)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    files = sorted(out.glob("e2e-*.json"))
    assert len(files) == 1, files
    doc = json.loads(files[0].read_text())

    # top level (DESIGN section 10, plus what the issue asks: driver, versions, what ran where)
    assert doc["suite"] == "e2e" and doc["mode"] == "dry-run" and doc["complete"] is True
    assert doc["device"]["name"] and "driver" in doc["device"]
    v = doc["versions"]
    assert v["python"] and v["brickyard"] and v["numpy"] and v["onnx"] and "torch" in v
    assert isinstance(doc["git_commit"], str) and doc["git_commit"]
    datetime.fromisoformat(doc["created"])
    assert doc["run"]["models"] == list(MODELS) and doc["run"]["batches"] == [1, 16]
    assert {int(k) for k in doc["parts"]} >= {1, 2, 3}
    assert sorted(m for ms in doc["parts"].values() for m in ms) == sorted(
        ["bert", "gpt2", "vit", "resnet", "mobilenetv2", "lstm", "rnn_loop", "branchy"])
    assert doc["settings"]["samples"] == 5

    rows = doc["rows"]
    assert [r["name"] for r in rows] == [f"{m}/b{b}/{d}" for b, d in ((1, "fp16"), (1, "fp32"), (16, "fp16"),
                                                                       (16, "fp32")) for m in MODELS]
    ran = [r for r in rows if not r.get("skipped_row")]
    assert [r["batch"] for r in ran] == [1] * 4
    for r in ran:
        assert not r.get("error"), r.get("error")
        t = r["brickyard"]["timing"]
        samples = t["samples_us"]
        assert len(samples) == t["samples"] == 5 and all(x > 0 for x in samples)
        assert r["brickyard_us"] == round(statistics.median(samples), 3)
        assert isinstance(r["launches_per_inference"], int) and r["launches_per_inference"] > 0
        assert isinstance(r["kernels_in_plan"], int) and r["kernels_in_plan"] > 0
        for k in ("err_brickyard", "brickyard_compile_s", "brickyard_load_s"):
            assert isinstance(r[k], (int, float)) and math.isfinite(r[k]), (k, r[k])
        assert r["err_brickyard"] < (1e-3 if r["dtype"] == "fp32" else 2e-2), r["err_brickyard"]
        assert r["errors_norm"]["brickyard"] <= 1.0
        assert r["cuda_graph"]        # "not on the host harness": GpuBackend.capture runs on a GPU only
        # every launch timed alone: the kernels the plan runs, each with its launches per inference
        prof = r["brickyard"]["kernel_profile"]
        assert prof and sum(p["launches"] for p in prof) == r["launches_per_inference"]
        assert all(p["median_us"] > 0 and p["total_us"] >= p["median_us"] * p["launches"] * 0.5 for p in prof)
        assert [p["total_us"] for p in prof] == sorted((p["total_us"] for p in prof), reverse=True)
        assert all(p["predicted_us"] is not None for p in prof)
        for s in ("torch", "torch_compile", "torch_compile_max_autotune"):
            assert r["skipped"][s], s   # the peers are skipped, and say why
    by = {r["name"]: r for r in ran}
    # launches are counted while an inference runs; the grinder stage (on by default) made the Loop
    # and the If one persistent kernel each, so no region launches its body kernels one by one
    assert by["rnn_loop/b1/fp32"]["launches_per_inference"] == by["rnn_loop/b1/fp32"]["kernels_in_plan"] == 1
    assert by["branchy/b1/fp32"]["launches_per_inference"] == by["branchy/b1/fp32"]["kernels_in_plan"]
    for r in rows:
        if r["batch"] == 16:
            assert "batch 1" in r["skipped_row"]

    # the JSON's path, then the markdown table, printed last: a header and one line per row
    text = proc.stdout.rstrip().splitlines()
    wrote = max(i for i, ln in enumerate(text) if ln.startswith("wrote "))
    assert text[wrote].endswith(files[0].name)
    table = [ln for ln in text[wrote + 1:] if ln.startswith("|")]
    assert table[0].startswith("| model | batch | dtype | brickyard us |")
    assert len(table) == 2 + len(rows)
    for row, line in zip(rows, table[2:]):
        assert line.startswith(f"| {row['model']} | {row['batch']} | {row['dtype']} |")
    assert not [ln for ln in text[wrote + 1:] if ln.strip() and not ln.startswith("|") and not ln.startswith("us:")]


def test_a_run_cut_off_by_its_time_limit_keeps_what_it_measured(tmp_path, models_dir):
    """`timeout` sends SIGTERM: the JSON (rewritten after every row) ends with the rows measured,
    the rest marked as not run, complete false; the table is still printed."""
    import signal
    import time
    out = tmp_path / "results"
    env = dict(os.environ, BRICKYARD_SHARED=str(models_dir.parent), PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, str(REPO / "bench" / "e2e.py"), "--dry-run", "--only", ",".join(MODELS),
                          "--samples", "200", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env, cwd=REPO)
    try:
        deadline = time.time() + 300
        while time.time() < deadline:      # until the first row is on disk
            files = list(out.glob("e2e-*.json"))
            if files and json.loads(files[0].read_text())["rows"]:
                break
            assert p.poll() is None, p.stdout.read()
            time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        stdout, _ = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 1, stdout[-3000:]
    doc = json.loads(files[0].read_text())
    assert doc["complete"] is False and "cut off" in doc["cut_off"]
    rows = doc["rows"]
    assert len(rows) == 2 * 4
    assert rows[0]["brickyard"]["timing"]["samples_us"]
    assert any("cut off" in (r.get("skipped_row") or "") for r in rows)
    assert "| model | batch | dtype |" in stdout


def _has_gpu() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: all mean no GPU here
        return False


def test_smoke_fails_fast_and_says_why_without_a_gpu():
    if _has_gpu():
        pytest.skip("this machine has a GPU: tests/gpu and make gpu-check run the smoke test")
    r = subprocess.run([sys.executable, str(REPO / "bench" / "e2e.py"), "--smoke"], capture_output=True, text=True,
                       timeout=120, cwd=REPO)
    assert r.returncode == 2
    assert r.stdout.startswith("SMOKE FAILED: no GPU")


def test_summarize_joins_runs_and_gives_the_geomean_speedups(tmp_path):
    """--summarize: a later file's row replaces an earlier one's, a row a peer did not run is left
    out of that peer's geomean, and the geomean is of peer time over Brickyard's."""
    def row(model, by, graph, torch, tc=None):
        return {"model": model, "batch": 1, "dtype": "fp16", "brickyard_us": by, "brickyard_graph_us": graph,
                "torch_us": torch, "torch_compile_us": tc}
    tune = _load_e2e()._tune_summary({"status": "measured", "distinct": 2, "shared": 1, "cache_hits": 0, "kernels": [
        {"cached": False, "phases": {"build_s": 1.0, "buffers_s": 0.5, "check_s": 0.25, "time_s": 2.0}},
        {"cached": True, "phases": {"build_s": 1.0, "buffers_s": 0.5, "check_s": 0.25, "time_s": 2.0}},
        {"cached": False, "phases": {"build_s": 0.5, "buffers_s": 0.25, "check_s": 0.25, "time_s": 1.0}}]})
    assert tune["specs"] == 3 and tune["phases"] == {"build_s": 1.5, "buffers_s": 0.75, "check_s": 0.5, "time_s": 3.0}
    first, second = tmp_path / "e2e-a.json", tmp_path / "e2e-b.json"
    first.write_text(json.dumps({"rows": [row("bert", 400.0, 300.0, 100.0), row("vit", 100.0, 50.0, 300.0, 150.0)]}))
    second.write_text(json.dumps({"rows": [dict(row("bert", 200.0, 100.0, 800.0, 400.0), launches_per_inference=4,
                                                brickyard_compile_s=8.0, brickyard={"compile": {"stages": {"tune": 6.0}},
                                                                                   "tune": tune})]}))
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "e2e.py"), "--summarize", str(first), str(second)],
                          capture_output=True, text=True, timeout=60, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert sum(1 for ln in lines if ln.startswith("| bert |")) == 1 and "| 200.0 |" in next(
        ln for ln in lines if ln.startswith("| bert |"))
    eager_plain = next(ln for ln in lines if "PyTorch eager / Brickyard (plain launches)" in ln)
    assert f"geomean {math.sqrt(800 / 200 * 300 / 100):.2f}x over 2 models" in eager_plain   # 3.46x
    tc_graph = next(ln for ln in lines if "torch.compile default / Brickyard (one CUDA graph)" in ln)
    assert f"geomean {math.sqrt(400 / 100 * 150 / 50):.2f}x over 2 models" in tc_graph
    assert not any("max-autotune / Brickyard" in ln for ln in lines)   # no row ran it
    # (plain - graph) / launches, and the tune stage's share of the compile
    assert ("bert b1 fp16: a plain launch costs 25.0 us over the graph; tune 6.0 of 8.0 s compile (75%); "
            "3 specs tuned as 2 distinct launch sets (0 from the cache; build 1.5 s, buffers 0.8 s, check 0.5 s, "
            "time 3.0 s)") in lines


def _load_e2e():
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_e2e", REPO / "bench" / "e2e.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module       # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module
