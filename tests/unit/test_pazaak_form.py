"""Unit tests of the Pazaak page's form parsing: settings, set forms and their inverse, the calculator step."""

from __future__ import annotations

import json

import pytest
from werkzeug.datastructures import MultiDict

from companion.games import get_game
from companion.games.pazaak.table_rules import TableState, apply, new_table
from companion.games.refusals import RuleError

GAME = get_game("pazaak")
ENTRY = GAME.entry
P = ["Ann", "Bob"]
SETTINGS = GAME.settings({}, P)
HANDS = GAME.settings({"hands": {"Ann": ["+3", "±4", "D", "+3"], "Bob": ["T±1"]}}, P)


def form(**fields) -> MultiDict:
    """A posted form; list values repeat a field, `hand_Ann` stands for `hand:Ann`."""
    return MultiDict(
        [(k.replace("hand_", "hand:"), v) for k, vs in fields.items() for v in (vs if isinstance(vs, list) else [vs])]
    )


# --- the new-match form ------------------------------------------------------------------------


def test_settings_default_when_nothing_is_noted():
    assert ENTRY.settings_from_form(form(), P) == {}
    assert GAME.settings(ENTRY.settings_from_form(form(sets="3"), P), P) == {"sets": 3, "hands": {"Ann": [], "Bob": []}}


def test_settings_with_sets_and_hands():
    raw = ENTRY.settings_from_form(form(sets="5", hand_Ann=["+3", "-2"], hand_Bob=["+/-4"]), P)
    assert raw == {"sets": 5, "hands": {"Ann": ["+3", "-2"], "Bob": ["+/-4"]}}
    assert GAME.settings(raw, P)["hands"] == {"Ann": ["+3", "\u22122"], "Bob": ["\u00b14"]}


@pytest.mark.parametrize("text", ["three", "2.5", "∞"])
def test_unreadable_sets_names_the_field(text):
    with pytest.raises(RuleError, match="whole number") as caught:
        ENTRY.settings_from_form(form(sets=text), P)
    assert caught.value.field == "sets"


def test_a_fifth_hand_card_is_refused_by_the_rules():
    raw = ENTRY.settings_from_form(form(hand_Ann=["+1", "+2", "+3", "+4", "+5"]), P)
    with pytest.raises(RuleError, match="at most 4") as caught:
        GAME.settings(raw, P)
    assert caught.value.field == "hands"


def test_setup_sets_stepper_is_clamped():
    assert ENTRY.setup_view(form(action="pazaak-sets:+1"), P)["sets"] == 4
    assert ENTRY.setup_view(form(sets="1", action="pazaak-sets:-1"), P)["sets"] == 1
    assert ENTRY.setup_view(form(sets="10", action="pazaak-sets:+1"), P)["sets"] == 10
    assert ENTRY.setup_view(form(sets="junk"), P)["sets"] == "junk"


def test_setup_palette_fills_one_hand_then_the_next():
    fields = form(hand_Ann=["+1", "+2", "+3"], action="pazaak-card:D")
    view = ENTRY.setup_view(fields, P)
    assert view["hands"] == {"Ann": ["+1", "+2", "+3", "D"], "Bob": []}
    assert view["picking"] == "Bob" and view["open"]


def test_setup_pick_whose_hand_and_remove_a_card():
    view = ENTRY.setup_view(form(hand_Ann=["+1"], action="pazaak-for:1"), P)
    assert view["picking"] == "Bob"
    view = ENTRY.setup_view(form(hand_Ann=["+1", "D"], pazaak_for="Bob", action="pazaak-drop:0:0"), P)
    assert view["hands"]["Ann"] == ["D"] and view["picking"] == "Ann"


@pytest.mark.parametrize("action", ["pazaak-card:Joker", "pazaak-drop:5:0", "pazaak-drop:0:9", "pazaak-for:x"])
def test_setup_ignores_taps_that_name_nothing(action):
    view = ENTRY.setup_view(form(hand_Ann=["+1"], action=action), P)
    assert view["hands"] == {"Ann": ["+1"], "Bob": []}


