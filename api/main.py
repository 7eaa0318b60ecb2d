"""The FastAPI app factory: routers under /v1, health and metrics, error handlers, the reconciler."""
from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import FastAPI, Request

from compiler import __version__

from .bootstrap import bootstrap
from .errors import install_error_handlers
from .metrics import REQUESTS
from .reconciler import reconcile_forever
from .routes import api_router
from .routes.health import router as health_router
from .settings import get_settings

log = logging.getLogger("brickyard.api")


def route_label(request: Request) -> str:
    """The route template (/v1/models/{model_id}), never the raw path, so labels stay few."""
    route = request.scope.get("route")
    path = getattr(route, "path", None)
    if path is None:
        return "unmatched"
    if request.url.path.startswith("/v1/") and not path.startswith("/v1"):
        path = "/v1" + path  # routers included under /v1 keep their own path
    return path


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI):
    settings = get_settings()
    await asyncio.to_thread(bootstrap, settings)
    stop = asyncio.Event()
    task = asyncio.create_task(reconcile_forever(stop)) if app.state.reconcile else None
    try:
        yield
    finally:
        stop.set()
        if task is not None:
            await task


def create_app(*, reconcile: bool = True) -> FastAPI:
    """The Brickyard API; `reconcile` runs the job reconciler in this process (one per deployment suffices)."""
    app = FastAPI(title="Brickyard", version=__version__, lifespan=lifespan,
                  description="Compile ONNX models to CUDA kernels: upload a model, compile it for a GPU target, "
                              "download the artifact and its report. Authenticate with `Authorization: Bearer "
                              "<token>`.")
    app.state.reconcile = reconcile
    install_error_handlers(app)

    @app.middleware("http")
    async def count_requests(request: Request, call_next):
        response = await call_next(request)
        REQUESTS.labels(request.method, route_label(request), str(response.status_code)).inc()
        return response

    app.include_router(health_router)
    app.include_router(api_router)
    return app
