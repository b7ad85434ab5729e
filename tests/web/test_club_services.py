"""A club evening stored and run through its services: turns drawn with a match at each table, the other side's
confirmation, the arbiter's decisions, the standings recomputed from what is stored."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from companion.extensions import db
from companion.games.refusals import NotAllowed, RuleError
from companion.models import Match, Player, PlayerRecord
from companion.models.club import EVENING_OVER, TABLE_CLOSED, ClubEvening, ClubLog, ClubTable
from companion.queries import club as read
from companion.queries.matches import hash_token
from companion.services import club as service
from companion.services import club_table, matches
from tests.helpers import counted

PAIRS = [(["Rossi", "Bianchi"], "Arona"), (["Verdi", "Neri"], None), (["Gallo", "Conti"], "Arona"),
         (["Greco", "Bruno"], None), (["Costa", "Fontana"], None), (["Moretti", "Rizzo"], "Turin"),
         (["Marino", "Ferrari"], None), (["Romano", "Colombo"], "Turin")]  # fmt: skip
PLAN = {"game": "burraco", "pairs": True, "turns": 3, "hands": 3, "first": "mitchell", "then": "danese_modificato"}


def hand(ns_table: int, ew_table: int) -> dict:
    """A hand of a pairs table: N/S and E/W lay these points, nobody closes."""
    return {"sides": {"N/S": {"table": ns_table, "hand": 0}, "E/W": {"table": ew_table, "hand": 0}}, "closed_by": None}


def seat_phone(match: Match, name: str, credential: str) -> None:
    """A phone sits at `name`'s seat of the match (as the table card seats it)."""
    seat = next(seat for seat in match.seats if seat.name == name)
    seat.phone = hash_token(credential)
    db.session.commit()


def play_table(evening: ClubEvening, table: ClubTable, ns: int, ew: int) -> Match:
    """The table plays the rest of its three hands, N/S laying `ns` and E/W `ew` each hand."""
    match = db.session.get(Match, table.match_id)
    for _ in range(evening.hands - len(match.rounds)):
        matches.save_round(match, hand(ns, ew))
    return match


def confirm_by_ew(evening: ClubEvening, table: ClubTable, match: Match) -> None:
    east_west = next(e for e in evening.entrants if e.number == table.sides[1])
    credential = f"phone-{table.turn}-{table.number}"
    seat_phone(match, east_west.players[0], credential)
    shown = service.table_points(evening, table, match)
    assert club_table.confirm(evening, table.turn, table.number, credential, shown)


@pytest.fixture
def evening(app):
    with app.app_context():
        made = service.create_evening("Friday", PLAN, PAIRS)
        service.start(made)
        yield made
        db.session.remove()


def test_turn_one_is_a_mitchell_with_a_burraco_match_of_exactly_its_hands_at_each_table(evening):
    tables = [table for table in evening.tables if table.turn == 1]
    assert [table.number for table in tables] == [1, 2, 3, 4]
    match = db.session.get(Match, tables[0].match_id)
    assert match.settings["target"] is None and match.settings["hands"] == 3
    north_south, east_west = (next(e for e in evening.entrants if e.number == n) for n in tables[0].sides)
    assert match.settings["teams"] == {"N/S": north_south.players, "E/W": east_west.players}
    # Partners sit opposite: N/S, E/W, N/S, E/W.
    assert match.player_names == [north_south.players[0], east_west.players[0], north_south.players[1],
                                  east_west.players[1]]  # fmt: skip
    # The clubs are kept apart: Arona's two pairs in one line, Turin's in the other, so they never meet.
    lines = [{t.sides[side] for t in tables} for side in (0, 1)]
    assert {1, 3} <= lines[0] or {1, 3} <= lines[1]
    assert {6, 8} <= lines[0] or {6, 8} <= lines[1]


def test_only_the_other_side_confirms_once_the_hands_are_played_and_nothing_counts_before(evening):
    table = next(t for t in evening.tables if t.turn == 1 and t.number == 1)
    match = db.session.get(Match, table.match_id)
    matches.save_round(match, hand(300, 100))
    with pytest.raises(NotAllowed, match="not all played"):
        club_table.confirm(evening, 1, 1, "phone-ew", [300, 100])
    play_table(evening, table, 300, 100)
    ns_credential = "phone-ns"
    seat_phone(match, next(e for e in evening.entrants if e.number == table.sides[0]).players[0], ns_credential)
    with pytest.raises(NotAllowed, match="other side confirms"):
        club_table.confirm(evening, 1, 1, ns_credential, [900, 300])
    # The entering phone may confirm for the other side after handing it over only while that side has no phone.
    assert club_table.confirm(evening, 1, 1, ns_credential, [900, 300], for_other_side=True)
    assert table.points == [900, 300] and table.state == "confirmed"
    # A second confirmation (two phones at once, or one kept offline) is answered as done and counts once.
    assert not club_table.confirm(evening, 1, 1, ns_credential, [900, 300], for_other_side=True)
    assert db.session.query(ClubLog).filter_by(action="confirm").count() == 1


