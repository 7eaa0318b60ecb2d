"""First start: folders, tables, and the admin token (printed once, written to $BRICKYARD_HOME/admin-token)."""
from __future__ import annotations

import os
import sys

from service import crud
from service.db import init_db, new_session
from service.settings import Settings


def bootstrap(settings: Settings) -> str | None:
    """Prepares home and the database; returns the admin token if this call created it."""
    settings.ensure_dirs()
    init_db()
    session = new_session()
    try:
        token = crud.ensure_admin(session=session)
    finally:
        session.close()
    if token is None:
        return None
    path = settings.admin_token_file
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    os.chmod(path, 0o600)
    print(f"\nBrickyard: created the admin API token (shown once; also in {path}, mode 0600):\n\n    {token}\n",
          file=sys.stderr, flush=True)
    return token
