"""Made-up Topic_ matches for `flask seed`: quick rounds, now and then two losers or a penalty."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from ..base import Seeding


class TopicSeeding(Seeding):
    """Two to ten players, mostly four; a round takes a minute or two."""

    seats: ClassVar[dict[int, int]] = {2: 1, 3: 3, 4: 5, 5: 4, 6: 3, 7: 2, 8: 1, 9: 1, 10: 1}
    minutes: ClassVar[tuple[float, float]] = (1, 3)

    def settings(self, rng: random.Random, players: list[str]) -> dict[str, Any]:
        """Mostly the medium length."""
        return {"length": self.weighted(rng, {"short": 2, "medium": 5, "long": 1})}

    def round(
        self, rng: random.Random, players: list[str], sides: list[str], settings: dict[str, Any]
    ) -> dict[str, Any]:
        """The slowest player loses, sometimes two tie for last, now and then a penalty."""
        losers = rng.sample(players, 2 if rng.random() < 0.15 else 1)
        penalties = [rng.choice(players)] if rng.random() < 0.1 else []
        return {"losers": losers, "penalties": penalties}
