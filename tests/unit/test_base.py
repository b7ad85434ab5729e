"""Unit tests of the shared rules machinery: errors, players, numbers, the registry and match files."""

from __future__ import annotations

import pytest

from companion.games import FORMAT, REGISTRY, get_game, score_match
from companion.games.base import Standings
from companion.games.checks import validate_players, whole
from companion.games.entry import Entry
from companion.games.refusals import RuleError


def match(**overrides):
    """A valid empty Pazzaparola match file, with some keys replaced."""
    data = {"format": FORMAT, "game": "pazzaparola", "players": ["Ann", "Bob"], "settings": {}, "rounds": []}
    data.update(overrides)
    return data


def test_rule_error_names_round_field_and_reason():
    error = RuleError("9 cards in the rows, but each player has 8", field="Bob", round=2)
    assert str(error) == "round 2: Bob: 9 cards in the rows, but each player has 8"
    assert (error.round, error.field, error.reason) == (
        2,
        "Bob",
        "9 cards in the rows, but each player has 8",
    )


def test_rule_error_without_round_or_field():
    assert str(RuleError("bad", field="target")) == "target: bad"
    assert str(RuleError("bad", round=3)) == "round 3: bad"
    assert str(RuleError("bad")) == "bad"


def test_in_round_keeps_an_existing_round():
    assert RuleError("x", field="f").in_round(4).round == 4
    assert RuleError("x", round=2).in_round(4).round == 2


def test_rule_error_is_a_value_error():
    assert issubclass(RuleError, ValueError)


def test_validate_players_trims_and_keeps_order():
    assert validate_players(["  Ann ", "Bob  Lee", "Cy"]) == ["Ann", "Bob Lee", "Cy"]


@pytest.mark.parametrize(
    "names, words",
    [
        (["Ann", "ann"], "ann is seated twice"),
        (["Ann", "   "], "seat 2: a name has 1 to 40 characters"),
        (["Ann", "x" * 41], "seat 2: a name has 1 to 40 characters"),
        (["Ann", 7], "seat 2: a name must be text"),
        ("Ann", "must be a list"),
    ],
)
def test_validate_players_errors(names, words):
    with pytest.raises(RuleError) as caught:
        validate_players(names)
    assert caught.value.field == "players"
    assert words in str(caught.value)


def test_forty_characters_is_allowed():
    assert validate_players(["x" * 40, "y"]) == ["x" * 40, "y"]


@pytest.mark.parametrize("value", [True, False, 2.5, 3.0, "3", None, [3]])
def test_whole_refuses_non_integers(value):
    with pytest.raises(RuleError, match="must be a whole number"):
        whole(value, "target", lo=0)


def test_whole_checks_bounds_and_accepts_ints():
    assert whole(0, "x", lo=0, hi=99) == 0
    assert whole(-7, "x") == -7
    with pytest.raises(RuleError, match="from 0 to 99, got 100"):
        whole(100, "x", lo=0, hi=99)


def test_registry_has_the_four_games_with_display_names():
    assert {slug: game.name for slug, game in REGISTRY.items()} == {
        "pazzaparola": "Pazzaparola",
        "burraco": "Burraco PAROLE",
        "topic": "Topic_",
        "pazaak": "Pazaak",
    }
    assert [(g.min_players, g.max_players) for g in REGISTRY.values()] == [(2, 8), (2, 5), (2, 10), (2, 2)]


def test_get_game_unknown():
    with pytest.raises(RuleError) as caught:
        get_game("chess")
    assert caught.value.field == "game"
    assert 'unknown game "chess"' in str(caught.value)


def test_standings_to_json_shape_and_order():
    standings = Standings("topic", True, ["Ann"], {"Ann": 1, "Bob": 2}, [{"cards": {}}], {"deck": 0})
    assert list(standings.to_json()) == ["game", "over", "winners", "totals", "rounds", "deck"]


