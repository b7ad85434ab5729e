"""Pazaak as the registry holds it: its rules and the set calculator's, with its entry adapter and seed data."""

from .entry import PazaakEntry
from .rules import Pazaak
from .seed import PazaakSeeding

game = Pazaak(entry=PazaakEntry, seed=PazaakSeeding())

__all__ = ["game"]
