"""Unit tests of the Pazaak rules: set outcomes, table totals, bust, nine cards, tiebreaker, the match."""

from __future__ import annotations

import pytest

from companion.games import get_game
from companion.games.refusals import RuleError

GAME = get_game("pazaak")
P = ["Ann", "Bob"]


def table(ann: int, bob: int, filled=(), tiebreaker=None) -> dict:
    """A set given by its table totals."""
    return {"totals": {"Ann": ann, "Bob": bob}, "filled": list(filled), "tiebreaker": tiebreaker}


@pytest.mark.parametrize(
    "round, winner",
    [
        ({"winner": "Ann"}, "Ann"),
        ({"winner": "bob"}, "Bob"),
        ({"winner": None}, None),
        (table(19, 22), "Ann"),
        (table(25, 20), "Bob"),
        (table(12, 18, filled=["Ann"]), "Ann"),
        (table(22, 14, filled=["Bob"]), "Bob"),
        (table(18, 17), "Ann"),
        (table(-3, -5), "Ann"),
        (table(19, 19, tiebreaker="Bob"), "Bob"),
        (table(19, 19), None),
        (table(17, 19, tiebreaker="Ann"), "Bob"),
        ({"totals": {"Ann": 15, "Bob": 16}}, "Bob"),
        ({**table(19, 22), "winner": "Ann"}, "Ann"),
        ({**table(19, 19), "winner": None}, None),
    ],
)
def test_set_winner(round, winner):
    standings = GAME.standings(P, {}, [round])
    assert standings.rounds == [{"winner": winner}]
    expected = {"Ann": 0, "Bob": 0}
    if winner:
        expected[winner] = 1
    assert standings.totals == expected


def test_match_to_three_set_wins_with_a_tied_set():
    rounds = [{"winner": "Ann"}, table(20, 20), table(22, 3), {"winner": "Ann"}, table(19, 18)]
    standings = GAME.standings(P, {}, rounds)
    assert standings.totals == {"Ann": 3, "Bob": 1}
    assert standings.over and standings.winners == ["Ann"]
    assert not GAME.standings(P, {}, rounds[:4]).over
    with pytest.raises(RuleError, match=r"^round 6: the game was already over after round 5$"):
        GAME.standings(P, {}, rounds + [{"winner": "Bob"}])


def test_sets_setting():
    assert GAME.standings(P, {"sets": 1}, [{"winner": "Bob"}]).winners == ["Bob"]


def test_hands_setting_normalises_labels():
    settings = GAME.settings({"hands": {"ann": ["+3", "-2", "+/-4", "flip 2&4"]}}, P)
    assert settings == {"sets": 3, "hands": {"Ann": ["+3", "\u22122", "\u00b14", "Flip 2&4"], "Bob": []}}
    assert GAME.settings(settings, P) == settings


@pytest.mark.parametrize(
    "hands, words",
    [
        ({"Ann": ["+1", "+2", "+3", "+4", "+5"]}, "Ann holds 5 side cards, but a hand has at most 4"),
        ({"Ann": ["+7"]}, 'Ann: "+7" is not a side card'),
        ({"Zed": []}, '"Zed" is not one of Ann, Bob'),
        ({"Ann": "+1"}, "must be a list"),
    ],
)
def test_hands_errors(hands, words):
    with pytest.raises(RuleError) as caught:
        GAME.settings({"hands": hands}, P)
    assert caught.value.field == "hands"
    assert words in str(caught.value)


def test_next_to_start_alternates():
    rounds = [{"winner": None}, {"winner": "Ann"}]
    assert [GAME.starter(GAME.replay(P, {}, rounds[:n])) for n in range(3)] == ["Ann", "Bob", "Ann"]
    assert GAME.starter(GAME.replay(P, {"sets": 1}, rounds)) is None
