"""`python -m worker.health`: a container health check for a worker. Exit 0 when a worker process on this
host reported its presence (worker/presence.py) within BRICKYARD_WORKER_SEEN_WITHIN seconds, else 1 with
the reason. The image's own HEALTHCHECK asks the API, which a worker container lacks."""
from __future__ import annotations

import datetime as dt
import socket
import sys


def main() -> int:
    from sqlalchemy import select

    from service.db import session_scope
    from service.models import WorkerPresence, utcnow
    from service.settings import get_settings
    window = get_settings().worker_seen_within
    host = socket.gethostname()
    try:
        with session_scope() as session:
            last = session.scalar(select(WorkerPresence.last_seen).where(WorkerPresence.name.startswith(f"{host}:"))
                                  .order_by(WorkerPresence.last_seen.desc()).limit(1))
    except Exception as e:  # noqa: BLE001 - the database is unreachable: not healthy
        print(f"unhealthy: database: {type(e).__name__}: {e}"[:300])
        return 1
    if last is None or utcnow() - last > dt.timedelta(seconds=window):
        print(f"unhealthy: no worker process on {host} reported in the last {window:g} s (last: {last})")
        return 1
    print(f"healthy: a worker on {host} reported at {last.isoformat()}Z")
    return 0


if __name__ == "__main__":
    sys.exit(main())
