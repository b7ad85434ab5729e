"""Unit tests of the chances to win before a match, against openskill's own prediction called directly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce
from werkzeug.datastructures import MultiDict

from companion.games import get_game
from companion.queries.ratings import whole_percents, win_chances

LIBRARY = PlackettLuce()
KEPT = {1: (31.2, 4.1), 2: (22.5, 5.3), 3: (27.0, 6.2), 4: (18.4, 3.9), 5: (25.9, 7.7)}


def predicted(sides: list[list[int | None]]) -> list[float]:
    """The library's own chance of each side in percent, a player not in KEPT at its default rating."""
    teams = [[LIBRARY.rating(mu=KEPT[p][0], sigma=KEPT[p][1]) if p in KEPT else LIBRARY.rating() for p in side]
             for side in sides]  # fmt: skip
    return [100 * chance for chance in LIBRARY.predict_win(teams)]


def test_two_players_get_the_librarys_chances_rounded():
    exact = predicted([[1], [2]])
    chances = win_chances([[1], [2]], KEPT)
    assert chances == [round(exact[0]), 100 - round(exact[0])]
    assert chances[0] > 50 > chances[1]


def test_five_players_get_the_librarys_chances_summing_to_100():
    sides = [[1], [2], [3], [4], [5]]
    exact = predicted(sides)
    chances = win_chances(sides, KEPT)
    assert sum(chances) == 100
    assert all(abs(whole - value) < 1 for whole, value in zip(chances, exact, strict=True))
    # The best rated is likeliest, the worst least likely, as the library says.
    assert chances.index(max(chances)) == exact.index(max(exact)) == 0
    assert chances.index(min(chances)) == exact.index(min(exact)) == 3


def test_burraco_pairs_are_two_teams_of_two():
    # Seats 1 and 3 against seats 2 and 4: the library predicts the teams, not the players.
    chances = win_chances([[1, 3], [2, 4]], KEPT)
    exact = predicted([[1, 3], [2, 4]])
    assert chances == [round(exact[0]), 100 - round(exact[0])]
    assert chances != win_chances([[1], [2]], KEPT)


def test_a_player_with_no_rating_counts_as_a_newcomer():
    # Not in the roster yet (None), or in it but never rated at the game (id 9): the library's default.
    assert win_chances([[None], [9]], KEPT) == [50, 50]
    newcomer = LIBRARY.rating()
    assert (newcomer.mu, newcomer.sigma) == (25.0, 25 / 3)
    against = predicted([[1], [None]])
    assert win_chances([[1], [None]], KEPT) == [round(against[0]), 100 - round(against[0])]
    assert win_chances([[1], [None]], KEPT) == win_chances([[1], [9]], KEPT)
    # Three newcomers share 100 points as evenly as whole numbers can.
    assert win_chances([[None], [None], [None]], {}) == [34, 33, 33]


@given(st.lists(st.floats(min_value=0.001, max_value=1), min_size=2, max_size=10))
def test_whole_percents_sum_to_100_and_stay_within_a_point(weights):
    shares = [weight / sum(weights) for weight in weights]
    whole = whole_percents(shares)
    assert sum(whole) == 100
    assert all(abs(w - 100 * s) < 1 for w, s in zip(whole, shares, strict=True))


@pytest.mark.parametrize(
    "game, seats, mode, sides",
    [
        ("burraco", ["A", "B", "C", "D"], "pairs", [["A", "C"], ["B", "D"]]),
        ("burraco", ["A", "B", "C", "D"], "alone", [["A"], ["B"], ["C"], ["D"]]),
        # Pairs chosen, then a player removed: three play alone.
        ("burraco", ["A", "B", "C"], "pairs", [["A"], ["B"], ["C"]]),
        ("topic", ["A", "B", "C", "D"], "pairs", [["A"], ["B"], ["C"], ["D"]]),
    ],
)
def test_the_new_match_form_groups_the_seats_into_sides(game, seats, mode, sides):
    form = MultiDict({"burraco_mode": mode})
    assert get_game(game).entry.sides_from_form(form, seats) == sides
