"""CI projects: webhook signatures, model sources, starting a commit's builds, the commit's status and verdict,
and the signed verdict callback. Routes live in api/routes/projects.py and api/routes/hooks.py."""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import re
import secrets
import time
import urllib.parse

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from compiler.errors import CompilerError

from . import crud
from .blobs import get_bytes
from .models import TERMINAL_STATES, Compilation, Model, Project, ProjectBuild, ProjectCommit, WebhookDelivery, \
    utcnow

log = logging.getLogger("brickyard.projects")

SIGNATURE_HEADER = "X-Hub-Signature-256"
COMMIT_RE = re.compile(r"^[0-9A-Za-z._-]{1,64}$")
ZERO_SHA = "0" * 40
LOOPBACK_HOSTS = ("localhost",)


class ProjectError(ValueError):
    """A bad project definition or webhook body (a 422 for the routes)."""


# --- secrets and signatures ----------------------------------------------------------------------

def new_webhook_secret() -> str:
    """A fresh webhook secret (256 bits)."""
    return "whsec_" + secrets.token_urlsafe(32)


def sign(secret: str, body: bytes) -> str:
    """GitHub's header value: sha256=<hex HMAC-SHA256 of the raw body keyed by the secret>."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signature_ok(secret: str, body: bytes, header: str | None) -> bool:
    """Checks X-Hub-Signature-256 against the raw bytes in constant time."""
    if not header:
        return False
    return hmac.compare_digest(sign(secret, body).encode(), header.strip().encode())


# --- model sources -------------------------------------------------------------------------------

def is_url_source(source: str) -> bool:
    return "://" in source


def check_url_template(template: str, *, require_commit: bool = True) -> str:
    """An https URL (a template with {commit}, unless require_commit is False) without credentials;
    anything else is a ProjectError."""
    if require_commit and "{commit}" not in template:
        raise ProjectError(f"URL source '{template}' must contain {{commit}}")
    parsed = urllib.parse.urlsplit(template.replace("{commit}", "0"))
    if parsed.scheme != "https":
        raise ProjectError(f"URL source '{template}' must be https://")
    if not parsed.hostname:
        raise ProjectError(f"URL source '{template}' has no host")
    if parsed.username or parsed.password:
        raise ProjectError(f"URL source '{template}' must not carry credentials")
    return template


def check_callback_url(url: str) -> str:
    """https, or http to a loopback address (a CI agent on the same machine)."""
    parsed = urllib.parse.urlsplit(url)
    host = parsed.hostname or ""
    if parsed.scheme == "https" and host:
        return url
    if parsed.scheme == "http" and host:
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host in LOOPBACK_HOSTS
        if loopback:
            return url
    raise ProjectError(f"callback_url '{url}' must be https:// (or http:// to a loopback address)")


def expand_url(template: str, commit: str) -> str:
    return template.replace("{commit}", urllib.parse.quote(commit, safe=""))


# --- projects ------------------------------------------------------------------------------------

def check_definition(*, session: Session, owner_id: str, targets: list[str], models: list[dict]) -> None:
    """Targets are known presets; each model source is one of the owner's models or an https template."""
    from compiler.targets import get_target
    if not targets:
        raise ProjectError("targets must name at least one target")
    if not models:
        raise ProjectError("models must name at least one model")
    for t in targets:
        try:
            get_target(t)
        except CompilerError as e:
            raise ProjectError(e.one_line()) from None
    names = [m["name"] for m in models]
    if len(set(names)) != len(names):
        raise ProjectError("model names must be distinct")
    for m in models:
        if is_url_source(m["source"]):
            check_url_template(m["source"])
        elif crud.get_model(session=session, owner_id=owner_id, model_id=m["source"]) is None:
            raise ProjectError(f"model '{m['name']}': source {m['source']} is neither one of your model ids "
                               f"nor an https URL template")


def get_project(*, session: Session, owner_id: str, ref: str) -> Project | None:
    """The owner's project by id or by name."""
    return session.scalar(select(Project).where(Project.owner_id == owner_id,
                                                (Project.id == ref) | (Project.name == ref)))


