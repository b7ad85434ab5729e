"""Burraco PAROLE: hand scores from words laid down, burraco bonuses and the closing, to 1005."""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from . import forms
from .base import (
    NAME_MAX,
    Game,
    RuleError,
    Tally,
    best,
    items,
    mapping,
    name_key,
    per_name,
    resolve,
    show,
    whole,
)

# The page's field names: settings carry a prefix because the new-match form keeps the
# fields of the game picked before, and Pazzaparola also has a `target`.
SETTING = "burraco_{}"
SETTING_LABELS = {
    "target": "the target",
    "clean": "the clean burraco bonus",
    "dirty": "the dirty burraco bonus",
    "closing": "the closing bonus",
}
ENTRY_KEYS = ("table", "hand", "clean", "dirty")
SUM_MAX_CHARS = 60
DIGITS = re.compile(r"[0-9]{1,6}")


def evaluate_sum(text: Any) -> int:
    """The total of a sum typed as counted at the table ("25+10+5" is 40): digits and + only."""
    if not isinstance(text, str):
        raise RuleError(f"type the points as digits, got {show(text)}")
    compact = "".join(text.split())
    if not compact:
        raise RuleError("nothing typed")
    if len(compact) > SUM_MAX_CHARS:
        raise RuleError(f"a sum has at most {SUM_MAX_CHARS} characters")
    if compact.startswith("-"):
        raise RuleError(f"points cannot be negative, got {text}")
    strange = sorted({c for c in compact if c not in "0123456789+"})
    if strange:
        raise RuleError(f"only digits and + can be typed, not {' '.join(strange)}")
    terms = compact.split("+")
    if compact.endswith("+"):
        raise RuleError(f"{compact} ends with +: add the last number or tap ⌫")
    for term in terms:
        if not DIGITS.fullmatch(term):
            reason = "has a + with no number before it" if not term else "has a number over 6 digits"
            raise RuleError(f"{compact} {reason}")
    return sum(int(term) for term in terms)


def _field(form: Any, name: str) -> str | None:
    """The first value of a form field, or None."""
    return forms.first(form, name)


def _whole_field(form: Any, name: str, what: str, field: str, default: int | None = None) -> int:
    """A whole number typed in a form field; blank gives `default` (or is refused without one)."""
    text = (_field(form, name) or "").strip()
    if not text and default is not None:
        return default
    if not DIGITS.fullmatch(text):
        raise RuleError(f"{what} must be a whole number, got {show(text)}", field=field)
    return int(text)


def _sum_field(form: Any, name: str, what: str) -> int:
    """Points typed on the keypad as a sum; blank counts as 0."""
    text = _field(form, name) or ""
    if not text.strip():
        return 0
    try:
        return evaluate_sum(text)
    except RuleError as error:
        raise RuleError(f"{what}: {error.reason}", field=name) from None


def hand_score(entry: dict[str, int], closed: bool, settings: dict[str, Any]) -> int:
    """One side's score for a hand: table minus hand, plus burraco and closing bonuses."""
    return (
        entry["table"]
        - entry["hand"]
        + entry["clean"] * settings["clean"]
        + entry["dirty"] * settings["dirty"]
        + (settings["closing"] if closed else 0)
    )


