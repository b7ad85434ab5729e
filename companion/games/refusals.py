"""What the app tells a person, kept untranslated (`Message`, `N_`, `Np_`), and the refusals that carry it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Message:
    """A text for a person, kept untranslated: the page translates `text` and then fills in `params`.

    A parameter may be a Message itself (a field's description), translated the same way;
    anything else (a player's name, a number, a value as typed) is shown as it is.
    """

    text: str
    params: Mapping[str, Any] = field(default_factory=dict)
    # The text for a count other than one, when the message has one: `params["num"]` is the count.
    plural: str | None = None

    def __str__(self) -> str:
        """The English text, as `flask score` prints it."""
        text = self.plural if self.plural is not None and self.params.get("num") != 1 else self.text
        if not self.params:
            return text
        return text % {key: str(value) for key, value in self.params.items()}


def N_(text: str, **params: Any) -> Message:  # noqa: N802 - named like gettext's extraction marker
    """A message for a person; `make translations` extracts `text`, the page translates it."""
    return Message(text, params)


def Np_(singular: str, plural: str, **params: Any) -> Message:  # noqa: N802 - named like gettext's markers
    """A message that counts something (`num`, the count, among `params`): its singular and plural, as N_."""
    return Message(singular, params, plural)


class Refusal(Exception):
    """Something the app refuses, with what to tell the person: `message`, untranslated (see Message).

    The rules and the services raise one of its kinds and never translate; the web layer alone
    translates the message and answers each kind with its status (companion/web/fragments.py):
    RuleError is input refused (422, or shown next to its field), NotAllowed is not this phone's
    to do (403), ChangedMeanwhile was based on a state of the match that has changed since (409).
    """

    def __init__(self, message: str | Message, *, field: str | None = None):
        self.message = message if isinstance(message, Message) else Message(message)
        self.field = field
        super().__init__(str(self.message))


class NotAllowed(Refusal):
    """Not this phone's to do (a pencil it does not hold, a match that is no longer its own)."""


class ChangedMeanwhile(Refusal):
    """A write based on a state of the match that has changed meanwhile; `current` is the round as it is now, if any."""

    def __init__(self, message: str | Message, current: Any = None):
        super().__init__(message)
        self.current = current


class RuleError(Refusal, ValueError):
    """Input the rules refuse; `str()` is one human line: "round 2: Bob: what is wrong".

    `message` is what is wrong, untranslated (see Message); `reason` is its English text.
    """

    def __init__(self, reason: str | Message, *, field: str | None = None, round: int | None = None):
        super().__init__(reason, field=field)
        self.reason = str(self.message)
        self.round = round
        self.args = (str(self),)

    def __str__(self) -> str:
        parts = [f"round {self.round}"] if self.round is not None else []
        if self.field:
            parts.append(self.field)
        return ": ".join([*parts, self.reason])

    def located(self, beside: str | None = None) -> Message:
        """The whole line as one message, as `str()` reads it: the round and the field, then what is wrong.

        The field is left out when it is `beside`, the field the message is shown next to.
        """
        message = self.message
        if self.field and self.field != beside:
            message = N_("%(field)s: %(reason)s", field=self.field, reason=message)
        if self.round is not None:
            message = N_("round %(n)s: %(reason)s", n=self.round, reason=message)
        return message

    def in_round(self, number: int) -> RuleError:
        """The same error placed in a round (kept as is when it already names one)."""
        if self.round is not None:
            return self
        return RuleError(self.message, field=self.field, round=number)


def as_sentence(text: str) -> str:
    """A rule's message standing alone beside a field: a capital first letter and a full stop."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
