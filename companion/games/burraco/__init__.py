"""Burraco PAROLE as the registry holds it: its rules, with its entry adapter and seed data attached."""

from .entry import BurracoEntry, evaluate_sum
from .rules import Burraco, hand_score
from .seed import BurracoSeeding

game = Burraco(entry=BurracoEntry, seed=BurracoSeeding())

__all__ = ["evaluate_sum", "game", "hand_score"]
