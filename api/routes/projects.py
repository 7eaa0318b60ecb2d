"""/v1/projects: CI projects (models x targets built on every commit), their webhook secret, and the
status of each commit (per build state, compile seconds, latency and its change; the verdict)."""
from __future__ import annotations

from fastapi import APIRouter, Query, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError

from service import projects as logic
from service.models import Project, utcnow

from ..deps import CurrentOwner, SessionDep, SettingsDep
from ..errors import ApiError
from ..schemas import CommitRequest, CommitStatus, ErrorOut, HookAnswer, ProjectCreate, ProjectList, ProjectOut
from .hooks import trigger_commit

router = APIRouter(prefix="/projects", tags=["ci"])
ERRORS = {401: {"model": ErrorOut}, 404: {"model": ErrorOut}}


def _project(session, owner, ref: str) -> Project:
    p = logic.get_project(session=session, owner_id=owner.id, ref=ref)
    if p is None:
        raise ApiError(404, f"project {ref} not found")
    return p


@router.post("", status_code=201, response_model=ProjectOut,
             responses={**ERRORS, 409: {"model": ErrorOut}, 422: {"model": ErrorOut}})
def create_project(body: ProjectCreate, owner: CurrentOwner, session: SessionDep):
    """Creates a project; the answer carries its webhook secret, shown only this once."""
    models = [m.model_dump() for m in body.models]
    try:
        logic.check_definition(session=session, owner_id=owner.id, targets=body.targets, models=models)
        callback = logic.check_callback_url(body.callback_url) if body.callback_url else None
    except logic.ProjectError as e:
        raise ApiError(422, str(e)) from None
    if logic.get_project(session=session, owner_id=owner.id, ref=body.name) is not None:
        raise ApiError(409, f"you already have a project named {body.name}")
    p = Project(owner_id=owner.id, name=body.name, targets=list(dict.fromkeys(body.targets)), models=models,
                webhook_secret=logic.new_webhook_secret(), regression_threshold=body.regression_threshold,
                callback_url=callback)
    session.add(p)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise ApiError(409, f"you already have a project named {body.name}") from None
    return ProjectOut.of(p, secret=True)


@router.get("", response_model=ProjectList, responses=ERRORS)
def list_projects(owner: CurrentOwner, session: SessionDep):
    """The caller's projects (never their secrets)."""
    rows = logic.list_projects(session=session, owner_id=owner.id)
    return ProjectList(items=[ProjectOut.of(p) for p in rows], total=len(rows))


@router.get("/{project}", response_model=ProjectOut, responses=ERRORS)
def get_project(project: str, owner: CurrentOwner, session: SessionDep):
    """A project by id or name."""
    return ProjectOut.of(_project(session, owner, project))


@router.delete("/{project}", status_code=204, responses=ERRORS)
def delete_project(project: str, owner: CurrentOwner, session: SessionDep):
    """Deletes the project with its commits and deliveries (its compilations stay)."""
    session.delete(_project(session, owner, project))
    session.commit()
    return Response(status_code=204)


@router.post("/{project}/rotate-secret", response_model=ProjectOut, responses=ERRORS)
def rotate_secret(project: str, owner: CurrentOwner, session: SessionDep):
    """A new webhook secret (shown once); the old one stops working at once."""
    p = _project(session, owner, project)
    p.webhook_secret, p.secret_rotated_at = logic.new_webhook_secret(), utcnow()
    session.commit()
    return ProjectOut.of(p, secret=True)


@router.post("/{project}/commits", status_code=202, response_model=HookAnswer,
             responses={**ERRORS, 200: {"model": HookAnswer, "description": "the commit was already built"},
                        422: {"model": ErrorOut}})
async def trigger(project: str, body: CommitRequest, owner: CurrentOwner):
    """Starts a commit's builds with the caller's token (what the webhook does, for `brickyard ci`)."""
    from service.db import session_scope

    def find():
        with session_scope() as session:
            return _project(session, owner, project).id
    project_id = await run_in_threadpool(find)
    try:
        req = logic.check_commit_request(body.commit, body.ref, body.models)
        status, answer = await run_in_threadpool(trigger_commit, project_id, req, None)
    except logic.ProjectError as e:
        raise ApiError(422, str(e)) from None
    return JSONResponse(answer, status_code=status)


@router.get("/{project}/commits", responses=ERRORS)
def list_commits(project: str, owner: CurrentOwner, session: SessionDep, settings: SettingsDep,
                 limit: int = Query(20, ge=1, le=200)):
    """The project's newest commits with their verdicts."""
    p = _project(session, owner, project)
    out = []
    for c in logic.latest_commits(session=session, project=p, limit=limit):
        s = logic.commit_status(session=session, store_root=settings.store_root, project=p, commit=c)
        out.append({k: s[k] for k in ("commit", "ref", "created_at", "verdict", "failures", "regressions")})
    return {"items": out}


@router.get("/{project}/commits/{sha}", response_model=CommitStatus, responses=ERRORS)
def commit_status(project: str, sha: str, owner: CurrentOwner, session: SessionDep, settings: SettingsDep,
                  threshold: float | None = Query(None, ge=0, le=100,
                                                  description="override the project's regression threshold")):
    """Per model x target: state, compile seconds, latency (measured, else predicted) and its change against
    the previous commit on the same ref; the verdict pass / fail / pending."""
    p = _project(session, owner, project)
    c = logic.get_commit(session=session, project=p, sha=sha)
    if c is None:
        raise ApiError(404, f"commit {sha} of project {p.name} not found")
    return logic.commit_status(session=session, store_root=settings.store_root, project=p, commit=c,
                               threshold=threshold)