# --- a set's form and its inverse --------------------------------------------------------------


@pytest.mark.parametrize(
    "fields, round",
    [
        (form(winner="0"), {"winner": "Ann"}),
        (form(winner="1"), {"winner": "Bob"}),
        (form(winner="tie"), {"winner": None}),
        (
            form(**{"total-0": "19", "total-1": "\u22122", "filled": "1", "tiebreaker": ""}),
            {"totals": {"Ann": 19, "Bob": -2}, "filled": ["Bob"], "tiebreaker": None},
        ),
    ],
)
def test_round_from_fields(fields, round):
    assert ENTRY.round_from_form(fields, P, SETTINGS) == round


@pytest.mark.parametrize(
    "fields, field",
    [
        (form(), "winner"),
        (form(winner="2"), "winner"),
        (form(winner="Ann"), "winner"),
        (form(**{"total-0": "x", "total-1": "3"}), "Ann"),
        (form(**{"total-0": "3"}), "Bob"),
        (form(**{"total-0": "3", "total-1": "4", "filled": "7"}), "filled"),
        (form(**{"total-0": "3", "total-1": "4", "tiebreaker": "Bob"}), "tiebreaker"),
        (form(winner="0", extra="[1]"), "round"),
        (form(winner="0", cards="{not json"), "round"),
        (form(source="table"), "table"),
        (form(source="table", table='{"players": ["Ann", "Bob"]}'), "table"),
    ],
)
def test_malformed_set_forms_name_the_field(fields, field):
    with pytest.raises(RuleError) as caught:
        ENTRY.round_from_form(fields, P, SETTINGS)
    assert caught.value.field == field


STORED = [
    {"winner": "Ann"},
    {"winner": None},
    {"totals": {"Ann": 23, "Bob": 17}, "filled": [], "tiebreaker": None},
    {
        "totals": {"Ann": 19, "Bob": 19},
        "filled": [],
        "tiebreaker": "Bob",
        "cards": {"Ann": ["9", "10"], "Bob": ["10", "T±1→−1"]},
    },
    {"totals": {"Ann": 14, "Bob": 18}, "filled": ["Ann"], "tiebreaker": None, "winner": "Ann"},
    {"winner": "Bob", "time": "2026-11-29T20:00:00Z", "note": {"by": "Cy"}},
]


@pytest.mark.parametrize("round", STORED)
def test_form_from_round_is_the_inverse_of_round_from_form(round):
    stored = GAME.check_round(P, SETTINGS, round, 1)
    fields = ENTRY.form_from_round(stored, P, SETTINGS)
    assert all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in fields.values())
    assert ENTRY.round_from_form(fields, P, SETTINGS) == stored
    assert ENTRY.round_from_form(MultiDict([(k, x) for k, v in fields.items() for x in v]), P, SETTINGS) == stored


def test_a_finished_table_becomes_the_engine_round_with_the_cards():
    state = new_table(P)
    for action in [
        {"type": "draw", "value": 10},
        {"type": "end_turn"},
        {"type": "draw", "value": 9},
        {"type": "tiebreaker", "sign": "+"},
        {"type": "stand"},
        {"type": "draw", "value": 10},
    ]:
        state = apply(state, action)
    assert state.over  # Ann reached 20 and stood; Bob had stood at 10
    fields = form(source="table", table=json.dumps(state.to_dict()), winner="1")
    round = ENTRY.round_from_form(fields, P, SETTINGS)
    assert round == {
        "totals": {"Ann": 20, "Bob": 10},
        "filled": [],
        "tiebreaker": "Bob",
        "cards": {"Ann": ["10", "10"], "Bob": ["9", "T\u00b11\u2192+1"]},
    }
    assert GAME.standings(P, SETTINGS, [round]).rounds == [{"winner": "Ann"}]


