"""A club evening's movements: who meets whom at which table each turn (Mitchell, Danese, all'italiana, Swiss)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

import networkx as nx

from ..refusals import N_, Np_, RuleError

Entrant = Hashable
"""An entrant's key (a pair or a player): whatever the caller keys them by, compared by equality."""


@dataclass(frozen=True)
class Table:
    """A numbered table of a turn and the entrants at it, one per side: North/South first, then East/West.

    Kept as a tuple of sides so that tables of more sides can come later.
    """

    number: int
    sides: tuple[Entrant, ...]

    @property
    def north_south(self) -> Entrant:
        return self.sides[0]

    @property
    def east_west(self) -> Entrant:
        return self.sides[1]


@dataclass(frozen=True)
class Turn:
    """One turn as drawn: its tables, numbered from 1, and the entrants with a bye (at most one per line
    or group)."""

    number: int
    tables: tuple[Table, ...]
    byes: tuple[Entrant, ...] = ()

    def table(self, number: int) -> Table | None:
        return self.tables[number - 1] if 1 <= number <= len(self.tables) else None

    def seated(self) -> list[Entrant]:
        return [entrant for table in self.tables for entrant in table.sides]


def met(turns: Iterable[Turn]) -> set[frozenset[Entrant]]:
    """Each two entrants who have sat at one table in these turns."""
    return {frozenset(pair) for turn in turns for table in turn.tables for pair in _pairs(table.sides)}


def _pairs(sides: Sequence[Entrant]) -> Iterable[tuple[Entrant, Entrant]]:
    return ((a, b) for index, a in enumerate(sides) for b in sides[index + 1 :])


def _checked(entrants: Sequence[Entrant], least: int = 2) -> list[Entrant]:
    entrants = list(entrants)
    if len(set(entrants)) != len(entrants):
        raise RuleError(N_("an entrant is listed twice"), field="entrants")
    if len(entrants) < least:
        raise RuleError(N_("this movement needs at least %(n)s entrants", n=least), field="entrants")
    return entrants


def _numbered(number: int, pairs: Iterable[tuple[Entrant, Entrant]], byes: Iterable[Entrant] = ()) -> Turn:
    tables = tuple(Table(index, sides) for index, sides in enumerate(pairs, start=1))
    return Turn(number, tables, tuple(byes))


# --- Mitchell --------------------------------------------------------------------------------------------


def mitchell_turns_possible(entrants: int) -> int:
    """The most turns a Mitchell of this many entrants holds: as many as tables, E/W meeting each N/S once."""
    return (entrants + 1) // 2


def mitchell(entrants: Sequence[Entrant], turns: int, clubs: dict[Entrant, str] | None = None) -> list[Turn]:
    """Every turn of a Mitchell: the N/S line stays at its tables, the E/W line moves up one table a turn, so no
    two meet twice. Burraco has no boards to travel: bridge's skip after half the tables has no reason here.

    The entrants are split into the two lines keeping each club (`clubs`, entrant → club; those left out
    belong to none) in one line where the sizes allow, since the lines never meet; otherwise one club alone
    is split. Order is kept within each line. With an odd number, the last N/S seat is empty and the E/W
    entrant who reaches it has the bye.
    """
    entrants = _checked(entrants)
    possible = mitchell_turns_possible(len(entrants))
    if not 1 <= turns <= possible:
        raise RuleError(
            Np_(
                "a Mitchell of %(entrants)s entrants holds %(num)s turn",
                "a Mitchell of %(entrants)s entrants holds at most %(num)s turns",
                num=possible,
                entrants=len(entrants),
            ),
            field="turns",
        )
    north_south, east_west = _lines(entrants, clubs or {})
    tables = len(east_west)
    empty = [None] * (tables - len(north_south))
    seats = north_south + empty
    schedule = []
    for turn in range(turns):
        visitor_at = {(position + turn) % tables: pair for position, pair in enumerate(east_west)}
        pairs = [(seats[table], visitor_at[table]) for table in range(tables) if seats[table] is not None]
        byes = [visitor_at[table] for table in range(tables) if seats[table] is None]
        schedule.append(_numbered(turn + 1, pairs, byes))
    return schedule


def _lines(entrants: list[Entrant], clubs: dict[Entrant, str]) -> tuple[list[Entrant], list[Entrant]]:
    """The N/S line (the smaller half) and the E/W line: whole clubs in one line where the sizes allow."""
    groups: dict[object, list[Entrant]] = {}
    for entrant in entrants:
        groups.setdefault(clubs.get(entrant, ("alone", entrant)), []).append(entrant)
    wanted = len(entrants) // 2
    # Which sums of whole clubs can fill the N/S line, and the clubs that made each sum first.
    reachable: dict[int, tuple[object, ...]] = {0: ()}
    for club, members in groups.items():
        for total, chosen in list(reachable.items()):
            reachable.setdefault(total + len(members), (*chosen, club))
    best = max(total for total in reachable if total <= wanted)
    line = [entrant for club in reachable[best] for entrant in groups[club]]
    rest = [entrant for entrant in entrants if entrant not in line]
    line += rest[: wanted - best]  # one club split, the first after the whole ones: as few meetings as sizes allow
    chosen = set(line)
    return [e for e in entrants if e in chosen], [e for e in entrants if e not in chosen]


