"""Pazaak: sets decided by outcome or by table totals (bust, nine cards, tiebreaker), to 3 set wins."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from . import forms
from .base import (
    Game,
    RuleError,
    Tally,
    items,
    mapping,
    name_list,
    per_name,
    resolve,
    show,
    whole,
)

LIMIT = 20
HAND_SIZE = 4
SETS_RANGE = (1, 10)
# Form fields: one `hand:<name>` list per player on the new-match form; a round's seat-indexed fields.
HAND_FIELD = "hand:"
TIE = "tie"
# The side cards a player can hold, as labelled in settings["hands"] and on the calculator.
HAND_CARDS = (
    *(f"+{n}" for n in range(1, 7)),
    *(f"\u2212{n}" for n in range(1, 7)),
    *(f"\u00b1{n}" for n in range(1, 7)),
    "\u00b11/2",
    "Flip 2&4",
    "Flip 3&6",
    "D",
    "T\u00b11",
)


def _label_key(text: str) -> str:
    """A label typed with ASCII signs ("-3", "+/-4") matched to the printed one ("−3", "±4")."""
    text = "".join(text.split()).replace("+/-", "\u00b1").replace("+-", "\u00b1").replace("-", "\u2212")
    return text.casefold()


_LABELS = {_label_key(label): label for label in HAND_CARDS}


def hand_card(value: Any) -> str:
    """The canonical label of a side card a player can hold."""
    if isinstance(value, str) and _label_key(value) in _LABELS:
        return _LABELS[_label_key(value)]
    raise RuleError(f"{show(value)} is not a side card (one of {', '.join(HAND_CARDS)})")


def card_class(label: str) -> str:
    """The colour family of a side card: plus (blue), minus (red), pm (±, both) or gold."""
    if label.startswith("+"):
        return "plus"
    if label.startswith("\u2212"):
        return "minus"
    if label.startswith("\u00b1") and label != "\u00b11/2":
        return "pm"
    return "gold"


def decide_set(
    players: list[str], totals: dict[str, int], filled: list[str], tiebreaker: str | None
) -> tuple[str | None, str]:
    """The set's winner (None: tied) and how: "bust", "filled", "outscore", "tiebreaker" or "tie"."""
    bust = [name for name in players if totals[name] > LIMIT]
    if len(bust) == 2:
        raise RuleError(f"both players are over {LIMIT}; only one can bust", field="totals")
    if bust:
        return next(name for name in players if name not in bust), "bust"
    if len(filled) == 2:
        raise RuleError("both players are listed; only one can fill the table first", field="filled")
    if filled:
        return filled[0], "filled"
    first, second = players
    if totals[first] != totals[second]:
        return (first if totals[first] > totals[second] else second), "outscore"
    if tiebreaker is not None:
        return tiebreaker, "tiebreaker"
    return None, "tie"


