"""Topic_: losers and penalised players take cards; the fewest cards when the deck runs out wins."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from . import forms
from .base import Game, RuleError, Tally, best, name_list, show, whole

BOX = 72
LENGTHS = {"short": 24, "medium": 36, "long": 67}
# The new-match form's fourth length chip: the deck size comes from the stepper.
EXACT = "exact"
# A tap on a deck stepper posts the setup form with `action` = this prefix and the step, e.g. "topic-deck:-10".
STEP_ACTION = "topic-deck:"
# The round entry's own fields; a form with none of them is read as the base class's JSON `round`.
ROUND_FIELDS = ("loser", "losers", "several", "penalty", "extra")


def form_values(form: Mapping[str, Any] | None, key: str) -> list[str]:
    """Every non-blank value a form carries under `key`, trimmed."""
    return [text for text in (value.strip() for value in forms.values(form, key)) if text]


def form_value(form: Mapping[str, Any] | None, key: str) -> str:
    """The first value a form carries under `key`, or ""."""
    values = form_values(form, key)
    return values[0] if values else ""


class Topic(Game):
    """Each round reveals a card from the deck; the game ends when the deck holds 1 card or none."""

    slug = "topic"
    name = "Topic_"
    min_players = 2
    max_players = 10
    defaults: ClassVar[dict[str, Any]] = {"length": "medium", "deck": None}
    # The settings the new-match page shows its own errors for.
    setting_fields: ClassVar[tuple[str, ...]] = ("length", "deck")
    lengths: ClassVar[dict[str, int]] = LENGTHS
    box: ClassVar[int] = BOX

    def normalise_settings(self, settings: dict[str, Any], players: list[str]) -> dict[str, Any]:
        """The game length, and the deck size it means unless `deck` gives one exactly."""
        length = settings["length"]
        if length not in LENGTHS:
            raise RuleError(f'must be "short", "medium" or "long", got {show(length)}', field="length")
        deck = settings["deck"]
        deck = LENGTHS[length] if deck is None else whole(deck, "the deck", lo=2, hi=BOX, field="deck")
        return {"length": length, "deck": deck}

    def normalise_round(
        self, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """The round's losers (one or more, distinct) and penalised players (repeats allowed)."""
        if "losers" not in round:
            raise RuleError("missing; every round has at least one loser", field="losers")
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

    def play(
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

    def winners(self, tally: Tally, settings: dict[str, Any]) -> list[str]:
        """The player(s) holding the fewest cards."""
        return best(tally.totals, fewest=True)

    def extra(self, tally: Tally) -> dict[str, Any]:
        """The standings also say how many cards are left in the deck."""
        return {"deck": tally.state["deck"]}

    def piles(self, players: list[str], settings: dict[str, Any] | None, rounds: list[Any]) -> dict[str, int]:
        """Cards left in the deck and in the removed pile after these rounds."""
        return dict(self.replay(players, settings, rounds).tally.state)

    def deck_left(self, players: list[str], settings: dict[str, Any] | None, rounds: list[Any]) -> int:
        """Cards left in the deck after these rounds."""
        return self.piles(players, settings, rounds)["deck"]

    def next_to_start(
        self, players: list[str], settings: dict[str, Any] | None, rounds: list[Any]
    ) -> str | None:
        """Who reveals the next card: the (first) loser of the last round; None for round 1 or at the end."""
        replay = self.replay(players, settings, rounds)
        if replay.over or not replay.rounds:
            return None
        return replay.rounds[-1]["losers"][0]

    def decks(self, players: list[str], settings: dict[str, Any] | None, rounds: list[Any]) -> list[int]:
        """The cards left in the deck after each round, oldest first."""
        return [tally.state["deck"] for tally in self.tallies(players, settings, rounds)][1:]

    # --- the web forms -------------------------------------------------------------------

    form_values = staticmethod(form_values)

    def setup_choice(self, form: Mapping[str, Any] | None) -> dict[str, Any]:
        """The length chip and deck size the new-match form shows, after a tap on a deck stepper.

        A stepper tap picks the exact deck and moves it by its step within 2..72; a deck that
        cannot be read is shown as typed, so its error stays next to it.
        """
        length = form_value(form, "length") or "medium"
        text = form_value(form, "deck")
        try:
            deck: int | str = int(text) if text else LENGTHS.get(length, LENGTHS["medium"])
        except ValueError:
            deck = text
        action = form_value(form, "action")
        if action.startswith(STEP_ACTION):
            try:
                step = int(action[len(STEP_ACTION):])
            except ValueError:
                step = 0
            start = deck if isinstance(deck, int) else LENGTHS["medium"]
            length, deck = EXACT, min(BOX, max(2, start + step))
        return {"length": length, "deck": deck}

    def settings_from_form(self, form: Mapping[str, Any], players: list[str]) -> dict[str, Any]:
        """The raw settings of the new-match form: a length chip, or the exact deck of the stepper."""
        length = form_value(form, "length") or "medium"
        if length != EXACT:
            return {"length": length}
        text = form_value(form, "deck")
        try:
            return {"deck": int(text)}
        except ValueError:
            raise RuleError(
                f"the deck must be a whole number of cards from 2 to {BOX}, got {show(text)}", field="deck"
            ) from None

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """The round of the entry form: the tapped `loser`, or with `several` on the ticked `losers`; penalties.

        `extra` (JSON) carries the keys of a corrected round that the form does not show, such as an
        imported round's time. Names are checked by check_round; only an empty choice is refused here.
        """
        several = bool(form_value(form, "several"))
        losers = form_values(form, "losers" if several else "loser")
        if not losers:
            reason = "tick every player who lost, then Save" if several else "tap the player who lost"
            raise RuleError(reason, field="losers")
        round = {**self._extra(form), "losers": losers}
        penalties = form_values(form, "penalty")
        if penalties:
            round["penalties"] = penalties
        return round

    @staticmethod
    def _extra(form: Any) -> dict[str, Any]:
        """The round's keys carried unchanged through a correction."""
        return forms.json_field(form, "extra", dict, "the round's other keys")

    def form_from_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any]
    ) -> dict[str, list[str]]:
        """The entry form's fields for a stored round, in several-losers mode so any number can be ticked.

        The exact inverse of round_from_form: whatever the form does not show (an empty or null
        `penalties`, an imported round's time) rides along in `extra`.
        """
        extra = {key: value for key, value in round.items() if key not in ("losers", "penalties")}
        penalties = round.get("penalties")
        if "penalties" in round and not penalties:
            extra["penalties"] = penalties
        fields = {
            "several": ["on"],
            "losers": [str(name) for name in round.get("losers") or []],
            "penalty": [str(name) for name in penalties or []],
        }
        if extra:
            fields["extra"] = [json.dumps(extra, ensure_ascii=False)]
        return fields
