"""`python -m api.serve`: the embedded service, no external services. uvicorn on 127.0.0.1:$BRICKYARD_PORT
in this process, and one Celery worker (`python -m worker`) as a supervised child process, with SQLite and
the filesystem queue under $BRICKYARD_HOME. Ctrl-C or SIGTERM stops both: the worker gets
BRICKYARD_WORKER_SHUTDOWN_GRACE seconds to finish its job, then is killed (its job resumes on the next start)."""
from __future__ import annotations

import argparse
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
import time

log = logging.getLogger("brickyard.serve")


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM it if this process dies (Linux), so no worker is orphaned."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class WorkerSupervisor(threading.Thread):
    """Starts the worker, restarts it if it dies (backoff up to 30 s), stops it on request.

    The same thread starts every worker: PR_SET_PDEATHSIG fires when the creating thread exits."""

    def __init__(self, cmd: list[str], env: dict, pidfile, grace: float):
        super().__init__(name="worker-supervisor", daemon=True)
        self.cmd, self.env, self.pidfile, self.grace = cmd, env, pidfile, grace
        self.proc: subprocess.Popen | None = None
        self.stopping = threading.Event()
        self.stopped = threading.Event()

    def run(self):
        backoff = 1.0
        while not self.stopping.is_set():
            started = time.monotonic()
            self.proc = subprocess.Popen(self.cmd, env=self.env, start_new_session=True, preexec_fn=_die_with_parent)
            self.pidfile.write_text(f"{self.proc.pid}\n")
            while self.proc.poll() is None and not self.stopping.is_set():
                time.sleep(0.2)
            if self.stopping.is_set():
                self._stop_child()
                break
            code = self.proc.returncode
            backoff = 1.0 if time.monotonic() - started > 60 else min(backoff * 2, 30.0)
            log.warning("worker exited (%s); restarting in %.0f s", code, backoff)
            print(f"brickyard: worker exited ({code}); restarting in {backoff:.0f} s", file=sys.stderr, flush=True)
            self.stopping.wait(backoff)
        self.pidfile.unlink(missing_ok=True)
        self.stopped.set()

    def _stop_child(self):
        p = self.proc
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGTERM)  # Celery's warm shutdown: finish the running task, take no new one
        try:
            p.wait(self.grace)
        except subprocess.TimeoutExpired:
            print(f"brickyard: the worker did not stop within {self.grace:g} s; killing it (a job it was "
                  f"running resumes on the next start)", file=sys.stderr, flush=True)
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the worker and its pool child, whatever is left
        except ProcessLookupError:
            pass
        p.wait()

    def stop(self):
        self.stopping.set()
        self.stopped.wait(self.grace + 15)


def main(argv: list[str] | None = None) -> int:
    """Runs the embedded service until Ctrl-C or SIGTERM."""
    p = argparse.ArgumentParser(prog="python -m api.serve", description=__doc__.split("\n\n")[0])
    p.add_argument("--host", help="default $BRICKYARD_HOST or 127.0.0.1")
    p.add_argument("--port", type=int, help="default $BRICKYARD_PORT or 8000")
    p.add_argument("--no-worker", action="store_true", help="the API only (workers run elsewhere)")
    p.add_argument("--log-level", default=os.environ.get("BRICKYARD_LOGLEVEL", "info").lower())
    a = p.parse_args(argv)
    logging.basicConfig(level=a.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    import uvicorn

    from .bootstrap import bootstrap
    from service.settings import get_settings

    settings = get_settings()
    bootstrap(settings)
    host, port = a.host or settings.host, a.port or settings.port

    stop_requested = threading.Event()

    def on_signal(signum, _frame):  # uvicorn re-raises the signal it caught once it has shut down
        stop_requested.set()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)

    supervisor = None
    if not a.no_worker:
        env = dict(os.environ, BRICKYARD_HOME=str(settings.home))
        supervisor = WorkerSupervisor([sys.executable, "-m", "worker", "--loglevel", a.log_level.upper()], env,
                                      settings.home / "run" / "worker.pid", settings.worker_shutdown_grace)
        supervisor.start()
    from .lingering import protocol_class  # a 413 before the body ended still reaches the client
    config = uvicorn.Config("api.main:create_app", factory=True, host=host, port=port, log_level=a.log_level,
                            lifespan="on", timeout_graceful_shutdown=5, http=protocol_class())
    server = uvicorn.Server(config)
    print(f"brickyard: serving on http://{host}:{port} (API docs at /docs); home {settings.home}",
          file=sys.stderr, flush=True)
    try:
        server.run()
    finally:
        if supervisor is not None:
            supervisor.stop()
    return 0 if server.started else 1


if __name__ == "__main__":
    sys.exit(main())