def test_the_last_confirmation_draws_the_next_turn_by_the_standings_without_a_rematch(evening):
    margins = {1: (900, 100), 2: (500, 400), 3: (100, 600), 4: (300, 300)}
    for table in [t for t in evening.tables if t.turn == 1]:
        confirm_by_ew(evening, table, play_table(evening, table, *margins[table.number]))
    assert evening.turn == 2
    standing = read.standings(evening)
    # Turn 2 pairs 1st with 2nd, 3rd with 4th… unless they met: the standings come from the stored results.
    order = [line.entrant for line in standing]
    turn_two = [tuple(t.sides) for t in evening.tables if t.turn == 2]
    met = {frozenset(t.sides) for t in evening.tables if t.turn == 1}
    assert all(frozenset(sides) not in met for sides in turn_two)
    assert set(turn_two[0]) == {order[0], order[1]}
    # The phones that confirmed turn 1 follow their pair to turn 2, at the same player's seat.
    seated = db.session.query(ClubTable).filter_by(turn=2).all()
    phones = [seat.phone for t in seated for seat in db.session.get(Match, t.match_id).seats if seat.phone]
    assert len(phones) == 4


def test_a_turn_of_forty_tables_is_drawn_with_the_statements_of_four_and_each_player_is_shown_playing(app):
    # The last confirmation's answer waits on the draw, a worker's loop held meanwhile: on PostgreSQL some five
    # statements a table took a second of it at a hall's hundred tables. PostgreSQL inserts a statement's rows
    # together; SQLite (in process, some 50 µs a statement) a row at a time: a table's match, four seats, its row.
    drawn = {}
    with app.app_context():
        for tables in (4, 40):
            pairs = [([f"Hall{tables} {n}A", f"Hall{tables} {n}B"], None) for n in range(2 * tables)]
            evening = service.create_evening(f"Hall of {tables}", PLAN, pairs)
            with counted(app) as statements:
                service.start(evening)
            drawn[tables] = len(statements)
            players = [player for entrant in evening.entrants for player in entrant.players]
            records = select(PlayerRecord.playing).join(Player).where(PlayerRecord.game == "burraco")
            playing = db.session.scalars(records.where(Player.name.in_(players))).all()
            assert playing == [1] * len(players)
    with app.app_context():
        rows_a_table = 0 if db.engine.dialect.name == "postgresql" else 1 + 4 + 1
    assert drawn[40] - drawn[4] == 36 * rows_a_table


def test_the_standings_equal_a_recomputation_by_hand_of_the_scale(evening):
    margins = {1: (900, 100), 2: (500, 400), 3: (100, 600), 4: (300, 300)}
    for table in [t for t in evening.tables if t.turn == 1]:
        confirm_by_ew(evening, table, play_table(evening, table, *margins[table.number]))
    scale = read.plan_of(evening).scale
    expected = {}
    for table in [t for t in evening.tables if t.turn == 1]:
        ns, ew = (3 * points for points in margins[table.number])
        got = scale.convert((ns, ew))
        expected[table.sides[0]], expected[table.sides[1]] = got
    assert {line.entrant: line.tournament_points for line in read.standings(evening)} == expected
    # 2,400 points ahead over three hands is beyond the preset's 1,500: 20-0; 300 ahead is a middle band.
    assert expected[next(t.sides[0] for t in evening.tables if t.turn == 1 and t.number == 1)] == 20


def test_the_arbiter_corrects_a_disputed_table_closes_a_turn_and_the_evening_ends(evening):
    tables = [t for t in evening.tables if t.turn == 1]
    first = tables[0]
    match = play_table(evening, first, 400, 200)
    east_west = next(e for e in evening.entrants if e.number == first.sides[1])
    seat_phone(match, east_west.players[0], "ew-phone")
    club_table.dispute(evening, 1, first.number, "ew-phone", "the third hand's table was 150, not 200")
    assert first.state == "disputed"
    with pytest.raises(NotAllowed, match="waits for the arbiter"):
        club_table.confirm(evening, 1, first.number, "ew-phone", [1200, 600])
    service.settle(evening, 1, first.number, [1200, 550], "third hand corrected")
    assert first.points == [1200, 550] and first.state == "confirmed"
    # One table has played its hands, not confirmed yet; the others have not.
    late_match = play_table(evening, tables[2], 100, 100)
    seat_phone(late_match, next(e for e in evening.entrants if e.number == tables[2].sides[1]).players[0], "late")
    # The arbiter closes turn 1: one table given tournament points, the rest average.
    service.close_turn(evening, 1, {tables[1].number: [14, 6]}, "out of time")
    assert [t.state for t in tables[1:]] == [TABLE_CLOSED] * 3
    assert evening.turn == 2
    # A table of a closed turn confirming is refused with the reason; one still playing takes no more hands.
    with pytest.raises(NotAllowed, match="closed this turn"):
        club_table.confirm(evening, 1, tables[2].number, "late", [300, 300])
    with pytest.raises(NotAllowed, match="only the arbiter may change it now"):
        play_table(evening, tables[3], 100, 100)
    for _later_turn in (2, 3):
        service.close_turn(evening, evening.turn, {})
    assert evening.status == EVENING_OVER
    points = {line.entrant: line.tournament_points for line in read.standings(evening)}
    assert points[tables[1].sides[0]] == 14 + 10 + 10