# --- Danese, Danese modificato, Swiss ------------------------------------------------------------------------


def bye_for(order: Sequence[Entrant], past: Iterable[Turn]) -> Entrant | None:
    """Who has the bye when the entrants are odd: the lowest placed who has had none (else the lowest)."""
    if len(order) % 2 == 0:
        return None
    had = set(chain.from_iterable(turn.byes for turn in past))
    return next((entrant for entrant in reversed(order) if entrant not in had), order[-1])


def danese(order: Sequence[Entrant], number: int, past: Sequence[Turn] = ()) -> Turn:
    """A Danese turn: by `order` (the standings after the turn before; turn 1 the draw or seeding), 1st meets
    2nd, 3rd meets 4th…; the higher placed sits N/S at the lower table."""
    order = _checked(order)
    bye = bye_for(order, past)
    playing = [entrant for entrant in order if entrant != bye]
    return _numbered(number, zip(playing[::2], playing[1::2], strict=True), [bye] if bye is not None else [])


def danese_modificato(order: Sequence[Entrant], number: int, past: Sequence[Turn] = ()) -> Turn:
    """A Danese modificato turn: the pairing with the fewest rematches (none whenever one exists), and among
    those the closest to the plain Danese: the least sum of squared gaps in the standings, which the plain
    Danese alone makes least of all. A minimum-weight perfect matching (networkx) finds it."""
    order = _checked(order)
    bye = bye_for(order, past)
    playing = [entrant for entrant in order if entrant != bye]
    already = met(past)
    count = len(playing)
    # A rematch costs more than any pairing's gaps can sum to, so fewer rematches always win.
    rematch = count**3 + 1
    graph = nx.Graph()
    for high, low in _pairs(range(count)):
        cost = (low - high) ** 2 + (rematch if frozenset((playing[high], playing[low])) in already else 0)
        graph.add_edge(high, low, weight=cost)
    matching = sorted(tuple(sorted(edge)) for edge in nx.min_weight_matching(graph))
    pairs = [(playing[high], playing[low]) for high, low in matching]
    return _numbered(number, pairs, [bye] if bye is not None else [])


# A Swiss turn (Pazaak, one against one): paired by score, avoiding rematches where possible; the same pairing as
# the Danese modificato, the order being the standings.
swiss = danese_modificato


# --- All'italiana ---------------------------------------------------------------------------------------------


def round_robin_turns(size: int) -> int:
    """The turns a group of this size takes for everyone to meet everyone (one with a bye each turn if odd)."""
    return size - 1 if size % 2 == 0 else size


def all_italiana(entrants: Sequence[Entrant], groups: int, turns: int | None = None) -> list[Turn]:
    """Every turn of an all'italiana: the entrants dealt into `groups` groups in snake order of seeding
    (sizes differing by one at most), each a round robin by the circle method. `turns` defaults to a full
    round of the largest group; more than the smallest group's full round is refused."""
    entrants = _checked(entrants)
    most_groups = len(entrants) // 2
    if not 1 <= groups <= most_groups:
        raise RuleError(
            N_("%(n)s entrants make from 1 to %(most)s groups of two or more", n=len(entrants), most=most_groups),
            field="groups",
        )
    dealt: list[list[Entrant]] = [[] for _ in range(groups)]
    for index, entrant in enumerate(entrants):
        lap, place = divmod(index, groups)
        dealt[place if lap % 2 == 0 else groups - 1 - place].append(entrant)
    most = min(round_robin_turns(len(group)) for group in dealt)
    turns = max(round_robin_turns(len(group)) for group in dealt) if turns is None else turns
    if not 1 <= turns <= most:
        raise RuleError(N_("these groups hold from 1 to %(n)s turns without a rematch", n=most), field="turns")
    rounds = [_circle(group) for group in dealt]
    schedule = []
    for turn in range(turns):
        meetings = [meeting for group in rounds for meeting in group[turn]]
        pairs = [meeting for meeting in meetings if None not in meeting]
        byes = [side for meeting in meetings if None in meeting for side in meeting if side is not None]
        schedule.append(_numbered(turn + 1, pairs, byes))
    return schedule


def _circle(group: list[Entrant]) -> list[list[tuple[Entrant | None, Entrant | None]]]:
    """The circle method: one seat fixed, the others turning a place each round; None is the bye's seat."""
    seats: list[Entrant | None] = [*group, None] if len(group) % 2 else list(group)
    rounds = []
    for turn in range(len(seats) - 1):
        half = len(seats) // 2
        meetings = [(seats[i], seats[-1 - i]) for i in range(half)]
        # The fixed seat changes side each round, so no one sits N/S all evening.
        if turn % 2:
            meetings[0] = meetings[0][::-1]
        rounds.append(meetings)
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return rounds
