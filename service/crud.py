"""Database operations. Keyword-only, never raise HTTP errors: they return None/False and the routes decide.

Job transitions are conditional UPDATEs (on state and attempt), so two workers, a reconciler and a cancel
racing on one job can never both win: the loser sees rowcount 0."""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .models import TERMINAL_STATES, Compilation, CompilationEvent, CompilationKernel, Kernel, Model, Owner, \
    Token, utcnow
from .security import new_token, token_digest


# --- owners and tokens ---------------------------------------------------------------------------

def get_owner_by_name(*, session: Session, name: str) -> Owner | None:
    return session.scalar(select(Owner).where(Owner.name == name))


def create_owner(*, session: Session, name: str, is_admin: bool = False) -> Owner:
    owner = Owner(name=name, is_admin=is_admin)
    session.add(owner)
    session.flush()
    return owner


def create_token(*, session: Session, owner: Owner) -> str:
    """Adds a token for `owner` and returns its value (the only time it is known)."""
    value = new_token()
    session.add(Token(owner_id=owner.id, token_sha256=token_digest(value)))
    session.flush()
    return value


def owner_for_digest(*, session: Session, digest: str) -> Owner | None:
    """The owner of the valid, unrevoked token whose sha256 is `digest`; None otherwise."""
    return session.scalar(select(Owner).join(Token, Token.owner_id == Owner.id)
                          .where(Token.token_sha256 == digest, Token.revoked.is_(False)))


def count_owners(*, session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Owner)) or 0


def ensure_admin(*, session: Session) -> str | None:
    """On first start: creates the admin owner and returns its token; None if owners already exist."""
    if count_owners(session=session):
        return None
    try:
        owner = create_owner(session=session, name="admin", is_admin=True)
        value = create_token(session=session, owner=owner)
        session.commit()
    except IntegrityError:  # another process created it first
        session.rollback()
        return None
    return value


# --- models --------------------------------------------------------------------------------------

def get_model(*, session: Session, owner_id: str, model_id: str) -> Model | None:
    return session.scalar(select(Model).where(Model.id == model_id, Model.owner_id == owner_id))


def get_model_by_sha256(*, session: Session, owner_id: str, sha256: str) -> Model | None:
    return session.scalar(select(Model).where(Model.sha256 == sha256, Model.owner_id == owner_id))


def list_models(*, session: Session, owner_id: str, limit: int, offset: int) -> tuple[list[Model], int]:
    q = select(Model).where(Model.owner_id == owner_id)
    total = session.scalar(select(func.count()).select_from(q.subquery())) or 0
    rows = session.scalars(q.order_by(Model.created_at.desc(), Model.id).limit(limit).offset(offset)).all()
    return list(rows), total


def create_model(*, session: Session, owner_id: str, sha256: str, size: int, name: str,
                 info: dict[str, Any]) -> Model:
    model = Model(owner_id=owner_id, sha256=sha256, size=size, name=name, inputs=info["inputs"],
                  outputs=info["outputs"], op_histogram=info["op_histogram"], warnings=info["warnings"],
                  opset=info.get("opset", 0), summary=info.get("summary"))
    session.add(model)
    session.flush()
    return model


def get_or_create_model(*, session: Session, owner_id: str, sha256: str, size: int, name: str,
                        info: dict[str, Any]) -> Model:
    """The owner's model with these bytes; created if new. Two processes saving the same bytes at once
    (an upload and a CI fetch) both get the one row that won."""
    found = get_model_by_sha256(session=session, owner_id=owner_id, sha256=sha256)
    if found is not None:
        return found
    try:
        with session.begin_nested():
            return create_model(session=session, owner_id=owner_id, sha256=sha256, size=size, name=name, info=info)
    except IntegrityError:
        return get_model_by_sha256(session=session, owner_id=owner_id, sha256=sha256)


def model_has_active_jobs(*, session: Session, model_id: str) -> bool:
    return bool(session.scalar(select(func.count()).select_from(Compilation).where(
        Compilation.model_id == model_id, Compilation.state.in_(("queued", "running")))))


def delete_model(*, session: Session, model: Model) -> bool:
    """Deletes the row; True if no other model row still names the same bytes (the blob may go)."""
    sha = model.sha256
    session.execute(update(Compilation).where(Compilation.model_id == model.id).values(model_id=None))
    session.delete(model)
    session.flush()
    return not session.scalar(select(func.count()).select_from(Model).where(Model.sha256 == sha))


# --- compilations --------------------------------------------------------------------------------

def add_event(*, session: Session, job: Compilation, message: str | None = None) -> None:
    session.add(CompilationEvent(compilation_id=job.id, state=job.state, stage=job.stage, progress=job.progress,
                                 attempt=job.attempts, message=message))


