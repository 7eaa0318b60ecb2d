"""Fixtures that run the real embedded service (`python -m api.serve`: uvicorn + a Celery worker process)
on a free loopback port with its own BRICKYARD_HOME, and talk to it over HTTP."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

# the service's own dependencies (the `service` extra): without them these tests skip, saying so
httpx = pytest.importorskip("httpx", reason="tests/service need the service extra: pip install -e '.[service]'")
for _dep in ("fastapi", "celery", "sqlalchemy", "pydantic_settings", "python_multipart", "prometheus_client"):
    pytest.importorskip(_dep, reason="tests/service need the service extra: pip install -e '.[service]'")

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("BRICKYARD_SHARED", REPO.parent / "shared")).resolve()

# short timeouts so recovery happens within a test's time
FAST = {"BRICKYARD_HEARTBEAT_INTERVAL": "0.5", "BRICKYARD_HEARTBEAT_TIMEOUT": "3",
        "BRICKYARD_RECONCILE_INTERVAL": "1", "BRICKYARD_QUEUED_GRACE": "2", "BRICKYARD_POLL_INTERVAL": "0.1",
        "BRICKYARD_WORKER_SHUTDOWN_GRACE": "2", "BRICKYARD_LOGLEVEL": "INFO"}
WORKER_READY = " ready."  # Celery: "brickyard-<pid>@<host> ready."


def pytest_configure(config):
    config.addinivalue_line("markers", "service: runs the real service processes (tests/service)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """One run of `python -m api.serve` on a home folder; start(), stop(), a client with a token."""

    def __init__(self, home: Path, *, env: dict | None = None, worker: bool = True, extra_workers: int = 0,
                 cwd: Path = REPO):
        self.home, self.extra_env, self.worker = home, env or {}, worker
        self.cwd = cwd    # the source tree the processes import (a copy, to test a compiler change)
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.log = home / "service.log"
        self.extra_workers = extra_workers  # more `python -m worker` processes, beside api.serve's own
        self.workers: list[subprocess.Popen] = []

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("BRICKYARD_")}
        env.update(FAST, BRICKYARD_HOME=str(self.home), BRICKYARD_PORT=str(self.port), **self.extra_env)
        return env

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> "Service":
        env = self.env()
        self.home.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "api.serve"] + ([] if self.worker else ["--no-worker"])
        ready_before = self.tail(10**9).count(WORKER_READY)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, cwd=self.cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the service exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        else:
            raise RuntimeError(f"the service did not become ready in {timeout} s:\n{self.tail()}")
        if self.worker:  # the worker's own start: it is ready when Celery says so
            self.wait_log(WORKER_READY, count=ready_before + 1, timeout=timeout)
        for i in range(len(self.workers), self.extra_workers):
            wlog = self.home / f"worker-{i}.log"
            with open(wlog, "ab") as log:
                self.workers.append(subprocess.Popen([sys.executable, "-m", "worker", "--queues", "cpu"], cwd=self.cwd,
                                                     env=env, stdout=log, stderr=subprocess.STDOUT,
                                                     start_new_session=True))
            deadline = time.monotonic() + timeout
            while WORKER_READY not in wlog.read_text(errors="replace"):
                if self.workers[-1].poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"extra worker {i} did not start:\n{wlog.read_text(errors='replace')[-3000:]}")
                time.sleep(0.2)
        return self

    def stop_workers(self, timeout: float = 30.0) -> None:
        for w in self.workers:
            if w.poll() is None:
                w.send_signal(signal.SIGTERM)
        for w in self.workers:
            try:
                w.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(w.pid, signal.SIGKILL)
                w.wait()
        self.workers = []

    def wait_log(self, text: str, *, count: int = 1, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.tail(10**9).count(text) >= count:
                return
            time.sleep(0.2)
        raise AssertionError(f"'{text}' did not appear {count} time(s) in the service log:\n{self.tail()}")

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM (Ctrl-C's clean stop) and wait; returns the exit status."""
        self.stop_workers()
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            pid = self.worker_pid()
            if pid:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait()
            raise AssertionError(f"the service did not stop within {timeout} s:\n{self.tail()}")

    def worker_pid(self) -> int | None:
        try:
            return int((self.home / "run" / "worker.pid").read_text())
        except (FileNotFoundError, ValueError):
            return None

    def tail(self, n: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except FileNotFoundError:
            return ""

    @property
    def admin_token(self) -> str:
        return (self.home / "admin-token").read_text().strip()

    def client(self, token: str | None = None) -> httpx.Client:
        token = token or self.admin_token
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {token}"}, timeout=60)

    def create_token(self, name: str) -> str:
        out = subprocess.run([sys.executable, "-m", "api.tokens", "create", name], cwd=REPO, env=self.env(),
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A running embedded service shared by a module's tests (its store fills as they go)."""
    svc = Service(tmp_path_factory.mktemp("svc")).start()
    yield svc
    svc.stop()


@pytest.fixture
def make_service(tmp_path):
    """Starts services on demand (same home for restarts); stops whatever is still running at the end."""
    made: list[Service] = []

    def make(home: Path | None = None, **kw) -> Service:
        svc = Service(home or tmp_path / "home", **kw)
        made.append(svc)
        return svc
    yield make
    for svc in made:
        if svc.proc is not None and svc.proc.poll() is None:
            svc.stop()


@pytest.fixture(scope="session")
def servers():
    """A real Redis and a real PostgreSQL on loopback for the whole session (skips, saying why, when the
    binaries are absent)."""
    from .servers import PostgresServer, RedisServer, missing
    why = missing()
    if why:
        pytest.skip(why)
    redis, pg = RedisServer(), PostgresServer()
    try:
        redis.start()
        pg.start()
        yield {"redis": redis, "postgres": pg}
    finally:
        redis.stop()
        pg.stop()


def stack_env(servers) -> dict:
    """The settings of the full stack: PostgreSQL (a new database) and Redis (a new logical db)."""
    return {"BRICKYARD_DATABASE_URL": servers["postgres"].create_database(),
            "BRICKYARD_BROKER": servers["redis"].url()}


@pytest.fixture(scope="session")
def bert_path() -> Path:
    p = SHARED / "models" / "bert.onnx"
    if not p.is_file():
        pytest.fail(f"{p} not found: set BRICKYARD_SHARED to the shared folder")
    return p


def relu_model(dims=(2, 3), name="x") -> bytes:
    """The smallest real model: one Relu node (dims may name dynamic dimensions)."""
    x = helper.make_tensor_value_info(name, TensorProto.FLOAT, list(dims))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(dims))
    graph = helper.make_graph([helper.make_node("Relu", [name], ["y"])], "relu", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    return model.SerializeToString()


def upload(client: httpx.Client, data: bytes, filename: str = "model.onnx", **fields) -> httpx.Response:
    return client.post("/v1/models", files={"file": (filename, data, "application/octet-stream")}, data=fields)


def compile_job(client: httpx.Client, model_id: str, target="h100", **options) -> dict:
    r = client.post("/v1/compilations", json={"model_id": model_id, "target": target, "options": options})
    assert r.status_code == 201, r.text
    return r.json()


def wait_job(client: httpx.Client, job_id: str, states=("succeeded", "failed", "cancelled"),
             timeout: float = 120.0, interval: float = 0.1) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/v1/compilations/{job_id}").json()
        if job["state"] in states:
            return job
        time.sleep(interval)
    raise AssertionError(f"job {job_id} not in {states} after {timeout} s: {job}")


def read_events(client: httpx.Client, job_id: str, timeout: float = 120.0) -> list[dict]:
    """Follows the job's server-sent events until the server ends the stream."""
    events, cur = [], {}
    with client.stream("GET", f"/v1/compilations/{job_id}/events", timeout=timeout) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if not line:
                if "data" in cur:
                    events.append(dict(json.loads(cur["data"]), event=cur.get("event")))
                cur = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                cur[key] = value.strip()
    return events


def seeded(shape, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
