"""A club evening's movements: every turn a valid schedule, and each movement's own promise kept."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.club.movements import (
    Turn,
    all_italiana,
    danese,
    danese_modificato,
    met,
    mitchell,
    mitchell_turns_possible,
    round_robin_turns,
    swiss,
)
from companion.games.refusals import RuleError


def assert_valid(turn: Turn, entrants) -> None:
    """No one at two tables, everyone seated or with a bye exactly once, tables numbered 1..n."""
    seats = turn.seated() + list(turn.byes)
    assert sorted(seats) == sorted(entrants)
    assert [table.number for table in turn.tables] == list(range(1, len(turn.tables) + 1))
    assert all(len(table.sides) == 2 for table in turn.tables)


def perfect_matchings(people):
    if not people:
        yield []
        return
    first, rest = people[0], people[1:]
    for index, partner in enumerate(rest):
        for matching in perfect_matchings(rest[:index] + rest[index + 1 :]):
            yield [(first, partner), *matching]


@st.composite
def histories(draw, least=2, most=9):
    """Entrants, some past turns drawn at random (a random order paired off, the last odd one out a bye), and
    the standings now (another random order)."""
    entrants = list(range(draw(st.integers(least, most))))
    past = []
    for number in range(1, draw(st.integers(0, 4)) + 1):
        shuffled = draw(st.permutations(entrants))
        past.append(danese(shuffled, number))
    return entrants, past, draw(st.permutations(entrants))


# --- Mitchell ----------------------------------------------------------------------------------------------


@st.composite
def mitchells(draw):
    entrants = list(range(draw(st.integers(2, 16))))
    clubs = {e: club for e in entrants if (club := draw(st.sampled_from(["Como", "Lecco", "Varese", None])))}
    turns = draw(st.integers(1, mitchell_turns_possible(len(entrants))))
    return entrants, clubs, turns


@given(mitchells())
def test_mitchell_n_s_stay_put_and_meet_n_different_e_w(case):
    entrants, clubs, turns = case
    schedule = mitchell(entrants, turns, clubs)
    assert len(schedule) == turns
    for turn in schedule:
        assert_valid(turn, entrants)
    staying = {table.number: table.north_south for table in schedule[0].tables}
    for turn in schedule:
        assert {table.number: table.north_south for table in turn.tables} == staying
    for north_south in staying.values():
        met_by = [t.east_west for turn in schedule for t in turn.tables if t.north_south == north_south]
        assert len(set(met_by)) == len(met_by) == turns
    lines = [{t.north_south for t in schedule[0].tables}, {t.east_west for t in schedule[0].tables}]
    assert not lines[0] & lines[1]
    assert abs(len(entrants) - 2 * len(lines[0])) <= 1


def _whole_clubs_fill_a_line(entrants, clubs):
    groups = {}
    for entrant in entrants:
        groups.setdefault(clubs.get(entrant, ("alone", entrant)), []).append(entrant)
    sizes = [len(members) for members in groups.values()]
    return any(sum(chosen) == len(entrants) // 2 for k in range(len(sizes) + 1) for chosen in combinations(sizes, k))


@given(mitchells())
def test_mitchell_keeps_same_club_pairs_apart_when_whole_clubs_can_fill_a_line(case):
    entrants, clubs, turns = case
    schedule = mitchell(entrants, turns, clubs)
    same_club = [
        table.sides
        for turn in schedule
        for table in turn.tables
        if clubs.get(table.north_south) is not None and clubs.get(table.north_south) == clubs.get(table.east_west)
    ]
    if _whole_clubs_fill_a_line(entrants, clubs):
        assert same_club == []


def test_mitchell_of_8_pairs_moves_e_w_one_table_a_turn_and_meets_every_n_s():
    # Burraco's Mitchell: no boards travel, so no bridge skip; 4 tables hold 4 turns without a rematch.
    schedule = mitchell("ABCDEFGH", 4)
    assert [[table.sides for table in turn.tables] for turn in schedule] == [
        [("A", "E"), ("B", "F"), ("C", "G"), ("D", "H")],
        [("A", "H"), ("B", "E"), ("C", "F"), ("D", "G")],
        [("A", "G"), ("B", "H"), ("C", "E"), ("D", "F")],
        [("A", "F"), ("B", "G"), ("C", "H"), ("D", "E")],
    ]


def test_mitchell_of_an_odd_number_gives_the_empty_seat_s_visitor_the_bye():
    schedule = mitchell("ABCDEFG", 4)
    assert [turn.byes for turn in schedule] == [("G",), ("F",), ("E",), ("D",)]


@pytest.mark.parametrize(("entrants", "turns"), [(8, 5), (9, 6), (4, 3), (1, 1), (10, 0)])
def test_a_mitchell_that_cannot_be_made_is_refused(entrants, turns):
    with pytest.raises(RuleError) as refused:
        mitchell(list(range(entrants)), turns)
    assert refused.value.field in {"turns", "entrants"}


def test_an_entrant_listed_twice_is_refused():
    with pytest.raises(RuleError) as refused:
        danese(["A", "B", "A", "C"], 1)
    assert refused.value.field == "entrants"


# --- Danese, Danese modificato, Swiss ----------------------------------------------------------------------


@given(histories())
def test_danese_pairs_neighbours_in_the_standings(case):
    entrants, past, order = case
    turn = danese(order, len(past) + 1, past)
    assert_valid(turn, entrants)
    playing = [entrant for entrant in order if entrant not in turn.byes]
    assert [table.sides for table in turn.tables] == list(zip(playing[::2], playing[1::2], strict=True))


@pytest.mark.parametrize("draw", [danese, danese_modificato, swiss])
@given(case=histories())
def test_the_bye_goes_to_the_lowest_placed_without_one(draw, case):
    entrants, past, order = case
    turn = draw(order, len(past) + 1, past)
    had = {entrant for earlier in past for entrant in earlier.byes}
    if len(entrants) % 2 == 0:
        assert turn.byes == ()
    else:
        without = [entrant for entrant in order if entrant not in had]
        assert turn.byes == ((without or order)[-1],)


def _cost(playing, pairs):
    """How far a pairing is from the plain Danese: its squared gaps in the standings, the bye left out."""
    return sum((playing.index(a) - playing.index(b)) ** 2 for a, b in pairs)


@pytest.mark.parametrize("draw", [danese_modificato, swiss])
@settings(max_examples=150)
@given(case=histories(most=9))
def test_no_rematch_whenever_a_pairing_without_one_exists_and_the_closest_to_danese_among_them(draw, case):
    entrants, past, order = case
    turn = draw(order, len(past) + 1, past)
    assert_valid(turn, entrants)
    already = met(past)
    playing = [entrant for entrant in order if entrant not in turn.byes]
    fresh = [m for m in perfect_matchings(playing) if not any(frozenset(pair) in already for pair in m)]
    chosen = [table.sides for table in turn.tables]
    rematches = sum(frozenset(pair) in already for pair in chosen)
    if fresh:
        assert rematches == 0
        assert _cost(playing, chosen) == min(_cost(playing, m) for m in fresh)
    else:
        fewest = min(sum(frozenset(pair) in already for pair in m) for m in perfect_matchings(playing))
        assert rematches == fewest
    plain = danese(order, len(past) + 1, past)
    if not any(frozenset(table.sides) in already for table in plain.tables):
        assert turn == plain
    assert all(order.index(table.north_south) < order.index(table.east_west) for table in turn.tables)


# --- All'italiana ---------------------------------------------------------------------------------------------


@given(size=st.integers(2, 20), groups=st.integers(1, 5))
def test_all_italiana_everyone_meets_everyone_in_its_group(size, groups):
    entrants = list(range(size))
    if groups > size // 2:
        with pytest.raises(RuleError) as refused:
            all_italiana(entrants, groups)
        assert refused.value.field == "groups"
        return
    sizes = [len(entrants[g::groups]) for g in range(groups)]
    turns = min(round_robin_turns(n) for n in sizes)
    schedule = all_italiana(entrants, groups, turns)
    for turn in schedule:
        assert_valid(turn, entrants)
    meetings = [frozenset(table.sides) for turn in schedule for table in turn.tables]
    assert len(meetings) == len(set(meetings))
    if len(set(sizes)) == 1:  # every group plays its whole round: the groups are cliques of who met whom
        circle = {e: {e} | {o for pair in meetings if e in pair for o in pair} for e in entrants}
        assert all(len(circle[e]) == sizes[0] and all(circle[o] == circle[e] for o in circle[e]) for e in entrants)


def test_all_italiana_deals_groups_in_snake_order():
    schedule = all_italiana("ABCDEFGH", 2)
    assert len(schedule) == 3
    met_by_a = {other for turn in schedule for table in turn.tables if "A" in table.sides for other in table.sides}
    assert met_by_a - {"A"} == {"D", "E", "H"}


def test_all_italiana_refuses_more_turns_than_the_smallest_group_holds():
    with pytest.raises(RuleError) as refused:
        all_italiana(list(range(9)), 2, 4)
    assert refused.value.field == "turns"
