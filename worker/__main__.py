"""`python -m worker`: one Celery worker for Brickyard's queues.

Default (no GPU): consumes every queue (`cpu` and each `sm_XX`), prefork with one child so Celery's time
limits apply. `--gpu`: reads this machine's GPU architecture and consumes only its queue, `--pool=solo`
(CUDA does not survive fork); start one such worker per GPU with CUDA_VISIBLE_DEVICES set."""
from __future__ import annotations

import argparse
import os
import socket
import sys

# the modules that register the worker's tasks and signal handlers on the shared app (Celery's `include`:
# imported when the worker starts, before the pool's children fork)
TASK_MODULES = ["worker.tasks", "worker.fetch", "worker.presence"]


def gpu_arch(device: int = 0) -> str:
    """The compute capability of CUDA device `device` as an arch name (sm_90); exits if there is none."""
    try:
        from cuda.bindings import driver
        (err,) = driver.cuInit(0)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuInit: {err.name}")
        err, dev = driver.cuDeviceGet(device)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuDeviceGet: {err.name}")
        attr = driver.CUdevice_attribute
        _, major = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
        _, minor = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
    except Exception as e:  # noqa: BLE001 - no driver, no device: say so and stop
        raise SystemExit(f"brickyard worker: --gpu needs a CUDA GPU ({e})") from None
    return f"sm_{major}{minor}"


def main(argv: list[str] | None = None) -> int:
    """Parses the worker's options and runs Celery's worker in this process."""
    p = argparse.ArgumentParser(prog="python -m worker", description=__doc__.split("\n\n")[0])
    p.add_argument("--gpu", action="store_true", help="serve this machine's GPU architecture queue (solo pool)")
    p.add_argument("--queues", help="comma-separated queues (default: all, or the GPU's with --gpu)")
    p.add_argument("--also-cpu", action="store_true", help="with --gpu: also take cross-compilation jobs")
    p.add_argument("--pool", choices=("prefork", "solo"),
                   help="prefork (default: the job runs in a child that a hard time limit can kill) or solo "
                        "(in this process; the default with --gpu, as CUDA does not survive fork)")
    p.add_argument("--loglevel", default=os.environ.get("BRICKYARD_LOGLEVEL", "INFO"))
    a = p.parse_args(argv)

    from service.celery_app import ALL_QUEUES, app
    from service.db import get_engine, init_db
    from service.settings import get_settings
    app.conf.include = TASK_MODULES

    settings = get_settings()
    settings.ensure_dirs()
    init_db()
    get_engine().dispose()  # no connection of this process crosses into the forked pool child
    if a.queues:
        queues = [q.strip() for q in a.queues.split(",") if q.strip()]
        unknown = set(queues) - set(ALL_QUEUES)
        if unknown:
            raise SystemExit(f"brickyard worker: unknown queues {sorted(unknown)}; known: {', '.join(ALL_QUEUES)}")
    elif a.gpu:
        queues = [gpu_arch()] + (["cpu"] if a.also_cpu else [])
    else:
        queues = list(ALL_QUEUES)
    pool_kind = a.pool or ("solo" if a.gpu else "prefork")
    pool = ["--pool=solo"] if pool_kind == "solo" else ["--pool=prefork", "--concurrency=1"]
    name = f"brickyard-{os.getpid()}@{socket.gethostname()}"
    app.worker_main(["worker", "-Q", ",".join(queues), *pool, "-n", name, "--loglevel", a.loglevel,
                     "--without-mingle", "--without-gossip", "--without-heartbeat"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
