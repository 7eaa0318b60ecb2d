"""Jobs survive a worker SIGKILLed mid-compile and a service stopped with jobs queued or running."""
from __future__ import annotations

import os
import signal
import time

import pytest

from compiler.artifact import load_artifact

from .conftest import compile_job, read_events, relu_model, upload, wait_job

pytestmark = [pytest.mark.service, pytest.mark.slow]


def wait_running(client, job_id: str, timeout: float = 60.0) -> dict:
    job = wait_job(client, job_id, states=("running", "succeeded", "failed", "cancelled"), timeout=timeout,
                   interval=0.05)
    assert job["state"] == "running", f"the compile ended before it could be interrupted: {job}"
    return job


def test_worker_sigkilled_mid_compile_loses_nothing(make_service, bert_path, tmp_path):
    svc = make_service().start()  # a fresh home: an empty store, so NVRTC has seconds of work
    with svc.client() as c:
        model = upload(c, bert_path.read_bytes(), "bert.onnx").json()
        job = compile_job(c, model["id"], "h100")
        wait_running(c, job["id"])
        pid = svc.worker_pid()
        os.killpg(pid, signal.SIGKILL)  # the worker and its pool child, mid-compile
        time.sleep(0.3)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        interrupted = c.get(f"/v1/compilations/{job['id']}").json()
        assert interrupted["state"] == "running" and interrupted["attempts"] == 1, interrupted
        # the service starts a new worker; the reconciler sees the silent heartbeat and queues the job again
        svc.wait_log(" ready.", count=2)
        assert svc.worker_pid() != pid
        done = wait_job(c, job["id"], timeout=120)
        assert done["state"] == "succeeded" and done["attempts"] == 2, done
        events = c.get(f"/v1/compilations/{job['id']}/events")
        assert "worker lost" in events.text
        art = tmp_path / "a.tar.gz"
        art.write_bytes(c.get(f"/v1/compilations/{job['id']}/artifact").content)
        assert load_artifact(art).header["target"]["arch"] == "sm_90"
        assert len({j["artifact_sha256"] for j in c.get("/v1/compilations").json()["items"]}) == 1


def test_jobs_queued_or_running_when_the_service_stops_finish_after_restart(make_service, bert_path):
    api_only = make_service(worker=False).start()
    home = api_only.home
    with api_only.client() as c:
        relu = upload(c, relu_model((5, 7)), "relu.onnx").json()
        queued = compile_job(c, relu["id"], "h100")
        doomed = compile_job(c, relu["id"], "a100")
        r = c.post(f"/v1/compilations/{doomed['id']}/cancel")
        assert r.status_code == 200 and r.json()["state"] == "cancelled"
        assert c.post(f"/v1/compilations/{doomed['id']}/cancel").status_code == 409
        assert read_events(c, doomed["id"])[-1]["event"] == "cancelled"
        # a message lost before any worker took it (a broker fault): the job waits with no message
        lost = compile_job(c, relu["id"], "l4")
        files = [p for p in (home / "queue" / "messages").glob("*.msg") if lost["id"] in p.read_text()]
        assert len(files) == 1
        files[0].unlink()
        time.sleep(1.0)
        assert c.get(f"/v1/compilations/{queued['id']}").json()["state"] == "queued"  # no worker yet
    assert api_only.stop() == 0

    full = make_service(home, env={"BRICKYARD_WORKER_SHUTDOWN_GRACE": "0"}).start()  # no time to finish
    with full.client() as c:
        assert wait_job(c, queued["id"], timeout=60)["state"] == "succeeded"
        assert wait_job(c, lost["id"], timeout=60)["state"] == "succeeded"  # re-published by the reconciler
        assert c.get(f"/v1/compilations/{doomed['id']}").json()["state"] == "cancelled"
        # now stop the service in the middle of a compile (the worker's grace is shorter than the compile)
        bert = upload(c, bert_path.read_bytes(), "bert.onnx").json()
        running = compile_job(c, bert["id"], "h100")
        wait_running(c, running["id"])
    assert full.stop() == 0

    again = make_service(home).start()
    with again.client() as c:
        done = wait_job(c, running["id"], timeout=120)
        # the first attempt was cut off by the stop; the reconciler gave the job to the new worker
        assert done["state"] == "succeeded" and done["attempts"] == 2, done
        assert "worker lost" in c.get(f"/v1/compilations/{running['id']}/events").text
    assert again.stop() == 0
    log = again.tail(10**9)  # one log for the three runs: the admin token was made and shown once
    assert log.count("created the admin API token") == 1 and again.admin_token in log
    assert (home / "admin-token").stat().st_mode & 0o777 == 0o600


def test_time_limit_fails_the_job_without_retry(make_service, bert_path):
    svc = make_service(env={"BRICKYARD_SOFT_TIME_LIMIT": "0.3", "BRICKYARD_HARD_TIME_LIMIT": "60"}).start()
    with svc.client() as c:
        model = upload(c, bert_path.read_bytes(), "bert.onnx").json()
        job = wait_job(c, compile_job(c, model["id"], "h100")["id"], timeout=90)
        assert job["state"] == "failed" and job["error"]["category"] == "timeout", job
        assert "time limit of 0.3 s" in job["error"]["message"]
        time.sleep(2.5)  # past the reconciler's rounds: a failed job is never run again
        assert c.get(f"/v1/compilations/{job['id']}").json()["attempts"] == 1
        assert c.get(f"/v1/compilations/{job['id']}/artifact").status_code == 409
