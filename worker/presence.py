"""Worker presence: each pool process (each prefork child; the worker itself in a solo pool, as GPU
workers run) writes its name and queues to `worker_presence` every BRICKYARD_PRESENCE_INTERVAL seconds.
The dashboard counts the recent ones as live workers; `python -m worker.health` checks this host's."""
from __future__ import annotations

import logging
import os
import socket
import threading
import time

from celery.signals import worker_process_init

from service.celery_app import app

log = logging.getLogger("brickyard.worker")


def _presence_loop(name: str, queues: list[str]) -> None:
    from service.db import session_scope
    from service.models import WorkerPresence, utcnow
    from service.settings import get_settings
    while True:
        try:
            with session_scope() as session:
                row = session.get(WorkerPresence, name)
                if row is None:
                    session.add(WorkerPresence(name=name, queues=queues, last_seen=utcnow()))
                else:
                    row.last_seen = utcnow()
        except Exception as e:  # noqa: BLE001 - a busy database: the next beat tries again
            log.debug("presence: %s", e)
        time.sleep(get_settings().presence_interval)


@worker_process_init.connect
def _start_presence(**_kw) -> None:
    """Each pool process reports itself every few seconds (the dashboard's live workers). Celery sends
    this signal in every prefork child and, for the solo pool (GPU workers), in the worker itself."""
    queues = sorted(q.name for q in (app.amqp.queues or {}).values()) if app.amqp.queues else []
    name = f"{socket.gethostname()}:{os.getpid()}"
    threading.Thread(target=_presence_loop, args=(name, queues), daemon=True, name="presence").start()
