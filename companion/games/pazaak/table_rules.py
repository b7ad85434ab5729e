"""The Pazaak set calculator: each player's table of cards, turns, stand, bust, nine cards, tiebreaker.

A pure state machine: `apply(state, action)` returns a new `TableState`; `to_dict`/`from_dict`
round-trip it through JSON (the page keeps it in a hidden field). Actions are dicts:

    {"type": "draw", "value": 1..10}                 main-deck card (first thing in every turn)
    {"type": "plus", "value": 1..6}                  side card +n
    {"type": "minus", "value": 1..6}                 side card −n
    {"type": "plusminus", "value": 1..6, "sign": "+" | "-"}
    {"type": "plusminus12", "value": 1 | 2, "sign": "+" | "-"}
    {"type": "flip", "pair": "2&4" | "3&6"}
    {"type": "double"}
    {"type": "tiebreaker", "sign": "+" | "-"}
    {"type": "end_turn"}   {"type": "stand"}

Any action may name its "player"; the move is then refused unless it is that player's turn.
`play_from_hand` is `apply` for a player whose hand cards are recorded: each of them once a match.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, replace
from typing import Any

from ..checks import name_key, show
from ..refusals import N_, Message
from .rules import HAND_CARDS, LIMIT, decide_set

TABLE_SIZE = 9
FLIPS = {"2&4": (2, 4), "3&6": (3, 6)}
SIDE_TYPES = ("plus", "minus", "plusminus", "plusminus12", "flip", "double", "tiebreaker")
ACTIONS = ("draw", *SIDE_TYPES, "end_turn", "stand")
MINUS = "\u2212"
# What the value refusal calls each numbered card: words translated, signs as printed.
CARD_KINDS: dict[str, str | Message] = {
    "draw": N_("main-deck"),
    "plus": N_("plus"),
    "minus": N_("minus"),
    "plusminus": "\u00b1",
    "plusminus12": "\u00b11/2",
}
# Between a held card and what it was played as, in a played card's label ("±4→−4").
ARROW = "\u2192"


class TableError(ValueError):
    """A move the rules forbid, or a damaged state.

    `message` is the reason for the player, untranslated (see Message); `str()` is its English.
    """

    def __init__(self, reason: str | Message):
        self.message = reason if isinstance(reason, Message) else Message(reason)
        super().__init__(str(self.message))


@dataclass(frozen=True)
class Card:
    """A card on a table: `face` is the printed number flips look at, `value` its current signed worth."""

    label: str
    kind: str
    face: int
    value: int
    hand: str | None = None  # the hand card it used up (settings["hands"] label), for side cards

    def to_dict(self) -> dict[str, Any]:
        """The card as plain JSON."""
        return asdict(self)


@dataclass(frozen=True)
class Seat:
    """One player's side of the table."""

    name: str
    cards: tuple[Card, ...] = ()
    stood: bool = False

    @property
    def total(self) -> int:
        """The sum of the cards' current values."""
        return sum(card.value for card in self.cards)

    @property
    def tiebreaker(self) -> bool:
        """Whether this player has played the Tiebreaker card this set."""
        return any(card.hand == "T\u00b11" for card in self.cards)


