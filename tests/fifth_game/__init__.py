"""Fives as a registry would hold it, defined under tests/ only: the proof that a game is its own files."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from companion.games import Game, register, unregister

from .entry import FivesEntry
from .rules import Fives

game = Fives(entry=FivesEntry)


@contextmanager
def registered() -> Iterator[Game]:
    """Fives in the registry while the block runs, and out of it again afterwards."""
    register(game)
    try:
        yield game
    finally:
        unregister(game.slug)


__all__ = ["game", "registered"]
