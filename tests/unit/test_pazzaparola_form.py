"""Unit tests of the Pazzaparola form readers: settings, a round's rows, the inverse for corrections, the live entry."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from companion.games import get_game
from companion.games.refusals import RuleError

GAME = get_game("pazzaparola")
ENTRY = GAME.entry
BEATLES = ["John", "Ringo", "Paul", "George"]
SETTINGS = GAME.settings({}, BEATLES)


def form(**fields) -> MultiDict:
    """A posted form; a list value repeats the field, and `used_0` stands for `used-0`."""
    pairs = []
    for key, value in fields.items():
        for item in value if isinstance(value, list) else [value]:
            pairs.append((key.replace("_", "-"), str(item)))
    return MultiDict(pairs)


RULEBOOK = form(
    theme="Things that make you lose patience",
    word_0="ZANZARA",
    used_0=[7, 2, 7, 2, 3],
    used_1=[5, 3, 3, 3, 3],
    used_2=[3, 3, 3, 2, 2],
    used_3=[3, 3, 2, 2, 2],
)


# --- settings ---------------------------------------------------------------------------


def test_blank_settings_keep_the_defaults():
    raw = ENTRY.settings_from_form(MultiDict(), BEATLES)
    assert raw == {}
    assert GAME.settings(raw, BEATLES) == {"cards": 8, "target": 3, "eldest": None}


def test_settings_are_read_from_the_steppers_and_the_eldest_chip():
    raw = ENTRY.settings_from_form(MultiDict({"cards": "10", "target": " 5 ", "eldest": "Paul"}), BEATLES)
    assert raw == {"cards": 10, "target": 5, "eldest": "Paul"}
    assert GAME.settings(raw, BEATLES)["eldest"] == "Paul"


def test_not_named_eldest_is_none():
    assert "eldest" not in ENTRY.settings_from_form(MultiDict({"eldest": ""}), BEATLES)


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"cards": "eight"}, "cards", "whole number"),
        ({"target": "2.5"}, "target", "whole number"),
        ({"target": "٣"}, "target", "whole number"),
    ],
)
def test_unreadable_settings_name_their_field(fields, field, words):
    with pytest.raises(RuleError) as caught:
        ENTRY.settings_from_form(MultiDict(fields), BEATLES)
    assert caught.value.field == field and words in caught.value.reason


@pytest.mark.parametrize(
    ("fields", "field"),
    [({"cards": "0"}, "cards"), ({"target": "21"}, "target"), ({"eldest": "Mick"}, "eldest")],
)
def test_out_of_range_settings_are_refused_by_the_rules(fields, field):
    with pytest.raises(RuleError) as caught:
        GAME.settings(ENTRY.settings_from_form(MultiDict(fields), BEATLES), BEATLES)
    assert caught.value.field == field


# --- a round from the entry form --------------------------------------------------------------


def test_rulebook_round_from_the_form():
    data = ENTRY.round_from_form(RULEBOOK, BEATLES, SETTINGS)
    assert data == {
        "theme": "Things that make you lose patience",
        "rows": {
            "John": {"word": "ZANZARA", "used": [7, 2, 7, 2, 3], "unused": 3},
            "Ringo": {"used": [5, 3, 3, 3, 3], "unused": 3},
            "Paul": {"used": [3, 3, 3, 2, 2], "unused": 3},
            "George": {"used": [3, 3, 2, 2, 2], "unused": 3},
        },
    }
    standings = GAME.standings(BEATLES, SETTINGS, [data])
    assert standings.rounds[0] == {"scores": {"John": 18, "Ringo": 14, "Paul": 10, "George": 9}, "winners": ["John"]}


def test_the_lower_row_follows_the_cards_per_player():
    settings = GAME.settings({"cards": 5}, BEATLES)
    data = ENTRY.round_from_form(form(used_0=[4, 4]), BEATLES, settings)
    assert data["rows"]["John"]["unused"] == 3 and data["rows"]["Ringo"] == {"used": [], "unused": 5}


def test_blank_theme_and_words_are_left_out_and_text_is_trimmed():
    data = ENTRY.round_from_form(form(theme="  ", word_0="  zanzara ", used_0=[1]), BEATLES, SETTINGS)
    assert "theme" not in data
    assert data["rows"]["John"]["word"] == "zanzara"
    assert "word" not in data["rows"]["Ringo"]


def test_more_chips_than_cards_is_refused_on_that_players_row():
    data = ENTRY.round_from_form(form(used_1=[1] * 9, used_0=[2]), BEATLES, SETTINGS)
    assert data["rows"]["Ringo"] == {"used": [1] * 9, "unused": 0}
    with pytest.raises(RuleError) as caught:
        GAME.check_round(BEATLES, SETTINGS, data, 1)
    assert caught.value.field == "Ringo"
    assert "9 cards in the rows, but each player has 8" in caught.value.reason


@pytest.mark.parametrize("chip", ["x", "", "1.5", "７", "--5", "-", "1_0"])
def test_a_chip_that_is_not_a_number_names_the_player(chip):
    with pytest.raises(RuleError) as caught:
        ENTRY.round_from_form(form(used_0=[3], used_2=[chip]), BEATLES, SETTINGS)
    assert caught.value.field == "Paul"


def test_a_chip_over_99_is_refused_by_the_rules():
    data = ENTRY.round_from_form(form(used_3=[100]), BEATLES, SETTINGS)
    with pytest.raises(RuleError) as caught:
        GAME.check_round(BEATLES, SETTINGS, data, 1)
    assert caught.value.field == "George" and "0 to 99" in caught.value.reason


def test_a_round_with_no_chip_at_all_is_refused():
    with pytest.raises(RuleError) as caught:
        ENTRY.round_from_form(form(theme="Kitchen", word_0="SALE"), BEATLES, SETTINGS)
    assert caught.value.field == "round"


def test_a_plain_dict_of_lists_reads_like_a_multidict():
    plain = {key: RULEBOOK.getlist(key) for key in RULEBOOK}
    assert ENTRY.round_from_form(plain, BEATLES, SETTINGS) == ENTRY.round_from_form(RULEBOOK, BEATLES, SETTINGS)


# --- the inverse, for corrections -------------------------------------------------------------


def test_form_from_round_gives_the_fields_of_the_entry():
    data = ENTRY.round_from_form(RULEBOOK, BEATLES, SETTINGS)
    fields = ENTRY.form_from_round(data, BEATLES, SETTINGS)
    assert fields["theme"] == ["Things that make you lose patience"]
    assert fields["used-0"] == ["7", "2", "7", "2", "3"]
    assert fields["word-0"] == ["ZANZARA"] and fields["word-1"] == [""]


def test_form_from_round_matches_names_ignoring_case():
    fields = ENTRY.form_from_round({"rows": {"john": {"used": [4], "unused": 7}}}, BEATLES, SETTINGS)
    assert fields["used-0"] == ["4"]


rows = st.fixed_dictionaries(
    {
        "word": st.one_of(st.none(), st.text(min_size=1, max_size=12).map(str.strip)),
        "used": st.lists(st.integers(0, 99), max_size=8),
    }
)


extras = st.dictionaries(st.sampled_from(["at", "note", "by"]), st.text(max_size=5), max_size=2)


@given(
    theme=st.one_of(st.none(), st.text(max_size=20).map(str.strip)),
    row_list=st.lists(rows, min_size=4, max_size=4).filter(lambda rs: any(r["used"] for r in rs)),
    round_extra=extras,
    row_extra=extras,
)
def test_form_from_round_is_the_inverse_of_round_from_form(theme, row_list, round_extra, row_extra):
    data = {**round_extra, **({"theme": theme} if theme else {})}
    data["rows"] = {
        name: {**({"word": row["word"]} if row["word"] else {}), "used": row["used"], "unused": 8 - len(row["used"])}
        for name, row in zip(BEATLES, row_list, strict=True)
    }
    data["rows"]["Paul"].update(row_extra)
    fields = ENTRY.form_from_round(data, BEATLES, SETTINGS)
    assert ENTRY.round_from_form(fields, BEATLES, SETTINGS) == data
    as_posted = MultiDict([(key, value) for key, values in fields.items() for value in values])
    assert ENTRY.round_from_form(as_posted, BEATLES, SETTINGS) == data


def test_a_correction_keeps_keys_the_form_has_no_field_for():
    data = {"at": "2024-11-02T20:22:00Z", "rows": {name: {"used": [5], "unused": 7} for name in BEATLES}}
    data["rows"]["Ringo"]["note"] = "copied an A"
    fields = ENTRY.form_from_round(data, BEATLES, SETTINGS)
    fields["used-0"] = ["9"]
    corrected = ENTRY.round_from_form(fields, BEATLES, SETTINGS)
    assert corrected["at"] == data["at"] and corrected["rows"]["Ringo"]["note"] == "copied an A"
    assert corrected["rows"]["John"] == {"used": [9], "unused": 7}


@pytest.mark.parametrize("extra", ["{", "[]", '{"round": 1, "rows": {}}'])
def test_an_unreadable_extra_field_is_refused(extra):
    with pytest.raises(RuleError) as caught:
        ENTRY.round_from_form(form(used_0=[3], extra=extra), BEATLES, SETTINGS)
    assert caught.value.field == "round"


# --- the live entry ---------------------------------------------------------------------------


def test_entry_step_scores_each_row_live_and_marks_who_takes_the_point():
    entry = ENTRY.step(RULEBOOK, GAME.replay(BEATLES, SETTINGS, []))
    assert [row["score"] for row in entry["rows"]] == [18, 14, 10, 9]
    assert [row["unused"] for row in entry["rows"]] == [3, 3, 3, 3]
    assert entry["leaders"] == ["John"] and entry["active"] == 0
    assert entry["rows"][0]["chips"] == ["7", "2", "7", "2", "3"]


def test_entry_step_of_an_empty_form_has_no_leader_yet():
    entry = ENTRY.step({}, GAME.replay(BEATLES, SETTINGS, []))
    assert entry["leaders"] == [] and {row["score"] for row in entry["rows"]} == {-8}
    assert entry["theme"] == "" and entry["cards"] == 8


def test_entry_step_shows_a_tie_and_the_row_that_was_active():
    entry = ENTRY.step(form(used_0=[9], used_2=[9], active=2), GAME.replay(BEATLES, SETTINGS, []))
    assert entry["leaders"] == ["John", "Paul"] and entry["active"] == 2


@pytest.mark.parametrize("active", ["9", "-1", "x", ""])
def test_entry_step_never_raises_on_odd_input(active):
    entry = ENTRY.step(form(used_0=["x", 5], active=active), GAME.replay(BEATLES, {}, []))
    assert entry["active"] == 0
    assert entry["rows"][0]["chips"] == ["x", "5"] and entry["rows"][0]["score"] == 5 - 6
