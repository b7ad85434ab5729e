"""The kept ratings are always what rating every finished match again from the start gives, after any write."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce
from sqlalchemy import delete, select
from sqlalchemy.orm import selectinload

from companion.extensions import db
from companion.games.refusals import Refusal
from companion.models import FINISHED, OPEN_GROUP_ID, PLAYING, Match, Player, Rating, RatingBook, RatingStep
from companion.services import imports, ratings
from companion.services import matches as service
from companion.services.roster import merge_players, merge_refusal
from tests.helpers import (
    counted,
    csrf_token,
    entry_fields,
    generated,
    hold_pencil,
    played_match,
    ref,
    save_round,
    start_match,
    stored_match,
)

LIBRARY = PlackettLuce()
GAMES = ("pazzaparola", "burraco", "topic", "pazaak")
NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay"]


def from_scratch() -> dict:
    """Every player's (mu, sigma, matches) per game, the finished matches rated in order with the library itself."""
    found: dict = {}
    finished = db.session.scalars(
        select(Match).where(Match.status == FINISHED).options(selectinload(Match.seats))
    ).all()
    finished = sorted(finished, key=lambda m: (m.finished_at.replace(microsecond=0), m.id))
    for match in finished:
        sides: dict = {}
        totals: dict = {}
        for seat in match.seats:
            side = seat.team or f"#{seat.player_id}"
            sides.setdefault(side, []).append(seat.player_id)
            totals[side] = seat.total
        # Higher is better but for Topic_'s cards; equal totals share the rank.
        sign = 1 if match.game == "topic" else -1
        ranks = [1 + sum(sign * t < sign * totals[side] for t in totals.values()) for side in sides]
        teams = [
            [LIBRARY.rating(mu=found.get((p, match.game), (25.0, 25 / 3, 0))[0],
                            sigma=found.get((p, match.game), (25.0, 25 / 3, 0))[1]) for p in players]
            for players in sides.values()
        ]  # fmt: skip
        for players, team in zip(sides.values(), LIBRARY.rate(teams, ranks=ranks), strict=True):
            for player, after in zip(players, team, strict=True):
                matches = found.get((player, match.game), (0, 0, 0))[2]
                found[player, match.game] = (after.mu, after.sigma, matches + 1)
    return found


def kept() -> dict:
    """The ratings as a page reads them: a write leaves a book it cannot bring up to date cheaply stale, and
    the read rebuilds it first."""
    db.session.expire_all()
    ratings.bring_up_to_date()
    assert not db.session.scalars(select(RatingBook.game).where(RatingBook.stale)).all()
    return {(r.player_id, r.game): (r.mu, r.sigma, r.matches) for r in db.session.scalars(select(Rating))}


def assert_exact() -> None:
    """The kept ratings are the library's from scratch, and so are the steps of the rating over time."""
    expected = from_scratch()
    assert kept() == expected
    last = {}
    for step in db.session.scalars(select(RatingStep).order_by(RatingStep.seq)):
        last[step.player_id, step.game] = (step.mu, step.sigma)
    assert last == {key: value[:2] for key, value in expected.items()}
    db.session.rollback()


def topic_rounds(losers: list[int]) -> list[dict]:
    return [{"losers": [loser]} for loser in losers]


