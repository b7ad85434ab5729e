"""Reads of a club evening: its plan, its turns as drawn, its standings recomputed from what is stored, its phones."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import NamedTuple

from sqlalchemy import Connection, bindparam, func, select
from sqlalchemy.orm import contains_eager

from ..extensions import db
from ..games.club import plan as plans
from ..games.club import standings as pure
from ..games.club.clock import Clock
from ..games.club.movements import Table, Turn
from ..models import PLAYING, Match, Seat
from ..models.club import (
    CLOCK,
    COUNTED,
    EVENING_OVER,
    EVENING_PLAYING,
    TABLE_BYE,
    TABLE_CLOSED,
    ClubEntrant,
    ClubEvening,
    ClubLog,
    ClubTable,
)
from .matches import hash_token


def plan_of(evening: ClubEvening) -> plans.Plan:
    """The plan the evening was set up with."""
    return plans.from_json(evening.game, evening.pairs, evening.turns, evening.hands, evening.rules)


def turns(evening: ClubEvening) -> list[Turn]:
    """The turns drawn so far, as the movements drew them (entrants by number)."""
    drawn = []
    for number in range(1, evening.turn + 1):
        tables = [table for table in evening.tables if table.turn == number]
        played = tuple(Table(t.number, tuple(t.sides)) for t in sorted(tables, key=lambda t: t.number) if t.number)
        # A numbered table a withdrawn side left vacant is one of the turn's tables, not a bye (number 0).
        byes = tuple(t.sides[0] for t in tables if t.state == TABLE_BYE and not t.number)
        drawn.append(Turn(number, played, byes))
    return drawn


# The log's actions that count a table's points: a confirmation, an arbiter's settlement or correction.
COUNTINGS = ("confirm", "settle", "correct")


def events(evening: ClubEvening) -> list[pure.Event]:
    """What the standings are recomputed from: the joiners, each counted table's result (its latest: a
    correction replaces it), the arbiter's closings, lateness and forfeits, the withdrawals.

    A forfeit and a table's result replace each other in the order the log has them: a result the arbiter gives
    after a forfeit stands, a forfeit after a result stands. The clock's penalty for a table still playing when
    time is up adds to the arbiter's for lateness: neither lifts the other."""
    found: list[pure.Event] = [pure.Joined(e.number) for e in evening.entrants if e.joined_turn > 1]
    # The withdrawals before the turns' outcomes: a table a withdrawn side left vacant is no table still open.
    found += [pure.Withdrawn(e.number, e.withdrawn_after) for e in evening.entrants if e.withdrawn_after is not None]
    log = db.session.execute(
        select(ClubLog.id, ClubLog.action, ClubLog.by, ClubLog.turn, ClubLog.table, ClubLog.entrant, ClubLog.after)
        .where(ClubLog.evening_id == evening.id, ClubLog.action.in_(("late", "forfeit", *COUNTINGS)))
        .order_by(ClubLog.id)
    ).all()
    counted_at = {(entry.turn, entry.table): entry.id for entry in log if entry.action in COUNTINGS}
    timed = [(entry.id, pure.Forfeit(entry.turn, entry.entrant)) for entry in log if entry.action == "forfeit"]
    closed: dict[int, dict[int, str | tuple[int, ...]]] = {}
    for table in evening.tables:
        if table.state == TABLE_CLOSED:
            given = table.given if isinstance(table.given, str) else tuple(table.given or ())
            closed.setdefault(table.turn, {})[table.number] = given
        elif table.state in COUNTED and table.points is not None:
            result = pure.Result(table.turn, table.number, tuple(table.points), table.hands_played)
            timed.append((counted_at.get((table.turn, table.number), 0), result))
    found += [event for _, event in sorted(timed, key=lambda pair: pair[0])]
    found += [pure.Closed(turn, outcomes) for turn, outcomes in sorted(closed.items())]
    penalties: dict[tuple[int, int], dict[bool, int]] = {}
    for entry in log:
        if entry.action == "late":
            penalties.setdefault((entry.turn, entry.entrant), {})[entry.by == CLOCK] = entry.after["penalty"]
    found += [pure.Late(turn, entrant, sum(given.values())) for (turn, entrant), given in penalties.items()]
    return found


