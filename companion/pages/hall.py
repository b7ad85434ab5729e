"""The hall screen's presenter: the evening on a TV by the door, its tables' states in words, the standings, the
next turn's seating; built on the arbiter's presenter (pages/club.EveningPage)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from functools import cached_property

from flask_babel import gettext

from ..models import utcnow
from ..models.club import EVENING_SETUP, TABLE_CLOSED
from ..queries import club as read
from ..web.display import side_word
from .club import BYE, COUNTED_STATE, DISPUTED, PLAYING, WAITING, EveningPage, TableView

# How long after a turn is drawn the hall shows everyone's table first, before the tables' states and standings.
SEATING_SHOWN = timedelta(minutes=5)
# The rooms the screen is drawn for: dark by default (a TV in a dim hall), light for a bright room.
ROOMS = ("dark", "light")


@dataclass(frozen=True)
class HallTable:
    """One table of the grid: its number, its state (the colour's class) and the state in words."""

    number: int
    state: str
    words: str


@dataclass(frozen=True)
class Seat:
    """One entrant's place in the turn: "Rossi – Bianchi: table 7, N/S" (table 0: the bye)."""

    name: str
    table: int
    side: str


# Two states the hall shows above a table's own: calling the arbiter (the number only, never the reason), and
# still playing when the turn's time is up.
CALLED, LATE = "called", "late"


def state_words() -> dict[str, str]:
    """Each state's words in the page's language, as the grid's legend says them."""
    return {PLAYING: gettext("playing"), LATE: gettext("late"), WAITING: gettext("waiting for confirmation"),
            COUNTED_STATE: gettext("confirmed"), DISPUTED: gettext("disputed"), CALLED: gettext("calls the arbiter"),
            BYE: gettext("bye")}  # fmt: skip


def table_state(page: EveningPage, table: TableView) -> tuple[str, str]:
    """A table's state on the hall screen: its class (the colour) and its words; the one place that says it."""
    if table.row.call:
        return CALLED, state_words()[CALLED]
    if table.late:
        return LATE, gettext("late · hand %(n)s of %(m)s", n=min(table.played + 1, page.evening.hands),
                             m=page.evening.hands)  # fmt: skip
    if table.state == PLAYING:
        if page.evening.game == "pazaak":
            return PLAYING, gettext("playing · set %(n)s", n=table.played + 1)
        return PLAYING, gettext("playing · hand %(n)s of %(m)s", n=min(table.played + 1, page.evening.hands),
                                m=page.evening.hands)  # fmt: skip
    if table.row.state == TABLE_CLOSED:
        return COUNTED_STATE, gettext("closed by the arbiter")
    return table.state, state_words()[table.state]


class HallPage(EveningPage):
    """The evening as the hall screen shows it (`room`: dark or light; `hall_key`: the link it was opened by)."""

    room: str = "dark"
    hall_key: str | None = None

    @cached_property
    def grid(self) -> list[HallTable]:
        """The current turn's numbered tables, each with its state."""
        return [HallTable(table.number, *table_state(self, table)) for table in self.tables if table.number]

    @cached_property
    def legend(self) -> list[tuple[str, str, int]]:
        """The grid's legend: each state in words, with how many tables are in it (those in none left out)."""
        counts = Counter(cell.state for cell in self.grid)
        return [(state, words, counts[state]) for state, words in state_words().items() if counts[state]]

    @cached_property
    def seating(self) -> list[Seat]:
        """Every entrant of the turn with its table and side, by name: what each looks for once a turn is drawn."""
        seats = []
        for table in self.tables:
            # A table a withdrawn side left vacant (a scheduled movement dealt it): a bye for the other side.
            number = 0 if table.state == BYE else table.number
            for side, entrant in enumerate(table.sides):
                if entrant.withdrawn_after is None or entrant.withdrawn_after >= self.evening.turn:
                    seats.append(Seat(entrant.name, number, side_word(side) if number else ""))
        return sorted(seats, key=lambda seat: seat.name.casefold())

    @cached_property
    def seating_first(self) -> bool:
        """Whether the turn was drawn a few minutes ago: the seating is then what the hall looks for."""
        drawn = read.drawn_at(self.evening) if not self.over else None
        return drawn is not None and utcnow() - drawn < SEATING_SHOWN

    @cached_property
    def starting(self) -> bool:
        return self.evening.status == EVENING_SETUP

    @cached_property
    def live_tag(self) -> str:
        """The polled part's ETag: the evening's writes, its tables' hands, whether the seating comes first and the
        clock's state (both move by time alone, with nothing written: the late tables at time up)."""
        return (f'"e{self.evening.version}-m{read.tables_version(self.evening)}-s{int(self.seating_first)}'
                f'-{self.clock.state}"')  # fmt: skip
