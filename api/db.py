"""Database engine and sessions: SQLite (WAL, busy timeout) by default, any SQLAlchemy URL otherwise.

The engine is made lazily per process, so a forked worker child never shares its parent's connections."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from .settings import get_settings

_engines: dict[tuple[int, str], Engine] = {}


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite gets WAL (readers never block the writer) and a 30 s busy timeout."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(conn, _record):
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()
        return engine
    return create_engine(url, pool_pre_ping=True)


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
    return sessionmaker(bind=get_engine(), expire_on_commit=False)()


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


def init_db() -> None:
    """Creates the tables that do not exist yet."""
    from .models import Base
    Base.metadata.create_all(get_engine())


def ping() -> None:
    """Raises if the database cannot answer a trivial query."""
    with get_engine().connect() as conn:
        conn.execute(text("SELECT 1"))
