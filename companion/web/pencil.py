"""The pencils this phone holds: one cookie carrying each match's scorekeeper token, read and written here alone."""

from __future__ import annotations

import hashlib
import re

from flask import Flask, Response, g, request
from sqlalchemy import select

from ..extensions import db
from ..models import GROUP_CHECKED, Match
from ..queries import matches as queries
from . import cookies

# One cookie for every match whose pencil the phone holds (a club's evening: several tables), each token under
# a digest of its match's uid: no cookie's name, nor its value, carries a row id.
PENCIL_COOKIE = "pencil"
# What the previous version set: a cookie per match, named by the match's row id.
PREVIOUS_PENCIL = re.compile(r"pencil_(\d{1,10})")
# How many pencils one phone keeps, the newest: some 60 characters each, well within a cookie's 4 KB.
PENCILS_KEPT = 40
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,100}")


def kept_under(uid: str) -> str:
    """What a match's token is kept under: a digest of its uid (an imported match's uid is any text)."""
    return hashlib.blake2s(uid.encode(), digest_size=6).hexdigest()


def _read(value: str | None) -> dict[str, str]:
    """The pencils a cookie's value carries ("key:token.key:token"); anything unreadable is left out."""
    pencils = {}
    for entry in (value or "").split(".")[-PENCILS_KEPT:]:
        key, _, token = entry.partition(":")
        if re.fullmatch(r"[0-9a-f]{12}", key) and TOKEN.fullmatch(token):
            pencils[key] = token
    return pencils


def _previous_pencils() -> dict[str, str]:
    """The previous version's pencil cookies (one per match id), each kept where its token is still that match's
    pencil or its owner's: a cookie made up, or of a match gone, moves nothing and tells nothing."""
    named = {}
    for name, token in request.cookies.items():
        found = PREVIOUS_PENCIL.fullmatch(name)
        if found and TOKEN.fullmatch(token):
            named[int(found.group(1))] = token
    if not named:
        return {}
    g.pencils_moved = [f"pencil_{match_id}" for match_id in named]
    # Every group's matches: the token, not the group, says whose pencil it is.
    rows = db.session.execute(
        select(Match.id, Match.uid, Match.scorekeeper_hash, Match.owner_hash)
        .where(Match.id.in_(list(named)))
        .execution_options(**{GROUP_CHECKED: True})
    ).all()
    kept = {}
    for row in rows:
        token = named[row.id]
        if queries.same_secret(token, row.scorekeeper_hash) or queries.same_secret(token, row.owner_hash):
            kept[kept_under(row.uid)] = token
    return kept


def _pencils() -> dict[str, str]:
    """This phone's pencils, read once per request (the previous version's cookies moved in)."""
    if "pencils" not in g:
        g.pencils = _read(cookies.get(PENCIL_COOKIE))
        previous = _previous_pencils()
        if previous:
            g.pencils = {**previous, **g.pencils}
            g.pencils_changed = True
    return g.pencils


def pencil_token(match: Match) -> str | None:
    """The token this phone keeps for a match: its pencil, or a pencil it once held (None if it never did)."""
    return _pencils().get(kept_under(match.uid))


def holds_a_token_of(uid: str) -> bool:
    """Whether this phone keeps a token of the match of this uid (a live poll asks before reading the match)."""
    return kept_under(uid) in _pencils()


def holds_a_token_of_any() -> bool:
    """Whether this phone keeps any match's token (else no match's pencil needs looking for)."""
    return bool(_pencils())


def entered(match: Match | None) -> bool:
    """Whether this browser entered rounds of a match: it keeps a token of it (its pencil, one it held, or the one of
    the phone that started it), whichever phone credential it holds now."""
    return match is not None and pencil_token(match) is not None


def is_scorekeeper(match: Match) -> bool:
    """Whether this device holds the match's pencil."""
    return queries.same_secret(pencil_token(match), match.scorekeeper_hash)


def is_owner(match: Match) -> bool:
    """Whether this phone started the match (it may take the pencil back)."""
    return queries.is_owner(match, pencil_token(match))


def set_pencil_cookie(response: Response, match: Match, token: str) -> Response:
    """Store a match's scorekeeper token on this device (written with the answer, with the phone's others)."""
    keep_pencil(match, token)
    return response


def keep_pencil(match: Match, token: str) -> None:
    """A match's scorekeeper token, held by this phone from now on: this request's page is drawn for the pencil's
    phone, and the answer's cookie keeps it with the phone's others."""
    pencils = {key: kept for key, kept in _pencils().items() if key != kept_under(match.uid)}
    g.pencils = dict([*pencils.items(), (kept_under(match.uid), token)][-PENCILS_KEPT:])
    g.pencils_changed = True


def _write(response: Response) -> Response:
    """The phone's pencils, changed during the request, into their cookie; the previous version's deleted."""
    if "pencils" not in g and any(PREVIOUS_PENCIL.fullmatch(name) for name in request.cookies):
        _pencils()
    if g.pop("pencils_changed", False):
        value = ".".join(f"{key}:{token}" for key, token in g.pencils.items())
        cookies.put(response, PENCIL_COOKIE, value)
    for name in g.pop("pencils_moved", ()):
        cookies.forget_previous(response, name)
    return response


def init_app(app: Flask) -> None:
    """Write the pencils' cookie with each answer that changed it."""
    app.after_request(_write)
