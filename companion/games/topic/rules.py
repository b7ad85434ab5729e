"""Topic_: losers and penalised players take cards; the fewest cards when the deck runs out wins."""

from __future__ import annotations

from typing import Any, ClassVar

from ..base import Game, RecordSums, Replay, Tally
from ..checks import name_list
from ..refusals import N_, RuleError
from ..settings import CHOICE, Setting

BOX = 72
LENGTHS = {"short": 24, "medium": 36, "long": 67}


class Topic(Game):
    """Each round reveals a card from the deck; the game ends when the deck holds 1 card or none."""

    slug = "topic"
    name = "Topic_"
    min_players = 2
    max_players = 10
    # The length chips and the deck stepper are drawn by the game's own _settings.html and entry.py.
    declared: ClassVar[tuple[Setting, ...]] = (
        Setting(
            "length",
            "medium",
            N_("Game length"),
            kind=CHOICE,
            choices=tuple(LENGTHS),
            refusal=N_('must be "short", "medium" or "long", got %(value)s'),
            drawn=False,
        ),
        Setting("deck", None, N_("the deck"), lo=2, hi=BOX, optional=True, drawn=False),
    )
    fewest_first: ClassVar[bool] = True

    def normalise_settings(self, settings: dict[str, Any], players: list[str]) -> dict[str, Any]:
        """The declared settings checked; the deck is the one the length means unless `deck` gives one exactly."""
        checked = super().normalise_settings(settings, players)
        if checked["deck"] is None:
            checked["deck"] = LENGTHS[checked["length"]]
        return checked

    def normalise_round(self, players: list[str], settings: dict[str, Any], round: dict[str, Any]) -> dict[str, Any]:
        """The round's losers (one or more, distinct) and penalised players (repeats allowed)."""
        if "losers" not in round:
            raise RuleError(N_("missing; every round has at least one loser"), field="losers")
        losers = name_list(round["losers"], players, "losers", distinct=True, nonempty=True)
        penalties = round.get("penalties")
        penalties = [] if penalties is None else name_list(penalties, players, "penalties")
        return {"losers": losers, "penalties": penalties}

    def begin(self, sides: list[str], settings: dict[str, Any]) -> Tally:
        """No cards held; the deck as set up, the rest of the box in the removed pile."""
        return Tally(
            totals={name: 0 for name in sides},
            state={"deck": settings["deck"], "removed": BOX - settings["deck"]},
        )

    def score_round(
        self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """The first loser takes the revealed card; each further loser and penalty takes one more."""
        piles = tally.state
        taken = {name: 0 for name in players}
        first, *others = round["losers"]
        # A round only starts with 2 or more cards in the deck, so there is always one to reveal.
        piles["deck"] -= 1
        taken[first] += 1
        # Further losers first, then penalties, each in the order listed: it matters once the piles run out.
        for name in [*others, *round["penalties"]]:
            if piles["deck"] > 0:
                piles["deck"] -= 1
            elif piles["removed"] > 0:
                piles["removed"] -= 1
            else:
                continue
            taken[name] += 1
        for name, count in taken.items():
            tally.totals[name] += count
        return {"cards": taken}

    def is_over(self, tally: Tally, settings: dict[str, Any]) -> bool:
        """Over once a round leaves 1 card or none in the deck."""
        return tally.state["deck"] <= 1

    def extra(self, tally: Tally) -> dict[str, Any]:
        """The standings also say how many cards are left in the deck."""
        return {"deck": tally.state["deck"]}

    def starter(self, replay: Replay) -> str | None:
        """Who reveals the card after a replayed match (None for round 1 or at the end)."""
        if replay.over or not replay.rounds:
            return None
        return replay.rounds[-1]["losers"][0]

    @staticmethod
    def decks_of(replay: Replay) -> list[int]:
        """The cards left in the deck after each round of a replayed match, oldest first."""
        return [state["deck"] for state in replay.states]

    def record_figures(self, record: RecordSums) -> dict[str, Any]:
        """The cards held at the end of a match, on average."""
        return {"average_cards": round(record.total / record.played, 1)} if record.played else {}
