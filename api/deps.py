"""Dependencies of the routes: a database session, the settings, the caller's owner (bearer token)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy.orm import Session

from . import crud
from .db import session_scope
from .models import Owner
from .settings import Settings, get_settings


def get_session() -> Iterator[Session]:
    """The request's session: committed when the route returns, rolled back on an error."""
    with session_scope() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


def current_owner(request: Request) -> Owner:
    """The owner of the request's bearer token; 401 without a valid one.

    Looked up in a session of its own, closed at once: a long request (a 1 GiB upload) holds no database
    connection while it streams."""
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HTTPException(401, "missing API token: send 'Authorization: Bearer <token>'",
                            headers={"WWW-Authenticate": "Bearer"})
    with session_scope() as session:
        owner = crud.owner_for_token(session=session, token=token.strip())
        if owner is not None:
            session.expunge(owner)
    if owner is None:
        raise HTTPException(401, "invalid or revoked API token", headers={"WWW-Authenticate": "Bearer"})
    return owner


CurrentOwner = Annotated[Owner, Depends(current_owner)]
