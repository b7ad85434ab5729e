"""A club evening's standings: figures worked out by hand, a plain recomputation after any events, bad ones refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.club.movements import Table, Turn, danese, danese_modificato, mitchell, mitchell_turns_possible
from companion.games.club.scales import PLAIN, preset
from companion.games.club.standings import (
    Closed,
    Evening,
    Forfeit,
    Joined,
    Late,
    Result,
    Withdrawn,
    accept,
    shared_places,
    standings,
)
from companion.games.refusals import RuleError

PAIRS = tuple("ABCDEFGH")


def table(*standing):
    return [(line.entrant, line.tournament_points, line.difference) for line in standing]


def test_eight_pairs_a_mitchell_turn_then_danese_by_hand():
    """8 pairs at 4 tables, 2 hands (the placeholder scale): turn 1 a Mitchell, turns 2 and 3 by the standings."""
    first = mitchell(PAIRS, 1)[0]  # A-E, B-F, C-G, D-H
    results = [
        Result(1, 1, (1200, 100)),  # 1,100 apart, beyond 1,000: 20-0
        Result(1, 2, (300, 400)),  # 100: 9-11
        Result(1, 3, (500, 500)),  # 10-10
        Result(1, 4, (700, 100)),  # 600: 16-4
    ]
    evening = Evening(PAIRS, (first,), preset(2), bye_points=12)
    after_one = standings(evening, results)
    # C and G are tied on 10 and 0, and took 10 each from their own meeting: seeding order decides.
    assert table(*after_one) == [
        ("A", 20, 1100), ("D", 16, 600), ("F", 11, 100), ("C", 10, 0),
        ("G", 10, 0), ("B", 9, -100), ("H", 4, -600), ("E", 0, -1100),
    ]  # fmt: skip
    second = danese([line.entrant for line in after_one], 2, [first])
    assert [t.sides for t in second.tables] == [("A", "D"), ("F", "C"), ("G", "B"), ("H", "E")]
    results += [
        Result(2, 1, (300, 300)),  # 10-10
        Result(2, 2, (0, 250)),  # 250: 8-12
        Result(2, 3, (300, 0)),  # 300: 13-7
        Result(2, 4, (100, 0)),  # 100: 11-9
    ]
    evening = Evening(PAIRS, (first, second), preset(2), bye_points=12)
    after_two = standings(evening, results)
    assert table(*after_two) == [
        ("A", 30, 1100), ("D", 26, 600), ("G", 23, 300), ("C", 22, 250),
        ("F", 19, -150), ("B", 16, -400), ("H", 15, -500), ("E", 9, -1200),
    ]  # fmt: skip
    order = [line.entrant for line in after_two]
    # The plain Danese would bring back four meetings (A-D, G-C, F-B, H-E); the modificato finds none,
    # every pair two places apart (gaps 2, 2, 2, 2: the least sum of squares without a rematch, 16).
    assert [t.sides for t in danese(order, 3, [first, second]).tables] == [
        ("A", "D"), ("G", "C"), ("F", "B"), ("H", "E"),
    ]  # fmt: skip
    third = danese_modificato(order, 3, [first, second])
    assert [t.sides for t in third.tables] == [("A", "G"), ("D", "C"), ("F", "H"), ("B", "E")]
    a_path = after_two[0].path
    assert [(m.turn, m.table, m.side, m.opponent, m.points_for, m.tournament_points) for m in a_path] == [
        (1, 1, "N/S", "E", 1200, 20),
        (2, 1, "N/S", "D", 300, 10),
    ]


def test_tied_entrants_are_ranked_by_head_to_head_then_by_seeding():
    turns = (*mitchell("ABCD", 1), danese("ABDC", 2))  # turn 1 A-C, B-D; turn 2 A-B, D-C
    evening = Evening(tuple("ABCD"), turns, PLAIN, bye_points=0)
    events = [Result(1, 1, (6, 1)), Result(1, 2, (2, 5)), Result(2, 1, (3, 7)), Result(2, 2, (4, 4))]
    # A: 6 + 3 = 9, difference 5 - 4 = 1; B: 2 + 7 = 9, difference -3 + 4 = 1; B beat A 7 to 3.
    assert table(*standings(evening, events)) == [("D", 9, 3), ("B", 9, 1), ("A", 9, 1), ("C", 5, -5)]
    # All even, each took 5 from the one it met: the seeding order of the evening (here D C B A) decides.
    evens = [Result(1, 1, (5, 5)), Result(1, 2, (5, 5))]
    reseeded = Evening(tuple("DCBA"), turns, PLAIN, bye_points=0)
    assert [line.entrant for line in standings(reseeded, evens)] == list("DCBA")
    assert [line.place for line in standings(reseeded, evens)] == [1, 2, 3, 4]
    # Only the seeding orders them: a podium shows them as a tie, in the standings' order.
    assert shared_places(standings(reseeded, evens)) == [1, 1, 1, 1]
    # Head-to-head is no tie: B beat A, so A keeps the place after B's.
    assert shared_places(standings(evening, events)) == [1, 2, 3, 4]


def test_a_late_pair_loses_points_before_the_scale_or_tournament_points_after():
    turns = tuple(mitchell("ABCD", 1))  # A-C, B-D
    events = [Result(1, 1, (600, 500)), Late(1, "A", 100)]
    by_points = standings(Evening(tuple("ABCD"), turns, preset(2), 12, "points"), events)
    assert table(*by_points)[:2] == [("A", 10, 0), ("C", 10, 0)]  # 500 to 500 once A's 100 are off
    by_tournament_points = standings(Evening(tuple("ABCD"), turns, preset(2), 12, "tournament points"), events)
    assert dict((e, tp) for e, tp, _ in table(*by_tournament_points))["A"] == 11 - 100
    # The arbiter's later word on the same lateness replaces the first; 0 lifts it.
    lifted = standings(
        Evening(tuple("ABCD"), turns, preset(2), 12, "points"), [*events, Late(1, "A", 30), Late(1, "A", 0)]
    )
    assert table(*lifted)[0] == ("A", 11, 100)


def test_a_forfeit_a_bye_a_withdrawal_and_a_closing():
    turns = tuple(mitchell("ABCDE", 3))
    evening = Evening(tuple("ABCDE"), turns, preset(2), bye_points=12)
    # turn 1: A-C, B-D, E bye; turn 2: A-E, B-C, D bye; turn 3: A-D, B-E, C bye
    assert [turn.byes for turn in turns] == [("E",), ("D",), ("C",)]
    events = [
        Forfeit(1, "B"),
        Result(1, 1, (100, 0)),
        Withdrawn("E", after_turn=1),
        Closed(2, {2: "average"}),
        Closed(3, {1: (15, 5)}),
    ]
    lines = {line.entrant: line for line in standings(evening, events)}
    assert lines["B"].path[0].how == "forfeit" and lines["B"].path[0].tournament_points == 0
    assert lines["D"].path[0].tournament_points == 12  # a forfeit's opponent gets a bye's points
    assert lines["A"].path[1].how == "bye"  # E withdrew: its turn 2 opponent has the bye
    assert [m.turn for m in lines["E"].path] == [1] and lines["E"].withdrawn
    assert (lines["B"].path[1].how, lines["B"].path[1].tournament_points) == ("average", 10)
    assert lines["A"].path[2].how == "adjusted" and lines["A"].tournament_points == 11 + 12 + 15
    assert lines["B"].path[2].how == "bye"  # B's turn 3 opponent, E, had withdrawn


@pytest.mark.parametrize(
    ("event", "field"),
    [
        (Result(1, 3, (100, 0)), "table"),  # turn 1 has two tables
        (Result(4, 1, (100, 0)), "turn"),
        (Result(1, 1, (100,)), "points"),
        (Result(1, 1, (100, "0")), "points"),
        (Late(1, "E", 10), "entrant"),  # E had the bye
        (Late(1, "A", -5), "penalty"),
        (Forfeit(1, "Z"), "entrant"),
        (Joined("A"), "entrant"),
        (Closed(1, {1: "average"}), "tables"),  # table 1 has its result, table 2 is left open
        (Closed(1, {2: (21, 0)}), "tables.2"),
        (Closed(1, {2: "half"}), "tables.2"),
        (Closed(1, {2: (10,)}), "tables.2"),
    ],
)
def test_a_bad_event_is_refused_naming_its_field(event, field):
    evening = Evening(tuple("ABCDE"), tuple(mitchell("ABCDE", 3)), preset(2), bye_points=12)
    stored = [Result(1, 1, (100, 0))]
    with pytest.raises(RuleError) as refused:
        accept(evening, stored, event)
    assert refused.value.field == field


def test_a_result_after_a_withdrawal_is_refused_and_a_withdrawal_after_play_too():
    evening = Evening(tuple("ABCD"), tuple(mitchell("ABCD", 1)) + (danese("ABCD", 2),), PLAIN, bye_points=0)
    with pytest.raises(RuleError) as refused:
        accept(evening, [Withdrawn("A", after_turn=1)], Result(2, 1, (1, 2)))
    assert refused.value.field == "table"
    with pytest.raises(RuleError) as refused:
        accept(evening, [Result(2, 1, (1, 2))], Withdrawn("A", after_turn=1))
    assert refused.value.field == "entrant"


# --- The standings against a plain recomputation ------------------------------------------------------------


def recomputed(evening, events):
    """The standings worked out the long way: for each entrant and turn, the last stored word on its table."""
    joined = [e.entrant for e in events if isinstance(e, Joined)]
    entrants = [*evening.entrants, *joined]
    gone = {e.entrant: e.after_turn for e in events if isinstance(e, Withdrawn)}
    meetings = {x: [] for x in entrants}  # (opponent, tournament points, difference)
    for x in entrants:
        for turn in evening.turns:
            n = turn.number
            if x in gone and n > gone[x]:
                continue
            if x in turn.byes:
                meetings[x].append((None, evening.bye_points, 0))
            for t in turn.tables:
                if x not in t.sides:
                    continue
                mine = t.sides.index(x)
                other = t.sides[1 - mine]
                if other in gone and n > gone[other]:
                    meetings[x].append((other, evening.bye_points, 0))
                    continue
                last = None
                for e in events:
                    if isinstance(e, Result) and (e.turn, e.table) == (n, t.number):
                        last = ("played", e.points)
                    elif isinstance(e, Forfeit) and e.turn == n and e.entrant in t.sides:
                        # Both sides may forfeit: each of the forfeits since the table's last word.
                        last = ("forfeit", (last[1] if last and last[0] == "forfeit" else set()) | {e.entrant})
                    elif isinstance(e, Closed) and e.turn == n and t.number in e.outcomes:
                        last = ("closed", e.outcomes[t.number])
                late = {e.entrant: e.penalty for e in events if isinstance(e, Late) and e.turn == n}
                off = late.get(x, 0) if evening.late_costs == "tournament points" else 0
                if last is None:
                    continue
                if last[0] == "played":
                    points = list(last[1])
                    if evening.late_costs == "points":
                        points = [p - late.get(side, 0) for p, side in zip(points, t.sides, strict=True)]
                    awarded = evening.scale.convert(points)
                    meetings[x].append((other, awarded[mine] - off, points[mine] - points[1 - mine]))
                elif last[0] == "forfeit":
                    meetings[x].append((other, 0 if x in last[1] else evening.bye_points, 0))
                else:
                    given = {"average": evening.scale.neutral, "zero": (0, 0)}.get(last[1], last[1])
                    meetings[x].append((other, given[mine] - off, 0))
    totals = {x: (sum(m[1] for m in meetings[x]), sum(m[2] for m in meetings[x])) for x in entrants}

    def key(x):
        tied = {y for y in entrants if totals[y] == totals[x]}
        # Only a mini-league played through among the tied decides: each two of them met.
        played_through = all(any(o == z for o, _, _ in meetings[y]) or any(o == y for o, _, _ in meetings[z])
                             for y in tied for z in tied if y != z)  # fmt: skip
        head_to_head = sum(tp for opponent, tp, _ in meetings[x] if opponent in tied) if played_through else 0
        return (-totals[x][0], -totals[x][1], -head_to_head, entrants.index(x))

    return [(x, *totals[x], x in gone) for x in sorted(entrants, key=key)]


@st.composite
def evenings(draw):
    entrants = tuple(f"P{i}" for i in range(draw(st.integers(3, 9))))
    if draw(st.booleans()):
        turns = tuple(mitchell(entrants, draw(st.integers(1, mitchell_turns_possible(len(entrants))))))
    else:
        turns = ()
        for number in range(1, draw(st.integers(1, 3)) + 1):
            turns += (danese_modificato(draw(st.permutations(entrants)), number, turns),)
    scale = draw(st.sampled_from([PLAIN, preset(2), preset(3), preset(4)]))
    late_costs = draw(st.sampled_from(["points", "tournament points"]))
    return Evening(entrants, turns, scale, draw(st.integers(0, 20)), late_costs)


def candidates(evening):
    """Events a host or arbiter might send, good and bad: the bad ones are refused and not stored."""
    turns = st.integers(1, len(evening.turns) + 1)
    someone = st.sampled_from([*evening.entrants, "J1", "Z"])
    kinds = st.one_of(st.sampled_from(["average", "zero"]), st.tuples(st.integers(0, 22), st.integers(0, 20)))
    return st.one_of(
        st.builds(Result, turns, st.integers(1, 5), st.tuples(st.integers(-300, 2000), st.integers(-300, 2000))),
        st.builds(Forfeit, turns, someone),
        st.builds(Late, turns, someone, st.integers(-5, 300)),
        st.builds(Closed, turns, st.dictionaries(st.integers(1, 5), kinds, max_size=5)),
        st.builds(Withdrawn, someone, st.integers(0, 3)),
        st.builds(Joined, someone),
        st.tuples(st.just("close"), turns, kinds),  # close a turn, every table still open given the same
    )


def _open_tables(evening, stored, number):
    turn = evening.turns[number - 1]
    gone = {e.entrant: e.after_turn for e in stored if isinstance(e, Withdrawn)}
    decided = {(e.turn, e.table) for e in stored if isinstance(e, Result)}
    decided |= {
        (e.turn, t.number) for e in stored if isinstance(e, Forfeit) for t in turn.tables if e.entrant in t.sides
    }
    decided |= {(e.turn, table) for e in stored if isinstance(e, Closed) for table in e.outcomes}
    return [
        t.number
        for t in turn.tables
        if (number, t.number) not in decided and not any(gone.get(side, number) < number for side in t.sides)
    ]


@settings(max_examples=200)
@given(data=st.data())
def test_standings_equal_a_recomputation_after_any_sequence_of_events(data):
    evening = data.draw(evenings())
    stored = []
    pool = candidates(evening)
    for _ in range(data.draw(st.integers(0, 25))):
        event = data.draw(pool)
        if isinstance(event, tuple):
            _, number, kind = event
            if number > len(evening.turns):
                continue
            event = Closed(number, dict.fromkeys(_open_tables(evening, stored, number), kind))
        try:
            accept(evening, stored, event)
        except RuleError as refused:
            assert refused.field
        else:
            stored.append(event)
    lines = standings(evening, stored)
    assert [(line.entrant, line.tournament_points, line.difference, line.withdrawn) for line in lines] == recomputed(
        evening, stored
    )
    assert [line.place for line in lines] == list(range(1, len(lines) + 1))
    for line in lines:
        seen = [m.turn for m in line.path if m.table is not None or m.how == "bye"]
        assert len(seen) == len(set(seen))  # one meeting per turn


@pytest.mark.parametrize(
    ("bye_points", "late_costs", "field"),
    [(21, "points", "bye_points"), (-1, "points", "bye_points"), (12, "hands", "late_costs")],
)
def test_an_evening_set_badly_is_refused(bye_points, late_costs, field):
    with pytest.raises(RuleError) as refused:
        Evening(PAIRS, (), preset(2), bye_points, late_costs)
    assert refused.value.field == field


def test_a_turn_cut_short_by_the_clock_is_converted_pro_rata_over_its_hands_or_as_played():
    """3 hands a turn; table 1 played 2 before time was up, 400 apart: 600 over the turn (pro rata), else 400."""
    first = mitchell(PAIRS, 1)[0]
    results = [Result(1, 1, (900, 500), played=2), Result(1, 2, (900, 500), played=3)]
    pro_rata = Evening(PAIRS, (first,), preset(3), bye_points=12, hands=3)
    as_played = Evening(PAIRS, (first,), preset(3), bye_points=12, hands=3, pro_rata=False)
    points = {line.entrant: line.tournament_points for line in standings(pro_rata, results)}
    assert (points["A"], points["E"]) == preset(3).convert((600, 0))  # cut short: counted over three hands
    assert (points["B"], points["F"]) == preset(3).convert((400, 0))  # all three hands: as played
    points = {line.entrant: line.tournament_points for line in standings(as_played, results)}
    assert (points["A"], points["E"]) == preset(3).convert((400, 0))
    assert preset(3).convert((600, 0)) != preset(3).convert((400, 0))
    # The path keeps the points as played.
    path = next(line.path[0] for line in standings(pro_rata, results) if line.entrant == "A")
    assert (path.points_for, path.points_against) == (900, 500)


def test_a_cut_turn_is_counted_pro_rata_exactly_and_a_points_penalty_is_taken_as_given_not_multiplied():
    first = mitchell(PAIRS, 1)[0]
    evening = Evening(PAIRS, (first,), preset(3), bye_points=12, hands=3)
    # 141–0 over two hands of three: 211.5 apart over the turn, short of the band from 212 (rounding each side
    # made it 212).
    points = {line.entrant: line.tournament_points for line in standings(evening, [Result(1, 1, (141, 0), 2)])}
    assert (points["A"], points["E"]) == preset(3).convert((211, 0)) != preset(3).convert((212, 0))
    # One hand of three, 400–300, A 50 points late: 300 over the turn, less 50: 250, not (350 – 300) × 3 = 150.
    events = [Result(1, 1, (400, 300), 1), Late(1, "A", 50)]
    points = {line.entrant: line.tournament_points for line in standings(evening, events)}
    assert (points["A"], points["E"]) == preset(3).convert((250, 0)) != preset(3).convert((150, 0))


def test_both_sides_of_a_table_forfeiting_get_nothing_neither_a_byes_points():
    first = mitchell(PAIRS, 1)[0]
    evening = Evening(PAIRS, (first,), preset(2), bye_points=12)
    one = {line.entrant: line.tournament_points for line in standings(evening, [Forfeit(1, "A")])}
    assert (one["A"], one["E"]) == (0, 12)
    both = {line.entrant: line.tournament_points for line in standings(evening, [Forfeit(1, "A"), Forfeit(1, "E")])}
    assert (both["A"], both["E"]) == (0, 0)
    # A result given afterwards is the table's word.
    given = standings(evening, [Forfeit(1, "A"), Forfeit(1, "E"), Result(1, 1, (600, 100))])
    assert {line.entrant: line.tournament_points for line in given}["E"] == preset(2).convert((600, 100))[1]


def test_points_taken_from_each_other_decide_a_tie_only_where_each_two_of_the_tied_met():
    # C, B and E end level (20 TP, even); B and E met (10 each), C met neither: their points from each other would
    # rank C last on meetings it never had. The seeding orders them, and they share the place.
    first = Turn(1, (Table(1, ("A", "B")), Table(2, ("C", "D")), Table(3, ("E", "F"))))
    second = Turn(2, (Table(1, ("A", "D")), Table(2, ("B", "E")), Table(3, ("C", "F"))))
    evening = Evening(tuple("CABDEF"), (first, second), preset(3), bye_points=12, hands=3)
    results = [Result(1, 1, (500, 500)), Result(1, 2, (600, 500)), Result(1, 3, (500, 500)),
               Result(2, 1, (600, 500)), Result(2, 2, (500, 500)), Result(2, 3, (500, 600))]  # fmt: skip
    lines = standings(evening, results)
    assert [line.entrant for line in lines] == ["A", "F", "C", "B", "E", "D"]
    assert shared_places(lines) == [1, 1, 3, 3, 3, 6]
