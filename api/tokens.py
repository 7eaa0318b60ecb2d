"""`python -m api.tokens create NAME`: a new API token for owner NAME (created if new), printed once.
`python -m api.tokens list`: owners and how many live tokens each has."""
from __future__ import annotations

import argparse
import sys

from sqlalchemy import func, select

from . import crud
from .db import init_db, session_scope
from .models import Owner, Token
from .settings import get_settings


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m api.tokens", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("create", help="create a token (and the owner if new); prints the token")
    c.add_argument("name")
    c.add_argument("--admin", action="store_true", help="a new owner is an admin")
    sub.add_parser("list", help="owners and their live token counts")
    a = p.parse_args(argv)

    get_settings().ensure_dirs()
    init_db()
    with session_scope() as session:
        if a.cmd == "create":
            name = a.name.strip()
            if not name:
                print("brickyard: error: the owner name is empty", file=sys.stderr)
                return 2
            owner = crud.get_owner_by_name(session=session, name=name) or \
                crud.create_owner(session=session, name=name, is_admin=a.admin)
            print(crud.create_token(session=session, owner=owner))
        else:
            rows = session.execute(select(Owner.name, Owner.is_admin, func.count(Token.id))
                                   .outerjoin(Token, (Token.owner_id == Owner.id) & Token.revoked.is_(False))
                                   .group_by(Owner.id).order_by(Owner.name)).all()
            for name, admin, n in rows:
                print(f"{name}\t{'admin' if admin else 'user'}\t{n} token(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
