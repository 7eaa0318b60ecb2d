"""The layering of api/, worker/ and service/ at run time, where import-linter cannot look: `make test` runs
`lint-imports` on the import statements, but the broker transport, Celery's `include` and the Alembic
environment are loaded by dotted names or file paths. Each check runs in a fresh interpreter, so that
sys.modules shows only what that side loaded."""
from __future__ import annotations

import json
import subprocess
import sys

from .conftest import REPO

# what every queued message names: renaming a task strands the messages already in the broker
TASK_NAMES = {"compile": "brickyard.compile", "fetch": "brickyard.fetch_model"}


def _run(tmp_path, code: str) -> dict:
    env = {"PATH": "/usr/bin:/bin", "BRICKYARD_HOME": str(tmp_path / "home")}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_service_runs_without_api_or_worker(tmp_path):
    """The shared layer migrates the database (Alembic's env.py), loads the embedded broker's transport,
    publishes a fetch by task name and reads the queue back, with neither api nor worker imported."""
    got = _run(tmp_path, """
import json, pathlib, sys
from service import blobs, crud, jobs, model_info, models, projects, security
from service.celery_app import FETCH_TASK, app
from service.db import init_db
from service.queueing import broker_messages, broker_reachable, enqueue_fetch
from service.settings import get_settings
s = get_settings()
s.ensure_dirs()
init_db()
enqueue_fetch("build-1")
files = sorted((s.queue_dir / "messages").glob("*.msg"))
sent = [json.loads(f.read_text())["headers"]["task"] for f in files]
waiting, _ = broker_messages()
print(json.dumps({"sent": sent, "waiting": len(waiting), "reachable": broker_reachable(),
                  "transport": type(app.connection_for_write().transport).__module__, "fetch": FETCH_TASK,
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("api", "worker"))}))
""")
    assert got["loaded"] == []
    assert got["transport"] == "service.fs_transport"
    assert got["fetch"] == TASK_NAMES["fetch"] and got["sent"] == [TASK_NAMES["fetch"]]
    assert got["waiting"] == 1 and got["reachable"]


def test_the_worker_registers_the_names_the_service_sends(tmp_path):
    """`python -m worker` loads its task modules through Celery's `include`; they register the task names
    service/queueing.py publishes, and loading them imports nothing of api."""
    got = _run(tmp_path, """
import json, sys
from service.celery_app import COMPILE_TASK, FETCH_TASK, app
from worker.__main__ import TASK_MODULES
app.conf.include = TASK_MODULES
app.loader.import_default_modules()
print(json.dumps({"names": {"compile": COMPILE_TASK, "fetch": FETCH_TASK},
                  "registered": sorted(t for t in app.tasks if t.startswith("brickyard.")),
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] == "api")}))
""")
    assert got["names"] == TASK_NAMES
    assert got["registered"] == sorted(TASK_NAMES.values())
    assert got["loaded"] == []
