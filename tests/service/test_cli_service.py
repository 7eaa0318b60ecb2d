"""`brickyard jobs`, `submit` and `compile` against a real service: the jobs table tells compilations of
one model apart (model, target, shapes, precision, state), the client finds the server from
BRICKYARD_PORT or BRICKYARD_SERVER, and `compile --cache` pointed at the service's store reuses the
kernels the service built."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import REPO, Service, compile_job, relu_model, upload, wait_job

pytestmark = pytest.mark.service


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    s = Service(tmp_path_factory.mktemp("cli")).start()
    yield s
    s.stop()


def brickyard(*args: str, env: dict) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("BRICKYARD_")}
    return subprocess.run([sys.executable, "-m", "brickyard", *args], cwd=REPO, env={**base, **env},
                          capture_output=True, text=True, timeout=300)


def test_jobs_tell_shapes_and_precision_apart(svc, tmp_path):
    with svc.client() as c:
        model = upload(c, relu_model(("batch", 4)), "dynrelu.onnx").json()
        small = compile_job(c, model["id"], input_shapes={"x": [2, 4]})
        big = compile_job(c, model["id"], target="a100", input_shapes={"x": [8, 4]}, precision="fp16")
        for job in (small, big):
            assert wait_job(c, job["id"])["state"] == "succeeded", svc.tail()
    # the server from BRICKYARD_PORT (as the service reads it), the token from BRICKYARD_HOME
    r = brickyard("jobs", env={"BRICKYARD_PORT": str(svc.port), "BRICKYARD_HOME": str(svc.home)})
    assert r.returncode == 0, r.stderr
    header, *lines = r.stdout.splitlines()
    assert header.split()[:5] == ["ID", "MODEL", "TARGET", "SHAPES", "PRECISION"], header
    rows = {ln.split()[0]: ln for ln in lines}
    assert "dynrelu" in rows[small["id"]] and "x=2,4" in rows[small["id"]], rows
    assert "h100 (sm_90)" in rows[small["id"]] and "fp32" in rows[small["id"]], rows
    assert "x=8,4" in rows[big["id"]] and "a100 (sm_80)" in rows[big["id"]] and "fp16" in rows[big["id"]], rows
    assert all("succeeded" in rows[j["id"]] for j in (small, big)), rows
    # --model narrows to one model's compilations
    r = brickyard("jobs", "--model", model["id"], env={"BRICKYARD_PORT": str(svc.port),
                                                         "BRICKYARD_HOME": str(svc.home)})
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 3, r.stdout


def test_server_from_the_environment(svc):
    token = {"BRICKYARD_HOME": str(svc.home)}
    # BRICKYARD_SERVER wins over a wrong BRICKYARD_PORT
    r = brickyard("jobs", env={**token, "BRICKYARD_SERVER": svc.url, "BRICKYARD_PORT": "1"})
    assert r.returncode == 0, r.stderr
    # a port where nothing listens: one line naming the server it tried
    r = brickyard("jobs", env={**token, "BRICKYARD_PORT": "1"})
    assert r.returncode == 2 and "cannot reach http://127.0.0.1:1" in r.stderr, r.stderr
    r = brickyard("jobs", env={**token, "BRICKYARD_PORT": "eighty"})
    assert r.returncode == 2 and "BRICKYARD_PORT 'eighty' is not a port number" in r.stderr, r.stderr


def test_compile_prints_its_target_and_shares_the_service_store(svc, tmp_path):
    model = tmp_path / "relu35.onnx"
    model.write_bytes(relu_model((3, 5)))
    with svc.client() as c:
        mid = upload(c, model.read_bytes(), "relu35.onnx").json()["id"]
        assert wait_job(c, compile_job(c, mid, target="a100")["id"])["state"] == "succeeded", svc.tail()
    # a fresh cache of its own: nothing to reuse; the default target is named
    own = tmp_path / "own-cache"
    r = brickyard("compile", str(model), "-o", str(tmp_path / "a.tar"), "--cache", str(own), env={})
    assert r.returncode == 0, r.stderr
    assert f"target h100 (sm_90, 132 SMs); kernel cache {own}" in r.stderr, r.stderr
    assert "(cache 0 hits" in r.stdout and any(own.rglob("*")), r.stdout
    # the service's store: the kernels the worker built for a100 are hits
    store = svc.home / "store"
    r = brickyard("compile", str(model), "--target", "a100", "-o", str(tmp_path / "b.tar"), "--cache", str(store),
                  env={})
    assert r.returncode == 0, r.stderr
    assert f"target a100 (sm_80" in r.stderr and f"kernel cache {store}" in r.stderr, r.stderr
    assert "(cache 0 hits" not in r.stdout and " 0 misses" in r.stdout, r.stdout
    # BRICKYARD_HOME alone points the CLI at the same store (the service's default <home>/store)
    r = brickyard("compile", str(model), "--target", "a100", "-o", str(tmp_path / "c.tar"),
                  env={"BRICKYARD_HOME": str(svc.home)})
    assert r.returncode == 0 and f"kernel cache {store}" in r.stderr and " 0 misses" in r.stdout, (r.stdout, r.stderr)


def test_submit_a_model_archive_with_options(svc, tmp_path):
    """`brickyard submit MODEL.tar --disable rammer --kv-cache in-place -o FILE`: the archive's weights
    reach the worker, the options the compilation, and the artifact comes back."""
    from tests.frontend.test_model_archive import affine_folder, tar_of
    archive = tar_of(tmp_path / "affine.tar", affine_folder(tmp_path))
    out = tmp_path / "affine.brickyard"
    r = brickyard("submit", archive, "--disable", "rammer", "--kv-cache", "in-place", "-o", str(out), "-q",
                  env={"BRICKYARD_SERVER": svc.url, "BRICKYARD_HOME": str(svc.home)})
    assert r.returncode == 0 and out.exists(), r.stderr + svc.tail()
    with svc.client() as c:
        job = c.get(f"/v1/compilations/{r.stdout.strip()}").json()
    assert job["options"]["disable"] == ["rammer"] and job["options"]["kv_cache"] == "in-place", job
