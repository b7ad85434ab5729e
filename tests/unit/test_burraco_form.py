"""Unit tests of the Burraco page's form readers: keypad sums, settings, a hand and its round trip."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from companion.games import get_game
from companion.games.burraco import evaluate_sum
from companion.games.refusals import RuleError

GAME = get_game("burraco")
ENTRY = GAME.entry
FOUR = ["Ann", "Bob", "Cy", "Di"]
THREE = ["Ann", "Bob", "Cy"]
PAIRS = GAME.settings({"teams": {"Noi": ["Ann", "Cy"], "Voi": ["Bob", "Di"]}}, FOUR)
ALONE = GAME.settings({}, THREE)


# --- keypad sums ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "total"),
    [("25+10+5", 40), ("7", 7), ("0", 0), (" 25 + 10 ", 35), ("007+3", 10), ("999999+1", 1000000)],
)
def test_evaluate_sum_adds_what_was_counted(text, total):
    assert evaluate_sum(text) == total


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "nothing typed"),
        ("   ", "nothing typed"),
        ("25+", "ends with +"),
        ("+5", "a + with no number before it"),
        ("25++10", "a + with no number before it"),
        ("-5", "cannot be negative"),
        ("5-3", "only digits and + can be typed, not -"),
        ("2*3", "only digits and + can be typed, not *"),
        ("__import__('os')", "only digits and + can be typed"),
        ("1e3", "only digits and + can be typed, not e"),
        ("١٢", "only digits and + can be typed"),
        ("1234567", "over 6 digits"),
        ("1+" * 40 + "1", "at most 60 characters"),
    ],
)
def test_evaluate_sum_refuses_anything_but_digits_and_plus(text, reason):
    with pytest.raises(RuleError, match=reason.replace("+", r"\+").replace("*", r"\*").replace("(", r"\(")):
        evaluate_sum(text)


@pytest.mark.parametrize("value", [None, 40, ["40"]])
def test_evaluate_sum_refuses_what_is_not_text(value):
    with pytest.raises(RuleError, match="type the points as digits"):
        evaluate_sum(value)


@given(st.lists(st.integers(min_value=0, max_value=999999), min_size=1, max_size=8))
def test_evaluate_sum_equals_the_sum_of_its_terms(terms):
    assert evaluate_sum("+".join(map(str, terms))) == sum(terms)


# --- settings ---------------------------------------------------------------------------


def test_empty_settings_form_gives_the_defaults():
    raw = ENTRY.settings_from_form(MultiDict(), THREE)
    assert GAME.settings(raw, THREE) == GAME.settings({}, THREE)


def test_settings_read_from_the_form():
    form = MultiDict(
        {
            "burraco_target": "2005",
            "burraco_hands": "6",
            "burraco_clean": "300",
            "burraco_dirty": "150",
            "burraco_closing": "50",
            "burraco_mode": "alone",
        }
    )
    raw = ENTRY.settings_from_form(form, THREE)
    assert GAME.settings(raw, THREE) == {
        "target": 2005,
        "hands": 6,
        "clean": 300,
        "dirty": 150,
        "closing": 50,
        "teams": None,
    }


def test_no_limit_means_hands_null():
    form = MultiDict({"burraco_hands": "4", "burraco_nolimit": "1"})
    assert ENTRY.settings_from_form(form, THREE)["hands"] is None


def test_pairs_take_seats_one_and_three_against_two_and_four():
    form = MultiDict({"burraco_mode": "pairs", "burraco_team1": " Noi ", "burraco_team2": "Voi"})
    raw = ENTRY.settings_from_form(form, FOUR)
    assert raw["teams"] == {"Noi": ["Ann", "Cy"], "Voi": ["Bob", "Di"]}
    assert GAME.sides(FOUR, GAME.settings(raw, FOUR)) == ["Noi", "Voi"]


@pytest.mark.parametrize(
    ("fields", "players", "field", "reason"),
    [
        ({"burraco_mode": "pairs"}, THREE, "teams", "pairs need exactly 4 players, 3 are seated"),
        ({"burraco_mode": "pairs", "burraco_team1": "", "burraco_team2": "Voi"}, FOUR, "teams", "give each team"),
        ({"burraco_mode": "trio"}, FOUR, "teams", "choose alone or in pairs"),
        ({"burraco_target": "mille"}, THREE, "target", "the target must be a whole number"),
        ({"burraco_hands": "-1"}, THREE, "hands", "the number of hands must be a whole number"),
        ({"burraco_clean": "2.5"}, THREE, "clean", "the clean burraco bonus must be a whole number"),
    ],
)
def test_unreadable_settings_name_their_field(fields, players, field, reason):
    with pytest.raises(RuleError, match=reason) as caught:
        ENTRY.settings_from_form(MultiDict(fields), players)
    assert caught.value.field == field


def test_same_team_names_are_refused_by_the_rules():
    raw = ENTRY.settings_from_form(
        MultiDict({"burraco_mode": "pairs", "burraco_team1": "Noi", "burraco_team2": "NOI"}), FOUR
    )
    with pytest.raises(RuleError, match="different names"):
        GAME.settings(raw, FOUR)


# --- one hand ---------------------------------------------------------------------------


def hand_form(closed_by: str | None = "", **fields: str) -> MultiDict:
    """An entry form as the page posts it."""
    data = MultiDict(fields)
    if closed_by is not None:
        data["closed_by"] = closed_by
    return data


def test_a_hand_from_the_form_in_pairs():
    form = hand_form(
        "Noi",
        table_1="120+35",
        hand_1="",
        clean_1="1",
        dirty_1="0",
        table_2="40+10",
        hand_2="25",
        clean_2="0",
        dirty_2="1",
    )
    assert ENTRY.round_from_form(form, FOUR, PAIRS) == {
        "sides": {
            "Noi": {"table": 155, "hand": 0, "clean": 1, "dirty": 0},
            "Voi": {"table": 50, "hand": 25, "clean": 0, "dirty": 1},
        },
        "closed_by": "Noi",
    }


def test_blank_fields_count_as_zero_and_nobody_closed():
    assert ENTRY.round_from_form(hand_form(""), THREE, ALONE) == {
        "sides": {name: {"table": 0, "hand": 0, "clean": 0, "dirty": 0} for name in THREE},
        "closed_by": None,
    }


@pytest.mark.parametrize(
    ("form", "field", "reason"),
    [
        (hand_form(None), "closed_by", "tap who closed the hand, or Nobody"),
        (hand_form("Zed"), "closed_by", "is not one of Ann, Bob, Cy"),
        (hand_form("", table_2="-5"), "table_2", "points laid on the table: points cannot be negative"),
        (hand_form("", hand_3="10+"), "hand_3", "points left in hand: 10\\+ ends with \\+"),
        (hand_form("", clean_1="x"), "clean_1", "clean burraco must be a whole number"),
        (hand_form("", dirty_2="-1"), "dirty_2", "dirty burraco must be a whole number"),
    ],
)
def test_malformed_hand_names_its_field(form, field, reason):
    with pytest.raises(RuleError, match=reason) as caught:
        ENTRY.round_from_form(form, THREE, ALONE)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"table_1": "90", "clean_1": "0", "dirty_1": "0"}, "closed the hand without having made a burraco"),
        ({"table_1": "90", "hand_1": "15", "clean_1": "1"}, "closed the hand but holds 15 points in hand"),
    ],
)
def test_impossible_closings_are_refused_by_the_rules_naming_the_side(fields, reason):
    data = ENTRY.round_from_form(hand_form("Ann", **fields), THREE, ALONE)
    with pytest.raises(RuleError, match=reason) as caught:
        GAME.check_round(THREE, ALONE, data, 1)
    assert caught.value.field == "Ann"


def test_a_plain_dict_of_lists_reads_like_a_multidict():
    form = {"table_1": ["25+10+5"], "clean_1": ["1"], "closed_by": ["Ann"]}
    assert ENTRY.round_from_form(form, THREE, ALONE)["sides"]["Ann"] == {"table": 40, "hand": 0, "clean": 1, "dirty": 0}


# --- the correction form is the exact inverse ------------------------------------------

entries = st.fixed_dictionaries(
    {
        "table": st.integers(0, 2000),
        "hand": st.integers(0, 300),
        "clean": st.integers(0, 5),
        "dirty": st.integers(0, 5),
    }
)


@given(st.data())
def test_form_from_round_round_trips(data):
    players, settings = data.draw(st.sampled_from([(THREE, ALONE), (FOUR, PAIRS), (FOUR, GAME.settings({}, FOUR))]))
    sides = GAME.sides(players, settings)
    hand = {
        "sides": {side: data.draw(entries) for side in sides},
        "closed_by": data.draw(st.sampled_from([None, *sides])),
    }
    form = ENTRY.form_from_round(hand, players, settings)
    assert all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in form.values())
    assert ENTRY.round_from_form(form, players, settings) == hand
    assert ENTRY.round_from_form(MultiDict(form), players, settings) == hand


def test_form_from_round_of_a_stored_hand():
    stored = GAME.check_round(
        FOUR,
        PAIRS,
        {"sides": {"noi": {"table": 120, "hand": 0, "clean": 1}, "Voi": {"table": 5, "hand": 40}}, "closed_by": "NOI"},
        1,
    )
    form = ENTRY.form_from_round(stored, FOUR, PAIRS)
    assert form["table_1"] == ["120"] and form["closed_by"] == ["Noi"] and form["hand_2"] == ["40"]
    assert ENTRY.round_from_form(form, FOUR, PAIRS) == stored


def test_a_correction_keeps_the_keys_the_form_has_no_field_for():
    stored = {
        "sides": {
            "Ann": {"table": 10, "hand": 0, "clean": 1, "dirty": 0, "words": ["CASSETTA"]},
            "Bob": {"table": 0, "hand": 5, "clean": 0, "dirty": 0},
            "Cy": {"table": 0, "hand": 0, "clean": 0, "dirty": 0},
        },
        "closed_by": "Ann",
        "at": "2026-01-01T20:00:00Z",
    }
    form = ENTRY.form_from_round(stored, THREE, ALONE)
    assert "extra" in form
    form["table_2"] = ["30"]
    corrected = ENTRY.round_from_form(form, THREE, ALONE)
    assert corrected["at"] == stored["at"]
    assert corrected["sides"]["Ann"]["words"] == ["CASSETTA"]
    assert corrected["sides"]["Bob"]["table"] == 30


@pytest.mark.parametrize("text", ["{", "[]", '{"round": {}, "sides": []}', '{"round": 1, "sides": {}}'])
def test_unreadable_extra_is_refused(text):
    with pytest.raises(RuleError, match="extra details") as caught:
        ENTRY.round_from_form({"extra": [text], "closed_by": [""]}, THREE, ALONE)
    assert caught.value.field == "round"
