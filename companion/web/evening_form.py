"""The club evening's forms as the host posts them: the setup read for the plan, the entrants typed a line each, the
arbiter's decisions' values, and the standings as CSV."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from flask_babel import gettext

from ..games.club import clock, scales
from ..games.club import plan as plans
from ..games.forms import first, number_field, typed_number, whole_number
from ..games.refusals import N_, RuleError
from ..models.club import COUNTED, ClubEvening
from ..services.club import OUTCOMES
from .i18n import error_text

# The modes of the setup form: the game and whether in pairs.
MODES = {"burraco-pairs": ("burraco", True), "burraco-alone": ("burraco", False), "pazaak": ("pazaak", False)}
# An entrant as the host types it: "Rossi & Bianchi (Arona)", the club optional.
ENTRANT_LINE = re.compile(r"^(?P<players>[^()]+?)\s*(?:\((?P<club>[^()]*)\))?$")
# A band of the host's scale as typed, "51 11-9": from a difference of 51, 11 tournament points to 9.
BAND_PARTS = ("start", "ahead", "behind")
# The scale's choices on the setup form: the preset for the hands, the host's own bands, plain points.
SCALES = ("preset", "custom", "plain")


def raw_plan(form: Any) -> dict[str, Any]:
    """The plan as the setup form posts it, for `plan.checked`."""
    game, pairs = MODES.get(first(form, "mode", "") or "", (None, False))
    raw: dict[str, Any] = {"game": game, "pairs": pairs, "late_costs": first(form, "late_costs", "points")}
    for key in ("turns", "hands", "groups", "bye_points"):
        raw[key] = typed_number(first(form, key))
    for key in ("turn_minutes", "clock_penalty"):
        if first(form, key):
            raw[key] = typed_number(first(form, key))
    for key in ("first", "then", "short_turn"):
        if first(form, key):
            raw[key] = first(form, key)
    scale = first(form, "scale", "preset")
    if scale not in SCALES:
        raise RuleError(gettext("pick a scale: the preset, your own bands or plain points"), field="scale")
    if scale == "plain":
        raw["scale"] = {"plain": True}
    elif scale == "custom":
        raw["scale"] = bands(first(form, "bands", "") or "")
    return raw


def bands(text: str) -> list[dict[str, Any]]:
    """The host's bands, a line each: "from ahead-behind" ("51 11-9")."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        parts = re.split(r"[\s\-–]+", line.strip())
        if not line.strip():
            continue
        if len(parts) != len(BAND_PARTS):
            raise RuleError(gettext("band %(n)s: a line of three numbers, from ahead-behind (51 11-9)", n=number),
                            field="bands")  # fmt: skip
        rows.append(dict(zip(BAND_PARTS, (typed_number(part) for part in parts), strict=True)))
    return rows


def entrants(form: Any) -> list[tuple[list[str], str | None]]:
    """The entrants as typed, a line each: the players joined by "&" (or a comma), the club in brackets."""
    entrants = []
    for number, line in enumerate((first(form, "entrants", "") or "").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        found = ENTRANT_LINE.match(line)
        if found is None:
            raise RuleError(gettext("write the players, then the club in brackets"), field=f"entrant-{number}")
        players = [name.strip() for name in re.split(r"[&,]", found["players"]) if name.strip()]
        entrants.append((players, (found["club"] or "").strip() or None))
    return entrants


def said(error: RuleError) -> str:
    """A refusal of the setup as its field shows it: an entrant's names by the entrant's place in the list."""
    number = (error.field or "").removeprefix("entrant-")
    if number.isdigit():
        return gettext("Entrant %(n)s: %(reason)s", n=number, reason=error_text(error))
    return error_text(error)


def field_of(field: str | None) -> str:
    """The form field a refusal of the plan or the entrants belongs beside."""
    if not field:
        return "form"
    if field.startswith("bands"):
        return "bands"
    if field.startswith("entrant"):
        return "entrants"
    return {"game": "mode", "pairs": "mode"}.get(field, field)


def setup_view(form: Any) -> dict[str, Any]:
    """What the setup form shows: what was posted (else the defaults) and the preset scale for its hands."""
    mode = first(form, "mode", "burraco-pairs") if form else "burraco-pairs"
    game = MODES.get(mode or "", ("burraco", True))[0]
    hands = whole_number(first(form, "hands", "") if form else "") or 3
    try:
        preset = scales.preset(hands) if game == "burraco" else scales.preset_for_sets(hands)
    except RuleError:
        preset = None
    bands = "\n".join(f"{band.start} {band.ahead}-{band.behind}" for band in preset.bands) if preset else ""
    return {"mode": mode, "game": game, "hands": hands, "preset": preset, "bands": bands, "form": form or {},
            "movements": plans.MOVEMENTS, "most_turns": plans.MOST_TURNS, "most_hands": plans.MOST_HANDS,
            "turn_minutes": clock.TURN_MINUTES, "default_minutes": clock.default_minutes(hands)}  # fmt: skip


def clock_tap(form: Any) -> tuple[str, int | None]:
    """The host's tap on the clock: start, pause, resume, end, or "extend-5" (five minutes more)."""
    tap, _, minutes = (first(form, "clock") or "").partition("-")
    return tap, whole_number(minutes)


def settled_points(form: Any) -> list[int]:
    """The points the arbiter typed for each side of a table, a number each; else a refusal beside that side."""
    return [number_field(text, N_("a side's points"), field=f"points-{side}", signed=True)
            for side, text in enumerate(form.getlist("points"))]  # fmt: skip


def confirmed_result(form: Any) -> list[int] | None:
    """The points a table's Confirm names, a figure a side ("900 300"), as its panel showed them; None if unreadable."""
    figures = [whole_number(part, signed=True) for part in (first(form, "result") or "").split()]
    return None if not figures or None in figures else figures


def outcomes(evening: ClubEvening, form: Any) -> dict[int, str | list[int | str]]:
    """The outcome the arbiter picked for each table of the turn not counted yet (its select, else average)."""
    return {number: outcome(first(form, f"outcome-{number}", "average")) for number in waiting(evening)}


def waiting(evening: ClubEvening) -> list[int]:
    return [t.number for t in evening.tables if t.turn == evening.turn and t.state not in COUNTED and t.number]


def outcome(value: str | None) -> str | list[int | str]:
    """A closing's outcome as its select posts it: "average", "zero", or "14-6" (each side's tournament points)."""
    if value in OUTCOMES:
        return value
    return [typed_number(part) for part in (value or "").split("-")]


PATH_COLUMNS = ("turn", "table", "side", "opponent", "points_for", "points_against", "tournament_points", "how")


def standings_csv(rows: list[dict[str, Any]]) -> str:
    """The standings as CSV: a line per entrant and turn, its totals repeated (a spreadsheet filters them)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["place", "entrant", "club", "tournament_points", "difference",
                     *(f"turn_{column}" for column in PATH_COLUMNS)])  # fmt: skip
    for row in rows:
        totals = [row["place"], row["entrant"], row["club"] or "", row["tournament_points"], row["difference"]]
        for meeting in row["path"] or [{}]:
            writer.writerow([*totals, *(meeting.get(column, "") for column in PATH_COLUMNS)])
    return out.getvalue()
