"""/healthz (the process answers), /readyz (database, queue, store reachable), /metrics (Prometheus)."""
from __future__ import annotations

import os

from fastapi import APIRouter, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from service.db import ping
from service.settings import get_settings

from ..metrics import render

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz():
    """Liveness: the process serves requests."""
    return {"status": "ok"}


def _checks() -> dict[str, str]:
    from service.queueing import broker_reachable
    s = get_settings()
    checks = {}
    try:
        ping()
        checks["database"] = "ok"
    except Exception as e:  # noqa: BLE001 - report any failure as not ready
        checks["database"] = f"unreachable: {type(e).__name__}"
    checks["queue"] = "ok" if broker_reachable() else "unreachable"
    store = s.store_root
    checks["store"] = "ok" if store.is_dir() and os.access(store, os.W_OK) else f"{store} is not writable"
    return checks


@router.get("/readyz")
async def readyz():
    """Readiness: 200 when the database, the queue and the store are reachable, 503 otherwise."""
    checks = await run_in_threadpool(_checks)
    bad = {k: v for k, v in checks.items() if v != "ok"}
    if bad:
        return JSONResponse({"detail": "not ready: " + ", ".join(f"{k} {v}" for k, v in bad.items()),
                             "checks": checks}, status_code=503)
    return {"status": "ready", "checks": checks}


@router.get("/metrics")
async def metrics():
    """Prometheus text format."""
    body = await run_in_threadpool(render)
    return Response(body, media_type="text/plain; version=0.0.4; charset=utf-8")
