"""Seats taken by phones: a player's phone takes its seat at a match, leaves it, or the scorekeeper frees it."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, or_, select, update

from ..extensions import db
from ..games import get_game
from ..games.base import Replay
from ..games.refusals import N_, ChangedMeanwhile, Message, NotAllowed, RuleError
from ..models import FINISHED, PLAYING, Match, Seat, SentRow, utcnow
from ..queries.matches import hash_token
from .bounds import bounded
from .matches import keep_round_in_progress_held, save_round_held
from .transaction import transaction

# A phone's label as it is stored (models.Seat.phone_label).
LABEL_MAX = 80
# Why a board's tap is refused to a phone whose seat was freed meanwhile.
NOT_SEATED = N_("this phone no longer has a seat at the match: your tap was not played")
# How many freed phones a seat keeps out at most (the oldest is let back in first): a Free guards against
# mistakes at the table; the answer to a hostile phone is a new seat link.
KEPT_OUT_MAX = 20


def kept_out_message(name: str) -> Message:
    """Why a phone freed from a seat may not take it again."""
    return N_("the scorekeeper freed %(name)s's seat from this phone: it can take that seat again once the"
              " scorekeeper or a host lets it back in", name=name)  # fmt: skip


@dataclass(frozen=True)
class RowSent:
    """A row stored: its revision, and whether it was the last of its round, which was saved with it."""

    revision: int
    saved_round: bool


def take_seat(
    match: Match,
    position: int | None,
    credential: str,
    label: str = "",
    earlier: Collection[str] = (),
    to_confirm: bool = False,
) -> Seat:
    """Seat this phone at `position`: a seat another phone holds is refused, and a seat this phone had
    before in the match is left, so a phone sits at one seat and a seat holds one phone. A seat it was freed
    from is refused, under its credential or one it sat with `earlier` (the hashes its browser remembers).
    A finished match's seats are taken only `to_confirm` its result (a club table's, waiting for its other side).

    Under the match's lock, which bumps its version: every phone following the match sees the seat taken
    at its next poll.
    """
    seat = next((seat for seat in match.seats if seat.position == position), None)
    if seat is None:
        raise RuleError(N_("pick your name among the match's players"), field="seat")
    if match.status != PLAYING and not (to_confirm and match.status == FINISHED):
        raise NotAllowed(N_("this match is no longer played: its seats cannot be taken"))
    phone = hash_token(credential)
    with transaction(locking=match):
        if {phone, *earlier} & set(db.session.scalar(select(Seat.kept_out).where(Seat.id == seat.id)) or ()):
            raise NotAllowed(kept_out_message(seat.name))
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


def send_row(
    match: Match,
    number: int | None,
    position: int,
    side: int,
    row: dict[str, Any],
    credential: str | None,
    label: str,
    key: str | None = None,
) -> RowSent:
    """Store the row of side `side` the phone seated at `position` sends of round `number`, the round being
    played (in pairs either partner's phone sends the pair's one row). Refused, with the
    reason, when the round was saved meanwhile or the seat is no longer this phone's (freed by the scorekeeper,
    or never taken): never stored for another round or another seat. The last row of a round is saved with
    the round when the table chose that (`Match.save_when_rows_in`). `key` is the one the phone made for this
    send: a send already stored under it (a retry after a lost answer, a row kept offline sent again) is
    answered as stored, whatever came since.

    Under the match's lock, which bumps its version: the scorekeeper's sheet fills in at its next poll.
    """
    phone = hash_token(credential) if credential else None
    row = bounded(row, "row")
    with transaction(locking=match):
        stored = db.session.scalar(
            select(SentRow).where(SentRow.match_id == match.id, SentRow.number == number, SentRow.position == side)
        )
        if stored is not None and key is not None and (stored.client_key, stored.phone) == (key, phone):
            return RowSent(stored.revision, saved_round=False)
        # Read under the lock (it brings the status back): the row that ended the match, sent again, is stored.
        entry = get_game(match.game).entry
        if match.status != PLAYING:
            raise NotAllowed(entry.seat_text("not_played"))
        holder = db.session.scalar(select(Seat.phone).where(Seat.match_id == match.id, Seat.position == position))
        if phone is None or holder != phone:
            raise NotAllowed(entry.seat_text("not_seated"))
        playing = len(match.rounds) + 1
        if number is not None and number > playing:
            raise ChangedMeanwhile(entry.seat_text("taken_back", n=number, now=playing))
        if number != playing:
            raise ChangedMeanwhile(entry.seat_text("too_late", n=number or 0))
        if stored is None:
            stored = SentRow(match_id=match.id, number=number, position=side, phone=phone, revision=0)
            db.session.add(stored)
        stored.data, stored.phone, stored.phone_label, stored.client_key = row, phone, label[:LABEL_MAX], key
        stored.sent_at, stored.revision = utcnow(), stored.revision + 1
        saved = _saved_when_every_row_is_in(match, number) if match.save_when_rows_in else False
    return RowSent(stored.revision, saved)


def _saved_when_every_row_is_in(match: Match, number: int) -> bool:
    """Save round `number` from the rows sent, if every side has sent its row and they make a round the rules
    take; otherwise it waits for the scorekeeper's Save (a row a seat cannot send, rows the rules refuse)."""
    game = get_game(match.game)
    if not game.entry.round_from_rows_alone:
        return False
    found = db.session.scalars(select(SentRow).where(SentRow.match_id == match.id, SentRow.number == number))
    rows = {row.position: row.data for row in found}
    if len(rows) < len(game.sides(match.player_names, match.settings)):
        return False
    try:
        data = game.entry.round_from_rows(rows, match.player_names, match.settings)
        save_round_held(match, data)
    except RuleError:
        return False
    return True


