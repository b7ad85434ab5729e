"""The players' records and head to head kept beside the seats stay what the seats add up to, after every write."""

from __future__ import annotations

from flask_migrate import downgrade, upgrade
from sqlalchemy import select, update

from companion.extensions import db
from companion.models import Match, Player, PlayerRecord, Seat
from companion.queries.players import leaderboard
from companion.services import imports, records
from companion.services import matches as service
from companion.services.roster import merge_players
from companion.services.seed import seed
from tests.helpers import SAMPLES, assert_exact, counted_from_the_seats, doc, kept, ref, row, store_samples

RECORDS_REVISION_PARENT = "5ecf899cd77f"


def play_to_the_end(match: Match, rounds: list[dict]) -> None:
    """Save rounds one by one, the records checked after each, until the match is over."""
    for data in rounds:
        service.save_round(match, data)
        assert_exact()
    assert match.status == "finished"


def pazzaparola_round(words: dict[str, tuple[str | None, list[int]]]) -> dict:
    """A Pazzaparola round of 8 cards a player."""
    return {"rows": {name: row(word, used, 8 - len(used)) for name, (word, used) in words.items()}}


def test_the_seed_and_the_import_keep_them_exact(app):
    with app.app_context():
        seed(60, 3)
        assert_exact()
    store_samples(app)
    with app.app_context():
        assert_exact()


def test_save_undo_redo_correct_and_delete_keep_them_exact(app):
    store_samples(app)
    with app.app_context():
        seed(20, 4)
        match, _ = service.create_match("topic", ["Ann", "Bob", "Eve"], {"deck": 4})
        assert_exact()
        play_to_the_end(match, [{"losers": ["Bob"]}, {"losers": ["Eve"]}, {"losers": ["Bob"]}])
        service.undo_last_round(match)
        assert match.status == "playing"
        assert_exact()
        service.redo_round(match)
        assert match.status == "finished"
        assert_exact()
        # The winner changes on a finished match.
        service.correct_round(match, 1, {"losers": ["Ann"]}, 0)
        assert_exact()
        service.undo_last_round(match)
        service.undo_last_round(match)
        service.undo_last_round(match)
        assert_exact()
        service.delete_match(match)
        assert_exact()
        finished = db.session.scalars(select(Match).where(Match.status == "finished")).first()
        service.delete_match(finished)
        assert_exact()


def test_the_best_word_moves_back_when_its_match_changes_or_goes(app, client):
    # One victory point wins: a round is a whole match. ZANZARA and ZUCCAZZ both score 25 − 1.
    target = {"target": 1}
    with app.app_context():
        first, _ = service.create_match("pazzaparola", ["Ann", "Bob"], target)
        play_to_the_end(first, [pazzaparola_round({"Ann": ("ZANZARA", [7, 2, 7, 2, 3, 2, 2]), "Bob": ("RE", [2, 2])})])
        second, _ = service.create_match("pazzaparola", ["Ann", "Bob"], target)
        # The same score later on: the first match keeps the best word.
        play_to_the_end(second, [pazzaparola_round({"Ann": ("ZUCCAZZ", [7, 2, 7, 2, 3, 2, 2]), "Bob": ("RE", [2, 2])})])
        ann = db.session.scalar(select(Player).where(Player.key == "ann"))
        assert db.session.get(PlayerRecord, (ann.id, "pazzaparola")).best_label == "ZANZARA"
        service.undo_last_round(first)
        assert_exact()
        assert db.session.get(PlayerRecord, (ann.id, "pazzaparola")).best_label == "ZUCCAZZ"
        service.redo_round(first)
        assert_exact()
        assert db.session.get(PlayerRecord, (ann.id, "pazzaparola")).best_label == "ZANZARA"
        lower = pazzaparola_round({"Ann": ("CASA", [3, 1, 2, 1]), "Bob": ("GATTO", [9, 9, 9, 5])})
        service.correct_round(first, 1, lower, 0)
        assert_exact()
        assert db.session.get(PlayerRecord, (ann.id, "pazzaparola")).best_label == "ZUCCAZZ"
        service.delete_match(second)
        assert_exact()
        assert db.session.get(PlayerRecord, (ann.id, "pazzaparola")).best_label == "CASA"
        ann_id = ann.id
    html = client.get(f"/players/{ref(ann_id, 'player')}").get_data(as_text=True)
    assert "CASA (3)" in html


def test_a_roster_merge_keeps_them_exact(app):
    store_samples(app)
    with app.app_context():
        annie, _ = service.create_match("topic", ["Annie", "Bob"], {"deck": 4})
        play_to_the_end(annie, [{"losers": ["Bob"]}, {"losers": ["Bob"]}, {"losers": ["Annie"]}])
        service.create_match("pazaak", ["Annie", "Zed"], {})
        assert_exact()
        ann = db.session.scalar(select(Player).where(Player.key == "ann"))
        merge_players(ann, db.session.scalar(select(Player.id).where(Player.key == "annie")))
        assert_exact()


def test_an_import_of_many_files_and_a_repeat_keep_them_exact(app):
    more = [
        doc("t2", "topic", ["Ann", "Cy", "Di"], [{"losers": ["Di"]}] * 3, "2025-08-01T20:00:00Z", {"deck": 4}),
        doc("t3", "topic", ["Bob", "Di"], [{"losers": ["Bob"]}], "2025-08-02T20:00:00Z"),
    ]
    with app.app_context():
        imports.import_matches(SAMPLES + more)
        assert_exact()
        imports.import_matches(more)
        assert_exact()


def test_stale_caches_rescored_on_start_keep_them_exact(app):
    with app.app_context():
        seed(30, 2)
        # As a database from before the seat caches would hold them, counted as the migration counts.
        db.session.execute(update(Match).values(cache_version=0, summary={}, status="playing"))
        db.session.execute(update(Seat).values(total=None, won=False, score_sum=None, best_score=None))
        records.rebuild()
        db.session.commit()
        assert service.refresh_stale_caches(batch=7) == 30
        assert_exact()


def test_the_migration_counts_the_matches_already_stored(app):
    store_samples(app)
    with app.app_context():
        seed(40, 6)
        db.session.commit()
        expected = counted_from_the_seats()
        db.session.remove()
        downgrade(revision=RECORDS_REVISION_PARENT)
        upgrade()
        # As every start does after the migrations (companion/database.py): the seats' teams,
        # and so the partners in the head to head, come back with the caches.
        service.refresh_stale_caches()
        assert kept() == expected


def test_the_leaderboards_add_up_the_seats(app):
    with app.app_context():
        seed(60, 9)
        service.create_match("burraco", ["Ann", "Bob"], {})
        expected, _ = counted_from_the_seats()
        for game in (None, "pazzaparola", "burraco", "topic", "pazaak"):
            board = {player.id: record for player, record in leaderboard(game)}
            for player_id, record in board.items():
                mine = [f for (who, slug), f in expected.items() if who == player_id and game in (None, slug)]
                assert (record.played, record.won) == (sum(f[1] for f in mine), sum(f[2] for f in mine))
                if game:
                    assert (record.total, record.score_sum, record.score_count) == tuple(
                        sum(f[index] for f in mine) for index in (3, 4, 5)
                    )
                    assert record.best_score == max((f[6][0] for f in mine if f[6]), default=None)
