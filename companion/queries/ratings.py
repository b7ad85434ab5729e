"""The ratings' reads: a game's leaderboard, the CLI's figures, a player's rating over time, the chances to win
of a table about to play; the scale shown."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce
from sqlalchemy import select

from ..extensions import db
from ..games import REGISTRY
from ..games.checks import name_key
from ..models import Match, Player, PlayerRecord, Rating, RatingBook, RatingStep
from .sampling import spread

# The library's defaults: mu 25, sigma 25/3, so a newcomer's conservative figure is 0.
MODEL = PlackettLuce()
# Under this many rated matches of a game a player's rating is provisional, and says so.
PROVISIONAL_MATCHES = 5
# The friendly scale: a newcomer shows 1000, and each point of the conservative figure is worth 40.
SCALE_BASE, SCALE_STEP = 1000, 40
# The trend is the change of the rating over this many last matches.
TREND_MATCHES = 5
# What the board's line about the scale says.
SCALE = {"base": SCALE_BASE, "step": SCALE_STEP, "provisional": PROVISIONAL_MATCHES, "trend": TREND_MATCHES}


def ordinal(mu: float, sigma: float) -> float:
    """The conservative figure, mu - 3 sigma, as the library computes it (its ordinal)."""
    return MODEL.rating(mu=mu, sigma=sigma).ordinal()


def friendly(figure: float) -> int:
    """A conservative figure on the scale the pages show."""
    return round(SCALE_BASE + SCALE_STEP * figure)


def is_provisional(matches: int) -> bool:
    """Whether a rating from this many matches is still provisional."""
    return matches < PROVISIONAL_MATCHES


@dataclass(frozen=True)
class Rated:
    """One player's rating of one game, as the leaderboard and the CLI read it."""

    player_id: int
    name: str
    mu: float
    sigma: float
    matches: int
    wins: int
    recent: tuple[float, ...]

    @property
    def ordinal(self) -> float:
        """The conservative figure, mu - 3 sigma."""
        return ordinal(self.mu, self.sigma)

    @property
    def shown(self) -> int:
        """The rating on the friendly scale."""
        return friendly(self.ordinal)

    @property
    def trend(self) -> int:
        """The change of the shown rating over the last matches (up to 5)."""
        return friendly(self.recent[-1]) - friendly(self.recent[0]) if self.recent else 0

    @property
    def provisional(self) -> bool:
        """Whether the rating rests on fewer than PROVISIONAL_MATCHES matches."""
        return is_provisional(self.matches)


def rated(game: str) -> list[Rated]:
    """Every rated player of the game, highest conservative figure first (then by name): one query."""
    rows = db.session.execute(
        select(Rating.player_id, Player.name, Rating.mu, Rating.sigma, Rating.matches, PlayerRecord.won, Rating.recent)
        .join(Player, Player.id == Rating.player_id)
        .outerjoin(PlayerRecord, (PlayerRecord.player_id == Rating.player_id) & (PlayerRecord.game == Rating.game))
        .where(Rating.game == game)
    ).all()  # fmt: skip
    board = [Rated(pid, name, mu, sigma, matches, won or 0, tuple(recent)) for pid, name, mu, sigma, matches, won,
             recent in rows]  # fmt: skip
    board.sort(key=lambda r: (-r.ordinal, r.name.casefold(), r.player_id))
    return board


def places(board: list[Rated]) -> list[int]:
    """Each row's place on the board: equal shown ratings share one (1, 1, 3)."""
    found: list[int] = []
    for index, row in enumerate(board):
        found.append(found[-1] if index and row.shown == board[index - 1].shown else index + 1)
    return found


def whole_percent(part: int, whole: int) -> int:
    """A share of matches (won of played) in whole percent; none played is 0."""
    return round(100 * part / whole) if whole else 0


@dataclass(frozen=True)
class Shown:
    """A player's rating of one game on their page: now, the matches it rests on, and its lines over time."""

    game: str
    matches: int
    wins: int
    now: int
    # After each rated match of RatingLines.steps this game has reached, oldest first: the rating, and the
    # share of the game's matches won so far (whole percent).
    line: tuple[int, ...]
    won_share: tuple[int, ...]

    @property
    def win_rate(self) -> int:
        """The share of the game's matches won, in whole percent."""
        return whole_percent(self.wins, self.matches)

    @property
    def provisional(self) -> bool:
        """Whether the rating rests on fewer than PROVISIONAL_MATCHES matches."""
        return is_provisional(self.matches)


@dataclass(frozen=True)
class RatingLines:
    """A player's rating and results of each game over time, as their page draws them."""

    # Which rated matches the lines give (1 is each game's first), the same for every game: all of
    # them, or an even spread of them once the longest line has more than a chart holds.
    steps: tuple[int, ...]
    games: dict[str, Shown]

    @property
    def matches(self) -> int:
        """The rated matches of every game."""
        return sum(shown.matches for shown in self.games.values())

    @property
    def win_rate(self) -> int:
        """The share of them won, in whole percent."""
        return whole_percent(sum(shown.wins for shown in self.games.values()), self.matches)


