"""A club evening's standings, recomputed from its stored events: results, corrections, byes, lateness, closings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ..checks import show, whole
from ..refusals import N_, RuleError
from .movements import Entrant, Turn
from .scales import Scale

# A table's two sides, as the movements seat them and every export names them (a pair's match names its teams so);
# a page says them in its language (Italian: "E/O").
SIDE_NAMES = (N_("N/S"), N_("E/W"))
SIDES = tuple(name.text for name in SIDE_NAMES)
LATE_COSTS = ("points", "tournament points")


@dataclass(frozen=True)
class Evening:
    """What the host set and what was drawn: the entrants at the start (in seeding order, the last fallback
    of the standings), the turns drawn so far, the scale, the tournament points of a bye (a forfeit's
    opponent and a withdrawn entrant's future opponents get the same), whether lateness costs points
    (taken from the late side's points before the scale) or tournament points (taken after), and a turn's
    hands with whether a turn cut short by the clock is converted pro rata over them (else as played)."""

    entrants: tuple[Entrant, ...]
    turns: tuple[Turn, ...]
    scale: Scale
    bye_points: int
    late_costs: Literal["points", "tournament points"] = "points"
    hands: int = 0
    pro_rata: bool = True

    def __post_init__(self) -> None:
        whole(self.bye_points, N_("the tournament points of a bye"), lo=0, hi=self.scale.top, field="bye_points")
        if self.late_costs not in LATE_COSTS:
            raise RuleError(N_("lateness costs points or tournament points"), field="late_costs")


# The events, in the order they were stored. A later Result, Forfeit or closing of a table replaces an earlier
# one (a correction); a later Late for the same entrant and turn replaces an earlier one (0 lifts it).


@dataclass(frozen=True)
class Result:
    """A table's confirmed points, one figure per side, over `played` hands (None: the whole turn); the same
    table's later Result is a correction."""

    turn: int
    table: int
    points: tuple[int, ...]
    played: int | None = None


@dataclass(frozen=True)
class Forfeit:
    """An entrant forfeits its table of a turn: 0 tournament points; its opponent gets a bye's."""

    turn: int
    entrant: Entrant


@dataclass(frozen=True)
class Late:
    """An entrant came late to a turn: `penalty` points or tournament points off, as the evening says."""

    turn: int
    entrant: Entrant
    penalty: int


@dataclass(frozen=True)
class Closed:
    """The arbiter closes a turn: each table without a result gets one, `outcomes` (table → "average",
    "zero", or the tournament points the arbiter gives, one per side)."""

    turn: int
    outcomes: Mapping[int, str | tuple[int, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Joined:
    """An entrant added after the start, playing from the turn drawn next."""

    entrant: Entrant


@dataclass(frozen=True)
class Withdrawn:
    """An entrant withdraws after `after_turn`: its results stand; its later opponents get a bye's points."""

    entrant: Entrant
    after_turn: int


Event = Result | Forfeit | Late | Closed | Joined | Withdrawn
How = Literal["played", "bye", "forfeit", "adjusted", "average", "zero", "pending"]


@dataclass(frozen=True)
class Meeting:
    """One turn of an entrant's path: where it sat, against whom, its points and tournament points."""

    turn: int
    table: int | None
    side: str | None
    opponent: Entrant | None
    points_for: int
    points_against: int
    tournament_points: int
    how: How

    @property
    def difference(self) -> int:
        return self.points_for - self.points_against


@dataclass(frozen=True)
class Standing:
    """An entrant's line: place (1 first), tournament points, points difference and path."""

    place: int
    entrant: Entrant
    tournament_points: int
    difference: int
    path: tuple[Meeting, ...]
    withdrawn: bool = False


def standings(evening: Evening, events: Iterable[Event]) -> list[Standing]:
    """The standings, best first: tournament points, then the points difference, then head-to-head (the
    tournament points the tied entrants took from one another), then seeding order, joiners last.

    A bad event (a table the turn does not have, an unknown entrant…) is a RuleError naming its field: the
    caller checks a new event by computing the standings with it before storing it.
    """
    state = _State(evening)
    for event in events:
        state.apply(event)
    totals = {}
    paths = {entrant: state.path(entrant) for entrant in state.entrants}
    for entrant, path in paths.items():
        counted = [meeting for meeting in path if meeting.how != "pending"]
        totals[entrant] = (sum(m.tournament_points for m in counted), sum(m.difference for m in counted))
    ranked = _ranked(list(state.entrants), totals, paths)
    return [Standing(place, e, *totals[e], tuple(paths[e]), e in state.withdrawn) for place, e in enumerate(ranked, 1)]


def accept(evening: Evening, events: Sequence[Event], event: Event) -> list[Standing]:
    """The standings with `event` added, or the RuleError that refuses it (nothing to store then)."""
    return standings(evening, [*events, event])


def shared_places(lines: Sequence[Standing]) -> list[int]:
    """Each line's place as a tie is shown: where only the seeding orders two lines (the same tournament points,
    difference and head-to-head), the later one shares the earlier one's place ("1, 1, 3"), kept in this order."""
    paths = {line.entrant: list(line.path) for line in lines}
    groups: dict[tuple[int, int], list[Entrant]] = {}
    for line in lines:
        groups.setdefault((line.tournament_points, line.difference), []).append(line.entrant)
    head_to_head = {e: taken for tied in groups.values() for e, taken in _head_to_head(tied, paths).items()}
    places: list[int] = []
    for before, line in zip([None, *lines], lines, strict=False):
        key = (line.tournament_points, line.difference, head_to_head[line.entrant])
        same = before is not None and key == (before.tournament_points, before.difference, head_to_head[before.entrant])
        places.append(places[-1] if same else line.place)
    return places


def _head_to_head(tied: list[Entrant], paths: Mapping[Entrant, list[Meeting]]) -> dict[Entrant, int]:
    """The tournament points each of the tied took from the others; none where two of them never met: a mini-league
    not played through would rank an entrant on meetings it never had."""
    between = set(tied)
    meetings = {e: [m for m in paths[e] if m.how != "pending" and m.opponent in between] for e in tied}
    met = {frozenset((e, m.opponent)) for e in tied for m in meetings[e]}
    if len(met) < len(tied) * (len(tied) - 1) // 2:
        return dict.fromkeys(tied, 0)
    return {e: sum(m.tournament_points for m in meetings[e]) for e in tied}


def _ranked(entrants: list[Entrant], totals: dict, paths: dict[Entrant, list[Meeting]]) -> list[Entrant]:
    by_totals = sorted(entrants, key=lambda e: (-totals[e][0], -totals[e][1]))  # stable: seeding order kept
    ranked: list[Entrant] = []
    while by_totals:
        tied = [e for e in by_totals if totals[e] == totals[by_totals[0]]]
        head_to_head = _head_to_head(tied, paths)
        ranked += sorted(tied, key=lambda e: -head_to_head[e])
        by_totals = by_totals[len(tied) :]
    return ranked


class _State:
    """The events applied one by one: each table's latest outcome, lateness, who joined and who withdrew."""

    def __init__(self, evening: Evening):
        self.evening = evening
        self.entrants: dict[Entrant, None] = dict.fromkeys(evening.entrants)
        self.turns = {turn.number: turn for turn in evening.turns}
        self.outcomes: dict[tuple[int, int], tuple[str, tuple[int, ...]]] = {}
        self.late: dict[tuple[int, Entrant], int] = {}
        self.played: dict[tuple[int, int], int | None] = {}
        self.withdrawn: dict[Entrant, int] = {}

    def apply(self, event: Event) -> None:
        if isinstance(event, Joined):
            if event.entrant in self.entrants:
                raise RuleError(N_("%(name)s is already an entrant", name=show(event.entrant)), field="entrant")
            self.entrants[event.entrant] = None
        elif isinstance(event, Withdrawn):
            self._known(event.entrant)
            whole(event.after_turn, N_("the turn after which it withdraws"), lo=0, field="turn")
            later = [key for key in self.outcomes if key[0] > event.after_turn and event.entrant in self._at(key)]
            if event.entrant in self.withdrawn or later:
                raise RuleError(N_("it has already withdrawn, or played after that turn"), field="entrant")
            self.withdrawn[event.entrant] = event.after_turn
        elif isinstance(event, Result):
            sides = self._table(event.turn, event.table)
            if len(event.points) != len(sides):
                raise RuleError(N_("a result gives points to each of the %(n)s sides", n=len(sides)), field="points")
            for figure in event.points:
                whole(figure, N_("a side's points"), field="points")
            self._playing(event.turn, sides)
            self.outcomes[(event.turn, event.table)] = ("played", tuple(event.points))
            self.played[(event.turn, event.table)] = event.played
        elif isinstance(event, Forfeit | Late):
            number, sides = self._seat(event.turn, event.entrant)
            if isinstance(event, Late):
                whole(event.penalty, N_("the penalty"), lo=0, field="penalty")
                self.late[(event.turn, event.entrant)] = event.penalty
            else:
                self._playing(event.turn, sides)
                # Both sides may forfeit one table: each gets nothing, neither a bye's points.
                how, before = self.outcomes.get((event.turn, number), ("pending", ()))
                gone = {side for side, out in zip(sides, before, strict=True) if out} if how == "forfeit" else set()
                gone.add(event.entrant)
                self.outcomes[(event.turn, number)] = ("forfeit", tuple(int(side in gone) for side in sides))
        elif isinstance(event, Closed):
            self._close(event)
        else:
            raise RuleError(N_("not an event of an evening"), field="event")

    def _close(self, event: Closed) -> None:
        turn = self._turn(event.turn)
        open_tables = {
            table.number
            for table in turn.tables
            if (turn.number, table.number) not in self.outcomes and not self._vacant(turn.number, table.sides)
        }
        if set(event.outcomes) != open_tables:
            raise RuleError(N_("closing gives a result to each table still open, and only to those"), field="tables")
        for number, outcome in event.outcomes.items():
            sides = turn.tables[number - 1].sides
            if outcome in ("average", "zero"):
                self.outcomes[(turn.number, number)] = (outcome, ())
                continue
            top = self.evening.scale.top
            if not isinstance(outcome, tuple) or len(outcome) != len(sides):
                raise RuleError(N_("average, zero, or tournament points for each side"), field=f"tables.{number}")
            for figure in outcome:
                whole(figure, N_("the tournament points given"), lo=0, hi=top, field=f"tables.{number}")
            self.outcomes[(turn.number, number)] = ("adjusted", outcome)

    def _known(self, entrant: Entrant) -> None:
        if entrant not in self.entrants:
            raise RuleError(N_("%(name)s is not an entrant", name=show(entrant)), field="entrant")

    def _turn(self, number: int) -> Turn:
        if number not in self.turns:
            raise RuleError(N_("the evening has no turn %(n)s", n=show(number)), field="turn")
        return self.turns[number]

    def _table(self, turn: int, number: int) -> tuple[Entrant, ...]:
        table = self._turn(turn).table(number) if isinstance(number, int) else None
        if table is None:
            raise RuleError(N_("turn %(turn)s has no table %(n)s", turn=turn, n=show(number)), field="table")
        return table.sides

    def _seat(self, turn: int, entrant: Entrant) -> tuple[int, tuple[Entrant, ...]]:
        self._known(entrant)
        for table in self._turn(turn).tables:
            if entrant in table.sides:
                return table.number, table.sides
        raise RuleError(N_("%(name)s has no table in turn %(n)s", name=show(entrant), n=turn), field="entrant")

    def _at(self, key: tuple[int, int]) -> tuple[Entrant, ...]:
        return self.turns[key[0]].tables[key[1] - 1].sides

    def _vacant(self, turn: int, sides: Iterable[Entrant]) -> bool:
        """Whether a side of this table had withdrawn before the turn: the table is not played."""
        return any(self.withdrawn.get(side, turn) < turn for side in sides)

    def _playing(self, turn: int, sides: tuple[Entrant, ...]) -> None:
        if self._vacant(turn, sides):
            raise RuleError(N_("a side of this table had withdrawn before turn %(n)s", n=turn), field="table")

    def path(self, entrant: Entrant) -> list[Meeting]:
        path = []
        for turn in self.evening.turns:
            if self.withdrawn.get(entrant, turn.number) < turn.number:
                continue
            if entrant in turn.byes:
                path.append(self._bye(turn.number))
            for table in turn.tables:
                if entrant in table.sides:
                    path.append(self._meeting(turn.number, table.number, table.sides, entrant))
        return path

    def _bye(self, turn: int, table: int | None = None, side: str | None = None, opponent=None) -> Meeting:
        return Meeting(turn, table, side, opponent, 0, 0, self.evening.bye_points, "bye")

    def _meeting(self, turn: int, number: int, sides: tuple[Entrant, ...], entrant: Entrant) -> Meeting:
        mine = sides.index(entrant)
        other = sides[1 - mine]
        where = (turn, number, SIDES[mine], other)
        if self._vacant(turn, sides):
            return self._bye(*where)
        how, figures = self.outcomes.get((turn, number), ("pending", ()))
        if how == "played":
            late = [self.late.get((turn, side), 0) for side in sides]
            in_points = self.evening.late_costs == "points"
            less = late if in_points else [0] * len(sides)
            played = self.played.get((turn, number)) if self.evening.pro_rata else None
            # Off the points as played: a turn cut short is counted pro rata first, its penalty not multiplied.
            awarded = self.evening.scale.convert_played(figures, played, self.evening.hands, less)
            shown = [figure - penalty for figure, penalty in zip(figures, less, strict=True)]
            taken = 0 if in_points else late[mine]
            return Meeting(*where, shown[mine], shown[1 - mine], awarded[mine] - taken, "played")
        if how == "forfeit":
            meeting = self._bye(*where)
            return replace(meeting, how="forfeit", tournament_points=0) if figures[mine] else meeting
        given = {"average": self.evening.scale.neutral, "zero": (0, 0), "adjusted": figures}.get(how, (0, 0))
        meeting = Meeting(*where, 0, 0, given[mine], how)
        if how != "pending" and self.evening.late_costs == "tournament points":
            meeting = replace(meeting, tournament_points=meeting.tournament_points - self.late.get((turn, entrant), 0))
        return meeting
