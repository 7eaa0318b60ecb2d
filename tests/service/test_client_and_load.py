"""Many clients at once, and the `brickyard submit` / `brickyard jobs` client, against the live service:
the embedded one, and PostgreSQL + Redis with two workers."""
from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from compiler.artifact import load_artifact
from compiler.runtime.executor import Executor, make_backend

from .conftest import REPO, SHARED, Service, stack_env, upload

pytestmark = pytest.mark.service
TARGETS = ("h100", "h200")  # the same arch: the second of each model mostly reuses the first's kernels


@pytest.fixture(scope="module", params=["embedded", "postgres+redis"])
def live(request, tmp_path_factory):
    if request.param == "embedded":
        svc = Service(tmp_path_factory.mktemp("load"))
    else:
        svc = Service(tmp_path_factory.mktemp("load"), env=stack_env(request.getfixturevalue("servers")),
                      extra_workers=1)
    svc.start()
    yield svc
    svc.stop()


def test_twenty_concurrent_uploads_and_compilations(live, tmp_path):
    models = sorted((SHARED / "models").glob("*.onnx"))
    assert len(models) >= 5, models
    work = [(models[i % len(models)], TARGETS[(i // len(models)) % 2]) for i in range(20)]

    def one(item):
        path, target = item
        with live.client() as c:
            r = upload(c, path.read_bytes(), path.name)
            assert r.status_code in (200, 201), r.text
            job = c.post("/v1/compilations", json={"model_id": r.json()["id"], "target": target})
            assert job.status_code == 201, job.text
            return r.json(), job.json()

    t0 = time.monotonic()
    with ThreadPoolExecutor(20) as pool:  # 20 uploads then compilations, all in flight together
        submitted = list(pool.map(one, work))
    ids = [job["id"] for _, job in submitted]
    assert len(set(ids)) == 20
    with live.client() as c:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            jobs = {j: c.get(f"/v1/compilations/{j}").json() for j in ids}
            if all(j["state"] in ("succeeded", "failed", "cancelled") for j in jobs.values()):
                break
            time.sleep(0.5)
        elapsed = time.monotonic() - t0
        bad = {j: (v["state"], v["error"]) for j, v in jobs.items() if v["state"] != "succeeded"}
        assert not bad, f"not all 20 jobs succeeded after {elapsed:.0f} s: {bad}\n{live.tail()}"
        # one model per distinct file (the second upload of the same bytes is the same model)
        assert len({m["id"] for m, _ in submitted}) == len(models)
        assert c.get("/v1/models", params={"limit": 100}).json()["total"] == len(models)
        listed = c.get("/v1/compilations", params={"limit": 100}).json()
        assert {j["id"] for j in listed["items"]} >= set(ids) and listed["total"] >= 20
        # every artifact is reachable and is the bytes the job names
        for (model, _), j in zip(submitted, ids):
            r = c.get(f"/v1/compilations/{j}/artifact")
            assert r.status_code == 200, (j, r.text)
            assert hashlib.sha256(r.content).hexdigest() == jobs[j]["artifact_sha256"]
        # the two targets of a model built the same kernels once between them
        for m in {m["id"] for m, _ in submitted}:
            pair = [jobs[j] for (mm, _), j in zip(submitted, ids) if mm["id"] == m]
            assert {p["target"] for p in pair} == set(TARGETS)
        if live.workers:  # two workers shared the work
            logs = [live.tail(10**9)] + [(live.home / f"worker-{i}.log").read_text() for i in range(len(live.workers))]
            assert all("succeeded in" in log for log in logs), "a worker did no job"
    print(f"\n20 concurrent jobs on {live.extra_env.get('BRICKYARD_BROKER', 'embedded')}: {elapsed:.1f} s")


def brickyard(*args: str, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    """The real `brickyard` CLI (python -m brickyard, what the console script runs)."""
    full = {k: v for k, v in __import__("os").environ.items() if not k.startswith("BRICKYARD_")}
    full.update(env or {}, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "brickyard", *args], cwd=cwd or REPO, env=full, capture_output=True,
                          text=True, timeout=300)


def test_cli_submit_waits_and_downloads(live, tmp_path):
    out_path = tmp_path / "bert.tar.gz"
    # the token from $BRICKYARD_HOME/admin-token, the server from BRICKYARD_SERVER; a100 (sm_80): a target
    # the load test did not build, so the job really runs
    r = brickyard("submit", str(SHARED / "models" / "bert.onnx"), "--target", "a100", "--wait", "-o", str(out_path),
                  env={"BRICKYARD_SERVER": live.url, "BRICKYARD_HOME": str(live.home)}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    job_id = r.stdout.strip()
    assert len(job_id) == 32, r.stdout
    assert f"compilation {job_id}: succeeded" in r.stderr and "] running import" in r.stderr, r.stderr
    assert f"artifact -> {out_path}" in r.stderr
    ref = np.load(SHARED / "models" / "bert.npz")
    got = Executor(load_artifact(out_path).plan, make_backend("host")).run(
        {k[3:]: ref[k] for k in ref.files if k.startswith("in:")})
    want = ref["out:output_0"]
    assert np.abs(got["output_0"] - want).max() / np.abs(want).max() < 1e-3
    # the jobs table, with --server and --token given on the command line
    r = brickyard("jobs", "--server", live.url, "--token", live.admin_token)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:3] == ["ID", "MODEL", "TARGET"]
    row = next(line for line in lines if line.startswith(job_id))
    assert "succeeded" in row and "a100" in row and "sm_80" in row
    r = brickyard("jobs", "--server", live.url, "--token", live.admin_token, "--state", "failed")
    assert r.returncode == 0 and job_id not in r.stdout


@pytest.mark.parametrize("args, words", [
    (["--target", "h900"], "unknown target 'h900'"),
    (["--token", "bky_wrong"], "HTTP 401: invalid or revoked API token"),
    (["--input-shape", "input_0=a,b"], "dimensions must be integers"),
    (["--server", "http://127.0.0.1:9"], "cannot reach http://127.0.0.1:9"),
])
def test_cli_errors_are_one_line_and_exit_2(live, args, words):
    env = {"BRICKYARD_SERVER": live.url, "BRICKYARD_TOKEN": live.admin_token}
    r = brickyard("submit", str(SHARED / "models" / "branchy.onnx"), *args, env=env)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    err = [line for line in r.stderr.splitlines() if line.startswith("brickyard: error:")]
    assert len(err) == 1 and words in err[0], r.stderr
    assert "Traceback" not in r.stderr
    r = brickyard("submit", "/nonexistent/model.onnx", env=env)
    assert r.returncode == 2 and "cannot read /nonexistent/model.onnx" in r.stderr
