"""Unit tests of the Topic_ web forms: settings, one-tap and several-loser rounds, penalties, round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from companion.games import get_game
from companion.games.refusals import RuleError
from companion.games.topic.entry import form_values

GAME = get_game("topic")
ENTRY = GAME.entry
P = ["Ann", "Bob", "Cy"]


def form(*pairs: tuple[str, str]) -> MultiDict:
    """A posted form, as werkzeug hands it to the view."""
    return MultiDict(list(pairs))


# --- settings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields, raw, deck",
    [
        ([], {"length": "medium"}, 36),
        ([("length", "short")], {"length": "short"}, 24),
        ([("length", "long"), ("deck", "9")], {"length": "long"}, 67),
        ([("length", "exact"), ("deck", "6")], {"deck": 6}, 6),
        ([("length", "exact"), ("deck", " 72 ")], {"deck": 72}, 72),
    ],
)
def test_settings_from_form(fields, raw, deck):
    settings = ENTRY.settings_from_form(form(*fields), P)
    assert settings == raw
    assert GAME.settings(settings, P)["deck"] == deck


@pytest.mark.parametrize("text", ["", "abc", "6.5", "1e3"])
def test_unreadable_exact_deck_names_the_deck(text):
    with pytest.raises(RuleError) as caught:
        ENTRY.settings_from_form(form(("length", "exact"), ("deck", text)), P)
    assert caught.value.field == "deck"
    assert "2 to 72" in caught.value.reason


@pytest.mark.parametrize("text, field", [("1", "deck"), ("73", "deck")])
def test_exact_deck_out_of_range_is_refused_by_the_rules(text, field):
    raw = ENTRY.settings_from_form(form(("length", "exact"), ("deck", text)), P)
    with pytest.raises(RuleError) as caught:
        GAME.settings(raw, P)
    assert caught.value.field == field


def test_unknown_length_is_refused_by_the_rules():
    raw = ENTRY.settings_from_form(form(("length", "forever")), P)
    with pytest.raises(RuleError) as caught:
        GAME.settings(raw, P)
    assert caught.value.field == "length"


@pytest.mark.parametrize(
    "fields, shown",
    [
        ([], {"length": "medium", "deck": 36}),
        ([("length", "long")], {"length": "long", "deck": 67}),
        ([("length", "exact"), ("deck", "36"), ("action", "topic-deck:-10")], {"length": "exact", "deck": 26}),
        ([("length", "short"), ("deck", "36"), ("action", "topic-deck:1")], {"length": "exact", "deck": 37}),
        ([("length", "exact"), ("deck", "5"), ("action", "topic-deck:-10")], {"length": "exact", "deck": 2}),
        ([("length", "exact"), ("deck", "70"), ("action", "topic-deck:10")], {"length": "exact", "deck": 72}),
        ([("length", "exact"), ("deck", "x"), ("action", "topic-deck:1")], {"length": "exact", "deck": 37}),
        ([("length", "exact"), ("deck", "x")], {"length": "exact", "deck": "x"}),
        ([("length", "exact"), ("deck", "9"), ("action", "topic-deck:oops")], {"length": "exact", "deck": 9}),
        ([("length", "medium"), ("deck", "30"), ("action", "add:Ann")], {"length": "medium", "deck": 30}),
    ],
)
def test_setup_choice_follows_the_steppers(fields, shown):
    # The length and deck of Topic_'s own widget; the other declared settings ride along (test_settings_declared).
    choice = ENTRY.setup_choice(form(*fields))
    assert {key: choice[key] for key in ("length", "deck")} == shown
    assert set(choice) == set(GAME.defaults)


# --- rounds -----------------------------------------------------------------------------


def test_one_tap_round_is_the_tapped_loser():
    assert ENTRY.round_from_form(form(("loser", "Bob"), ("number", "3")), P, {}) == {"losers": ["Bob"]}


def test_one_tap_round_carries_the_pending_penalties():
    got = ENTRY.round_from_form(form(("penalty", "Cy"), ("penalty", "Cy"), ("loser", "Ann")), P, {})
    assert got == {"losers": ["Ann"], "penalties": ["Cy", "Cy"]}


def test_one_tap_ignores_boxes_ticked_before_several_was_switched_off():
    got = ENTRY.round_from_form(form(("losers", "Ann"), ("losers", "Cy"), ("loser", "Bob")), P, {})
    assert got["losers"] == ["Bob"]


def test_several_losers_are_the_ticked_boxes_in_order():
    got = ENTRY.round_from_form(form(("several", "on"), ("losers", "Ann"), ("losers", "Cy")), P, {})
    assert got == {"losers": ["Ann", "Cy"]}


@pytest.mark.parametrize(
    "fields, words",
    [
        ([("loser", "  "), ("penalty", "Bob")], "tap the player who lost"),
        ([("several", "on")], "tick every player who lost"),
        ([("several", "on"), ("loser", "Bob")], "tick every player who lost"),
    ],
)
def test_no_loser_is_an_error_on_the_losers(fields, words):
    with pytest.raises(RuleError) as caught:
        ENTRY.round_from_form(form(*fields), P, {})
    assert caught.value.field == "losers"
    assert words in caught.value.reason


def test_a_form_with_no_loser_is_refused_on_the_losers():
    with pytest.raises(RuleError, match="tap the player who lost") as caught:
        ENTRY.round_from_form(form(("number", "2")), P, {})
    assert caught.value.field == "losers"


@pytest.mark.parametrize("text", ["{", "[1]"])
def test_unreadable_extra_is_an_error_on_the_round(text):
    with pytest.raises(RuleError) as caught:
        ENTRY.round_from_form(form(("loser", "Bob"), ("extra", text)), P, {})
    assert caught.value.field == "round"


def test_names_are_checked_by_the_rules_with_the_field():
    data = ENTRY.round_from_form(form(("loser", "Zed"), ("penalty", "Bob")), P, {})
    with pytest.raises(RuleError) as caught:
        GAME.check_round(P, GAME.settings({}, P), data, 1)
    assert caught.value.field == "losers"
    data = ENTRY.round_from_form(form(("loser", "Bob"), ("penalty", "Zed")), P, {})
    with pytest.raises(RuleError) as caught:
        GAME.check_round(P, GAME.settings({}, P), data, 1)
    assert caught.value.field == "penalties"


def test_form_values_reads_multidicts_plain_dicts_and_nothing():
    assert form_values(form(("a", "x"), ("a", " "), ("a", "y")), "a") == ["x", "y"]
    assert form_values({"a": ["x", "y"]}, "a") == ["x", "y"]
    assert form_values({"a": "x"}, "a") == ["x"]
    assert form_values({}, "a") == []
    assert form_values(None, "a") == []


def test_form_from_round_uses_the_several_losers_fields():
    fields = ENTRY.form_from_round({"losers": ["Cy", "Ann"], "penalties": ["Bob", "Bob"]}, P, {})
    assert fields == {"several": ["on"], "losers": ["Cy", "Ann"], "penalty": ["Bob", "Bob"]}


def test_form_from_round_keeps_what_the_form_does_not_show():
    stored = {"losers": ["Bob"], "penalties": [], "at": "2026-11-29T20:00:00Z"}
    fields = ENTRY.form_from_round(stored, P, {})
    assert fields["penalty"] == []
    assert ENTRY.round_from_form(fields, P, {}) == stored
    # A penalty added on the correction page replaces the empty list that rode along.
    fields["penalty"] = ["Cy"]
    assert ENTRY.round_from_form(fields, P, {}) == {**stored, "penalties": ["Cy"]}


rounds = st.fixed_dictionaries(
    {"losers": st.lists(st.sampled_from(P), min_size=1, max_size=3, unique=True)},
    optional={
        "penalties": st.none() | st.lists(st.sampled_from(P), max_size=4),
        "at": st.text(max_size=5),
    },
)


@settings(deadline=None)
@given(rounds)
def test_form_from_round_is_the_inverse_of_round_from_form(round_data):
    """Also through the stored (checked) shape, which always has a penalties list."""
    fields = ENTRY.form_from_round(round_data, P, {})
    posted = MultiDict([(key, value) for key, values in fields.items() for value in values])
    assert ENTRY.round_from_form(posted, P, {}) == round_data
    assert ENTRY.round_from_form(fields, P, {}) == round_data
    stored = GAME.check_round(P, GAME.settings({}, P), round_data, 1)
    assert ENTRY.round_from_form(ENTRY.form_from_round(stored, P, {}), P, {}) == stored


# --- helpers for the pages --------------------------------------------------------------


def test_decks_after_each_round():
    played = [{"losers": ["Ann"]}, {"losers": ["Bob", "Cy"], "penalties": ["Ann"]}, {"losers": ["Cy"]}]
    assert GAME.decks_of(GAME.replay(P, {"deck": 8}, played)) == [7, 4, 3]
    assert GAME.decks_of(GAME.replay(P, {"deck": 8}, [])) == []
