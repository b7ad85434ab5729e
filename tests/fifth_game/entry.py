"""The entry adapter of Fives: one points field per player on the match page (its settings are declared in rules.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from companion.games import forms
from companion.games.base import Replay
from companion.games.checks import show
from companion.games.entry import Entry
from companion.games.refusals import Message, RuleError


def _whole(form: Any, key: str, field: str) -> int | None:
    """A whole number typed in a field, None when blank; anything else is a RuleError on `field`."""
    text = (forms.first(form, key) or "").strip()
    if not text:
        return None
    if not re.fullmatch(r"[0-9]{1,3}", text):
        raise RuleError(f"type a whole number, got {show(text)}", field=field)
    return int(text)


class FivesEntry(Entry):
    """The fields of Fives; its templates live beside this module, not in the app's templates."""

    template_folder: ClassVar[str | None] = str(Path(__file__).parent / "templates")
    board_figure: ClassVar[str | None] = "best_round"

    # Its own words, which no catalogue holds: a game from outside the app says its line as it likes.
    round_texts: ClassVar[dict[str, Message]] = {"label": Message("Fives round %(n)s saved:")}

    def describe_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any], say: Callable[[Message], str]
    ) -> str:
        """Each player's points in seat order: "Ann 5, Bob 3"."""
        return ", ".join(f"{name} {round['points'][name]}" for name in players)

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """`points-<seat>` of every player; a blank field is refused."""
        points = {}
        for seat, name in enumerate(players):
            value = _whole(form, f"points-{seat}", name)
            if value is None:
                raise RuleError("type the points of every player", field=name)
            points[name] = value
        return {"points": points}

    def form_from_round(self, round: dict[str, Any], players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """The fields `round_from_form` reads back as this round."""
        points = round.get("points") or {}
        return {f"points-{seat}": [str(points.get(name, ""))] for seat, name in enumerate(players)}

    def step(self, form: Any, replay: Replay) -> dict[str, Any]:
        """The points as last typed, per seat."""
        return {"points": [forms.first(form, f"points-{seat}", "") for seat in range(len(replay.players))]}

    def match_view(self, replay: Replay) -> dict[str, Any]:
        """What each player still needs to reach the target."""
        target = replay.settings["target"]
        return {"needed": {name: max(target - total, 0) for name, total in replay.tally.totals.items()}}