def list_projects(*, session: Session, owner_id: str) -> list[Project]:
    return list(session.scalars(select(Project).where(Project.owner_id == owner_id)
                                .order_by(Project.created_at, Project.id)).all())


# --- starting a commit ---------------------------------------------------------------------------

def parse_hook_body(body: bytes, event: str | None) -> dict | None:
    """{commit, ref, models} from GitHub's push event or a plain JSON body; None for an event that starts
    nothing (ping, a deleted branch). Raises ProjectError when the body is unusable."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ProjectError("the body is not JSON") from None
    if not isinstance(data, dict):
        raise ProjectError("the body must be a JSON object")
    if event == "ping":
        return None
    if event == "push" or ("after" in data and "commit" not in data):
        commit, ref, models = data.get("after"), data.get("ref") or "", None
        if data.get("deleted") or commit == ZERO_SHA:
            return None
    elif event in (None, "", "commit"):
        commit, ref, models = data.get("commit"), data.get("ref") or "", data.get("models")
    else:
        return None  # another GitHub event (issues, pull_request...): accepted, nothing to do
    return check_commit_request(commit, ref, models)


def check_commit_request(commit, ref, models) -> dict:
    if not isinstance(commit, str) or not COMMIT_RE.match(commit):
        raise ProjectError("commit must be 1-64 characters of [0-9A-Za-z._-]")
    if not isinstance(ref, str) or len(ref) > 255 or "\x00" in ref:
        raise ProjectError("ref must be a string of at most 255 characters")
    if models is not None:
        if not isinstance(models, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in models.items()):
            raise ProjectError("models must map a model name to a model id or an https URL")
    return {"commit": commit, "ref": ref, "models": models or {}}


def start_commit(*, session: Session, project: Project, commit: str, ref: str,
                 overrides: dict[str, str]) -> tuple[ProjectCommit, bool, list[str], list[str]]:
    """Creates the commit and its builds (one compilation per model x target), unless the commit exists.

    Returns (commit, created, job ids to enqueue, build ids to fetch). The caller commits, then enqueues."""
    existing = session.scalar(select(ProjectCommit).where(ProjectCommit.project_id == project.id,
                                                          ProjectCommit.sha == commit))
    if existing is not None:
        return existing, False, [], []
    unknown = set(overrides) - {m["name"] for m in project.models}
    if unknown:
        raise ProjectError(f"models names {sorted(unknown)}, which are not models of project {project.name}")
    row = ProjectCommit(project_id=project.id, sha=commit, ref=ref, created_at=utcnow())
    session.add(row)
    session.flush()
    to_enqueue, to_fetch = [], []
    for m in project.models:
        source = overrides.get(m["name"], m["source"])
        if is_url_source(source):
            url = expand_url(check_url_template(source, require_commit=False), commit)
            for target in project.targets:
                b = ProjectBuild(commit_id=row.id, model_name=m["name"], target=target, source_url=url,
                                 state="fetching", fetch_queued_at=utcnow())
                session.add(b)
                session.flush()
                to_fetch.append(b.id)
            continue
        model = crud.get_model(session=session, owner_id=project.owner_id, model_id=source)
        for target in project.targets:
            b = ProjectBuild(commit_id=row.id, model_name=m["name"], target=target, model_id=source)
            session.add(b)
            if model is None:
                b.state, b.error = "failed", f"model {source} not found"
                continue
            job, queued = create_job(session=session, owner_id=project.owner_id, model=model, target=target)
            b.compilation_id = job.id
            if queued:
                to_enqueue.append(job.id)
    session.flush()
    return row, True, to_enqueue, to_fetch


def create_job(*, session: Session, owner_id: str, model: Model, target: str) -> tuple[Compilation, bool]:
    """A compilation of `model` for a preset `target` with default options (answered from the store when a
    twin succeeded); returns (job, whether it needs a message)."""
    from compiler.pipeline import CompileOptions
    from compiler.targets import get_target

    from .jobs import new_job
    return new_job(session=session, owner_id=owner_id, model=model, target=get_target(target), opts=CompileOptions())


def enqueue_all(job_ids: list[str], fetch_ids: list[str], session_factory) -> None:
    """Publishes the messages of a commit's new jobs and fetches (after the rows are committed)."""
    from .queueing import enqueue, enqueue_fetch
    with session_factory() as session:
        queues = dict(session.execute(select(Compilation.id, Compilation.queue)
                                      .where(Compilation.id.in_(job_ids))).all()) if job_ids else {}
    for job_id in job_ids:
        try:
            enqueue(job_id, queues[job_id])
        except Exception as e:  # noqa: BLE001 - the reconciler publishes a queued job without a message
            log.warning("could not enqueue %s now (%s); the reconciler will", job_id, e)
    for build_id in fetch_ids:
        try:
            enqueue_fetch(build_id)
        except Exception as e:  # noqa: BLE001
            log.warning("could not enqueue the fetch of build %s: %s", build_id, e)


