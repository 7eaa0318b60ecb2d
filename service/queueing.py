"""Putting jobs and fetches on the queue, and asking the broker (the embedded queue or Redis) which task ids
it holds. Messages are sent by task name (service/celery_app.py); the worker's tasks register those names."""
from __future__ import annotations

import datetime as dt
import logging

from . import crud
from .db import session_scope
from .models import utcnow
from .settings import get_settings

log = logging.getLogger("brickyard.queue")


def enqueue(job_id: str, queue: str, *, countdown: float = 0.0, replacing: str | None = None) -> str | None:
    """Records a new task id on the queued job, then publishes it; None if the job is no longer queued.

    The database is written first: if publishing fails the job stays queued with a task id no message
    carries, and the reconciler publishes it again."""
    from .celery_app import COMPILE_TASK, app
    with session_scope() as session:
        job = crud.get_job(session=session, job_id=job_id)
        if job is None:
            return None
        task_id = f"{job_id}.{job.enqueues + 1}"
        eligible = utcnow() + dt.timedelta(seconds=countdown)
        if not crud.set_enqueued(session=session, job_id=job_id, task_id=task_id, eligible_at=eligible,
                                 replacing=replacing):
            return None
    app.send_task(COMPILE_TASK, args=[job_id], queue=queue, routing_key=queue, task_id=task_id,
                  countdown=countdown or None, **_as_the_task_would(app, app.conf.task_soft_time_limit))
    log.info("enqueued job %s as %s on %s", job_id, task_id, queue)
    return task_id


def enqueue_fetch(build_id: str) -> None:
    """Publishes the fetch of a CI build's model (worker/fetch.py) on the `cpu` queue."""
    from .celery_app import CPU_QUEUE, FETCH_TASK, app, fetch_soft_time_limit
    app.send_task(FETCH_TASK, args=[build_id], queue=CPU_QUEUE, **_as_the_task_would(app, fetch_soft_time_limit()))


def _as_the_task_would(app, soft_time_limit: float) -> dict:
    """The options Task.apply_async adds from the task itself (this process need not have registered it): the
    time limits (the app's hard limit, the task's soft one) and the app's ignore_result, so a message sent by
    name is the same as one the task sends."""
    return {"time_limit": app.conf.task_time_limit, "soft_time_limit": soft_time_limit,
            "ignore_result": app.conf.task_ignore_result}


REDIS_PRIORITY_SEP = "\x06\x16"   # kombu's Redis transport: queue "cpu" at priority 3 is the list "cpu\x06\x163"
REDIS_PRIORITY_STEPS = (0, 3, 6, 9)


def broker_inspectable() -> bool:
    """Whether broker_messages() can read this broker (without reading it)."""
    s = get_settings()
    return s.embedded_broker or s.broker.startswith(("redis://", "rediss://", "unix://"))


def broker_messages() -> tuple[set[str], set[str]] | None:
    """The task ids the broker holds: (waiting in a queue, delivered to a worker but not acked yet), or None
    when the broker cannot be inspected.

    Embedded queue: the message files (a taken message is gone from the folder, so nothing is "delivered").
    Redis: kombu keeps each queue as a list (one per priority step) and delivered, unacked messages in the
    hash `unacked` until the ack (or until `visibility_timeout` brings them back)."""
    s = get_settings()
    if not broker_inspectable():
        return None
    if s.embedded_broker:
        from .fs_transport import pending_task_ids
        return pending_task_ids(str(s.queue_dir / "messages")), set()
    return _redis_messages(s.broker)


def _task_id(raw) -> str | None:
    import json
    try:
        msg = json.loads(raw)
        if isinstance(msg, list):  # unacked: [message, exchange, routing_key]
            msg = msg[0]
        return (msg.get("headers") or {}).get("id") or (msg.get("properties") or {}).get("correlation_id")
    except (ValueError, TypeError, AttributeError, IndexError):
        return None


def _redis_messages(url: str) -> tuple[set[str], set[str]]:
    import redis

    from .celery_app import ALL_QUEUES
    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    try:
        pipe = client.pipeline(transaction=False)
        for q in ALL_QUEUES:
            for pri in REDIS_PRIORITY_STEPS:
                pipe.lrange(q if pri == 0 else f"{q}{REDIS_PRIORITY_SEP}{pri}", 0, -1)
        pipe.hvals("unacked")
        *lists, held = pipe.execute()
    finally:
        client.close()
    waiting = {t for raw in lists for m in raw if (t := _task_id(m))}
    return waiting, {t for m in held if (t := _task_id(m))}


def broker_reachable() -> bool:
    """True if the broker accepts a connection (the embedded queue: its folder is writable)."""
    s = get_settings()
    if s.embedded_broker:
        import os
        folder = s.queue_dir / "messages"
        return folder.is_dir() and os.access(folder, os.W_OK)
    from .celery_app import app
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True
    except Exception:  # noqa: BLE001 - any failure to connect means "not ready"
        return False