@dataclass(frozen=True)
class TableState:
    """One set in progress: whose turn, what they have done this turn, and both tables."""

    seats: tuple[Seat, Seat]
    starter: int = 0
    turn: int = 0
    drawn: bool = False
    side_played: bool = False
    over: bool = False

    @property
    def players(self) -> list[str]:
        """The two names, in seat order."""
        return [seat.name for seat in self.seats]

    def to_dict(self) -> dict[str, Any]:
        """The state as plain JSON."""
        return {
            "players": self.players,
            "starter": self.starter,
            "turn": self.turn,
            "drawn": self.drawn,
            "side_played": self.side_played,
            "over": self.over,
            "tables": [{"cards": [c.to_dict() for c in s.cards], "stood": s.stood} for s in self.seats],
        }

    @classmethod
    def from_dict(cls, data: Any) -> TableState:
        """A state read back from JSON; anything malformed is refused, never guessed."""
        try:
            players, tables = data["players"], data["tables"]
            if len(players) != 2 or len(tables) != 2 or not all(isinstance(p, str) for p in players):
                raise TypeError
            seats = tuple(
                Seat(name, tuple(_card(c) for c in table["cards"]), _flag(table["stood"]))
                for name, table in zip(players, tables, strict=True)
            )
            state = cls(
                seats=seats,  # type: ignore[arg-type]
                starter=_seat_index(data["starter"]),
                turn=_seat_index(data["turn"]),
                drawn=_flag(data["drawn"]),
                side_played=_flag(data["side_played"]),
                over=_flag(data["over"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise TableError(N_("the calculator state is damaged; start the set again")) from None
        return state


def _flag(value: Any) -> bool:
    """A JSON boolean, strictly."""
    if not isinstance(value, bool):
        raise TypeError
    return value


def _seat_index(value: Any) -> int:
    """0 or 1, strictly."""
    if value not in (0, 1) or isinstance(value, bool):
        raise ValueError
    return int(value)


def _card(data: Any) -> Card:
    """A card read back from JSON."""
    card = Card(data["label"], data["kind"], data["face"], data["value"], data.get("hand"))
    numbers_ok = all(isinstance(n, int) and not isinstance(n, bool) for n in (card.face, card.value))
    if not (isinstance(card.label, str) and card.kind in ("main", "side") and numbers_ok):
        raise ValueError
    return card


def new_table(players: list[str], starter: int = 0) -> TableState:
    """An empty table for a new set; `starter` (0 or 1) is the seat that plays first."""
    if len(players) != 2:
        raise TableError(N_("Pazaak is played by exactly 2 players"))
    return TableState(seats=(Seat(players[0]), Seat(players[1])), starter=starter, turn=starter)


def apply(state: TableState, action: dict[str, Any]) -> TableState:
    """The state after one tap; a move the rules forbid raises TableError with the reason."""
    if not isinstance(action, dict) or action.get("type") not in ACTIONS:
        raise TableError(N_("unknown move; the moves are %(moves)s", moves=", ".join(ACTIONS)))
    if state.over:
        raise TableError(N_("the set is over"))
    _check_player(state, action.get("player"))
    kind = action["type"]
    if kind == "draw":
        if state.drawn:
            raise TableError(
                N_("%(name)s: one main-deck card per turn, and it is already drawn", name=state.players[state.turn])
            )
        card = Card(str(value := _number(action, 1, 10)), "main", value, value)
        return _place(replace(state, drawn=True), card)
    if not state.drawn:
        raise TableError(N_("%(name)s: draw a main-deck card first", name=state.players[state.turn]))
    if kind == "end_turn":
        return _end_turn(state, stand=False)
    if kind == "stand":
        return _end_turn(state, stand=True)
    if state.side_played:
        raise TableError(N_("%(name)s: only one side card per turn", name=state.players[state.turn]))
    if len(state.seats[state.turn].cards) >= TABLE_SIZE:
        raise TableError(N_("%(name)s: the table is full (%(n)s cards)", name=state.players[state.turn], n=TABLE_SIZE))
    seat = state.seats[state.turn]
    state = replace(state, side_played=True)
    if kind == "flip":
        return _place(_with_seat(state, _flipped(seat, _pair(action))), _flip_card(action))
    return _place(state, _side_card(kind, action, seat))


def _check_player(state: TableState, player: Any) -> None:
    """Refuse a move by a player who has stood or whose turn it is not."""
    if player is None:
        return
    names = state.players
    keys = [name_key(n) for n in names]
    if not isinstance(player, str) or name_key(player) not in keys:
        raise TableError(N_("%(player)s is not playing this set", player=show(player)))
    seat = state.seats[keys.index(name_key(player))]
    if seat.stood:
        raise TableError(N_("%(name)s has stood", name=seat.name))
    if seat.name != names[state.turn]:
        raise TableError(N_("it is %(name)s's turn", name=names[state.turn]))


def _number(action: dict[str, Any], lo: int, hi: int) -> int:
    """The action's card value, a whole number in [lo, hi]."""
    value = action.get("value")
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise TableError(
            N_(
                "a %(card)s card's value is a whole number from %(lo)s to %(hi)s",
                card=CARD_KINDS[action["type"]],
                lo=lo,
                hi=hi,
            )
        )
    return value


def _sign(action: dict[str, Any]) -> int:
    """+1 or −1 from the action's "sign"."""
    sign = action.get("sign")
    if sign == "+":
        return 1
    if sign in ("-", MINUS):
        return -1
    raise TableError(N_("choose the sign: + or -"))


def signed(number: int) -> str:
    """'+3' or '−3', with a true minus sign as printed on the cards."""
    return f"+{number}" if number >= 0 else f"{MINUS}{-number}"


def _pair(action: dict[str, Any]) -> tuple[int, int]:
    """The faces a flip card turns over."""
    if not isinstance(action.get("pair"), str) or action["pair"] not in FLIPS:
        raise TableError(N_("a flip card is 2&4 or 3&6"))
    return FLIPS[action["pair"]]


def _flip_card(action: dict[str, Any]) -> Card:
    """The flip card itself, which counts 0."""
    label = f"Flip {action['pair']}"
    return Card(label, "side", 0, 0, label)


def _side_card(kind: str, action: dict[str, Any], seat: Seat) -> Card:
    """The card a plus, minus, ±, ±1/2, Double or Tiebreaker side card puts on the table."""
    if kind == "plus":
        n = _number(action, 1, 6)
        return Card(f"+{n}", "side", n, n, f"+{n}")
    if kind == "minus":
        n = _number(action, 1, 6)
        return Card(f"{MINUS}{n}", "side", n, -n, f"{MINUS}{n}")
    if kind in ("plusminus", "plusminus12"):
        n = _number(action, 1, 6 if kind == "plusminus" else 2)
        held = f"\u00b1{n}" if kind == "plusminus" else "\u00b11/2"
        value = _sign(action) * n
        return Card(f"{held}\u2192{signed(value)}", "side", n, value, held)
    if kind == "tiebreaker":
        value = _sign(action)
        return Card(f"T\u00b11\u2192{signed(value)}", "side", 1, value, "T\u00b11")
    if not seat.cards:
        raise TableError(N_("%(name)s: nothing to double", name=seat.name))
    last = seat.cards[-1]
    # The copy keeps the doubled card's face, so a later flip of that face flips both.
    return Card("D", "side", last.face, last.value, "D")


def _flipped(seat: Seat, faces: tuple[int, int]) -> Seat:
    """The seat with every card of those faces turned to the other sign."""
    cards = tuple(replace(c, value=-c.value) if c.face in faces else c for c in seat.cards)
    return replace(seat, cards=cards)


def _with_seat(state: TableState, seat: Seat) -> TableState:
    """The state with the current player's seat replaced."""
    seats = list(state.seats)
    seats[state.turn] = seat
    return replace(state, seats=tuple(seats))  # type: ignore[arg-type]


def _place(state: TableState, card: Card) -> TableState:
    """Put a card on the current player's table; nine cards within 20 win, exactly 20 stands."""
    seat = state.seats[state.turn]
    seat = replace(seat, cards=(*seat.cards, card))
    state = _with_seat(state, seat)
    if len(seat.cards) == TABLE_SIZE and seat.total <= LIMIT:
        return replace(state, over=True)
    if seat.total == LIMIT:
        return _end_turn(state, stand=True)
    return state


def _end_turn(state: TableState, *, stand: bool) -> TableState:
    """End the turn: over 20 is a bust; otherwise play passes to whoever has not stood."""
    seat = state.seats[state.turn]
    if seat.total > LIMIT:
        return replace(state, over=True)
    if stand:
        state = _with_seat(state, replace(seat, stood=True))
    waiting = [i for i in (1 - state.turn, state.turn) if not state.seats[i].stood]
    if not waiting:
        return replace(state, over=True)
    return replace(state, turn=waiting[0], drawn=False, side_played=False)


def totals(state: TableState) -> dict[str, int]:
    """Each player's current sum."""
    return {seat.name: seat.total for seat in state.seats}


def result(state: TableState) -> dict[str, Any] | None:
    """None while the set runs; then the engine's table-totals round form, which decides it."""
    if not state.over:
        return None
    holders = [seat.name for seat in state.seats if seat.tiebreaker]
    return {
        "totals": totals(state),
        "filled": [s.name for s in state.seats if len(s.cards) == TABLE_SIZE and s.total <= LIMIT],
        # Both players holding a tiebreaker cancel out: the engine's form names one holder or none.
        "tiebreaker": holders[0] if len(holders) == 1 else None,
    }


def outcome(state: TableState) -> dict[str, Any] | None:
    """None while the set runs; then {"winner": name or None, "how": bust|filled|outscore|tiebreaker|tie}."""
    form = result(state)
    if form is None:
        return None
    winner, how = decide_set(state.players, form["totals"], form["filled"], form["tiebreaker"])
    return {"winner": winner, "how": how}


def replay(players: list[str], starter: int, moves: list[Any]) -> TableState:
    """The table after these moves from an empty one; each move is checked again by the rules."""
    state = new_table(players, starter)
    for move in moves:
        state = apply(state, move)
    return state


def play_from_hand(
    state: TableState, action: dict[str, Any], hand: list[str], played: Counter
) -> TableState:
    """`apply`, for a mover whose hand is recorded: a side card must be one of `hand` not yet played.

    `played` counts the hand cards the mover has used in earlier sets and on this table. The
    move's own rules are checked first, so a player who has stood hears that, not this.
    """
    after = apply(state, action)
    if not hand:
        return after
    mover = state.seats[state.turn]
    placed = after.seats[state.turn].cards
    card = placed[-1].hand if len(placed) > len(mover.cards) else None
    if card is None:
        return after
    if card not in hand:
        raise TableError(
            N_("%(card)s is not in %(name)s's hand (%(hand)s)", card=card, name=mover.name, hand=", ".join(hand))
        )
    if played[card] >= hand.count(card):
        raise TableError(
            N_(
                "%(name)s has played %(card)s already: each hand card is played once a match",
                name=mover.name,
                card=card,
            )
        )
    return after


def held_label(label: Any) -> str | None:
    """The hand card a played card's label used up ("±4→−4" → "±4"), None for a main-deck card."""
    if not isinstance(label, str):
        return None
    held = label.split(ARROW)[0]
    return held if held in HAND_CARDS else None


def played_hand_cards(rounds: list[dict[str, Any]], state: TableState) -> dict[str, Counter]:
    """How many of each hand card every player has played: the stored sets' `cards`, then this table."""
    keys = {name_key(name): name for name in state.players}
    used: dict[str, Counter] = {name: Counter() for name in state.players}
    for round in rounds:
        cards = round.get("cards") if isinstance(round, dict) else None
        entries = cards.items() if isinstance(cards, dict) else ()
        for who, labels in entries:
            name = keys.get(name_key(who)) if isinstance(who, str) else None
            if name and isinstance(labels, list):
                used[name].update(filter(None, map(held_label, labels)))
    for seat in state.seats:
        used[seat.name].update(card.hand for card in seat.cards if card.hand)
    return used
