"""Reads of one match: finding it, its standings, its replay, its live state, its change log, its pencil checks."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import Any

from sqlalchemy import Connection, Row, Select, and_, bindparam, func, inspect, or_, select
from sqlalchemy.orm import selectinload
from sqlalchemy.orm.attributes import set_committed_value

from ..extensions import db
from ..games import get_game
from ..games.base import Standings
from ..games.entry import SentRow
from ..models import (
    FINISHED,
    GROUP_CHECKED,
    PLAYING,
    UNFINISHED,
    Match,
    Round,
    RoundChange,
    Seat,
    current_group,
)
from ..models import SentRow as SentRowModel


def hash_token(token: str) -> str:
    """The stored form of a scorekeeper token."""
    return hashlib.sha256(token.encode()).hexdigest()


def same_secret(token: str | None, stored: str | None) -> bool:
    """Whether a presented token hashes to a stored hash, compared in constant time."""
    if not token or not stored:
        return False
    return hmac.compare_digest(hash_token(token), stored)


def is_owner(match: Match, token: str | None) -> bool:
    """Whether a token is the one of the phone that created the match."""
    return same_secret(token, match.owner_hash)


def seat_of(match: Match, credential: str | None) -> Seat | None:
    """The seat this phone (its own credential) has taken at the match, if any."""
    if not credential:
        return None
    hashed = hash_token(credential)
    return next((seat for seat in match.seats if seat.phone == hashed), None)


def played_again(match: Match) -> Match | None:
    """The newest match Play again started from this one."""
    newest = select(Match).where(Match.follows_id == match.id).order_by(Match.id.desc()).limit(1)
    return db.session.scalars(newest).first()


def played_again_at(match: Match, credential: str | None) -> Match | None:
    """The newest match Play again started from this one at which this phone (its own credential) has a seat."""
    if not credential:
        return None
    statement = (
        select(Match)
        .join(Seat, Seat.match_id == Match.id)
        .where(Match.follows_id == match.id, Seat.phone == hash_token(credential))
        .order_by(Match.id.desc())
        .limit(1)
    )
    return db.session.scalars(statement).first()


def seat_board(match: Match, my_seat: Seat | None) -> dict:
    """What a phone may see of the hands noted on seated phones (the entry's BOARD_FIELD): its own seat and hand,
    and of every other hand only how many cards it holds."""
    mine = my_seat.hand if my_seat is not None and my_seat.hand else None
    return {
        "seat": None if my_seat is None else my_seat.position,
        "hands": {my_seat.name: mine} if mine else {},
        "hidden": {seat.name: len(seat.hand) for seat in match.seats if seat.hand and seat is not my_seat},
    }


def row_of(match: Match, seat: Seat) -> int:
    """The row a seat enters from its phone: its side's place among the match's sides (in pairs both partners
    enter their pair's one row)."""
    game = get_game(match.game)
    return game.sides(match.player_names, match.settings).index(game.side_of(match.settings, seat.name))


def rows_waiting(match: Match, sent: dict[int, SentRow]) -> list[str]:
    """The sides a seated phone enters the row of which have sent nothing yet of the round being played."""
    game = get_game(match.game)
    sides = game.sides(match.player_names, match.settings)
    seated = {row_of(match, seat) for seat in match.seats if seat.phone}
    return [side for index, side in enumerate(sides) if index in seated and index not in sent]


def sent_rows(match: Match) -> dict[int, SentRow]:
    """The rows the seated phones sent of the round being played, by side; none asked (no query) of a game
    whose seats send none, a match no longer played, or a table where no phone sits."""
    if (
        match.status != PLAYING
        or not get_game(match.game).entry.rows_from_seats
        or not any(seat.phone for seat in match.seats)
    ):
        return {}
    found = db.session.scalars(
        select(SentRowModel)
        .where(SentRowModel.match_id == match.id, SentRowModel.number == len(match.rounds) + 1)
        .execution_options(**{GROUP_CHECKED: True})
    )
    seated = {seat.phone: seat.name for seat in match.seats if seat.phone}
    return {row.position: SentRow(row.data, row.revision, row.phone_label, seated.get(row.phone, "")) for row in found}


def standings_of(match: Match) -> Standings:
    """The match's standings, derived from its rounds by the game's rules."""
    game = get_game(match.game)
    return game.standings(match.player_names, match.settings, [r.data for r in match.rounds])


class MatchAt:
    """A stored match as it stood after its first rounds, for its replay: the game's partials read it as they
    read the match (its seats, settings, status and the rest are the match's own), with only those rounds."""

    def __init__(self, match: Match, shown: int):
        self.match = match
        self.rounds = match.rounds[:shown]

    def __getattr__(self, name: str) -> Any:
        """Everything but the rounds: the match's own."""
        return getattr(self.match, name)


@dataclass(frozen=True)
class ReplayStep:
    """A match no longer played, stepped to round `shown` of its `count`: the match as its replay draws it
    then (`MatchAt` its first rounds, or the match itself at the last), its standings and the game's view."""

    match: Match | MatchAt
    shown: int
    count: int
    standings: Standings
    game_view: dict[str, Any]

    @property
    def final(self) -> bool:
        """Whether the step is the last round: the match as it ended."""
        return self.shown == self.count

    @property
    def previous(self) -> int | None:
        """The round before, if any."""
        return self.shown - 1 if self.shown > 1 else None

    @property
    def next(self) -> int | None:
        """The round after, if any."""
        return self.shown + 1 if self.shown < self.count else None


def replay_step(match: Match, shown: int | None, standings: Standings, game_view: dict[str, Any]) -> ReplayStep | None:
    """Where the replay of a match that is no longer played stands: after round `shown` (the last when None),
    the engine replaying the first `shown` rounds; None while the match is played, and for a match of one round
    or none, which has nothing to step through."""
    if match.status == PLAYING or len(match.rounds) < 2:
        return None
    count = len(match.rounds)
    if shown is None or shown == count:
        return ReplayStep(match, count, count, standings, game_view)
    game = get_game(match.game)
    then = MatchAt(match, shown)
    replay = game.replay(match.player_names, match.settings, [r.data for r in then.rounds])
    return ReplayStep(then, shown, count, game.standings_of(replay), game.entry.match_view(replay))


def running_totals(match: Match | MatchAt) -> list[dict[str, int]]:
    """Each side's total before the first round and after each round, by the game's own scoring."""
    game = get_game(match.game)
    rounds = [stored.data for stored in match.rounds]
    return [dict(tally.totals) for tally in game.tallies(match.player_names, match.settings, rounds)]


def rounds_table(match: Match) -> tuple[list[dict[str, int]], dict[str, dict[int, tuple[int, str | None]]]]:
    """The running totals (as `running_totals`) and each side's points and what it scored them with, by
    round number, as the game records them: what the rounds export writes, from one replay of the match."""
    game = get_game(match.game)
    rounds = [stored.data for stored in match.rounds]
    replay = game.replay(match.player_names, match.settings, rounds)
    totals = [dict(tally.totals) for tally in game.tallies_of(replay)]
    standings = game.standings_of(replay)
    scored = {side: dict(enumerate(game.round_scores(standings, rounds, side), start=1)) for side in standings.totals}
    return totals, scored


# The columns of the rounds export, one row per round and side.
# "round score" is what moved the side's total (for some games a victory point); "points" and
# "scored with" are what the game notes the side scored in the round and with what (a word).
EXPORT_COLUMNS = ("match", "game", "date", "round", "side", "round score", "running total", "points", "scored with")


def export_rows(match: Match) -> Iterator[tuple[Any, ...]]:
    """The match's rows of the rounds export (EXPORT_COLUMNS), round by round and side by side, from one
    replay of the match."""
    totals, scored = rounds_table(match)
    date = match.started_at.date().isoformat()
    for number, (before, after) in enumerate(pairwise(totals), start=1):
        for side, total in after.items():
            points, label = scored.get(side, {}).get(number, ("", ""))
            yield match.public_id, match.game, date, number, side, total - before[side], total, points, label or ""


# Speed tricks of the reads, on the path of every save and every poll: their statements are built
# once, since SQLAlchemy works out a new statement's cache key on every execution, which costs more
# than SQLite takes to run them. A save reads its match with the seats by hand rather than by get
# and a lazy load (see docs/performance.md). An unchanged poll is most of the
# requests of a club evening.
_MATCHES = Match.__table__
_MATCH_BY_ID = select(Match).where(Match.id == bindparam("match_id")).execution_options(**{GROUP_CHECKED: True})
_MATCH_BY_ID_IN_GROUP = _MATCH_BY_ID.where(Match.group_id == bindparam("group"))
_SEATS_OF = (
    select(Seat)
    .where(Seat.match_id == bindparam("match_id"))
    .order_by(Seat.position)
    .execution_options(**{GROUP_CHECKED: True})
)
# Whether nothing can change what the match's live block shows any more, so its polls may end: the host ended it
# (no round is written to it again, nor is its pencil taken back), or it is finished and no phone can ever hold its
# pencil (an imported match), so nothing undoes or corrects a round. A finished match played here may still be
# undone by its pencil, and then played on.
_SETTLED = or_(
    _MATCHES.c.status == UNFINISHED,
    and_(_MATCHES.c.status == FINISHED, _MATCHES.c.scorekeeper_hash == "", _MATCHES.c.owner_hash == ""),
).label("settled")
_LIVE_STATE = select(_MATCHES.c.version, _MATCHES.c.uid, _MATCHES.c.status, _MATCHES.c.group_id, _SETTLED).where(
    _MATCHES.c.id == bindparam("match_id")
)
# The same of many matches by their addresses (public ids), with their ids and addresses: the poll board's read
# (web/poll_board.py), made before Flask's converter reads the address.
_LIVE_STATES_AT = select(*_LIVE_STATE.selected_columns, _MATCHES.c.id, _MATCHES.c.public_id).where(
    _MATCHES.c.public_id.in_(bindparam("public_ids", expanding=True))
)


def find_match(match_id: int) -> Match | None:
    """The match with this id and its seats (every match page names its players), or None; its rounds
    load when first read."""
    group = current_group()
    if group is None:
        match = db.session.execute(_MATCH_BY_ID, {"match_id": match_id}).scalar_one_or_none()
    else:
        match = db.session.execute(_MATCH_BY_ID_IN_GROUP, {"match_id": match_id, "group": group}).scalar_one_or_none()
    if match is not None and "seats" not in inspect(match).dict:
        seats = db.session.execute(_SEATS_OF, {"match_id": match_id}).scalars().all()
        set_committed_value(match, "seats", list(seats))
    return match


def live_state(match_id: int) -> Row | None:
    """A match's version, uid, status and group, or None: all a live poll needs to know whether it changed
    (and, with the status, what a viewer's entry shows), whether the phone may know it, and whether it is
    `settled` (see _SETTLED): nothing can change it any more."""
    return db.session.execute(_LIVE_STATE, {"match_id": match_id}).one_or_none()


def live_states_at(public_ids: list[str], connection: Connection) -> dict[str, Row]:
    """`live_state` of each of these addresses that has a match, with its `id`, by address, in one statement."""
    return {row.public_id: row for row in connection.execute(_LIVE_STATES_AT, {"public_ids": public_ids})}


# --- Lists of matches ----------------------------------------------------------------------


def change_log(match: Match) -> list[RoundChange]:
    """The match's corrections, undos and redos, newest first."""
    return list(
        db.session.scalars(select(RoundChange).where(RoundChange.match_id == match.id).order_by(RoundChange.id.desc()))
    )


@dataclass(frozen=True)
class Playing:
    """A match in progress as the home page lists it: the match, and when its last round was saved."""

    match: Match
    last_round_at: datetime | None


def in_progress(limit: int = 20) -> list[Playing]:
    """The matches being played, newest first, with their seats and the time of their last round: two queries.

    The time tells a table whose scorekeeper's phone is gone (nothing saved for an hour)
    from one that is playing, so the host knows which match to end.
    """
    last_round = select(func.max(Round.created_at)).where(Round.match_id == Match.id).scalar_subquery()
    rows = db.session.execute(
        select(Match, last_round)
        .where(Match.status == PLAYING)
        .options(selectinload(Match.seats))
        .order_by(Match.started_at.desc())
        .limit(limit)
    ).all()
    return [Playing(match, at) for match, at in rows]


# Matches loaded per query while an export streams out, so memory stays flat at any size.
EXPORT_BATCH = 500


def all_matches(among: Select | None = None) -> Iterator[Match]:
    """Every match (or those whose id `among` selects) with its seats and rounds, oldest first, a batch at a time."""
    last = 0
    while True:
        statement = select(Match) if among is None else select(Match).where(Match.id.in_(among))
        batch = db.session.scalars(
            statement.options(selectinload(Match.seats), selectinload(Match.rounds))
            .where(Match.id > last)
            .order_by(Match.id)
            .limit(EXPORT_BATCH)
        ).all()
        if not batch:
            return
        yield from batch
        last = batch[-1].id
        db.session.expunge_all()
