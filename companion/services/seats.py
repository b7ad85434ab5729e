"""Seats taken by phones: a player's phone takes its seat at a match, leaves it, or the scorekeeper frees it."""

from __future__ import annotations

from sqlalchemy import and_, or_, update

from ..extensions import db
from ..games.base import N_, ChangedMeanwhile, NotAllowed, RuleError
from ..models import PLAYING, Match, Seat
from ..queries.matches import hash_token
from .transaction import transaction

# A phone's label as it is stored (models.Seat.phone_label).
LABEL_MAX = 80


def take_seat(match: Match, position: int | None, credential: str, label: str = "") -> Seat:
    """Seat this phone at `position`: a seat another phone holds is refused, and a seat this phone had
    before in the match is left, so a phone sits at one seat and a seat holds one phone.

    Under the match's lock, which bumps its version: every phone following the match sees the seat taken
    at its next poll.
    """
    seat = next((seat for seat in match.seats if seat.position == position), None)
    if seat is None:
        raise RuleError(N_("pick your name among the match's players"), field="seat")
    if match.status != PLAYING:
        raise NotAllowed(N_("this match is no longer played: its seats cannot be taken"))
    phone = hash_token(credential)
    with transaction(locking=match):
        _free(and_(Seat.match_id == match.id, Seat.phone == phone, Seat.id != seat.id))
        taken = db.session.execute(
            update(Seat)
            .where(Seat.id == seat.id, or_(Seat.phone.is_(None), Seat.phone == phone))
            .values(phone=phone, phone_label=label[:LABEL_MAX])
        )
        if taken.rowcount != 1:
            raise ChangedMeanwhile(N_("another phone has taken %(name)s's seat: ask the scorekeeper to free it",
                                      name=seat.name))  # fmt: skip
    _seen_again(match)
    return seat


def leave_seat(match: Match, credential: str | None) -> None:
    """This phone gets up from its seat at the match (it follows the match as any viewer then)."""
    if not credential:
        return
    with transaction(locking=match):
        _free(and_(Seat.match_id == match.id, Seat.phone == hash_token(credential)))
    _seen_again(match)


def free_seat(match: Match, position: int | None) -> None:
    """The scorekeeper frees a seat (a phone gone, or the wrong one sat down): another phone may take it."""
    if not any(seat.position == position for seat in match.seats):
        raise RuleError(N_("this match has no such seat"), field="seat")
    with transaction(locking=match):
        _free(and_(Seat.match_id == match.id, Seat.position == position))
    _seen_again(match)


def _free(where) -> None:
    """Empty the seats `where` names."""
    db.session.execute(update(Seat).where(where).values(phone=None, phone_label=""))


def _seen_again(match: Match) -> None:
    """The seats were written by statements: the match's are read again when next used."""
    for seat in match.seats:
        db.session.expire(seat, ["phone", "phone_label"])
