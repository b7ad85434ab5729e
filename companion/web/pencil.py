"""The pencil this phone holds: the cookie that carries a match's scorekeeper token, read and written here alone."""

from __future__ import annotations

from flask import request

from ..models import Match
from ..queries import matches as queries
from .headers import YEAR

# One cookie per match, so a phone may keep the score of several tables (a club's evening).
PENCIL_COOKIE = "pencil_{}"


def pencil_token(match_id: int) -> str | None:
    """The token this phone keeps for a match: its pencil, or a pencil it once held (None if it never did)."""
    return request.cookies.get(PENCIL_COOKIE.format(match_id))


def is_scorekeeper(match: Match) -> bool:
    """Whether this device holds the match's pencil."""
    return queries.token_matches(match, pencil_token(match.id))


def is_owner(match: Match) -> bool:
    """Whether this phone started the match (it may take the pencil back)."""
    return queries.is_owner(match, pencil_token(match.id))


def set_pencil_cookie(response, match: Match, token: str):
    """Store a match's scorekeeper token on this device."""
    response.set_cookie(PENCIL_COOKIE.format(match.id), token, max_age=YEAR, httponly=True, samesite="Lax")
    return response
