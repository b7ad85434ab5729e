"""What is refused before it is stored: caps on rounds, text, numbers and nesting; match files read safely.

A match of 100,000 rounds or a 50 MB theme costs every later view of it seconds and the
workers' memory for good (issue 20), so every write bounds what it keeps: the rules check
what a round means, these caps what it may weigh. Keys of every size are counted, so the
extra keys a round carries through (an imported round's time, card details) are bounded too.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from ..games import forms
from ..games.refusals import N_, RuleError

MAX_ROUNDS = 1000
# Themes, words, notes, times: any text value of a round, of the settings or of a match file.
TEXT_MAX = 200
# The keys of a round's objects: player names (40), the games' own keys, extra keys.
KEY_MAX = 40
# Every number a game keeps is small (cards, points, targets); a thousand rounds of a million
# stay far inside PostgreSQL's INTEGER, in which the seats' totals are kept.
NUMBER_MAX = 10**6
# How deep a round nests (the deepest round today is rows → player → used → card: four).
DEPTH_MAX = 6
# Entries of one list or object: ten players, a set's dealt and played cards.
ITEMS_MAX = 100
# A match file's digits of one integer: enough for any number above, and far below the 4300
# past which Python refuses to read an integer at all.
DIGITS_MAX = 12


def bounded(value: Any, what: str, depth: int = 0) -> Any:
    """`value` (a round, settings: decoded JSON) unchanged, or a RuleError naming the first thing over a cap."""
    if depth > DEPTH_MAX:
        raise RuleError(N_("%(what)s nests more than %(max)s levels deep", what=what, max=DEPTH_MAX), field="round")
    if isinstance(value, str):
        if len(value) > TEXT_MAX:
            raise RuleError(
                N_("%(what)s: a text has at most %(max)s characters, got %(n)s", what=what, max=TEXT_MAX, n=len(value)),
                field="round",
            )
        _without_nul(value, what)
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int | float):
        if not math.isfinite(value) or abs(value) > NUMBER_MAX:
            raise RuleError(
                N_("%(what)s: a number here is at most %(max)s, got %(value)s", what=what, max=f"{NUMBER_MAX:,}",
                   value=f"{value:.6g}"),
                field="round",
            )  # fmt: skip
    elif isinstance(value, list | dict):
        if len(value) > ITEMS_MAX:
            crowded = N_("%(what)s holds more than %(max)s entries in one place", what=what, max=ITEMS_MAX)
            raise RuleError(crowded, field="round")
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str) or len(key) > KEY_MAX:
                    long_key = N_("%(what)s: a key has at most %(max)s characters", what=what, max=KEY_MAX)
                    raise RuleError(long_key, field="round")
                _without_nul(key, what)
        for entry in value.values() if isinstance(value, dict) else value:
            bounded(entry, what, depth + 1)
    return value


def _without_nul(text: str, what: str) -> None:
    """Refuse a text holding a NUL character, which PostgreSQL refuses in any text column (a 500 where SQLite kept
    it); a line break or a tab, in an imported note, is kept."""
    if "\x00" in text:
        raise RuleError(N_("%(what)s: a text may not hold a NUL character", what=what), field="round")


def check_round_count(number: int) -> None:
    """Refuse a round past the cap of a match."""
    if number > MAX_ROUNDS:
        raise RuleError(N_("a match holds at most %(max)s rounds", max=MAX_ROUNDS), field="round")


def bounded_match_file(document: Any) -> Any:
    """A match file's parts bounded before the rules read them: its rounds counted, its values capped."""
    if isinstance(document, dict):
        rounds = document.get("rounds")
        if isinstance(rounds, list):
            if len(rounds) > MAX_ROUNDS:
                raise RuleError(
                    N_("a match holds at most %(max)s rounds, got %(n)s", max=MAX_ROUNDS, n=len(rounds)), field="rounds"
                )
            for number, data in enumerate(rounds, start=1):
                bounded(data, f"round {number}")
        for key in ("settings", "started", "finished", "game", "format"):
            if key in document:
                bounded(document[key], key)
    return document


def _integer(digits: str) -> int:
    """An integer of a match file; one longer than any number the games keep is refused while reading."""
    if len(digits.lstrip("-")) > DIGITS_MAX:
        raise RuleError(N_("a number of %(n)s digits is far larger than any score", n=len(digits)), field="file")
    return int(digits)


def _not_a_number(constant: str) -> Any:
    """NaN and Infinity are not JSON, though Python's reader takes them."""
    raise RuleError(N_("%(value)s is not a number a match file may hold", value=constant), field="file")


def read_json(text: str | bytes) -> Any:
    """JSON of a match file, or a RuleError for numbers, nesting or texts no match file has (the games' one
    reader of JSON a client sends, `games.forms.read_json`, with a match file's numbers).

    Text that is not UTF-8 or not JSON raises UnicodeDecodeError or json.JSONDecodeError as
    json.loads does, for the caller's own words.
    """
    return forms.read_json(text, field="file", parse_int=_integer, parse_constant=_not_a_number)


def stored_time(moment: datetime | None, what: str) -> datetime | None:
    """A time as the columns keep it (naive UTC), or a RuleError for one no calendar column can hold."""
    if moment is None:
        return None
    try:
        if moment.tzinfo:
            moment = moment.astimezone(UTC).replace(tzinfo=None)
    except OverflowError:
        raise RuleError(N_("is outside the calendar"), field=what) from None
    if not 1900 <= moment.year <= 9998:
        raise RuleError(N_("the year %(year)s is not one of a match", year=moment.year), field=what)
    return moment
