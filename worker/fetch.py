"""The CI projects' fetch task: downloads a build's model from its https URL (size and time limits),
under a lease on the build (service/projects.py's reconciler rule fetches again when a lease lapses), saves
it as the project owner's model, and queues one compilation per target."""
from __future__ import annotations

import logging
import os
import ssl
import tempfile
import time
import urllib.parse
from pathlib import Path

from service.celery_app import FETCH_TASK, app, fetch_soft_time_limit

log = logging.getLogger("brickyard.worker")


class FetchError(Exception):
    """Why a model could not be fetched (one line)."""


def fetch_to_file(url: str, dest: Path, *, max_bytes: int, timeout: float,
                  verify: bool | ssl.SSLContext = True) -> int:
    """Streams an https URL into `dest`; refuses other schemes, bodies over max_bytes (declared or streamed)
    and transfers that take longer than `timeout` seconds in all. Returns the size."""
    import httpx
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        raise FetchError(f"only https:// URLs are fetched, not {url!r}")
    deadline = time.monotonic() + timeout
    size = 0
    try:
        with httpx.Client(verify=verify, timeout=httpx.Timeout(min(timeout, 30.0)), follow_redirects=True,
                          max_redirects=3) as client, client.stream("GET", url) as r:
            if r.url.scheme != "https":
                raise FetchError(f"{url} redirected to a non-https URL")
            if r.status_code != 200:
                raise FetchError(f"GET {url}: HTTP {r.status_code}")
            declared = r.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise FetchError(f"{url} is {int(declared)} bytes, over the limit of {max_bytes}")
            with open(dest, "wb") as f:
                for chunk in r.iter_bytes():  # as it arrives, so the deadline is checked often
                    size += len(chunk)
                    if size > max_bytes:
                        raise FetchError(f"{url} is over the limit of {max_bytes} bytes")
                    if time.monotonic() > deadline:
                        raise FetchError(f"fetching {url} took longer than {timeout:g} s")
                    f.write(chunk)
    except httpx.HTTPError as e:
        raise FetchError(f"cannot fetch {url}: {type(e).__name__}: {e}") from None
    if time.monotonic() > deadline:
        raise FetchError(f"fetching {url} took longer than {timeout:g} s")
    return size


def _held(build_ids: list[str], lease):
    """The builds this fetch still holds: fetching, under the very lease it took (a fetch that outlived its
    lease, e.g. in a solo pool where time limits do not apply, must not write over the one that took over)."""
    from service.models import ProjectBuild
    return (ProjectBuild.id.in_(build_ids), ProjectBuild.state == "fetching", ProjectBuild.fetch_lease_until == lease)


def _fail_builds(build_ids: list[str], lease, message: str) -> None:
    from sqlalchemy import update

    from service.db import session_scope
    from service.models import ProjectBuild
    with session_scope() as session:
        session.execute(update(ProjectBuild).where(*_held(build_ids, lease)).values(state="failed", error=message))


def _trust(extra_ca_file: Path | None) -> bool | ssl.SSLContext:
    """The public CAs (httpx's default), plus an internal registry's CA when one is configured."""
    if extra_ca_file is None:
        return True
    import certifi
    ctx = ssl.create_default_context(cafile=certifi.where())
    ctx.load_verify_locations(cafile=str(extra_ca_file))
    return ctx


def claim_fetch(build_id: str):
    """Takes the lease on a build and its siblings (same commit and URL, other targets) for one fetch.

    None when another fetch holds them or they are done: a duplicate message is harmless. Returns
    (build ids, url, model name, owner id, attempt, lease end)."""
    import datetime as dt

    from sqlalchemy import or_, select, update

    from service.db import session_scope
    from service.models import Project, ProjectBuild, ProjectCommit, utcnow
    from service.settings import get_settings

    s = get_settings()
    now = utcnow()
    with session_scope() as session:
        build = session.get(ProjectBuild, build_id)
        if build is None or build.state != "fetching":
            return None
        url, name, commit_id = build.source_url, build.model_name, build.commit_id
        free = (ProjectBuild.commit_id == commit_id, ProjectBuild.source_url == url,
                ProjectBuild.state == "fetching",
                or_(ProjectBuild.fetch_lease_until.is_(None), ProjectBuild.fetch_lease_until < now))
        ids = list(session.scalars(select(ProjectBuild.id).where(*free)).all())
        if not ids:
            return None
        lease = now + dt.timedelta(seconds=s.fetch_lease_seconds)
        res = session.execute(update(ProjectBuild).where(ProjectBuild.id.in_(ids), *free).values(
            fetch_attempts=ProjectBuild.fetch_attempts + 1, fetch_lease_until=lease))
        if res.rowcount != len(ids):  # another fetch claimed some of them meanwhile: let it have them all
            session.rollback()
            return None
        attempt = max(session.scalars(select(ProjectBuild.fetch_attempts).where(ProjectBuild.id.in_(ids))).all())
        owner_id = session.scalar(select(Project.owner_id).join(ProjectCommit, ProjectCommit.project_id == Project.id)
                                  .where(ProjectCommit.id == commit_id))
    return ids, url, name, owner_id, attempt, lease


@app.task(name=FETCH_TASK, acks_late=True, soft_time_limit=fetch_soft_time_limit())
def fetch_model(build_id: str) -> str:
    """Fetches the model of a project build (and of its sibling builds for the other targets, same URL),
    saves it as the project owner's model, and queues one compilation per build."""
    from sqlalchemy import select

    from compiler.errors import CompilerError
    from service import crud
    from service.blobs import adopt_file, file_sha256
    from service.db import session_scope
    from service.model_info import describe_model
    from service.models import ProjectBuild
    from service.projects import create_job, enqueue_all
    from service.settings import get_settings

    s = get_settings()
    claimed = claim_fetch(build_id)
    if claimed is None:
        return "skipped"
    ids, url, name, owner_id, attempt, lease = claimed
    log.info("fetching %s for builds %s (attempt %d)", url, ",".join(ids), attempt)
    s.tmp_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=s.tmp_dir, prefix="fetch-", suffix=".onnx")
    os.close(fd)
    tmp = Path(tmp)
    try:
        verify = _trust(s.fetch_ca_file)
        size = fetch_to_file(url, tmp, max_bytes=min(s.fetch_max_bytes, s.max_upload_bytes),
                             timeout=s.fetch_timeout, verify=verify)
        digest, size = file_sha256(tmp)
        info = describe_model(tmp, max_bytes=s.max_upload_bytes)
        adopt_file(s.store_root, tmp, digest)
    except (FetchError, CompilerError) as e:
        msg = e.one_line() if isinstance(e, CompilerError) else str(e)
        _fail_builds(ids, lease, msg)
        return "failed"
    finally:
        tmp.unlink(missing_ok=True)
    to_enqueue = []
    with session_scope() as session:
        model = crud.get_or_create_model(session=session, owner_id=owner_id, sha256=digest, size=size, name=name,
                                         info=info)
        for b in session.scalars(select(ProjectBuild).where(*_held(ids, lease))):
            job, queued = create_job(session=session, owner_id=owner_id, model=model, target=b.target)
            b.model_id, b.compilation_id, b.state = model.id, job.id, None
            if queued:
                to_enqueue.append(job.id)
    enqueue_all(to_enqueue, [], session_scope)
    return "fetched"