def test_a_set_still_running_cannot_be_saved():
    state = apply(new_table(P), {"type": "draw", "value": 4})
    with pytest.raises(RuleError, match="not over yet") as caught:
        ENTRY.round_from_form(form(source="table", table=json.dumps(state.to_dict())), P, SETTINGS)
    assert caught.value.field == "table"


# --- the calculator step -----------------------------------------------------------------------


def step(entry: dict | None = None, rounds=(), settings=SETTINGS, **fields) -> dict:
    """One tap on the calculator, carrying the state and moves the last step drew."""
    if entry is not None:
        fields = {"table": entry["table"], "moves": entry["moves"], **fields}
    return ENTRY.step(form(**fields), GAME.replay(P, settings, list(rounds)))


def taps(*moves: str, rounds=(), settings=SETTINGS, **first) -> dict:
    entry = step(rounds=rounds, settings=settings, **first)
    for move in moves:
        entry = step(entry, rounds=rounds, settings=settings, move=move)
        assert entry["error"] is None, (move, entry["error"])
    return entry


def test_a_fresh_table_starts_with_the_next_set_starter():
    assert step()["current"]["name"] == "Ann"
    assert step(rounds=[{"winner": None}])["current"]["name"] == "Bob"
    assert step(rounds=[{"winner": None}, {"winner": "Bob"}])["current"]["name"] == "Ann"


def test_taps_add_up_and_the_turn_passes():
    entry = taps("draw:7", "plus:3", "end_turn", "draw:4", "plusminus:2:-")
    assert [s["total"] for s in entry["seats"]] == [10, 2]
    assert entry["current"]["name"] == "Bob" and entry["side_played"]
    assert [c["big"] for c in entry["seats"][1]["cards"]] == ["4", "\u22122"]
    assert json.loads(entry["moves"])[-1] == {"type": "plusminus", "value": 2, "sign": "-"}


def test_a_forbidden_card_is_refused_and_the_state_kept():
    before = taps("draw:3", "plus:1")
    after = step(before, move="plus:2")
    assert str(after["error"]) == "Ann: only one side card per turn"
    assert after["table"] == before["table"] and after["moves"] == before["moves"]


def test_a_card_after_standing_is_refused_with_the_reason():
    entry = taps("draw:8", "stand", settings=HANDS)
    refused = step(entry, settings=HANDS, move="plus:3", player="0")
    assert str(refused["error"]) == "Ann has stood" and refused["table"] == entry["table"]
    bob_early = step(entry, settings=HANDS, move="tiebreaker:+", player="1")
    assert str(bob_early["error"]) == "Bob: draw a main-deck card first"


@pytest.mark.parametrize(
    "fields",
    [
        {"table": "{not json", "moves": "[]"},
        {"table": json.dumps({**new_table(P).to_dict(), "turn": 5}), "moves": "[]"},
        {"table": json.dumps(new_table(["Ann", "Cy"]).to_dict()), "moves": "[]"},
        {"table": json.dumps(new_table(P).to_dict()), "moves": '{"a": 1}'},
    ],
)
def test_a_tampered_state_is_refused(fields):
    entry = ENTRY.step(form(move="draw:5", **fields), GAME.replay(P, SETTINGS, []))
    assert "damaged" in str(entry["error"])
    assert TableState.from_dict(json.loads(entry["table"])) == new_table(P)


@pytest.mark.parametrize("move", ["draw", "draw:x", "flip", "shuffle:3", "plusminus:3"])
def test_unreadable_moves_are_refused(move):
    assert step(step(), move=move)["error"]


def test_take_back_replays_all_but_the_last_move():
    entry = taps("draw:7", "end_turn", "draw:2", "undo")
    assert [s["total"] for s in entry["seats"]] == [7, 0] and not entry["drawn"]
    assert str(step(step(), move="undo")["error"]) == "nothing to take back"


def test_the_outcome_is_shown_when_the_set_is_decided():
    # Ann stands automatically at 20; Bob plays on alone and busts.
    entry = taps("draw:10", "end_turn", "draw:9", "end_turn", "draw:10", "draw:10", "end_turn", "draw:5", "end_turn")
    assert entry["seats"][0]["stood"] and entry["seats"][0]["total"] == 20
    assert entry["over"] and entry["outcome"] == {"winner": "Ann", "how": "bust"}
    assert entry["seats"][1]["bust"] and entry["loser"]["name"] == "Bob"


