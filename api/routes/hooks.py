"""POST /v1/hooks/ci/{project_id}: the CI webhook. Authenticated by the body's HMAC-SHA256 with the project's
secret (X-Hub-Signature-256, GitHub's convention), not by a bearer token. A delivery id is answered once; a
replay gets the first answer again and starts nothing."""
from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from prometheus_client import Counter
from sqlalchemy.exc import IntegrityError

from service import projects as logic
from service.db import session_scope
from service.models import Project

from ..errors import ApiError
from ..metrics import registry
from ..schemas import ErrorOut, HookAnswer

router = APIRouter(prefix="/hooks", tags=["ci"])
log = logging.getLogger("brickyard.api")

BAD_SIGNATURES = Counter("brickyard_webhook_bad_signatures", "Webhook deliveries refused for their signature",
                         registry=registry)
DELIVERY_HEADERS = ("x-github-delivery", "x-brickyard-delivery")
MAX_HOOK_BYTES = 5 * 1024 * 1024  # GitHub caps payloads at 25 MB; a push event is far smaller


def trigger_commit(project_id: str, request: dict | None, delivery: str | None) -> tuple[int, dict]:
    """Starts a commit's builds (or finds them) and records the delivery; returns (status, answer)."""
    for tries_left in (1, 0):
        try:
            return _trigger(project_id, request, delivery)
        except IntegrityError:  # a concurrent delivery of the same commit won: its builds are the answer
            if not tries_left:
                raise
    raise AssertionError("unreachable")


def _trigger(project_id: str, request: dict | None, delivery: str | None) -> tuple[int, dict]:
    from service.settings import get_settings
    enqueue, fetch = [], []
    with session_scope() as session:
        project = session.get(Project, project_id)
        if delivery:
            seen = logic.get_delivery(session=session, project_id=project_id, delivery_id=delivery)
            if seen is not None:
                return 200, dict(seen.response, replay=True, started=False)
        answer = {"project_id": project_id, "delivery": delivery, "commit": None, "ref": None, "started": False,
                  "replay": False, "compilations": [], "status_url": None}
        status = 200
        if request is not None:
            commit, created, enqueue, fetch = logic.start_commit(
                session=session, project=project, commit=request["commit"], ref=request["ref"],
                overrides=request["models"])
            rows = logic.build_rows(session=session, store_root=get_settings().store_root, commit=commit)
            answer.update(commit=commit.sha, ref=commit.ref, started=created,
                          status_url=f"/v1/projects/{project_id}/commits/{commit.sha}",
                          compilations=[{k: r[k] for k in ("model", "target", "state", "compilation_id")}
                                        for r in rows])
            status = 202 if created else 200
        if delivery and not logic.record_delivery(session=session, project_id=project_id, delivery_id=delivery,
                                                  status=status, response=answer):
            raise IntegrityError("delivery", None, Exception("a concurrent delivery with this id"))
    logic.enqueue_all(enqueue, fetch, session_scope)  # the reconciler posts the verdict once it is in
    return status, answer


@router.post("/ci/{project_id}", status_code=202, response_model=HookAnswer,
             responses={200: {"model": HookAnswer, "description": "a replay, a commit already built, or a ping"},
                        401: {"model": ErrorOut}, 404: {"model": ErrorOut}, 413: {"model": ErrorOut},
                        422: {"model": ErrorOut}})
async def ci_webhook(project_id: str, request: Request):
    """GitHub's push event (commit = `after`) or a plain JSON {commit, ref, models?}, signed with the
    project's secret in X-Hub-Signature-256. Answers 202 with the compilations it started."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_HOOK_BYTES:
        raise ApiError(413, f"webhook bodies are limited to {MAX_HOOK_BYTES} bytes")
    body = await request.body()
    if len(body) > MAX_HOOK_BYTES:
        raise ApiError(413, f"webhook bodies are limited to {MAX_HOOK_BYTES} bytes")

    def secret_of():
        with session_scope() as session:
            p = session.get(Project, project_id)
            return p.webhook_secret if p else None
    secret = await run_in_threadpool(secret_of)
    # an unknown project and a bad signature get the same answer: the URL alone reveals nothing
    if secret is None or not logic.signature_ok(secret, body, request.headers.get(logic.SIGNATURE_HEADER)):
        BAD_SIGNATURES.inc()
        raise ApiError(401, f"bad or missing {logic.SIGNATURE_HEADER} signature")
    delivery = next((request.headers[h].strip() for h in DELIVERY_HEADERS if request.headers.get(h, "").strip()),
                    None)
    if delivery is not None and (len(delivery) > 200 or "\x00" in delivery):
        raise ApiError(422, "the delivery id must be at most 200 characters")
    try:
        parsed = logic.parse_hook_body(body, request.headers.get("x-github-event"))
        status, answer = await run_in_threadpool(trigger_commit, project_id, parsed, delivery)
    except logic.ProjectError as e:
        raise ApiError(422, str(e)) from None
    return JSONResponse(answer, status_code=status)
