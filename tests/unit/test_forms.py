"""The one reader of a posted number or id (companion/games/forms.py) and the games' forms that use it."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from companion.games import get_game
from companion.games.forms import NUMBER_TOP, index_in, number_field, whole_number
from companion.games.refusals import RuleError


@pytest.mark.parametrize("text, number", [("0", 0), ("12", 12), (" 7 ", 7), ("999999", 999_999)])
def test_a_whole_number_of_ascii_digits_is_read(text, number):
    assert whole_number(text) == number


@pytest.mark.parametrize("text", [None, "", "²", "1_0", "+1", "-3", "1.5", "0x10", "1000000", "9" * 5000, "١٢"])
def test_anything_else_is_no_number(text):
    assert whole_number(text) is None


@pytest.mark.parametrize("text, number", [("-3", -3), ("\u22123", -3), ("4", 4)])
def test_a_signed_number_takes_a_minus_or_a_true_minus(text, number):
    assert whole_number(text, signed=True) == number


def test_the_top_bounds_the_number():
    assert whole_number("2147483647", 2**31 - 1) == 2**31 - 1
    assert whole_number("2147483648", 2**31 - 1) is None
    assert whole_number(str(NUMBER_TOP + 1)) is None


def test_a_number_field_names_its_field_and_what_was_typed():
    with pytest.raises(RuleError) as refused:
        number_field(" 1_0 ", "cards per player", field="cards")
    assert refused.value.field == "cards"
    assert str(refused.value) == 'cards: cards per player must be a whole number, got "1_0"'
    # A whole number too large for any field says its limit, not "a whole number".
    with pytest.raises(RuleError) as refused:
        number_field("-2000000000", "a side's points", field="points-0", signed=True)
    assert str(refused.value) == "points-0: a side's points must have at most 6 digits, got \"-2000000000\""


def test_a_position_is_below_the_count():
    assert index_in("1", 2) == 1
    assert index_in("2", 2) is None and index_in("-1", 2) is None


@pytest.mark.parametrize("text", ["1_0", "+10", "²"])
def test_every_game_refuses_a_number_int_would_read(text):
    """Python's int() reads "1_0" and "+10": the number fields of the four games all refuse them alike."""
    forms = {
        "topic": MultiDict({"length": "exact", "deck": text}),
        "pazzaparola": MultiDict({"cards": text}),
        "burraco": MultiDict({"burraco_target": text}),
        "pazaak": MultiDict({"sets": text}),
    }
    for slug, form in forms.items():
        with pytest.raises(RuleError):
            get_game(slug).entry.settings_from_form(form, ["Ann", "Bob"])
