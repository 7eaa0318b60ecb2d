"""A small client of the Brickyard REST API (httpx), used by `brickyard submit`, `jobs` and `ci` (api/cli.py).

    from api.client import Client
    with Client() as c:                                   # server and token from the environment
        model = c.upload_model("bert.onnx")
        job = c.create_compilation(model["id"], "h100")
        for event in c.events(job["id"]):
            print(event["state"], event["stage"], event["progress"])
        c.download_artifact(job["id"], "bert.tar.gz")

Server: BRICKYARD_SERVER (a URL), else http://$BRICKYARD_HOST:$BRICKYARD_PORT as the service itself reads them
(a wildcard host is reached on 127.0.0.1), else http://127.0.0.1:8000. Token: BRICKYARD_TOKEN, else the file
$BRICKYARD_HOME/admin-token (BRICKYARD_HOME defaults to ./var, as for the service). Every failure is a
ClientError with a one-line message."""
from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DEFAULT_SERVER = "http://127.0.0.1:8000"
TERMINAL = ("succeeded", "failed", "cancelled")


class ClientError(Exception):
    """A one-line reason: the server's answer, or why it could not be reached."""


def default_server() -> str:
    """BRICKYARD_SERVER, else the host and port the service listens on (BRICKYARD_HOST, BRICKYARD_PORT)."""
    server = os.environ.get("BRICKYARD_SERVER", "").strip()
    if server:
        return server
    port = os.environ.get("BRICKYARD_PORT", "").strip()
    host = os.environ.get("BRICKYARD_HOST", "").strip()
    if not port and not host:
        return DEFAULT_SERVER
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise ClientError(f"BRICKYARD_PORT '{port}' is not a port number")
    if host in ("", "0.0.0.0", "::", "[::]"):  # the service listens everywhere: loopback reaches it
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port or 8000}"


def default_token() -> str | None:
    """BRICKYARD_TOKEN, else $BRICKYARD_HOME/admin-token (the service writes it on first start)."""
    token = os.environ.get("BRICKYARD_TOKEN")
    if token:
        return token.strip()
    path = Path(os.environ.get("BRICKYARD_HOME") or "./var").expanduser() / "admin-token"
    try:
        return path.read_text().strip() or None
    except OSError:
        return None


def _detail(response) -> str:
    try:
        body = response.json()
        detail = body.get("detail") if isinstance(body, dict) else None
        if detail:
            return str(detail) + (f" [{body['category']}]" if body.get("category") else "")
    except ValueError:
        pass
    text = (response.text or "").strip()
    return text.splitlines()[0][:300] if text else response.reason_phrase


