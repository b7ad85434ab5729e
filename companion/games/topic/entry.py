"""Topic_'s entry adapter: the game length on the new-match form, one tap per loser, penalty cards, and back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from ..base import Replay, Standings
from ..checks import show
from ..entry import Entry
from ..forms import json_field, values, whole_number
from ..refusals import N_, Message, Np_, RuleError
from .rules import BOX, LENGTHS

# The new-match form's fourth length chip: the deck size comes from the stepper.
EXACT = "exact"
# A tap on a deck stepper posts the setup form with `action` = this prefix and the step, e.g. "topic-deck:-10".
STEP_ACTION = "topic-deck:"


def form_values(form: Any, key: str) -> list[str]:
    """Every non-blank value a form carries under `key`, trimmed."""
    return [text for text in (value.strip() for value in values(form, key)) if text]


def form_value(form: Any, key: str) -> str:
    """The first value a form carries under `key`, or ""."""
    found = form_values(form, key)
    return found[0] if found else ""


class TopicEntry(Entry):
    """Length chips and a deck stepper on the new-match form; a button per player on the match page."""

    board_figure: ClassVar[str | None] = "average_cards"
    total_word: ClassVar[Message] = N_("Cards held")

    round_texts: ClassVar[dict[str, Message]] = {
        **Entry.round_texts,
        "took": N_("%(name)s +%(num)s"),
        "penalties": Np_("%(num)s penalty", "%(num)s penalties"),
    }

    def describe_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any], say: Callable[[Message], str]
    ) -> str:
        """Who takes cards, in seat order, with the penalty cards among them: "Bob +1 · Cy +2 (1 penalty)"."""
        takers = []
        for name in players:
            penalties = round["penalties"].count(name)
            count = round["losers"].count(name) + penalties
            if count:
                took = say(self.said("took", name=name, num=count))
                takers.append(f"{took} ({say(self.said('penalties', num=penalties))})" if penalties else took)
        return " · ".join(takers)

    def describe_after(
        self, number: int, round: dict[str, Any], standings: Standings, say: Callable[[Message], str]
    ) -> str:
        """The cards left in the deck, and whether the game is over; a card the round's line promised that the
        piles no longer held (a last round with more takers than cards left in the box) is owned up to."""
        taken = standings.rounds[number - 1]["cards"]
        short = [name for name in taken if taken[name] < round["losers"].count(name) + round["penalties"].count(name)]
        parts = [say(N_("no card left for %(names)s", names=", ".join(short)))] if short else []
        deck = standings.extra["deck"]
        parts.append(say(Np_("%(num)s card left in the deck", "%(num)s cards left in the deck", num=deck)))
        if standings.over:
            parts.append(say(N_("Game over")))
        return "".join(f" · {part}" for part in parts)

    def setup_choice(self, form: Any) -> dict[str, Any]:
        """Every setting the new-match form shows after a tap, with the length chip and deck size of its own widget.

        A deck stepper tap picks the exact deck and moves it by its step within 2..72; a deck that
        cannot be read is shown as typed, so its error stays next to it. The other declared settings
        are kept as the form carried them.
        """
        shown = super().setup_view(form, [])["shown"]
        length = form_value(form, "length") or "medium"
        text = form_value(form, "deck")
        number = whole_number(text, signed=True)
        deck: int | str = LENGTHS.get(length, LENGTHS["medium"]) if not text else text if number is None else number
        action = form_value(form, "action")
        if action.startswith(STEP_ACTION):
            step = whole_number(action[len(STEP_ACTION) :], signed=True) or 0
            start = deck if isinstance(deck, int) else LENGTHS["medium"]
            length, deck = EXACT, min(BOX, max(2, start + step))
        return {**shown, "length": length, "deck": deck}

    def setup_view(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The settings shown (see `setup_choice`), the deck of each length, and the generic fields."""
        choice = self.setup_choice(form)
        return {**super().setup_view(form, players), **choice, "shown": choice, "lengths": LENGTHS, "box": BOX}

    def settings_from_form(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The raw settings of the new-match form: a length chip, or the exact deck of the stepper, and the others."""
        others = self.read_settings(form, skip=("length", "deck"))
        length = form_value(form, "length") or "medium"
        if length != EXACT:
            return {"length": length, **others}
        text = form_value(form, "deck")
        deck = whole_number(text, signed=True)
        if deck is None:
            raise RuleError(
                N_(
                    "the deck must be a whole number of cards from 2 to %(max)s, got %(value)s",
                    max=BOX,
                    value=show(text),
                ),
                field="deck",
            )
        return {"deck": deck, **others}

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """The round of the entry form: the tapped `loser`, or with `several` on the ticked `losers`; penalties.

        `extra` (JSON) carries the keys of a corrected round that the form does not show, such as an
        imported round's time. Names are checked by check_round; only an empty choice is refused here.
        """
        several = bool(form_value(form, "several"))
        losers = form_values(form, "losers" if several else "loser")
        if not losers:
            reason = N_("tick every player who lost, then Save") if several else N_("tap the player who lost")
            raise RuleError(reason, field="losers")
        # The round's keys carried unchanged through a correction.
        round = {**json_field(form, "extra", dict, N_("the round's other keys")), "losers": losers}
        penalties = form_values(form, "penalty")
        if penalties:
            round["penalties"] = penalties
        return round

    def form_after_undo(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any]
    ) -> dict[str, list[str]]:
        """A round of one loser comes back as the one-tap entry with its penalty cards: one tap on the
        right loser saves it again. A round of several losers comes back with them ticked."""
        fields = self.form_from_round(round, players, settings)
        if len(fields["losers"]) == 1:
            fields = {key: values for key, values in fields.items() if key not in ("several", "losers")}
        return fields

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

    def step(self, form: Any, replay: Replay) -> dict[str, Any]:
        """What the entry shows as last sent: several losers or one, those ticked, the penalties, the extra."""
        return {
            "several": bool(form_value(form, "several")),
            "ticked": form_values(form, "losers"),
            "penalties": form_values(form, "penalty"),
            "extra": form_values(form, "extra"),
        }

    def match_view(self, replay: Replay) -> dict[str, Any]:
        """The deck after each round, who reveals next, and the fields that correct the last round."""
        last = replay.rounds[-1] if replay.rounds else None
        return {
            "decks": self.rules.decks_of(replay),
            "starter": self.rules.starter(replay),
            "last_round_fields": None if last is None else self.form_from_round(last, replay.players, replay.settings),
        }

    def round_values(self, replay: Replay, index: int) -> dict[str, int]:
        """The cards each player took in the round: what Topic_'s score sheet counts."""
        return dict(replay.tally.rounds[index]["cards"])

    def highlight(self, replay: Replay) -> Message | None:
        """How few cards won: the fewest held at the end, of the cards the deck began with."""
        fewest = min(replay.tally.totals.values())
        return N_("Fewest cards: %(n)s of the %(deck)s in the deck", n=fewest, deck=replay.settings["deck"])
