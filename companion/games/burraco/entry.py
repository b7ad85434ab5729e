"""Burraco PAROLE's entry adapter: the new-match settings and pairs, the keypad sums of a hand, and back."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, ClassVar

from ..base import Replay
from ..checks import show
from ..entry import Entry
from ..forms import extra_field, first, number_field, values
from ..refusals import N_, Message, Np_, RuleError
from .rules import hand_score

# The page's names of the fields the declared settings do not name (the pairs, "No limit"): a prefix, as the
# declared ones have, because the new-match form keeps the fields of the game picked before.
SETTING = "burraco_{}"
ENTRY_KEYS = ("table", "hand", "clean", "dirty")
SUM_MAX_CHARS = 60
DIGITS = re.compile(r"[0-9]{1,6}")


def evaluate_sum(text: Any) -> int:
    """The total of a sum typed as counted at the table ("25+10+5" is 40): digits and + only."""
    if not isinstance(text, str):
        raise RuleError(N_("type the points as digits, got %(value)s", value=show(text)))
    compact = "".join(text.split())
    if not compact:
        raise RuleError(N_("nothing typed"))
    if len(compact) > SUM_MAX_CHARS:
        raise RuleError(N_("a sum has at most %(n)s characters", n=SUM_MAX_CHARS))
    if compact.startswith("-"):
        raise RuleError(N_("points cannot be negative, got %(value)s", value=text))
    strange = sorted({c for c in compact if c not in "0123456789+"})
    if strange:
        raise RuleError(N_("only digits and + can be typed, not %(chars)s", chars=" ".join(strange)))
    terms = compact.split("+")
    if compact.endswith("+"):
        raise RuleError(N_("%(sum)s ends with +: add the last number or tap ⌫", sum=compact))
    for term in terms:
        if not DIGITS.fullmatch(term):
            if not term:
                raise RuleError(N_("%(sum)s has a + with no number before it", sum=compact))
            raise RuleError(N_("%(sum)s has a number over 6 digits", sum=compact))
    return sum(int(term) for term in terms)


def pairs(players: list[str]) -> list[list[str]]:
    """Four seated players as two pairs, partners opposite: seats 1 and 3 against seats 2 and 4."""
    return [[players[0], players[2]], [players[1], players[3]]]


def _count_field(form: Any, name: str, what: str | Message) -> int:
    """A count typed in a form field (a stepper's); blank counts as 0."""
    text = (first(form, name) or "").strip()
    return number_field(text, what, field=name) if text else 0


def _sum_field(form: Any, name: str, what: Message) -> int:
    """Points typed on the keypad as a sum; blank counts as 0."""
    text = first(form, name) or ""
    if not text.strip():
        return 0
    try:
        return evaluate_sum(text)
    except RuleError as error:
        raise RuleError(N_("%(what)s: %(reason)s", what=what, reason=error.message), field=name) from None


class BurracoEntry(Entry):
    """Number fields and pairs on the new-match form; per side a keypad sum, burraco steppers and the closer."""

    # Each side enters its hand from its own phone (in pairs either partner, one entry for the pair); who closed
    # stays the scorekeeper's to tap.
    rows_from_seats = True

    def row_from_form(self, form: Any, replay: Replay | None, position: int) -> dict[str, Any]:
        """A side's hand as its phone sends it: the points laid and left in hand, its clean and dirty burraco."""
        n = position + 1
        return {
            "table": _sum_field(form, f"table_{n}", N_("points laid on the table")),
            "hand": _sum_field(form, f"hand_{n}", N_("points left in hand")),
            "clean": _count_field(form, f"clean_{n}", N_("clean burraco")),
            "dirty": _count_field(form, f"dirty_{n}", N_("dirty burraco")),
        }

    def row_summary(self, row: dict[str, Any], settings: dict[str, Any]) -> str:
        """A sent hand's score before anyone closed: what the partner's phone is told its pair sent ("+500")."""
        return f"{hand_score({key: int(row.get(key, 0)) for key in ENTRY_KEYS}, False, settings):+d}"

    def row_fields(self, row: dict[str, Any], position: int) -> dict[str, list[str]]:
        """A sent hand as the entry's fields of that side."""
        return {f"{key}_{position + 1}": [str(row.get(key, 0))] for key in ENTRY_KEYS}

    def has_row(self, form: Any, position: int) -> bool:
        """Whether the entry holds anything of the side's hand: its steppers post 0 untouched, as blank fields do."""
        keys = self.row_fields({}, position)
        return any(value.strip() not in ("", "0") for key in keys for value in values(form, key))

    # The names the new-match form proposes for the pairs ("we" and "they"), in the page's language.
    team_names: ClassVar[tuple[Message, Message]] = (N_("Us"), N_("Them"))
    default_side_names: ClassVar[tuple[Message, ...]] = team_names
    board_figure: ClassVar[str | None] = "average_hand"
    round_word: ClassVar[Message] = N_("Hand")
    chart_title: ClassVar[Message] = N_("Totals after each hand")

    round_texts: ClassVar[dict[str, Message]] = {"label": N_("Hand %(n)s:"), "closed": N_("closed")}
    counting_texts: ClassVar[dict[str, Message]] = {
        "number": N_("Hand %(n)s"),
        "correct": N_("Correct hand %(n)s"),
        "last": N_("last hand %(ago)s ago"),
        "undone": N_("Hand %(n)s taken back."),
        "chart": Np_("Totals after %(num)s hand: %(totals)s", "Totals after each of %(num)s hands: %(totals)s"),
        "replay": N_("After hand %(n)s of %(count)s"),
    }
    shown_word: ClassVar[Message] = N_("Hand shown")
    kept_texts: ClassVar[dict[str, Message]] = {
        "kept": Np_("Offline — %(num)s hand kept on this phone", "Offline — %(num)s hands kept on this phone"),
        "sending": Np_("%(num)s hand waiting — sending…", "%(num)s hands waiting — sending…"),
        "sent": Np_("%(num)s hand sent", "%(num)s hands sent"),
        "needs_look": Np_("%(num)s hand needs a look", "%(num)s hands need a look"),
        "as_of": N_("As of hand %(num)s · %(waiting)s"),
        "waiting": Np_("%(num)s hand waiting", "%(num)s hands waiting"),
        "refused": N_("The server did not store this hand."),
        "reenter": N_("Hand %(num)s was not stored: enter it again (%(what)s)."),
        "needs_server": N_(
            "This needs the server, which cannot be reached right now. Hands you save are kept on this phone."
        ),
        "leave_waiting": Np_(
            "%(num)s hand kept on this phone is not sent yet. Leave this page anyway?",
            "%(num)s hands kept on this phone are not sent yet. Leave this page anyway?",
        ),
        "not_kept": N_(
            "Not saved: the server cannot be reached and this phone cannot keep the hand. What you entered is still "
            "here."
        ),
    }
    seat_texts: ClassVar[dict[str, Message]] = {
        "yours": N_("Send your points of each hand from here; the scorekeeper's phone saves the hand."),
        "sent": N_("Hand sent: the scorekeeper's sheet has it. Change it and send again until the hand is saved."),
        "rows_in": N_("Hands in: %(n)s of %(count)s"),
        "not_played": N_("this match is no longer played: your hand was not sent"),
        "not_seated": N_("this phone no longer has a seat at the match: your hand was not sent"),
        "too_late": N_("hand %(n)s was saved before yours arrived: it was not sent"),
        "taken_back": N_("hand %(n)s is not played yet: the table took a hand back and plays hand %(now)s; your hand "
                         "was not sent"),
    }
    # A hand's score counts each burraco and the closing at the match's own values.
    described_settings: ClassVar[tuple[str, ...]] = ("clean", "dirty", "closing")

    def describe_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any], say: Callable[[Message], str]
    ) -> str:
        """Each side's score for the hand in seat order, the closer marked: "Noi 345 (closed), Voi -20"."""
        closer = round["closed_by"]
        said = []
        for side in self.rules.sides(players, settings):
            score = hand_score(round["sides"][side], side == closer, settings)
            said.append(f"{side} {score} ({say(self.said('closed'))})" if side == closer else f"{side} {score}")
        return ", ".join(said)

    def highlight(self, replay: Replay) -> Message | None:
        """The hand that ended the match: its number, who closed it and what that side scored in it."""
        if not replay.rounds:
            return None
        number, closer = len(replay.rounds), replay.rounds[-1]["closed_by"]
        if closer is None:
            return N_("Hand %(n)s ended with no one closing", n=number)
        points = replay.tally.rounds[-1]["scores"][closer]
        return N_("Hand %(n)s closed by %(name)s: %(points)s points", n=number, name=closer, points=points)

    def settings_from_form(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The raw settings from the new-match form: the declared numbers, no hand limit if ticked, and the pairs."""
        nolimit = bool(first(form, SETTING.format("nolimit")))
        raw = self.read_settings(form, skip=("hands",) if nolimit else ())
        if nolimit:
            raw["hands"] = None
        mode = first(form, SETTING.format("mode")) or "alone"
        if mode not in ("alone", "pairs"):
            raise RuleError(N_("choose alone or in pairs, got %(value)s", value=show(mode)), field="teams")
        if mode == "pairs":
            if len(players) != 4:
                raise RuleError(N_("pairs need exactly 4 players, %(n)s are seated", n=len(players)), field="teams")
            team1, team2 = (" ".join((first(form, SETTING.format(f"team{n}")) or "").split()) for n in (1, 2))
            if not team1 or not team2:
                raise RuleError(N_("give each team a name"), field="teams")
            raw["teams"] = dict(zip((team1, team2), pairs(players), strict=True))
        return raw

    def settings_with_sides_renamed(self, settings: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
        """The pairs' team names renamed, their partners kept."""
        if not settings.get("teams"):
            return settings
        teams = {renamed.get(name, name): members for name, members in settings["teams"].items()}
        # Two teams typed so that renaming one gives the other's name keep the names as typed.
        return {**settings, "teams": teams} if len(teams) == len(settings["teams"]) else settings

    def sides_from_form(self, form: Any, players: list[str]) -> list[list[str]]:
        """Two pairs when four are seated and In pairs is chosen, else each player alone."""
        if len(players) == 4 and first(form, SETTING.format("mode")) == "pairs":
            return pairs(players)
        return super().sides_from_form(form, players)

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """A hand from the entry form: per side (numbered in seat order) table, hand, clean, dirty; the closer."""
        sides = self.rules.sides(players, settings)
        extra = extra_field(form, "sides")
        entries = {
            side: {**extra["sides"].get(side, {}), **self.row_from_form(form, None, position)}
            for position, side in enumerate(sides)
        }
        closer = first(form, "closed_by")
        if closer is None:
            raise RuleError(N_("tap who closed the hand, or Nobody"), field="closed_by")
        if closer and closer not in sides:
            raise RuleError(
                N_("%(value)s is not one of %(names)s", value=show(closer), names=", ".join(sides)), field="closed_by"
            )
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
        for number, side in enumerate(self.rules.sides(players, settings), start=1):
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

    def match_view(self, replay: Replay) -> dict[str, Any]:
        """The scoring sides, who deals the next hand and the side they play for."""
        dealer = self.rules.dealer(replay)
        return {
            "sides": self.rules.sides(replay.players, replay.settings),
            "dealer": dealer,
            "dealer_side": None if dealer is None else self.rules.side_of(replay.settings, dealer),
        }
