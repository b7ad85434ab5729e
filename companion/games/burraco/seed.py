"""Made-up Burraco PAROLE matches for `flask seed`: mostly four at the table, often in pairs."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from ..base import Seeding
from .entry import BurracoEntry


class BurracoSeeding(Seeding):
    """Two to five players, mostly four; a hand takes a quarter of an hour or so."""

    seats: ClassVar[dict[int, int]] = {2: 3, 3: 2, 4: 6, 5: 1}
    minutes: ClassVar[tuple[float, float]] = (12, 25)

    def settings(self, rng: random.Random, players: list[str]) -> dict[str, Any]:
        """Four players play in pairs seven times in ten, under the names the form proposes in English."""
        if len(players) == 4 and rng.random() < 0.7:
            first, second = (str(name) for name in BurracoEntry.team_names)
            return {"teams": {first: [players[0], players[2]], second: [players[1], players[3]]}}
        return {}

    def round(
        self, rng: random.Random, players: list[str], sides: list[str], settings: dict[str, Any]
    ) -> dict[str, Any]:
        """Each side's cards laid and in hand, its burraco, and usually someone closing."""
        entries = {
            side: {
                "table": 5 * rng.randint(6, 80),
                "hand": 5 * rng.randint(0, 30),
                "clean": self.weighted(rng, {0: 5, 1: 4, 2: 1}),
                "dirty": self.weighted(rng, {0: 4, 1: 4, 2: 2}),
            }
            for side in sides
        }
        closer = rng.choice(sides) if rng.random() < 0.8 else None
        if closer is not None:
            # The rules let only a side with a burraco close; alone, with an empty hand too.
            # In pairs the closer's partner holds some cards one hand in two.
            if not settings.get("teams") or rng.random() < 0.5:
                entries[closer]["hand"] = 0
            entries[closer]["clean"] = max(entries[closer]["clean"], 1)
        return {"sides": entries, "closed_by": closer}
