"""Every error a match file can hold: the message names the round, the player or field, and the fault."""

from __future__ import annotations

import pytest

from companion.games import FORMAT, score_match
from companion.games.refusals import RuleError

P2 = ["Ann", "Bob"]
FOUR = ["Ann", "Bob", "Cy", "Di"]
PAIRS = {"Noi": ["Ann", "Cy"], "Voi": ["Bob", "Di"]}


def row(used=(5, 5), unused=6) -> dict:
    return {"used": list(used), "unused": unused}


def pp(**rows) -> dict:
    """A Pazzaparola round: Ann and Bob with a default row unless given."""
    return {"rows": {"Ann": row(), "Bob": row(), **rows}}


def side(table=0, hand=0, clean=0, dirty=0) -> dict:
    return {"table": table, "hand": hand, "clean": clean, "dirty": dirty}


def bu(closed_by=None, **sides) -> dict:
    return {"sides": {"Ann": side(), "Bob": side(), **sides}, "closed_by": closed_by}


OK_PP, OK_BU, OK_TOPIC, OK_PAZAAK = pp(), bu(), {"losers": ["Ann"]}, {"winner": None}

# (game, players, settings, rounds, expected str(error), round, field)
CASES = [
    # --- Pazzaparola settings and rounds
    (
        "pazzaparola",
        P2,
        {"cards": 0},
        [],
        "cards: cards per player must be a whole number from 1 to 20, got 0",
        None,
        "cards",
    ),
    (
        "pazzaparola",
        P2,
        {"target": True},
        [],
        "target: victory points to win must be a whole number from 1 to 20, got true",
        None,
        "target",
    ),
    ("pazzaparola", P2, {"eldest": "Cy"}, [], 'eldest: "Cy" is not one of Ann, Bob', None, "eldest"),
    (
        "pazzaparola",
        P2,
        {},
        [OK_PP, pp(Bob=row((5, 5, 1), 6))],
        "round 2: Bob: 9 cards in the rows, but each player has 8",
        2,
        "Bob",
    ),
    (
        "pazzaparola",
        P2,
        {},
        [pp(Ann=row((5,), 6))],
        "round 1: Ann: 7 cards in the rows, but each player has 8",
        1,
        "Ann",
    ),
    (
        "pazzaparola",
        P2,
        {},
        [pp(Ann=row((5, 100), 6))],
        "round 1: Ann: card 2 of the upper row must be a whole number from 0 to 99, got 100",
        1,
        "Ann",
    ),
    (
        "pazzaparola",
        P2,
        {},
        [pp(Ann=row((5, 2.5), 6))],
        "round 1: Ann: card 2 of the upper row must be a whole number from 0 to 99, got 2.5",
        1,
        "Ann",
    ),
    (
        "pazzaparola",
        P2,
        {},
        [pp(Ann=row((5, -1), 6))],
        "round 1: Ann: card 2 of the upper row must be a whole number from 0 to 99, got -1",
        1,
        "Ann",
    ),
    (
        "pazzaparola",
        P2,
        {},
        [pp(Ann=row((5, 5), 6.0))],
        "round 1: Ann: unused (cards in the lower row) must be a whole number of at least 0, got 6.0",
        1,
        "Ann",
    ),
    (
        "pazzaparola",
        P2,
        {},
        [pp(Ann={"used": [1]})],
        'round 1: Ann: a row needs both "used" (card points) and "unused" (a count)',
        1,
        "Ann",
    ),
    (
        "pazzaparola",
        P2,
        {},
        [pp(Ann={**row(), "word": 7})],
        "round 1: Ann: the word must be text, got 7",
        1,
        "Ann",
    ),
    ("pazzaparola", P2, {}, [pp(Ann=[1, 2])], "round 1: Ann: a row must be an object, got [1, 2]", 1, "Ann"),
    (
        "pazzaparola",
        P2,
        {},
        [{"rows": {"Ann": row()}}],
        "round 1: Bob: no entry in rows, but every player needs one",
        1,
        "Bob",
    ),
    ("pazzaparola", P2, {}, [pp(Cy=row())], 'round 1: rows: "Cy" is not one of Ann, Bob', 1, "rows"),
    (
        "pazzaparola",
        P2,
        {},
        [{"rows": {"Ann": row(), "ann": row(), "Bob": row()}}],
        "round 1: Ann: two entries in rows for the same player",
        1,
        "Ann",
    ),
    (
        "pazzaparola",
        P2,
        {},
        [{"theme": 3, **pp()}],
        "round 1: theme: the theme must be text, got 3",
        1,
        "theme",
    ),
    ("pazzaparola", P2, {}, [{"theme": "x"}], "round 1: rows: missing; every player needs a row", 1, "rows"),
    ("pazzaparola", P2, {}, [OK_PP, "Ann 18"], 'round 2: a round must be an object, got "Ann 18"', 2, None),
    (
        "pazzaparola",
        P2,
        {"target": 1},
        [OK_PP, OK_PP],
        "round 2: the game was already over after round 1",
        2,
        None,
    ),
    # --- Burraco
    (
        "burraco",
        P2,
        {"target": 0},
        [],
        "target: the target must be a whole number of at least 1, got 0",
        None,
        "target",
    ),
    (
        "burraco",
        P2,
        {"hands": 0},
        [],
        "hands: the number of hands must be a whole number of at least 1, got 0",
        None,
        "hands",
    ),
    (
        "burraco",
        P2,
        {"clean": -1},
        [],
        "clean: the clean burraco bonus must be a whole number of at least 0, got -1",
        None,
        "clean",
    ),
    (
        "burraco",
        P2,
        {"dirty": "100"},
        [],
        'dirty: the dirty burraco bonus must be a whole number of at least 0, got "100"',
        None,
        "dirty",
    ),
    (
        "burraco",
        P2,
        {"closing": 1.5},
        [],
        "closing: the closing bonus must be a whole number of at least 0, got 1.5",
        None,
        "closing",
    ),
    (
        "burraco",
        ["Ann", "Cy", "Bob", "Di"],
        {"teams": PAIRS},
        [],
        (
            "teams: partners sit opposite, so the seat order must alternate the teams "
            "(Ann (Noi), Cy (Noi), Bob (Voi), Di (Voi) does not)"
        ),
        None,
        "teams",
    ),
    (
        "burraco",
        P2,
        {},
        [OK_BU, bu(Bob=side(hand=-5))],
        "round 2: Bob: hand (points left in hand) must be a whole number of at least 0, got -5",
        2,
        "Bob",
    ),
    (
        "burraco",
        P2,
        {},
        [bu(Ann=side(table=-1))],
        "round 1: Ann: table (points laid down) must be a whole number of at least 0, got -1",
        1,
        "Ann",
    ),
    (
        "burraco",
        P2,
        {},
        [bu(Ann=side(clean=True))],
        "round 1: Ann: clean (clean burraco made) must be a whole number of at least 0, got true",
        1,
        "Ann",
    ),
    (
        "burraco",
        P2,
        {},
        [bu(Ann=side(dirty=-1))],
        "round 1: Ann: dirty (dirty burraco made) must be a whole number of at least 0, got -1",
        1,
        "Ann",
    ),
    (
        "burraco",
        P2,
        {},
        [bu(Ann={"table": 3})],
        'round 1: Ann: an entry needs "table" and "hand" points',
        1,
        "Ann",
    ),
    (
        "burraco",
        P2,
        {},
        [{"sides": {"Ann": side()}}],
        "round 1: Bob: no entry in sides, but every side needs one",
        1,
        "Bob",
    ),
    (
        "burraco",
        P2,
        {},
        [{"closed_by": None}],
        "round 1: sides: missing; every side needs an entry",
        1,
        "sides",
    ),
    (
        "burraco",
        P2,
        {},
        [bu("Ann", Ann=side(100, 0))],
        "round 1: Ann: closed the hand without having made a burraco",
        1,
        "Ann",
    ),
    (
        "burraco",
        P2,
        {},
        [bu("Bob", Bob=side(100, 12, dirty=1))],
        "round 1: Bob: closed the hand but holds 12 points in hand (must be 0)",
        1,
        "Bob",
    ),
    ("burraco", P2, {}, [bu("Cy")], 'round 1: closed_by: "Cy" is not one of Ann, Bob', 1, "closed_by"),
    ("burraco", FOUR, {"teams": PAIRS}, [bu()], 'round 1: sides: "Ann" is not one of Noi, Voi', 1, "sides"),
    (
        "burraco",
        P2,
        {"hands": 1},
        [OK_BU, OK_BU],
        "round 2: the game was already over after round 1",
        2,
        None,
    ),
    # --- Topic
    (
        "topic",
        P2,
        {"length": "epic"},
        [],
        'length: must be "short", "medium" or "long", got "epic"',
        None,
        "length",
    ),
    ("topic", P2, {"deck": 1}, [], "deck: the deck must be a whole number from 2 to 72, got 1", None, "deck"),
    (
        "topic",
        P2,
        {"deck": 73},
        [],
        "deck: the deck must be a whole number from 2 to 72, got 73",
        None,
        "deck",
    ),
    (
        "topic",
        P2,
        {},
        [OK_TOPIC, {"losers": []}],
        "round 2: losers: names no one; at least one is needed",
        2,
        "losers",
    ),
    ("topic", P2, {}, [{"losers": ["Ann", "ann"]}], "round 1: losers: Ann is listed twice", 1, "losers"),
    ("topic", P2, {}, [{"losers": ["Cy"]}], 'round 1: losers: "Cy" is not one of Ann, Bob', 1, "losers"),
    (
        "topic",
        P2,
        {},
        [{"losers": "Ann"}],
        'round 1: losers: must be a list of names, got "Ann"',
        1,
        "losers",
    ),
    (
        "topic",
        P2,
        {},
        [{"penalties": ["Ann"]}],
        "round 1: losers: missing; every round has at least one loser",
        1,
        "losers",
    ),
    (
        "topic",
        P2,
        {},
        [{"losers": ["Ann"], "penalties": ["Zed"]}],
        'round 1: penalties: "Zed" is not one of Ann, Bob',
        1,
        "penalties",
    ),
    (
        "topic",
        P2,
        {"deck": 2},
        [OK_TOPIC, OK_TOPIC],
        "round 2: the game was already over after round 1",
        2,
        None,
    ),
    # --- Pazaak
    (
        "pazaak",
        P2,
        {"sets": 0},
        [],
        "sets: the set wins needed must be a whole number from 1 to 10, got 0",
        None,
        "sets",
    ),
    (
        "pazaak",
        P2,
        {},
        [OK_PAZAAK, {"winner": "Cy"}],
        'round 2: winner: "Cy" is not one of Ann, Bob',
        2,
        "winner",
    ),
    (
        "pazaak",
        P2,
        {},
        [{}],
        'round 1: winner: a set needs a "winner" (null for a tie) or the table "totals"',
        1,
        "winner",
    ),
    (
        "pazaak",
        P2,
        {},
        [{"totals": {"Ann": 22, "Bob": 23}}],
        "round 1: totals: both players are over 20; only one can bust",
        1,
        "totals",
    ),
    (
        "pazaak",
        P2,
        {},
        [{"totals": {"Ann": 12, "Bob": 13}, "filled": ["Ann", "Bob"]}],
        "round 1: filled: both players are listed; only one can fill the table first",
        1,
        "filled",
    ),
    (
        "pazaak",
        P2,
        {},
        [{"totals": {"Ann": 19, "Bob": 22}, "winner": "Bob"}],
        'round 1: winner: says "Bob", but by the totals Ann wins (bust)',
        1,
        "winner",
    ),
    (
        "pazaak",
        P2,
        {},
        [{"totals": {"Ann": 19, "Bob": 19}, "winner": "Ann"}],
        'round 1: winner: says "Ann", but by the totals the set is tied',
        1,
        "winner",
    ),
    (
        "pazaak",
        P2,
        {},
        [{"totals": {"Ann": 18, "Bob": 19}, "winner": None}],
        "round 1: winner: says null, but by the totals Bob wins (outscore)",
        1,
        "winner",
    ),
    (
        "pazaak",
        P2,
        {},
        [{"totals": {"Ann": 18}}],
        "round 1: Bob: no entry in totals, but every player needs one",
        1,
        "Bob",
    ),
    (
        "pazaak",
        P2,
        {},
        [{"totals": {"Ann": 18, "Bob": 1.5}}],
        "round 1: Bob: the table total must be a whole number, got 1.5",
        1,
        "Bob",
    ),
    (
        "pazaak",
        P2,
        {},
        [{"totals": {"Ann": 18, "Bob": 17}, "tiebreaker": "Cy"}],
        'round 1: tiebreaker: "Cy" is not one of Ann, Bob',
        1,
        "tiebreaker",
    ),
    (
        "pazaak",
        P2,
        {},
        [{"totals": {"Ann": 18, "Bob": 17}, "filled": ["Bob", "Bob"]}],
        "round 1: filled: Bob is listed twice",
        1,
        "filled",
    ),
    (
        "pazaak",
        P2,
        {"sets": 1},
        [{"winner": "Ann"}, OK_PAZAAK],
        "round 2: the game was already over after round 1",
        2,
        None,
    ),
]


@pytest.mark.parametrize(
    "game, players, settings, rounds, message, round, field", CASES, ids=[c[4][:60] for c in CASES]
)
def test_error_message(game, players, settings, rounds, message, round, field):
    data = {"format": FORMAT, "game": game, "players": players, "settings": settings, "rounds": rounds}
    with pytest.raises(RuleError) as caught:
        score_match(data)
    assert str(caught.value) == message
    assert (caught.value.round, caught.value.field) == (round, field)
    prefix = ": ".join([*([f"round {round}"] if round else []), *([field] if field else [])])
    assert str(caught.value) == (f"{prefix}: {caught.value.reason}" if prefix else caught.value.reason)