def note_hand(
    match: Match, position: int, credential: str | None, hand_after: Callable[[list[str], bool], list[str]]
) -> list[str]:
    """Note the hand of side cards the phone seated at `position` holds, as `hand_after(hand, begun)` makes it
    from the hand noted so far (the game's rules: a RuleError refuses the tap). Seen by that phone alone, and
    emptied when the seat is freed or the match ends.

    Under the match's lock, which bumps its version: the other phones see the hand's size at their next poll.
    """
    with transaction(locking=match):
        seat = _held_seat(match, position, credential, NOT_SEATED)
        # The lock re-reads the rounds; the set kept in progress is read again here.
        db.session.refresh(match, attribute_names=["round_in_progress"])
        kept = match.round_in_progress
        begun = bool(match.rounds) or bool(kept and kept.get("number") == 1 and kept.get("state"))
        seat.hand = hand_after(list(seat.hand or ()), begun)
    return seat.hand


@dataclass(frozen=True)
class BoardTap:
    """What a tap on a seated phone's board came to: the calculator after it (`entry`, its refusal in it), the
    replay of the rounds it was worked out on, or where it `saved` the set, the replay that saved it (None: the
    page replays the rounds itself); `kept` where the tap changed the set kept for the round."""

    entry: dict[str, Any]
    replay: Replay | None
    kept: bool = False
    saved: bool = False


def play_on_board(match: Match, number: int | None, position: int, credential: str | None, fields) -> BoardTap:
    """Apply the tap a seated phone made on its own board (`fields`, the entry tool's, see pages.match.entry_form):
    the rules' step worked out on one replay of the rounds, its new state kept and, when the tap decided the set,
    the set saved with it. Refused when the seat is no longer this phone's, the match is over, or the set moved
    on meanwhile.

    Under the match's lock, which bumps its version: the other board and the scorekeeper follow at their poll.
    """
    game = get_game(match.game)
    replay = game.replay(match.player_names, match.settings, [r.data for r in match.rounds])
    entry = game.entry.step(fields, replay)
    keep, finished = entry.get("keep"), entry.get("finished")
    if entry.get("error") is not None or keep is None:
        return BoardTap(entry, replay)
    with transaction(locking=match):
        _held_seat(match, position, credential, NOT_SEATED)
        keep_round_in_progress_held(match, number or 0, keep["state"], keep["based_on"])
        saved = None if finished is None else save_round_held(match, finished)
    if saved is None:
        return BoardTap(entry, replay, kept=True)
    return BoardTap(entry, saved.replay, kept=True, saved=True)


def _held_seat(match: Match, position: int, credential: str | None, refusal: Message) -> Seat:
    """The seat at `position`, read under the match's lock, if this phone sits there and the match is played."""
    if match.status != PLAYING:
        raise NotAllowed(N_("this match is no longer played"))
    # Read again, not taken from the session: the view found the seat before the lock, and a quick second tap
    # answered meanwhile may have noted a card in it.
    held = select(Seat).where(Seat.match_id == match.id, Seat.position == position)
    seat = db.session.scalar(held.execution_options(populate_existing=True))
    if seat is None or not credential or seat.phone != hash_token(credential):
        raise NotAllowed(refusal)
    return seat


def leave_seat(match: Match, credential: str | None) -> None:
    """This phone gets up from its seat at the match (it follows the match as any viewer then)."""
    if not credential:
        return
    with transaction(locking=match):
        _free(and_(Seat.match_id == match.id, Seat.phone == hash_token(credential)))
    _seen_again(match)


def free_seat(match: Match, position: int | None) -> None:
    """The scorekeeper frees a seat (a phone gone, or the wrong one sat down): another phone may take it, and
    the phone freed from it may not until the scorekeeper or a host lets it back in (`let_back_in`)."""
    _seat_at(match, position)
    with transaction(locking=match):
        seat = db.session.execute(
            select(Seat.id, Seat.phone, Seat.kept_out).where(Seat.match_id == match.id, Seat.position == position)
        ).one()
        if seat.phone is not None:
            kept = [phone for phone in seat.kept_out or () if phone != seat.phone]
            kept = [*kept, seat.phone][-KEPT_OUT_MAX:]
            db.session.execute(update(Seat).where(Seat.id == seat.id).values(kept_out=kept))
        _free(Seat.id == seat.id)
    _seen_again(match)


def let_back_in(match: Match, position: int | None) -> None:
    """The scorekeeper or a host lets the phones freed from a seat take it again."""
    _seat_at(match, position)
    with transaction(locking=match):
        db.session.execute(
            update(Seat).where(Seat.match_id == match.id, Seat.position == position).values(kept_out=None)
        )
    _seen_again(match)


def renew_seat_link(match: Match) -> None:
    """A new seat link for the match: the one before it seats nobody from now on, and the phones seated by it
    keep their seats. Under the match's lock, which bumps its version: the share pages polling it redraw it."""
    with transaction(locking=match):
        db.session.execute(update(Match).where(Match.id == match.id).values(seat_link=Match.seat_link + 1))
    db.session.expire(match, ["seat_link"])


def _seat_at(match: Match, position: int | None) -> None:
    """Refuse a seat the match does not have."""
    if not any(seat.position == position for seat in match.seats):
        raise RuleError(N_("this match has no such seat"), field="seat")


def _free(where) -> None:
    """Empty the seats `where` names."""
    # The hand a phone noted goes with it: whoever sits down next notes their own.
    db.session.execute(update(Seat).where(where).values(phone=None, phone_label="", hand=None))


def _seen_again(match: Match) -> None:
    """The seats were written by statements: the match's are read again when next used."""
    for seat in match.seats:
        db.session.expire(seat, ["phone", "phone_label", "hand", "kept_out"])
