"""Real Redis and PostgreSQL servers for tests/service: started on loopback, free ports, temporary data
folders, stopped at the end. The binaries are Debian's (`apt-get install redis-server postgresql`, which
.ci/run does); without them `missing()` says which is absent and the tests that need them skip."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin(name: str) -> str | None:
    """Debian keeps the server binaries in /usr/lib/postgresql/<version>/bin, off PATH."""
    found = shutil.which(name)
    if found:
        return found
    cands = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4])
                   if p.split("/")[4].isdigit() else 0)
    return cands[-1] if cands else None


def missing() -> str | None:
    """Why the servers cannot run here, or None."""
    need = []
    if not shutil.which("redis-server"):
        need.append("redis-server")
    if not (_pg_bin("postgres") and _pg_bin("initdb") and _pg_bin("pg_ctl")):
        need.append("postgres/initdb/pg_ctl")
    elif os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            need.append("a 'postgres' user (PostgreSQL refuses to run as root)")
    if need:
        return f"{' and '.join(need)} not found: apt-get install redis-server postgresql (.ci/run does)"
    return None


def _wait_port(port: int, proc: subprocess.Popen, what: str, log: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout} s")


class RedisServer:
    """redis-server on 127.0.0.1:<free port>, no persistence, its folder under /tmp."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="brickyard-redis-"))
        self.port = free_port()
        self.log = self.dir / "redis.log"
        self.proc: subprocess.Popen | None = None
        self._next_db = 0

    def start(self) -> "RedisServer":
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
                 "--appendonly", "no", "--dir", str(self.dir), "--protected-mode", "yes", "--databases", "16"],
                stdout=log, stderr=subprocess.STDOUT)
        _wait_port(self.port, self.proc, "redis-server", self.log)
        return self

    def url(self) -> str:
        """A fresh logical database per caller (0..15), so services never see each other's queues."""
        db, self._next_db = self._next_db, self._next_db + 1
        return f"redis://127.0.0.1:{self.port}/{db % 16}"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class PostgresServer:
    """A throwaway cluster (initdb, trust auth, fsync off) on 127.0.0.1:<free port>; as root it runs as the
    `postgres` user, which owns its data folder."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="brickyard-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.log = self.dir / "postgres.log"
        self.as_user: list[str] = []
        self.started = False
        self._n = 0

    def _run(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run([*self.as_user, *args], check=True, capture_output=True, text=True, **kw)

    def start(self) -> "PostgresServer":
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run(_pg_bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-instructions")
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off "
                f"-c synchronous_commit=off -c full_page_writes=off -c max_connections=200 "
                f"-c shared_buffers=32MB")
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", opts, "-w", "-t", "60",
                  "start")
        self.started = True
        return self

    def create_database(self) -> str:
        """A new empty database; returns its SQLAlchemy URL (psycopg 3)."""
        import psycopg
        self._n += 1
        name = f"brickyard{self._n}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        if self.started:
            try:
                self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "-t", "30", "stop")
            except subprocess.CalledProcessError:
                pass
            self.started = False
        shutil.rmtree(self.dir, ignore_errors=True)
