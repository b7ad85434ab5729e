"""The club evening's presenters: the arbiter's page, the standings, a table card's page and a table's panel."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from cachetools import LRUCache, cached
from flask import current_app
from flask_babel import format_decimal, gettext, ngettext
from markupsafe import Markup
from sqlalchemy import select

from ..extensions import db
from ..games import get_game
from ..games.base import Game
from ..games.club import clock as clocks
from ..games.club.plan import Plan
from ..games.club.standings import SIDES, Standing, shared_places
from ..games.forms import first
from ..models import FINISHED, Match, Seat
from ..models.club import (
    COUNTED,
    EVENING_OVER,
    EVENING_PLAYING,
    TABLE_BYE,
    TABLE_CLOSED,
    TABLE_DISPUTED,
    ClubEntrant,
    ClubEvening,
    ClubLog,
    ClubTable,
)
from ..queries import club as read
from ..queries.matches import hash_token, seat_of
from ..web.card_image import CardRow, CardText
from ..web.cards import game_colour
from ..web.display import CALL_REASONS, call_words, figures, side_word
from ..web.groups import is_host, phone_credential
from ..web.i18n import day
from ..web.links import hall_link, qr_svg
from ..web.pencil import entered

# A table's state as the pages name it: a bye, its hands being played, its result waiting for the other side,
# counted (confirmed, or given by the arbiter), disputed.
BYE, PLAYING, WAITING, COUNTED_STATE, DISPUTED = "bye", "playing", "waiting", "counted", "disputed"
LOG_SHOWN = 30
# The arbiter's forms by the decisions they send, where a refusal is told beside its form (`EveningPage.refused_at`).
REFUSED_FORMS = {"late": "entrants", "forfeit": "entrants", "withdraw": "entrants", "add": "add", "close": "close"}
# A points difference as the page's language writes a number, its sign always shown ("+1,315", "+1.315").
SIGNED = "+#,##0;-#,##0"
# The places a podium shows: more than three lines only where a tie shares the third.
PODIUM = 3
# At a turn's close each phone shows its next table at once, then goes there by itself: after a pause to read it,
# and in table order, each table this much after the one before, table 101 with table 1 again. A hall's 400 phones
# would otherwise ask for their 400 new pages in the same seconds as the others' panels ask where to go: at 100 ms
# a table the moves held a two-core server's polls a second or more behind for 10 s (docs/performance.md, the
# hall). The players walk to their new table meanwhile; a tap on "To table N" goes at once.
MOVE_PAUSE_MS, MOVE_SPREAD_MS, MOVE_SLOTS = 2000, 300, 100


def move_after_ms(table_number: int) -> int:
    """How long after showing the next table a phone of that table goes there by itself: at most some 32 s."""
    return MOVE_PAUSE_MS + MOVE_SPREAD_MS * ((table_number - 1) % MOVE_SLOTS)


@dataclass(frozen=True)
class TableView:
    """One table of a turn as a page draws it."""

    row: ClubTable
    sides: tuple[ClubEntrant, ...]
    state: str
    played: int
    points: list[int] | None
    tournament_points: tuple[int, ...] | None
    # Why the table called the arbiter, while it waits for the arbiter.
    dispute: str = ""
    # Still playing when the turn's time is up: late by the clock (the arbiter's page and the hall screen mark it).
    late: bool = False

    @property
    def number(self) -> int:
        return self.row.number


@dataclass(frozen=True)
class ClockView:
    """The turn's clock as `_clock.html` draws it at `server_ms`: its state, the time left as text, and for the
    script that ticks it the end in the server's ms (running) or the time left (paused)."""

    state: str
    server_ms: int
    left_ms: int | None
    ends_ms: int | None
    paused_left_ms: int | None
    minutes: int

    @property
    def text(self) -> str:
        return clocks.mm_ss(self.left_ms or 0)


def clock_view(evening: ClubEvening) -> ClockView:
    """The evening's turn clock as it stands now (a template global, `evening_clock`: every page that draws
    `_clock.html` has it from its evening)."""
    now, clock = read.now_ms(), read.clock_of(evening)
    return ClockView(clock.state(now), now, clock.left_ms(now), clock.ends_ms, clock.paused_left_ms,
                     read.plan_of(evening).turn_minutes)  # fmt: skip


NO_MATCH: tuple[str, int, dict] = ("", 0, {})


