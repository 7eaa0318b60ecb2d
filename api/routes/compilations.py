"""/v1/compilations: create (deduplicated against finished twins), get, list, cancel, events, downloads."""
from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Literal

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, StreamingResponse

from compiler.errors import CompilerError
from compiler.frontend.dims import UnsetDimensions, normalised, resolve_shapes
from compiler.pipeline import CompileOptions
from compiler.targets import get_target
from service import crud
from service.blobs import read_parts, stored_file, verified_path
from service.db import session_scope
from service.jobs import new_job
from service.models import TERMINAL_STATES, Model

from ..deps import CurrentOwner, SessionDep, SettingsDep
from ..errors import ApiError
from ..schemas import MAX_OFFSET, CompilationCreate, CompilationList, CompilationOut, ErrorOut, State

router = APIRouter(prefix="/compilations", tags=["compilations"])
ERRORS = {401: {"model": ErrorOut}, 404: {"model": ErrorOut}}
log = logging.getLogger("brickyard.api")


def check_target_spec(spec: dict) -> None:
    """Types and ranges of a user's target spec (get_target checks names and consistency)."""
    import dataclasses

    from compiler.targets import Target
    kinds = {f.name: str(f.type) for f in dataclasses.fields(Target)}
    for key, value in spec.items():
        kind = kinds.get(key)
        if kind is None:
            continue  # get_target names unknown fields
        ok = True
        if kind == "str":
            ok = isinstance(value, str) and bool(value.strip())
        elif kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
        elif kind == "float":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
        elif key == "max_grid":
            ok = isinstance(value, list) and len(value) == 3 and all(
                isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in value)
        elif key == "mma_shapes":
            ok = isinstance(value, list) and all(
                isinstance(m, list) and len(m) == 3 and all(isinstance(x, int) and not isinstance(x, bool) and x > 0
                                                             for x in m) for m in value)
        if not ok:
            want = {"max_grid": "a list of three positive integers",
                    "mma_shapes": "a list of [m, n, k] positive integer triples"}.get(key) or {
                "str": "a non-empty string", "int": "a positive integer", "float": "a non-negative number"}[kind]
            raise ApiError(422, f"target.{key} must be {want}, not {value!r}", category="target")


def check_input_shapes(model: Model, shapes: dict[str, list[int]]) -> None:
    """The options' input shapes against the model's declared inputs: the compiler's own rules
    (compiler/frontend/dims.py), so the API and the importer never disagree."""
    declared = {i["name"]: normalised(i["shape"]) for i in model.inputs}
    try:
        resolve_shapes(declared, shapes, option="options.input_shapes")
    except UnsetDimensions as e:
        example = json.dumps({"input_shapes": e.example})
        raise ApiError(422, f"{e.message}; give options.input_shapes, e.g. {example} (replace each <...> "
                            "by the size you will run)", category=e.category) from None
    except CompilerError as e:
        raise ApiError(422, e.one_line(), category=e.category) from None


@router.post("", status_code=201, response_model=CompilationOut, responses={**ERRORS, 422: {"model": ErrorOut}})
def create_compilation(body: CompilationCreate, owner: CurrentOwner, session: SessionDep):
    """Queues a compilation; if the same model bytes, target, options and toolchain already succeeded,
    the job is created already succeeded with that artifact (no compile runs)."""
    from service.queueing import enqueue
    model = crud.get_model(session=session, owner_id=owner.id, model_id=body.model_id)
    if model is None:
        raise ApiError(404, f"model {body.model_id} not found")
    if isinstance(body.target, dict):
        check_target_spec(body.target)
    try:
        target = get_target(body.target)
    except CompilerError as e:
        raise ApiError(422, e.one_line(), category=e.category) from None
    except (TypeError, ValueError) as e:
        raise ApiError(422, f"bad target spec: {e}", category="target") from None
    check_input_shapes(model, body.options.input_shapes)
    try:
        opts = CompileOptions(input_shapes=tuple(sorted((n, tuple(d)) for n, d in body.options.input_shapes.items())),
                              precision=body.options.precision, disable=tuple(body.options.disable),
                              max_trip_count=body.options.max_trip_count, verify=body.options.verify,
                              kv_cache=body.options.kv_cache)
    except CompilerError as e:
        raise ApiError(422, e.one_line(), category=e.category) from None
    job, needs_message = new_job(session=session, owner_id=owner.id, model=model, target=target, opts=opts)
    session.commit()
    if needs_message:
        try:
            enqueue(job.id, job.queue)
        except Exception as e:  # noqa: BLE001 - the broker is down: the job stays queued, the reconciler retries
            log.warning("could not enqueue %s now (%s); the reconciler will", job.id, e)
    session.refresh(job)
    return CompilationOut.of(job)


