"""What a club table's own phones write: the pencil taken at N/S, the result confirmed by the other side or disputed."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from sqlalchemy import update

from ..extensions import db
from ..games.checks import clean_note
from ..games.refusals import N_, ChangedMeanwhile, NotAllowed, RuleError
from ..models import FINISHED, PLAYING, Match, Seat
from ..models.club import COUNTED, NOTE_MAX, TABLE_CLOSED, TABLE_DISPUTED, ClubEvening, ClubTable
from ..queries import club as read
from ..queries.matches import hash_token
from .club import _count, _locked, _log, _table_of, table_points
from .transaction import transaction


def take_pencil(evening: ClubEvening, table: ClubTable, credential: str, *, take_over: bool = False) -> str | None:
    """The table's pencil for this phone, if it is seated N/S and no phone holds it yet (the first seated), or
    it takes it over from a phone of its side that ran flat (`take_over`); returns its token, else None.

    One conditional UPDATE gives it, so two N/S phones sitting down at once cannot both think they hold it.
    """
    match = db.session.get(Match, table.match_id) if table.match_id else None
    phone = hash_token(credential)
    if match is None or match.status != PLAYING or _side_of(match, table, evening, phone) != 0:
        return None
    free = ClubTable.pencil_phone.is_(None) | (ClubTable.pencil_phone == phone)
    held = True if take_over else free
    token = secrets.token_urlsafe(32)
    with transaction(locking=match):
        given = db.session.execute(
            update(ClubTable).where(ClubTable.id == table.id, held).values(pencil_phone=phone)
            .execution_options(synchronize_session=False)
        )  # fmt: skip
        if given.rowcount != 1:
            return None
        match.scorekeeper_hash = match.owner_hash = hash_token(token)
        match.scorekeeper_phone = match.owner_phone = phone
        match.handover_hash = None
    db.session.expire(table, ["pencil_phone"])
    return token


def confirm(
    evening: ClubEvening,
    turn: int,
    number: int,
    credential: str | None,
    shown: Sequence[int] | None,
    *,
    for_other_side: bool = False,
    entered: bool = False,
) -> bool:
    """The other side's phone confirms its table's result (the match's totals once its hands are played), the
    points its page showed (`shown`): a result changed since (a hand taken back and saved again) is refused.

    Confirmed by a phone seated for the side that did not enter it (E/W: N/S holds the pencil), never the phone
    that entered it (its credential the table's pencil phone, or `entered`: the browser keeps the match's pencil
    token under another credential), or, where no phone sits for that side and none was freed from its seat, by
    the entering phone after handing it over (`for_other_side`). A second confirmation (two phones at once, a
    confirmation kept offline sent again) is answered as done: False. When it is the turn's last table to count,
    the next turn is drawn (or the evening is over).
    """
    with _locked(evening):
        table = _table_of(evening, turn, number)
        if table.state in COUNTED:
            if table.state == TABLE_CLOSED:
                raise NotAllowed(N_("the arbiter closed this turn: this table's result was given by the arbiter"))
            return False
        if table.state == TABLE_DISPUTED:
            raise NotAllowed(N_("this table waits for the arbiter"))
        match = db.session.get(Match, table.match_id)
        if match is None or match.status != FINISHED:
            raise NotAllowed(N_("the turn's hands are not all played at this table yet"))
        phone = hash_token(credential) if credential else None
        if _side_of(match, table, evening, phone) != (0 if for_other_side else 1):
            raise NotAllowed(N_("the other side confirms this result, from its own phone"))
        if for_other_side:
            seats = _side_seats(match, table, evening, 1)
            if any(seat.phone for seat in seats):
                raise NotAllowed(N_("the other side has a phone at this table: it confirms from there"))
            if any(seat.kept_out for seat in seats):
                raise NotAllowed(N_("the other side's phone was freed from its seat: the arbiter confirms this "
                                    "result"))  # fmt: skip
        elif phone == table.pencil_phone or entered:
            raise NotAllowed(N_("the phone that entered the result does not confirm it: the other side does"))
        points = table_points(evening, table, match)
        if shown is None or list(shown) != points:
            raise ChangedMeanwhile(N_("the result changed since this phone showed it: check it, then confirm again"))
        table.hands_played = len(match.rounds)
        _count(evening, table, points, phone or "", "confirm")
    return True


def dispute(evening: ClubEvening, turn: int, number: int, credential: str | None, note: str) -> None:
    """A side disagrees with its table's result, once its hands are played, saying why: the table waits for the
    arbiter; nothing is counted. (While it plays, a table calls the arbiter instead.)"""
    note = clean_note(note, NOTE_MAX)
    if not note:
        raise RuleError(N_("say what is wrong with the result"), field="confirm")
    with _locked(evening):
        table = _seated_table(evening, turn, number, credential)
        if table.state in COUNTED:
            raise NotAllowed(N_("this result is counted already: the arbiter may still correct it"))
        match = db.session.get(Match, table.match_id)
        if match is None or match.status != FINISHED:
            raise NotAllowed(N_("the turn's hands are not all played at this table yet: call the arbiter instead"))
        table.state = TABLE_DISPUTED
        _log(evening, hash_token(credential or ""), "dispute", turn=turn, table=number, note=note)


def _seated_table(evening: ClubEvening, turn: Any, number: Any, credential: str | None) -> ClubTable:
    """The table read again under the lock, if this phone is seated at it; else NotAllowed."""
    table = _table_of(evening, turn, number)
    match = db.session.get(Match, table.match_id) if table.match_id else None
    if match is None or credential is None or _side_of(match, table, evening, hash_token(credential)) is None:
        raise NotAllowed(N_("only a phone seated at this table may call the arbiter to it"))
    return table


def _side_of(match: Match, table: ClubTable, evening: ClubEvening, phone: str | None) -> int | None:
    """Which side of the table (0 N/S, 1 E/W) this phone is seated for, if any."""
    if phone is None:
        return None
    seat = next((seat for seat in match.seats if seat.phone == phone), None)
    if seat is None:
        return None
    by_number = read.entrants_by_number(evening, table.sides)
    return next(side for side, number in enumerate(table.sides) if seat.name in by_number[number].players)


def _side_seats(match: Match, table: ClubTable, evening: ClubEvening, side: int) -> list[Seat]:
    """The seats of one side of the table."""
    players = read.entrants_by_number(evening, [table.sides[side]])[table.sides[side]].players
    return [seat for seat in match.seats if seat.name in players]