def test_hand_cards_are_greyed_once_played_across_sets():
    earlier = [
        {
            "totals": {"Ann": 20, "Bob": 12},
            "filled": [],
            "tiebreaker": None,
            "cards": {"ann": ["10", "+3", "7"], "Bob": ["12"]},
        }
    ]
    entry = taps("draw:5", "end_turn", "draw:5", "plusminus:4:-", rounds=earlier, settings=HANDS)  # Bob starts set 2
    hand = [(c["label"], c["played"]) for c in entry["seats"][0]["hand"]]
    assert hand == [("+3", True), ("\u00b14", True), ("D", False), ("+3", False)]
    labels = [str(m["aria"]) for m in entry["seats"][1]["hand"][0]["moves"]]
    assert labels == ["Tiebreaker as +1", "Tiebreaker as \u22121"]


def test_junk_in_stored_cards_is_ignored():
    rounds = [{"winner": "Ann", "cards": "lots"}, {"winner": "Bob", "cards": {"Ann": "+3", "Zed": ["+3"], "Bob": [3]}}]
    assert [c["played"] for c in step(rounds=rounds, settings=HANDS)["seats"][0]["hand"]] == [False] * 4


def test_flipped_cards_are_marked():
    entry = taps("draw:4", "end_turn", "draw:1", "end_turn", "draw:2", "flip:2&4")
    cards = entry["seats"][0]["cards"]
    assert [(c["big"], c["flipped"]) for c in cards] == [("\u22124", True), ("\u22122", True), ("\u21c4", False)]
    assert entry["seats"][0]["total_text"] == "\u22126"


# --- a recorded hand on the calculator -----------------------------------------------------------


def test_a_card_not_in_the_recorded_hand_is_refused_by_the_calculator():
    entry = taps("draw:7", settings=HANDS)
    refused = step(entry, settings=HANDS, move="plus:5")
    assert str(refused["error"]) == "+5 is not in Ann's hand (+3, ±4, D, +3)"
    assert refused["moves"] == entry["moves"] and refused["keep"] is None
    # Bob's hand is recorded too: only the Tiebreaker.
    bob = taps("end_turn", "draw:5", settings=HANDS, **{"table": entry["table"], "moves": entry["moves"]})
    assert str(step(bob, settings=HANDS, move="plus:1")["error"]) == "+1 is not in Bob's hand (T±1)"


def test_a_hand_card_played_in_an_earlier_set_is_refused_for_the_rest_of_the_match():
    earlier = [{"winner": "Ann", "cards": {"Ann": ["10", "D", "±4→+4"], "Bob": ["9", "T±1→+1"]}}]
    entry = taps("draw:6", "end_turn", "draw:4", rounds=earlier, settings=HANDS)  # Bob started set 2
    assert str(step(entry, rounds=earlier, settings=HANDS, move="double")["error"]) == (
        "Ann has played D already: each hand card is played once a match"
    )
    assert step(entry, rounds=earlier, settings=HANDS, move="plus:3")["error"] is None


def test_without_a_recorded_hand_the_full_palette_plays():
    entry = taps("draw:7", "plusminus:6:-", "end_turn", "draw:2", "flip:2&4")
    assert [s["total"] for s in entry["seats"]] == [1, -2]
    assert entry["seats"][0]["hand"] == [] and entry["palette"]


# --- the set the server keeps -----------------------------------------------------------------------


def kept_step(kept: dict | None, entry: dict | None = None, rounds=(), settings=SETTINGS, **fields) -> dict:
    """One tap as the view makes it: the page's fields, and the set the server keeps as `kept`."""
    if entry is not None:
        fields = {"table": entry["table"], "moves": entry["moves"], **fields}
    return ENTRY.step(form(kept=json.dumps(kept), **fields), GAME.replay(P, settings, list(rounds)))


