"""Putting jobs on the queue, and asking the embedded queue which jobs have a message waiting."""
from __future__ import annotations

import datetime as dt
import logging

from api import crud
from api.db import session_scope
from api.models import utcnow
from api.settings import get_settings

log = logging.getLogger("brickyard.queue")


def enqueue(job_id: str, queue: str, *, countdown: float = 0.0, replacing: str | None = None) -> str | None:
    """Records a new task id on the queued job, then publishes it; None if the job is no longer queued.

    The database is written first: if publishing fails the job stays queued with a task id no message
    carries, and the reconciler publishes it again."""
    from .tasks import compile_job
    with session_scope() as session:
        job = crud.get_job(session=session, job_id=job_id)
        if job is None:
            return None
        task_id = f"{job_id}.{job.enqueues + 1}"
        eligible = utcnow() + dt.timedelta(seconds=countdown)
        if not crud.set_enqueued(session=session, job_id=job_id, task_id=task_id, eligible_at=eligible,
                                 replacing=replacing):
            return None
    compile_job.apply_async(args=[job_id], queue=queue, routing_key=queue, task_id=task_id,
                            countdown=countdown or None)
    log.info("enqueued job %s as %s on %s", job_id, task_id, queue)
    return task_id


def waiting_task_ids() -> set[str] | None:
    """Task ids with a message waiting in the broker; None when the broker cannot be inspected."""
    s = get_settings()
    if not s.embedded_broker:
        return None
    from .fs_transport import pending_task_ids
    return pending_task_ids(str(s.queue_dir / "messages"))


def broker_reachable() -> bool:
    """True if the broker accepts a connection (the embedded queue: its folder is writable)."""
    s = get_settings()
    if s.embedded_broker:
        import os
        folder = s.queue_dir / "messages"
        return folder.is_dir() and os.access(folder, os.W_OK)
    from .app import app
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True
    except Exception:  # noqa: BLE001 - any failure to connect means "not ready"
        return False
