"""A compiler change is never answered from a job the old compiler ran: the service's dedup key holds the
compiler key (compiler/version.py), so after one byte of the device prelude changes, the same model,
target and options compile again; with no change they are answered from the store."""
from __future__ import annotations

import shutil

import pytest

from .conftest import REPO, Service, compile_job, relu_model, upload, wait_job

pytestmark = pytest.mark.service


def test_same_model_after_a_compiler_change_is_compiled_again(tmp_path):
    tree = tmp_path / "tree"   # the service runs from a copy of the sources, which the test then edits
    for part in ("api", "worker", "compiler", "kernel_cache"):
        shutil.copytree(REPO / part, tree / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "alembic.ini", tree / "alembic.ini")
    home = tmp_path / "home"

    def compile_once() -> dict:
        svc = Service(home, cwd=tree).start()
        try:
            with svc.client() as c:
                m = upload(c, relu_model((4, 8)), "relu.onnx").json()
                job = wait_job(c, compile_job(c, m["id"], "t4")["id"])
                assert job["state"] == "succeeded", job
                job["compiler_key"] = c.get(f"/v1/compilations/{job['id']}/report").json()["compiler_key"]
                return job
        finally:
            svc.stop()

    first = compile_once()
    again = compile_once()
    assert again["deduplicated_from"] == first["id"]          # nothing changed: answered from the store
    prelude = tree / "compiler" / "codegen" / "prelude_device.cuh"
    prelude.write_text(prelude.read_text() + "\n// one byte more\n")
    after = compile_once()
    assert after["deduplicated_from"] is None, after           # compiled again by the changed compiler
    assert after["compiler_key"] != first["compiler_key"]