def _event_row(job_id: str, state: str, stage: str | None, progress: float, attempt: int,
               message: str | None = None) -> CompilationEvent:
    return CompilationEvent(compilation_id=job_id, state=state, stage=stage, progress=progress, attempt=attempt,
                            message=message)


def find_succeeded(*, session: Session, dedup_key: str) -> Compilation | None:
    """A finished job with the same model bytes, target, options and toolchain, whose artifact exists."""
    return session.scalar(select(Compilation).where(
        Compilation.dedup_key == dedup_key, Compilation.state == "succeeded",
        Compilation.artifact_sha256.is_not(None)).order_by(Compilation.finished_at).limit(1))


def create_compilation(*, session: Session, owner_id: str, model: Model, target_name: str, target_spec: dict,
                       arch: str, queue: str, options: dict, dedup_key: str, compiler_version: str,
                       answer: Compilation | None = None) -> Compilation:
    """A new job: queued, or (given `answer`, a succeeded twin) already succeeded with its artifact."""
    now = utcnow()
    job = Compilation(owner_id=owner_id, model_id=model.id, model_sha256=model.sha256, target_name=target_name,
                      target_spec=target_spec, arch=arch, queue=queue, options=options, dedup_key=dedup_key,
                      compiler_version=compiler_version, state="queued", progress=0.0, stage_seconds={},
                      attempts=0, created_at=now, queued_at=now)
    session.add(job)
    session.flush()
    add_event(session=session, job=job)
    if answer is not None:
        for field in ("artifact_sha256", "artifact_size", "report_sha256", "report_html_sha256",
                      "compile_seconds", "stage_seconds"):
            setattr(job, field, getattr(answer, field))
        job.state, job.stage, job.progress = "succeeded", None, 1.0
        job.deduplicated_from = answer.deduplicated_from or answer.id
        job.started_at = job.finished_at = now
        for digest in session.scalars(select(CompilationKernel.digest)
                                      .where(CompilationKernel.compilation_id == answer.id)):
            session.add(CompilationKernel(compilation_id=job.id, digest=digest))
        session.flush()
        add_event(session=session, job=job, message=f"answered from the store (same as job {job.deduplicated_from})")
    session.flush()
    return job


def get_compilation(*, session: Session, owner_id: str, compilation_id: str) -> Compilation | None:
    return session.scalar(select(Compilation).where(Compilation.id == compilation_id,
                                                    Compilation.owner_id == owner_id))


def get_job(*, session: Session, job_id: str) -> Compilation | None:
    """A job by id whoever owns it (for the worker and the reconciler, never for a request)."""
    return session.get(Compilation, job_id)


def list_compilations(*, session: Session, owner_id: str, state: str | None, model_id: str | None,
                      limit: int, offset: int) -> tuple[list[Compilation], int]:
    q = select(Compilation).where(Compilation.owner_id == owner_id)
    if state:
        q = q.where(Compilation.state == state)
    if model_id:
        q = q.where(Compilation.model_id == model_id)
    total = session.scalar(select(func.count()).select_from(q.subquery())) or 0
    rows = session.scalars(q.order_by(Compilation.created_at.desc(), Compilation.id).limit(limit).offset(offset))
    return list(rows.all()), total


def cancel_compilation(*, session: Session, job: Compilation) -> bool:
    """queued/running -> cancelled; False if the job had already ended (the worker notices at its next stage)."""
    now = utcnow()
    res = session.execute(update(Compilation).where(Compilation.id == job.id,
                                                    Compilation.state.in_(("queued", "running")))
                          .values(state="cancelled", finished_at=now))
    if res.rowcount != 1:
        return False
    session.refresh(job)
    add_event(session=session, job=job, message="cancelled by its owner")
    session.flush()
    return True


def events_after(*, session: Session, job_id: str, after_id: int) -> list[CompilationEvent]:
    return list(session.scalars(select(CompilationEvent).where(CompilationEvent.compilation_id == job_id,
                                                               CompilationEvent.id > after_id)
                                .order_by(CompilationEvent.id)).all())


# --- job transitions (worker and reconciler) -----------------------------------------------------

def set_enqueued(*, session: Session, job_id: str, task_id: str, eligible_at: dt.datetime,
                 replacing: str | None = None) -> bool:
    """Records the message about to be published for a queued job (with `replacing`: only if the job's
    task id is still that one, so two reconcilers cannot both re-publish it)."""
    cond = [Compilation.id == job_id, Compilation.state == "queued"]
    if replacing is not None:
        cond.append(Compilation.task_id == replacing)
    res = session.execute(update(Compilation).where(*cond)
                          .values(task_id=task_id, queued_at=eligible_at, enqueues=Compilation.enqueues + 1))
    return res.rowcount == 1