def rating_lines(player_id: int) -> RatingLines:
    """The player's rating and results of each game they are rated at, in registry order, over time: two
    queries, which read the few steps drawn however many matches the player has."""
    group = select(Player.group_id).where(Player.id == player_id).scalar_subquery()
    books = db.session.execute(
        select(RatingBook.game, Rating.matches, Rating.wins, Rating.mu, Rating.sigma)
        .outerjoin(Rating, (Rating.game == RatingBook.game) & (Rating.player_id == player_id))
        .where(RatingBook.group_id == group)
    ).all()
    kept = [row for row in books if row.matches is not None]
    if not kept:
        return RatingLines((), {})
    steps = tuple(index + 1 for index in spread(max(row.matches for row in kept)))
    rows = db.session.execute(
        select(RatingStep.game, RatingStep.n, RatingStep.mu, RatingStep.sigma, RatingStep.wins)
        .where(RatingStep.player_id == player_id, RatingStep.game.in_([row.game for row in kept]),
               RatingStep.n.in_(steps))
        .order_by(RatingStep.game, RatingStep.n)
    ).all()  # fmt: skip
    lines: dict[str, list[tuple[int, int]]] = {}
    for game, n, mu, sigma, wins in rows:
        lines.setdefault(game, []).append((friendly(ordinal(mu, sigma)), whole_percent(wins, n)))
    by_game = {row.game: row for row in kept}
    games = {
        slug: Shown(slug, row.matches, row.wins, friendly(ordinal(row.mu, row.sigma)),
                    tuple(rating for rating, _ in lines.get(slug, ())),
                    tuple(share for _, share in lines.get(slug, ())))
        for slug in REGISTRY
        if (row := by_game.get(slug)) is not None
    }  # fmt: skip
    return RatingLines(steps, games)


def side_key(player: int | None, team: str | None) -> str:
    """The side a seat plays for: its team (a Burraco pair) when it has one, else the player alone."""
    return f"team {team}" if team is not None else f"player {player}"


def whole_percents(shares: Sequence[float]) -> list[int]:
    """Shares of a whole as whole percentages that sum to exactly 100.

    Each is rounded down and the points left over go to the largest remainders (the earlier side
    first when two are equal), so three even shares read 34, 33, 33 and never 33, 33, 33.
    """
    exact = [100 * share / sum(shares) for share in shares]
    whole = [math.floor(value) for value in exact]
    left = 100 - sum(whole)
    for index in sorted(range(len(exact)), key=lambda i: (whole[i] - exact[i], i))[:left]:
        whole[index] += 1
    return whole


def win_chances(sides: Sequence[Sequence[int | None]], ratings: Mapping[int, tuple[float, float]]) -> list[int]:
    """Each side's chance to win, in whole percent summing to 100, as the library predicts it.

    `sides` holds the ids of each side's players (a Burraco pair is one side of two), None for a
    name not in the roster yet; `ratings` the (mu, sigma) of those rated at the game. Anyone else
    plays at the library's default rating, as a newcomer.
    """
    teams = [[MODEL.rating(mu=ratings[p][0], sigma=ratings[p][1]) if p in ratings else MODEL.rating() for p in side]
             for side in sides]  # fmt: skip
    return whole_percents(MODEL.predict_win(teams))


def ratings_of(game: str, ids: Iterable[int | None]) -> dict[int, tuple[float, float]]:
    """The (mu, sigma) of those of these players who are rated at the game: one query, none without ids."""
    wanted = sorted({player for player in ids if player is not None})
    if not wanted:
        return {}
    rows = db.session.execute(
        select(Rating.player_id, Rating.mu, Rating.sigma).where(Rating.game == game, Rating.player_id.in_(wanted))
    ).all()
    return {player: (mu, sigma) for player, mu, sigma in rows}


@dataclass(frozen=True)
class Chance:
    """One side of a table about to play: its players' names, its team's name if a pair, its chance in percent."""

    names: tuple[str, ...]
    team: str | None
    percent: int


@dataclass(frozen=True)
class Chances:
    """The chances to win of every side at a table, and whether they rest on anything.

    With no one at the table rated at the game the library sees equal newcomers: `rated` is then
    false, and the pages say so rather than show even percentages that mean nothing.
    """

    sides: tuple[Chance, ...]
    rated: bool
    newcomers: bool


# One side at a table: its team's name (None for a player alone, or a pair not named yet) and its
# players as (id, name), the id None for a name not in the roster yet.
Side = tuple[str | None, Sequence[tuple[int | None, str]]]


def chances(game: str, sides: Sequence[Side]) -> Chances | None:
    """The chances to win of these sides: one query; None under two sides."""
    if len(sides) < 2:
        return None
    ids = [player for _, players in sides for player, _ in players]
    ratings = ratings_of(game, ids)
    percents = win_chances([[player for player, _ in players] for _, players in sides], ratings)
    return Chances(
        sides=tuple(Chance(tuple(name for _, name in players), team, percent)
                    for (team, players), percent in zip(sides, percents, strict=True)),
        rated=bool(ratings),
        newcomers=len(ratings) < len(ids),
    )  # fmt: skip


def match_chances(match: Match) -> Chances | None:
    """The chances to win of a match's sides in seat order, a Burraco pair under its team's name."""
    sides: dict[str, tuple[str | None, list[tuple[int | None, str]]]] = {}
    for seat in match.seats:
        _, players = sides.setdefault(side_key(seat.player_id, seat.team), (seat.team, []))
        players.append((seat.player_id, seat.name))
    return chances(match.game, list(sides.values()))


def table_chances(game: str, sides: Sequence[Sequence[str]], roster: Iterable[Player]) -> Chances | None:
    """The chances to win of a table being set up, its sides given by name: a name is looked up in the
    roster (read already), and one not in it yet is a newcomer."""
    ids = {player.key: player.id for player in roster}
    return chances(game, [(None, [(ids.get(name_key(name)), name) for name in side]) for side in sides])
