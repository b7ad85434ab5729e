"""A game's settings declared once: from each, the rules check it and the new-match form reads, keeps and draws it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .checks import resolve, show, whole
from .forms import first, number_field, whole_number
from .refusals import N_, Message, RuleError

WHOLE = "whole"
CHOICE = "choice"
PLAYER = "player"

# A tap on a generic stepper posts the new-match form with `action` = this prefix, the setting and the step.
STEP = "setting:"


@dataclass(frozen=True)
class Setting:
    """One setting of a game: its key in the match file, its default, what it may be, and how the form shows it.

    `kind` is WHOLE (a whole number in `lo`..`hi`), CHOICE (one of `choices`) or PLAYER (one of the
    seated players). `optional`: None is a value too (the rules work the setting out, or it is not
    named). `what` names it in messages and labels it on the form; `refusal` is the message of a
    CHOICE not among its choices (with `%(value)s`). The new-match form posts it under `field`, by
    default `<slug>-<name>` (the form keeps the fields of a game picked before, so two games' settings
    of one name must not meet); `templates/games/_settings_fields.html` draws it, unless `drawn` is
    False: the game's own `_settings.html` draws it with a widget of its own.
    """

    name: str
    default: Any
    what: Message
    kind: str = WHOLE
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    optional: bool = False
    refusal: Message | None = None
    drawn: bool = True
    field: str | None = None

    def field_of(self, slug: str) -> str:
        """The name the new-match form posts the setting under, for the game `slug`."""
        return self.field or f"{slug}-{self.name}"

    def check(self, value: Any, players: list[str]) -> Any:
        """The value as the rules keep it; a RuleError naming the setting otherwise."""
        if value is None and self.optional:
            return None
        if self.kind == CHOICE:
            if value not in self.choices:
                if self.refusal is not None:
                    raise RuleError(Message(self.refusal.text, {"value": show(value)}), field=self.name)
                choices = ", ".join(show(choice) for choice in self.choices)
                raise RuleError(
                    N_("must be one of %(choices)s, got %(value)s", choices=choices, value=show(value)), field=self.name
                )
            return value
        if self.kind == PLAYER:
            return resolve(value, players, self.name)
        return whole(value, self.what, lo=self.lo, hi=self.hi, field=self.name)

    def read(self, form: Any, slug: str) -> tuple[bool, Any]:
        """Whether the form carries the setting, and its raw value as posted (blank: not carried).

        A minus is read only where the setting may go below zero: a count's "-1" is refused as no number.
        """
        text = " ".join((first(form, self.field_of(slug)) or "").split())
        if not text:
            return False, None
        if self.kind == WHOLE:
            signed = self.lo is None or self.lo < 0
            return True, number_field(text, self.what, field=self.name, signed=signed)
        return True, text

    def shown(self, form: Any, slug: str) -> Any:
        """What the form shows for the setting after the tap the form carries: as posted (so an error
        stays beside what was typed), else the default; a tap on its stepper moves it within its bounds."""
        action = first(form, "action") or ""
        text = (first(form, self.field_of(slug)) or "").strip()
        number = whole_number(text, signed=True) if self.kind == WHOLE else None
        value: Any = self.default if not text else number if number is not None else text
        verb, _, rest = action.partition(STEP)
        name, _, step = rest.partition(":")
        if not verb and name == self.name and self.kind == WHOLE:
            start = value if isinstance(value, int) else self.default if isinstance(self.default, int) else self.lo or 0
            value = start + (whole_number(step, signed=True) or 0)
            if self.lo is not None:
                value = max(self.lo, value)
            if self.hi is not None:
                value = min(self.hi, value)
        return value
