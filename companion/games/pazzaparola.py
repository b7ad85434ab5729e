"""Pazzaparola: word scores from the two rows of letter cards, and victory points to 3."""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from . import forms
from .base import (
    Game,
    RuleError,
    Standings,
    Tally,
    best,
    items,
    mapping,
    name_key,
    optional_text,
    per_name,
    resolve,
    show,
    whole,
)

# What the entry form edits; any other key of a stored round or row passes through `extra`.
ROUND_FIELDS = ("theme", "rows")
ROW_FIELDS = ("word", "used", "unused")


def word_score(used: list[int], unused: int) -> int:
    """The points of the upper-row cards, minus one per card in the lower row."""
    return sum(used) - unused


class Pazzaparola(Game):
    """Each round the highest word score takes a victory point; first to the target wins."""

    slug = "pazzaparola"
    name = "Pazzaparola"
    min_players = 2
    max_players = 8
    defaults: ClassVar[dict[str, Any]] = {"cards": 8, "target": 3, "eldest": None}

    def normalise_settings(self, settings: dict[str, Any], players: list[str]) -> dict[str, Any]:
        """Cards per player, victory points to win, and the optional eldest player."""
        eldest = settings["eldest"]
        return {
            "cards": whole(settings["cards"], "cards per player", lo=1, hi=20, field="cards"),
            "target": whole(settings["target"], "victory points to win", lo=1, hi=20, field="target"),
            "eldest": None if eldest is None else resolve(eldest, players, "eldest"),
        }

    def normalise_round(self, players: list[str], settings: dict[str, Any], round: dict[str, Any]) -> dict[str, Any]:
        """The theme and every player's two rows; the cards must add up to the deal."""
        optional_text(round.get("theme"), "the theme", field="theme")
        if "rows" not in round:
            raise RuleError("missing; every player needs a row", field="rows")
        rows = per_name(round["rows"], players, "rows")
        return {"rows": {name: self._row(name, row, settings["cards"]) for name, row in rows.items()}}

    @staticmethod
    def _row(name: str, row: Any, cards: int) -> dict[str, Any]:
        """One player's rows checked: card points 0-99 and the right number of cards."""
        row = mapping(row, "a row", field=name)
        try:
            optional_text(row.get("word"), "the word")
            if "used" not in row or "unused" not in row:
                raise RuleError('a row needs both "used" (card points) and "unused" (a count)')
            used = [
                whole(points, f"card {position} of the upper row", lo=0, hi=99)
                for position, points in enumerate(items(row["used"], "used"), start=1)
            ]
            unused = whole(row["unused"], "unused (cards in the lower row)", lo=0)
        except RuleError as error:
            raise RuleError(error.reason, field=name) from None
        if len(used) + unused != cards:
            raise RuleError(f"{len(used) + unused} cards in the rows, but each player has {cards}", field=name)
        return {**row, "used": used, "unused": unused}

    def play(self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]) -> dict[str, Any]:
        """Every player with the round's highest word score takes a victory point."""
        scores = {name: word_score(row["used"], row["unused"]) for name, row in round["rows"].items()}
        winners = best(scores)
        for name in winners:
            tally.totals[name] += 1
        return {"scores": scores, "winners": winners}

    def is_over(self, tally: Tally, settings: dict[str, Any]) -> bool:
        """Over once someone has the target's victory points."""
        return max(tally.totals.values()) >= settings["target"]

    def winners(self, tally: Tally, settings: dict[str, Any]) -> list[str]:
        """Everyone at or above the target: reaching it together is a tie for victory."""
        return [name for name, points in tally.totals.items() if points >= settings["target"]]

    def round_scores(
        self, standings: Standings, rounds: list[dict[str, Any]], side: str
    ) -> list[tuple[int, str | None]]:
        """Each round's word score with the word itself, so a player's best word can be named."""
        return [
            (entry["scores"][side], rounds[index]["rows"][side].get("word"))
            for index, entry in enumerate(standings.rounds)
        ]

    def next_to_start(self, players: list[str], settings: dict[str, Any] | None, rounds: list[Any]) -> str | None:
        """Who announces first: last round's sole winner, else the eldest (None: ask the table)."""
        replay = self.replay(players, settings, rounds)
        if replay.over:
            return None
        last = replay.tally.rounds[-1]["winners"] if replay.tally.rounds else []
        # Round 1 and a tied round both fall back to the eldest, as the rulebook does after a tie.
        return last[0] if len(last) == 1 else replay.settings["eldest"]

    # --- the web form: settings on the new-match page, a round on the match page ---------

    # Settings whose errors the settings partial shows next to its own fields.
    setting_fields: ClassVar[tuple[str, ...]] = ("cards", "target", "eldest")

    def settings_from_form(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The raw settings the new-match form carries; blank fields keep their defaults."""
        raw: dict[str, Any] = {}
        for key, what in (("cards", "cards per player"), ("target", "victory points to win")):
            text = _first(form, key).strip()
            if text:
                raw[key] = _number(text, what, field=key)
        eldest = " ".join(_first(form, "eldest").split())
        if eldest:
            raw["eldest"] = eldest
        return raw

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """The round the entry form carries: the theme, and per seat a word and its card chips.

        The lower row is what is left of the deal; a row holding more chips than cards is
        sent with an empty lower row so the rules refuse it with their own message.
        """
        cards = self.settings(settings, players)["cards"]
        extra = _extra_from_form(form)
        rows: dict[str, Any] = {}
        for index, name in enumerate(players):
            used = [_number(raw, "a card's points", field=name) for raw in _getlist(form, f"used-{index}")]
            row = _with_text(extra["rows"].get(name, {}), "word", _first(form, f"word-{index}"))
            rows[name] = {**row, "used": used, "unused": max(cards - len(used), 0)}
        if not any(row["used"] for row in rows.values()):
            raise RuleError("nothing was entered: tap the points of each word's cards first", field="round")
        return {**_with_text(extra["round"], "theme", _first(form, "theme")), "rows": rows}

    def form_from_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any]
    ) -> dict[str, list[str]]:
        """The entry form's fields for a stored round, exactly what `round_from_form` reads back.

        Keys the form has no field for (an imported round's time, a note on a row) ride
        along in a hidden `extra` field, so a correction keeps them.
        """
        given = round.get("rows") if isinstance(round.get("rows"), dict) else {}
        rows = {name_key(str(key)): row for key, row in given.items() if isinstance(row, dict)}
        form = {"theme": [round.get("theme") or ""]}
        extra: dict[str, Any] = {"round": _without(round, ROUND_FIELDS), "rows": {}}
        for index, name in enumerate(players):
            row = rows.get(name_key(name)) or {}
            form[f"word-{index}"] = [row.get("word") or ""]
            form[f"used-{index}"] = [str(points) for points in row.get("used") or []]
            rest = _without(row, ROW_FIELDS)
            if rest:
                extra["rows"][name] = rest
        if extra["round"] or extra["rows"]:
            form["extra"] = [json.dumps(extra, ensure_ascii=False)]
        return form

    def entry_step(self, form: Any, players: list[str], settings: dict[str, Any], rounds: list[Any]) -> dict[str, Any]:
        """The entry as last sent (or empty): each row's chips, live word score and the leaders.

        It draws the page, so it reads anything without raising: a chip that is not a
        number counts for nothing here and is refused by `round_from_form` on save.
        """
        cards = (settings or {}).get("cards")
        cards = cards if isinstance(cards, int) and not isinstance(cards, bool) else self.defaults["cards"]
        rows = []
        for index, name in enumerate(players):
            chips = [raw.strip() for raw in _getlist(form, f"used-{index}")]
            points = [int(raw) for raw in chips if raw.isascii() and raw.isdigit()]
            rows.append(
                {
                    "index": index,
                    "name": name,
                    "word": _first(form, f"word-{index}"),
                    "chips": chips,
                    "unused": cards - len(chips),
                    "score": word_score(points, cards - len(chips)),
                }
            )
        entered = any(row["chips"] for row in rows)
        active = _first(form, "active")
        return {
            "cards": cards,
            "theme": _first(form, "theme"),
            "extra": _first(form, "extra"),
            "rows": rows,
            # Before any chip every score is the same; a point for everyone would only be noise.
            "leaders": best({row["name"]: row["score"] for row in rows}) if entered else [],
            "active": int(active) if active.isdigit() and int(active) < len(players) else 0,
        }


def _getlist(form: Any, key: str) -> list[str]:
    """Every value of a form field."""
    return forms.values(form, key)


def _first(form: Any, key: str) -> str:
    """The first value of a form field, or the empty string."""
    return forms.first(form, key, "") or ""


def _number(text: str, what: str, *, field: str) -> int:
    """A whole number typed or tapped into a form field; anything else is a RuleError on that field."""
    text = text.strip()
    if not re.fullmatch(r"-?[0-9]+", text):
        raise RuleError(f"{what} must be a whole number, got {show(text)}", field=field)
    return int(text)


def _extra_from_form(form: Any) -> dict[str, dict[str, Any]]:
    """The keys of a corrected round that the form has no field for, from its hidden `extra`."""
    extra = forms.extra_field(form, "rows")
    return {
        "round": _without(extra["round"], ROUND_FIELDS),
        "rows": {name: _without(row, ROW_FIELDS) for name, row in extra["rows"].items()},
    }


def _without(given: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """`given` less the keys the form itself edits."""
    return {k: v for k, v in given.items() if k not in keys}


def _with_text(target: dict[str, Any], key: str, text: str) -> dict[str, Any]:
    """`target` with `key` set to the trimmed text, left out when blank (as in the match files)."""
    text = text.strip()
    return {**target, key: text} if text else target