def _evening(evening: ClubEvening) -> pure.Evening:
    plan = plan_of(evening)
    starting = tuple(entrant.number for entrant in evening.entrants if entrant.joined_turn == 1)
    return pure.Evening(starting, tuple(turns(evening)), plan.scale, plan.bye_points, plan.late_costs, evening.hands,
                        plan.short_turn == "pro_rata" and evening.game == "burraco")  # fmt: skip


def standings(evening: ClubEvening) -> list[pure.Standing]:
    """The evening's standings, best first, recomputed from what is stored."""
    return pure.standings(_evening(evening), events(evening))


def check_events(evening: ClubEvening) -> None:
    """The standings recomputed with what the write under way added: a RuleError refuses it (the transaction
    rolls back, nothing stored)."""
    db.session.flush()
    standings(evening)


def ranked(evening: ClubEvening) -> list[ClubEntrant]:
    """The entrants by the standings so far (before turn 1: in the order of entry, the seeding)."""
    by_number = {entrant.number: entrant for entrant in evening.entrants}
    if not evening.turn:
        return list(evening.entrants)
    placed = [by_number[standing.entrant] for standing in standings(evening)]
    return placed + [entrant for entrant in evening.entrants if entrant not in placed]


def phones_of(evening: ClubEvening) -> dict[str, tuple[str, str]]:
    """Each player's phone at the evening's current turn (its hash and label), where one sits at their seat:
    the next turn seats it at the same player's seat, wherever that is."""
    matches = [table.match_id for table in evening.tables if table.turn == evening.turn and table.match_id]
    if not matches:
        return {}
    seated = db.session.execute(
        select(Seat.name, Seat.phone, Seat.phone_label).where(Seat.match_id.in_(matches), Seat.phone.is_not(None))
    )
    return {name: (phone, label) for name, phone, label in seated}


def playing_evening() -> ClubEvening | None:
    """The group's evening the table cards name: the newest under way, else the newest being set up (an evening
    set up for next week leaves tonight's cards to tonight's)."""
    statement = (
        select(ClubEvening)
        .where(ClubEvening.status != EVENING_OVER)
        .order_by((ClubEvening.status == EVENING_PLAYING).desc(), ClubEvening.id.desc())
    )
    return db.session.scalars(statement).first()


def table_at(evening: ClubEvening, turn: int, number: int) -> ClubTable | None:
    """A numbered table of a turn (no bye)."""
    return next((t for t in evening.tables if t.turn == turn and t.number == number and t.number), None)


def match_states(ids: list[int]) -> dict[int, tuple[str, int, dict]]:
    """These matches' status, rounds played and totals, by id."""
    if not ids:
        return {}
    found = db.session.execute(select(Match.id, Match.status, Match.summary).where(Match.id.in_(ids)))
    return {match_id: _state(status, summary) for match_id, status, summary in found}


def match_state(match: Match) -> tuple[str, int, dict]:
    """A match read already: its status, rounds played and totals, as `match_states` gives them."""
    return _state(match.status, match.summary)


def _state(status: str, summary: dict | None) -> tuple[str, int, dict]:
    return status, (summary or {}).get("rounds", 0), summary or {}


