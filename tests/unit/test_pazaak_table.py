"""Unit tests of the Pazaak set calculator: card arithmetic, turns, stand, bust, nine cards, tiebreaker."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from companion.games import get_game
from companion.games.pazaak.table_rules import (
    TableError,
    TableState,
    apply,
    new_table,
    outcome,
    play_from_hand,
    result,
    totals,
)

P = ["Ann", "Bob"]
PAZAAK = get_game("pazaak")


def draw(n: int, **kw) -> dict:
    return {"type": "draw", "value": n, **kw}


END = {"type": "end_turn"}
STAND = {"type": "stand"}
DOUBLE = {"type": "double"}


def flip(pair: str) -> dict:
    return {"type": "flip", "pair": pair}


def play(*actions: dict, state: TableState | None = None) -> TableState:
    """The state after these actions, from an empty table with Ann starting."""
    state = state or new_table(P)
    for action in actions:
        state = apply(state, action)
    return state


def values(state: TableState, seat: int = 0) -> list[int]:
    return [card.value for card in state.seats[seat].cards]


def engine_winner(form: dict) -> str | None:
    """The winner the scoring engine gives a set in table-totals form."""
    return PAZAAK.standings(P, {}, [form]).rounds[0]["winner"]


def test_flip_after_double_flips_the_copy_too():
    state = play(draw(2), DOUBLE, END, draw(5), END, draw(3), flip("2&4"))
    assert values(state) == [-2, -2, 3, 0]
    assert totals(state)["Ann"] == -1
    assert [c.label for c in state.seats[0].cards] == ["2", "D", "3", "Flip 2&4"]


def test_flip_turns_minus_cards_to_plus():
    state = play(draw(5), {"type": "minus", "value": 4}, END, draw(1), END, draw(2), flip("2&4"))
    assert values(state) == [5, 4, -2, 0]


def test_double_after_a_minus_card():
    # In play the Double follows the turn's draw; the state is built by hand to test the copy's sign.
    data = play(draw(7)).to_dict()
    data["tables"][0]["cards"].append(
        {"label": "\u22123", "kind": "side", "face": 3, "value": -3, "hand": "\u22123"}
    )
    state = apply(TableState.from_dict(data), DOUBLE)
    assert values(state) == [7, -3, -3]
    assert state.seats[0].cards[-1].face == 3
    assert totals(state)["Ann"] == 1


def test_double_copies_the_drawn_card():
    state = play(draw(9), DOUBLE)
    assert values(state) == [9, 9] and totals(state)["Ann"] == 18


def test_double_with_an_empty_table_is_refused():
    data = new_table(P).to_dict()
    data["drawn"] = True
    with pytest.raises(TableError, match="nothing to double"):
        apply(TableState.from_dict(data), DOUBLE)


def test_flip_with_nothing_to_flip():
    state = play(draw(5), flip("3&6"))
    assert values(state) == [5, 0] and totals(state)["Ann"] == 5
    assert state.seats[0].cards[-1].face == 0


@pytest.mark.parametrize(
    "action, label, value",
    [
        ({"type": "plus", "value": 3}, "+3", 3),
        ({"type": "minus", "value": 2}, "\u22122", -2),
        ({"type": "plusminus", "value": 4, "sign": "-"}, "\u00b14\u2192\u22124", -4),
        ({"type": "plusminus", "value": 6, "sign": "+"}, "\u00b16\u2192+6", 6),
        ({"type": "plusminus12", "value": 2, "sign": "-"}, "\u00b11/2\u2192\u22122", -2),
        ({"type": "tiebreaker", "sign": "+"}, "T\u00b11\u2192+1", 1),
    ],
)
def test_side_card_labels_and_values(action, label, value):
    card = play(draw(1), action).seats[0].cards[-1]
    assert (card.label, card.kind, card.value) == (label, "side", value)


@pytest.mark.parametrize(
    "action, words",
    [
        ({"type": "plus", "value": 7}, "from 1 to 6"),
        ({"type": "plusminus12", "value": 3, "sign": "+"}, "from 1 to 2"),
        ({"type": "plusminus", "value": 3}, "choose the sign"),
        ({"type": "flip", "pair": "1&5"}, "2&4 or 3&6"),
        ({"type": "shuffle"}, "unknown move"),
    ],
)
def test_bad_actions(action, words):
    with pytest.raises(TableError, match=words):
        play(draw(1), action)


def test_draw_value_range():
    with pytest.raises(TableError, match="from 1 to 10"):
        play(draw(11))
    with pytest.raises(TableError, match="from 1 to 10"):
        play(draw(True))


def test_turn_passes_and_totals():
    state = play(draw(6), END, draw(4))
    assert state.turn == 1 and totals(state) == {"Ann": 6, "Bob": 4}


def test_second_side_card_refused():
    with pytest.raises(TableError, match="^Ann: only one side card per turn$"):
        play(draw(3), {"type": "plus", "value": 1}, {"type": "plus", "value": 2})


def test_draw_comes_first_and_once():
    with pytest.raises(TableError, match="draw a main-deck card first"):
        play({"type": "plus", "value": 1})
    with pytest.raises(TableError, match="draw a main-deck card first"):
        play(STAND)
    with pytest.raises(TableError, match="already drawn"):
        play(draw(3), draw(4))


def test_card_after_standing_refused():
    state = play(draw(8), STAND)
    assert state.seats[0].stood and state.turn == 1
    with pytest.raises(TableError, match="^Ann has stood$"):
        apply(state, {"type": "plus", "value": 1, "player": "Ann"})
    with pytest.raises(TableError, match="^it is Bob's turn$"):
        apply(play(draw(8), END), draw(2, player="ann"))


def test_stood_players_turns_are_skipped():
    state = play(draw(8), STAND, draw(3), END, draw(4), END)
    assert state.turn == 1 and len(state.seats[1].cards) == 2 and not state.over


def test_auto_stand_at_twenty_after_a_draw():
    state = play(draw(10), END, draw(2), END, draw(10))
    assert state.seats[0].stood and state.turn == 1 and not state.over


def test_auto_stand_at_twenty_after_a_side_card():
    state = play(draw(7), END, draw(2), END, draw(10), {"type": "plus", "value": 3})
    assert state.seats[0].stood and totals(state)["Ann"] == 20 and state.turn == 1


# Ann reaches 23 with her third draw; Bob has 2.
TO_23 = [draw(9), END, draw(1), END, draw(9), END, draw(1), END, draw(5)]


def test_bust_at_end_of_turn():
    state = play(*TO_23)
    assert not state.over  # over 20 mid-turn is not yet a bust
    state = apply(state, END)
    assert state.over
    assert result(state) == {"totals": {"Ann": 23, "Bob": 2}, "filled": [], "tiebreaker": None}
    assert outcome(state) == {"winner": "Bob", "how": "bust"}
    assert engine_winner(result(state)) == "Bob"


def test_a_minus_card_saves_from_a_bust():
    state = play(*TO_23, {"type": "minus", "value": 6}, END)
    assert not state.over and totals(state)["Ann"] == 17


def test_standing_over_twenty_is_a_bust():
    state = play(*TO_23, STAND)
    assert state.over and outcome(state)["winner"] == "Bob"


def nine_for_ann(last: int = 1) -> list[dict]:
    """Ann draws eight 1s and then `last`; Bob keeps drawing 1s in between."""
    actions: list[dict] = []
    for n in [1] * 8:
        actions += [draw(n), END, draw(1), END]
    return [*actions, draw(last)]


def test_nine_cards_without_bust_win_even_when_behind():
    state = play(*nine_for_ann())
    assert state.over and len(state.seats[0].cards) == 9
    assert result(state) == {"totals": {"Ann": 9, "Bob": 8}, "filled": ["Ann"], "tiebreaker": None}
    assert outcome(state) == {"winner": "Ann", "how": "filled"}
    assert engine_winner(result(state)) == "Ann"


def test_ninth_card_over_twenty_fills_nothing():
    actions = [a for _ in range(7) for a in (draw(1), END, draw(1), END)]
    state = play(*actions, draw(10), END, draw(1), END, draw(10))  # Ann: 7 + 10 + 10 = 27 on 9 cards
    assert len(state.seats[0].cards) == 9 and not state.over
    with pytest.raises(TableError, match="the table is full"):
        apply(state, {"type": "minus", "value": 6})
    state = apply(state, END)
    assert outcome(state) == {"winner": "Bob", "how": "bust"}
    assert result(state)["filled"] == []


def test_set_over_refuses_more():
    state = play(*nine_for_ann())
    with pytest.raises(TableError, match="the set is over"):
        apply(state, draw(1))


def test_both_stand_higher_wins():
    state = play(draw(9), STAND, draw(10), {"type": "plus", "value": 6}, STAND)
    assert state.over and outcome(state) == {"winner": "Bob", "how": "outscore"}
    assert totals(state) == {"Ann": 9, "Bob": 16}
    assert engine_winner(result(state)) == "Bob"


def test_tiebreaker_decides_a_tie():
    state = play(draw(9), STAND, draw(10), {"type": "tiebreaker", "sign": "-"}, STAND)
    assert totals(state) == {"Ann": 9, "Bob": 9}
    assert result(state)["tiebreaker"] == "Bob"
    assert outcome(state) == {"winner": "Bob", "how": "tiebreaker"}
    assert engine_winner(result(state)) == "Bob"


def test_equal_totals_without_tiebreaker_tie():
    state = play(draw(9), STAND, draw(9), STAND)
    assert outcome(state) == {"winner": None, "how": "tie"}
    assert engine_winner(result(state)) is None


def test_two_tiebreakers_cancel():
    state = play(
        draw(8),
        {"type": "tiebreaker", "sign": "+"},
        STAND,
        draw(10),
        {"type": "tiebreaker", "sign": "-"},
        STAND,
    )
    assert result(state)["tiebreaker"] is None and outcome(state)["how"] == "tie"


def test_result_is_none_while_running():
    assert result(play(draw(3))) is None and outcome(play(draw(3))) is None


def test_state_round_trips_through_json_and_is_not_mutated():
    before = play(draw(2), DOUBLE, END, draw(4))
    snapshot = json.dumps(before.to_dict())
    after = apply(before, {"type": "tiebreaker", "sign": "+"})
    assert json.dumps(before.to_dict()) == snapshot
    assert TableState.from_dict(json.loads(json.dumps(after.to_dict()))) == after


def test_starter_plays_first():
    state = new_table(P, starter=1)
    assert state.turn == 1
    with pytest.raises(TableError, match="it is Bob's turn"):
        apply(state, draw(3, player="Ann"))


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.pop("turn"),
        lambda d: d.update(turn=2),
        lambda d: d.update(over="no"),
        lambda d: d["tables"][0]["cards"].append({"label": "x", "kind": "magic", "face": 1, "value": 1}),
        lambda d: d["tables"][0]["cards"].append({"label": "x", "kind": "main", "face": 1, "value": 1.5}),
        lambda d: d.update(players=["Ann"]),
    ],
)
def test_damaged_state_is_refused(damage):
    data = play(draw(3)).to_dict()
    damage(data)
    with pytest.raises(TableError, match="damaged"):
        TableState.from_dict(data)


def test_a_stranger_cannot_play():
    with pytest.raises(TableError, match='^"Cy" is not playing this set$'):
        apply(new_table(P), draw(3, player="Cy"))


# --- a recorded hand: its cards only, each once a match ------------------------------------------

ANN_HAND = ["+3", "D", "+3", "Flip 2&4"]


def test_a_card_in_the_recorded_hand_is_played():
    state = play_from_hand(play(draw(7)), {"type": "plus", "value": 3}, ANN_HAND, Counter())
    assert values(state) == [7, 3] and state.seats[0].cards[-1].hand == "+3"


@pytest.mark.parametrize(
    "action, reason",
    [
        ({"type": "plus", "value": 5}, "+5 is not in Ann's hand (+3, D, +3, Flip 2&4)"),
        ({"type": "plusminus", "value": 3, "sign": "+"}, "±3 is not in Ann's hand (+3, D, +3, Flip 2&4)"),
        ({"type": "tiebreaker", "sign": "-"}, "T±1 is not in Ann's hand (+3, D, +3, Flip 2&4)"),
    ],
)
def test_a_card_not_in_the_recorded_hand_is_refused_with_the_hand(action, reason):
    with pytest.raises(TableError) as caught:
        play_from_hand(play(draw(7)), action, ANN_HAND, Counter())
    assert str(caught.value) == reason


def test_each_hand_card_lasts_the_whole_match():
    # "the four side deck cards would have to last him through the entire match" (the rulebook)
    earlier = Counter({"D": 1, "+3": 1})
    with pytest.raises(TableError) as caught:
        play_from_hand(play(draw(9)), DOUBLE, ANN_HAND, earlier)
    assert str(caught.value) == "Ann has played D already: each hand card is played once a match"
    # Two +3 in the hand: one played, one left.
    assert values(play_from_hand(play(draw(9)), {"type": "plus", "value": 3}, ANN_HAND, earlier)) == [9, 3]
    with pytest.raises(TableError, match="played \\+3 already"):
        play_from_hand(play(draw(9)), {"type": "plus", "value": 3}, ANN_HAND, earlier + Counter({"+3": 1}))


def test_the_turn_rules_speak_before_the_hand():
    stood = play(draw(8), STAND)
    with pytest.raises(TableError, match="draw a main-deck card first"):
        play_from_hand(stood, {"type": "plus", "value": 5}, ["+1"], Counter())
    with pytest.raises(TableError, match="Ann has stood"):
        play_from_hand(play(draw(8), STAND, draw(4)), {"type": "plus", "value": 5, "player": "Ann"}, [], Counter())


def test_without_a_recorded_hand_every_side_card_is_played():
    state = play_from_hand(play(draw(7)), {"type": "plusminus", "value": 6, "sign": "-"}, [], Counter({"±6": 3}))
    assert values(state) == [7, -6]


def test_draws_and_turn_ends_use_no_hand_card():
    state = play_from_hand(new_table(P), draw(10), ["+1"], Counter({"+1": 1}))
    assert values(play_from_hand(state, END, ["+1"], Counter({"+1": 1}))) == [10]


def test_flip_turns_the_cards_on_the_players_table_not_those_held():
    # The rulebook: "all the 2s and 4s in his hand would become -2s and -4s"; the engine flips the
    # player's table, as the video game does, and the +2 still held plays as +2 afterwards.
    hand = ["Flip 2&4", "+2"]
    state = play_from_hand(play(draw(4), END, draw(1), END, draw(2)), flip("2&4"), hand, Counter())
    assert values(state) == [-4, -2, 0] and values(state, 1) == [1]
    state = play(END, draw(5), END, draw(1), state=state)
    state = play_from_hand(state, {"type": "plus", "value": 2}, hand, Counter({"Flip 2&4": 1}))
    assert values(state) == [-4, -2, 0, 1, 2] and totals(state)["Ann"] == -3
