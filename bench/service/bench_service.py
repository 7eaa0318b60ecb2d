"""Service benchmarks (not tests), against a real embedded API (`python -m api.serve --no-worker`) on loopback:

1. upload throughput (MB/s) of a ~1 GiB ONNX model (one big initializer), and the API process's memory
   (RSS before and after, and its peak) — the upload is streamed to disk and hashed, then imported;
   the same bytes again (answered from the database by sha256, no import) give the streaming rate alone;
2. GET /v1/compilations/{id} latency p50/p99 under an open-loop load of 200 requests/s for 15 s.

    .venv/bin/python bench/service/bench_service.py [--size-mib 1024] [--rate 200] [--seconds 15]

Writes bench/results/service-<UTC date>.json (suite, device, git_commit, created, rows) and prints a table."""
from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (peak) of a process, KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def big_model(path: Path, size_mib: int) -> int:
    """y = x @ W with W a float32 initializer of about size_mib MiB; written without a second copy in memory."""
    import onnx
    from onnx import TensorProto, helper
    cols = 1024
    rows = max(1, size_mib * 1024 * 1024 // (4 * cols))
    w = np.full((rows, cols), 0.5, dtype=np.float32)
    init = onnx.numpy_helper.from_array(w, "W")
    del w
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, rows])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cols])
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "big_matmul", [x], [y], [init])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    path.write_bytes(model.SerializeToString())
    return path.stat().st_size


class Api:
    """`python -m api.serve --no-worker` on a free loopback port with a temporary home."""

    def __init__(self, home: Path):
        self.home, self.port = home, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("BRICKYARD_")}
        env.update(BRICKYARD_HOME=str(home), BRICKYARD_PORT=str(self.port), BRICKYARD_LOGLEVEL="WARNING")
        self.log = open(home / "service.log", "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "api.serve", "--no-worker", "--log-level", "warning"],
                                     cwd=REPO, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            raise SystemExit(f"the API did not start: {(home / 'service.log').read_text()[-2000:]}")
        self.token = (home / "admin-token").read_text().strip()

    def client(self, **kw) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, **kw)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def bench_upload(api: Api, model: Path, size: int) -> list[dict]:
    rows = []
    with api.client(timeout=httpx.Timeout(600.0)) as c:
        c.get("/v1/models")  # warm the request path
        before = rss_kib(api.proc.pid)
        for label in ("new model", "same bytes again"):
            with open(model, "rb") as f:
                t0 = time.perf_counter()
                r = c.post("/v1/models", files={"file": (model.name, f, "application/octet-stream")})
                secs = time.perf_counter() - t0
            if r.status_code not in (200, 201):
                raise SystemExit(f"upload failed: {r.status_code} {r.text[:500]}")
            after = rss_kib(api.proc.pid)
            rows.append({"bench": "upload", "case": f"{size / 2**30:.2f} GiB ONNX, {label}",
                         "status": r.status_code, "bytes": size, "seconds": round(secs, 3),
                         "mb_per_s": round(size / 1e6 / secs, 1),
                         "rss_before_mib": round(before["VmRSS"] / 1024, 1),
                         "rss_after_mib": round(after["VmRSS"] / 1024, 1),
                         "rss_growth_mib": round((after["VmRSS"] - before["VmRSS"]) / 1024, 1),
                         "rss_peak_mib": round(after["VmHWM"] / 1024, 1)})
        model_id = r.json()["id"]
        c.delete(f"/v1/models/{model_id}")
    return rows


