"""The rules of the games, one module each, behind one registry; `score_match` checks a match file."""

from __future__ import annotations

from typing import Any

from .base import Game, RuleError, Standings, mapping, show
from .burraco import Burraco
from .pazaak import Pazaak
from .pazzaparola import Pazzaparola
from .topic import Topic

FORMAT = "companion-match/1"

# A fifth game is one more module and one more entry here.
REGISTRY: dict[str, Game] = {game.slug: game for game in (Pazzaparola(), Burraco(), Topic(), Pazaak())}


def get_game(slug: Any) -> Game:
    """The rules of the game with this slug."""
    if isinstance(slug, str) and slug in REGISTRY:
        return REGISTRY[slug]
    raise RuleError(f"unknown game {show(slug)} (known games: {', '.join(REGISTRY)})", field="game")


def score_match(data: Any) -> Standings:
    """The standings of a whole match file, after checking every part of it."""
    data = mapping(data, "a match file")
    if "format" not in data:
        raise RuleError(f'missing; a match file says "format": "{FORMAT}"', field="format")
    if data["format"] != FORMAT:
        raise RuleError(f'must be "{FORMAT}", got {show(data["format"])}', field="format")
    for key in ("game", "players", "rounds"):
        if key not in data:
            raise RuleError("missing from the match file", field=key)
    return get_game(data["game"]).standings(data["players"], data.get("settings"), data["rounds"])


__all__ = ["FORMAT", "REGISTRY", "Game", "RuleError", "Standings", "get_game", "score_match"]
