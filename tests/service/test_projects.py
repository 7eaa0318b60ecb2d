"""CI projects end to end through HTTP with a real worker: a signed GitHub push event builds two models for
two targets, the commit goes pending -> pass, a replayed delivery starts nothing, a bad signature is 401, a
model with twice the layers is a regression that `brickyard ci` fails on; the verdict callback is signed;
owners see only their own projects; the https fetcher keeps its limits."""
from __future__ import annotations

import hashlib
import hmac
import http.server
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
import uuid

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from .conftest import REPO, upload

pytestmark = pytest.mark.service
TARGETS = ["h100", "a100"]


def mlp(layers: int, width: int = 32, seed: int = 0) -> bytes:
    """A real model: `layers` x (MatMul + Relu) on a [8, width] input."""
    rng = np.random.default_rng(seed)
    nodes, inits, cur = [], [], "x"
    for i in range(layers):
        inits.append(numpy_helper.from_array(rng.standard_normal((width, width)).astype(np.float32), f"w{i}"))
        out = "y" if i == layers - 1 else f"r{i}"
        nodes += [helper.make_node("MatMul", [cur, f"w{i}"], [f"m{i}"]), helper.make_node("Relu", [f"m{i}"], [out])]
        cur = out
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, width])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, width])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    return model.SerializeToString()


