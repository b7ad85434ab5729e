"""A game's season: each player's finished matches of a period, wins, the game's figure and rating change."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import case, func, or_, select

from ..extensions import db
from ..games.refusals import Message
from ..models import FINISHED, Match, Player, RatingStep, Seat, utcnow
from .history import DayForm, read_days
from .players import Record
from .ratings import MODEL, friendly, ordinal

# The periods a link names by a word; any two days are a "range" of the "from" and "to" fields.
PERIODS = ("month", "year")
# What a season shows when the link names no period.
DEFAULT_PERIOD = "month"
# A newcomer's rating before their first match: the library's default, on the friendly scale.
NEWCOMER = friendly(MODEL.rating().ordinal())


@dataclass
class Period:
    """The days a season covers, both included: this month, this year, or the days of two fields (either may be open).

    A field that holds no day, or a "to" before the "from", carries its message in `errors` and
    what it held in `typed`, as the history's filters do (the same date fields draw both).
    """

    kind: str
    start: date | None = None
    end: date | None = None
    errors: dict[str, Message] = field(default_factory=dict)
    typed: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_args(cls, args: Mapping[str, str], day_form: DayForm, today: date | None = None) -> Period:
        """The period of a query string: `from`/`to` (either one present makes it a range), else `period`.

        This month and this year are those of `today`, by default the day it is in UTC, as the matches'
        times are kept.
        """
        today = today or utcnow().date()
        if "from" in args or "to" in args:
            found = cls("range")
            found.start, found.end = read_days(args, day_form, found.errors, found.typed)
            return found
        kind = args.get("period", "")
        kind = kind if kind in PERIODS else DEFAULT_PERIOD
        if kind == "year":
            return cls(kind, date(today.year, 1, 1), date(today.year, 12, 31))
        following = date(today.year + today.month // 12, today.month % 12 + 1, 1)
        return cls(kind, today.replace(day=1), following - timedelta(days=1))

    def args(self) -> dict[str, str]:
        """The query string of a link to this period: its word, or its two days in the ISO form."""
        if self.kind != "range":
            return {"period": self.kind}
        return {"from": self.start.isoformat() if self.start else "", "to": self.end.isoformat() if self.end else ""}

    def written_otherwise(self, args: Mapping[str, str]) -> bool:
        """Whether a day of the link that read well is not written in the ISO form of the address to keep."""
        if self.kind != "range" or self.errors:
            return False
        return any(args.get(name, "") != day for name, day in self.args().items() if day)

    def within(self, column: Any) -> list[Any]:
        """The conditions that a time column falls on one of the period's days."""
        conditions = []
        if self.start:
            conditions.append(column >= datetime.combine(self.start, time()))
        if self.end:
            conditions.append(column < datetime.combine(self.end + timedelta(days=1), time()))
        return conditions


@dataclass(frozen=True)
class SeasonRow:
    """One player's season: the matches as a record (played, won, the game's figures) and the rating's change."""

    player_id: int
    name: str
    record: Record
    # The rating after their last rated match of the period minus before their first; None if none was rated.
    change: int | None


def _records(game: str, period: Period) -> list[tuple[int, str, Record]]:
    """Each player's finished matches of the game in the period, summed from the seats: one query."""
    rows = db.session.execute(
        select(Seat.player_id, Player.name, func.count(), func.sum(case((Seat.won, 1), else_=0)),
               func.coalesce(func.sum(Seat.total), 0), func.coalesce(func.sum(Seat.score_sum), 0),
               func.coalesce(func.sum(Seat.score_count), 0), func.max(Seat.best_score))
        .join(Match, Match.id == Seat.match_id)
        .join(Player, Player.id == Seat.player_id)
        .where(Match.game == game, Match.status == FINISHED, *period.within(Match.finished_at))
        .group_by(Seat.player_id, Player.name)
    ).all()  # fmt: skip
    return [(pid, name, Record(game, played, won, total, sums, count, best)) for pid, name, played, won, total, sums,
            count, best in rows]  # fmt: skip


def _changes(game: str, period: Period) -> dict[int, int]:
    """Each player's rating change over the period: after their last rated match in it, minus before their first
    (a newcomer's default if it was their first ever): one query, two rows a player at most."""
    order = {"partition_by": RatingStep.player_id, "order_by": RatingStep.seq}
    steps = (
        select(RatingStep.player_id, RatingStep.seq, RatingStep.mu, RatingStep.sigma, Match.finished_at,
               func.lag(RatingStep.mu).over(**order).label("mu_before"),
               func.lag(RatingStep.sigma).over(**order).label("sigma_before"))
        .join(Match, Match.id == RatingStep.match_id)
        .where(RatingStep.game == game)
    ).subquery()  # fmt: skip
    inside = (
        select(steps.c.player_id, steps.c.seq, steps.c.mu, steps.c.sigma, steps.c.mu_before, steps.c.sigma_before,
               func.row_number().over(partition_by=steps.c.player_id, order_by=steps.c.seq).label("first"),
               func.row_number().over(partition_by=steps.c.player_id, order_by=steps.c.seq.desc()).label("last"))
        .where(*period.within(steps.c.finished_at))
    ).subquery()  # fmt: skip
    rows = db.session.execute(
        select(inside.c.player_id, inside.c.mu, inside.c.sigma, inside.c.mu_before, inside.c.sigma_before,
               inside.c.first, inside.c.last)
        .where(or_(inside.c.first == 1, inside.c.last == 1))
    ).all()  # fmt: skip
    before: dict[int, int] = {}
    after: dict[int, int] = {}
    for player, mu, sigma, mu_before, sigma_before, first, last in rows:
        if first == 1:
            before[player] = NEWCOMER if mu_before is None else friendly(ordinal(mu_before, sigma_before))
        if last == 1:
            after[player] = friendly(ordinal(mu, sigma))
    return {player: after[player] - before[player] for player in after}


def season(game: str, period: Period) -> list[SeasonRow]:
    """The game's season table: most wins first, then fewer matches for them, then by name: two queries."""
    changes = _changes(game, period)
    rows = [SeasonRow(pid, name, record, changes.get(pid)) for pid, name, record in _records(game, period)]
    rows.sort(key=lambda row: (-row.record.won, row.record.played, row.name.casefold(), row.player_id))
    return rows