def test_score_empty_match():
    assert score_match(match()).to_json() == {
        "game": "pazzaparola",
        "over": False,
        "winners": [],
        "totals": {"Ann": 0, "Bob": 0},
        "rounds": [],
    }


def test_extra_top_level_keys_are_ignored():
    data = match(id="abc", started="2024-01-01T20:00:00Z", finished=None)
    assert score_match(data).totals == {"Ann": 0, "Bob": 0}


def test_settings_may_be_left_out_or_null():
    data = match()
    del data["settings"]
    assert score_match(data).totals == {"Ann": 0, "Bob": 0}
    assert score_match(match(settings=None)).totals == {"Ann": 0, "Bob": 0}


@pytest.mark.parametrize(
    "overrides, field, words",
    [
        ({"format": "companion-match/2"}, "format", 'must be "companion-match/1"'),
        ({"format": None}, "format", 'must be "companion-match/1"'),
        ({"game": "chess"}, "game", "unknown game"),
        ({"players": ["Ann"]}, "players", "Pazzaparola needs 2 to 8 players, got 1"),
        ({"players": [f"P{i}" for i in range(9)]}, "players", "got 9"),
        ({"game": "pazaak", "players": ["A", "B", "C"]}, "players", "Pazaak needs exactly 2 players, got 3"),
        ({"game": "burraco", "players": [f"P{i}" for i in range(6)]}, "players", "2 to 5 players"),
        ({"game": "topic", "players": [f"P{i}" for i in range(11)]}, "players", "2 to 10 players"),
        ({"settings": {"colour": "red"}}, "colour", "unknown setting"),
        ({"settings": []}, "settings", "must be an object"),
        ({"rounds": {}}, "rounds", "must be a list"),
    ],
)
def test_match_file_errors(overrides, field, words):
    with pytest.raises(RuleError) as caught:
        score_match(match(**overrides))
    assert caught.value.field == field
    assert caught.value.round is None
    assert words in str(caught.value)


@pytest.mark.parametrize("key", ["format", "game", "players", "rounds"])
def test_match_file_missing_keys(key):
    data = match()
    del data[key]
    with pytest.raises(RuleError) as caught:
        score_match(data)
    assert caught.value.field == key
    assert "missing" in caught.value.reason


def test_match_file_must_be_an_object():
    with pytest.raises(RuleError, match="a match file must be an object"):
        score_match([match()])


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_every_game_reads_its_own_entry_form(slug):
    # The base class has no entry form: a game without one could not be played on a page. Its
    # settings form the base reads from the game's declared settings, or the game reads its own.
    entry = type(REGISTRY[slug].entry)
    assert entry.round_from_form is not Entry.round_from_form
    assert entry.form_from_round is not Entry.form_from_round
    assert entry.settings_from_form is not Entry.settings_from_form or REGISTRY[slug].declared
    assert set(REGISTRY[slug].entry.setting_fields) == set(REGISTRY[slug].defaults)


def test_ending_round_names_the_round_that_ends_the_game_without_reading_later_ones():
    topic = get_game("topic")
    rounds = [{"losers": ["Ann"]}, {"losers": ["Ann", "Bob"], "penalties": ["Bob"]}, {"losers": ["Bob"]}, "not read"]
    assert topic.ending_round(["Ann", "Bob"], {"deck": 5}, rounds) == 2
    assert topic.ending_round(["Ann", "Bob"], {"deck": 30}, rounds[:3]) is None


def test_a_game_cannot_override_play_and_so_skip_recording_its_rounds():
    from companion.games.base import Game

    with pytest.raises(TypeError, match="score_round"):

        class Careless(Game):
            def play(self, tally, players, settings, round):
                return {}


def test_a_name_that_folds_longer_than_the_limit_is_refused():
    """40 × "ß" is 40 characters as typed but 80 as compared ("ss"): the roster could not keep its key."""
    with pytest.raises(RuleError, match="a name has 1 to 40 characters"):
        validate_players(["ß" * 40, "Bob"])
    assert validate_players(["ß" * 20, "Bob"]) == ["ß" * 20, "Bob"]