def signed(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def push_event(after: str, ref: str = "refs/heads/main") -> bytes:
    return json.dumps({"ref": ref, "before": "0" * 40, "after": after,
                       "repository": {"full_name": "acme/models"}, "pusher": {"name": "ci"}}).encode()


def hook(client, project_id: str, body: bytes, secret: str, *, delivery: str | None = None,
         event: str | None = "push"):
    headers = {"content-type": "application/json", "X-Hub-Signature-256": signed(secret, body)}
    if delivery:
        headers["X-GitHub-Delivery"] = delivery
    if event:
        headers["X-GitHub-Event"] = event
    return client.post(f"/v1/hooks/ci/{project_id}", content=body, headers=headers)


def wait_verdict(client, project_id: str, sha: str, timeout: float = 90.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = client.get(f"/v1/projects/{project_id}/commits/{sha}").json()
        if st["verdict"] != "pending":
            return st
        time.sleep(0.2)
    raise AssertionError(f"commit {sha} still pending: {st}")


def brickyard(*args: str, env: dict) -> subprocess.CompletedProcess:
    import os
    full = {k: v for k, v in os.environ.items() if not k.startswith("BRICKYARD_")}
    full.update(env)
    return subprocess.run([sys.executable, "-m", "brickyard", *args], cwd=REPO, env=full, capture_output=True,
                          text=True, timeout=120)


class Receiver:
    """A loopback HTTP server that keeps what is POSTed to it (the verdict callback)."""

    def __init__(self):
        self.posts: list[tuple[dict, bytes]] = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                owner.posts.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *a):
                pass
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/verdict"


def test_push_webhook_builds_then_regression_fails_ci(service):
    receiver = Receiver()
    with service.client() as c:
        small = upload(c, mlp(2, seed=1), "small.onnx").json()["id"]
        other = upload(c, mlp(2, width=48, seed=2), "other.onnx").json()["id"]
        doubled = upload(c, mlp(4, seed=1), "small-x2.onnx").json()["id"]
        r = c.post("/v1/projects", json={"name": "mlps", "targets": TARGETS, "callback_url": receiver.url,
                                         "models": [{"name": "small", "source": small},
                                                    {"name": "other", "source": other}]})
        assert r.status_code == 201, r.text
        project = r.json()
        pid, secret = project["id"], project["webhook_secret"]
        assert secret and project["webhook_url"] == f"/v1/hooks/ci/{pid}"
        assert c.get(f"/v1/projects/{pid}").json()["webhook_secret"] is None  # shown once
        jobs_before = c.get("/v1/compilations").json()["total"]

        # 1. a signed push event: four compilations, answered 202 within a second
        sha1, delivery = "a" * 40, str(uuid.uuid4())
        t0 = time.monotonic()
        r = hook(c, pid, push_event(sha1), secret, delivery=delivery)
        elapsed = time.monotonic() - t0
        assert r.status_code == 202, r.text
        assert elapsed < 1.0, elapsed
        started = r.json()
        assert started["started"] and started["commit"] == sha1 and started["ref"] == "refs/heads/main"
        assert len(started["compilations"]) == 4
        assert {(x["model"], x["target"]) for x in started["compilations"]} == \
            {(m, t) for m in ("small", "other") for t in TARGETS}
        assert c.get("/v1/compilations").json()["total"] == jobs_before + 4
        first = c.get(f"/v1/projects/{pid}/commits/{sha1}").json()
        assert first["verdict"] == "pending", first
        st = wait_verdict(c, pid, sha1)
        assert st["verdict"] == "pass", st
        for b in st["builds"]:
            assert b["state"] == "succeeded" and b["compile_seconds"] > 0 and b["latency_us"] > 0, b
            assert b["latency_kind"] == "predicted" and b["change"] is None

        # 2. the same delivery again: the earlier answer, nothing started
        r = hook(c, pid, push_event(sha1), secret, delivery=delivery)
        assert r.status_code == 200, r.text
        assert r.json()["replay"] is True and r.json()["compilations"] == started["compilations"]
        assert c.get("/v1/compilations").json()["total"] == jobs_before + 4

        # 3. a wrong signature: 401, nothing recorded but the counter
        body = push_event("b" * 40)
        r = c.post(f"/v1/hooks/ci/{pid}", content=body, headers={
            "X-Hub-Signature-256": signed("not-the-secret", body), "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-GitHub-Event": "push"})
        assert r.status_code == 401, r.text
        r = c.post(f"/v1/hooks/ci/{pid}", content=body, headers={"X-GitHub-Event": "push"})
        assert r.status_code == 401
        assert c.get(f"/v1/projects/{pid}/commits/{'b' * 40}").status_code == 404
        assert c.get("/v1/compilations").json()["total"] == jobs_before + 4
        assert "brickyard_webhook_bad_signatures_total 2.0" in c.get("/metrics").text

        # 4. a second commit (plain JSON) whose model has twice the layers: a regression; `brickyard ci` exits 1
        sha2 = "c" * 40
        body = json.dumps({"commit": sha2, "ref": "refs/heads/main", "models": {"small": doubled}}).encode()
        r = c.post(f"/v1/hooks/ci/{pid}", content=body, headers={
            "X-Hub-Signature-256": signed(secret, body), "X-Brickyard-Delivery": "plain-1"})
        assert r.status_code == 202, r.text
        env = {"BRICKYARD_SERVER": service.url, "BRICKYARD_TOKEN": service.admin_token}
        ci = brickyard("ci", "mlps", sha2, "--no-trigger", "--timeout", "90", env=env)
        assert ci.returncode == 1, (ci.stdout, ci.stderr)
        assert "REGRESSION" in ci.stdout and "FAIL" in ci.stdout, ci.stdout
        st = c.get(f"/v1/projects/{pid}/commits/{sha2}").json()
        assert st["verdict"] == "fail" and st["previous_commit"] == sha1
        assert sorted(st["regressions"]) == sorted(f"small@{t}" for t in TARGETS)
        for b in st["builds"]:
            if b["model"] == "small":
                assert b["change"] > 0.5 and b["regression"], b   # twice the layers: about +100%
            else:
                assert b["change"] == 0.0 and not b["regression"], b  # same bytes, answered from the store
        # a looser threshold passes the same commit
        assert c.get(f"/v1/projects/{pid}/commits/{sha2}", params={"threshold": 5}).json()["verdict"] == "pass"

        # 5. `brickyard ci` triggers a third commit that goes back to the small model: faster, so it passes
        ci = brickyard("ci", "mlps", "d" * 40, "--ref", "refs/heads/main", "--model", f"small={small}",
                       "--timeout", "90", env=env)
        assert ci.returncode == 0, (ci.stdout, ci.stderr)
        assert "PASS" in ci.stdout and "-50.0%" in ci.stdout, ci.stdout
        # triggering a known commit again starts nothing
        again = c.post(f"/v1/projects/{pid}/commits", json={"commit": "d" * 40, "ref": "refs/heads/main"})
        assert again.status_code == 200 and again.json()["started"] is False

        # 6. the verdicts were POSTed to the callback, signed with the project's secret
        deadline = time.monotonic() + 15
        while len(receiver.posts) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        verdicts = {}
        for headers, raw in receiver.posts:
            assert hmac.compare_digest(headers["x-hub-signature-256"], signed(secret, raw))
            doc = json.loads(raw)
            verdicts[doc["commit"]] = doc["verdict"]
        assert verdicts == {sha1: "pass", sha2: "fail", "d" * 40: "pass"}, verdicts

        # 7. rotation: the old secret stops working, the new one works; a ping starts nothing
        new_secret = c.post(f"/v1/projects/{pid}/rotate-secret").json()["webhook_secret"]
        assert new_secret and new_secret != secret
        ping = json.dumps({"zen": "Keep it logically awesome.", "hook_id": 1}).encode()
        assert hook(c, pid, ping, secret, event="ping").status_code == 401
        r = hook(c, pid, ping, new_secret, event="ping")
        assert r.status_code == 200 and r.json()["started"] is False


def test_project_validation(service):
    with service.client() as c:
        mid = upload(c, mlp(1, seed=5), "one.onnx").json()["id"]

        def create(**kw):
            body = {"name": "v", "targets": ["h100"], "models": [{"name": "m", "source": mid}]}
            body.update(kw)
            return c.post("/v1/projects", json=body)
        for source, words in [("http://example.com/{commit}/m.onnx", "must be https"),
                              ("https://example.com/m.onnx", "must contain {commit}"),
                              ("ftp://example.com/{commit}.onnx", "must be https"),
                              ("https://user:pw@example.com/{commit}.onnx", "credentials"),
                              ("0123456789abcdef0123456789abcdef", "neither one of your model ids")]:
            r = create(models=[{"name": "m", "source": source}])
            assert r.status_code == 422 and words in r.json()["detail"], (source, r.text)
        assert create(targets=["h900"]).status_code == 422
        assert create(callback_url="http://example.com/cb").status_code == 422
        r = create(name="fetched", models=[{"name": "m", "source": "https://models.example.com/{commit}/m.onnx"}])
        assert r.status_code == 201, r.text
        assert create(name="fetched").status_code == 409
        sec = r.json()["webhook_secret"]
        body = json.dumps({"commit": "not a sha!"}).encode()
        assert hook(c, r.json()["id"], body, sec, event=None).status_code == 422


def test_owners_see_only_their_projects(service):
    bob = service.create_token("bob")
    with service.client() as alice, service.client(bob) as b:
        mid = upload(alice, mlp(1, seed=7), "alice.onnx").json()["id"]
        r = alice.post("/v1/projects", json={"name": "alice-only", "targets": ["h100"],
                                             "models": [{"name": "m", "source": mid}]})
        assert r.status_code == 201, r.text
        pid = r.json()["id"]
        assert alice.post(f"/v1/projects/{pid}/commits", json={"commit": "e" * 40}).status_code == 202
        # bob may not use alice's model as a source either
        assert b.post("/v1/projects", json={"name": "x", "targets": ["h100"],
                                            "models": [{"name": "m", "source": mid}]}).status_code == 422
        assert b.get("/v1/projects").json() == {"items": [], "total": 0}
        for path in (f"/v1/projects/{pid}", "/v1/projects/alice-only", f"/v1/projects/{pid}/commits",
                     f"/v1/projects/{pid}/commits/{'e' * 40}"):
            assert b.get(path).status_code == 404, path
        assert b.post(f"/v1/projects/{pid}/rotate-secret").status_code == 404
        assert b.post(f"/v1/projects/{pid}/commits", json={"commit": "f" * 40}).status_code == 404
        assert b.delete(f"/v1/projects/{pid}").status_code == 404
        dash = b.get("/v1/dashboard").json()
        assert dash["owner"] == "bob" and dash["projects"] == [] and dash["compile_times"] == []
        assert dash["recent"] == [] and dash["cache"]["kernel_misses"] == 0
        mine = alice.get("/v1/dashboard").json()
        assert "alice-only" in [p["name"] for p in mine["projects"]]
        assert alice.get("/v1/projects").json()["total"] >= 1
        assert service.client("bky_wrong").get("/v1/dashboard").status_code == 401


# --- the https fetcher (worker/fetch.py), against a loopback https server: there is no internet -------

@pytest.fixture(scope="module")
def tls_cert(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1: (cert.pem, key.pem)."""
    if not shutil.which("openssl"):
        pytest.skip("openssl is needed to make a self-signed certificate")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(d / "key.pem"), "-out",
                    str(d / "cert.pem")], check=True, capture_output=True)
    return d / "cert.pem", d / "key.pem"


def serve_tls(handler, cert) -> http.server.ThreadingHTTPServer:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(*cert)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


@pytest.fixture(scope="module")
def tls_server(tls_cert):
    payload = mlp(1, seed=9)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            if self.path.startswith("/big"):  # declares its size
                self.send_response(200)
                self.send_header("content-length", str(10_000_000))
                self.end_headers()
                return
            if self.path.startswith("/stream"):  # no declared size, streams past the limit
                self.send_response(200)
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for _ in range(64):
                    self.wfile.write(b"10000\r\n" + b"x" * 0x10000 + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
                return
            if self.path.startswith("/slow"):  # a byte at a time
                self.send_response(200)
                self.send_header("content-length", "100")
                self.end_headers()
                try:
                    for _ in range(100):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                        time.sleep(0.1)
                except OSError:
                    pass
                return
            self.send_response(200)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *a):
            pass
    srv = serve_tls(Handler, tls_cert)
    client_ctx = ssl.create_default_context(cafile=str(tls_cert[0]))
    yield f"https://127.0.0.1:{srv.server_address[1]}", client_ctx, payload
    srv.shutdown()


def test_fetcher_limits(tls_server, tmp_path):
    from worker.fetch import FetchError, fetch_to_file
    base, ctx, payload = tls_server
    dest = tmp_path / "m.onnx"
    assert fetch_to_file(f"{base}/abc123/m.onnx", dest, max_bytes=1 << 20, timeout=10, verify=ctx) == len(payload)
    assert dest.read_bytes() == payload
    with pytest.raises(FetchError, match="over the limit"):
        fetch_to_file(f"{base}/big", dest, max_bytes=1 << 20, timeout=10, verify=ctx)
    with pytest.raises(FetchError, match="over the limit"):
        fetch_to_file(f"{base}/stream", dest, max_bytes=1 << 20, timeout=10, verify=ctx)
    t0 = time.monotonic()
    with pytest.raises(FetchError, match="longer than 1 s"):
        fetch_to_file(f"{base}/slow", dest, max_bytes=1 << 20, timeout=1, verify=ctx)
    assert time.monotonic() - t0 < 5
    with pytest.raises(FetchError, match="only https"):
        fetch_to_file(base.replace("https", "http") + "/m.onnx", dest, max_bytes=1 << 20, timeout=5, verify=ctx)
    with pytest.raises(FetchError, match="cannot fetch"):  # an unknown certificate is refused
        fetch_to_file(f"{base}/m.onnx", dest, max_bytes=1 << 20, timeout=5)


def test_fetch_and_verdict_survive_losing_the_whole_service_mid_fetch(make_service, tls_cert):
    """A model fetched from an https URL (an internal CA): the API and its worker are killed while the fetch
    is in flight; after a restart the reconciler fetches again once the lease lapses, the build compiles,
    and the verdict the dead API process would have posted is delivered once."""
    payload = mlp(2, seed=11)
    first_get, release = threading.Event(), threading.Event()
    gets: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            gets.append(self.path)
            if len(gets) == 1:  # the first fetch hangs until its worker is gone
                first_get.set()
                release.wait(60)
                self.close_connection = True
                return
            self.send_response(200)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *a):
            pass
    srv = serve_tls(Handler, tls_cert)
    receiver = Receiver()
    svc = make_service(env={"BRICKYARD_FETCH_CA_FILE": str(tls_cert[0]), "BRICKYARD_FETCH_TIMEOUT": "5",
                            "BRICKYARD_FETCH_LEASE": "12"}).start()
    try:
        with svc.client() as c:
            url = f"https://127.0.0.1:{srv.server_address[1]}/{{commit}}/m.onnx"
            r = c.post("/v1/projects", json={"name": "fetched", "targets": ["h100"], "callback_url": receiver.url,
                                             "models": [{"name": "m", "source": url}]})
            assert r.status_code == 201, r.text
            pid, secret = r.json()["id"], r.json()["webhook_secret"]
            sha = "f" * 40
            assert hook(c, pid, push_event(sha), secret).status_code == 202
            assert first_get.wait(60), "the worker never started the fetch"
            # the machine goes: the API process and its worker, mid-fetch, with the verdict still pending
            svc.proc.kill()
            svc.proc.wait()
            os.killpg(svc.worker_pid(), signal.SIGKILL)
            release.set()
        svc.start()
        with svc.client() as c:
            st = wait_verdict(c, pid, sha, timeout=120)
            assert st["verdict"] == "pass", st
            (build,) = st["builds"]
            assert build["state"] == "succeeded" and build["model_id"], build
            model = c.get(f"/v1/models/{build['model_id']}").json()
            assert model["sha256"] == hashlib.sha256(payload).hexdigest()
        assert gets == [f"/{sha}/m.onnx"] * 2, gets
        assert "(attempt 2)" in svc.tail(10**9)  # the worker's log: the second claim of the build
        deadline = time.monotonic() + 30
        while not receiver.posts and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)  # a second delivery, if there were one, would arrive by now
        assert len(receiver.posts) == 1, receiver.posts
        headers, raw = receiver.posts[0]
        assert hmac.compare_digest(headers["x-hub-signature-256"], signed(secret, raw))
        doc = json.loads(raw)
        assert doc["commit"] == sha and doc["verdict"] == "pass"
        assert headers["x-brickyard-delivery"].endswith("-verdict")
    finally:
        release.set()
        srv.shutdown()