class _Conn:
    """One keep-alive HTTP/1.1 connection speaking just enough HTTP for GET: the load generator must cost
    far less CPU than the server it measures (httpx's client costs about as much per request)."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, host: str, port: int) -> "_Conn":
        return cls(*await asyncio.open_connection(host, port))

    async def get(self, request: bytes) -> int:
        self.writer.write(request)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        await self.reader.readexactly(length)
        return status


async def _load(api: Api, path: str, rate: float, seconds: float, connections: int = 64) -> dict:
    """Open loop: request i is due at start + i/rate, whatever happened before. `p*_ms` time a request from
    sending it; `due_p*_ms` from when it was due (with waiting for a free connection: coordinated omission
    shows there, not hidden)."""
    n = int(rate * seconds)
    host, port = "127.0.0.1", int(api.url.rsplit(":", 1)[1])
    request = (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {api.token}\r\n\r\n").encode()
    pool: asyncio.Queue = asyncio.Queue()
    for _ in range(connections):
        pool.put_nowait(await _Conn.open(host, port))
    lat: list[float] = []
    due_lat: list[float] = []
    errors: dict[str, int] = {}

    async def one(at: float):
        await asyncio.sleep(max(0.0, at - time.perf_counter()))
        conn = await pool.get()
        t = time.perf_counter()
        try:
            status = await conn.get(request)
        except (OSError, ValueError, IndexError, asyncio.IncompleteReadError) as e:
            errors[type(e).__name__] = errors.get(type(e).__name__, 0) + 1
            conn = await _Conn.open(host, port)
            status = None
        finally:
            pool.put_nowait(conn)
        if status != 200:
            if status is not None:
                errors[str(status)] = errors.get(str(status), 0) + 1
            return
        done = time.perf_counter()
        lat.append(done - t)
        due_lat.append(done - at)

    t0 = time.perf_counter() + 0.2
    await asyncio.gather(*(one(t0 + i / rate) for i in range(n)))
    wall = time.perf_counter() - t0
    while not pool.empty():
        pool.get_nowait().writer.close()
    ms, due_ms = np.array(lat) * 1000, np.array(due_lat) * 1000
    pct = lambda a, q: round(float(np.percentile(a, q)), 2)
    return {"bench": "get_compilation", "case": f"GET /v1/compilations/{{id}} at {rate:g}/s for {seconds:g} s",
            "requests": n, "ok": len(lat), "errors": errors, "achieved_rps": round(len(lat) / wall, 1),
            "p50_ms": pct(ms, 50), "p90_ms": pct(ms, 90), "p99_ms": pct(ms, 99), "max_ms": round(float(ms.max()), 2),
            "due_p50_ms": pct(due_ms, 50), "due_p99_ms": pct(due_ms, 99), "client": f"raw HTTP/1.1, {connections} "
            "keep-alive connections"}


def bench_get(api: Api, rate: float, seconds: float) -> dict:
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    m = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y]),
                          opset_imports=[helper.make_opsetid("", 18)])
    with api.client(timeout=60) as c:
        model = c.post("/v1/models", files={"file": ("relu.onnx", m.SerializeToString())}).json()
        job = c.post("/v1/compilations", json={"model_id": model["id"], "target": "h100"}).json()
    return asyncio.run(_load(api, f"/v1/compilations/{job['id']}", rate, seconds))


def device() -> dict:
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"name": "cpu", "cpu": name, "cores": os.cpu_count(), "python": platform.python_version(),
            "os": platform.platform()}


def git_commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size-mib", type=int, default=1024)
    p.add_argument("--rate", type=float, default=200.0)
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--out", type=Path, default=None)
    a = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="brickyard-bench-") as tmp:
        tmp = Path(tmp)
        (tmp / "home").mkdir()
        model = tmp / "big.onnx"
        t0 = time.perf_counter()
        size = big_model(model, a.size_mib)
        print(f"generated {model.name}: {size / 2**30:.2f} GiB in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        api = Api(tmp / "home")
        try:
            rows += bench_upload(api, model, size)
            model.unlink()
            rows.append(bench_get(api, a.rate, a.seconds))
        finally:
            api.stop()
    now = dt.datetime.now(dt.timezone.utc)
    doc = {"suite": "service", "device": device(), "git_commit": git_commit(),
           "created": now.isoformat(timespec="seconds"), "rows": rows}
    out = a.out or REPO / "bench" / "results" / f"service-{now.strftime('%Y%m%dT%H%M%SZ')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"\n{'bench':<16} {'case':<52} result")
    for r in rows:
        if r["bench"] == "upload":
            res = (f"{r['mb_per_s']} MB/s ({r['seconds']} s, HTTP {r['status']}); RSS {r['rss_before_mib']} -> "
                   f"{r['rss_after_mib']} MiB (+{r['rss_growth_mib']}), peak {r['rss_peak_mib']} MiB")
        else:
            res = (f"p50 {r['p50_ms']} ms, p90 {r['p90_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms; "
                   f"from due: p50 {r['due_p50_ms']} ms, p99 {r['due_p99_ms']} ms; "
                   f"{r['ok']}/{r['requests']} ok at {r['achieved_rps']}/s, errors {r['errors'] or 'none'}")
        print(f"{r['bench']:<16} {r['case']:<52} {res}")
    print(f"\n-> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