def test_a_late_pair_a_pair_added_after_turn_one_and_a_withdrawal_count_as_the_rules_say(app):
    with app.app_context():
        evening = service.create_evening("", {**PLAN, "first": "danese", "then": "danese"}, PAIRS[:6])
        service.start(evening)
        service.late(evening, evening.turn, 1, 40, "ten minutes late")
        service.add_entrant(evening, ["Ricci", "Marini"], None)
        service.withdraw(evening, 6)
        tables = [t for t in evening.tables if t.turn == 1]
        for table in tables:
            confirm_by_ew(evening, table, play_table(evening, table, 200, 200))
        # Turn 2: the joiner plays, the withdrawn pair does not; six play, no bye.
        turn_two = [t for t in evening.tables if t.turn == 2]
        seated = sorted(side for t in turn_two for side in t.sides)
        assert seated == [1, 2, 3, 4, 5, 7]
        lines = {line.entrant: line for line in read.standings(evening)}
        # Pair 1 lost 40 points before the scale: 600-600 became 560-600, still within the even band.
        assert lines[1].tournament_points == 10 and lines[1].difference == -40


@pytest.mark.parametrize(
    ("plan", "entrants", "field"),
    [
        ({**PLAN, "then": "mitchell", "turns": 5}, PAIRS, "turns"),  # a Mitchell of 8 pairs holds 4 turns
        ({**PLAN, "game": "topic"}, PAIRS, "game"),
        (
            {**PLAN, "scale": [{"start": 0, "ahead": 10, "behind": 10}, {"start": 50, "ahead": 12, "behind": 9}]},
            PAIRS,
            "bands.1",
        ),  # fmt: skip
        ({**PLAN, "then": "mitchell", "first": "danese"}, PAIRS, "then"),
        (PLAN, [*PAIRS[:7], (["Rossi", "Galli"], None)], "entrants"),
        (PLAN, [*PAIRS[:7], (["Solo"], None)], "entrant-8"),
    ],
)
def test_a_bad_evening_is_refused_by_its_field_and_nothing_is_stored(app, plan, entrants, field):
    with app.app_context():
        with pytest.raises(RuleError) as refused:
            service.create_evening("", plan, entrants)
        assert refused.value.field == field
        assert db.session.query(ClubEvening).count() == 0


def test_a_result_for_a_table_the_turn_does_not_have_is_refused(evening):
    logged = db.session.query(ClubLog).count()
    with pytest.raises(RuleError, match="no table 9"):
        service.settle(evening, 1, 9, [100, 0], "")
    with pytest.raises(RuleError, match="table 9 of this turn has no result to give"):
        service.close_turn(evening, evening.turn, {9: "zero"})
    # Nothing stored: no table counted or closed, nothing logged, the turn not moved on.
    db.session.expire_all()
    assert db.session.query(ClubLog).count() == logged and evening.turn == 1
    assert all(table.state in ("playing", "bye") for table in evening.tables)


def test_a_pazaak_evening_is_swiss_one_against_one_its_difference_the_sets(app):
    players = [([name], None) for name in ("Ann", "Bob", "Cy", "Di", "Ed")]
    plan = {"game": "pazaak", "pairs": False, "turns": 3, "hands": 3, "first": "swiss", "then": "swiss"}
    with app.app_context():
        evening = service.create_evening("", plan, players)
        service.start(evening)
        tables = [t for t in evening.tables if t.turn == 1]
        # Five players: two tables and a bye, each table a Pazaak match to three sets.
        assert sorted(t.number for t in tables) == [0, 1, 2]
        for table in (t for t in tables if t.number):
            match = db.session.get(Match, table.match_id)
            assert match.game == "pazaak" and match.settings["sets"] == 3 and len(match.seats) == 2
            winner = match.player_names[0]
            for _ in range(3):
                matches.save_round(match, {"winner": winner})
            seat_phone(match, match.player_names[1], f"phone-{table.number}")
            assert club_table.confirm(evening, 1, table.number, f"phone-{table.number}", [3, 0])
            # 3 sets to 0: the sets' difference, by the preset for three sets, is all the tournament points.
            assert table.points == [3, 0]
        lines = {line.entrant: line for line in read.standings(evening)}
        # Two winners of 20, two losers of 0, turn 1's bye of 12; turn 2, drawn by the last confirmation, counts
        # its bye at once: one of the losers (the lowest placed without one) has 12.
        assert sorted(line.tournament_points for line in lines.values()) == [0, 12, 12, 20, 20]
        # Turn 2 is drawn by the standings, no rematch, the bye to one who has had none.
        turn_two = [t for t in evening.tables if t.turn == 2]
        met = {frozenset(t.sides) for t in tables if t.number}
        assert all(frozenset(t.sides) not in met for t in turn_two if t.number)
        bye_one = next(t.sides[0] for t in tables if not t.number)
        assert next(t.sides[0] for t in turn_two if not t.number) != bye_one
