"""The history's reads: matches filtered and paginated, a fixed number of queries a page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from flask_sqlalchemy.pagination import Pagination
from sqlalchemy import func, select

from ..extensions import db
from ..games import REGISTRY
from ..games.base import NAME_MAX, name_key
from ..models import Match, Player, PlayerRecord, Seat

PER_PAGE = 20
# Past this page no history is that long (20 a page: two million matches); a larger page
# number would overflow the OFFSET of the query instead of showing an empty page.
PAGE_MAX = 100_000
# The ids of the roster fit an INTEGER column.
ID_MAX = 2**31 - 1


def _day(text: str | None) -> date | None:
    """An ISO date (YYYY-MM-DD) from a form field, between the years 1900 and 9998; ValueError otherwise.

    The last day of 9999 has no next day, which the "to" filter needs to include it.
    """
    if not text:
        return None
    found = date.fromisoformat(text)
    if not 1900 <= found.year <= 9998:
        raise ValueError(text)
    return found


def _whole(text: str, top: int) -> int | None:
    """A positive whole number of ASCII digits up to `top`, or None ("²" passes isdigit, not int)."""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(top)):
        return None
    value = int(text)
    return value if 0 < value <= top else None


@dataclass
class HistoryFilter:
    """What the history shows: the filters of its GET form, all optional and combinable."""

    game: str = ""
    player: int | None = None
    q: str = ""
    start: date | None = None
    end: date | None = None
    page: int = 1
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_args(cls, args: Mapping[str, str]) -> HistoryFilter:
        """The filters of a query string; a value that makes no sense is dropped with a message."""
        found = cls(q=" ".join(args.get("q", "").split())[:NAME_MAX])
        game = args.get("game", "")
        found.game = game if game in REGISTRY else ""
        found.player = _whole(args.get("player", ""), ID_MAX)
        for name in ("from", "to"):
            try:
                setattr(found, "start" if name == "from" else "end", _day(args.get(name, "").strip()))
            except ValueError:
                found.errors[name] = "Not a date: use the form YYYY-MM-DD."
        found.page = _whole(args.get("page", "1"), PAGE_MAX) or 1
        return found

    def args(self, **changes: Any) -> dict[str, Any]:
        """The query string of these filters (empty ones left out), with `changes` applied."""
        values = {
            "game": self.game,
            "player": self.player,
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
        columns = select(Match.id, Match.game, Match.status, Match.started_at, Match.summary)
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


def history(filters: HistoryFilter, per_page: int = PER_PAGE) -> HistoryPage:
    """One page of matches, newest first, with their players: three queries whatever the page holds."""
    return HistoryPage(page=filters.page, per_page=per_page, error_out=False, filters=filters)
