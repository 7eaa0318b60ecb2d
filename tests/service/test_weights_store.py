"""The store keeps a model's weights once for all its artifacts (service/blobs.py composites, written by
worker/tasks.py's save path), and a download is still one complete artifact that runs on its own."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from compiler import compile
from compiler.artifact import _collect_constants, load_artifact
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend
from service.blobs import adopt_file, blob_path, composite_parts, read_parts, stored_file, store_stats
from tests.weights_models import mlp_model, mlp_reference, mlp_weights
from worker.tasks import _store_artifact

from .conftest import compile_job, upload, wait_job

WEIGHTS = mlp_weights(layers=4)
X = np.random.default_rng(3).standard_normal((8, 256)).astype(np.float32)


def big_objects(root: Path, at_least: int) -> list[Path]:
    """The store's blobs of at least `at_least` bytes."""
    return [p for p in (Path(root) / "objects").glob("*/*") if not p.name.startswith(".tmp-")
            and p.stat().st_size >= at_least]


def runs_right(path: Path) -> None:
    art = load_artifact(path)
    y = Executor(art.plan, make_backend("host")).run({"x": X})["y"]
    np.testing.assert_allclose(y, mlp_reference(WEIGHTS, X), rtol=1e-4, atol=1e-4)


def test_two_artifacts_of_one_model_share_one_weights_blob(tmp_path):
    model = mlp_model(WEIGHTS)
    arts = [compile(model, "h100", CompileOptions()), compile(model, "h100", CompileOptions(disable=("rammer",)))]
    weights = sum(len(c.data) for c in _collect_constants(arts[0].plan).values())
    s = SimpleNamespace(store_root=tmp_path / "store", tmp_dir=tmp_path / "tmp")
    values, growth = [], []
    for art in arts:
        before = store_stats(s.store_root)["bytes"] if s.store_root.exists() else 0
        values.append(_store_artifact(art, s))
        growth.append(store_stats(s.store_root)["bytes"] - before)
    a, b = (composite_parts(s.store_root, v["artifact_sha256"]) for v in values)
    assert values[0]["artifact_sha256"] != values[1]["artifact_sha256"]
    assert a[0][1] == b[0][1] and a[0][0] != b[0][0]  # one weights blob, a head each
    assert len(big_objects(s.store_root, weights)) == 1
    assert growth[0] > weights and growth[1] < weights / 10, growth
    assert not list(s.tmp_dir.iterdir())  # no temp file left behind
    for art, v in zip(arts, values):
        paths, size = stored_file(s.store_root, v["artifact_sha256"])
        assembled = b"".join(read_parts(paths))
        assert size == v["artifact_size"] == len(assembled)
        assert hashlib.sha256(assembled).hexdigest() == v["artifact_sha256"]
        art.save(tmp_path / "direct.tar")  # the CLI's file and the service's are the same bytes
        assert (tmp_path / "direct.tar").read_bytes() == assembled
        (tmp_path / "assembled.tar").write_bytes(assembled)
        runs_right(tmp_path / "assembled.tar")
    # a damaged weights blob is never served (and is dropped, like any damaged blob)
    weights_blob = blob_path(s.store_root, a[0][1])
    os.chmod(weights_blob, 0o644)
    with open(weights_blob, "r+b") as f:
        f.seek(12345)
        f.write(b"\xff")
    assert stored_file(s.store_root, values[0]["artifact_sha256"]) is None and not weights_blob.exists()


def test_an_artifact_stored_whole_is_served_whole(tmp_path):
    """Artifacts stored before composites are plain blobs: stored_file gives that one file."""
    data = os.urandom(100_000)
    tmp = tmp_path / "t"
    tmp.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    adopt_file(tmp_path / "store", tmp, digest)
    paths, size = stored_file(tmp_path / "store", digest)
    assert size == len(data) and b"".join(read_parts(paths)) == data
    assert stored_file(tmp_path / "store", "0" * 64) is None


@pytest.mark.service
def test_downloads_are_whole_artifacts_and_the_store_keeps_the_weights_once(service, tmp_path):
    """Two compilations of one model (different options) through the running service: each download is
    the artifact its job names, runs on the host harness alone, and the store holds the weights once."""
    weights = sum(w.nbytes for layer in WEIGHTS for w in layer)
    with service.client() as c:
        r = upload(c, mlp_model(WEIGHTS), "mlp.onnx")
        assert r.status_code == 201, r.text
        jobs = [compile_job(c, r.json()["id"], "h100"), compile_job(c, r.json()["id"], "h100", disable=["rammer"])]
        jobs = [wait_job(c, j["id"]) for j in jobs]
        assert [j["state"] for j in jobs] == ["succeeded", "succeeded"], jobs
        assert jobs[0]["artifact_sha256"] != jobs[1]["artifact_sha256"]
        for j in jobs:
            r = c.get(f"/v1/compilations/{j['id']}/artifact")
            assert r.status_code == 200 and r.headers["content-type"] == "application/x-tar"
            assert r.headers["etag"] == f'"{j["artifact_sha256"]}"' and int(r.headers["content-length"]) == j["artifact_size"]
            assert r.headers["content-disposition"].endswith('.tar"')
            assert hashlib.sha256(r.content).hexdigest() == j["artifact_sha256"]
            path = tmp_path / f"{j['id']}.tar"
            path.write_bytes(r.content)
            runs_right(path)
            again = c.get(f"/v1/compilations/{j['id']}/artifact", headers={"If-None-Match": r.headers["etag"]})
            assert again.status_code == 304
    store = service.home / "store"
    # besides the uploaded model itself, one blob as large as the weights
    assert [p for p in big_objects(store, weights) if p != blob_path(store, jobs[0]["model_sha256"])] == \
        [blob_path(store, composite_parts(store, jobs[0]["artifact_sha256"])[0][1])]
    parts = [composite_parts(store, j["artifact_sha256"])[0] for j in jobs]
    assert parts[0][1] == parts[1][1]
