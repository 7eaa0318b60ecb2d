"""The Celery app: explicit queues (one per GPU architecture, plus `cpu`), late acks, prefetch 1.

Broker: BRICKYARD_BROKER, or the embedded queue (folders under $BRICKYARD_HOME/queue). Celery keeps no
results: the job's state lives in our database. The API publishes by task name (service/queueing.py); the
worker registers the tasks under those names and loads its task modules (`python -m worker`)."""
from __future__ import annotations

from celery import Celery
from kombu import Exchange, Queue

from compiler.targets import SUPPORTED_ARCHS

from .settings import get_settings

CPU_QUEUE = "cpu"
ALL_QUEUES = (CPU_QUEUE,) + SUPPORTED_ARCHS

# The names the worker's tasks are registered under (worker/tasks.py, worker/fetch.py). Messages carry
# them: a rename strands the messages already queued.
COMPILE_TASK = "brickyard.compile"
FETCH_TASK = "brickyard.fetch_model"


def queue_for_arch(arch: str) -> str:
    """GPU workers of an arch exist (BRICKYARD_GPU_ARCHS): its queue; otherwise cross-compile on `cpu`."""
    return arch if arch in get_settings().gpu_arch_set else CPU_QUEUE


def fetch_soft_time_limit() -> float:
    """The fetch task's soft time limit: over before its lease lapses."""
    s = get_settings()
    return min(s.fetch_timeout + 60.0, s.fetch_lease_seconds - 5.0)


def make_celery() -> Celery:
    """The app, configured from the service settings."""
    s = get_settings()
    app = Celery("brickyard")
    conf = dict(
        task_queues=[Queue(q, Exchange(q, type="direct"), routing_key=q) for q in ALL_QUEUES],
        task_default_queue=CPU_QUEUE,
        task_create_missing_queues=False,
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=s.soft_time_limit,
        task_time_limit=s.hard_time_limit,
        worker_send_task_events=False,
        task_send_sent_event=False,
        worker_hijack_root_logger=False,
        broker_connection_retry_on_startup=True,
        broker_connection_timeout=5,
    )
    if s.embedded_broker:  # the folders are made by bootstrap (API) and `python -m worker`
        msgs = str(s.queue_dir / "messages")
        conf.update(broker_url="filesystem://", broker_transport="service.fs_transport:Transport",
                    broker_transport_options={"data_folder_in": msgs, "data_folder_out": msgs,
                                              "claimed_folder": str(s.queue_dir / "claimed"),
                                              "control_folder": str(s.queue_dir / "control"),
                                              "polling_interval": s.poll_interval},
                    worker_enable_remote_control=False)
    else:
        conf.update(broker_url=s.broker,
                    # an unacked message comes back after this long: longer than any compile may run
                    broker_transport_options={"visibility_timeout": s.hard_time_limit + 600})
    app.conf.update(conf)
    return app


app = make_celery()
