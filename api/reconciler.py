"""The reconciler: makes the database's queued and running jobs match what workers actually do.

Rules (run at API start and every BRICKYARD_RECONCILE_INTERVAL seconds; every action is a conditional
update, so several API processes may run it at once):
- a `running` job whose heartbeat is older than BRICKYARD_HEARTBEAT_TIMEOUT lost its worker (killed,
  machine gone, service stopped mid-compile): it goes back to `queued` and is enqueued again;
- a `queued` job eligible for longer than BRICKYARD_QUEUED_GRACE with no message for its current task id
  in the broker (publish failed, message lost with a worker, Redis restarted without persistence) is
  enqueued again. The embedded queue and Redis are inspected (message files; Redis's queue lists and its
  `unacked` hash); a message held unacked by a worker counts as live for BRICKYARD_REQUEUE_QUEUED_AFTER
  seconds, and a broker that cannot be inspected gets that rule for every queued job;
- a CI build whose model fetch lost its worker (lease lapsed) or its message (unclaimed for
  BRICKYARD_REQUEUE_QUEUED_AFTER) is fetched again, up to BRICKYARD_FETCH_MAX_ATTEMPTS, then failed;
- a commit whose verdict is in but was not yet delivered to its project's callback URL (or whose receiver
  was down) is delivered, up to BRICKYARD_CALLBACK_MAX_ATTEMPTS, one lease (BRICKYARD_CALLBACK_LEASE) apart.
A duplicate message is harmless: the task claims a job only from `queued` (or from a silent `running`)."""
from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import logging

from service import crud
from service.db import session_scope
from service.models import utcnow
from service.projects import deliver_verdict, recover_lapsed_fetches, undelivered_verdicts
from service.settings import get_settings

log = logging.getLogger("brickyard.reconciler")


def reconcile_once() -> dict[str, list[str]]:
    """One pass; returns the ids it re-enqueued, by reason."""
    from service.queueing import broker_inspectable, broker_messages, enqueue
    s = get_settings()
    now = utcnow()
    silent_before = now - dt.timedelta(seconds=s.heartbeat_timeout)
    lost = []
    with session_scope() as session:
        for job in crud.stale_running_jobs(session=session, stale_before=silent_before):
            msg = f"worker lost (no heartbeat for {s.heartbeat_timeout:g} s): queued again"
            if crud.back_to_queue(session=session, job_id=job.id, attempt=job.attempts, message=msg,
                                  silent_before=silent_before):
                lost.append((job.id, job.queue))
    for job_id, queue in lost:
        enqueue(job_id, queue)

    # queued jobs whose message is gone. The broker is read after the jobs, so a message published
    # meanwhile is seen. A message a worker holds unacked (a retry's countdown, or a worker that died
    # holding it, which Redis only hands back after visibility_timeout) counts as live for up to
    # REQUEUE_QUEUED_AFTER; a broker that cannot be inspected gets that rule for every queued job.
    inspectable = broker_inspectable()
    wait = s.queued_grace if inspectable else s.requeue_queued_after
    with session_scope() as session:
        waiting = [(j.id, j.queue, j.task_id, j.queued_at) for j in
                   crud.waiting_jobs(session=session, queued_before=now - dt.timedelta(seconds=wait))]
    orphans = []
    if waiting:
        view = broker_messages()
        held_too_long = now - dt.timedelta(seconds=s.requeue_queued_after)
        for job_id, queue, task_id, queued_at in waiting:
            if view is not None:
                in_queue, held = view
                if task_id in in_queue or (task_id in held and queued_at >= held_too_long):
                    continue
            if enqueue(job_id, queue, replacing=task_id):
                orphans.append(job_id)
    if lost or orphans:
        log.warning("reconciler: re-enqueued %d lost running and %d orphaned queued jobs", len(lost), len(orphans))

    refetched, fetch_failed = recover_lapsed_fetches(
        now=now, unclaimed_before=now - dt.timedelta(seconds=s.requeue_queued_after))
    if refetched or fetch_failed:
        log.warning("reconciler: fetching %d builds again, %d failed out of attempts", len(refetched),
                    len(fetch_failed))

    with session_scope() as session:
        due = undelivered_verdicts(session=session, since=now - dt.timedelta(days=1))
    for commit_id in due:
        if commit_id not in _delivering:
            _delivering.add(commit_id)
            _deliveries.submit(_deliver, commit_id)
    return {"lost": [j for j, _ in lost], "orphaned": orphans, "refetched": refetched,
            "fetch_failed": fetch_failed, "verdicts_due": due}


# verdict POSTs may wait on a slow receiver: they run beside the reconciler, not in its pass
_deliveries = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="verdict")
_delivering: set[str] = set()


def _deliver(commit_id: str) -> None:
    try:
        deliver_verdict(commit_id)
    except Exception as e:  # noqa: BLE001 - the database or receiver is down: the next pass tries again
        log.warning("verdict of commit %s: %s", commit_id, e)
    finally:
        _delivering.discard(commit_id)


async def reconcile_forever(stop: asyncio.Event) -> None:
    """Runs reconcile_once now and then every interval until `stop` is set; errors are logged, not fatal."""
    s = get_settings()
    while not stop.is_set():
        try:
            await asyncio.to_thread(reconcile_once)
        except Exception as e:  # noqa: BLE001 - the database or broker is down: try again next round
            log.warning("reconciler pass failed: %s", e)
        try:
            await asyncio.wait_for(stop.wait(), timeout=s.reconcile_interval)
        except asyncio.TimeoutError:
            pass
