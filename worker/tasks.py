"""The compile task: load the job; if it is not ours to run, return; else run compiler.compile and record.

Idempotent: a job runs only after a conditional claim (queued -> running, attempt + 1), every later write
is conditional on that attempt, and the artifact is content-addressed, so a duplicate message, a
redelivery or a second worker after a lost one cannot corrupt a job or produce two answers."""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import threading
import time

from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy.exc import OperationalError

from compiler.errors import CompilerError
from compiler.pipeline import STAGES
from service import crud
from service.blobs import BlobWriter, HashSink, blob_path, put_bytes, put_composite
from service.celery_app import COMPILE_TASK, app
from service.db import session_scope
from service.models import utcnow
from service.settings import get_settings

log = logging.getLogger("brickyard.worker")


class Cancelled(Exception):
    """The job was cancelled while this attempt ran."""


class Superseded(Exception):
    """The job is no longer this attempt's (the reconciler gave it to another run)."""


class Heartbeat(threading.Thread):
    """Touches the job's heartbeat while the compile runs; notices when the job stopped being ours."""

    def __init__(self, job_id: str, attempt: int, interval: float):
        super().__init__(name=f"heartbeat-{job_id}", daemon=True)
        self.job_id, self.attempt, self.interval = job_id, attempt, interval
        self.done = threading.Event()
        self.lost = False

    def run(self):
        while not self.done.wait(self.interval):
            try:
                with session_scope() as session:
                    if not crud.heartbeat(session=session, job_id=self.job_id, attempt=self.attempt):
                        self.lost = True
                        return
            except Exception as e:  # noqa: BLE001 - a missed beat is retried; the reconciler tolerates a few
                log.warning("heartbeat of %s failed: %s", self.job_id, e)


def _why_not_mine(job_id: str) -> Exception:
    with session_scope() as session:
        job = crud.get_job(session=session, job_id=job_id)
        return Cancelled() if job is not None and job.state == "cancelled" else Superseded()


@app.task(bind=True, name=COMPILE_TASK, acks_late=True, reject_on_worker_lost=True, max_retries=10)
def compile_job(self, job_id: str) -> str:
    """Runs one attempt of compilation `job_id`; returns what happened (Celery keeps no result)."""
    s = get_settings()
    stale_before = utcnow() - dt.timedelta(seconds=s.heartbeat_timeout)
    try:
        with session_scope() as session:
            job = crud.claim_job(session=session, job_id=job_id, stale_before=stale_before)
            if job is None:
                return "skipped"
            attempt = job.attempts
            if attempt > s.max_attempts:
                crud.finish_failed(session=session, job_id=job_id, attempt=attempt, category="too_many_attempts",
                                   message=f"gave up after {s.max_attempts} attempts (workers lost or "
                                           f"infrastructure faults; see the job's events)")
                return "failed"
    except OperationalError as e:  # the database is busy or down: this message is retried
        raise self.retry(exc=e, countdown=s.retry_backoff)
    log.info("job %s attempt %d: compiling %s for %s", job_id, attempt, job.model_sha256[:12], job.target_name)
    beat = Heartbeat(job_id, attempt, s.heartbeat_interval)
    beat.start()
    # Celery raises SoftTimeLimitExceeded asynchronously (prefork only), and a broad `except` inside the
    # compiler may swallow or wrap it; the deadline is also checked at every stage boundary and consulted
    # when an error comes out, so the limit holds in any pool.
    deadline = time.monotonic() + s.soft_time_limit
    timeout_msg = f"the compile ran over the time limit of {s.soft_time_limit:g} s"
    try:
        return _run(job, attempt, beat, deadline)
    except (Cancelled, Superseded) as e:
        log.info("job %s attempt %d stopped: %s", job_id, attempt, type(e).__name__)
        return type(e).__name__.lower()
    except SoftTimeLimitExceeded:
        _fail(job_id, attempt, "timeout", timeout_msg)
        return "failed"
    except CompilerError as e:
        if time.monotonic() >= deadline:
            _fail(job_id, attempt, "timeout", f"{timeout_msg} (then: {e.one_line()})")
        else:
            _fail(job_id, attempt, e.category, e.one_line())
        return "failed"
    except (OperationalError, OSError) as e:
        return _retry_later(job, attempt, e)
    except Exception as e:  # noqa: BLE001 - a bug in the compiler: deterministic, so never retried
        if time.monotonic() >= deadline:
            _fail(job_id, attempt, "timeout", f"{timeout_msg} (then: {type(e).__name__}: {e})")
            return "failed"
        log.exception("job %s: internal error", job_id)
        _fail(job_id, attempt, "internal", f"internal error: {type(e).__name__}: {e}")
        return "failed"
    finally:
        beat.done.set()


