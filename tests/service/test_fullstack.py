"""The full stack's settings: the same service against a real PostgreSQL and a real Redis (started by the
`servers` fixture on loopback), with two workers. The end-to-end tests of test_api.py run here again;
then the schema migrations and the reconciler's rule for Redis."""
from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import create_engine, text

from .conftest import Service, compile_job, relu_model, stack_env, upload
# the same end-to-end tests as against the embedded service, collected again with this module's `service`
from .test_api import bert_job, test_bert_compiles_and_its_artifact_matches_pytorch, \
    test_compiling_again_is_answered_from_the_store, test_upload_describes_the_model  # noqa: F401

pytestmark = pytest.mark.service


@pytest.fixture(scope="module")
def service(servers, tmp_path_factory):
    """api.serve (uvicorn + its worker) and one more worker on the `cpu` queue: PostgreSQL + Redis."""
    svc = Service(tmp_path_factory.mktemp("stack"), env=stack_env(servers), extra_workers=1).start()
    yield svc
    svc.stop()


def test_the_stack_uses_postgres_and_redis(service, bert_job):
    import httpx
    env = service.extra_env
    assert env["BRICKYARD_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert env["BRICKYARD_BROKER"].startswith("redis://127.0.0.1:")
    assert not (service.home / "brickyard.db").exists()  # no SQLite on the side
    assert httpx.get(service.url + "/readyz").json()["checks"] == {"database": "ok", "queue": "ok", "store": "ok"}
    engine = create_engine(env["BRICKYARD_DATABASE_URL"])
    try:
        with engine.connect() as conn:
            assert conn.scalar(text("SELECT version_num FROM alembic_version")) == _head_revision()
            assert conn.scalar(text("SELECT count(*) FROM compilations WHERE state = 'succeeded'")) >= 1
            assert conn.scalar(text("SELECT count(*) FROM kernels")) > 0
    finally:
        engine.dispose()


def _head_revision() -> str:
    """The newest migration, read from service/migrations (so a new migration needs no test edit)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from .conftest import REPO
    return ScriptDirectory.from_config(Config(str(REPO / "alembic.ini"))).get_current_head()


def _schema_diff(url: str) -> list:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from service.models import Base
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    finally:
        engine.dispose()


def test_migrations_match_the_models(service, servers, tmp_path):
    """`alembic upgrade head` on an empty database gives exactly service/models.py's tables, on both databases;
    the service ran the same migrations at its start."""
    import subprocess
    import sys

    from .conftest import REPO
    sqlite_url = f"sqlite:///{tmp_path / 'fresh.db'}"
    for url in (servers["postgres"].create_database(), sqlite_url):
        env = dict(service.env(), BRICKYARD_DATABASE_URL=url, BRICKYARD_HOME=str(tmp_path))
        out = subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=REPO, env=env,
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert "Running upgrade  -> 0001" in out.stderr
        assert _schema_diff(url) == [], url
    assert _schema_diff(service.extra_env["BRICKYARD_DATABASE_URL"]) == []


def test_redis_queue_loss_is_repaired_by_the_reconciler(servers, tmp_path):
    """Redis restarted without its data (or a publish that never arrived): the queued job has no message.
    The reconciler reads Redis's queue lists and publishes it again within QUEUED_GRACE (no worker here, so
    the job stays queued and its message is visible)."""
    import redis
    svc = Service(tmp_path / "home", env=stack_env(servers), worker=False).start()
    try:
        broker = svc.extra_env["BRICKYARD_BROKER"]
        r = redis.Redis.from_url(broker)
        with svc.client() as c:
            m = upload(c, relu_model((2, 2)), "relu.onnx").json()
            job = compile_job(c, m["id"], "h100")
            assert job["state"] == "queued"

            def task_ids():
                return [json.loads(x)["headers"]["id"] for x in r.lrange("cpu", 0, -1)]
            deadline = time.monotonic() + 10
            while not task_ids() and time.monotonic() < deadline:
                time.sleep(0.1)
            first = task_ids()
            assert first == [f"{job['id']}.1"]
            time.sleep(3)  # past QUEUED_GRACE (2 s): a live message is left alone
            assert task_ids() == first
            r.delete("cpu")  # the message is lost
            deadline = time.monotonic() + 15
            while not task_ids() and time.monotonic() < deadline:
                time.sleep(0.2)
            assert task_ids() == [f"{job['id']}.2"], svc.tail()
            assert c.get(f"/v1/compilations/{job['id']}").json()["state"] == "queued"
        r.close()
    finally:
        svc.stop()
    assert "orphaned queued jobs" in svc.tail(10**9)
