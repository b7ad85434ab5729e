"""The ratings' reads: a game's leaderboard, the CLI's figures, a player's rating over time; the scale shown."""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce
from sqlalchemy import select

from ..extensions import db
from ..games import REGISTRY
from ..models import Player, PlayerRecord, Rating, RatingStep
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
        return round(100 * self.wins / self.matches) if self.matches else 0

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
        return round(100 * sum(shown.wins for shown in self.games.values()) / self.matches) if self.matches else 0


def rating_lines(player_id: int) -> RatingLines:
    """The player's rating and results of each game they are rated at, in registry order, over time: two
    queries, which read the few steps drawn however many matches the player has."""
    kept = db.session.execute(
        select(Rating.game, Rating.matches, Rating.wins, Rating.mu, Rating.sigma).where(Rating.player_id == player_id)
    ).all()
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
        lines.setdefault(game, []).append((friendly(ordinal(mu, sigma)), round(100 * wins / n)))
    by_game = {row.game: row for row in kept}
    games = {
        slug: Shown(slug, row.matches, row.wins, friendly(ordinal(row.mu, row.sigma)),
                    tuple(rating for rating, _ in lines.get(slug, ())),
                    tuple(share for _, share in lines.get(slug, ())))
        for slug in REGISTRY
        if (row := by_game.get(slug)) is not None
    }  # fmt: skip
    return RatingLines(steps, games)