def _fail(job_id: str, attempt: int, category: str, message: str) -> None:
    """Records the failure. Celery's soft time limit arrives as a signal that raises SoftTimeLimitExceeded
    wherever the task is: if it lands while the failure is being written (the stage-boundary check may have
    seen the deadline first), the write is rolled back and done again. The signal fires once per task."""
    for tries_left in (2, 1, 0):
        try:
            with session_scope() as session:
                crud.finish_failed(session=session, job_id=job_id, attempt=attempt, category=category,
                                   message=message)
            return
        except SoftTimeLimitExceeded:
            if not tries_left:
                raise


def _retry_later(job, attempt: int, err: BaseException) -> str:
    """Infrastructure fault: the job goes back to the queue with backoff, or fails after max attempts."""
    s = get_settings()
    msg = f"infrastructure fault on attempt {attempt}: {type(err).__name__}: {err}"
    log.warning("job %s: %s", job.id, msg)
    try:
        if attempt >= s.max_attempts:
            _fail(job.id, attempt, "too_many_attempts", f"gave up after {attempt} attempts; last: {msg}")
            return "failed"
        with session_scope() as session:
            if not crud.back_to_queue(session=session, job_id=job.id, attempt=attempt, message=msg):
                return "superseded"
        from service.queueing import enqueue
        enqueue(job.id, job.queue, countdown=s.retry_backoff * 2 ** (attempt - 1))
        return "retrying"
    except Exception as e:  # noqa: BLE001 - the database itself is gone: the reconciler recovers the job
        log.error("job %s: could not requeue (%s); the reconciler will", job.id, e)
        return "lost"


def _run(job, attempt: int, beat: Heartbeat, deadline: float) -> str:
    from compiler.pipeline import CompileOptions, compile as compile_model
    from compiler.targets import get_target
    from kernel_cache import KernelStore
    from service.model_info import upload_limits

    s = get_settings()
    model_path = blob_path(s.store_root, job.model_sha256)
    if not model_path.exists():
        raise CompilerError("the model's bytes are no longer in the store", hint="upload the model again")
    target = get_target(job.target_spec)
    opts = job.options or {}
    options = CompileOptions(input_shapes=tuple(sorted((n, tuple(d)) for n, d in
                                                       (opts.get("input_shapes") or {}).items())),
                             precision=opts.get("precision", "fp32"), disable=tuple(opts.get("disable") or ()),
                             max_trip_count=opts.get("max_trip_count"), verify=opts.get("verify"),
                             kv_cache=opts.get("kv_cache", "copy"))
    seconds: dict[str, float] = {}
    last = [time.perf_counter()]

    def progress(done: str, frac: float) -> None:
        now = time.perf_counter()
        seconds[done] = round(now - last[0], 4)
        last[0] = now
        nxt = STAGES[STAGES.index(done) + 1] if done in STAGES and done != STAGES[-1] else None
        if beat.lost:
            raise _why_not_mine(job.id)
        if time.monotonic() >= deadline:
            raise SoftTimeLimitExceeded()
        with session_scope() as session:
            ok = crud.record_progress(session=session, job_id=job.id, attempt=attempt, stage=nxt,
                                      progress=round(min(frac, 0.99), 4), stage_seconds=dict(seconds))
        if not ok:
            raise _why_not_mine(job.id)

    # the model is a blob among other owners' blobs: external data it names is read only from the
    # members of its own archive, never from a file beside it
    limits = upload_limits(s.max_upload_bytes)
    artifact = compile_model(str(model_path), target, options, store=KernelStore(s.store_root), progress=progress,
                             limits=limits, name=_model_name(job))
    values = _store_artifact(artifact, s)
    kernels = _kernel_rows(artifact, s)
    with session_scope() as session:
        if not crud.finish_succeeded(session=session, job_id=job.id, attempt=attempt, values=values):
            raise _why_not_mine(job.id)
        crud.record_kernels(session=session, job_id=job.id, kernels=kernels)
    log.info("job %s attempt %d: succeeded in %.2f s", job.id, attempt, values["compile_seconds"])
    return "succeeded"


