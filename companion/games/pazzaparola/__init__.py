"""Pazzaparola as the registry holds it: its rules, with its entry adapter and seed data attached."""

from .entry import PazzaparolaEntry
from .rules import Pazzaparola, word_score
from .seed import PazzaparolaSeeding

game = Pazzaparola(entry=PazzaparolaEntry, seed=PazzaparolaSeeding())

__all__ = ["game", "word_score"]