@router.get("", response_model=CompilationList, responses=ERRORS)
def list_compilations(owner: CurrentOwner, session: SessionDep, state: State | None = None,
                      model_id: str | None = None, limit: int = Query(50, ge=1, le=500),
                      offset: int = Query(0, ge=0, le=MAX_OFFSET)):
    """The caller's compilations, newest first, optionally by state and model."""
    rows, total = crud.list_compilations(session=session, owner_id=owner.id, state=state, model_id=model_id,
                                         limit=limit, offset=offset)
    return CompilationList(items=[CompilationOut.of(j) for j in rows], total=total, limit=limit, offset=offset)


def _job(session, owner, compilation_id: str):
    job = crud.get_compilation(session=session, owner_id=owner.id, compilation_id=compilation_id)
    if job is None:
        raise ApiError(404, f"compilation {compilation_id} not found")
    return job


@router.get("/{compilation_id}", response_model=CompilationOut, responses=ERRORS)
def get_compilation(compilation_id: str, owner: CurrentOwner, session: SessionDep):
    """A compilation's state, stage, progress, per-stage seconds, error and attempts."""
    return CompilationOut.of(_job(session, owner, compilation_id))


@router.post("/{compilation_id}/cancel", response_model=CompilationOut, responses={**ERRORS, 409: {"model": ErrorOut}})
def cancel_compilation(compilation_id: str, owner: CurrentOwner, session: SessionDep):
    """Cancels a queued or running compilation (a running compile stops at its next stage)."""
    job = _job(session, owner, compilation_id)
    if not crud.cancel_compilation(session=session, job=job):
        session.refresh(job)
        raise ApiError(409, f"compilation {compilation_id} has already {job.state}")
    session.commit()
    return CompilationOut.of(job)


def _event_json(ev) -> dict:
    return {"id": ev.id, "state": ev.state, "stage": ev.stage, "progress": ev.progress, "attempt": ev.attempt,
            "at": ev.at.isoformat() + "Z", "message": ev.message}


def _poll_events(job_id: str, after: int):
    with session_scope() as session:
        events = [_event_json(e) for e in crud.events_after(session=session, job_id=job_id, after_id=after)]
        job = crud.get_job(session=session, job_id=job_id)
        return events, (job.state if job else "cancelled")


@router.get("/{compilation_id}/events", responses={**ERRORS, 200: {"content": {"text/event-stream": {}}}})
async def compilation_events(compilation_id: str, request: Request, owner: CurrentOwner, settings: SettingsDep,
                             last_event_id: int | None = Header(None, ge=0, le=MAX_OFFSET)):
    """Server-sent events: one per state or stage change (event name = state), ending after a terminal one.
    Reconnect with Last-Event-ID to resume."""
    def check():
        with session_scope() as session:
            return _job(session, owner, compilation_id).id
    job_id = await run_in_threadpool(check)

    async def stream():
        last, quiet_since = last_event_id or 0, time.monotonic()
        while True:
            events, state = await run_in_threadpool(_poll_events, job_id, last)
            for ev in events:
                last = ev["id"]
                yield f"id: {ev['id']}\nevent: {ev['state']}\ndata: {json.dumps(ev)}\n\n"
                if ev["state"] in TERMINAL_STATES:
                    return
            if not events and state in TERMINAL_STATES:
                return  # the terminal event was sent on an earlier connection
            if events:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since > 15:
                quiet_since = time.monotonic()
                yield ": keep-alive\n\n"
            if await request.is_disconnected():
                return
            await asyncio.sleep(settings.poll_interval)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _not_modified(etag: str, if_none_match: str | None) -> Response | None:
    if if_none_match and (if_none_match.strip() == "*" or etag in [t.strip() for t in if_none_match.split(",")]):
        return Response(status_code=304, headers={"ETag": etag})
    return None


