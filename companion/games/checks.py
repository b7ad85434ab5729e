"""The shared checks of what a person typed or a match file holds: names, whole numbers, objects, lists, seats."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from .refusals import N_, Message, RuleError

NAME_MAX = 40


# The characters of a value a message repeats: enough to recognise what was sent, never a page of it.
SHOWN_MAX = 40


def show(value: Any) -> str:
    """A value as the JSON a person typed, so `true` and `"3"` read as such in messages; a long one cut."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= SHOWN_MAX else text[: SHOWN_MAX - 1] + "…"


# Characters a name may not hold: controls (NUL, ESC, tab), format characters (RTL override,
# zero-width space and joiner) and line or paragraph separators. They are invisible or
# reorder what is around them, so "Ann\u200b" would sit beside "Ann" as another person.
REFUSED_IN_NAMES = frozenset({"Cc", "Cf", "Zl", "Zp"})
# Letters and marks that draw nothing although their category is a visible one: the Hangul
# fillers, the blank Braille pattern, the combining grapheme joiner and Khmer's inherent
# vowels. "Ann" followed by one of them looks like "Ann" and would be another person.
INVISIBLE_FILLERS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")


# Kept for the names seen lately: every replay resolves each name of each round against the seats.
@lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """The form under which two spellings of a name are the same person: NFC, spaces made one, case folded."""
    return unicodedata.normalize("NFC", " ".join(unicodedata.normalize("NFC", name).split()).casefold())


def name_problem(name: str) -> Message | None:
    """What makes a name unusable as typed (a control or invisible character inside it), or None.

    Spaces, tabs and line ends around the name are trimmed as always, not refused.
    """
    for character in name.strip():
        if unicodedata.category(character) in REFUSED_IN_NAMES or character in INVISIBLE_FILLERS:
            code = f"U+{ord(character):04X}"
            label = unicodedata.name(character, "a control character")
            return N_(
                "a name may not hold invisible or control characters (%(code)s %(label)s)", code=code, label=label
            )
    return None


def name_fits(name: str) -> bool:
    """Whether a cleaned name has 1 to NAME_MAX characters, as typed and as compared.

    Case folding lengthens some letters ("ß" is "ss"), and the roster keeps the folded form
    in a column of NAME_MAX characters too.
    """
    return 1 <= len(name) <= NAME_MAX and len(name_key(name)) <= NAME_MAX


def clean_note(raw: str, limit: int) -> str:
    """A short free text as it is kept (an arbiter's note, a table's reason to call the arbiter): NFC, the characters
    a name may not hold left out, spaces made one, cut to `limit` characters (what its column holds)."""
    kept = "".join(c for c in raw if unicodedata.category(c) not in REFUSED_IN_NAMES and c not in INVISIBLE_FILLERS)
    return clean_name(kept)[:limit]


def clean_name(raw: str) -> str:
    """A name as it is kept: NFC, with surrounding spaces trimmed and inner runs made one space."""
    return " ".join(unicodedata.normalize("NFC", raw).split())


def checked_name(raw: str, field: str = "name") -> str:
    """A typed name as it is kept (see clean_name), or a RuleError on `field` saying what makes it unusable.

    The one check of a name, wherever one is typed: a seat, the new-match form, a rename, a group's, a phone's,
    a club evening's and its entrants'.
    """
    if (problem := name_problem(raw)) is not None:
        raise RuleError(problem, field=field)
    name = clean_name(raw)
    if not name_fits(name):
        raise RuleError(N_("a name has 1 to %(max)s characters", max=NAME_MAX), field=field)
    return name


def whole(
    value: Any, what: str | Message, *, lo: int | None = None, hi: int | None = None, field: str | None = None
) -> int:
    """`value` as a whole number in [lo, hi]; JSON true or 2.5 or 3.0 are refused, not coerced."""
    if lo is not None and hi is not None:
        wanted = N_("a whole number from %(lo)s to %(hi)s", lo=lo, hi=hi)
    elif lo is not None:
        wanted = N_("a whole number of at least %(lo)s", lo=lo)
    else:
        wanted = N_("a whole number")
    # bool is a subclass of int, and a JSON `true` must not count as 1.
    ok = isinstance(value, int) and not isinstance(value, bool)
    if not ok or (lo is not None and value < lo) or (hi is not None and value > hi):
        raise RuleError(
            N_("%(what)s must be %(wanted)s, got %(value)s", what=what, wanted=wanted, value=show(value)), field=field
        )
    return value