def record_delivery(*, session: Session, project_id: str, delivery_id: str, status: int, response: dict) -> bool:
    """Claims a delivery id (False if it was seen before: a replay)."""
    try:
        with session.begin_nested():
            session.add(WebhookDelivery(project_id=project_id, delivery_id=delivery_id, status_code=status,
                                        response=response))
        return True
    except IntegrityError:
        return False


def get_delivery(*, session: Session, project_id: str, delivery_id: str) -> WebhookDelivery | None:
    return session.scalar(select(WebhookDelivery).where(WebhookDelivery.project_id == project_id,
                                                        WebhookDelivery.delivery_id == delivery_id))


# --- commit status -------------------------------------------------------------------------------

def _latency_from_report(store_root, job: Compilation) -> tuple[float | None, float | None]:
    raw = get_bytes(store_root, job.report_sha256) if job.report_sha256 else None
    if raw is None:
        return None, None
    lat = json.loads(raw).get("latency") or {}
    return lat.get("predicted_us"), lat.get("measured_us")


def build_rows(*, session: Session, store_root, commit: ProjectCommit) -> list[dict]:
    """Each build of a commit: state, compile seconds, latency (measured when there is one, else predicted)."""
    builds = list(session.scalars(select(ProjectBuild).where(ProjectBuild.commit_id == commit.id)
                                  .order_by(ProjectBuild.model_name, ProjectBuild.target)).all())
    job_ids = [b.compilation_id for b in builds if b.compilation_id]
    jobs = {j.id: j for j in session.scalars(select(Compilation).where(Compilation.id.in_(job_ids)))} \
        if job_ids else {}
    rows = []
    for b in builds:
        job = jobs.get(b.compilation_id) if b.compilation_id else None
        state = b.state or (job.state if job else "failed")
        error = b.error
        if job is not None and job.state == "succeeded" and b.predicted_us is None:
            b.predicted_us, b.measured_us = _latency_from_report(store_root, job)
        if job is not None and job.error_category:
            error = f"{job.error_category}: {job.error_message}"
        latency = b.measured_us if b.measured_us is not None else b.predicted_us
        rows.append({"model": b.model_name, "target": b.target, "state": state, "compilation_id": b.compilation_id,
                     "model_id": b.model_id or (job.model_id if job else None),
                     "compile_seconds": job.compile_seconds if job else None,
                     "latency_us": latency, "latency_kind": None if latency is None else
                     ("measured" if b.measured_us is not None else "predicted"), "error": error})
    return rows


def previous_commit(*, session: Session, commit: ProjectCommit) -> ProjectCommit | None:
    """The commit built before this one on the same ref."""
    return session.scalar(select(ProjectCommit).where(
        ProjectCommit.project_id == commit.project_id, ProjectCommit.ref == commit.ref,
        ProjectCommit.id != commit.id, ProjectCommit.created_at <= commit.created_at)
        .order_by(ProjectCommit.created_at.desc(), ProjectCommit.id.desc()).limit(1))


