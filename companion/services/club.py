"""Writes of a club evening: set up, each turn drawn with a match at every table, the other side's confirmation,
the arbiter's decisions; each under the evening's lock, each logged."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import update

from ..extensions import db
from ..games.checks import checked_name, clean_note, name_key, whole
from ..games.club import plan as plans
from ..games.club.movements import Turn
from ..games.club.standings import SIDES
from ..games.refusals import N_, ChangedMeanwhile, NotAllowed, RuleError
from ..models import FINISHED, Group, Match, utcnow
from ..models.club import (
    ARBITER,
    COUNTED,
    EVENING_OVER,
    EVENING_PLAYING,
    EVENING_SETUP,
    NOTE_MAX,
    TABLE_BYE,
    TABLE_CLOSED,
    TABLE_CONFIRMED,
    ClubEntrant,
    ClubEvening,
    ClubLog,
    ClubTable,
)
from ..queries import club as read
from . import matches
from .roster import roster_players
from .transaction import transaction

# The team names of a table's match in pairs: the sides as the table calls them.
NORTH_SOUTH, EAST_WEST = SIDES
OUTCOMES = ("average", "zero")
# A table card's key: 16 random bytes, 22 characters in its address.
CARDS_KEY_BYTES = 16


def create_evening(
    name: str, raw_plan: Mapping[str, Any], entrants: Sequence[tuple[Sequence[str], str | None]]
) -> ClubEvening:
    """A new evening of the current group, its entrants numbered in the order given (the seeding of turn 1).

    `entrants`: each one's players (two for a pair, one alone) and club (None: none). Every name is checked
    and no player is entered twice; the plan is checked for that many entrants (`plan.checked`).
    """
    title = checked_name(name) if name.strip() else ""
    plan = plans.checked(raw_plan, len(entrants))
    rows = [_entrant(players, club, plan.pairs, number) for number, (players, club) in enumerate(entrants, 1)]
    _distinct(row.players for row in rows)
    with transaction():
        roster_players([player for row in rows for player in row.players])
        evening = ClubEvening(name=title, game=plan.game, pairs=plan.pairs, turns=plan.turns, hands=plan.hands,
                              rules=plan.to_json(), entrants=rows)  # fmt: skip
        db.session.add(evening)
        db.session.flush()
        group = db.session.get(Group, evening.group_id)
        if group.cards_key is None:
            # The group's table cards, printed once for every evening to come, are made with its first.
            group.cards_key = secrets.token_urlsafe(CARDS_KEY_BYTES)
        _log(evening, ARBITER, "create", after={"entrants": len(rows)})
    return evening


def _entrant(players: Sequence[str], club: str | None, pairs: bool, number: int) -> ClubEntrant:
    """An entrant's row, its names checked; a RuleError names the entrant's field."""
    field = f"entrant-{number}"
    if len(players) != (2 if pairs else 1):
        raise RuleError(N_("a pair is two players") if pairs else N_("one player an entrant"), field=field)
    names = [checked_name(player, field) for player in players]
    return ClubEntrant(number=number, players=names, club=checked_name(club, field) if club and club.strip() else None)


def _distinct(teams: Iterable[Sequence[str]]) -> None:
    """No player in two entrants (nor twice in one)."""
    seen: set[str] = set()
    for players in teams:
        for player in players:
            if name_key(player) in seen:
                raise RuleError(N_("%(name)s is entered twice", name=player), field="entrants")
            seen.add(name_key(player))


def add_entrant(evening: ClubEvening, players: Sequence[str], club: str | None) -> ClubEntrant:
    """A pair or a player added at the door, or after turn 1 (playing from the next turn drawn); refused where
    the movement dealt every turn at the start (Mitchell, all'italiana) and the evening has begun."""
    plan = read.plan_of(evening)
    with _locked(evening):
        if evening.status == EVENING_OVER:
            raise NotAllowed(N_("this evening is over"))
        if evening.turn and plan.then in plans.SCHEDULED:
            raise NotAllowed(N_("a Mitchell or an all'italiana deals every turn at the start: no entrant joins later"))
        number = max((entrant.number for entrant in evening.entrants), default=0) + 1
        entrant = _entrant(players, club, evening.pairs, number)
        _distinct([*(row.players for row in evening.entrants), entrant.players])
        entrant.joined_turn = evening.turn + 1
        roster_players(entrant.players)
        evening.entrants.append(entrant)
        _log(evening, ARBITER, "add", entrant=number, after={"players": entrant.players, "club": entrant.club})
    return entrant


def withdraw(evening: ClubEvening, number: int) -> None:
    """An entrant withdraws after the current turn: its results stand, its later opponents get a bye's points."""
    with _locked(evening):
        if evening.status == EVENING_OVER:
            raise NotAllowed(N_("this evening is over"))
        entrant = _entrant_of(evening, number)
        if entrant.withdrawn_after is not None:
            raise NotAllowed(N_("this entrant has withdrawn already"))
        entrant.withdrawn_after = evening.turn
        if evening.turn < evening.turns:
            # The turns still to come must be drawn without it: one left alone would leave the evening stuck.
            try:
                _next_turn(evening)
            except RuleError as error:
                raise RuleError(error.message, field="entrant") from None
        _log(evening, ARBITER, "withdraw", entrant=number, after={"after_turn": evening.turn})


def start(evening: ClubEvening) -> None:
    """The host starts the evening: turn 1 drawn, a match at each table."""
    with _locked(evening):
        if evening.status != EVENING_SETUP:
            raise NotAllowed(N_("this evening has begun already"))
        _draw_next(evening)


def _draw_next(evening: ClubEvening) -> None:
    """The next turn drawn (the standings of the turns before deciding it where the movement pairs by them),
    a match started at each table with the phones of each entrant carried to its players' seats."""
    number = evening.turn + 1
    drawn = _next_turn(evening)
    by_number = {entrant.number: entrant for entrant in evening.entrants}
    # A scheduled movement deals every entrant of turn 1 its table: one a withdrawn side leaves vacant is not played
    # (no match; the other side counts a bye's points, as the standings' rule says), and counts at once.
    played = [table for table in drawn.tables if all(_plays(by_number[side], number) for side in table.sides)]
    # Each phone that followed a player to the turn before is seated at the player's seat again.
    made = matches.started_together(evening.game, [_table_setup(evening, [by_number[side] for side in table.sides])
                                                   for table in played], read.phones_of(evening))  # fmt: skip
    for table, match in zip(played, made, strict=True):
        evening.tables.append(ClubTable(turn=number, number=table.number, sides=list(table.sides), match_id=match.id))
    for table in (table for table in drawn.tables if table not in played):
        evening.tables.append(ClubTable(turn=number, number=table.number, sides=list(table.sides), state=TABLE_BYE))
    for bye in drawn.byes:
        evening.tables.append(ClubTable(turn=number, number=0, sides=[bye], state=TABLE_BYE))
    evening.turn = number
    evening.status = EVENING_PLAYING
    # A new turn's clock waits for the host to start it.
    evening.clock_ends_at = evening.clock_left_ms = None
    _log(evening, ARBITER, "draw", turn=number, after={"tables": len(drawn.tables), "byes": list(drawn.byes)})


def _next_turn(evening: ClubEvening) -> Turn:
    """The evening's next turn as its movement draws it for the entrants playing it; a RuleError where it cannot."""
    number = evening.turn + 1
    playing = [entrant.number for entrant in read.ranked(evening) if _plays(entrant, number)]
    # An entrant withdrawn before the start (after turn 0) is dealt no table of a scheduled movement.
    starting = [entrant.number for entrant in evening.entrants if _plays(entrant, 1)]
    clubs = {entrant.number: entrant.club for entrant in evening.entrants if entrant.club}
    return plans.draw(read.plan_of(evening), number, playing, read.turns(evening), starting, clubs)


def _plays(entrant: ClubEntrant, number: int) -> bool:
    return entrant.joined_turn <= number and (entrant.withdrawn_after is None or entrant.withdrawn_after >= number)


def _table_setup(evening: ClubEvening, sides: Sequence[ClubEntrant]) -> tuple[list[str], dict[str, Any]]:
    """The players and settings of one table's match: seated N/S, E/W, N/S, E/W (partners opposite), exactly the
    turn's hands (no target)."""
    north_south, east_west = sides
    if evening.game == "burraco":
        settings: dict[str, Any] = {"target": None, "hands": evening.hands}
        if evening.pairs:
            names = [north_south.players[0], east_west.players[0], north_south.players[1], east_west.players[1]]
            settings["teams"] = {NORTH_SOUTH: north_south.players, EAST_WEST: east_west.players}
        else:
            names = [north_south.players[0], east_west.players[0]]
        return names, settings
    return [north_south.players[0], east_west.players[0]], {"sets": evening.hands}


def table_points(evening: ClubEvening, table: ClubTable, match: Match) -> list[int]:
    """Each side's points of a table's finished match (Pazaak: the sets each side won)."""
    totals = match.summary.get("totals", {})
    if evening.game == "burraco" and evening.pairs:
        return [totals[NORTH_SOUTH], totals[EAST_WEST]]
    by_number = {entrant.number: entrant for entrant in evening.entrants}
    return [totals[by_number[side].players[0]] for side in table.sides]


def confirm_as_arbiter(evening: ClubEvening, turn: int | None, number: int | None) -> None:
    """The arbiter confirms a table's result as its match totals it (its phones could not, or did not)."""
    with _locked(evening):
        table = _table_of(evening, turn, number)
        if table.state in COUNTED:
            return
        match = db.session.get(Match, table.match_id) if table.match_id else None
        if match is None or match.status != FINISHED:
            raise NotAllowed(N_("the turn's hands are not all played at this table yet"))
        table.hands_played = len(match.rounds)
        _count(evening, table, table_points(evening, table, match), ARBITER, "confirm")


def renew_cards(group: Group) -> None:
    """New keys for the group's table cards: a card printed before opens nothing from now on."""
    with transaction():
        group.cards_key = secrets.token_urlsafe(CARDS_KEY_BYTES)


def renew_hall_link(evening: ClubEvening) -> None:
    """A new key for the evening's hall link: the screens opened with the old one stop at their next poll."""
    with transaction():
        db.session.execute(
            update(ClubEvening).where(ClubEvening.id == evening.id).values(hall_link=ClubEvening.hall_link + 1)
        )
    db.session.expire(evening, ["hall_link"])


def settle(evening: ClubEvening, turn: int, number: int, points: Sequence[Any], note: str) -> None:
    """The arbiter gives a table its points (a disputed one, one waiting, or one counted already: a correction,
    the value before kept in the log). A turn drawn after it keeps its tables; the standings change."""
    values = [whole(value, N_("a side's points"), lo=-100_000, hi=100_000, field=f"points-{side}")
              for side, value in enumerate(points)]  # fmt: skip
    with _locked(evening):
        table = _table_of(evening, turn, number)
        if table.state == TABLE_BYE or len(values) != len(table.sides):
            raise RuleError(N_("a result gives each side of the table its points"), field="points")
        # The hands its match ended with (fewer where the clock cut it: counted pro rata, as confirmed); points
        # given for a match still under way are the turn's.
        match = db.session.get(Match, table.match_id) if table.match_id else None
        table.hands_played = len(match.rounds) if match is not None and match.status == FINISHED else None
        _count(evening, table, values, ARBITER, "correct" if table.state in COUNTED else "settle", note)


def close_turn(evening: ClubEvening, turn: Any, outcomes: Mapping[int, str | Sequence[int]], note: str = "") -> None:
    """The arbiter closes the current turn, `turn` (the one the page showed): each table not counted yet gets
    `outcomes[table]` ("average", "zero", or each side's tournament points; a table left out: "average"), noted
    in the log; then the next turn is drawn."""
    with _locked(evening):
        _in_turn(evening, turn)
        waiting = [table for table in evening.tables if table.turn == evening.turn and table.state not in COUNTED]
        numbers = {table.number for table in waiting}
        for number in outcomes:
            if number not in numbers:
                raise RuleError(N_("table %(n)s of this turn has no result to give", n=number), field=f"table-{number}")
        for table in waiting:
            given = _outcome(outcomes.get(table.number, "average"), table)
            before = {"state": table.state, "points": table.points}
            table.state, table.given, table.confirmed_by = TABLE_CLOSED, given, ARBITER
            _log(evening, ARBITER, "close", turn=table.turn, table=table.number, before=before,
                 after={"given": given}, note=note)  # fmt: skip
            answer(evening, table)
        _next_if_counted(evening)


def _outcome(value: str | Sequence[int], table: ClubTable) -> str | list[int]:
    """An outcome the arbiter gives a table: one of OUTCOMES, or tournament points, one per side."""
    if isinstance(value, str):
        if value not in OUTCOMES:
            raise RuleError(
                N_("a closed table is given average, zero or tournament points"), field=f"table-{table.number}"
            )
        return value
    given = [whole(points, N_("tournament points"), lo=0, hi=20, field=f"table-{table.number}") for points in value]
    if len(given) != len(table.sides):
        raise RuleError(N_("each side of the table is given its tournament points"), field=f"table-{table.number}")
    return given


def late(evening: ClubEvening, turn: Any, number: int, penalty: Any, note: str = "") -> None:
    """The arbiter marks an entrant late for the current turn, `turn` (`penalty` 0 lifts it), as the evening's
    rule counts it (points, or tournament points)."""
    rules = read.plan_of(evening)
    limit = plans.penalty_limit(rules.late_costs, rules.scale)
    penalty = whole(penalty, N_("the penalty"), lo=0, hi=limit, field="penalty")
    with _locked(evening):
        _in_turn(evening, turn)
        _entrant_of(evening, number)
        _log(evening, ARBITER, "late", turn=evening.turn, entrant=number, after={"penalty": penalty}, note=note)
        read.check_events(evening)


def forfeit(evening: ClubEvening, turn: Any, number: int, note: str = "") -> None:
    """The arbiter records a forfeit: the entrant gets nothing for the current turn, `turn`, its opponent a bye's
    points."""
    with _locked(evening):
        _in_turn(evening, turn)
        _entrant_of(evening, number)
        table = next((t for t in evening.tables if t.turn == evening.turn and number in t.sides), None)
        if table is None or table.state == TABLE_BYE:
            raise RuleError(N_("this entrant has no table in this turn"), field="entrant")
        _log(evening, ARBITER, "forfeit", turn=evening.turn, table=table.number, entrant=number, note=note)
        table.state, table.confirmed_by = TABLE_CONFIRMED, ARBITER
        read.check_events(evening)
        _next_if_counted(evening)


def _count(evening: ClubEvening, table: ClubTable, points: list[int], by: str, action: str, note: str = "") -> None:
    """A table's points counted (confirmed, settled or corrected), logged with the values before; the next
    turn drawn when it was the current turn's last."""
    before = {"state": table.state, "points": table.points}
    table.points, table.state = points, TABLE_CONFIRMED
    table.confirmed_by, table.confirmed_at = by, utcnow()
    _log(evening, by, action, turn=table.turn, table=table.number, before=before, after={"points": points}, note=note)
    if by == ARBITER:
        answer(evening, table)
    read.check_events(evening)
    _next_if_counted(evening)


def answer(evening: ClubEvening, table: ClubTable) -> None:
    """The table's call for the arbiter answered (the arbiter came, or gave its result): it leaves the arbiter's page
    and the hall's, its reason kept in the log."""
    if table.call is not None:
        _log(evening, ARBITER, "answered", turn=table.turn, table=table.number, note=table.call)
        table.call = table.called_at = None


def _next_if_counted(evening: ClubEvening) -> None:
    """When every table of the current turn counts: the next turn drawn, or the evening over after the last."""
    if evening.status == EVENING_OVER or any(
        table.state not in COUNTED for table in evening.tables if table.turn == evening.turn
    ):
        return
    if evening.turn >= evening.turns:
        evening.status = EVENING_OVER
        _log(evening, ARBITER, "over", turn=evening.turn)
    else:
        _draw_next(evening)


@contextmanager
def _locked(evening: ClubEvening) -> Iterator[None]:
    """A transaction holding the evening's write lock, taken by bumping its version (as a match's): two writers
    run one after the other, the second on what the first left; what it may have changed is read again."""
    with transaction():
        bumped = update(ClubEvening).where(ClubEvening.id == evening.id).values(version=ClubEvening.version + 1)
        db.session.execute(bumped.execution_options(synchronize_session=False))
        db.session.refresh(evening)
        for name in ("entrants", "tables"):
            db.session.refresh(evening, attribute_names=[name])
        yield


def _in_play(evening: ClubEvening) -> None:
    """Refuse a decision about the current turn where there is none: before the start, or once the evening is over."""
    if evening.status == EVENING_OVER:
        raise NotAllowed(N_("this evening is over"))
    if evening.status == EVENING_SETUP:
        raise NotAllowed(N_("this evening has not begun: start it first"))


def _in_turn(evening: ClubEvening, turn: Any) -> None:
    """Refuse a decision about the current turn made on a page that showed another (a second tap on Close turn, a
    page left open while the turn moved on): it would fall on a turn the arbiter has not looked at."""
    _in_play(evening)
    if turn != evening.turn:
        raise ChangedMeanwhile(N_("the page showed another turn: this is turn %(n)s now; look at it, then decide",
                                  n=evening.turn))  # fmt: skip


def _table_of(evening: ClubEvening, turn: Any, number: Any) -> ClubTable:
    """A table of the evening, or a RuleError: the turn has no such table."""
    if turn is None or number is None:
        raise RuleError(N_("pick a turn and one of its tables"), field="table")
    found = read.table_at(evening, turn, number)
    if found is None:
        raise RuleError(N_("turn %(turn)s has no table %(n)s", turn=turn, n=number), field="table")
    return found


def _entrant_of(evening: ClubEvening, number: Any) -> ClubEntrant:
    found = next((entrant for entrant in evening.entrants if entrant.number == number), None)
    if found is None and number is None:
        raise RuleError(N_("pick one of the evening's entrants"), field="entrant")
    if found is None:
        raise RuleError(N_("no entrant %(n)s in this evening", n=number), field="entrant")
    return found


def _log(
    evening: ClubEvening,
    by: str,
    action: str,
    *,
    turn: int | None = None,
    table: int | None = None,
    entrant: int | None = None,
    before: dict | None = None,
    after: dict | None = None,
    note: str = "",
) -> None:
    db.session.add(ClubLog(evening_id=evening.id, by=by, action=action, turn=turn, table=table, entrant=entrant,
                           before=before, after=after, note=clean_note(note, NOTE_MAX)))  # fmt: skip