class Burraco(Game):
    """2 to 5 players alone, or 4 in two pairs seated opposite; first to the target wins."""

    slug = "burraco"
    name = "Burraco PAROLE"
    min_players = 2
    max_players = 5
    defaults: ClassVar[dict[str, Any]] = {
        "target": 1005,
        "hands": 4,
        "clean": 200,
        "dirty": 100,
        "closing": 100,
        "teams": None,
    }
    # Settings whose errors the Burraco settings partial shows next to their own field.
    setting_fields: ClassVar[tuple[str, ...]] = ("target", "hands", "clean", "dirty", "closing", "teams")
    # The names the new-match form proposes for the pairs ("we" and "you").
    team_names: ClassVar[tuple[str, str]] = ("Noi", "Voi")

    def normalise_settings(self, settings: dict[str, Any], players: list[str]) -> dict[str, Any]:
        """Target, hand limit (null: none), bonus values and the optional pairs."""
        hands = settings["hands"]
        return {
            "target": whole(settings["target"], "the target", lo=1, field="target"),
            "hands": None if hands is None else whole(hands, "the number of hands", lo=1, field="hands"),
            "clean": whole(settings["clean"], "the clean burraco bonus", lo=0, field="clean"),
            "dirty": whole(settings["dirty"], "the dirty burraco bonus", lo=0, field="dirty"),
            "closing": whole(settings["closing"], "the closing bonus", lo=0, field="closing"),
            "teams": None if settings["teams"] is None else _teams(settings["teams"], players),
        }

    def sides(self, players: list[str], settings: dict[str, Any]) -> list[str]:
        """The players, or the two team names in seat order (the team of seat 1 first)."""
        teams = settings.get("teams")
        return list(teams) if teams else list(players)

    def normalise_round(
        self, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """Every side's table, hand and burraco counts, and who closed."""
        sides = self.sides(players, settings)
        if "sides" not in round:
            raise RuleError("missing; every side needs an entry", field="sides")
        entries = {
            side: _entry(side, entry)
            for side, entry in per_name(round["sides"], sides, "sides", "side").items()
        }
        closer = round.get("closed_by")
        if closer is not None:
            closer = resolve(closer, sides, "closed_by")
            if entries[closer]["clean"] + entries[closer]["dirty"] < 1:
                raise RuleError("closed the hand without having made a burraco", field=closer)
            if entries[closer]["hand"] != 0:
                raise RuleError(
                    f"closed the hand but holds {entries[closer]['hand']} points in hand (must be 0)",
                    field=closer,
                )
        return {"sides": entries, "closed_by": closer}

    def play(
        self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """Add each side's hand score to its total."""
        scores = {
            side: hand_score(entry, side == round["closed_by"], settings)
            for side, entry in round["sides"].items()
        }
        for side, score in scores.items():
            tally.totals[side] += score
        return {"scores": scores}

    def is_over(self, tally: Tally, settings: dict[str, Any]) -> bool:
        """Over when a side reaches the target, or after the last hand of the limit."""
        limit = settings["hands"]
        return max(tally.totals.values()) >= settings["target"] or (
            limit is not None and len(tally.rounds) >= limit
        )

    def winners(self, tally: Tally, settings: dict[str, Any]) -> list[str]:
        """The side(s) with the highest total."""
        return best(tally.totals)

    def next_dealer(
        self, players: list[str], settings: dict[str, Any] | None, rounds: list[Any]
    ) -> str | None:
        """Who deals the next hand: seat 1 deals the first, then the deal passes clockwise."""
        replay = self.replay(players, settings, rounds)
        if replay.over:
            return None
        return replay.players[len(replay.rounds) % len(replay.players)]

    def hands_left(
        self, players: list[str], settings: dict[str, Any] | None, rounds: list[Any]
    ) -> int | None:
        """Hands still to play under the hand limit (None when there is no limit)."""
        limit = self.settings(settings, self.check_players(players))["hands"]
        return None if limit is None else max(limit - len(rounds), 0)

    # --- the web page's forms ------------------------------------------------------------

    def settings_from_form(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The raw settings from the new-match form: numbers, the hand limit, and the pairs."""
        raw: dict[str, Any] = {}
        for key, what in SETTING_LABELS.items():
            raw[key] = _whole_field(form, SETTING.format(key), what, key, self.defaults[key])
        if _field(form, SETTING.format("nolimit")):
            raw["hands"] = None
        else:
            raw["hands"] = _whole_field(
                form, SETTING.format("hands"), "the number of hands", "hands", self.defaults["hands"]
            )
        mode = _field(form, SETTING.format("mode")) or "alone"
        if mode not in ("alone", "pairs"):
            raise RuleError(f"choose alone or in pairs, got {show(mode)}", field="teams")
        if mode == "pairs":
            if len(players) != 4:
                raise RuleError(f"pairs need exactly 4 players, {len(players)} are seated", field="teams")
            first, second = (
                " ".join((_field(form, SETTING.format(f"team{n}")) or "").split()) for n in (1, 2)
            )
            if not first or not second:
                raise RuleError("give each team a name", field="teams")
            raw["teams"] = {first: [players[0], players[2]], second: [players[1], players[3]]}
        return raw

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """A hand from the entry form: per side (numbered in seat order) table, hand, clean, dirty; the closer."""
        sides = self.sides(players, settings)
        extra = _extra_from_form(form)
        entries = {}
        for number, side in enumerate(sides, start=1):
            entries[side] = {
                **extra["sides"].get(side, {}),
                "table": _sum_field(form, f"table_{number}", "points laid on the table"),
                "hand": _sum_field(form, f"hand_{number}", "points left in hand"),
                "clean": _whole_field(form, f"clean_{number}", "clean burraco", f"clean_{number}", 0),
                "dirty": _whole_field(form, f"dirty_{number}", "dirty burraco", f"dirty_{number}", 0),
            }
        closer = _field(form, "closed_by")
        if closer is None:
            raise RuleError("tap who closed the hand, or Nobody", field="closed_by")
        if closer and closer not in sides:
            raise RuleError(f"{show(closer)} is not one of {', '.join(sides)}", field="closed_by")
        return {**extra["round"], "sides": entries, "closed_by": closer or None}

    def form_from_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any]
    ) -> dict[str, list[str]]:
        """The entry form's fields for a stored hand: the inverse of `round_from_form`.

        Keys the form has no field for (an imported round's time, notes on a side) ride
        along in a hidden `extra` field, so a correction keeps them.
        """
        given = round.get("sides") if isinstance(round.get("sides"), dict) else {}
        form: dict[str, list[str]] = {}
        extra: dict[str, Any] = {
            "round": {k: v for k, v in round.items() if k not in ("sides", "closed_by")},
            "sides": {},
        }
        for number, side in enumerate(self.sides(players, settings), start=1):
            entry = given.get(side) or {}
            for key in ENTRY_KEYS:
                form[f"{key}_{number}"] = [str(entry.get(key, 0))]
            rest = {k: v for k, v in entry.items() if k not in ENTRY_KEYS}
            if rest:
                extra["sides"][side] = rest
        form["closed_by"] = [round.get("closed_by") or ""]
        if extra["round"] or extra["sides"]:
            form["extra"] = [json.dumps(extra, ensure_ascii=False)]
        return form


def _extra_from_form(form: Any) -> dict[str, dict[str, Any]]:
    """The keys of a corrected round that the form has no field for (see `form_from_round`)."""
    return forms.extra_field(form, "sides")


def _entry(side: str, entry: Any) -> dict[str, Any]:
    """One side's line of a hand, every count a whole number of at least 0."""
    entry = mapping(entry, "an entry", field=side)
    try:
        if "table" not in entry or "hand" not in entry:
            raise RuleError('an entry needs "table" and "hand" points')
        return {
            **entry,
            "table": whole(entry["table"], "table (points laid down)", lo=0),
            "hand": whole(entry["hand"], "hand (points left in hand)", lo=0),
            # A burraco count left out means none were made.
            "clean": whole(entry.get("clean", 0), "clean (clean burraco made)", lo=0),
            "dirty": whole(entry.get("dirty", 0), "dirty (dirty burraco made)", lo=0),
        }
    except RuleError as error:
        raise RuleError(error.reason, field=side) from None


def _teams(value: Any, players: list[str]) -> dict[str, list[str]]:
    """Two teams of two covering the four players, partners opposite; in seat order."""
    teams = mapping(value, "teams", field="teams")
    if len(players) != 4:
        raise RuleError(f"pairs need exactly 4 players, got {len(players)}", field="teams")
    if len(teams) != 2:
        raise RuleError(f"there must be exactly two teams, got {len(teams)}", field="teams")
    team_of: dict[str, str] = {}
    names: list[str] = []
    for raw_name, members in teams.items():
        name = " ".join(str(raw_name).split())
        if not 1 <= len(name) <= NAME_MAX:
            raise RuleError(
                f"a team name has 1 to {NAME_MAX} characters, got {show(raw_name)}", field="teams"
            )
        if names and name_key(names[0]) == name_key(name):
            raise RuleError("the two teams need different names", field="teams")
        names.append(name)
        members = items(members, f"team {name}", field="teams")
        if len(members) != 2:
            raise RuleError(f"team {name} must have 2 players, got {len(members)}", field="teams")
        for member in members:
            player = resolve(member, players, "teams")
            if player in team_of:
                raise RuleError(f"{player} is in two teams", field="teams")
            team_of[player] = name
    if team_of[players[0]] != team_of[players[2]]:
        raise RuleError(
            "partners sit opposite, so the seat order must alternate the teams "
            f"({', '.join(f'{p} ({team_of[p]})' for p in players)} does not)",
            field="teams",
        )
    first, second = team_of[players[0]], team_of[players[1]]
    return {first: [players[0], players[2]], second: [players[1], players[3]]}
