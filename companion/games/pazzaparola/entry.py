"""Pazzaparola's entry adapter: the new-match settings, the rows of letter-card chips, read into rounds and back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from ..base import Replay, best
from ..checks import name_key
from ..entry import Entry
from ..forms import extra_field, first, index_in, number_field, values, whole_number
from ..refusals import N_, Message, Np_, RuleError
from .rules import word_score

# What the entry form edits; any other key of a stored round or row passes through `extra`.
ROUND_FIELDS = ("theme", "rows")
ROW_FIELDS = ("word", "used", "unused")


class PazzaparolaEntry(Entry):
    """The steppers and eldest chips of the new-match form; a chip tray per player on the match page."""

    total_word: ClassVar[Message] = N_("Victory points")
    # A row's lower row is the cards dealt less those its chips name.
    described_settings: ClassVar[tuple[str, ...]] = ("cards",)

    def describe_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any], say: Callable[[Message], str]
    ) -> str:
        """Each player's word score in seat order, the point's takers starred: "John 18 ★, Ringo 14"."""
        scores = {name: word_score(round["rows"][name]["used"], round["rows"][name]["unused"]) for name in players}
        takers = best(scores)
        return ", ".join(f"{name} {score}{' ★' if name in takers else ''}" for name, score in scores.items())

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """The round the entry form carries: the theme, and per seat a word and its card chips.

        The lower row is what is left of the deal; a row holding more chips than cards is
        sent with an empty lower row so the rules refuse it with their own message.
        """
        cards = self.rules.settings(settings, players)["cards"]
        extra = _extra_from_form(form)
        rows: dict[str, Any] = {}
        for index, name in enumerate(players):
            chips = values(form, f"used-{index}")
            used = [number_field(raw, "a card's points", field=name, signed=True) for raw in chips]
            row = _with_text(extra["rows"].get(name, {}), "word", _first(form, f"word-{index}"))
            rows[name] = {**row, "used": used, "unused": max(cards - len(used), 0)}
        if not any(row["used"] for row in rows.values()):
            raise RuleError(N_("nothing was entered: tap the points of each word's cards first"), field="round")
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

    rows_from_seats = True
    round_from_rows_alone = True

    def row_from_form(self, form: Any, replay: Replay, position: int) -> dict[str, Any]:
        """A seated player's row: their word and the points of its cards, no more cards than were dealt."""
        name, cards = replay.players[position], replay.settings["cards"]
        used = [
            number_field(raw, "a card's points", field=name, signed=True) for raw in values(form, f"used-{position}")
        ]
        if len(used) > cards:
            raise RuleError(N_("more cards than the %(n)s dealt: tap a chip to take one back", n=cards), field=name)
        return _with_text({"used": used}, "word", _first(form, f"word-{position}"))

    def row_fields(self, row: dict[str, Any], position: int) -> dict[str, list[str]]:
        """The chips and the word of a sent row as the entry's fields of that seat."""
        return {
            f"used-{position}": [str(points) for points in row.get("used") or []],
            f"word-{position}": [row.get("word") or ""],
        }

    def step(self, form: Any, replay: Replay) -> dict[str, Any]:
        """The entry as last sent (or empty): each row's chips, live word score and the leaders.

        It draws the page, so it reads anything without raising: a chip that is not a
        number counts for nothing here and is refused by `round_from_form` on save.
        """
        players, cards = replay.players, replay.settings["cards"]
        rows = []
        for index, name in enumerate(players):
            chips = [raw.strip() for raw in values(form, f"used-{index}")]
            points = [n for n in map(whole_number, chips) if n is not None]
            rows.append(
                {
                    "index": index,
                    "name": name,
                    "word": _first(form, f"word-{index}"),
                    "chips": chips,
                    "unused": cards - len(chips),
                    "score": word_score(points, cards - len(chips)),
                    # Sent from the seat's own phone: the revision the entry shows and that phone's name.
                    "sent_rev": _first(form, f"sent-rev-{index}"),
                    "sent_by": _first(form, f"sent-by-{index}"),
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
            "active": index_in(active, len(players)) or 0,
        }

    def highlight(self, replay: Replay) -> Message | None:
        """The best word of the match: the highest word score of any round, whose it was, and the word when
        it was noted and one word alone scored it (several players, or rounds, at that score are all named)."""
        top: int | None = None
        held: list[tuple[str, str]] = []
        for checked, entry in zip(replay.rounds, replay.tally.rounds, strict=True):
            for name, score in entry["scores"].items():
                word = (checked["rows"][name].get("word") or "").strip()
                if top is None or score > top:
                    top, held = score, [(name, word)]
                elif score == top:
                    held.append((name, word))
        if top is None:
            return None
        names = list(dict.fromkeys(name for name, _ in held))
        if len(held) == 1 and held[0][1]:
            return Np_("Best word: “%(word)s”, %(num)s point, by %(name)s",
                       "Best word: “%(word)s”, %(num)s points, by %(name)s",
                       num=top, word=held[0][1], name=names[0])  # fmt: skip
        return Np_("Best word score: %(num)s point, by %(names)s", "Best word score: %(num)s points, by %(names)s",
                   num=top, names=", ".join(names))  # fmt: skip


def _first(form: Any, key: str) -> str:
    """The first value of a form field, or the empty string."""
    return first(form, key, "") or ""


def _extra_from_form(form: Any) -> dict[str, dict[str, Any]]:
    """The keys of a corrected round that the form has no field for, from its hidden `extra`."""
    extra = extra_field(form, "rows")
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
