"""Players' ratings per game (openskill's Plackett-Luce), derived from the finished matches and kept in step.

Each finished match, in the order the matches finished (those of one second in the order of the
history's export, by id), is one update whose ranks are the game's final standings. A match that
finishes after the last one rated is rated on its own, in the save that finishes it. Any other change
to the finished matches (a correction, an undo of a final round, a deletion, a merge, an import) only
marks the game's book stale: rating 10,000 matches again takes most of a second, too long for a save
that waits on it, so the request that made the change rebuilds the book once it has answered
(`rebuild_marked`, web/ratings.py), else the next start does. A page that reads the ratings never
writes: between the change and the rebuild it shows them as they were.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from itertools import groupby
from typing import Any

from sqlalchemy import and_, bindparam, delete, insert, or_, select

from ..extensions import db
from ..games import REGISTRY, get_game
from ..models import (
    FINISHED,
    Match,
    Player,
    Rating,
    RatingBook,
    RatingStep,
    Seat,
    current_group,
    group_or_open,
    within_group,
)
from ..queries.ratings import MODEL, TREND_MATCHES, side_key
from .dialect import conflict_insert
from .records import Stake
from .transaction import transaction


def order_key(finished_at: datetime | None, match_id: int) -> tuple[datetime, int]:
    """Where a finished match comes in the rating order: by the second it finished, then by id."""
    return ((finished_at or datetime.min).replace(microsecond=0), match_id)


@dataclass
class Standing:
    """A player's rating while matches are rated: the library's rating, how many matches, the recent figures."""

    rating: Any
    matches: int = 0
    recent: list[float] = field(default_factory=list)
    wins: int = 0

    @classmethod
    def new(cls) -> Standing:
        """A player before their first rated match: the library's default rating."""
        start = MODEL.rating()
        return cls(start, 0, [start.ordinal()])

    @classmethod
    def kept(cls, mu: float, sigma: float, matches: int, recent: list[float], wins: int) -> Standing:
        """A player's rating as stored."""
        return cls(MODEL.rating(mu=mu, sigma=sigma), matches, list(recent), wins)

    def step(self, game: str, seq: int, match_id: int, player_id: int) -> dict[str, Any]:
        """The row of the rating's step after the match `seq` of the game, for this player."""
        return {"game": game, "seq": seq, "match_id": match_id, "player_id": player_id, "mu": self.mu,
                "sigma": self.sigma, "n": self.matches, "wins": self.wins}  # fmt: skip

    @property
    def mu(self) -> float:
        """The rating's mean."""
        return self.rating.mu

    @property
    def sigma(self) -> float:
        """The rating's uncertainty."""
        return self.rating.sigma


def rate(game: str, seats: Iterable[tuple[int, str | None, int | None]], standings: dict[int, Standing]) -> list[int]:
    """Rate one finished match: seats as (player, team, total); updates `standings`, returns the players rated.

    A team (a Burraco pair) is one side of the match; a player without a team is a side alone.
    """
    sides: dict[str, list[int]] = {}
    totals: dict[str, int] = {}
    for player, team, total in seats:
        side = side_key(player, team)
        sides.setdefault(side, []).append(player)
        totals[side] = total or 0
    if len(sides) < 2:
        return []
    ranks = get_game(game).final_ranks(totals)
    teams = []
    for players in sides.values():
        for player in players:
            if player not in standings:
                standings[player] = Standing.new()
        teams.append([standings[p].rating for p in players])
    rated = MODEL.rate(teams, ranks=[ranks[side] for side in sides])
    done = []
    for players, team in zip(sides.values(), rated, strict=True):
        for player, after in zip(players, team, strict=True):
            standing = standings[player]
            standing.rating, standing.matches = after, standing.matches + 1
            standing.recent = [*standing.recent, after.ordinal()][-(TREND_MATCHES + 1) :]
            done.append(player)
    return done


@dataclass(frozen=True)
class _Statements:
    """The statements a save that finishes a match runs, built once per database dialect (it is on the save's path)."""

    open_book: Any
    mark_stale: Any
    upsert_ratings: Any
    seats: Any
    kept: Any
    add_steps: Any
    move_book: Any
    meets_later: Any


