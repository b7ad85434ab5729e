"""Fives, a fifth game made up for the tests: each player scores 0 to 5 a round, first to the target wins."""

from __future__ import annotations

from typing import Any, ClassVar

from companion.games.base import Game, RecordSums, Tally, best
from companion.games.checks import per_name, whole
from companion.games.refusals import N_
from companion.games.settings import Setting


class Fives(Game):
    """Two to six players add up their points; everyone at or over the target when it is reached wins."""

    slug = "fives"
    name = "Fives"
    min_players = 2
    max_players = 6
    declared: ClassVar[tuple[Setting, ...]] = (Setting("target", 10, N_("Points to reach"), lo=1, hi=100),)

    def normalise_round(self, players: list[str], settings: dict[str, Any], round: dict[str, Any]) -> dict[str, Any]:
        """Every player's points, 0 to 5."""
        points = per_name(round.get("points"), players, "points")
        return {"points": {name: whole(value, "points", lo=0, hi=5, field=name) for name, value in points.items()}}

    def score_round(
        self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """Each player's points go to their total."""
        for name, points in round["points"].items():
            tally.totals[name] += points
        return {"scores": dict(round["points"])}

    def is_over(self, tally: Tally, settings: dict[str, Any]) -> bool:
        """Over once someone reaches the target."""
        return max(tally.totals.values()) >= settings["target"]

    def winners(self, tally: Tally, settings: dict[str, Any]) -> list[str]:
        """The highest total(s)."""
        return best(tally.totals)

    def record_figures(self, record: RecordSums) -> dict[str, Any]:
        """The best round a player ever scored."""
        return {"best_round": record.best_score} if record.score_count else {}
