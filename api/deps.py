"""Dependencies of the routes: a database session, the settings, the caller's owner (bearer token)."""
from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy.orm import Session

from service import crud
from service.db import session_scope
from service.security import token_digest
from service.settings import Settings, get_settings


def get_session() -> Iterator[Session]:
    """The request's session: committed when the route returns, rolled back on an error."""
    with session_scope() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


@dataclass(frozen=True)
class Caller:
    """Who sent the request: the owner of its token (a plain value, shared by requests)."""

    id: str
    name: str
    is_admin: bool


# token sha256 -> (monotonic expiry, caller). Tokens are 256-bit random, so only valid ones are kept;
# a token revoked in another process keeps working here for at most token_cache_seconds.
_callers: dict[str, tuple[float, Caller]] = {}
_CALLERS_MAX = 10_000


def _lookup(token: str) -> Caller | None:
    ttl = get_settings().token_cache_seconds
    key = token_digest(token)
    hit = _callers.get(key)
    now = time.monotonic()
    if hit is not None and hit[0] > now:
        return hit[1]
    with session_scope() as session:
        owner = crud.owner_for_digest(session=session, digest=key)
        caller = Caller(owner.id, owner.name, bool(owner.is_admin)) if owner is not None else None
    if caller is None:
        _callers.pop(key, None)
    elif ttl > 0:
        if len(_callers) >= _CALLERS_MAX:
            _callers.clear()
        _callers[key] = (now + ttl, caller)
    return caller


def current_owner(request: Request) -> Caller:
    """The owner of the request's bearer token; 401 without a valid one.

    Looked up in a session of its own, closed at once (a long request, a 1 GiB upload, holds no database
    connection while it streams), and remembered for BRICKYARD_TOKEN_CACHE_SECONDS."""
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(401, "missing API token: send 'Authorization: Bearer <token>'",
                            headers={"WWW-Authenticate": "Bearer"})
    caller = _lookup(token.strip())
    if caller is None:
        raise HTTPException(401, "invalid or revoked API token", headers={"WWW-Authenticate": "Bearer"})
    return caller


CurrentOwner = Annotated[Caller, Depends(current_owner)]
