"""The players' reads: the roster, the leaderboard and a player's page, from the records kept on each write."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, literal, select

from ..extensions import db
from ..games import REGISTRY, get_game
from ..models import FINISHED, PLAYING, Match, Player, PlayerRecord, Rivalry, Seat

FORM_LENGTH = 10


def roster_entries() -> list[Player]:
    """Everyone in the roster, by name."""
    return list(db.session.scalars(select(Player).order_by(Player.key)))


@dataclass(frozen=True)
class Best:
    """A seat's best round in a finished match, with what it was scored with."""

    score: int
    label: str | None
    started_at: datetime
    match_id: int

    def beats(self, other: Best | None) -> bool:
        """Whether this is the better best: the higher score, else the earlier match."""
        if other is None:
            return True
        return (-self.score, self.started_at, self.match_id) < (-other.score, other.started_at, other.match_id)


@dataclass
class Record:
    """One player's matches of one game, and the game's own figures: a PlayerRecord row as a value.

    The service adds what one seat of a match contributes as one of these (services/records.py); the
    pages read the summed rows back as these.
    """

    game: str
    played: int = 0
    won: int = 0
    # Sums of the seats' cached totals and round scores, and the best round, for the figures.
    total: int = 0
    score_sum: int = 0
    score_count: int = 0
    best_score: int | None = None
    best_label: str | None = None
    # The matches still being played; the finished match the best round comes from.
    playing: int = 0
    best_started_at: datetime | None = None
    best_match_id: int | None = None

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

    @property
    def best(self) -> Best | None:
        """The best round as a value that can be compared with another (see Best.beats)."""
        if self.best_score is None:
            return None
        return Best(self.best_score, self.best_label, self.best_started_at, self.best_match_id)


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
    """Another player met at the table: the finished matches against each other and the wins of
    each, or (a partner) the matches played on one team and the team's wins."""

    player_id: int
    name: str
    together: int
    mine: int
    theirs: int


@dataclass
class Partner:
    """Another player met on the same team (a Burraco pair): matches together, and won together."""

    player_id: int
    name: str
    together: int
    won: int


@dataclass
class FormEntry:
    """One finished match in a player's recent form."""

    match_id: int
    game: str
    started_at: datetime
    won: bool
    shared: bool
    # The match's address, which the form chip links.
    match_address: str = ""


@dataclass
class Profile:
    """Everything a player's page shows."""

    player: Player
    records: list[Record]
    rivals: list[Rival]
    form: list[FormEntry]
    playing: int
    partners: list[Partner]

    @property
    def overall(self) -> Record:
        """The records of every game added up."""
        return Record(
            "",
            played=sum(r.played for r in self.records),
            won=sum(r.won for r in self.records),
        )


def _records(player_id: int) -> list[Record]:
    """The player's record per game, in registry order: one query.

    Read from the sums kept on every write (services/records.py), a row a game, not from the seats.
    """
    rows = db.session.execute(
        select(PlayerRecord.game, PlayerRecord.played, PlayerRecord.won, PlayerRecord.total, PlayerRecord.score_sum,
               PlayerRecord.score_count, PlayerRecord.best_score, PlayerRecord.best_label)
        .where(PlayerRecord.player_id == player_id, PlayerRecord.played > 0)
    ).all()  # fmt: skip
    found = {row[0]: Record(*row) for row in rows}
    return [found[slug] for slug in REGISTRY if slug in found]


def in_progress(player_id: int) -> int:
    """The player's matches still being played: one query.

    Not the records' `playing`, which counts every match not finished, the ones the host
    ended as unfinished too (the history's count of a player's matches needs them).
    """
    statement = select(func.count()).select_from(Seat).join(Match, Match.id == Seat.match_id)
    return db.session.scalar(statement.where(Seat.player_id == player_id, Match.status == PLAYING)) or 0


def matches_of(player_id: int) -> int:
    """How many matches a roster entry sat at, whatever their state: one query."""
    return db.session.scalar(select(func.count()).select_from(Seat).where(Seat.player_id == player_id)) or 0


def _head_to_head(player_id: int) -> tuple[list[Rival], list[Partner]]:
    """Everyone met in a finished match, most met first: as opponents, and as partners: one query.

    A Burraco pair wins or loses together, so a partner's wins are the player's own, and the
    matches as partners are taken out of those against each other.
    """
    rows = db.session.execute(
        select(Rivalry.other_id, Player.name, Rivalry.together, Rivalry.mine, Rivalry.theirs, Rivalry.partnered,
               Rivalry.partnered_won)
        .join(Player, Player.id == Rivalry.other_id)
        .where(Rivalry.player_id == player_id, Rivalry.together > 0)
        .order_by(Rivalry.together.desc(), Player.name)
    ).all()  # fmt: skip
    rivals = [
        Rival(other, name, together - partnered, mine - won, theirs - won)
        for other, name, together, mine, theirs, partnered, won in rows
        if together > partnered
    ]
    partners = [Partner(other, name, partnered, won) for other, name, _, _, _, partnered, won in rows if partnered]
    partners.sort(key=lambda partner: (-partner.together, partner.name))
    rivals.sort(key=lambda rival: (-rival.together, rival.name))
    return rivals, partners


def _form(player_id: int) -> list[FormEntry]:
    """The player's last finished matches, newest first: one query."""
    rows = db.session.execute(
        select(Match.id, Match.game, Match.started_at, Seat.won, Match.summary, Match.public_id)
        .join(Seat, Seat.match_id == Match.id)
        .where(Seat.player_id == player_id, Match.status == FINISHED)
        .order_by(Match.started_at.desc(), Match.id.desc())
        .limit(FORM_LENGTH)
    )
    return [
        FormEntry(match_id, game, started, won, won and len(summary.get("winners", [])) > 1, address)
        for match_id, game, started, won, summary, address in rows
    ]


def profile(player: Player) -> Profile:
    """A player's records per game, head to head and recent form: four queries, however many matches."""
    rivals, partners = _head_to_head(player.id)
    playing = in_progress(player.id)
    return Profile(player, _records(player.id), rivals, _form(player.id), playing, partners)