def _model_name(job) -> str | None:
    """The uploaded model's name (the store names its file by digest), if the model still exists."""
    from service.models import Model
    if job.model_id is None:
        return None
    with session_scope() as session:
        m = session.get(Model, job.model_id)
        return m.name if m is not None else None


def _store_artifact(artifact, s) -> dict:
    """Saves the artifact into the store with report.json and report.html. The artifact is kept as three
    blobs — head, weights, tail — and a composite record naming them under the sha256 of the whole file
    (what the download serves). The weights blob is named by its own digest, so every artifact of one
    model shares it, and it is written only when the store lacks it (docs/artifact.md)."""
    from compiler.report import report_html
    root = s.store_root
    whole, weights = hashlib.sha256(), hashlib.sha256()  # `whole` is fed in the file's order
    with BlobWriter(root, s.tmp_dir, also=(whole,)) as head:
        parts = artifact.write_head(head)
        head_sha = head.finish()
    artifact.write_weights(HashSink(weights, whole))
    whole.update(parts.tail)
    weights_sha = weights.hexdigest()
    if not blob_path(root, weights_sha).exists():
        with BlobWriter(root, s.tmp_dir) as out:
            artifact.write_weights(out)
            if out.finish() != weights_sha:
                raise RuntimeError("the artifact's weights changed while they were being stored")
    digest, size = whole.hexdigest(), parts.total_bytes
    put_composite(root, digest, [head_sha, weights_sha, put_bytes(root, parts.tail)], size)
    report = artifact.report
    report_sha = put_bytes(s.store_root, json.dumps(report, indent=1, sort_keys=True).encode())
    html_sha = put_bytes(s.store_root, report_html(report).encode())
    compile_info = report.get("compile", {})
    return {"artifact_sha256": digest, "artifact_size": size, "report_sha256": report_sha,
            "report_html_sha256": html_sha, "compile_seconds": float(compile_info.get("seconds", 0.0)),
            "stage_seconds": {st["name"]: round(st["seconds"], 4) for st in compile_info.get("stages", [])},
            "kernel_hits": int(compile_info.get("cache", {}).get("hits", 0)),
            "kernel_misses": int(compile_info.get("cache", {}).get("misses", 0))}


def _kernel_rows(artifact, s) -> list[dict]:
    """One row per distinct kernel: its source (and cubin) as blobs, ptxas's numbers from the report."""
    arch = artifact.header.get("target", {}).get("arch", "")
    by_digest = {k["digest"]: k for k in artifact.report.get("kernels", [])}
    rows = {}
    for k in artifact.plan.kernels():
        if k.digest in rows:
            continue
        r = by_digest.get(k.digest, {})
        cubin = artifact.cubins.get(k.digest)
        rows[k.digest] = dict(
            digest=k.digest, arch=arch, name=k.entry, ops=list(k.ops),
            meta={key: r.get(key) for key in ("grid", "block", "shared_bytes", "registers", "spills", "config",
                                              "predicted_us")},
            source_sha256=put_bytes(s.store_root, k.source.encode()),
            cubin_sha256=put_bytes(s.store_root, cubin) if cubin else None)
    return list(rows.values())