def claim_job(*, session: Session, job_id: str, stale_before: dt.datetime) -> Compilation | None:
    """queued (or running with a heartbeat older than stale_before) -> running, attempt + 1; None if not ours."""
    job = session.get(Compilation, job_id)
    if job is None or job.state in TERMINAL_STATES:
        return None
    if job.state == "running" and (job.heartbeat_at or job.started_at or utcnow()) >= stale_before:
        return None  # a live worker has it
    now = utcnow()
    prev_state, attempt = job.state, job.attempts + 1
    res = session.execute(update(Compilation).where(Compilation.id == job.id, Compilation.state == prev_state,
                                                    Compilation.attempts == attempt - 1)
                          .values(state="running", attempts=attempt, stage="import", progress=0.0,
                                  started_at=now, heartbeat_at=now, error_category=None, error_message=None)
                          .execution_options(synchronize_session=False))
    if res.rowcount != 1:
        return None
    session.add(_event_row(job.id, "running", "import", 0.0, attempt, f"attempt {attempt} started"))
    session.flush()
    session.refresh(job)
    return job


def _mine(job_id: str, attempt: int):
    return (Compilation.id == job_id, Compilation.state == "running", Compilation.attempts == attempt)


def record_progress(*, session: Session, job_id: str, attempt: int, stage: str | None, progress: float,
                    stage_seconds: dict) -> bool:
    """Stage/progress of a running attempt; False if the job is no longer this attempt's (cancelled, taken)."""
    res = session.execute(update(Compilation).where(*_mine(job_id, attempt))
                          .values(stage=stage, progress=progress, stage_seconds=stage_seconds, heartbeat_at=utcnow()))
    if res.rowcount != 1:
        return False
    session.add(_event_row(job_id, "running", stage, progress, attempt))
    return True


def heartbeat(*, session: Session, job_id: str, attempt: int) -> bool:
    res = session.execute(update(Compilation).where(*_mine(job_id, attempt)).values(heartbeat_at=utcnow()))
    return res.rowcount == 1


def finish_succeeded(*, session: Session, job_id: str, attempt: int, values: dict) -> bool:
    res = session.execute(update(Compilation).where(*_mine(job_id, attempt))
                          .values(state="succeeded", stage=None, progress=1.0, finished_at=utcnow(), **values))
    if res.rowcount != 1:
        return False
    session.add(_event_row(job_id, "succeeded", None, 1.0, attempt))
    return True


def finish_failed(*, session: Session, job_id: str, attempt: int | None, category: str, message: str) -> bool:
    """running (this attempt) -> failed; attempt None fails a job in any non-terminal state."""
    cond = _mine(job_id, attempt) if attempt is not None else (
        Compilation.id == job_id, Compilation.state.in_(("queued", "running")))
    job = session.get(Compilation, job_id)
    res = session.execute(update(Compilation).where(*cond).values(
        state="failed", finished_at=utcnow(), error_category=category, error_message=message))
    if res.rowcount != 1:
        return False
    session.add(_event_row(job_id, "failed", job.stage if job else None, job.progress if job else 0.0,
                           attempt or (job.attempts if job else 0), message))
    return True


def back_to_queue(*, session: Session, job_id: str, attempt: int, message: str,
                  silent_before: dt.datetime | None = None) -> bool:
    """A running attempt gives its job back (infrastructure fault, lost worker): queued again.

    With `silent_before`, only if its heartbeat is still older than that (a lost worker, not a slow one)."""
    cond = list(_mine(job_id, attempt))
    if silent_before is not None:
        cond.append(func.coalesce(Compilation.heartbeat_at, Compilation.started_at) < silent_before)
    res = session.execute(update(Compilation).where(*cond)
                          .values(state="queued", stage=None, progress=0.0, heartbeat_at=None))
    if res.rowcount != 1:
        return False
    session.add(_event_row(job_id, "queued", None, 0.0, attempt, message))
    return True


def stale_running_jobs(*, session: Session, stale_before: dt.datetime) -> list[Compilation]:
    return list(session.scalars(select(Compilation).where(
        Compilation.state == "running",
        func.coalesce(Compilation.heartbeat_at, Compilation.started_at) < stale_before)).all())


def waiting_jobs(*, session: Session, queued_before: dt.datetime) -> list[Compilation]:
    return list(session.scalars(select(Compilation).where(
        Compilation.state == "queued", Compilation.queued_at < queued_before)).all())