def test_a_tap_says_what_to_keep_instead_of_what_was_kept():
    first = kept_step(None, move="draw:7")
    assert first["keep"] == {"state": {"starter": 0, "moves": [{"type": "draw", "value": 7}]}, "based_on": None}
    second = kept_step(first["keep"]["state"], first, move="end_turn")
    assert second["keep"]["based_on"] == first["keep"]["state"]
    assert [m["type"] for m in second["keep"]["state"]["moves"]] == ["draw", "end_turn"]
    # Taking back every tap keeps nothing.
    back = kept_step({"starter": 0, "moves": [{"type": "draw", "value": 7}]}, first, move="undo")
    assert back["keep"] == {"state": None, "based_on": first["keep"]["state"]}


def test_a_reload_draws_the_kept_set_and_take_back_still_works():
    kept = {"starter": 0, "moves": [{"type": "draw", "value": 7}, {"type": "end_turn"}, {"type": "draw", "value": 4}]}
    page = kept_step(kept)  # a page loaded afresh sends nothing of its own
    assert [s["total"] for s in page["seats"]] == [7, 4] and page["can_take_back"] and not page["changed"]
    back = kept_step(kept, page, move="undo")
    assert [s["total"] for s in back["seats"]] == [7, 0] and back["current"]["name"] == "Bob"


def test_a_page_showing_another_set_is_brought_up_to_date_and_its_tap_not_played():
    kept = {"starter": 0, "moves": [{"type": "draw", "value": 7}, {"type": "end_turn"}]}
    stale = taps("draw:7")  # the other tab saw only the first tap
    entry = kept_step(kept, stale, move="draw:9")
    assert entry["changed"] and entry["error"] is None and entry["keep"] is None
    assert [s["total"] for s in entry["seats"]] == [7, 0] and entry["current"]["name"] == "Bob"


def test_a_set_kept_for_another_starter_is_not_drawn():
    kept = {"starter": 0, "moves": [{"type": "draw", "value": 7}]}
    entry = kept_step(kept, rounds=[{"winner": "Ann"}])  # set 2: Bob starts
    assert [s["total"] for s in entry["seats"]] == [0, 0] and entry["current"]["name"] == "Bob"


def test_a_damaged_page_state_shows_the_kept_set():
    kept = {"starter": 0, "moves": [{"type": "draw", "value": 7}]}
    entry = kept_step(kept, table="{not json", moves="[]", move="draw:5")
    assert "damaged" in str(entry["error"]) and [s["total"] for s in entry["seats"]] == [7, 0]


def test_saving_from_the_calculator_saves_the_kept_set():
    moves = [{"type": "draw", "value": 10}, {"type": "stand"}, {"type": "draw", "value": 9}, {"type": "stand"}]
    kept = {"starter": 0, "moves": moves}
    page = kept_step(kept)
    fields = form(source="table", table=page["table"], moves=page["moves"], kept=json.dumps(kept))
    assert ENTRY.round_from_form(fields, P, SETTINGS)["totals"] == {"Ann": 10, "Bob": 9}
    stale = taps("draw:10", "stand")
    fields = form(source="table", table=stale["table"], moves=stale["moves"], kept=json.dumps(kept))
    with pytest.raises(RuleError, match="changed on another page") as caught:
        ENTRY.round_from_form(fields, P, SETTINGS)
    assert caught.value.field == "table"


@pytest.mark.parametrize(
    "moves",
    ['[{"type": "flip", "pair": ["2&4"]}]', '[{"type": "draw", "value": 7}, "stand"]', '[{"type": "draw"}]', "[null]"],
)
def test_junk_moves_from_a_page_are_a_damaged_state(moves):
    fields = {"table": json.dumps(new_table(P).to_dict()), "moves": moves}
    entry = ENTRY.step(form(kept="null", move="draw:5", **fields), GAME.replay(P, SETTINGS, []))
    assert "damaged" in str(entry["error"]) and entry["keep"] is None
