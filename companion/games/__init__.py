"""The games behind one registry, one package each; `score_match` checks a match file."""

from __future__ import annotations

from typing import Any

from . import burraco, pazaak, pazzaparola, topic
from .base import Game, Seeding, Standings
from .checks import mapping, show
from .entry import Entry
from .refusals import N_, RuleError

FORMAT = "companion-match/1"

# A fifth game is one more package and one more entry here; the first game is the new-match default.
REGISTRY: dict[str, Game] = {game.slug: game for game in (pazzaparola.game, burraco.game, topic.game, pazaak.game)}


def register(game: Game) -> None:
    """Add a game to the registry (one defined outside this package, such as the tests' fifth game)."""
    if game.slug in REGISTRY:
        raise ValueError(f"a game {game.slug!r} is registered already")
    REGISTRY[game.slug] = game


def unregister(slug: str) -> None:
    """Take a game registered with `register` out of the registry again."""
    REGISTRY.pop(slug, None)


def get_game(slug: Any) -> Game:
    """The game with this slug: its rules, with its `entry` adapter and `seed` data."""
    if isinstance(slug, str) and slug in REGISTRY:
        return REGISTRY[slug]
    raise RuleError(
        N_("unknown game %(value)s (known games: %(games)s)", value=show(slug), games=", ".join(REGISTRY)), field="game"
    )


def default_game() -> Game:
    """The game the new-match form starts on: the first of the registry."""
    return next(iter(REGISTRY.values()))


def score_match(data: Any) -> Standings:
    """The standings of a whole match file, after checking every part of it."""
    data = mapping(data, N_("a match file"))
    if "format" not in data:
        raise RuleError(N_('missing; a match file says "format": "%(format)s"', format=FORMAT), field="format")
    if data["format"] != FORMAT:
        raise RuleError(
            N_('must be "%(format)s", got %(value)s', format=FORMAT, value=show(data["format"])), field="format"
        )
    for key in ("game", "players", "rounds"):
        if key not in data:
            raise RuleError(N_("missing from the match file"), field=key)
    return get_game(data["game"]).standings(data["players"], data.get("settings"), data["rounds"])


__all__ = [
    "FORMAT",
    "REGISTRY",
    "Entry",
    "Game",
    "RuleError",
    "Seeding",
    "Standings",
    "default_game",
    "get_game",
    "register",
    "score_match",
    "unregister",
]
