"""The pencil, the scorekeeper's right to change a match: offered by a one-off code, taken, taken over, taken back."""

from __future__ import annotations

import secrets

from flask import current_app
from itsdangerous import BadSignature, SignatureExpired, TimestampSigner
from sqlalchemy import update

from ..extensions import db
from ..games.refusals import N_, ChangedMeanwhile, NotAllowed
from ..models import PLAYING, UNFINISHED, Match
from ..queries.matches import hash_token, is_owner
from .transaction import transaction

# A hand-off code is good for ten minutes: a QR code left on a screen is not a key for ever.
HANDOVER_SECONDS = 600


def _handover_signer() -> TimestampSigner:
    """Signs a hand-off code with the time it was made, so its age is known without a column."""
    return TimestampSigner(current_app.config["SECRET_KEY"], salt="pencil-handover")


def offer_pencil(match: Match) -> str:
    """A single-use code, good for ten minutes, with which another phone can take the pencil."""
    code = _handover_signer().sign(secrets.token_urlsafe(32)).decode()
    with transaction():
        match.handover_hash = hash_token(code)
    return code


def take_pencil(match: Match, code: str | None, phone: str | None = None) -> str:
    """Hand the pencil to the phone that shows the offered code (`phone`: its credential); returns its new token.

    The code is taken by one UPDATE that names it: of two phones scanning it at once, one
    finds it and the other finds it gone.
    """
    invalid = N_("this pencil code is no longer valid: ask for a new one")
    if not code:
        raise ChangedMeanwhile(invalid)
    try:
        _handover_signer().unsign(code, max_age=HANDOVER_SECONDS)
    except SignatureExpired:
        raise ChangedMeanwhile(N_("this pencil code is more than ten minutes old: ask for a new one")) from None
    except BadSignature:
        raise ChangedMeanwhile(invalid) from None
    token = secrets.token_urlsafe(32)
    with transaction():
        taken = db.session.execute(
            update(Match)
            .where(Match.id == match.id, Match.handover_hash == hash_token(code), Match.status == PLAYING)
            # A new version: every phone's live poll hears that the pencil moved.
            .values(scorekeeper_hash=hash_token(token), scorekeeper_phone=hash_token(phone) if phone else None,
                    handover_hash=None, version=Match.version + 1)  # fmt: skip
            .execution_options(synchronize_session=False)
        )
        if taken.rowcount != 1:
            raise ChangedMeanwhile(invalid)
    db.session.expire(match, ["scorekeeper_hash", "scorekeeper_phone", "handover_hash", "version"])
    return token


def issued_pencil_code(code: str | None) -> bool:
    """Whether a code is one this server made (its signature holds, however old): stale, but no guess."""
    try:
        _handover_signer().unsign(code or "")
    except BadSignature:
        return False
    return True


def withdraw_pencil_code(match: Match, offered: str) -> None:
    """Withdraw the pencil code on offer (the one whose hash is `offered`), if it still is.

    A new version: the giver's share page, polling while it shows the code, hears of it and offers a new one.
    """
    with transaction():
        db.session.execute(
            update(Match)
            .where(Match.id == match.id, Match.handover_hash == offered)
            .values(handover_hash=None, version=Match.version + 1)
            .execution_options(synchronize_session=False)
        )
    db.session.expire(match, ["handover_hash", "version"])


def take_over_pencil(match: Match, phone: str | None = None) -> str:
    """The host's phone (`phone`: its credential) takes the pencil of any match being played, or finished (to
    correct it, its scorekeeper's phone gone); returns its new token."""
    token = secrets.token_urlsafe(32)
    with transaction(locking=match):
        if match.status == UNFINISHED:
            raise ChangedMeanwhile(N_("the host ended this match: there is no pencil to take"))
        match.scorekeeper_hash, match.handover_hash = hash_token(token), None
        match.scorekeeper_phone = hash_token(phone) if phone else None
    return token


def reclaim_pencil(match: Match, owner_token: str | None) -> None:
    """The creator's phone takes the pencil back from whoever holds it."""
    if not is_owner(match, owner_token):
        raise NotAllowed(N_("only the phone that started the match can take the pencil back"))
    # Under the match's lock, which reads the status again: the host may be ending it right now.
    with transaction(locking=match):
        if match.status == UNFINISHED:
            raise NotAllowed(N_("the host ended this match: there is no pencil to take back"))
        match.scorekeeper_hash, match.scorekeeper_phone, match.handover_hash = match.owner_hash, match.owner_phone, None
