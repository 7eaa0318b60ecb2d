"""Alembic's environment: the service's database and its tables (service/models.py).

The URL is the service's (BRICKYARD_DATABASE_URL, or SQLite under BRICKYARD_HOME) unless a caller passes a
connection in `config.attributes["connection"]` (service/db.py init_db does, holding its migration lock)."""
from __future__ import annotations

from alembic import context

from service.models import Base

config = context.config
if config.config_file_name:  # the `alembic` command with alembic.ini: its logging (the service has its own)
    from logging.config import fileConfig
    fileConfig(config.config_file_name, disable_existing_loggers=False)
target_metadata = Base.metadata


def _configure(**kw) -> None:
    context.configure(target_metadata=target_metadata, compare_type=True,
                      render_as_batch=True,  # SQLite alters tables by copying them
                      **kw)


def run_offline() -> None:
    from service.settings import get_settings
    _configure(url=config.get_main_option("sqlalchemy.url") or get_settings().db_url, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    conn = config.attributes.get("connection")
    if conn is not None:
        _configure(connection=conn)
        with context.begin_transaction():
            context.run_migrations()
        return
    from service.db import make_engine
    from service.settings import get_settings
    engine = make_engine(config.get_main_option("sqlalchemy.url") or get_settings().db_url)
    try:
        with engine.connect() as connection:
            _configure(connection=connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
