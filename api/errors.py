"""How errors reach a client: always a JSON body {"detail": message} (plus "category" for compiler errors)."""
from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from compiler.errors import CompilerError

log = logging.getLogger("brickyard.api")


class ApiError(Exception):
    """An error a route answers with: status, message, and the compiler's category where there is one."""

    def __init__(self, status: int, detail: str, *, category: str | None = None, headers: dict | None = None):
        super().__init__(detail)
        self.status, self.detail, self.category, self.headers = status, detail, category, headers


def _loc(loc) -> str:
    if len(loc) == 2 and loc[0] == "body" and isinstance(loc[1], int):
        return "body"  # the body as a whole (e.g. not JSON)
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def install_error_handlers(app: FastAPI) -> None:
    """Registers the handlers: ApiError, CompilerError (422), validation (422, readable), HTTP errors, 500."""

    @app.exception_handler(ApiError)
    async def _api_error(_req: Request, exc: ApiError):
        body = {"detail": exc.detail}
        if exc.category:
            body["category"] = exc.category
        return JSONResponse(body, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(CompilerError)
    async def _compiler_error(_req: Request, exc: CompilerError):
        return JSONResponse({"detail": exc.one_line(), "category": exc.category}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _validation(_req: Request, exc: RequestValidationError):
        errors = [{"field": _loc(e.get("loc", ())), "message": e.get("msg", "invalid")} for e in exc.errors()]
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors) or "invalid request"
        return JSONResponse({"detail": detail, "errors": errors}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_req: Request, exc: StarletteHTTPException):
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(req: Request, exc: Exception):
        log.exception("unhandled error on %s %s", req.method, req.url.path)
        return JSONResponse({"detail": f"internal error ({type(exc).__name__}); see the service log"},
                            status_code=500)
