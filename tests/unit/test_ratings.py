"""Unit tests of the ratings' ranks per game, ties, teams and provisional players, against openskill called directly."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from companion.games import get_game
from companion.queries.ratings import PROVISIONAL_MATCHES, friendly, is_provisional
from companion.services.ratings import Standing, rate

LIBRARY = PlackettLuce()


@pytest.mark.parametrize(
    "game, totals, ranks",
    [
        # Victory points, totals, sets won: the most ranks first.
        ("pazzaparola", {"Ann": 3, "Bob": 1, "Cy": 2}, {"Ann": 1, "Bob": 3, "Cy": 2}),
        ("burraco", {"Noi": 1020, "Voi": 870}, {"Noi": 1, "Voi": 2}),
        ("pazaak", {"Ann": 2, "Bob": 3}, {"Ann": 2, "Bob": 1}),
        # Cards held: the fewest ranks first.
        ("topic", {"Ann": 4, "Bob": 1, "Cy": 9}, {"Ann": 2, "Bob": 1, "Cy": 3}),
        # Equal standings share a rank, and the next rank counts them both.
        ("pazzaparola", {"Ann": 3, "Bob": 3, "Cy": 0}, {"Ann": 1, "Bob": 1, "Cy": 3}),
        ("topic", {"Ann": 2, "Bob": 5, "Cy": 5, "Di": 7}, {"Ann": 1, "Bob": 2, "Cy": 2, "Di": 4}),
    ],
)
def test_the_final_ranks_come_from_each_games_standings(game, totals, ranks):
    assert get_game(game).final_ranks(totals) == ranks


def library(teams, ranks):
    """The library's update of fresh players in these teams with these ranks."""
    rated = LIBRARY.rate([[LIBRARY.rating() for _ in team] for team in teams], ranks=ranks)
    return [[(r.mu, r.sigma) for r in team] for team in rated]


def test_a_match_of_players_alone_is_rated_as_the_library_rates_it():
    standings: dict[int, Standing] = {}
    # Topic_: 1 holds 4 cards, 2 holds 1, 3 holds 9.
    assert rate("topic", [(1, None, 4), (2, None, 1), (3, None, 9)], standings) == [1, 2, 3]
    expected = library([[1], [2], [3]], [2, 1, 3])
    assert [(standings[p].mu, standings[p].sigma) for p in (1, 2, 3)] == [team[0] for team in expected]
    assert standings[2].mu > standings[1].mu > standings[3].mu


def test_a_tie_is_rated_as_the_library_rates_a_shared_rank():
    standings: dict[int, Standing] = {}
    rate("pazzaparola", [(1, None, 3), (2, None, 3), (3, None, 1)], standings)
    expected = library([[1], [2], [3]], [1, 1, 3])
    assert [(standings[p].mu, standings[p].sigma) for p in (1, 2, 3)] == [team[0] for team in expected]
    assert standings[1].mu == standings[2].mu


def test_burraco_pairs_are_two_teams_of_two():
    standings: dict[int, Standing] = {}
    # Seats in order: Noi, Voi, Noi, Voi; each seat holds its team's total.
    seats = [(1, "Noi", 870), (2, "Voi", 1020), (3, "Noi", 870), (4, "Voi", 1020)]
    rate("burraco", seats, standings)
    (noi, _), (voi, _) = library([[1, 3], [2, 4]], [2, 1])
    assert (standings[1].mu, standings[1].sigma) == noi == (standings[3].mu, standings[3].sigma)
    assert (standings[2].mu, standings[2].sigma) == voi == (standings[4].mu, standings[4].sigma)


def test_a_second_match_starts_from_the_first_ones_ratings():
    standings: dict[int, Standing] = {}
    rate("pazaak", [(1, None, 3), (2, None, 1)], standings)
    rate("pazaak", [(1, None, 0), (2, None, 3)], standings)
    first = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=[1, 2])
    second = LIBRARY.rate([first[0], first[1]], ranks=[2, 1])
    assert (standings[1].mu, standings[1].sigma) == (second[0][0].mu, second[0][0].sigma)
    assert standings[1].matches == standings[2].matches == 2
    # The conservative figure before the first match and after each one, oldest first.
    assert standings[2].recent == [0.0, first[1][0].ordinal(), second[1][0].ordinal()]


def test_a_player_is_provisional_until_five_rated_matches():
    standings: dict[int, Standing] = {}
    for played in range(1, 7):
        rate("pazaak", [(1, None, 3), (2, None, 1)], standings)
        assert standings[1].matches == played
        assert is_provisional(played) == (played < PROVISIONAL_MATCHES)
    assert PROVISIONAL_MATCHES == 5
    # Only the last five matches make the trend: six figures, the one before them first.
    assert len(standings[1].recent) == 6


def test_the_friendly_scale_is_the_conservative_figure_scaled():
    fresh = LIBRARY.rating()
    assert friendly(fresh.ordinal()) == 1000
    assert friendly(1.0) > friendly(0.0) > friendly(-1.0)