operations = st.one_of(
    st.tuples(st.just("start"), st.sampled_from(GAMES), st.lists(st.sampled_from(NAMES), min_size=2, max_size=4,
                                                                    unique=True),
              st.lists(st.integers(0, 5), max_size=4)),  # fmt: skip
    st.tuples(st.sampled_from(["undo", "delete", "end", "correct", "redo"]), st.integers(0, 20), st.integers(0, 5)),
    st.tuples(st.just("merge"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("import"), st.sampled_from(NAMES[:3]), st.integers(1, 28)),
)


def apply(operation: tuple) -> None:
    """One write of a random history; a write the rules refuse is simply not made."""
    kind = operation[0]
    if kind == "start":
        played_match(*operation[1:])
        return
    if kind == "merge":
        keep = db.session.scalar(select(Player).where(Player.name == operation[1]))
        other = db.session.scalar(select(Player).where(Player.name == operation[2]))
        if keep and other and merge_refusal(keep, other) is None:
            merge_players(keep, other.id)
        return
    if kind == "import":
        # A match finished on a day long past: it comes before the ones finished today.
        day = f"2024-02-{operation[2]:02d}T20:00:00Z"
        document = {"format": "companion-match/1", "id": f"old-{operation[1]}-{operation[2]}", "game": "pazaak",
                    "players": [operation[1], "Zed"], "settings": {"sets": 1}, "rounds": [{"winner": "Zed"}],
                    "started": day, "finished": day}  # fmt: skip
        imports.import_matches([document])
        return
    stored = db.session.scalars(select(Match).order_by(Match.id)).all()
    if not stored:
        return
    match = stored[operation[1] % len(stored)]
    try:
        if kind == "undo" and match.rounds:
            service.undo_last_round(match)
        elif kind == "redo" and match.redo:
            service.redo_round(match)
        elif kind == "delete":
            service.delete_match(match)
        elif kind == "end" and match.status == PLAYING:
            service.end_match(match)
        elif kind == "correct" and match.rounds and match.game == "topic":
            first = match.rounds[0]
            loser = match.player_names[operation[2] % len(match.player_names)]
            service.correct_round(match, 1, {"losers": [loser]}, first.revision, ends_at=1)
    except Refusal:
        db.session.rollback()


def wipe() -> None:
    """An empty database for the next history."""
    for model in (RatingStep, Rating, RatingBook, Match, Player):
        db.session.execute(delete(model))
    db.session.commit()


@settings(max_examples=generated(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(operations, min_size=1, max_size=10))
def test_the_kept_ratings_are_a_full_rebuild_after_any_history(app, history):
    with app.app_context():
        wipe()
        for operation in history:
            apply(operation)
            assert_exact()


def test_a_match_finished_last_is_rated_on_its_own_in_its_save(app):
    with app.app_context():
        played_match("pazaak", ["Ann", "Bob"], [0, 0])
        assert_exact()
        match = played_match("pazaak", ["Ann", "Bob"], [1])
        # The save that finishes the match rates it on its own: no rebuild.
        service.save_round(match, {"winner": "Bob"})
        book = db.session.get(RatingBook, (OPEN_GROUP_ID, "pazaak"), populate_existing=True)
        assert not book.stale and book.rated == 2 and book.last_match_id == match.id
        ann = db.session.get(Rating, (db.session.scalar(select(Player.id).where(Player.name == "Ann")), "pazaak"))
        first = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=[1, 2])
        second = LIBRARY.rate([first[0], first[1]], ranks=[2, 1])
        assert (ann.mu, ann.sigma, ann.matches) == (second[0][0].mu, second[0][0].sigma, 2)
        assert_exact()


def test_tables_finishing_in_one_second_out_of_their_order_are_rated_in_their_saves_when_their_players_are_apart(
    app, monkeypatch
):
    # A hall's tables finish within seconds, not in their matches' order, and the rating order keeps the second and
    # then the id: a match whose players played nothing rated after its place is rated in its own save all the same
    # (as a rebuild would rate it: players apart); one whose player did leaves the book to its rebuild.
    with app.app_context():
        eve_fay = played_match("pazaak", ["Eve", "Fay"], [1])
        ann_bob = played_match("pazaak", ["Ann", "Bob"], [1])
        cy_di = played_match("pazaak", ["Cy", "Di"], [1])
        ann_eve = played_match("pazaak", ["Ann", "Eve"], [1])
        monkeypatch.setattr(service, "utcnow", lambda: datetime(2026, 12, 6, 21, 0, 0, 500_000))
        service.save_round(cy_di, {"winner": "Di"})
        service.save_round(ann_bob, {"winner": "Bob"})
        book = db.session.get(RatingBook, (OPEN_GROUP_ID, "pazaak"), populate_existing=True)
        assert not book.stale and book.rated == 2 and book.last_match_id == cy_di.id
        assert_exact()
        service.save_round(ann_eve, {"winner": "Eve"})
        book = db.session.get(RatingBook, (OPEN_GROUP_ID, "pazaak"), populate_existing=True)
        assert not book.stale and book.rated == 3 and book.last_match_id == ann_eve.id
        # Eve's match rated after this one's place: the book waits for its rebuild, which puts each in its place.
        service.save_round(eve_fay, {"winner": "Fay"})
        assert db.session.get(RatingBook, (OPEN_GROUP_ID, "pazaak"), populate_existing=True).stale
        assert_exact()


def corrected_first_match(app) -> tuple[Match, dict]:
    """Two finished Topic_ matches, Ann taking every card; then the first one's first round corrected, Bob
    taking that card: the ratings as kept just after the correction's save, per (player, game)."""
    with app.app_context():
        first = played_match("topic", ["Ann", "Bob", "Cy"], [0, 0])
        played_match("topic", ["Ann", "Bob", "Cy"], [0, 0])
        assert_exact()
        match = db.session.get(Match, first.id)
        service.correct_round(match, 1, {"losers": ["Bob"]}, match.rounds[0].revision, ends_at=1)
        after_save = {(r.player_id, r.game): (r.mu, r.sigma) for r in db.session.scalars(select(Rating))}
        db.session.remove()
    return first, after_save


def test_a_correction_of_an_old_match_leaves_the_rebuild_for_after_the_answer(app):
    # Rating every match again takes most of a second at 10,000 matches: the save only marks the book.
    first, after_save = corrected_first_match(app)
    with app.app_context():
        book = db.session.get(RatingBook, (OPEN_GROUP_ID, "topic"))
        assert book.stale
        assert after_save != {key: value[:2] for key, value in from_scratch().items()}
        assert_exact()
        assert not db.session.get(RatingBook, (OPEN_GROUP_ID, "topic"), populate_existing=True).stale


@pytest.mark.parametrize(
    "page",
    ["/players/ratings/topic", "/players/seasons/topic", "player", "/matches/new?game=topic"],
)
def test_every_page_that_shows_ratings_shows_them_rebuilt_after_a_correction(app, client, page):
    with app.app_context():
        first, token = service.create_match("topic", ["Ann", "Bob", "Cy"], {"deck": 3})
        for _ in range(2):
            service.save_round(first, {"losers": ["Ann"]})
        played_match("topic", ["Ann", "Bob", "Cy"], [0, 0])
        match_id, revision = first.id, first.rounds[0].revision
        ann = db.session.scalar(select(Player.id).where(Player.name == "Ann"))
    # Its scorekeeper's phone corrects the older match's first round, Bob taking that card.
    hold_pencil(client, match_id, token)
    correction = f"/matches/{ref(match_id)}/rounds/1"
    fields = {**entry_fields(app, match_id, {"losers": ["Bob"]}), "revision": str(revision), "ends_at": "1",
              "csrf_token": csrf_token(client, correction)}  # fmt: skip
    answer = client.post(correction, data=fields)
    assert answer.status_code == 302
    answer.close()  # as the server does once the answer is sent: the request rebuilds the book then
    path = f"/players/{ref(ann, 'player')}" if page == "player" else page
    with counted(app) as statements:
        assert client.get(path).status_code == 200
    assert not [s for s in statements if s.lstrip().split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE")]
    with app.app_context():
        assert not db.session.get(RatingBook, (OPEN_GROUP_ID, "topic")).stale
        kept_now = {(r.player_id, r.game): (r.mu, r.sigma, r.matches) for r in db.session.scalars(select(Rating))}
        assert kept_now == from_scratch()
        assert kept_now[ann, "topic"][2] == 2


def test_a_change_to_a_finished_match_rebuilds_the_ratings_once_its_answer_is_sent(app, host_client):
    with app.app_context():
        first = played_match("topic", ["Ann", "Bob", "Cy"], [0, 0]).id
        played_match("topic", ["Ann", "Bob", "Cy"], [1, 1])
    path = f"/matches/{ref(first)}/delete"
    answer = host_client.post(path, data={"csrf_token": csrf_token(host_client, path)})
    assert answer.status_code == 302
    with app.app_context():
        # The answer waited for no rebuild: the pages that read the ratings meanwhile show them as they were.
        assert db.session.get(RatingBook, (OPEN_GROUP_ID, "topic")).stale
    answer.close()  # as the server does once the answer is sent
    with app.app_context():
        assert not db.session.get(RatingBook, (OPEN_GROUP_ID, "topic")).stale
        kept_now = {(r.player_id, r.game): (r.mu, r.sigma, r.matches) for r in db.session.scalars(select(Rating))}
        assert kept_now == from_scratch()


def test_a_book_whose_rebuild_never_ran_is_rebuilt_after_the_next_match_finished(app, client):
    # A rebuild asked for after an answer can fail (the database busy past its timeout) or never run (the worker
    # gone): no page rebuilds the ratings any more, so the next match finished must ask for it again.
    with app.app_context():
        played_match("topic", ["Ann", "Bob", "Cy"], [0, 0])
        ratings.mark_stale(["topic"], OPEN_GROUP_ID)
        db.session.commit()
        db.session.info.pop(ratings.MARKED, None)
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"], length="exact", deck="3")
    while stored_match(app, match_id).status == PLAYING:
        answer = save_round(client, match_id, entry_fields(app, match_id, {"losers": ["Bob"]}))
        assert answer.status_code == 200
        answer.close()  # as the server does once the answer is sent
    with app.app_context():
        assert db.session.get(Match, match_id).status == FINISHED
        assert not db.session.get(RatingBook, (OPEN_GROUP_ID, "topic")).stale
        assert kept() == from_scratch()


def test_a_match_finished_while_the_book_waits_for_its_rebuild_is_rated_by_it(app):
    corrected_first_match(app)
    with app.app_context():
        played_match("topic", ["Ann", "Bob", "Cy"], [1, 1])
        assert db.session.get(RatingBook, (OPEN_GROUP_ID, "topic"), populate_existing=True).stale
        assert_exact()


def test_a_save_that_does_not_finish_a_match_leaves_the_ratings_alone(app):
    with app.app_context():
        played_match("pazaak", ["Ann", "Bob"], [0, 0])
        assert_exact()
        match = played_match("pazaak", ["Ann", "Bob"], [])
        statements = []
        from sqlalchemy import event

        def seen(conn, cursor, statement, *args):
            statements.append(statement)

        event.listen(db.engine, "before_cursor_execute", seen)
        try:
            service.save_round(match, {"winner": "Ann"})
        finally:
            event.remove(db.engine, "before_cursor_execute", seen)
        assert match.status == PLAYING
        assert not [s for s in statements if "rating" in s.lower()]


def test_unfinished_matches_do_not_count(app):
    with app.app_context():
        match = played_match("pazaak", ["Ann", "Bob"], [0])
        service.end_match(match)
        assert kept() == {}
        assert db.session.scalar(select(Match.status).where(Match.id == match.id)) == "unfinished"


def test_finished_at_ties_go_in_the_order_of_the_export(app):
    with app.app_context():
        first = played_match("pazaak", ["Ann", "Bob"], [0, 0])
        second = played_match("pazaak", ["Ann", "Bob"], [1, 1])
        same = datetime(2025, 1, 1, 12, 0, 0)
        # The second by id finished earlier within the same second: the id decides.
        db.session.get(Match, first.id).finished_at = same.replace(microsecond=900000)
        db.session.get(Match, second.id).finished_at = same.replace(microsecond=100000)
        db.session.commit()
        ratings.redo(["pazaak"])
        db.session.commit()
        assert_exact()
        steps = db.session.execute(select(RatingStep.seq, RatingStep.match_id).distinct().order_by(RatingStep.seq))
        assert [match_id for _, match_id in steps] == [first.id, second.id]


def test_the_cli_prints_each_rated_player_as_the_library_computes_it(app, runner):
    with app.app_context():
        played_match("topic", ["Ann", "Bob", "Cy"], [0, 0])
        played_match("pazaak", ["Ann", "Bob"], [0, 0])
    result = runner.invoke(args=["ratings", "topic", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    # Ann took both cards: Bob and Cy share first place, Ann is last.
    teams = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()], [LIBRARY.rating()]], ranks=[3, 1, 1])
    expected = {name: team[0] for name, team in zip(["Ann", "Bob", "Cy"], teams, strict=True)}
    assert {row["player"] for row in rows} == {"Ann", "Bob", "Cy"}
    for row in rows:
        rating = expected[row["player"]]
        assert row == {"player": row["player"], "mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal(),
                       "matches": 1}  # fmt: skip
    assert rows[-1]["player"] == "Ann"
    text = runner.invoke(args=["ratings", "topic"]).output
    assert "Ann" in text and "provisional" in text
    refused = runner.invoke(args=["ratings", "chess", "--json"])
    assert refused.exit_code == 1 and "unknown game" in refused.output
