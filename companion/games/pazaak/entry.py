"""Pazaak's entry adapter: set wins and hand cards on the new-match form, the set calculator's
buttons and the fields of a set, read into rounds and back."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from ..base import Replay, Standings
from ..checks import name_key, show
from ..entry import Entry
from ..forms import BOARD_FIELD, KEPT_FIELD, first, index_in, json_field, read_json, values, whole_number
from ..refusals import N_, Message, Np_, RuleError
from .rules import HAND_CARDS, HAND_SIZE, LIMIT, decide_set, hand_card
from .table_rules import (
    ARROW,
    MINUS,
    SIDE_TYPES,
    TABLE_SIZE,
    Card,
    TableError,
    TableState,
    held_label,
    new_table,
    outcome,
    play_from_hand,
    played_hand_cards,
    replay,
    result,
    signed,
)

# Form fields: one `hand:<name>` list per player on the new-match form; a round's seat-indexed fields.
HAND_FIELD = "hand:"
TIE = "tie"


def card_class(label: str) -> str:
    """The colour family of a side card: plus (blue), minus (red), pm (±, both) or gold."""
    if label.startswith("+"):
        return "plus"
    if label.startswith("\u2212"):
        return "minus"
    if label.startswith("\u00b1") and label != "\u00b11/2":
        return "pm"
    return "gold"



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

    def undone_line(self, number: int) -> Message:
        """The line after Undo: the set taken back."""
        return N_("Set %(n)s taken back.", n=number)

    def chart_label(self, rounds: int, totals: str) -> Message:
        """The chart's name for a screen reader, counting sets."""
        return Np_("Totals after %(num)s set: %(totals)s", "Totals after each of %(num)s sets: %(totals)s",
                   num=rounds, totals=totals)  # fmt: skip

    def replay_line(self, number: int, count: int) -> Message:
        """Where a finished match's replay stands, counting sets."""
        return N_("After set %(n)s of %(count)s", n=number, count=count)

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
        hands = {name: form_values(form, HAND_FIELD + name)[:HAND_SIZE] for name in players}
        picking = form_value(form, "pazaak_for")
        picking = picking if picking in hands else _with_room(hands, players)
        verb, _, arg = (form_value(form, "action") or "").partition(":")
        if verb == "pazaak-sets":
            base = sets if isinstance(sets, int) else setting.default
            sets = min(max(base + (1 if arg == "+1" else -1), setting.lo), setting.hi)
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
            card = _seat(position, hands[players[seat]]) if seat is not None else None
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
        return form_value(form, key) or ""

    @staticmethod
    def field_values(form: Any, key: str) -> list[str]:
        """Every value of a form field, for a template."""
        return form_values(form, key)

    def settings_from_form(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The raw settings from the new-match form: the declared set wins needed and any hand cards noted."""
        settings = self.read_settings(form)
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
            return set_round(form, players)
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

    def hand_from_form(
        self, form: Any, name: str, settings: dict[str, Any], hand: list[str], begun: bool
    ) -> list[str]:
        """The hand after a tap of the seated phone's hand picker: `card` adds a side card (up to four),
        `drop` (a position) takes one out, until the first set has begun. A hand the scorekeeper noted on the
        new-match form is the player's, not the phone's to change."""
        if (settings.get("hands") or {}).get(name):
            raise RuleError(N_("your hand was noted when the match was set up"), field="hand")
        drop = form_value(form, "drop")
        if drop is not None:
            position = index_in(drop, len(hand))
            if position is None:
                raise RuleError(N_("%(value)s is not a card of your hand", value=show(drop)), field="hand")
            if begun:
                raise RuleError(N_("your hand is fixed once the first set has begun"), field="hand")
            return hand[:position] + hand[position + 1 :]
        card = hand_card(form_value(form, "card"))
        if len(hand) >= HAND_SIZE:
            raise RuleError(N_("a hand holds %(n)s side cards", n=HAND_SIZE), field="hand")
        return [*hand, card]

    def step(self, form: Any, replay: Replay) -> dict[str, Any]:
        """The set calculator after the tap the form carries (see `calculator`)."""
        starter = self.rules.starter(replay)
        players = replay.players
        return calculator(
            form, players, replay.settings, replay.rounds, players.index(starter) if starter else 0
        )

    def match_view(self, replay: Replay) -> dict[str, Any]:
        """Who starts the next set."""
        return {"starter": self.rules.starter(replay)}

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


def form_values(form: Any, key: str) -> list[str]:
    """Every value posted under `key`."""
    return values(form, key)


def form_value(form: Any, key: str) -> str | None:
    """The first value posted under `key`, or None."""
    return first(form, key)


def _seat(text: str | None, players: list[str]) -> int | None:
    """A seat index sent by the page, or None when it names no seat."""
    return index_in(text, len(players))


def _named(text: str | None, players: list[str], field: str) -> str:
    """The player at a posted seat index."""
    seat = _seat(text, players)
    if seat is None:
        raise RuleError(N_("%(value)s is not a seat of this match", value=show(text)), field=field)
    return players[seat]


def _form_total(form: Any, seat: int, name: str) -> int:
    """A player's table total from the correction form."""
    text = form_value(form, f"total-{seat}")
    number = whole_number(text, signed=True)
    if number is None:
        raise RuleError(N_("the table total must be a whole number, got %(value)s", value=show(text)), field=name)
    return number


# What the refusal of an unreadable hidden field calls it.
JSON_FIELDS = {"extra": N_("the extra field"), "cards": N_("the cards field")}


def _json_field(form: Any, key: str, kind: type) -> Any:
    """A field carrying JSON of a given kind (empty when absent)."""
    return json_field(form, key, kind, JSON_FIELDS[key])


def _with_room(hands: dict[str, list[str]], players: list[str], after: str | None = None) -> str | None:
    """The next player (from `after`'s seat on, wrapping) whose hand has room for another card."""
    start = players.index(after) + 1 if after in players else 0
    for offset in range(len(players)):
        name = players[(start + offset) % len(players)]
        if len(hands[name]) < HAND_SIZE:
            return name
    return None



# --- the calculator on the match page ------------------------------------------------------
#
# The server keeps the set in progress with the match, as where it started and its moves: the view
# puts it in the form as `kept` (JSON, null when nothing is kept), never taking it from the page.
# The page draws the state (`table`) and the moves it shows (`moves`) in hidden fields and posts
# them with each tap (`move`, and `player`, a seat index, for a hand card): they tell whether the
# page still shows the set the server keeps. With no `kept` field at all (a form read without a
# server) the page's own moves are the set.

DAMAGED = N_("the calculator state is damaged; here is the set as it was kept")
CHANGED = N_("this set changed on another page or phone: here it is as it stands now")


def read_state(text: str | None, players: list[str]) -> TableState:
    """The state a page sent back, refused when damaged or belonging to other players."""
    try:
        state = TableState.from_dict(read_json(text or "", field="table"))
    except json.JSONDecodeError:
        raise TableError(DAMAGED) from None
    except TableError:
        raise TableError(DAMAGED) from None
    if [name_key(n) for n in state.players] != [name_key(n) for n in players]:
        raise TableError(DAMAGED)
    seats = tuple(replace(seat, name=name) for seat, name in zip(state.seats, players, strict=True))
    return replace(state, seats=seats)


def shown_moves(form: Any, players: list[str]) -> tuple[int, list[Any]] | None:
    """Where the set the page shows started and its moves (None when it sent no state).

    The table it draws must be the one its moves make: anything else is damaged.
    """
    text = form_value(form, "table")
    if not text:
        return None
    state = read_state(text, players)
    try:
        moves = read_json(form_value(form, "moves") or "[]", field="table")
        if not isinstance(moves, list) or replay(players, state.starter, moves) != state:
            raise TableError(DAMAGED)
    except (TableError, json.JSONDecodeError):
        raise TableError(DAMAGED) from None
    return state.starter, moves


def kept_moves(form: Any) -> tuple[int, list[Any]] | None:
    """The set the server keeps (start seat and moves), or None when it keeps none."""
    try:
        kept = read_json(form_value(form, KEPT_FIELD) or "null", field="table")
    except json.JSONDecodeError:
        return None
    if not isinstance(kept, dict) or kept.get("starter") not in (0, 1) or not isinstance(kept.get("moves"), list):
        return None
    return kept["starter"], kept["moves"]


def set_round(form: Any, players: list[str]) -> dict[str, Any]:
    """The finished set as the engine's table-totals round, plus the cards each player played.

    The set is the one the server keeps, when the form says what that is; a page showing
    another set is told so rather than saving what it shows.
    """
    try:
        if form_value(form, KEPT_FIELD) is None:
            state = read_state(form_value(form, "table"), players)
        else:
            shown, kept = shown_moves(form, players), kept_moves(form)
            if shown is not None and (kept or (shown[0], [])) != shown:
                raise TableError(CHANGED)
            state = replay(players, *(kept or (0, [])))
    except TableError as error:
        raise RuleError(error.message, field="table") from None
    finished = finished_set(state)
    if finished is None:
        raise RuleError(N_("the set is not over yet: play on until it is decided"), field="table")
    return finished


def finished_set(state: TableState) -> dict[str, Any] | None:
    """The set a table decided, as the engine's table-totals round plus the cards each player played (the
    cards played are seen by both players; the ones still in a hand are not in it); None while it is played."""
    decided = result(state)
    if decided is None:
        return None
    return {**decided, "cards": {seat.name: [card.label for card in seat.cards] for seat in state.seats}}


def seat_board(form: Any) -> dict[str, Any]:
    """What the view says this phone may see of the seated phones' hands (see BOARD_FIELD): its own seat, the
    hands it sees, and the size of each hand it may not see."""
    try:
        board = read_json(form_value(form, BOARD_FIELD) or "{}", field="table")
    except json.JSONDecodeError:
        board = {}
    board = board if isinstance(board, dict) else {}
    seat = board.get("seat")
    return {
        "seat": seat if seat in (0, 1) else None,
        "hands": board.get("hands") or {},
        "hidden": board.get("hidden") or {},
    }


def parse_move(move: str, player: str | None, players: list[str]) -> dict[str, Any]:
    """The action a button's `move` stands for ("draw:7", "plusminus:3:-", "flip:2&4", "stand" ...)."""
    kind, *args = move.split(":")
    try:
        if kind in ("draw", "plus", "minus"):
            action: dict[str, Any] = {"type": kind, "value": _move_value(args[0])}
        elif kind in ("plusminus", "plusminus12"):
            action = {"type": kind, "value": _move_value(args[0]), "sign": args[1]}
        elif kind == "tiebreaker":
            action = {"type": kind, "sign": args[0]}
        elif kind == "flip":
            action = {"type": kind, "pair": args[0]}
        else:
            action = {"type": kind}
    except (IndexError, ValueError):
        raise TableError(N_("unknown move %(move)s", move=show(move))) from None
    if player is not None:
        seat = _seat(player, players)
        if seat is None:
            raise TableError(N_("%(player)s is not playing this set", player=show(player)))
        action["player"] = players[seat]
    return action


def _move_value(text: str) -> int:
    """The card value a move names ("7" of "draw:7"); ValueError, an unknown move, when it names none."""
    value = whole_number(text, signed=True)
    if value is None:
        raise ValueError(text)
    return value


def card_moves(label: str) -> list[dict[str, str]]:
    """The buttons that play a side card: one, or one per sign (and value) it can be played as."""
    if label in ("D", "Flip 2&4", "Flip 3&6"):
        move = "double" if label == "D" else "flip:" + label.split()[1]
        aria = N_("Double") if label == "D" else Message(label)
        return [{"move": move, "text": label, "aria": aria, "cls": None}]
    if label == "T\u00b11":
        return [_sign_move("tiebreaker:{s}", "T", 1, sign) for sign in "+-"]
    if label == "\u00b11/2":
        return [_sign_move(f"plusminus12:{n}:{{s}}", label, n, sign) for sign in "+-" for n in (1, 2)]
    n = int(label[1:])
    if label.startswith("\u00b1"):
        return [_sign_move(f"plusminus:{n}:{{s}}", label, n, sign) for sign in "+-"]
    move = f"{'plus' if label.startswith('+') else 'minus'}:{n}"
    return [{"move": move, "text": label, "aria": Message(label), "cls": None}]


def _sign_move(pattern: str, name: str, n: int, sign: str) -> dict[str, str]:
    """The button of a card played with a chosen sign, e.g. "±3 as −3"; its label a message id for the page."""
    text = signed(n if sign == "+" else -n)
    # ± halves take the colour of the sign they play; gold cards keep their own.
    cls = None if name.startswith(("T", "\u00b11/2")) else ("plus" if sign == "+" else "minus")
    if name == "T":
        aria = N_("Tiebreaker as %(value)s", value=text)
    else:
        aria = N_("%(card)s as %(value)s", card=name, value=text)
    return {"move": pattern.replace("{s}", sign), "text": text, "aria": aria, "cls": cls}


PALETTE = [{"label": label, "cls": card_class(label), "moves": card_moves(label)} for label in HAND_CARDS]
KEYPAD = [{"move": f"draw:{n}", "text": str(n), "aria": N_("Draw %(n)s", n=n), "cls": "main"} for n in range(1, 11)]


def hand_view(hand: list[str], used: Counter) -> list[dict[str, Any]]:
    """A player's hand cards in order, each marked played while the count of that card lasts."""
    left = Counter(used)
    view = []
    for label in hand:
        played = left[label] > 0
        left[label] -= 1
        view.append({"label": label, "cls": card_class(label), "played": played, "moves": card_moves(label)})
    return view


def card_view(card: Card) -> dict[str, Any]:
    """How a card on the table is drawn: its current value big, what kind of card it is small."""
    if card.kind == "main":
        return {
            "big": signed(card.value) if card.value < 0 else str(card.value),
            "tag": None,
            "cls": "main",
            "flipped": card.value != card.face,
        }
    held = card.hand or held_label(card.label) or card.label
    if held.startswith("Flip"):
        return {"big": "\u21c4", "tag": held[5:], "cls": "gold", "flipped": False}
    played_as = card.label.split(ARROW)[-1]
    flipped = held != "D" and played_as != signed(card.value)
    tag = {"D": "D", "T\u00b11": "T"}.get(held, held if ARROW in card.label else None)
    return {"big": signed(card.value), "tag": tag, "cls": card_class(held), "flipped": flipped}


def calculator(
    form: Any, players: list[str], settings: dict[str, Any], rounds: list[dict[str, Any]], starter: int
) -> dict[str, Any]:
    """The calculator after the tap `form` carries: the new state, or the old one and the reason.

    `keep` in the answer, when the tap changed the set, is what the server is to keep now
    (`state`) in place of what it kept (`based_on`); null for either is an empty set.
    """
    # error: the refusal the page shows by the calculator (its `message` untranslated);
    # notice: the page showed another set than the one kept.
    error: TableError | None = None
    notice = None
    try:
        shown = shown_moves(form, players)
    except TableError as damaged:
        shown, error = None, damaged
    if form_value(form, KEPT_FIELD) is None:
        base = shown[1] if shown and shown[0] == starter else []
    else:
        kept = kept_moves(form)
        # A set kept for another starter belongs to a round since saved or taken back.
        base = kept[1] if kept and kept[0] == starter else []
        if error is None and shown is not None and shown != (starter, base):
            notice = CHANGED
    try:
        state = replay(players, starter, base)
    except TableError:
        state, base = new_table(players, starter), []
    moves = base
    board = seat_board(form)
    move = form_value(form, "move")
    if move and error is None and notice is None:
        try:
            state, moves = _played(state, moves, move, form, board, settings, rounds)
        except TableError as refused:
            error = refused
    view = _view(state, moves, error, settings, rounds, board)
    view["changed"] = notice is not None
    view["keep"] = None if moves == base else {
        "state": {"starter": starter, "moves": moves} if moves else None,
        "based_on": {"starter": starter, "moves": base} if base else None,
    }
    # A seated phone's board saves the set its tap decided (the scorekeeper's calculator has a Save button).
    view["finished"] = finished_set(state) if moves != base else None
    return view


def _played(
    state: TableState,
    moves: list[Any],
    move: str,
    form: Any,
    board: dict[str, Any],
    settings: dict[str, Any],
    rounds: list[dict[str, Any]],
) -> tuple[TableState, list[Any]]:
    """The table and its moves after one tap; a TableError says why the rules refuse it.

    On a seated phone's board every tap is its own seat's: it plays on its turn only, from the hand it noted,
    and takes back only a tap of its own. A hand noted on a seated phone is played from that phone alone.
    """
    players = state.players
    mine = None if board["seat"] is None else players[board["seat"]]
    if move == "undo":
        if not moves:
            raise TableError(N_("nothing to take back"))
        if mine is not None and moves[-1].get("player") != mine:
            raise TableError(N_("the last tap was not yours: only the phone that made it takes it back"))
        return replay(players, state.starter, moves[:-1]), moves[:-1]
    action = parse_move(move, str(board["seat"]) if mine is not None else form_value(form, "player"), players)
    mover = state.players[state.turn]
    if action["type"] in SIDE_TYPES and mover in board["hidden"]:
        raise TableError(N_("%(name)s plays their side cards on their own phone", name=mover))
    hand = board["hands"].get(mover) or (settings.get("hands") or {}).get(mover) or []
    state = play_from_hand(state, action, hand, played_hand_cards(rounds, state)[mover])
    return state, [*moves, action]


def _view(
    state: TableState,
    moves: list[Any],
    error: TableError | None,
    settings: dict[str, Any],
    rounds: list[dict[str, Any]],
    board: dict[str, Any],
) -> dict[str, Any]:
    """Everything the calculator template draws, worked out here so the template stays plain.

    A hand this phone may not see is drawn as the number of its cards not yet played, never as its cards.
    """
    used = played_hand_cards(rounds, state)
    hands = {**(settings.get("hands") or {}), **board["hands"]}
    hidden = board["hidden"]
    decided = outcome(state)
    seats = []
    for index, seat in enumerate(state.seats):
        filled = len(seat.cards) == TABLE_SIZE and seat.total <= LIMIT
        seats.append(
            {
                "index": index,
                "name": seat.name,
                "cards": [card_view(card) for card in seat.cards],
                "empty": TABLE_SIZE - len(seat.cards),
                "total": seat.total,
                "total_text": str(seat.total).replace("-", MINUS),
                "stood": seat.stood,
                "bust": state.over and seat.total > LIMIT,
                "filled": filled,
                "turn": not state.over and index == state.turn,
                "starter": index == state.starter,
                "hand": [] if seat.name in hidden else hand_view(hands.get(seat.name) or [], used[seat.name]),
                "hidden": _left_in(hidden[seat.name], used[seat.name]) if seat.name in hidden else None,
                "mine": index == board["seat"],
            }
        )
    current = seats[state.turn]
    last = moves[-1].get("player") if moves and isinstance(moves[-1], dict) else None
    return {
        "state": state,
        "table": json.dumps(state.to_dict(), ensure_ascii=False),
        "moves": json.dumps(moves, ensure_ascii=False),
        "error": error,
        "seats": seats,
        "current": current,
        "drawn": state.drawn,
        "side_played": state.side_played,
        "over": state.over,
        "outcome": decided,
        "loser": next((s for s in seats if decided and decided["winner"] and s["name"] != decided["winner"]), None),
        "can_take_back": bool(moves) and (board["seat"] is None or last == seats[board["seat"]]["name"]),
        "board": board["seat"] is not None,
        # A hand noted on a seated phone is fixed from the first tap of the match's first set.
        "begun": bool(rounds) or bool(moves),
        "my_turn": board["seat"] is not None and not state.over and state.turn == board["seat"],
        "palette": PALETTE,
        "hand_size": HAND_SIZE,
        "keypad": KEYPAD,
    }


def _left_in(size: Any, used: Counter) -> int:
    """How many cards of a hand of `size` (as the view sent it) are not played yet."""
    return max(0, (size if isinstance(size, int) else 0) - sum(used.values()))
