"""Unit tests of the Burraco PAROLE rules: hand scores, closing, pairs, target and hand limit, the deal."""

from __future__ import annotations

import pytest

from companion.games import get_game
from companion.games.burraco import hand_score
from companion.games.refusals import RuleError

GAME = get_game("burraco")
PAIRS = {"Noi": ["Ann", "Cy"], "Voi": ["Bob", "Di"]}
FOUR = ["Ann", "Bob", "Cy", "Di"]


def entry(table=0, hand=0, clean=0, dirty=0) -> dict:
    """One side's line of a hand."""
    return {"table": table, "hand": hand, "clean": clean, "dirty": dirty}


def hand(closed_by=None, **sides) -> dict:
    """A hand with these side entries."""
    return {"sides": sides, "closed_by": closed_by}


def test_hand_score_formula_with_defaults():
    settings = GAME.settings({}, ["A", "B"])
    assert hand_score(entry(120, 15, 1, 0), True, settings) == 120 - 15 + 200 + 100
    assert hand_score(entry(40, 30, 0, 2), False, settings) == 40 - 30 + 200
    assert hand_score(entry(0, 55), False, settings) == -55


def test_standings_of_one_hand():
    standings = GAME.standings(["A", "B"], {}, [hand("A", A=entry(120, 0, 1, 0), B=entry(30, 45, 0, 1))])
    assert standings.rounds == [{"scores": {"A": 420, "B": 85}}]
    assert standings.totals == {"A": 420, "B": 85}
    assert not standings.over


def test_custom_bonus_values():
    settings = {"clean": 300, "dirty": 150, "closing": 50}
    standings = GAME.standings(["A", "B"], settings, [hand("A", A=entry(10, 0, 1, 1), B=entry())])
    assert standings.totals == {"A": 10 + 300 + 150 + 50, "B": 0}


def test_hand_without_closing():
    standings = GAME.standings(["A", "B"], {}, [hand(None, A=entry(50, 10), B=entry(20, 0))])
    assert standings.totals == {"A": 40, "B": 20}


def test_burraco_counts_default_to_zero():
    standings = GAME.standings(
        ["A", "B"], {}, [{"sides": {"A": {"table": 5, "hand": 1}, "B": {"table": 0, "hand": 0}}}]
    )
    assert standings.totals == {"A": 4, "B": 0}


def test_target_ends_the_game_and_highest_wins():
    rounds = [hand("A", A=entry(700, 0, 1), B=entry(100, 0))] * 2
    standings = GAME.standings(["A", "B"], {}, rounds)
    assert standings.over and standings.winners == ["A"]
    assert standings.totals == {"A": 2000, "B": 200}


def test_highest_total_wins_even_if_two_reach_the_target():
    rounds = [hand("A", A=entry(900, 0, 1), B=entry(1300, 50))]
    standings = GAME.standings(["A", "B"], {}, rounds)
    assert standings.over and standings.winners == ["B"]


def test_without_a_target_the_match_plays_exactly_its_hands():
    # A club evening's turn: 3 hands, however far a pair runs ahead.
    settings = GAME.settings({"target": None, "hands": 3}, ["A", "B"])
    rounds = [hand("A", A=entry(1500, 0, 1), B=entry(10))] * 3
    assert not GAME.standings(["A", "B"], settings, rounds[:2]).over
    standings = GAME.standings(["A", "B"], settings, rounds)
    assert standings.over and standings.winners == ["A"]


def test_no_target_and_no_hand_limit_is_refused():
    with pytest.raises(RuleError) as refused:
        GAME.settings({"target": None, "hands": None}, ["A", "B"])
    assert refused.value.field == "target" and "never ends" in str(refused.value)


def test_hand_limit_ends_the_game_with_a_tie():
    rounds = [hand(None, A=entry(10), B=entry(10))] * 4
    standings = GAME.standings(["A", "B"], {}, rounds)
    assert standings.over and standings.winners == ["A", "B"]
    assert not GAME.standings(["A", "B"], {}, rounds[:3]).over


