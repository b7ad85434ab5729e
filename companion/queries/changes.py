"""The change log read as a score sheet's corrections: each change with every side's value before and after."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..games import get_game
from ..games.refusals import RuleError
from ..models import Match
from .matches import change_log


@dataclass(frozen=True)
class SheetChange:
    """One line of the change log: round `number`, what was done and when, and each side's values.

    `before` is None for a redo (nothing was there), `after` None for an undo; a value map is
    also None when the round could not be replayed any more (the rounds before it changed since).
    """

    number: int
    action: str
    at: datetime
    before: dict[str, int] | None
    after: dict[str, int] | None

    @property
    def changed(self) -> list[tuple[str, int | None, int | None]]:
        """The sides a correction changed, (side, before, after); every side when none did (a word fixed)."""
        sides = list((self.after or self.before or {}).keys())
        pairs = [(side, (self.before or {}).get(side), (self.after or {}).get(side)) for side in sides]
        return [pair for pair in pairs if pair[1] != pair[2]] or pairs


def sheet_changes(match: Match) -> list[SheetChange]:
    """The match's changes, newest first, each with the values its round gave before and after it.

    The log keeps each change's round data only, so the rounds before it are worked out by
    walking the log back from today's rounds: undoing each later change in turn.
    """
    game = get_game(match.game)
    rounds: list[Any] = [stored.data for stored in match.rounds]

    def values(data: Any, number: int, earlier: list[Any]) -> dict[str, int] | None:
        if data is None or len(earlier) < number - 1:
            return None
        try:
            replay = game.replay(match.player_names, match.settings, [*earlier[: number - 1], data])
        except RuleError:
            return None
        return game.entry.round_values(replay, number - 1)

    lines = []
    for change in change_log(match):
        lines.append(
            SheetChange(
                number=change.number,
                action=change.action,
                at=change.at,
                before=values(change.before, change.number, rounds),
                after=values(change.after, change.number, rounds),
            )
        )
        rounds = _before(change.action, change.number, change.before, rounds)
    return lines


def _before(action: str, number: int, data: Any, rounds: list[Any]) -> list[Any]:
    """The match's rounds just before a change, from the rounds just after it."""
    if action == "correct" and len(rounds) >= number:
        return [*rounds[: number - 1], data, *rounds[number:]]
    if action == "undo":
        return [*rounds[: number - 1], data]
    return rounds[: number - 1]
