"""The history's reads: matches filtered and paginated, a fixed number of queries a page."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from flask_sqlalchemy.pagination import Pagination
from sqlalchemy import Select, func, select

from ..extensions import db
from ..games import REGISTRY
from ..games.checks import NAME_MAX, name_key
from ..games.forms import whole_number
from ..games.refusals import N_, Message
from ..models import Match, Player, PlayerRecord, Seat

PER_PAGE = 20
# Past this page no history is that long (20 a page: two million matches); a larger page
# number would overflow the OFFSET of the query instead of showing an empty page.
PAGE_MAX = 100_000
# A day fits in 20 characters however it is written; a longer field holds no day.
DAY_TEXT_MAX = 20


# What a date field may hold between its three numbers: the slash of most locales, the dot,
# the dash or a space of others, the comma an Italian phone's decimal keypad offers.
_BETWEEN = r"[ ./,-]+"
_ISO = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")
_THREE = re.compile(rf"([0-9]{{1,4}}){_BETWEEN}([0-9]{{1,4}}){_BETWEEN}([0-9]{{1,4}})")
# Eight or six digits typed on a keypad that has no separator (an iPhone's numeric one).
_RUN = re.compile(r"[0-9]{6}|[0-9]{8}")


@dataclass(frozen=True)
class DayForm:
    """How the page's language writes a day in a text field: "25/12/2026" in Italian, "12/25/2026" in English.

    `order` is the order of day, month and year ("dmy", "mdy" or "ymd"); `placeholder` is the
    pattern as the page shows it ("gg/mm/aaaa"). A field also takes the ISO form (2026-12-25),
    which the history's links carry, so a link reads the same in every language.
    """

    order: str = "ymd"
    separator: str = "-"
    placeholder: str = "yyyy-mm-dd"

    def write(self, day: date) -> str:
        """The day as the field shows it: two digits for the day and the month, four for the year."""
        parts = {"d": f"{day.day:02d}", "m": f"{day.month:02d}", "y": f"{day.year:04d}"}
        return self.separator.join(parts[letter] for letter in self.order)

    def read(self, text: str) -> date | None:
        """The day a field holds, between the years 1900 and 9998; None for an empty field, ValueError otherwise.

        A two-digit year is of this century ("25/12/26"). The last day of 9999 has no next day,
        which the "to" filter needs to include it.
        """
        if len(text) > DAY_TEXT_MAX:
            raise ValueError(text[:DAY_TEXT_MAX])
        text = text.strip()
        if not text:
            return None
        if found := _ISO.fullmatch(text):
            year, month, day = found.groups()
        else:
            parts = self._parts(text)
            day, month, year = parts["d"], parts["m"], parts["y"]
            if len(year) == 2:
                year = "20" + year
        if len(year) != 4 or len(month) > 2 or len(day) > 2:
            raise ValueError(text)
        found_day = date(int(year), int(month), int(day))
        if not 1900 <= found_day.year <= 9998:
            raise ValueError(text)
        return found_day

    def _parts(self, text: str) -> dict[str, str]:
        """The day, month and year of a text in this form's order; ValueError if it has not three of them."""
        if found := _THREE.fullmatch(text):
            return dict(zip(self.order, found.groups(), strict=True))
        if _RUN.fullmatch(text):
            year_digits = len(text) - 4
            widths = {"d": 2, "m": 2, "y": year_digits}
            parts, start = {}, 0
            for letter in self.order:
                parts[letter] = text[start : start + widths[letter]]
                start += widths[letter]
            return parts
        raise ValueError(text)

    @property
    def problem(self) -> Message:
        """What a field that holds no day is told."""
        return N_("Not a date: write it as %(form)s.", form=self.placeholder)


def read_days(
    args: Mapping[str, str], day_form: DayForm, errors: dict[str, Message], typed: dict[str, str]
) -> tuple[date | None, date | None]:
    """The days of the "from" and "to" fields; each one that is not a day, or a "to" before the "from",
    is None, with its message in `errors` and what it held in `typed` (the history's filters, a season)."""
    days: dict[str, date | None] = {}
    for name in ("from", "to"):
        text = args.get(name, "")
        try:
            days[name] = day_form.read(text)
        except ValueError:
            days[name] = None
            errors[name] = day_form.problem
            typed[name] = text[:DAY_TEXT_MAX]
    if days["from"] and days["to"] and days["to"] < days["from"]:
        errors["to"] = N_("This day comes before the “From” day.")
        typed["to"], days["to"] = args.get("to", "")[:DAY_TEXT_MAX], None
    return days["from"], days["to"]


def _whole(text: str, top: int) -> int | None:
    """A positive whole number up to `top` (a page), or None."""
    value = whole_number(text, top)
    return value if value else None