def _blob_response(settings, digest: str | None, what: str, media_type: str, filename: str | None,
                   if_none_match: str | None):
    etag = f'"{digest}"'
    if (unchanged := _not_modified(etag, if_none_match)) is not None:
        return unchanged
    path = verified_path(settings.store_root, digest)
    if path is None:
        raise ApiError(410, f"the {what} is no longer in the store (removed or damaged): compile again")
    headers = {"ETag": etag, "Cache-Control": "private, max-age=31536000, immutable"}
    return FileResponse(path, media_type=media_type, filename=filename, headers=headers)


def _finished(session, owner, compilation_id: str):
    job = _job(session, owner, compilation_id)
    if job.state != "succeeded":
        raise ApiError(409, f"compilation {compilation_id} is {job.state}: its artifact exists once it succeeded")
    return job


@router.get("/{compilation_id}/artifact", responses={**ERRORS, 304: {"description": "If-None-Match matched"},
                                                     409: {"model": ErrorOut}, 410: {"model": ErrorOut},
                                                     200: {"content": {"application/x-tar": {}}}})
def download_artifact(compilation_id: str, owner: CurrentOwner, session: SessionDep, settings: SettingsDep,
                      if_none_match: str | None = Header(None)):
    """The artifact (an uncompressed tar; docs/artifact.md), complete: `brickyard run` needs nothing else.
    Its ETag is its sha256. The store keeps a model's weights once for all its artifacts, so the file is
    streamed from its parts (head, weights, tail), each checked against its digest first."""
    job = _finished(session, owner, compilation_id)
    digest = job.artifact_sha256
    etag = f'"{digest}"'
    if (unchanged := _not_modified(etag, if_none_match)) is not None:
        return unchanged
    found = stored_file(settings.store_root, digest)
    if found is None:
        raise ApiError(410, "the artifact is no longer in the store (removed or damaged): compile again")
    paths, size = found
    with open(paths[0], "rb") as f:
        legacy = f.read(2) == b"\x1f\x8b"  # stored whole, gzipped, before artifact format 2
    name = f"{job.target_name}-{job.id[:12]}" + (".tar.gz" if legacy else ".tar")
    headers = {"ETag": etag, "Cache-Control": "private, max-age=31536000, immutable", "Content-Length": str(size),
               "Content-Disposition": f'attachment; filename="{name}"'}
    return StreamingResponse(read_parts(paths), media_type="application/gzip" if legacy else "application/x-tar",
                             headers=headers)


@router.get("/{compilation_id}/report", responses={**ERRORS, 409: {"model": ErrorOut}, 410: {"model": ErrorOut}})
def download_report(compilation_id: str, owner: CurrentOwner, session: SessionDep, settings: SettingsDep,
                    format: Literal["json", "html"] = "json", if_none_match: str | None = Header(None)):
    """report.json (DESIGN section 7), or report.html with ?format=html."""
    job = _finished(session, owner, compilation_id)
    if format == "html":
        return _blob_response(settings, job.report_html_sha256, "report", "text/html; charset=utf-8", None,
                              if_none_match)
    return _blob_response(settings, job.report_sha256, "report", "application/json", None, if_none_match)