# A phone's requests about its table, built once (at a turn's close a hall's 400 phones each run them: building
# a statement and its cache key cost as much as running it).
_ENTRANTS_NUMBERED = select(ClubEntrant).where(
    ClubEntrant.evening_id == bindparam("evening_id"), ClubEntrant.number.in_(bindparam("numbers", expanding=True))
)
_SEATED_TABLE = (
    select(ClubTable, Seat.name)
    .join(Seat, Seat.match_id == ClubTable.match_id)
    .join(Match, Match.id == ClubTable.match_id)
    .options(contains_eager(ClubTable.match))  # its page draws the match's state (a panel: the next table's)
    .where(ClubTable.evening_id == bindparam("evening_id"), ClubTable.turn == bindparam("turn"),
           Seat.phone == bindparam("phone"))
    .limit(1)
)  # fmt: skip
# The evening and the match joined are read in the group as any ORM read (models._only_the_group), and are kept
# by the table for the page that asks for them (its panel's tag too).
_TABLE_OF_MATCH = (
    select(ClubTable, ClubEvening, Match)
    .join(ClubEvening, ClubEvening.id == ClubTable.evening_id)
    .join(Match, Match.id == ClubTable.match_id)
    .where(ClubTable.match_id == bindparam("match_id"))
    .options(contains_eager(ClubTable.evening), contains_eager(ClubTable.match))
)


def entrants_numbered(evening: ClubEvening, numbers: list[int]) -> list[ClubEntrant]:
    """The evening's entrants of these numbers alone."""
    return list(db.session.scalars(_ENTRANTS_NUMBERED, {"evening_id": evening.id, "numbers": list(numbers)}))


def entrants_by_number(evening: ClubEvening, numbers: list[int]) -> dict[int, ClubEntrant]:
    """These entrants of the evening by number: from its entrants where the request read them already, else these
    alone (a phone's request about its table: at a turn's close 400 of them would each read the hall's 200 pairs)."""
    if "entrants" in evening.__dict__:
        return {entrant.number: entrant for entrant in evening.entrants if entrant.number in numbers}
    return {entrant.number: entrant for entrant in entrants_numbered(evening, numbers)}


def seated_table(evening: ClubEvening, credential: str) -> tuple[ClubTable, str] | None:
    """The current turn's table where this phone holds a seat, and the seat's player, in one statement (not the
    evening's every table)."""
    values = {"evening_id": evening.id, "turn": evening.turn, "phone": hash_token(credential)}
    found = db.session.execute(_SEATED_TABLE, values).first()
    return None if found is None else (found[0], found[1])


# A table's panel also draws the side this phone sits for, from its match's seats: read in the same statement.
_PANEL_OF_MATCH = (
    _TABLE_OF_MATCH.outerjoin(Seat, Seat.match_id == Match.id)
    .options(contains_eager(ClubTable.match, Match.seats))
    .order_by(Seat.position)
)


def table_of_match(match_id: int, seats: bool = False) -> ClubTable | None:
    """The evening's table whose match this is (None: a match of no evening), with its evening and match (and the
    match's `seats`, for its panel), in one statement."""
    if seats:
        return db.session.scalars(_PANEL_OF_MATCH, {"match_id": match_id}).unique().first()
    return db.session.scalars(_TABLE_OF_MATCH, {"match_id": match_id}).first()


# What a table's panel is drawn from, in one read (see panel_tag), by its match.
_PANEL = (
    select(ClubEvening.turn, ClubEvening.status, ClubTable.state, Match.status, Match.version,
           ClubEvening.clock_ends_at, ClubEvening.clock_left_ms, ClubTable.called_at, ClubTable.confirmed_at)
    .join(ClubTable, ClubTable.evening_id == ClubEvening.id)
    .join(Match, Match.id == ClubTable.match_id)
)  # fmt: skip


def panel_tag(table: ClubTable, match: Match) -> str:
    """The tag of a table's panel, its poll's, from what the panel is drawn from (`table_of_match` read it in one
    statement): the evening's turn and status, the table's state, its match's status and, once it is no longer
    played, its version (the points to confirm), the turn's clock and the table's call for the arbiter.

    Another table's confirmation leaves the panel unchanged, a counted table's too (its panel does not count the
    turn's tables): tagged with the evening's version, each of a turn's 100 confirmations redrew the panels of the
    400 phones, or of the counted tables', most of the turn's close at a hall's size. A hand saved leaves it
    unchanged too, the table still playing: tagged with each version, every save redrew its table's 4 panels."""
    evening = table.evening
    return _panel_tag(evening.turn, evening.status, table.state, match.status, match.version, evening.clock_ends_at,
                      evening.clock_left_ms, table.called_at, table.confirmed_at)  # fmt: skip


