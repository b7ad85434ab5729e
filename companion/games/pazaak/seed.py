"""Made-up Pazaak matches for `flask seed`: sets as their outcome alone, or as the table totals."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from ..base import Seeding


class PazaakSeeding(Seeding):
    """Always two players; a set takes a few minutes."""

    seats: ClassVar[dict[int, int]] = {2: 1}
    minutes: ClassVar[tuple[float, float]] = (2, 5)

    def round(
        self, rng: random.Random, players: list[str], sides: list[str], settings: dict[str, Any]
    ) -> dict[str, Any]:
        """A set as its outcome alone, or as the table totals the engine decides."""
        if rng.random() < 0.5:
            return {"winner": rng.choice(players) if rng.random() < 0.95 else None}
        totals = {name: rng.randint(12, 20) for name in players}
        if rng.random() < 0.2:
            totals[rng.choice(players)] = rng.randint(21, 26)
        filled = [rng.choice(players)] if rng.random() < 0.03 and max(totals.values()) <= 20 else []
        tied = len(set(totals.values())) == 1
        tiebreaker = rng.choice(players) if tied and rng.random() < 0.3 else None
        return {"totals": totals, "filled": filled, "tiebreaker": tiebreaker}
