"""Reading posted forms: MultiDicts and plain dicts alike, the one reader of a posted number or id and of JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .checks import show
from .refusals import N_, Message, RuleError

# The largest number a form field may hold: six digits, far more than any score, count or
# round, and far fewer than the 4300 at which int() itself refuses a text.
NUMBER_TOP = 999_999

# The field under which the view hands a game's entry tool the state the server keeps for the
# next round (JSON; null when none), in place of anything a page posted under that name.
KEPT_FIELD = "kept"

# The field under which the view hands a game's entry tool what this phone may see of the hands noted on
# seated phones (JSON: `seat`, this phone's seat index or null; `hands`, the hands it sees; `hidden`, how many
# cards each hand it may not see holds), in place of anything a page posted under that name.
BOARD_FIELD = "seat_board"


def values(form: Any, key: str) -> list[str]:
    """Every value posted under `key`, as text.

    `form` is a werkzeug MultiDict (a posted form), a plain dict of lists or of strings
    (what `form_from_round` builds), or empty/None for a fresh page.
    """
    if not form:
        return []
    getlist = getattr(form, "getlist", None)
    if getlist is not None:
        raw = getlist(key)
    else:
        raw = form.get(key)
        raw = [] if raw is None else raw if isinstance(raw, list | tuple) else [raw]
    return [str(value) for value in raw]


def first(form: Any, key: str, default: str | None = None) -> str | None:
    """The first value posted under `key`, or `default`."""
    found = values(form, key)
    return found[0] if found else default


def whole_number(text: str | None, top: int = NUMBER_TOP, *, signed: bool = False) -> int | None:
    """A whole number as a page sends it ("12"; "-3" or "−3" when `signed`), at most `top` in size; else None.

    Only ASCII digits: "²" passes isdigit() but not int(), and int() would take "1_0" and " +1".
    """
    if text is None:
        return None
    text = text.strip().replace("\u2212", "-")
    negative = signed and text.startswith("-")
    digits = text[1:] if negative else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > len(str(top)) or int(digits) > top:
        return None
    return -int(digits) if negative else int(digits)


def typed_number(text: str | None) -> int | str:
    """A number field's value for a rules check (`checks.whole`): the whole number typed ("-1" too), else the text
    itself, so that the check's refusal names what was typed ("got "abc"", "got -1"), never "got null"."""
    value = whole_number(text, signed=True)
    return value if value is not None else (text or "").strip()


def number_field(text: str | None, what: str | Message, *, field: str, signed: bool = False) -> int:
    """A whole number typed or tapped into a form field; anything else is a RuleError on that field."""
    value = whole_number(text, signed=signed)
    if value is None:
        typed = (text or "").strip()
        digits = typed.lstrip("-\u2212") if signed else typed
        if digits.isascii() and digits.isdigit():  # a whole number, too large for any field
            raise RuleError(N_("%(what)s must have at most %(n)s digits, got %(value)s", what=what,
                               n=len(str(NUMBER_TOP)), value=show(typed)), field=field)  # fmt: skip
        raise RuleError(N_("%(what)s must be a whole number, got %(value)s", what=what, value=show(typed)), field=field)
    return value


def index_in(text: str | None, count: int) -> int | None:
    """A position below `count` sent by a page ("2"), or None."""
    index = whole_number(text)
    return index if index is not None and index < count else None


# How deep any JSON a client sends may nest: a match file (a list of documents → a document → its rounds → a
# round's own six levels) and the entry tools' hidden state stay well inside it.
JSON_DEPTH_MAX = 12
# A UTF-16 surrogate standing alone ("\ud800" in JSON): Python reads it into a str that no database, UTF-8
# page or file can hold.
_SURROGATE = re.compile("[\ud800-\udfff]")


class UnreadableJson(RuleError):
    """JSON no client of ours sends: nested past JSON_DEPTH_MAX, or a text holding a lone surrogate."""


def _refuse_nesting(field: str) -> UnreadableJson:
    return UnreadableJson(N_("the data nests deeper than %(max)s levels", max=JSON_DEPTH_MAX), field=field)


def _checked(value: Any, field: str, depth: int = 1) -> None:
    """Refuse nesting past the cap and lone surrogates in any text, keys included."""
    if isinstance(value, str):
        found = None if value.isascii() else _SURROGATE.search(value)
        if found:
            code = f"\\u{ord(found.group()):04x}"
            raise UnreadableJson(N_("a text holds a lone surrogate (%(code)s)", code=code), field=field)
    elif isinstance(value, list | dict):
        if depth > JSON_DEPTH_MAX:
            raise _refuse_nesting(field)
        if isinstance(value, dict):
            for key in value:
                _checked(key, field, depth)
        for entry in value.values() if isinstance(value, dict) else value:
            _checked(entry, field, depth + 1)


def read_json(
    text: str | bytes,
    *,
    field: str = "round",
    parse_int: Callable[[str], Any] | None = None,
    parse_constant: Callable[[str], Any] | None = None,
) -> Any:
    """The one reader of JSON a client sends (a posted field, an uploaded match file).

    Text that is not UTF-8 or not JSON raises UnicodeDecodeError or json.JSONDecodeError as json.loads does,
    for the caller's own words; nesting past JSON_DEPTH_MAX or a lone surrogate in any text is an
    `UnreadableJson` on `field`, never a RecursionError or a database driver's error.
    """
    if isinstance(text, bytes):
        # A file saved by Windows' Notepad starts with a byte-order mark, which JSON lets a reader ignore.
        text = text.decode("utf-8-sig")
    try:
        value = json.loads(text, parse_int=parse_int, parse_constant=parse_constant)
    except RecursionError:
        raise _refuse_nesting(field) from None
    _checked(value, field)
    return value


def json_field(form: Any, key: str, kind: type, what: str | Message) -> Any:
    """A hidden field carrying JSON of one kind (an empty one when absent); unreadable is a RuleError."""
    text = first(form, key)
    if not text:
        return kind()
    try:
        value = read_json(text)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, kind):
        raise RuleError(N_("%(what)s could not be read", what=what), field="round")
    return value


def extra_field(form: Any, part: str) -> dict[str, dict[str, Any]]:
    """The hidden `extra` of a corrected round: its own keys the form has no field for, and
    per player or side (`part`: "rows", "sides") theirs — so a correction keeps, say, the
    time an imported round carried. Absent: nothing extra."""
    extra = json_field(form, "extra", dict, N_("the round's extra details"))
    if not extra:
        return {"round": {}, part: {}}
    readable = (
        isinstance(extra.get("round"), dict)
        and isinstance(extra.get(part), dict)
        and all(isinstance(entry, dict) for entry in extra[part].values())
    )
    if not readable:
        raise RuleError(N_("the round's extra details could not be read"), field="round")
    return {"round": extra["round"], part: extra[part]}