class Pazaak(Game):
    """Two players; a set is won, lost or tied, and the first to `sets` set wins takes the match."""

    slug = "pazaak"
    name = "Pazaak"
    min_players = 2
    max_players = 2
    defaults: ClassVar[dict[str, Any]] = {"sets": 3, "hands": None}
    # The new-match form shows the errors of these settings next to their own fields.
    setting_fields: ClassVar[tuple[str, ...]] = ("sets", "hands")

    def normalise_settings(self, settings: dict[str, Any], players: list[str]) -> dict[str, Any]:
        """Set wins needed, and each player's (optional) four hand cards for the UI."""
        return {
            "sets": whole(settings["sets"], "the set wins needed", lo=1, hi=10, field="sets"),
            "hands": _hands(settings["hands"], players),
        }

    def normalise_round(
        self, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """A set as its outcome, or as table totals that decide it (agreeing with any winner given)."""
        has_winner = "winner" in round
        winner = round.get("winner")
        if winner is not None:
            winner = resolve(winner, players, "winner")
        if round.get("totals") is None:
            if not has_winner:
                raise RuleError(
                    'a set needs a "winner" (null for a tie) or the table "totals"', field="winner"
                )
            return {"winner": winner}
        table = self.table_form(players, round)
        decided, how = decide_set(players, table["totals"], table["filled"], table["tiebreaker"])
        if has_winner and winner != decided:
            by_totals = f"{decided} wins ({how})" if decided else "the set is tied"
            raise RuleError(f"says {show(winner)}, but by the totals {by_totals}", field="winner")
        return {**({"winner": winner} if has_winner else {}), **table}

    @staticmethod
    def table_form(players: list[str], round: dict[str, Any]) -> dict[str, Any]:
        """The totals, `filled` (default none) and `tiebreaker` (default null) checked."""
        totals = {
            name: _total(name, value) for name, value in per_name(round["totals"], players, "totals").items()
        }
        filled = round.get("filled")
        filled = [] if filled is None else name_list(filled, players, "filled", distinct=True)
        tiebreaker = round.get("tiebreaker")
        tiebreaker = None if tiebreaker is None else resolve(tiebreaker, players, "tiebreaker")
        return {"totals": totals, "filled": filled, "tiebreaker": tiebreaker}

    def play(
        self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """The set's winner, if any, gets one set win."""
        if "totals" in round:
            winner, _ = decide_set(players, round["totals"], round["filled"], round["tiebreaker"])
        else:
            winner = round["winner"]
        if winner is not None:
            tally.totals[winner] += 1
        return {"winner": winner}

    def is_over(self, tally: Tally, settings: dict[str, Any]) -> bool:
        """Over when a player has the set wins needed."""
        return max(tally.totals.values()) >= settings["sets"]

    def winners(self, tally: Tally, settings: dict[str, Any]) -> list[str]:
        """The player who reached the set wins needed."""
        return [name for name, wins in tally.totals.items() if wins >= settings["sets"]]

    def next_to_start(
        self, players: list[str], settings: dict[str, Any] | None, rounds: list[Any]
    ) -> str | None:
        """Who starts the next set: seat 1 starts set 1, then the start alternates (tied sets too)."""
        replay = self.replay(players, settings, rounds)
        return None if replay.over else replay.players[len(replay.rounds) % 2]

    # --- the web forms ---------------------------------------------------------------------

    def setup_view(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The settings part of the new-match form after the tap it carries (an `action` field).

        Taps: `pazaak-sets:+1`/`-1`, `pazaak-for:<seat>` (whose hand the palette fills),
        `pazaak-card:<label>` (add to that hand), `pazaak-drop:<seat>:<position>`.
        Returns `sets` (a number, or the text as sent when unreadable), `hands` {name: labels},
        `picking` (a name or None) and `open` (whether the hand picker is worth showing open).
        """
        sets = form_value(form, "sets")
        hands = {name: form_values(form, HAND_FIELD + name)[:HAND_SIZE] for name in players}
        picking = form_value(form, "pazaak_for")
        picking = picking if picking in hands else _with_room(hands, players)
        verb, _, arg = (form_value(form, "action") or "").partition(":")
        if verb == "pazaak-sets":
            current = _number(sets)
            base = self.defaults["sets"] if current is None else current
            sets = str(min(max(base + (1 if arg == "+1" else -1), SETS_RANGE[0]), SETS_RANGE[1]))
        elif verb == "pazaak-for" and (seat := _seat(arg, players)) is not None:
            picking = players[seat]
        elif verb == "pazaak-card" and arg in HAND_CARDS and picking is not None:
            if len(hands[picking]) < HAND_SIZE:
                hands[picking].append(arg)
            if len(hands[picking]) == HAND_SIZE:
                # A full hand hands the palette on, so eight taps note both hands.
                picking = _with_room(hands, players, after=picking) or picking
        elif verb == "pazaak-drop":
            seat_text, _, position = arg.partition(":")
            seat = _seat(seat_text, players)
            if seat is not None and position.isdigit() and int(position) < len(hands[players[seat]]):
                picking = players[seat]
                del hands[picking][int(position)]
        number = _number(sets)
        return {
            "sets": self.defaults["sets"] if sets is None else (sets if number is None else number),
            "hands": hands,
            "picking": picking,
            "open": (verb.startswith("pazaak-") and verb != "pazaak-sets") or any(hands.values()),
            "palette": [{"label": label, "cls": card_class(label)} for label in HAND_CARDS],
        }

    @staticmethod
    def field(form: Any, key: str) -> str:
        """A form field's first value for a template ('' when absent)."""
        return form_value(form, key) or ""

    @staticmethod
    def field_values(form: Any, key: str) -> list[str]:
        """Every value of a form field, for a template."""
        return form_values(form, key)

    @staticmethod
    def card_class(label: str) -> str:
        """A side card's colour family, for a template."""
        return card_class(label)

    def settings_from_form(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The raw settings from the new-match form: set wins needed and any hand cards noted."""
        settings: dict[str, Any] = {}
        sets = form_value(form, "sets")
        if sets is not None and sets.strip():
            number = _number(sets)
            if number is None:
                raise RuleError(f"the set wins needed must be a whole number, got {show(sets)}", field="sets")
            settings["sets"] = number
        hands = {name: form_values(form, HAND_FIELD + name) for name in players}
        if any(hands.values()):
            settings["hands"] = {name: cards for name, cards in hands.items() if cards}
        return settings

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """A set from the match page: the calculator's table (`source=table`) or the fields of a set.

        The fields: `winner` (a seat index, or "tie"), `total-0`/`total-1` with `filled` (seat
        indices) and `tiebreaker` (a seat index or empty), `cards` (JSON, the cards played) and
        `extra` (JSON, any other keys the stored round carried, kept through a correction).
        """
        if form_value(form, "source") == "table":
            from .pazaak_table import set_round  # the calculator imports this module

            return set_round(form_value(form, "table"), players)
        round = _json_field(form, "extra", dict)
        winner = form_value(form, "winner")
        if winner is not None:
            round["winner"] = None if winner == TIE else _named(winner, players, "winner")
        if any(form_value(form, f"total-{seat}") is not None for seat in range(len(players))):
            round["totals"] = {name: _form_total(form, seat, name) for seat, name in enumerate(players)}
            round["filled"] = [_named(seat, players, "filled") for seat in form_values(form, "filled")]
            tiebreaker = form_value(form, "tiebreaker")
            round["tiebreaker"] = _named(tiebreaker, players, "tiebreaker") if tiebreaker else None
        if form_value(form, "cards") is not None:
            round["cards"] = _json_field(form, "cards", dict)
        if "winner" not in round and "totals" not in round:
            raise RuleError("tap who won the set, or play it on the calculator", field="winner")
        return round

    def form_from_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any]
    ) -> dict[str, list[str]]:
        """The fields `round_from_form` reads back as this set (to prefill a correction)."""
        seat = {name: str(index) for index, name in enumerate(players)}
        form: dict[str, list[str]] = {}
        if "winner" in round:
            form["winner"] = [TIE if round["winner"] is None else seat[round["winner"]]]
        if round.get("totals") is not None:
            for name in players:
                form[f"total-{seat[name]}"] = [str(round["totals"][name])]
            form["filled"] = [seat[name] for name in round.get("filled") or []]
            form["tiebreaker"] = [seat[round["tiebreaker"]] if round.get("tiebreaker") else ""]
        if "cards" in round:
            form["cards"] = [json.dumps(round["cards"], ensure_ascii=False)]
        extra = {key: value for key, value in round.items() if key not in ROUND_FIELDS}
        if extra:
            form["extra"] = [json.dumps(extra, ensure_ascii=False)]
        return form

    def entry_step(
        self, form: Any, players: list[str], settings: dict[str, Any], rounds: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The set calculator after the tap the form carries (see pazaak_table.calculator)."""
        from .pazaak_table import calculator  # the calculator imports this module

        starter = self.next_to_start(players, settings, rounds)
        return calculator(form, players, settings, rounds, players.index(starter) if starter else 0)


ROUND_FIELDS = ("winner", "totals", "filled", "tiebreaker", "cards")


def form_values(form: Any, key: str) -> list[str]:
    """Every value posted under `key`."""
    return forms.values(form, key)


def form_value(form: Any, key: str) -> str | None:
    """The first value posted under `key`, or None."""
    return forms.first(form, key)


def _number(text: str | None) -> int | None:
    """A whole number typed as text ("−3" with a true minus too), or None."""
    if text is None:
        return None
    text = text.strip().replace("\u2212", "-")
    try:
        return int(text)
    except ValueError:
        return None


def _seat(text: str | None, players: list[str]) -> int | None:
    """A seat index sent by the page, or None when it names no seat."""
    return int(text) if text is not None and text.isdigit() and int(text) < len(players) else None


def _named(text: str | None, players: list[str], field: str) -> str:
    """The player at a posted seat index."""
    seat = _seat(text, players)
    if seat is None:
        raise RuleError(f"{show(text)} is not a seat of this match", field=field)
    return players[seat]


def _form_total(form: Any, seat: int, name: str) -> int:
    """A player's table total from the correction form."""
    text = form_value(form, f"total-{seat}")
    number = _number(text)
    if number is None:
        raise RuleError(f"the table total must be a whole number, got {show(text)}", field=name)
    return number


def _json_field(form: Any, key: str, kind: type) -> Any:
    """A field carrying JSON of a given kind (empty when absent)."""
    return forms.json_field(form, key, kind, f"the {key} field")


def _with_room(hands: dict[str, list[str]], players: list[str], after: str | None = None) -> str | None:
    """The next player (from `after`'s seat on, wrapping) whose hand has room for another card."""
    start = players.index(after) + 1 if after in players else 0
    for offset in range(len(players)):
        name = players[(start + offset) % len(players)]
        if len(hands[name]) < HAND_SIZE:
            return name
    return None


def _total(name: str, value: Any) -> int:
    """A table total: any whole number, since minus cards can take it below zero."""
    return whole(value, "the table total", field=name)


def _hands(value: Any, players: list[str]) -> dict[str, list[str]]:
    """Each player's hand cards (up to four), for every player in seat order."""
    hands: dict[str, list[str]] = {name: [] for name in players}
    if value is None:
        return hands
    for key, cards in mapping(value, "hands", field="hands").items():
        name = resolve(key, players, "hands")
        cards = items(cards, f"{name}'s hand", field="hands")
        if len(cards) > HAND_SIZE:
            raise RuleError(
                f"{name} holds {len(cards)} side cards, but a hand has at most {HAND_SIZE}", field="hands"
            )
        try:
            hands[name] = [hand_card(card) for card in cards]
        except RuleError as error:
            raise RuleError(f"{name}: {error.reason}", field="hands") from None
    return hands
