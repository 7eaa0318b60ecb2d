"""A solo-pool worker (how GPU workers run: CUDA does not survive fork) runs jobs and shows on the
dashboard as a live worker, like the prefork pool's child processes do; `python -m worker.health` (the
compose health check of worker containers) fails before it reports and passes after."""
from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from .conftest import REPO, WORKER_READY, compile_job, relu_model, upload, wait_job

pytestmark = pytest.mark.service


def test_solo_pool_worker_reports_presence_and_runs_jobs(make_service):
    svc = make_service(worker=False).start()
    health = lambda: subprocess.run([sys.executable, "-m", "worker.health"], cwd=REPO, env=svc.env(),
                                    capture_output=True, text=True)
    before = health()
    assert before.returncode == 1 and "no worker process" in before.stdout, before
    log = svc.home / "solo-worker.log"
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "worker", "--queues", "cpu", "--pool", "solo"], cwd=REPO,
                                env=svc.env(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while WORKER_READY not in log.read_text(errors="replace"):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")[-3000:]
            time.sleep(0.2)
        me = f"{socket.gethostname()}:{proc.pid}"
        with svc.client() as c:
            deadline = time.monotonic() + 30
            names: list[str] = []
            while me not in names and time.monotonic() < deadline:
                names = [w["name"] for w in c.get("/v1/dashboard").json()["workers"]]
                time.sleep(0.5)
            assert me in names, (names, log.read_text(errors="replace")[-3000:])
            after = health()  # the container health check of a worker: its host's presence is fresh
            assert after.returncode == 0 and after.stdout.startswith("healthy"), after
            model = upload(c, relu_model((3, 5)), "relu.onnx").json()
            job = wait_job(c, compile_job(c, model["id"], "a100")["id"], timeout=120)
            assert job["state"] == "succeeded", job
    finally:
        proc.terminate()
        proc.wait(30)