def record_kernels(*, session: Session, job_id: str, kernels: list[dict]) -> None:
    """Kernel rows (insert once per digest and arch) and this job's links to them.

    INSERT ... ON CONFLICT DO NOTHING: two workers finishing jobs that built the same kernel both succeed."""
    if not kernels:
        return
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as upsert
    elif dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as upsert
    else:  # another database: check first (a concurrent twin may still collide)
        for k in kernels:
            if session.get(Kernel, (k["digest"], k["arch"])) is None:
                session.add(Kernel(**k))
            if session.get(CompilationKernel, (job_id, k["digest"])) is None:
                session.add(CompilationKernel(compilation_id=job_id, digest=k["digest"]))
        session.flush()
        return
    now = utcnow()
    session.execute(upsert(Kernel).values([dict(k, created_at=k.get("created_at") or now) for k in kernels])
                    .on_conflict_do_nothing())
    links = [{"compilation_id": job_id, "digest": d} for d in dict.fromkeys(k["digest"] for k in kernels)]
    session.execute(upsert(CompilationKernel).values(links).on_conflict_do_nothing())
    session.flush()


def get_kernel(*, session: Session, owner_id: str, digest: str, arch: str | None) -> Kernel | None:
    """A kernel that one of the owner's jobs produced; the newest arch when `arch` is not given."""
    visible = select(CompilationKernel.digest).join(Compilation, Compilation.id == CompilationKernel.compilation_id) \
        .where(Compilation.owner_id == owner_id, CompilationKernel.digest == digest)
    if session.scalar(visible.limit(1)) is None:
        return None
    q = select(Kernel).where(Kernel.digest == digest)
    if arch:
        q = q.where(Kernel.arch == arch)
    return session.scalar(q.order_by(Kernel.created_at.desc()).limit(1))


def kernel_archs(*, session: Session, digest: str) -> list[str]:
    return list(session.scalars(select(Kernel.arch).where(Kernel.digest == digest)).all())


def job_counts(*, session: Session) -> dict[str, int]:
    return dict(session.execute(select(Compilation.state, func.count()).group_by(Compilation.state)).all())


def cache_totals(*, session: Session) -> dict[str, int]:
    """Kernel cache hits/misses over compiles that ran, and jobs answered from the store."""
    hits, misses = session.execute(select(func.coalesce(func.sum(Compilation.kernel_hits), 0),
                                          func.coalesce(func.sum(Compilation.kernel_misses), 0))
                                   .where(Compilation.deduplicated_from.is_(None))).one()
    answered = session.scalar(select(func.count()).select_from(Compilation)
                              .where(Compilation.deduplicated_from.is_not(None))) or 0
    return {"kernel_hits": int(hits), "kernel_misses": int(misses), "artifact_hits": int(answered)}


def compile_seconds(*, session: Session) -> list[float]:
    return [s for s in session.scalars(select(Compilation.compile_seconds).where(
        Compilation.state == "succeeded", Compilation.deduplicated_from.is_(None),
        Compilation.compile_seconds.is_not(None))).all()]



# --- dashboard -----------------------------------------------------------------------------------

def dashboard_jobs(*, session: Session, owner_id: str, limit: int = 500) -> list[tuple[Compilation, str | None]]:
    """The owner's newest jobs with their model's name (None when the model was deleted)."""
    rows = session.execute(select(Compilation, Model.name).outerjoin(Model, Model.id == Compilation.model_id)
                           .where(Compilation.owner_id == owner_id)
                           .order_by(Compilation.created_at.desc(), Compilation.id).limit(limit)).all()
    return [(job, name) for job, name in rows]


def owner_cache_totals(*, session: Session, owner_id: str) -> dict[str, int]:
    """cache_totals over one owner's jobs."""
    hits, misses = session.execute(select(func.coalesce(func.sum(Compilation.kernel_hits), 0),
                                          func.coalesce(func.sum(Compilation.kernel_misses), 0))
                                   .where(Compilation.owner_id == owner_id,
                                          Compilation.deduplicated_from.is_(None))).one()
    answered = session.scalar(select(func.count()).select_from(Compilation).where(
        Compilation.owner_id == owner_id, Compilation.deduplicated_from.is_not(None))) or 0
    return {"kernel_hits": int(hits), "kernel_misses": int(misses), "artifact_hits": int(answered)}


def live_workers(*, session: Session, seen_after: dt.datetime) -> list[dict]:
    """Worker processes that reported since `seen_after` (worker/presence.py)."""
    from .models import WorkerPresence
    rows = session.scalars(select(WorkerPresence).where(WorkerPresence.last_seen >= seen_after)
                           .order_by(WorkerPresence.name)).all()
    return [{"name": w.name, "queues": w.queues, "last_seen": w.last_seen.isoformat() + "Z"} for w in rows]
