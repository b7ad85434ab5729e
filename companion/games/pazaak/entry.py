"""Pazaak's entry adapter: set wins and hand cards on the new-match form, and the fields of a set, read into
rounds and back; the set calculator it steps and draws is board.py's."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from ..base import Replay, Standings
from ..checks import show
from ..entry import Entry
from ..forms import first, index_in, json_field, values, whole_number
from ..refusals import N_, Message, Np_, RuleError
from .board import calculator, card_class, set_round
from .rules import HAND_CARDS, HAND_SIZE, decide_set, hand_card

# Form fields: one `hand:<name>` list per player on the new-match form; a round's seat-indexed fields.
HAND_FIELD = "hand:"
TIE = "tie"


class PazaakEntry(Entry):
    """Steppers and a hand-card palette on the new-match form; the set calculator on the match page."""

    board_figure: ClassVar[str | None] = "sets_won"
    round_word: ClassVar[Message] = N_("Set")
    chart_title: ClassVar[Message] = N_("Totals after each set")
    total_word: ClassVar[Message] = N_("Sets won")
    shown_word: ClassVar[Message] = N_("Set shown")

    round_texts: ClassVar[dict[str, Message]] = {
        "label": N_("Set %(n)s:"),
        "wins": N_("%(name)s wins"),
        "tied": N_("tied"),
        "tiebreaker": N_("tiebreaker"),
    }
    counting_texts: ClassVar[dict[str, Message]] = {
        "number": N_("Set %(n)s"),
        "correct": N_("Correct set %(n)s"),
        "last": N_("last set %(ago)s ago"),
        "undone": N_("Set %(n)s taken back."),
        "chart": Np_("Totals after %(num)s set: %(totals)s", "Totals after each of %(num)s sets: %(totals)s"),
        "replay": N_("After set %(n)s of %(count)s"),
    }

    kept_texts: ClassVar[dict[str, Message]] = {
        "kept": Np_("Offline — %(num)s set kept on this phone", "Offline — %(num)s sets kept on this phone"),
        "sending": Np_("%(num)s set waiting — sending…", "%(num)s sets waiting — sending…"),
        "sent": Np_("%(num)s set sent", "%(num)s sets sent"),
        "needs_look": Np_("%(num)s set needs a look", "%(num)s sets need a look"),
        "as_of": N_("As of set %(num)s · %(waiting)s"),
        "waiting": Np_("%(num)s set waiting", "%(num)s sets waiting"),
        "refused": N_("The server did not store this set."),
        "reenter": N_("Set %(num)s was not stored: enter it again (%(what)s)."),
        "needs_server": N_(
            "This needs the server, which cannot be reached right now. Sets you save are kept on this phone."
        ),
        "leave_waiting": Np_(
            "%(num)s set kept on this phone is not sent yet. Leave this page anyway?",
            "%(num)s sets kept on this phone are not sent yet. Leave this page anyway?",
        ),
        "not_kept": N_(
            "Not saved: the server cannot be reached and this phone cannot keep the set. What you entered is still "
            "here."
        ),
    }

    def describe_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any], say: Callable[[Message], str]
    ) -> str:
        """Who won the set, or that it was tied, with the table totals when the set has them and the Tiebreaker
        when it decided: "Ann wins (Ann 20, Bob 20 · tiebreaker)"."""
        totals = round.get("totals")
        if totals is None:
            winner, how = round["winner"], None
        else:
            winner, how = decide_set(players, totals, round["filled"], round["tiebreaker"])
        said = say(self.said("wins", name=winner)) if winner is not None else say(self.said("tied"))
        if totals is None:
            return said
        table = ", ".join(f"{name} {totals[name]}" for name in players)
        return f"{said} ({table}{' · ' + say(self.said('tiebreaker')) if how == 'tiebreaker' else ''})"

    def describe_after(
        self, number: int, round: dict[str, Any], standings: Standings, say: Callable[[Message], str]
    ) -> str:
        """The sets each player has won, or who has won the match."""
        sets = " – ".join(f"{name} {total}" for name, total in standings.totals.items())
        if standings.over:
            heading = say(N_("%(name)s wins the match", name=", ".join(standings.winners)))
        else:
            heading = say(N_("Sets"))
        return f". {heading} {sets}."

    def setup_view(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The settings part of the new-match form after the tap it carries (an `action` field).

        Taps: `pazaak-sets:+1`/`-1` (within the declared bounds), `pazaak-for:<seat>` (whose hand the
        palette fills), `pazaak-card:<label>` (add to that hand), `pazaak-drop:<seat>:<position>`.
        Returns `sets` (a number, or the text as sent when unreadable), `hands` {name: labels},
        `picking` (a name or None) and `open` (whether the hand picker is worth showing open), with the
        base's `settings` (the declared `sets`, whose bounds the stepper's buttons stop at).
        """
        declared = super().setup_view(form, players)
        setting = declared["settings"]["sets"]
        sets = declared["shown"]["sets"]
        hands = {name: values(form, HAND_FIELD + name)[:HAND_SIZE] for name in players}
        picking = first(form, "pazaak_for")
        picking = picking if picking in hands else _with_room(hands, players)
        verb, _, arg = (first(form, "action") or "").partition(":")
        if verb == "pazaak-sets":
            base = sets if isinstance(sets, int) else setting.default
            sets = min(max(base + (1 if arg == "+1" else -1), setting.lo), setting.hi)
        elif verb == "pazaak-for" and (seat := index_in(arg, len(players))) is not None:
            picking = players[seat]
        elif verb == "pazaak-card" and arg in HAND_CARDS and picking is not None:
            if len(hands[picking]) < HAND_SIZE:
                hands[picking].append(arg)
            if len(hands[picking]) == HAND_SIZE:
                # A full hand hands the palette on, so eight taps note both hands.
                picking = _with_room(hands, players, after=picking) or picking
        elif verb == "pazaak-drop":
            seat_text, _, position = arg.partition(":")
            seat = index_in(seat_text, len(players))
            card = index_in(position, len(hands[players[seat]])) if seat is not None else None
            if seat is not None and card is not None:
                picking = players[seat]
                del hands[picking][card]
        return {
            **declared,
            "sets": sets,
            "hands": hands,
            "picking": picking,
            "open": (verb.startswith("pazaak-") and verb != "pazaak-sets") or any(hands.values()),
            "palette": [{"label": label, "cls": card_class(label)} for label in HAND_CARDS],
            "classes": {label: card_class(label) for label in HAND_CARDS},
        }

    @staticmethod
    def field(form: Any, key: str) -> str:
        """A form field's first value for a template ('' when absent)."""
        return first(form, key) or ""

    @staticmethod
    def field_values(form: Any, key: str) -> list[str]:
        """Every value of a form field, for a template."""
        return values(form, key)

    def settings_from_form(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The raw settings from the new-match form: the declared set wins needed and any hand cards noted."""
        settings = self.read_settings(form)
        hands = {name: values(form, HAND_FIELD + name) for name in players}
        if any(hands.values()):
            settings["hands"] = {name: cards for name, cards in hands.items() if cards}
        return settings

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """A set from the match page: the calculator's table (`source=table`) or the fields of a set.

        The fields: `winner` (a seat index, or "tie"), `total-0`/`total-1` with `filled` (seat
        indices) and `tiebreaker` (a seat index or empty), `cards` (JSON, the cards played) and
        `extra` (JSON, any other keys the stored round carried, kept through a correction).
        """
        if first(form, "source") == "table":
            return set_round(form, players)
        round = json_field(form, "extra", dict, N_("the extra field"))
        winner = first(form, "winner")
        if winner is not None:
            round["winner"] = None if winner == TIE else _named(winner, players, "winner")
        if any(first(form, f"total-{seat}") is not None for seat in range(len(players))):
            round["totals"] = {name: _form_total(form, seat, name) for seat, name in enumerate(players)}
            round["filled"] = [_named(seat, players, "filled") for seat in values(form, "filled")]
            tiebreaker = first(form, "tiebreaker")
            round["tiebreaker"] = _named(tiebreaker, players, "tiebreaker") if tiebreaker else None
        if first(form, "cards") is not None:
            round["cards"] = json_field(form, "cards", dict, N_("the cards field"))
        if "winner" not in round and "totals" not in round:
            raise RuleError(N_("tap who won the set, or play it on the calculator"), field="winner")
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

    seat_boards = True

    def hand_from_form(self, form: Any, name: str, settings: dict[str, Any], hand: list[str], begun: bool) -> list[str]:
        """The hand after a tap of the seated phone's hand picker: `card` adds a side card (up to four),
        `drop` (a position) takes one out, until the first set has begun. A hand the scorekeeper noted on the
        new-match form is the player's, not the phone's to change."""
        if (settings.get("hands") or {}).get(name):
            raise RuleError(N_("your hand was noted when the match was set up"), field="hand")
        drop = first(form, "drop")
        if drop is not None:
            position = index_in(drop, len(hand))
            if position is None:
                raise RuleError(N_("%(value)s is not a card of your hand", value=show(drop)), field="hand")
            if begun:
                raise RuleError(N_("your hand is fixed once the first set has begun"), field="hand")
            return hand[:position] + hand[position + 1 :]
        card = hand_card(first(form, "card"))
        if len(hand) >= HAND_SIZE:
            raise RuleError(N_("a hand holds %(n)s side cards", n=HAND_SIZE), field="hand")
        return [*hand, card]

    def step(self, form: Any, replay: Replay) -> dict[str, Any]:
        """The set calculator after the tap the form carries (see `calculator`)."""
        starter = self.rules.starter(replay)
        players = replay.players
        return calculator(form, players, replay.settings, replay.rounds, players.index(starter) if starter else 0)

    def highlight(self, replay: Replay) -> Message | None:
        """How long the duel ran: the sets played, and how many of them were tied."""
        tied = sum(entry["winner"] is None for entry in replay.tally.rounds)
        return Np_("%(num)s set played, %(tied)s tied.", "%(num)s sets played, %(tied)s tied.",
                   num=len(replay.rounds), tied=tied)  # fmt: skip

    def round_values(self, replay: Replay, index: int) -> dict[str, int]:
        """Each player's table total of the set when it was noted, else the set won (1) or not (0)."""
        totals = replay.rounds[index].get("totals")
        if totals is not None:
            return dict(totals)
        winner = replay.tally.rounds[index]["winner"]
        return {name: int(name == winner) for name in replay.players}


ROUND_FIELDS = ("winner", "totals", "filled", "tiebreaker", "cards")


def _named(text: str | None, players: list[str], field: str) -> str:
    """The player at a posted seat index."""
    seat = index_in(text, len(players))
    if seat is None:
        raise RuleError(N_("%(value)s is not a seat of this match", value=show(text)), field=field)
    return players[seat]


def _form_total(form: Any, seat: int, name: str) -> int:
    """A player's table total from the correction form."""
    text = first(form, f"total-{seat}")
    number = whole_number(text, signed=True)
    if number is None:
        raise RuleError(N_("the table total must be a whole number, got %(value)s", value=show(text)), field=name)
    return number


def _with_room(hands: dict[str, list[str]], players: list[str], after: str | None = None) -> str | None:
    """The next player (from `after`'s seat on, wrapping) whose hand has room for another card."""
    start = players.index(after) + 1 if after in players else 0
    for offset in range(len(players)):
        name = players[(start + offset) % len(players)]
        if len(hands[name]) < HAND_SIZE:
            return name
    return None