class Client:
    """One server, one token; a context manager (closes its connections)."""

    def __init__(self, server: str | None = None, token: str | None = None, *, timeout: float = 60.0):
        try:
            import httpx
        except ImportError:
            raise ClientError("the client needs httpx: pip install 'brickyard[service]'") from None
        self._httpx = httpx
        self.server = (server or default_server()).rstrip("/")
        if not self.server.startswith(("http://", "https://")):
            raise ClientError(f"server '{self.server}' must be an http:// or https:// URL")
        token = token or default_token()
        if not token:
            raise ClientError("no API token: pass --token, set BRICKYARD_TOKEN, or point BRICKYARD_HOME at the "
                              "service's home (its admin-token file)")
        self.http = httpx.Client(base_url=self.server, headers={"Authorization": f"Bearer {token}"},
                                 timeout=httpx.Timeout(timeout, connect=10.0))

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    # --- plumbing ---------------------------------------------------------------------------------

    def _request(self, method: str, path: str, *, ok=(200, 201), **kw):
        try:
            r = self.http.request(method, path, **kw)
        except self._httpx.TransportError as e:
            raise ClientError(f"cannot reach {self.server}: {type(e).__name__}: {e}") from None
        if r.status_code not in ok:
            raise ClientError(f"{method} {path}: HTTP {r.status_code}: {_detail(r)}")
        return r

    # --- the API ----------------------------------------------------------------------------------

    def upload_model(self, path: str | os.PathLike, name: str | None = None) -> dict[str, Any]:
        """Uploads an ONNX file (streamed from disk); 201 new or 200 already uploaded: the model."""
        p = Path(path)
        try:
            f = open(p, "rb")
        except OSError as e:
            raise ClientError(f"cannot read {p}: {e.strerror}") from None
        with f:
            data = {"name": name} if name else {}
            return self._request("POST", "/v1/models", files={"file": (p.name, f, "application/octet-stream")},
                                 data=data).json()

    def create_compilation(self, model_id: str, target: str | dict, *, input_shapes: dict | None = None,
                           precision: str = "fp32", verify: str | None = None, disable: list[str] | None = None,
                           kv_cache: str = "copy") -> dict[str, Any]:
        body = {"model_id": model_id, "target": target,
                "options": {"input_shapes": input_shapes or {}, "precision": precision, "kv_cache": kv_cache,
                            **({"verify": verify} if verify else {}), **({"disable": disable} if disable else {})}}
        return self._request("POST", "/v1/compilations", json=body).json()

    def get_compilation(self, job_id: str) -> dict[str, Any]:
        return self._request("GET", f"/v1/compilations/{job_id}").json()

    def list_compilations(self, *, state: str | None = None, model_id: str | None = None, limit: int = 50,
                          offset: int = 0) -> dict[str, Any]:
        params = {k: v for k, v in {"state": state, "model_id": model_id, "limit": limit, "offset": offset}.items()
                  if v is not None}
        return self._request("GET", "/v1/compilations", params=params).json()

    def get_model(self, model_id: str) -> dict[str, Any]:
        return self._request("GET", f"/v1/models/{model_id}").json()

    def model_names(self, model_ids: set[str]) -> dict[str, str]:
        """id -> name for these models (one listing, then one request per id it missed); a deleted model
        is left out."""
        names: dict[str, str] = {}
        if not model_ids:
            return names
        listing = self._request("GET", "/v1/models", params={"limit": 500}).json()
        names.update({m["id"]: m["name"] for m in listing["items"] if m["id"] in model_ids})
        for mid in model_ids - names.keys():
            r = self._request("GET", f"/v1/models/{mid}", ok=(200, 404))
            if r.status_code == 200:
                names[mid] = r.json()["name"]
        return names

    def events(self, job_id: str, *, timeout: float = 3600.0) -> Iterator[dict[str, Any]]:
        """The job's server-sent events until a terminal one; a dropped stream resumes with Last-Event-ID,
        and if the stream cannot be had the job is polled instead."""
        deadline = time.monotonic() + timeout
        last_id: int | None = None
        failures = 0
        while time.monotonic() < deadline:
            headers = {"Last-Event-ID": str(last_id)} if last_id is not None else {}
            try:
                with self.http.stream("GET", f"/v1/compilations/{job_id}/events", headers=headers,
                                      timeout=self._httpx.Timeout(60.0, read=60.0)) as r:
                    if r.status_code != 200:
                        r.read()
                        raise ClientError(f"GET /v1/compilations/{job_id}/events: HTTP {r.status_code}: {_detail(r)}")
                    cur: dict[str, str] = {}
                    for line in r.iter_lines():
                        if not line:
                            if "data" in cur:
                                ev = dict(json.loads(cur["data"]), event=cur.get("event"))
                                last_id = ev.get("id", last_id)
                                yield ev
                                if ev.get("state") in TERMINAL:
                                    return
                            cur = {}
                        elif not line.startswith(":"):
                            key, _, value = line.partition(":")
                            cur[key] = value.strip()
                failures = 0
            except self._httpx.TransportError:
                failures += 1
                if failures > 5:
                    raise ClientError(f"lost the event stream of {job_id} from {self.server}") from None
                time.sleep(min(2.0 * failures, 10.0))
            job = self.get_compilation(job_id)  # the stream ended early: is the job done?
            if job["state"] in TERMINAL:
                return
        raise ClientError(f"compilation {job_id} did not finish within {timeout:g} s")

    def download_artifact(self, job_id: str, dest: str | os.PathLike) -> int:
        """Streams the artifact to `dest` (written to a temporary name, then renamed); returns its size."""
        dest = Path(dest)
        tmp = dest.with_name(dest.name + ".part")
        try:
            with self.http.stream("GET", f"/v1/compilations/{job_id}/artifact") as r:
                if r.status_code != 200:
                    r.read()
                    raise ClientError(f"GET /v1/compilations/{job_id}/artifact: HTTP {r.status_code}: {_detail(r)}")
                size = 0
                with open(tmp, "wb") as f:
                    for chunk in r.iter_bytes(1 << 20):
                        f.write(chunk)
                        size += len(chunk)
            os.replace(tmp, dest)
            return size
        except self._httpx.TransportError as e:
            raise ClientError(f"cannot download the artifact of {job_id}: {type(e).__name__}: {e}") from None
        except OSError as e:
            raise ClientError(f"cannot write {dest}: {e.strerror or e}") from None
        finally:
            tmp.unlink(missing_ok=True)

    # --- CI projects (docs/ci-webhook.md) ----------------------------------------------------------

    def create_project(self, name: str, targets: list[str], models: list[dict[str, str]], **extra) -> dict[str, Any]:
        """A new project; the answer carries its webhook secret (shown once)."""
        return self._request("POST", "/v1/projects", json={"name": name, "targets": targets, "models": models,
                                                           **extra}).json()

    def trigger_commit(self, project: str, commit: str, ref: str = "",
                       models: dict[str, str] | None = None) -> dict[str, Any]:
        """Starts a commit's builds (or finds them, if it was built before)."""
        body: dict[str, Any] = {"commit": commit, "ref": ref}
        if models:
            body["models"] = models
        return self._request("POST", f"/v1/projects/{project}/commits", ok=(200, 202), json=body).json()

    def commit_status(self, project: str, commit: str, threshold: float | None = None) -> dict[str, Any]:
        params = {"threshold": threshold} if threshold is not None else {}
        return self._request("GET", f"/v1/projects/{project}/commits/{commit}", params=params).json()

    def wait_commit(self, project: str, commit: str, *, threshold: float | None = None, timeout: float = 3600.0,
                    interval: float = 1.0) -> dict[str, Any]:
        """Polls a commit's status until its verdict is pass or fail."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.commit_status(project, commit, threshold)
            if status["verdict"] != "pending":
                return status
            if time.monotonic() > deadline:
                raise ClientError(f"commit {commit} of {project} is still pending after {timeout:g} s")
            time.sleep(interval)