def optional_text(value: Any, what: str | Message, *, field: str | None = None) -> str | None:
    """Free text that may be absent (null)."""
    if value is not None and not isinstance(value, str):
        raise RuleError(N_("%(what)s must be text, got %(value)s", what=what, value=show(value)), field=field)
    return value


def mapping(value: Any, what: str | Message, *, field: str | None = None) -> dict[str, Any]:
    """`value` as a JSON object."""
    if not isinstance(value, dict):
        raise RuleError(N_("%(what)s must be an object, got %(value)s", what=what, value=show(value)), field=field)
    return value


def items(value: Any, what: str | Message, *, field: str | None = None) -> list[Any]:
    """`value` as a JSON list."""
    if not isinstance(value, list):
        raise RuleError(N_("%(what)s must be a list, got %(value)s", what=what, value=show(value)), field=field)
    return value


def validate_players(names: Any) -> list[str]:
    """The seat list with each name trimmed (inner runs of spaces made one) and in NFC, checked unique.

    Names with control or format characters are refused; two names equal once normalised
    and case folded are one person, seated twice.
    """
    names = items(names, N_("the players"), field="players")
    clean: list[str] = []
    seen: set[str] = set()
    for position, raw in enumerate(names, start=1):
        if not isinstance(raw, str):
            raise RuleError(
                N_("seat %(seat)s: a name must be text, got %(value)s", seat=position, value=show(raw)), field="players"
            )
        try:
            name = checked_name(raw)
        except RuleError as error:
            problem = N_("seat %(seat)s: %(problem)s", seat=position, problem=error.message)
            raise RuleError(problem, field="players") from None
        if name_key(name) in seen:
            raise RuleError(
                N_("%(name)s is seated twice (names are compared ignoring case)", name=name), field="players"
            )
        seen.add(name_key(name))
        clean.append(name)
    return clean


def resolve(value: Any, names: Iterable[str], field: str) -> str:
    """The canonical spelling of one of `names`, matched ignoring case and extra spaces.

    Rounds may spell a name as the file's author typed it, while the seat list may
    come back from the roster with the roster's spelling.
    """
    names = list(names)
    if isinstance(value, str):
        wanted = name_key(value)
        for name in names:
            if name_key(name) == wanted:
                return name
    raise RuleError(N_("%(value)s is not one of %(names)s", value=show(value), names=", ".join(names)), field=field)


def name_list(value: Any, names: list[str], what: str, *, distinct: bool = False, nonempty: bool = False) -> list[str]:
    """A list of names from `names`, in the order given."""
    if not isinstance(value, list):
        raise RuleError(N_("must be a list of names, got %(value)s", value=show(value)), field=what)
    found = [resolve(v, names, what) for v in value]
    if nonempty and not found:
        raise RuleError(N_("names no one; at least one is needed"), field=what)
    if distinct:
        for position, name in enumerate(found):
            if name in found[:position]:
                raise RuleError(N_("%(name)s is listed twice", name=name), field=what)
    return found


def per_name(value: Any, names: list[str], what: str, kind: str | Message | None = None) -> dict[str, Any]:
    """An object with exactly one entry per name, keyed by the canonical names in seat order."""
    kind = N_("player") if kind is None else kind
    given = mapping(value, what, field=what)
    found: dict[str, Any] = {}
    for key, entry in given.items():
        name = resolve(key, names, what)
        if name in found:
            raise RuleError(N_("two entries in %(what)s for the same %(kind)s", what=what, kind=kind), field=name)
        found[name] = entry
    for name in names:
        if name not in found:
            raise RuleError(N_("no entry in %(what)s, but every %(kind)s needs one", what=what, kind=kind), field=name)
    return {name: found[name] for name in names}
