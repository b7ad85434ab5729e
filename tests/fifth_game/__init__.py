"""Fives as a registry would hold it, defined under tests/ only: the proof that a game is its own files."""

from .entry import FivesEntry
from .rules import Fives

game = Fives(entry=FivesEntry)

__all__ = ["game"]