def test_no_hand_limit():
    rounds = [hand(None, A=entry(10), B=entry(5))] * 12
    assert not GAME.standings(["A", "B"], {"hands": None}, rounds).over


def test_round_after_the_end():
    with pytest.raises(RuleError, match=r"^round 3: the game was already over after round 2$"):
        GAME.standings(["A", "B"], {"hands": 2}, [hand(None, A=entry(), B=entry())] * 3)


def test_pairs_score_by_team_in_seat_order():
    standings = GAME.standings(
        FOUR,
        {"teams": {"Voi": ["Di", "Bob"], "Noi": ["Cy", "Ann"]}},
        [hand("Noi", Noi=entry(100, 0, 1), Voi=entry(60, 20))],
    )
    assert standings.totals == {"Noi": 400, "Voi": 40}
    assert GAME.settings({"teams": PAIRS}, FOUR)["teams"] == PAIRS
    assert GAME.sides(FOUR, GAME.settings({"teams": PAIRS}, FOUR)) == ["Noi", "Voi"]


def test_in_pairs_the_closers_partner_may_still_hold_cards_which_count_against_the_pair():
    # The rulebook's example: Ann closes, her partner Cy still holds 25 points; the pair laid
    # 230 with a clean burraco.
    standings = GAME.standings(
        FOUR, {"teams": PAIRS}, [hand("Noi", Noi=entry(230, 25, 1), Voi=entry(150, 40, 0, 1))]
    )
    assert standings.totals["Noi"] == 230 - 25 + 200 + 100 == 505
    assert standings.totals["Voi"] == 150 - 40 + 100


def test_playing_alone_the_closer_still_holds_nothing():
    with pytest.raises(RuleError, match=r"^round 1: Ann: closed the hand but holds 25 points in hand") as caught:
        GAME.standings(FOUR, {}, [hand("Ann", Ann=entry(230, 25, 1), Bob=entry(), Cy=entry(), Di=entry())])
    assert caught.value.field == "Ann"


def test_in_pairs_the_closing_pair_still_needs_a_burraco():
    with pytest.raises(RuleError, match="closed the hand without having made a burraco") as caught:
        GAME.standings(FOUR, {"teams": PAIRS}, [hand("Noi", Noi=entry(230, 25), Voi=entry())])
    assert caught.value.field == "Noi"


@pytest.mark.parametrize(
    "players, teams, words",
    [
        (["Ann", "Cy", "Bob", "Di"], PAIRS, "partners sit opposite"),
        (["Ann", "Bob", "Cy"], PAIRS, "pairs need exactly 4 players, got 3"),
        (FOUR, {"Noi": ["Ann", "Cy"]}, "exactly two teams, got 1"),
        (FOUR, {"Noi": ["Ann", "Cy", "Bob"], "Voi": ["Di"]}, "team Noi must have 2 players, got 3"),
        (FOUR, {"Noi": ["Ann", "Cy"], "Voi": ["Ann", "Di"]}, "Ann is in two teams"),
        (FOUR, {"Noi": ["Ann", "Cy"], "Voi": ["Bob", "Zed"]}, '"Zed" is not one of Ann, Bob, Cy, Di'),
        (FOUR, {"Noi": ["Ann", "Cy"], "noi": ["Bob", "Di"]}, "different names"),
        (FOUR, {"": ["Ann", "Cy"], "Voi": ["Bob", "Di"]}, "a team name has 1 to 40 characters"),
        (FOUR, ["Ann", "Cy"], "must be an object"),
    ],
)
def test_pairs_errors(players, teams, words):
    with pytest.raises(RuleError) as caught:
        GAME.settings({"teams": teams}, players)
    assert caught.value.field == "teams"
    assert words in str(caught.value)


def test_next_dealer_passes_clockwise_from_seat_one():
    one = hand(None, A=entry(), B=entry(), C=entry())
    assert [GAME.dealer(GAME.replay(["A", "B", "C"], {"hands": None}, [one] * n)) for n in range(4)] == [
        "A",
        "B",
        "C",
        "A",
    ]
    assert GAME.dealer(GAME.replay(["A", "B", "C"], {"hands": 1}, [one])) is None
