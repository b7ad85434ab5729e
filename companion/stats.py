"""Read-only queries for the history and the players: SQL aggregates, a fixed number of queries a page."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from flask_sqlalchemy.pagination import Pagination
from sqlalchemy import func, literal, select
from sqlalchemy.orm import selectinload

from .extensions import db
from .games import REGISTRY, get_game
from .models import FINISHED, PLAYING, Match, Player, PlayerRecord, Rivalry, Seat, name_key

PER_PAGE = 20
FORM_LENGTH = 10

# --- History ---------------------------------------------------------------------------


def _day(text: str | None) -> date | None:
    """An ISO date (YYYY-MM-DD) from a form field; ValueError when it is not one."""
    return date.fromisoformat(text) if text else None


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
        found = cls(q=" ".join(args.get("q", "").split())[:40])
        game = args.get("game", "")
        found.game = game if game in REGISTRY else ""
        player = args.get("player", "")
        found.player = int(player) if player.isdigit() else None
        for name in ("from", "to"):
            try:
                setattr(found, "start" if name == "from" else "end", _day(args.get(name, "").strip()))
            except ValueError:
                found.errors[name] = "Not a date: use the form YYYY-MM-DD."
        page = args.get("page", "1")
        found.page = max(int(page), 1) if page.isdigit() else 1
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


def roster() -> list[Player]:
    """Everyone in the roster, by name."""
    return list(db.session.scalars(select(Player).order_by(Player.key)))


def in_progress(limit: int = 20) -> list[Match]:
    """The matches being played, newest first, with their seats: two queries."""
    return list(
        db.session.scalars(
            select(Match)
            .where(Match.status == PLAYING)
            .options(selectinload(Match.seats))
            .order_by(Match.started_at.desc())
            .limit(limit)
        )
    )


# --- Records ---------------------------------------------------------------------------


@dataclass
class Record:
    """One player's finished matches of one game, and the game's own figures."""

    game: str
    played: int = 0
    won: int = 0
    # Sums of the seats' cached totals and round scores, and the best round, for the figures.
    total: int = 0
    score_sum: int = 0
    score_count: int = 0
    best_score: int | None = None
    best_label: str | None = None

    @property
    def name(self) -> str:
        """The game's name as printed on its box."""
        return get_game(self.game).name

    @property
    def win_rate(self) -> float:
        """The share of matches won, 0 to 1."""
        return self.won / self.played if self.played else 0.0

    def figures(self) -> dict[str, Any]:
        """The game's own figures, keyed by what they are (its templates label them); none for all games."""
        return get_game(self.game).record_figures(self) if self.game in REGISTRY else {}


def leaderboard(game: str | None) -> list[tuple[Player, Record]]:
    """Every roster entry with its record (of one game, or of all of them): one query over the kept records."""
    # Totals of different games do not add up, so the all-games board only counts wins.
    figures = (PlayerRecord.total, PlayerRecord.score_sum, PlayerRecord.score_count)
    columns = [func.sum(column) for column in figures] if game else [literal(0)] * 3
    best = func.max(PlayerRecord.best_score) if game else literal(None)
    records = select(PlayerRecord.player_id, func.sum(PlayerRecord.played), func.sum(PlayerRecord.won), *columns, best)
    records = records.group_by(PlayerRecord.player_id)
    if game:
        records = records.where(PlayerRecord.game == game)
    records = records.subquery()
    rows = db.session.execute(
        select(Player, *list(records.c)[1:])
        .outerjoin(records, records.c.player_id == Player.id)
        .order_by(Player.key)
    )  # fmt: skip
    return [
        (player, Record(game or "", played or 0, won or 0, total or 0, score_sum or 0, count or 0, best))
        for player, played, won, total, score_sum, count, best in rows
    ]


@dataclass
class Rival:
    """Another player met across the table: matches together and the wins of each."""

    player_id: int
    name: str
    together: int
    mine: int
    theirs: int


@dataclass
class FormEntry:
    """One finished match in a player's recent form."""

    match_id: int
    game: str
    started_at: datetime
    won: bool
    shared: bool


@dataclass
class Profile:
    """Everything a player's page shows."""

    player: Player
    records: list[Record]
    rivals: list[Rival]
    form: list[FormEntry]
    playing: int

    @property
    def overall(self) -> Record:
        """The records of every game added up."""
        return Record(
            "",
            played=sum(r.played for r in self.records),
            won=sum(r.won for r in self.records),
        )


def _records(player_id: int) -> tuple[list[Record], int]:
    """The player's record per game, in registry order, and the matches in progress: one query.

    Read from the sums kept on every write (records.py), a row a game, not from the seats.
    """
    rows = db.session.execute(
        select(PlayerRecord.game, PlayerRecord.played, PlayerRecord.won, PlayerRecord.total, PlayerRecord.score_sum,
               PlayerRecord.score_count, PlayerRecord.best_score, PlayerRecord.best_label, PlayerRecord.playing)
        .where(PlayerRecord.player_id == player_id)
    ).all()  # fmt: skip
    found = {row[0]: Record(*row[:-1]) for row in rows if row.played}
    return [found[slug] for slug in REGISTRY if slug in found], sum(row.playing for row in rows)


def _rivals(player_id: int) -> list[Rival]:
    """Head to head against everyone met in a finished match, most met first: one query."""
    rows = db.session.execute(
        select(Rivalry.other_id, Player.name, Rivalry.together, Rivalry.mine, Rivalry.theirs)
        .join(Player, Player.id == Rivalry.other_id)
        .where(Rivalry.player_id == player_id, Rivalry.together > 0)
        .order_by(Rivalry.together.desc(), Player.name)
    )
    return [Rival(*row) for row in rows]


def _form(player_id: int) -> list[FormEntry]:
    """The player's last finished matches, newest first: one query."""
    rows = db.session.execute(
        select(Match.id, Match.game, Match.started_at, Seat.won, Match.summary)
        .join(Seat, Seat.match_id == Match.id)
        .where(Seat.player_id == player_id, Match.status == FINISHED)
        .order_by(Match.started_at.desc(), Match.id.desc())
        .limit(FORM_LENGTH)
    )
    return [
        FormEntry(match_id, game, started, won, won and len(summary.get("winners", [])) > 1)
        for match_id, game, started, won, summary in rows
    ]


def profile(player: Player) -> Profile:
    """A player's records per game, head to head and recent form: three queries, however many matches."""
    records, playing = _records(player.id)
    return Profile(player, records, _rivals(player.id), _form(player.id), playing)


def running_totals(match: Match) -> list[dict[str, int]]:
    """Each side's total before the first round and after each round, by the game's own scoring."""
    game = get_game(match.game)
    rounds = [stored.data for stored in match.rounds]
    return [dict(tally.totals) for tally in game.tallies(match.player_names, match.settings, rounds)]


# Matches loaded per query while an export streams out, so memory stays flat at any size.
EXPORT_BATCH = 500


def all_matches() -> Iterator[Match]:
    """Every match with its seats and rounds, oldest first, loaded a batch at a time."""
    last = 0
    while True:
        batch = db.session.scalars(
            select(Match)
            .options(selectinload(Match.seats), selectinload(Match.rounds))
            .where(Match.id > last)
            .order_by(Match.id)
            .limit(EXPORT_BATCH)
        ).all()
        if not batch:
            return
        yield from batch
        last = batch[-1].id
        db.session.expunge_all()
