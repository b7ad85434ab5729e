"""Pazaak's set calculator on the match page: the set kept, read back from a page and played on tap by tap, and
everything its template draws (the table's cards, the hands, the keypad and the hand-card palette)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

from ..checks import name_key, show
from ..forms import BOARD_FIELD, KEPT_FIELD, first, index_in, read_json, whole_number
from ..refusals import N_, Message, RuleError
from .rules import HAND_CARDS, HAND_SIZE, LIMIT
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
    except (json.JSONDecodeError, TableError):
        raise TableError(DAMAGED) from None
    if [name_key(n) for n in state.players] != [name_key(n) for n in players]:
        raise TableError(DAMAGED)
    seats = tuple(replace(seat, name=name) for seat, name in zip(state.seats, players, strict=True))
    return replace(state, seats=seats)


def shown_moves(form: Any, players: list[str]) -> tuple[int, list[Any]] | None:
    """Where the set the page shows started and its moves (None when it sent no state).

    The table it draws must be the one its moves make: anything else is damaged.
    """
    text = first(form, "table")
    if not text:
        return None
    state = read_state(text, players)
    try:
        moves = read_json(first(form, "moves") or "[]", field="table")
        if not isinstance(moves, list) or replay(players, state.starter, moves) != state:
            raise TableError(DAMAGED)
    except (TableError, json.JSONDecodeError):
        raise TableError(DAMAGED) from None
    return state.starter, moves


def kept_moves(form: Any) -> tuple[int, list[Any]] | None:
    """The set the server keeps (start seat and moves), or None when it keeps none."""
    try:
        kept = read_json(first(form, KEPT_FIELD) or "null", field="table")
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
        if first(form, KEPT_FIELD) is None:
            state = read_state(first(form, "table"), players)
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
        board = read_json(first(form, BOARD_FIELD) or "{}", field="table")
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
        seat = index_in(player, len(players))
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


def card_class(label: str) -> str:
    """The colour family of a side card: plus (blue), minus (red), pm (±, both) or gold."""
    if label.startswith("+"):
        return "plus"
    if label.startswith("\u2212"):
        return "minus"
    if label.startswith("\u00b1") and label != "\u00b11/2":
        return "pm"
    return "gold"


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
    if first(form, KEPT_FIELD) is None:
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
    move = first(form, "move")
    if move and error is None and notice is None:
        try:
            state, moves = _played(state, moves, move, form, board, settings, rounds)
        except TableError as refused:
            error = refused
    view = _view(state, moves, error, settings, rounds, board)
    view["changed"] = notice is not None
    view["keep"] = (
        None
        if moves == base
        else {
            "state": {"starter": starter, "moves": moves} if moves else None,
            "based_on": {"starter": starter, "moves": base} if base else None,
        }
    )
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
    action = parse_move(move, str(board["seat"]) if mine is not None else first(form, "player"), players)
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