def commit_status(*, session: Session, store_root, project: Project, commit: ProjectCommit,
                  threshold: float | None = None) -> dict:
    """Per model x target: state, compile seconds, latency and its change against the previous commit on
    the ref; the verdict: pending while any build runs, fail on a failed build or a latency regression
    above the threshold, else pass."""
    threshold = project.regression_threshold if threshold is None else threshold
    rows = build_rows(session=session, store_root=store_root, commit=commit)
    prev = previous_commit(session=session, commit=commit)
    before = {}
    if prev is not None:
        before = {(r["model"], r["target"]): r for r in build_rows(session=session, store_root=store_root,
                                                                    commit=prev)}
    regressions, failures = [], []
    for r in rows:
        p = before.get((r["model"], r["target"]))
        r["previous_latency_us"] = p["latency_us"] if p else None
        r["change"] = None
        r["regression"] = False
        if p and p["latency_us"] and r["latency_us"] is not None:
            r["change"] = round(r["latency_us"] / p["latency_us"] - 1.0, 4)
            r["regression"] = r["change"] > threshold
        if r["regression"]:
            regressions.append(f"{r['model']}@{r['target']}")
        if r["state"] in ("failed", "cancelled"):
            failures.append(f"{r['model']}@{r['target']}")
    if any(r["state"] not in TERMINAL_STATES and r["state"] != "failed" for r in rows):
        verdict = "pending"
    elif failures or regressions:
        verdict = "fail"
    else:
        verdict = "pass"
    return {"project": project.name, "project_id": project.id, "commit": commit.sha, "ref": commit.ref,
            "created_at": commit.created_at.isoformat() + "Z", "previous_commit": prev.sha if prev else None,
            "threshold": threshold, "verdict": verdict, "failures": failures, "regressions": regressions,
            "builds": rows}


def get_commit(*, session: Session, project: Project, sha: str) -> ProjectCommit | None:
    return session.scalar(select(ProjectCommit).where(ProjectCommit.project_id == project.id,
                                                      ProjectCommit.sha == sha))


def latest_commits(*, session: Session, project: Project, limit: int = 20) -> list[ProjectCommit]:
    return list(session.scalars(select(ProjectCommit).where(ProjectCommit.project_id == project.id)
                                .order_by(ProjectCommit.created_at.desc(), ProjectCommit.id.desc())
                                .limit(limit)).all())


# --- the verdict callback ------------------------------------------------------------------------
# At least once, by the reconciler (api/reconciler.py, every RECONCILE_INTERVAL): a pass claims a commit
# whose verdict is in with a lease (notify_claimed_until), POSTs, and marks notified_at only once the
# receiver answered; an unanswered claim lapses and a later pass tries again. Nothing lives in a thread of
# the process that received the webhook, so a restart loses nothing. Every attempt carries the same
# X-Brickyard-Delivery id, so a receiver can drop a repeat.

def _claim_verdict(commit_id: str) -> tuple[str, str, dict] | None:
    """(url, secret, status) when the commit's verdict is in and this poster holds the delivery, else None."""
    import datetime as dt

    from sqlalchemy import or_, update

    from .db import session_scope
    from .settings import get_settings
    s = get_settings()
    with session_scope() as session:
        commit = session.get(ProjectCommit, commit_id)
        project = session.get(Project, commit.project_id) if commit is not None else None
        if project is None or not project.callback_url or commit.notified_at \
                or commit.notify_attempts >= s.callback_max_attempts:
            return None
        status = commit_status(session=session, store_root=s.store_root, project=project, commit=commit)
        if status["verdict"] == "pending":
            return None
        now = utcnow()
        res = session.execute(update(ProjectCommit).where(
            ProjectCommit.id == commit_id, ProjectCommit.notified_at.is_(None),
            ProjectCommit.notify_attempts < s.callback_max_attempts,
            or_(ProjectCommit.notify_claimed_until.is_(None), ProjectCommit.notify_claimed_until < now))
            .values(notify_attempts=ProjectCommit.notify_attempts + 1,
                    notify_claimed_until=now + dt.timedelta(seconds=s.callback_lease)))
        if res.rowcount != 1:
            return None
        return project.callback_url, project.webhook_secret, status