# The panels of many addresses at once, each row with its match's id, address and group: the poll board's read.
_PANELS_AT = _PANEL.add_columns(Match.id, Match.public_id, Match.group_id).where(
    Match.public_id.in_(bindparam("public_ids", expanding=True))
)


class BoardPanel(NamedTuple):
    """A table's panel as the poll board keeps it: what its tag is made of (made at each poll: the clock's state
    moves with the time), its match's id and its group."""

    tag_of: tuple
    match_id: int
    group_id: int

    @property
    def tag(self) -> str:
        """The panel's tag now (`panel_tag`'s)."""
        return _panel_tag(*self.tag_of)

    @property
    def match_version(self) -> int:
        """Its match's version, which even an unchanged panel's answer names (views.club.table_panel)."""
        return self.tag_of[4]


def panel_states_at(public_ids: list[str], connection: Connection) -> dict[str, BoardPanel]:
    """The panel of each of these addresses that has a club table, by address, in one statement."""
    rows = connection.execute(_PANELS_AT, {"public_ids": public_ids})
    return {row[10]: BoardPanel(tuple(row[:9]), row[9], row[11]) for row in rows}


def _panel_tag(turn: int, status: str, state: str, match_status: str, match_version: int, ends_at: datetime | None,
               left_ms: int | None, called_at: datetime | None, counted_at: datetime | None) -> str:  # fmt: skip
    # The match as the panel draws it: playing, or its points to confirm, which each version may change. The clock
    # as stored (a start, a pause, an extension) and its state now (time up moves it with nothing written); the
    # table's call for the arbiter, made or answered; when its result was counted (the arbiter's correction of a
    # counted result leaves its state as it was).
    match = "mp" if match_status == PLAYING else f"m{match_version}"
    stored = _stored_clock(ends_at, left_ms)
    clock = f"-c{stored.ends_ms}-{left_ms}-{stored.state(now_ms())}"
    called = f"-a{ms_of(called_at)}" if called_at is not None else ""
    counted = f"-k{ms_of(counted_at)}" if counted_at is not None else ""
    return f'"t{turn}-{status}-{state}-{match}{clock}{called}{counted}"'


def tables_version(evening: ClubEvening) -> int:
    """The current turn's matches' versions summed: it grows with every hand saved at any of its tables (a
    version only grows), so the arbiter's page follows each table's hands, not only the evening's writes."""
    ids = [table.match_id for table in evening.tables if table.turn == evening.turn and table.match_id]
    if not ids:
        return 0
    return db.session.execute(select(func.sum(Match.version)).where(Match.id.in_(ids))).scalar() or 0


def drawn_at(evening: ClubEvening) -> datetime | None:
    """When the evening's current turn was drawn (its log's line), None before turn 1."""
    statement = select(func.max(ClubLog.at)).where(
        ClubLog.evening_id == evening.id, ClubLog.action == "draw", ClubLog.turn == evening.turn
    )
    return db.session.execute(statement).scalar()


def now_ms() -> int:
    """The server's time in milliseconds since the epoch: what the clocks are read at, and `X-Server-Time`."""
    return time.time_ns() // 1_000_000


def ms_of(moment: datetime) -> int:
    """A stored (naive UTC) time in milliseconds since the epoch."""
    return int(moment.replace(tzinfo=UTC).timestamp() * 1000)


def at_ms(ms: int) -> datetime:
    """Milliseconds since the epoch as a stored (naive UTC) time."""
    return datetime.fromtimestamp(ms / 1000, UTC).replace(tzinfo=None)


def clock_of(evening: ClubEvening) -> Clock:
    """The current turn's clock as stored."""
    return _stored_clock(evening.clock_ends_at, evening.clock_left_ms)


def _stored_clock(ends_at: datetime | None, left_ms: int | None) -> Clock:
    """A clock from its stored columns: its end (running) or its time left (paused)."""
    return Clock(ends_ms=ms_of(ends_at) if ends_at is not None else None, paused_left_ms=left_ms)
