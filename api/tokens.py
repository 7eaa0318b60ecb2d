"""`python -m api.tokens create NAME`: a new API token for owner NAME (created if new), printed once.
`python -m api.tokens list`: owners and how many live tokens each has.
`python -m api.tokens revoke TOKEN` (one token, read from stdin with `-`) or `revoke --owner NAME` (all of
an owner's tokens): refused from then on; an API process that saw the token within the last
BRICKYARD_TOKEN_CACHE_SECONDS (default 5) may still accept it until that time has passed."""
from __future__ import annotations

import argparse
import sys

from sqlalchemy import func, select, update

from service import crud
from service.db import init_db, session_scope
from service.models import Owner, Token
from service.security import token_digest
from service.settings import get_settings


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m api.tokens", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("create", help="create a token (and the owner if new); prints the token")
    c.add_argument("name")
    c.add_argument("--admin", action="store_true", help="a new owner is an admin")
    sub.add_parser("list", help="owners and their live token counts")
    r = sub.add_parser("revoke", help="revoke one token (its value, or - to read it from stdin) or an owner's")
    r.add_argument("token", nargs="?")
    r.add_argument("--owner", help="revoke every token of this owner")
    a = p.parse_args(argv)
    if a.cmd == "revoke" and (a.token is None) == (a.owner is None):
        p.error("revoke takes a token or --owner NAME, not both")

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
        elif a.cmd == "revoke":
            return _revoke(session, a)
        else:
            rows = session.execute(select(Owner.name, Owner.is_admin, func.count(Token.id))
                                   .outerjoin(Token, (Token.owner_id == Owner.id) & Token.revoked.is_(False))
                                   .group_by(Owner.id).order_by(Owner.name)).all()
            for name, admin, n in rows:
                print(f"{name}\t{'admin' if admin else 'user'}\t{n} token(s)")
    return 0


def _revoke(session, a) -> int:
    if a.owner is not None:
        owner = crud.get_owner_by_name(session=session, name=a.owner.strip())
        if owner is None:
            print(f"brickyard: error: no owner named '{a.owner}'", file=sys.stderr)
            return 2
        cond = (Token.owner_id == owner.id,)
    else:
        value = (sys.stdin.readline() if a.token == "-" else a.token).strip()
        cond = (Token.token_sha256 == token_digest(value),)
    n = session.execute(update(Token).where(*cond, Token.revoked.is_(False)).values(revoked=True)).rowcount
    if n == 0 and a.owner is None:
        print("brickyard: error: no live token has that value", file=sys.stderr)
        return 2
    print(f"revoked {n} token(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