@dataclass
class HistoryFilter:
    """What the history shows: the filters of its GET form, all optional and combinable."""

    game: str = ""
    player: int | None = None
    # The player as the links write them: their address text, not their id.
    player_address: str = ""
    q: str = ""
    start: date | None = None
    end: date | None = None
    page: int = 1
    # A date field's message, and what it held as typed, to show it back beside the message.
    errors: dict[str, Message] = field(default_factory=dict)
    typed: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_args(
        cls, args: Mapping[str, str], day_form: DayForm, row_id: Callable[[str], int | None]
    ) -> HistoryFilter:
        """The filters of a query string; a value that makes no sense is dropped, a date with a message.

        The dates are read in `day_form` (the page's language) or in the ISO form of the links;
        the player by `row_id` from their address text.
        """
        found = cls(q=" ".join(args.get("q", "").split())[:NAME_MAX])
        game = args.get("game", "")
        found.game = game if game in REGISTRY else ""
        found.player = row_id(args.get("player", ""))
        found.player_address = args["player"] if found.player is not None else ""
        found.start, found.end = read_days(args, day_form, found.errors, found.typed)
        found.page = _whole(args.get("page", "1"), PAGE_MAX) or 1
        return found

    def args(self, **changes: Any) -> dict[str, Any]:
        """The query string of these filters (empty ones left out), with `changes` applied."""
        values = {
            "game": self.game,
            "player": self.player_address,
            "q": self.q,
            "from": self.start.isoformat() if self.start else None,
            "to": self.end.isoformat() if self.end else None,
            "page": self.page if self.page > 1 else None,
        }
        values.update(changes)
        if values["page"] == 1:
            values["page"] = None
        return {key: value for key, value in values.items() if value not in (None, "")}

    @property
    def active(self) -> bool:
        """Whether any filter narrows the history."""
        return bool(self.game or self.player or self.q or self.start or self.end)


def _seated(players, ordered: bool):
    """The condition that one of these players sat at the match.

    A page read in date order probes each match's seat by the (match, player) index and
    stops once the page is full; a count lists the players' seats once by the player index.
    """
    if ordered:
        return select(Seat.id).where(Seat.match_id == Match.id, players).exists()
    return Match.id.in_(select(Seat.match_id).where(players))


def _filtered(statement, filters: HistoryFilter, ordered: bool):
    """The statement narrowed by the filters, each one an indexed condition on the match."""
    if filters.game:
        statement = statement.where(Match.game == filters.game)
    if filters.player is not None:
        statement = statement.where(_seated(Seat.player_id == filters.player, ordered))
    if filters.q:
        # The roster is searched (a few dozen names), then the seats by their player index:
        # a LIKE over every seat's name would scan the largest table on each keystroke.
        found = select(Player.id).where(Player.key.contains(name_key(filters.q), autoescape=True))
        statement = statement.where(_seated(Seat.player_id.in_(found), ordered))
    if filters.start:
        statement = statement.where(Match.started_at >= datetime.combine(filters.start, time()))
    if filters.end:
        statement = statement.where(Match.started_at < datetime.combine(filters.end + timedelta(days=1), time()))
    return statement


@dataclass(frozen=True)
class HistoryRow:
    """One match as its history row shows it, read as plain values rather than as ORM objects."""

    id: int
    # Its address: the history links every row, and the id alone would cost a read of each row's address.
    public_id: str
    game: str
    status: str
    started_at: datetime
    summary: dict[str, Any]
    player_names: list[str]


class HistoryPage(Pagination):
    """A page of the history: the rows it shows, and how many matches the filters find."""

    def _query_items(self) -> list[HistoryRow]:
        """The page's matches, newest first, and their players' names: two queries."""
        filters = self._query_args["filters"]
        columns = select(Match.id, Match.public_id, Match.game, Match.status, Match.started_at, Match.summary)
        matches = db.session.execute(
            _filtered(columns, filters, ordered=True)
            .order_by(Match.started_at.desc(), Match.id.desc())
            .limit(self.per_page)
            .offset(self._query_offset)
        ).all()
        names: dict[int, list[str]] = {match.id: [] for match in matches}
        if matches:
            seats = select(Seat.match_id, Seat.name).where(Seat.match_id.in_(names))
            seats = seats.order_by(Seat.match_id, Seat.position)
            for match_id, name in db.session.execute(seats):
                names[match_id].append(name)
        return [HistoryRow(*match, names[match.id]) for match in matches]

    def _query_count(self) -> int:
        """How many matches the filters find: read from the player's records when it can be."""
        filters = self._query_args["filters"]
        if filters.player is not None and not (filters.q or filters.start or filters.end):
            # Every match a player sat at is in their records, finished or not, a row a game.
            statement = select(func.coalesce(func.sum(PlayerRecord.played + PlayerRecord.playing), 0))
            statement = statement.where(PlayerRecord.player_id == filters.player)
            if filters.game:
                statement = statement.where(PlayerRecord.game == filters.game)
            return db.session.scalar(statement)
        return db.session.scalar(_filtered(select(func.count(Match.id)), filters, ordered=False))


def matching(filters: HistoryFilter) -> Select:
    """The ids of every match the filters find, on all pages: what an export of the history holds."""
    return _filtered(select(Match.id), filters, ordered=False)


def history(filters: HistoryFilter, per_page: int = PER_PAGE) -> HistoryPage:
    """One page of matches, newest first, with their players: three queries whatever the page holds."""
    return HistoryPage(page=filters.page, per_page=per_page, error_out=False, filters=filters)
