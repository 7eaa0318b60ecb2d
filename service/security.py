"""API tokens: 256-bit random values shown once; the database keeps only their sha256."""
from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "bky_"


def new_token() -> str:
    """A fresh token value (43 url-safe characters of randomness after the prefix)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What the database stores for a token: a plain sha256 suffices for high-entropy secrets."""
    return hashlib.sha256(token.encode()).hexdigest()
