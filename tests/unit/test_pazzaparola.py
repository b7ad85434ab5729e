"""Unit tests of the Pazzaparola rules: word scores, victory points, ties, the end, who announces first."""

from __future__ import annotations

import pytest

from companion.games import get_game
from companion.games.pazzaparola import word_score
from companion.games.refusals import RuleError

GAME = get_game("pazzaparola")
BEATLES = ["John", "Ringo", "Paul", "George"]


def row(score: int, cards: int = 8) -> dict:
    """A row worth `score` points: one card of score+cards-1 points and the rest unused."""
    return {"used": [score + cards - 1], "unused": cards - 1}


def round_of(scores: dict[str, int], cards: int = 8) -> dict:
    """A round in which each player's word scores as given."""
    return {"rows": {name: row(points, cards) for name, points in scores.items()}}


# The rulebook's example: John's ZANZARA is 18; Ringo 14, Paul 10, George 9 (rows made up to match).
ZANZARA_ROUND = {
    "theme": "Things that make you lose patience",
    "rows": {
        "John": {"word": "ZANZARA", "used": [7, 2, 7, 2, 3], "unused": 3},
        "Ringo": {"used": [10, 10], "unused": 6},
        "Paul": {"used": [8, 8], "unused": 6},
        "George": {"used": [7, 8], "unused": 6},
    },
}


def test_word_score_is_used_minus_unused():
    assert word_score([7, 2, 7, 2, 3], 3) == 18
    assert word_score([], 8) == -8


def test_rulebook_zanzara_example():
    standings = GAME.standings(BEATLES, {}, [ZANZARA_ROUND])
    assert standings.rounds == [
        {"scores": {"John": 18, "Ringo": 14, "Paul": 10, "George": 9}, "winners": ["John"]}
    ]
    assert standings.totals == {"John": 1, "Ringo": 0, "Paul": 0, "George": 0}
    assert (standings.over, standings.winners) == (False, [])


def test_tied_round_gives_each_top_scorer_a_point():
    standings = GAME.standings(BEATLES, {}, [round_of({"John": 12, "Ringo": 12, "Paul": 3, "George": 12})])
    assert standings.rounds[0]["winners"] == ["John", "Ringo", "George"]
    assert standings.totals == {"John": 1, "Ringo": 1, "Paul": 0, "George": 1}


def test_negative_scores_can_win():
    rows = {"A": {"used": [], "unused": 8}, "B": {"used": [0], "unused": 7}}
    standings = GAME.standings(["A", "B"], {}, [{"rows": rows}])
    assert standings.rounds[0] == {"scores": {"A": -8, "B": -7}, "winners": ["B"]}


def test_game_ends_at_target_with_a_single_winner():
    rounds = [round_of({"A": 5, "B": 1})] * 3
    standings = GAME.standings(["A", "B"], {}, rounds)
    assert standings.over and standings.winners == ["A"]
    assert GAME.standings(["A", "B"], {}, rounds[:2]).over is False


def test_tie_for_victory():
    rounds = [round_of({"A": 5, "B": 5, "C": 0})] * 2
    standings = GAME.standings(["A", "B", "C"], {"target": 2}, rounds)
    assert standings.over and standings.winners == ["A", "B"]


def test_round_after_the_end_is_an_error():
    with pytest.raises(RuleError) as caught:
        GAME.standings(["A", "B"], {"target": 1}, [round_of({"A": 5, "B": 1})] * 2)
    assert caught.value.round == 2
    assert str(caught.value) == "round 2: the game was already over after round 1"


def test_custom_card_count():
    standings = GAME.standings(["A", "B"], {"cards": 5}, [round_of({"A": 3, "B": 4}, cards=5)])
    assert standings.rounds[0]["winners"] == ["B"]


def test_settings_defaults_and_eldest():
    assert GAME.settings(None, ["A", "B"]) == {"cards": 8, "target": 3, "eldest": None}
    assert GAME.settings({"eldest": "b"}, ["A", "B"])["eldest"] == "B"


def test_extra_keys_pass_through_check_round():
    raw = {**round_of({"A": 1, "B": 2}), "at": "2024-05-01T20:00:00Z", "theme": "Fruit"}
    raw["rows"]["A"]["cards"] = ["Z", "A"]
    checked = GAME.check_round(["A", "B"], GAME.settings({}, ["A", "B"]), raw, 1)
    assert checked["at"] == "2024-05-01T20:00:00Z" and checked["theme"] == "Fruit"
    assert checked["rows"]["A"]["cards"] == ["Z", "A"]
    assert GAME.check_round(["A", "B"], GAME.settings({}, ["A", "B"]), checked, 1) == checked


def test_round_names_are_matched_ignoring_case():
    checked = GAME.check_round(
        ["Ann", "Bob"], GAME.settings({}, ["Ann", "Bob"]), round_of({"ann": 1, "BOB": 2}), 1
    )
    assert list(checked["rows"]) == ["Ann", "Bob"]


def test_next_to_start():
    players = ["A", "B", "C"]
    assert GAME.starter(GAME.replay(players, {}, [])) is None
    assert GAME.starter(GAME.replay(players, {"eldest": "C"}, [])) == "C"
    assert GAME.starter(GAME.replay(players, {"eldest": "C"}, [round_of({"A": 1, "B": 9, "C": 0})])) == "B"
    tied = [round_of({"A": 9, "B": 9, "C": 0})]
    assert GAME.starter(GAME.replay(players, {"eldest": "C"}, tied)) == "C"
    assert GAME.starter(GAME.replay(players, {}, tied)) is None
    over = [round_of({"A": 9, "B": 1, "C": 0})]
    assert GAME.starter(GAME.replay(players, {"target": 1}, over)) is None