# The standings by evening (its random address: another database's evening may have its id) and version, worked
# out once for all the pages drawn from that version: at a turn's close each phone of a hall draws its counted
# table's panel, and each would recompute the whole evening's standings.
# The standings read what the evening's writes store, and each moves its version (services/club._locked); a penalty
# the clock stores in a match's save (services/club_time_up) counts only once its table is counted or closed, which
# moves it. Pages are drawn after a write's commit: one version, the same standings for all.
@cached(LRUCache(maxsize=64), key=lambda evening: (evening.public_id, evening.version), lock=threading.Lock())
def _standings_of(evening: ClubEvening) -> tuple[Standing, ...]:
    return tuple(read.standings(evening))


class EveningPage:
    """An evening as this phone sees it, each part worked out when a template first asks for it (`table_row`: the
    table a page is about, a table card's or a table's panel's on its match page)."""

    table_row: ClubTable | None = None
    # The arbiter's form a refusal answers, as it was sent (`refused_at`).
    posted: Any = None

    def __init__(self, evening: ClubEvening | None, **given: Any) -> None:
        self.evening = evening
        self.__dict__.update({"errors": {}, **given})

    @cached_property
    def refused_at(self) -> str | None:
        """Which of the arbiter's forms a refusal answers, drawn open with its error beside it and what was typed
        kept: a table's Settle ("settle-<turn>-<table>"), an earlier turn's correction, the entrants', the new
        entrant's, the closing's; None where the error is told at the top of the page."""
        if not self.errors or self.posted is None:
            return None
        evening, action = self.evening, first(self.posted, "action")
        playing, drawn = evening.status == EVENING_PLAYING, evening.status != EVENING_OVER
        if action == "settle":
            turn, table = first(self.posted, "turn"), first(self.posted, "table")
            numbers = {str(t.number) for t in evening.tables if t.turn == evening.turn and t.number}
            if playing and turn == str(evening.turn) and table in numbers:
                return f"settle-{turn}-{table}"
            return "settle-earlier" if evening.turn > 1 and turn != str(evening.turn) else None
        # A form not on the page (closing before the start, any once the evening is over), or a closing sent for a
        # turn gone by (its outcomes were for other tables): the error at the top.
        where = REFUSED_FORMS.get(action)
        if where == "close":
            return where if playing and first(self.posted, "turn") == str(evening.turn) else None
        return where if drawn else None

    @cached_property
    def standings_rows(self) -> list[dict[str, Any]]:
        """The standings with every entrant's path, as the exports write them."""
        names = {number: entrant.name for number, entrant in self.entrants.items()}
        return [
            {"place": line.place, "entrant": names[line.entrant], "club": self.entrants[line.entrant].club,
             "tournament_points": line.tournament_points, "difference": line.difference, "withdrawn": line.withdrawn,
             "path": [{"turn": m.turn, "table": m.table, "side": m.side, "opponent": names.get(m.opponent),
                       "points_for": m.points_for, "points_against": m.points_against,
                       "tournament_points": m.tournament_points, "how": m.how} for m in line.path]}
            for line in self.standings
        ]  # fmt: skip

    @cached_property
    def podium(self) -> list[tuple[int, Standing]]:
        """The standings' first three lines with the place each shows, a tie sharing its place, in their order."""
        lines = self.standings
        return [(place, line) for place, line in zip(shared_places(lines), lines, strict=True) if place <= PODIUM]

    def podium_card(self) -> CardText:
        """Every word of the evening's podium card, in the page's language: its name, day, game, turns × hands,
        and the podium's entrants with their club, tournament points and points difference."""
        rows = []
        for place, line in self.podium:
            club = self.entrants[line.entrant].club
            difference = gettext("points difference %(n)s", n=format_decimal(line.difference, SIGNED))
            members = f"{club} · {difference}" if club else difference
            rows.append(CardRow(str(place), self.entrants[line.entrant].name, members, str(line.tournament_points),
                                place == 1))  # fmt: skip
        won = [row.name for row in rows if row.won]
        kind = gettext("in pairs") if self.evening.pairs else gettext("one against one")
        return CardText(
            game=self.title,
            date=day(self.evening.created_at),
            subtitle=f"{self.game.name} · {kind} · {self.turns_and_hands}",
            side_heading=gettext("Pair") if self.evening.pairs else gettext("Player"),
            total_heading=gettext("Tournament points"),
            rows=tuple(rows),
            winners=ngettext("Winner: %(names)s", "Winners: %(names)s", len(won), names=", ".join(won)),
            highlight=None,
            footer=gettext("Table companion"),
            colour=game_colour(current_app.static_folder or "", self.evening.game),
        )

    @cached_property
    def turns_and_hands(self) -> str:
        """How long the evening is: its turns × hands (sets, at Pazaak)."""
        turns, hands = self.evening.turns, self.evening.hands
        if self.evening.game == "pazaak":
            return gettext("%(turns)s turns × %(hands)s sets", turns=turns, hands=hands)
        return gettext("%(turns)s turns × %(hands)s hands", turns=turns, hands=hands)

    @cached_property
    def plan(self) -> Plan:
        return read.plan_of(self.evening)

    @cached_property
    def game(self) -> Game:
        return get_game(self.evening.game)

    @cached_property
    def title(self) -> str:
        """The evening's name, else its day."""
        if self.evening is None:
            return ""
        return self.evening.name or gettext("Evening of %(date)s", date=day(self.evening.created_at))

    @cached_property
    def host(self) -> bool:
        return is_host()

    @cached_property
    def hall_link(self) -> str:
        """The evening's hall screen's link for the host to share (web/links.py), and its QR code."""
        return hall_link(self.evening)

    @cached_property
    def hall_qr(self) -> Markup:
        return qr_svg(self.hall_link)

    @cached_property
    def entrants(self) -> dict[int, ClubEntrant]:
        """The entrants by number."""
        return {entrant.number: entrant for entrant in self.evening.entrants}

    @cached_property
    def standings(self) -> list[Standing]:
        return list(_standings_of(self.evening)) if self.evening.turn else []

    @cached_property
    def over(self) -> bool:
        return self.evening.status == EVENING_OVER

    @cached_property
    def _matches(self) -> dict[int, tuple[str, int, dict]]:
        """Each table's match of the evening: its status, its rounds played and its totals."""
        return read.match_states([table.match_id for table in self.evening.tables if table.match_id])

    def _match_of(self, match_id: int | None) -> tuple[str, int, dict]:
        """A table's match: read with the evening's others where the page draws them all, alone on a page about
        one table (a phone's panel: 400 of them at a turn's close would each read every match of the hall)."""
        if "_matches" not in self.__dict__ and self.table_row is not None:
            # The match itself: a panel read it with its table (table_of_match), the move to the next table gives
            # that table's pencil from it.
            match = db.session.get(Match, match_id) if match_id else None
            return read.match_state(match) if match is not None else NO_MATCH
        return self._matches.get(match_id or 0, NO_MATCH)

    @cached_property
    def tables(self) -> list[TableView]:
        """The current turn's tables, in number order, the bye last."""
        rows = [table for table in self.evening.tables if table.turn == self.evening.turn]
        rows.sort(key=lambda table: table.number or 10**6)
        return [self._view(row) for row in rows]

    @cached_property
    def counted(self) -> int:
        """How many tables of the current turn count (a bye not counted as a table)."""
        return sum(1 for table in self.tables if table.state == COUNTED_STATE and table.number)

    @cached_property
    def played_tables(self) -> int:
        """How many tables the current turn plays: a bye is none, nor a table a withdrawn side left vacant."""
        return sum(1 for table in self.tables if table.number and table.state != BYE)

    def _entrants_of(self, numbers: list[int]) -> tuple[ClubEntrant, ...]:
        """These entrants: from the evening's all where the page draws them all, alone on a page about one table
        (at a turn's close each of a hall's 400 phones draws its panel, which read all 200 pairs)."""
        if self.table_row is None or "entrants" in self.__dict__:
            return tuple(self.entrants[number] for number in numbers)
        known = self.__dict__.setdefault("_some_entrants", {})
        missing = [number for number in numbers if number not in known]
        if missing and self.evening.turn > self.table_row.turn and self._my_seating is not None:
            # At a turn's close the panel draws this phone's next table too: its sides read with these.
            missing += [number for number in self._my_seating[0].sides if number not in known and number not in missing]
        if missing:
            known.update((entrant.number, entrant) for entrant in read.entrants_numbered(self.evening, missing))
        return tuple(known[number] for number in numbers)

    def _view(self, row: ClubTable) -> TableView:
        sides = self._entrants_of(row.sides)
        status, played, summary = self._match_of(row.match_id)
        points = row.points
        if row.state == TABLE_BYE:
            state = BYE
        elif row.state in COUNTED:
            state = COUNTED_STATE
        elif row.state == TABLE_DISPUTED:
            state = DISPUTED
        elif status == FINISHED:
            state = WAITING
        else:
            state = PLAYING
        if points is None and status == FINISHED and row.state not in (TABLE_CLOSED, TABLE_BYE):
            points = self._points_of(row, summary)
        dispute = self._disputes.get((row.turn, row.number), "") if state == DISPUTED else ""
        late = state == PLAYING and bool(row.number) and row.turn == self.evening.turn and self.clock.state == clocks.UP
        return TableView(row, sides, state, played, points, self._tournament_points(row), dispute, late)

    @cached_property
    def clock(self) -> ClockView:
        return clock_view(self.evening)

    # The reasons a table's phone offers for calling the arbiter, as stored (`call_words` says them).
    call_reasons = tuple(reason.text for reason in CALL_REASONS)

    @cached_property
    def calls(self) -> list[ClubTable]:
        """The tables calling the arbiter, the longest waiting first."""
        return sorted((table for table in self.evening.tables if table.call), key=lambda table: table.called_at)

    @cached_property
    def _disputes(self) -> dict[tuple[int, int], str]:
        """Each table's latest reason for calling the arbiter, by turn and table."""
        statement = select(ClubLog.turn, ClubLog.table, ClubLog.note).where(
            ClubLog.evening_id == self.evening.id, ClubLog.action == "dispute"
        )
        return {(turn, table): note for turn, table, note in db.session.execute(statement.order_by(ClubLog.id))}

    def _points_of(self, row: ClubTable, summary: dict) -> list[int]:
        """A finished table's points as its match totals them, before anyone confirms them."""
        totals = summary.get("totals", {})
        if self.evening.game == "burraco" and self.evening.pairs:
            return [totals.get(side, 0) for side in SIDES]
        return [totals.get(self.entrants[number].players[0], 0) for number in row.sides]

    def _tournament_points(self, row: ClubTable) -> tuple[int, ...] | None:
        """What each side of a counted table took, as the standings' paths say."""
        if row.state not in COUNTED:
            return None
        paths = {line.entrant: line.path for line in self.standings}
        return tuple(next((m.tournament_points for m in paths.get(number, ()) if m.turn == row.turn), 0)
                     for number in row.sides)  # fmt: skip

    @cached_property
    def log(self) -> list[ClubLog]:
        """The newest entries of the evening's log, newest first."""
        statement = (
            select(ClubLog).where(ClubLog.evening_id == self.evening.id).order_by(ClubLog.id.desc()).limit(LOG_SHOWN)
        )
        return list(db.session.scalars(statement))

    @cached_property
    def log_lines(self) -> list[tuple[Any, str, str]]:
        """The log as the arbiter reads it: when, what (in the page's language), and the note."""
        return [(entry.at, self._said(entry), call_words(entry.note) if entry.action == "call" else entry.note)
                for entry in self.log]  # fmt: skip

    def _said(self, entry: ClubLog) -> str:
        after, before = entry.after or {}, entry.before or {}
        entrant = self.entrants[entry.entrant].name if entry.entrant in self.entrants else ""
        points = figures(after.get("points") or ())
        before_points = figures(before.get("points") or ()) or "—"
        given = after.get("given")
        given = (
            figures(given)
            if isinstance(given, list)
            else {"average": gettext("average"), "zero": gettext("zero")}.get(given, "")
        )
        words = {
            "create": gettext("Evening set up with %(n)s entrants", n=after.get("entrants", 0)),
            "draw": gettext("Turn %(turn)s drawn: %(n)s tables", turn=entry.turn, n=after.get("tables", 0)),
            "confirm": gettext("Table %(table)s confirmed: %(points)s", table=entry.table, points=points),
            "settle": gettext("The arbiter gave table %(table)s %(points)s", table=entry.table, points=points),
            "correct": gettext("The arbiter corrected table %(table)s from %(before)s to %(points)s", table=entry.table,
                               before=before_points, points=points),
            "dispute": gettext("Table %(table)s called the arbiter", table=entry.table),
            "close": gettext("Table %(table)s closed by the arbiter: %(given)s", table=entry.table, given=given),
            "late": gettext("%(entrant)s late in turn %(turn)s: penalty %(n)s", entrant=entrant, turn=entry.turn,
                            n=after.get("penalty", 0)),
            "forfeit": gettext("%(entrant)s forfeits turn %(turn)s", entrant=entrant, turn=entry.turn),
            "withdraw": gettext("%(entrant)s withdraws after turn %(turn)s", entrant=entrant,
                                turn=after.get("after_turn")),
            "add": gettext("%(entrant)s added", entrant=entrant),
            "over": gettext("The evening is over"),
            "clock": self._clock_said(entry.turn, after.get("action"), after.get("minutes")),
            "cut": gettext("Table %(table)s ended with the time: %(n)s hands played", table=entry.table,
                           n=after.get("hands", 0)),
            "kept": gettext("Table %(table)s: hand %(n)s came after time was up, kept %(minutes)s min on its phone "
                            "without the network, played before, its phone says", table=entry.table,
                            n=after.get("hand", 0), minutes=after.get("minutes", 0)),
            "call": gettext("Table %(table)s called the arbiter", table=entry.table),
            "uncall": gettext("Table %(table)s withdrew its call", table=entry.table),
            "answered": gettext("The arbiter answered table %(table)s", table=entry.table),
        }  # fmt: skip
        return words.get(entry.action, entry.action)

    @staticmethod
    def _clock_said(turn: int | None, action: str | None, minutes: int | None) -> str:
        return {
            "start": gettext("The clock of turn %(turn)s started", turn=turn),
            "pause": gettext("The clock paused"),
            "resume": gettext("The clock running again"),
            "extend": gettext("The clock extended by %(n)s minutes", n=minutes or 0),
            "end": gettext("Time is up: ended by the arbiter"),
        }.get(action or "", action or "")

    @cached_property
    def _my_seating(self) -> tuple[ClubTable, str] | None:
        """The current turn's table this phone sits at and the player it sits for, if any."""
        credential = phone_credential()
        return read.seated_table(self.evening, credential) if credential else None

    @cached_property
    def my_table(self) -> TableView | None:
        """The current turn's table this phone sits at, if any (that table alone worked out)."""
        return self._view(self._my_seating[0]) if self._my_seating is not None else None

    @cached_property
    def match(self) -> Match | None:
        """The match of the table the page is about."""
        row = self.table_row
        return db.session.get(Match, row.match_id) if row is not None and row.match_id else None

    @cached_property
    def panel_tag(self) -> str:
        """The state the table's panel draws, as its poll's tag names it (a refusal drawn stays while it lasts)."""
        return read.panel_tag(self.table_row, self.match)

    @cached_property
    def table(self) -> TableView | None:
        """The table the page is about, as the pages draw it."""
        return self._view(self.table_row) if self.table_row is not None else None

    @cached_property
    def my_seat(self) -> Seat | None:
        """This phone's seat at the table's match."""
        return seat_of(self.match, phone_credential()) if self.match is not None else None

    @cached_property
    def my_side(self) -> int | None:
        """The side of the table (0: N/S, 1: E/W) this phone is seated for."""
        table, seat = self.table, self.my_seat
        if table is None or seat is None:
            return None
        return next((side for side, entrant in enumerate(table.sides) if seat.name in entrant.players), None)

    @cached_property
    def other_side_has_a_phone(self) -> bool:
        """Whether a phone is seated for E/W, the side that confirms, or was freed from its seat (let back in, it
        confirms from there): the entering phone is not handed over then."""
        table = self.table
        if table is None or self.match is None or len(table.sides) < 2:
            return False
        seats = [seat for seat in self.match.seats if seat.name in table.sides[1].players]
        return any(seat.phone or seat.kept_out for seat in seats)

    @cached_property
    def entered_here(self) -> bool:
        """Whether this phone entered the result (it holds the table's pencil, or its browser a token of the match
        under any credential), so it does not confirm it."""
        credential = self.table_row is not None and phone_credential()
        return bool(credential and self.table_row.pencil_phone == hash_token(credential)) or entered(self.match)

    @cached_property
    def next_table(self) -> TableView | None:
        """Once the next turn is drawn: this phone's table of it (the evening seated it there)."""
        row = self.table_row
        if row is None or self.evening.turn <= row.turn:
            return None
        mine = self.my_table
        return mine if mine is not None and mine.row.match_id else None

    @cached_property
    def move_after_ms(self) -> int:
        """When this phone's panel takes it to its next table by itself, after showing it (MOVE_PAUSE_MS)."""
        table = self.next_table
        return move_after_ms(table.row.number) if table is not None else 0

    @cached_property
    def next_place(self) -> tuple[str, str] | None:
        """At this phone's next table: its side and whom it meets."""
        table = self.next_table
        if table is None or self._my_seating is None:
            return None
        player = self._my_seating[1]
        side = next((i for i, entrant in enumerate(table.sides) if player in entrant.players), 0)
        return side_word(side), table.sides[1 - side].name if len(table.sides) > 1 else ""