@lru_cache(maxsize=2)
def _statements(dialect: str) -> _Statements:
    """The statements, in the dialect of the session's database."""
    books, rated = RatingBook.__table__, Rating.__table__
    adding = conflict_insert(books).values(group_id=bindparam("group"), game=bindparam("game"), stale=True, rated=0)
    ratings = conflict_insert(rated)
    book = ["group_id", "game"]
    return _Statements(
        # A no-op update of a book already there: it locks the row all the same.
        open_book=adding.on_conflict_do_update(index_elements=book, set_={"stale": books.c.stale}).returning(
            *books.c
        ),
        mark_stale=adding.on_conflict_do_update(index_elements=book, set_={"stale": True}),
        upsert_ratings=ratings.on_conflict_do_update(
            index_elements=["player_id", "game"],
            set_={name: ratings.excluded[name] for name in ("mu", "sigma", "matches", "recent", "wins")},
        ),
        seats=select(Seat.player_id, Seat.team, Seat.total, Seat.won)
        .where(Seat.match_id == bindparam("match_id"))
        .order_by(Seat.position),
        kept=select(rated.c.player_id, rated.c.mu, rated.c.sigma, rated.c.matches, rated.c.recent, rated.c.wins).where(
            rated.c.game == bindparam("game"), rated.c.player_id.in_(bindparam("ids", expanding=True))
        ),
        add_steps=insert(RatingStep.__table__),
        move_book=books.update()
        .where(books.c.group_id == bindparam("group"), books.c.game == bindparam("book"))
        .values(rated=bindparam("seq"), last_finished_at=bindparam("at"), last_match_id=bindparam("match_id")),
        # A finished match of the group's game, from this second on, that one of these players played (see follow).
        meets_later=select(Seat.match_id)
        .join(Match, Match.id == Seat.match_id)
        .where(
            Match.group_id == bindparam("group"),
            Match.game == bindparam("game"),
            Match.status == FINISHED,
            Match.id != bindparam("match_id"),
            Match.finished_at >= bindparam("second"),
            Seat.player_id.in_(bindparam("ids", expanding=True)),
        )
        .limit(1),
    )


def _run() -> _Statements:
    """The statements for the session's database."""
    return _statements(db.session.get_bind().dialect.name)


def _open_book(group: int, game: str) -> Any:
    """The group's book of the game, added (stale: never built) if missing, and locked until the transaction ends."""
    return db.session.execute(_run().open_book, {"group": group, "game": game}).one()


# Where the session notes the books it marked stale, which its request rebuilds once it has answered.
MARKED = "ratings_marked"


def mark_stale(games: Iterable[str], group: int | None = None) -> None:
    """Mark a group's books (the current group's) of these games stale, in the caller's transaction, and note
    them in the session for `rebuild_marked`."""
    group = group_or_open() if group is None else group
    for game in sorted(set(games)):
        db.session.execute(_run().mark_stale, {"group": group, "game": game})
        db.session.info.setdefault(MARKED, set()).add((group, game))


def rebuild_marked(marked: Iterable[tuple[int, str]]) -> None:
    """Rebuild the books (group, game) a write marked stale, those still stale, each in a transaction of its own."""
    _rebuild_books(sorted(marked))


def redo(games: Iterable[str]) -> None:
    """Rate the current group's finished matches of these games again from the start now, in the caller's
    transaction (a generated history, whose ratings are read right after)."""
    for game in sorted(set(games)):
        rebuild(game)


def follow(match: Match, before: Stake | None) -> None:
    """Keep the match's game's ratings in step with a match just rescored, given what it added before.

    A match that stays unfinished costs nothing; one that has just finished after the last match
    rated is rated now; any other change to a finished match marks the game's book stale, and a match
    finished while the book is stale is left to its rebuild. A book never built (the group's first
    match of the game) is built now: there is nothing else to rate, or a history from before the
    ratings that the app's start had not seen.
    """
    if before is None:
        return
    was_finished, finished = before.winners is not None, match.status == FINISHED
    if not was_finished and not finished:
        return
    book = _open_book(match.group_id, match.game)
    key = order_key(match.finished_at, match.id)
    last = order_key(book.last_finished_at, book.last_match_id) if book.last_match_id is not None else None
    if book.stale and book.last_match_id is not None:
        # Left to the rebuild, which this write asks for again: the one asked for when the book was marked may have
        # failed (a database busy past its timeout) or never run (the worker gone), and no read rebuilds it.
        db.session.info.setdefault(MARKED, set()).add((match.group_id, match.game))
        return
    if book.stale:
        rebuild(match.game)
        return
    if not was_finished and last is not None and key <= last and not _meets_later(match, key):
        # Rated now all the same: no match rated after its place has any of its players, and rating matches of
        # players apart gives the same ratings in either order. A hall's 100 tables finish within seconds, out of
        # their ids' order, and each one left the book to a rebuild of the whole evening.
        _rate_one(match, book.rated + 1, at=(book.last_finished_at, book.last_match_id))
        return
    if was_finished or (last is not None and key <= last):
        mark_stale([match.game], match.group_id)
        return
    _rate_one(match, book.rated + 1)


def _meets_later(match: Match, key: tuple[datetime, int]) -> bool:
    """Whether a player of this match played a match rated after its place (or in the same second: by the
    second a match finished is all the order keeps)."""
    ids = [seat.player_id for seat in match.seats if seat.player_id is not None]
    values = {"group": match.group_id, "game": match.game, "match_id": match.id, "second": key[0], "ids": ids}
    return db.session.connection().execute(_run().meets_later, values).first() is not None


def _rate_and_count(game: str, seats: list[Any], standings: dict[int, Standing]) -> list[int]:
    """Rate one finished match from its seats (player_id, team, total, won), and count the wins of those rated."""
    done = rate(game, [(seat.player_id, seat.team, seat.total) for seat in seats], standings)
    for seat in seats:
        if seat.won and seat.player_id in done:
            standings[seat.player_id].wins += 1
    return done


