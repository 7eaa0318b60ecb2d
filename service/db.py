"""Database engine and sessions: SQLite (WAL, busy timeout) by default, any SQLAlchemy URL otherwise.

The engine is made lazily per process, so a forked worker child never shares its parent's connections."""
from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from .settings import get_settings

_engines: dict[tuple[int, str], Engine] = {}


# as many connections as the API's threadpool (40) can ask for at once, plus the reconciler and SSE polls
POOL = {"pool_size": 10, "max_overflow": 40, "pool_timeout": 30}


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite gets WAL (readers never block the writer) and a 30 s busy timeout."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, **POOL)

        @event.listens_for(engine, "connect")
        def _pragmas(conn, _record):
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()
        return engine
    return create_engine(url, pool_pre_ping=True, **POOL)


def get_engine() -> Engine:
    """This process's engine for the configured database."""
    url = get_settings().db_url
    key = (os.getpid(), url)
    engine = _engines.get(key)
    if engine is None:
        engine = _engines[key] = make_engine(url)
    return engine


def new_session() -> Session:
    """A session on this process's engine (objects stay readable after commit)."""
    return _session_factory(get_engine())()


@functools.lru_cache(maxsize=8)
def _session_factory(engine: Engine) -> sessionmaker:
    # one factory per engine: sessionmaker() builds a Session subclass, whose event set-up is costly
    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def session_scope() -> Iterator[Session]:
    """A session committed on success, rolled back on error, always closed."""
    session = new_session()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


MIGRATION_LOCK = 0x6272696B  # PostgreSQL advisory lock id held while migrating ("brik")


def alembic_config():
    """Alembic's config for this repository's migrations (service/migrations), independent of the cwd."""
    from pathlib import Path

    from alembic.config import Config
    root = Path(__file__).resolve().parent
    cfg = Config()
    cfg.set_main_option("script_location", str(root / "migrations"))
    cfg.set_main_option("path_separator", "os")
    return cfg


def init_db() -> None:
    """Brings the schema to the newest migration (`alembic upgrade head`), once even if several processes
    start together: PostgreSQL serializes them with an advisory lock, SQLite with a file lock next to the
    database. A database made by create_all before migrations existed is stamped as the initial revision."""
    import contextlib
    import fcntl

    from alembic import command
    from sqlalchemy import inspect

    engine = get_engine()
    settings = get_settings()
    with contextlib.ExitStack() as stack:
        if engine.dialect.name == "sqlite":
            settings.home.mkdir(parents=True, exist_ok=True)
            lock = stack.enter_context(open(settings.home / ".migrate.lock", "a"))
            fcntl.flock(lock, fcntl.LOCK_EX)
        conn = stack.enter_context(engine.connect())
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK})
            conn.commit()
            stack.callback(lambda: (conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK}),
                                    conn.commit()))
        cfg = alembic_config()
        cfg.attributes["connection"] = conn
        tables = set(inspect(conn).get_table_names())
        conn.commit()
        if "alembic_version" not in tables and "compilations" in tables:
            command.stamp(cfg, "0001")  # made by create_all: the same tables as the initial migration
        command.upgrade(cfg, "head")
        conn.commit()


def ping() -> None:
    """Raises if the database cannot answer a trivial query."""
    with get_engine().connect() as conn:
        conn.execute(text("SELECT 1"))