def deliver_verdict(commit_id: str) -> bool:
    """POSTs the commit's verdict to its project's callback URL if it is due; True once delivered."""
    import httpx

    from .db import session_scope
    claim = _claim_verdict(commit_id)
    if claim is None:
        return False
    url, secret, status = claim
    body = json.dumps({"event": "commit_status", **status}).encode()
    headers = {"content-type": "application/json", SIGNATURE_HEADER: sign(secret, body),
               "X-Brickyard-Event": "commit_status", "X-Brickyard-Delivery": f"{commit_id}-verdict"}
    for attempt in range(3):
        try:
            r = httpx.post(url, content=body, headers=headers, timeout=10)
            if r.status_code < 500:  # a 4xx will not get better by repeating it
                with session_scope() as session:
                    session.get(ProjectCommit, commit_id).notified_at = utcnow()
                return True
            log.warning("callback %s: HTTP %d", url, r.status_code)
        except httpx.HTTPError as e:
            log.warning("callback %s: %s", url, e)
        if attempt < 2:
            time.sleep(2 ** attempt)
    return False  # the lease lapses and the reconciler tries again, up to callback_max_attempts


def undelivered_verdicts(*, session: Session, since) -> list[str]:
    """Commits of projects with a callback whose verdict was not delivered (recent ones, attempts left)."""
    from .settings import get_settings
    now = utcnow()
    return list(session.scalars(select(ProjectCommit.id).join(Project, Project.id == ProjectCommit.project_id).where(
        Project.callback_url.is_not(None), ProjectCommit.notified_at.is_(None), ProjectCommit.created_at >= since,
        ProjectCommit.notify_attempts < get_settings().callback_max_attempts,
        (ProjectCommit.notify_claimed_until.is_(None)) | (ProjectCommit.notify_claimed_until < now))).all())


# --- fetches a lost worker left --------------------------------------------------------------------

def _lapsed(now, unclaimed_before):
    """A build still fetching whose fetch was lost: a claimed fetch when its lease lapsed (worker killed,
    machine gone); an unclaimed one when its message was published before unclaimed_before (publish
    failed, message lost with the broker)."""
    from sqlalchemy import and_, or_
    return (ProjectBuild.state == "fetching",
            or_(and_(ProjectBuild.fetch_lease_until.is_not(None), ProjectBuild.fetch_lease_until < now),
                and_(ProjectBuild.fetch_lease_until.is_(None), ProjectBuild.fetch_queued_at < unclaimed_before)))


def recover_lapsed_fetches(*, now, unclaimed_before) -> tuple[list[str], list[str]]:
    """Publishes lost fetches again (unclaimed, with a fresh publish time) and fails those out of attempts.
    Each update repeats the condition, so a fetch claimed meanwhile is left alone, and only the builds an
    update changed are published or reported. Returns (fetched again, failed)."""
    from sqlalchemy import update

    from .db import session_scope
    from .settings import get_settings
    limit = get_settings().fetch_max_attempts
    lapsed = _lapsed(now, unclaimed_before)
    stamp = utcnow()
    with session_scope() as session:
        rows = session.execute(select(ProjectBuild.id, ProjectBuild.fetch_attempts).where(*lapsed)).all()
        again = [i for i, a in rows if a < limit]
        spent = [i for i, a in rows if a >= limit]
        if spent:
            session.execute(update(ProjectBuild).where(ProjectBuild.id.in_(spent), *lapsed)
                            .values(state="failed", error=f"the model's fetch was lost {limit} times "
                                                          "(its worker was killed or ran out of time)"))
            spent = list(session.scalars(select(ProjectBuild.id).where(ProjectBuild.id.in_(spent),
                                                                        ProjectBuild.state == "failed")))
        if again:
            session.execute(update(ProjectBuild).where(ProjectBuild.id.in_(again), *lapsed)
                            .values(fetch_lease_until=None, fetch_queued_at=stamp))
            again = list(session.scalars(select(ProjectBuild.id).where(ProjectBuild.id.in_(again),
                                                                        ProjectBuild.fetch_queued_at == stamp)))
    if again:
        enqueue_all([], again, session_scope)
    return again, spent