def _rate_one(match: Match, seq: int, at: tuple[datetime | None, int | None] | None = None) -> None:
    """Rate a match: its players' rows and steps only; the book then ends with it, or still `at` the match it
    ended with (a match rated out of its place, see follow)."""
    run, connection = _run(), db.session.connection()
    seats = connection.execute(run.seats, {"match_id": match.id}).all()
    ids = [seat.player_id for seat in seats]
    kept = connection.execute(run.kept, {"game": match.game, "ids": ids}).all()
    standings = {row.player_id: Standing.kept(row.mu, row.sigma, row.matches, row.recent, row.wins) for row in kept}
    done = _rate_and_count(match.game, seats, standings)
    if done:
        connection.execute(run.upsert_ratings, [_row(match.game, p, standings[p]) for p in sorted(done)])
        connection.execute(run.add_steps, [standings[p].step(match.game, seq, match.id, p) for p in done])
    last_at, last_id = at or (match.finished_at, match.id)
    moved = {"group": match.group_id, "book": match.game, "seq": seq, "at": last_at, "match_id": last_id}
    connection.execute(run.move_book, moved)


def _row(game: str, player: int, standing: Standing) -> dict[str, Any]:
    """A rating row's values."""
    return {"player_id": player, "game": game, "mu": standing.mu, "sigma": standing.sigma,
            "matches": standing.matches, "recent": standing.recent, "wins": standing.wins}  # fmt: skip


def rebuild(game: str, group: int | None = None) -> int:
    """Rate every finished match of the game in a group (the current one) again from the start (the caller
    commits); returns how many. The groups' players are apart, so each group's ratings are its own."""
    group = group_or_open() if group is None else group
    book = _open_book(group, game)
    players = select(Player.id).where(Player.group_id == group)
    db.session.execute(delete(Rating).where(Rating.game == game, Rating.player_id.in_(players)))
    db.session.execute(delete(RatingStep).where(RatingStep.game == game, RatingStep.player_id.in_(players)))
    rows = db.session.execute(
        select(Seat.match_id, Match.finished_at, Seat.player_id, Seat.team, Seat.total, Seat.won)
        .join(Match, Match.id == Seat.match_id)
        .where(Match.group_id == group, Match.game == game, Match.status == FINISHED)
        .order_by(Seat.match_id, Seat.position)
    ).all()
    matches = [(order_key(finished_at, match_id), list(seats)) for (match_id, finished_at), seats in
               groupby(rows, key=lambda row: (row.match_id, row.finished_at))]  # fmt: skip
    matches.sort(key=lambda pair: pair[0])
    standings: dict[int, Standing] = {}
    steps = []
    for seq, (key, seats) in enumerate(matches, start=1):
        done = _rate_and_count(game, seats, standings)
        steps.extend(standings[p].step(game, seq, key[1], p) for p in done)
    if standings:
        rows = [_row(game, player, standing) for player, standing in sorted(standings.items())]
        db.session.connection().execute(insert(Rating.__table__), rows)
    if steps:
        db.session.connection().execute(insert(RatingStep.__table__), steps)
    last = matches[-1][1][0] if matches else None
    db.session.execute(
        RatingBook.__table__.update()
        .where(RatingBook.group_id == group, RatingBook.game == book.game)
        .values(stale=False, rated=len(matches), last_finished_at=last.finished_at if last else None,
                last_match_id=last.match_id if last else None)
    )  # fmt: skip
    return len(matches)


def rebuild_stale(games: Iterable[str] | None = None) -> None:
    """Rebuild the books of these games (of every game by default) that are stale, or were never built
    while the group has a finished match of the game: those of the current group, or of every group.

    Run on start and at the end of an import.
    """
    wanted = sorted(set(games) if games is not None else REGISTRY)
    played = select(Match.group_id, Match.game).where(Match.status == FINISHED, Match.game.in_(wanted)).distinct()
    group = current_group()
    if group is not None:
        played = played.where(Match.group_id == group)
    played = played.subquery()
    books = RatingBook.__table__
    due = (
        select(played.c.group_id, played.c.game)
        .outerjoin(books, and_(books.c.group_id == played.c.group_id, books.c.game == played.c.game))
        .where(or_(books.c.stale.is_(None), books.c.stale))
        .order_by(played.c.group_id, played.c.game)
    )
    _rebuild_books(db.session.execute(due).all())


def bring_up_to_date(games: Iterable[str] | None = None) -> None:
    """Before the current group's ratings of these games (of every game by default) are read: rebuild
    those a change marked stale. One small read when none is, which is nearly always."""
    books = RatingBook.__table__
    due = select(books.c.group_id, books.c.game).where(books.c.group_id == group_or_open(), books.c.stale)
    if games is not None:
        due = due.where(books.c.game.in_(sorted(set(games))))
    _rebuild_books(db.session.execute(due.order_by(books.c.game)).all())


def _rebuild_books(due: Iterable[tuple[int, str]]) -> None:
    """Rebuild these books (group, game), each in a transaction of its own."""
    for due_group, game in due:
        with within_group(due_group), transaction():
            # Read again under the lock: another request or process may have rebuilt it meanwhile.
            if _open_book(due_group, game).stale:
                rebuild(game, due_group)
