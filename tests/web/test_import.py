"""Imports of many matches: checked whole first, stored a short batch at a time, saves going on meanwhile."""

from __future__ import annotations

import io
import json
import queue
import threading

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from companion.extensions import db
from companion.games.refusals import RuleError
from companion.models import Match, Player, Round, Seat
from companion.services import imports
from companion.services import matches as service
from tests.helpers import (
    assert_exact,
    csrf_token,
    doc,
    entry_fields,
    grant_host_rights,
    ref,
    row,
    start_match,
    stored_match,
)

PAIR = ["Ann", "Bob"]


def shared_match(index: int) -> dict:
    """One of many matches Ann and Bob share: every game in turn, Burraco in pairs with Ann's partner changing,
    Pazzaparola bests that tie on the score and on the start, and now and then a match still being played."""
    winner, loser = PAIR[index % 2], PAIR[1 - index % 2]
    # Three matches a day: equal bests of one day are told apart by the match's id.
    started = f"2025-{1 + index // 90 % 12:02d}-{1 + index // 3 % 28:02d}T20:00:00Z"
    kind = index % 6
    if kind == 0:
        rows = {winner: row("CASA", [1 + index % 4, 2], 6), loser: row(None, [1], 7)}
        return doc(f"m{index}", "pazzaparola", PAIR, [{"rows": rows}], started, {"target": 1})
    if kind == 1:
        partner = "Bob" if index % 4 == 1 else "Cy"
        others = [name for name in ("Bob", "Cy", "Di") if name != partner]
        teams = {"Noi": ["Ann", partner], "Voi": others}
        seats = ["Ann", others[0], partner, others[1]]
        closer, other = ("Noi", "Voi") if index % 3 else ("Voi", "Noi")
        hand = {"sides": {closer: {"table": 200 + index % 7, "hand": 0, "clean": 1}, other: {"table": 90, "hand": 20}},
                "closed_by": closer}  # fmt: skip
        return doc(f"m{index}", "burraco", seats, [hand], started, {"hands": 1, "teams": teams})
    if kind == 2:
        sides = {winner: {"table": 300 + index % 5, "hand": 0, "clean": 1}, loser: {"table": 100, "hand": 40}}
        return doc(f"m{index}", "burraco", PAIR, [{"sides": sides, "closed_by": winner}], started, {"hands": 1})
    if kind == 3:
        return doc(f"m{index}", "topic", PAIR, [{"losers": [loser]}], started, {"deck": 2})
    if kind == 4:
        return doc(f"m{index}", "pazaak", PAIR, [{"winner": winner}], started, {"sets": 1})
    # Still being played: one set of three.
    return doc(f"m{index}", "pazaak", PAIR, [{"winner": winner}], started, {"sets": 3})


def shared_file(count: int) -> list[dict]:
    """`count` matches of Ann and Bob."""
    return [shared_match(index) for index in range(count)]


@pytest.fixture
def small_batches(monkeypatch):
    """Batches of 7 matches, so a file of a few dozen is written in several transactions."""
    monkeypatch.setattr(imports, "IMPORT_BATCH_MATCHES", 7)
    monkeypatch.setattr(imports, "SQLITE_PAUSE", 0)


def count_rows(model) -> int:
    """How many rows a table holds."""
    return db.session.scalar(select(func.count()).select_from(model))


def upload(client, documents) -> tuple[int, str]:
    """The import form posted with these match files: the status and the page it leads to."""
    data = {"csrf_token": csrf_token(client, "/history"),
            "file": (io.BytesIO(json.dumps(documents).encode()), "history.json")}  # fmt: skip
    response = client.post("/history/import", data=data, content_type="multipart/form-data")
    page = client.get("/history") if response.status_code == 302 else response
    return response.status_code, page.get_data(as_text=True)


def test_many_matches_of_one_pair_keep_the_records_exact(app, small_batches):
    with app.app_context():
        # Records already kept before the import: its bests must beat them, or not, as a rebuild ranks them.
        imports.import_matches(shared_file(12))
        match, _ = service.create_match("pazzaparola", ["Ann", "Bob"], {"target": 1})
        service.save_round(match, {"rows": {"Ann": row("OCA", [1, 1, 1], 5), "Bob": row("RE", [2, 2], 6)}})
        assert_exact()
        documents = shared_file(150)
        results = imports.import_matches(documents)
        assert sum(entry.created for entry in results) == 150 - 12
        assert [entry.id for entry in results[:12]] == list(range(1, 13))
        assert_exact()
        assert count_rows(Match) == 151
        again = imports.import_matches(documents)
        assert [entry.id for entry in again] == [entry.id for entry in results]
        assert not any(entry.created for entry in again)
        assert count_rows(Match) == 151
        assert_exact()


def test_a_bad_match_late_in_a_file_stores_nothing_not_even_its_players(app, host_client, small_batches):
    documents = shared_file(40)
    documents[33] = doc("bad", "topic", ["Eve", "Bob"], [{"losers": ["Bob"]}, {"losers": ["Zed"]}], "2025-01-01")
    status, html = upload(host_client, documents)
    assert status == 422
    assert "Match 34: round 2: losers" in html
    with app.app_context():
        assert count_rows(Match) == 0 and count_rows(Player) == 0


def test_a_nul_in_a_files_id_or_words_is_refused_beside_the_form_and_nothing_stored(app, host_client):
    # PostgreSQL refused a NUL in the id the import looks up before its checks (a 500); SQLite kept one in a word.
    word = doc("w", "pazzaparola", PAIR, [{"rows": {"Ann": row("CA\x00SA", [3, 2], 4), "Bob": row(None, [1], 7)}}],
               "2025-01-01", {"target": 1})  # fmt: skip
    refusals = (([{**shared_match(0), "id": "m\x000"}], "the match id must be text of 1 to 80 characters, with no NUL"),
                ([shared_match(1), word], "round 1: a text may not hold a NUL character"))
    for documents, said in refusals:
        status, html = upload(host_client, documents)
        assert status == 422 and said in html, html
    with app.app_context():
        assert count_rows(Match) == 0
    # A note of several lines, or with a tab, is a note as any other.
    noted = shared_match(3)
    noted["rounds"] = [{**noted["rounds"][0], "note": "first line\nsecond\tline"}]
    assert upload(host_client, [noted])[0] == 302


def test_an_id_twice_in_one_file_is_stored_once(app, host_client):
    documents = [shared_match(0), shared_match(1), shared_match(0)]
    status, html = upload(host_client, documents)
    assert status == 302 and "Imported 2 match(es); 1 already stored." in html
    with app.app_context():
        assert count_rows(Match) == 2


def test_a_match_the_host_ended_stays_unfinished_and_one_being_played_stays_played(app, host_client):
    # The file of a match the host ended says when it stopped, but its rounds leave it open: it was imported as being
    # played, among the home page's matches in progress.
    started, stopped = "2025-03-01T20:00:00Z", "2025-03-01T21:00:00Z"
    ended = {**doc("ended", "pazaak", PAIR, [{"winner": "Ann"}], started, {"sets": 3}), "finished": stopped}
    played = doc("played", "pazaak", PAIR, [{"winner": "Bob"}], started, {"sets": 3})
    status, _html = upload(host_client, [ended, played])
    assert status == 302
    with app.app_context():
        stored = {uid: (status, str(at)) for uid, status, at in db.session.execute(
            select(Match.uid, Match.status, Match.finished_at).order_by(Match.uid))}  # fmt: skip
    assert stored == {"ended": ("unfinished", "2025-03-01 21:00:00"), "played": ("playing", "None")}
    assert "Unfinished" in host_client.get("/history").get_data(as_text=True)


def test_a_match_another_import_stored_meanwhile_is_not_stored_twice(app, monkeypatch):
    documents = shared_file(5)
    with app.app_context():
        imports.import_matches(documents[2:3])
        # The check reads no match stored; by the time the batch is written, another import stored one.
        reads = []
        real = imports._stored_ids

        def none_at_first(uids):
            reads.append(uids)
            return real(uids) if len(reads) > 1 else {}

        monkeypatch.setattr(imports, "_stored_ids", none_at_first)
        results = imports.import_matches(documents)
        assert [entry.created for entry in results] == [True, True, False, True, True]
        assert len({entry.id for entry in results}) == 5
        assert count_rows(Match) == 5
        assert_exact()


def test_an_import_cut_short_keeps_whole_batches_and_a_second_import_completes_it(app, monkeypatch, small_batches):
    documents = shared_file(40)
    real = imports._store_batch
    written = []

    def store_then_fail(batch):
        if len(written) == 3:
            raise RuntimeError("the server went down")
        real(batch)
        written.append(len(batch))

    monkeypatch.setattr(imports, "_store_batch", store_then_fail)
    with app.app_context():
        with pytest.raises(RuntimeError):
            imports.import_matches(documents)
        # The batches written before it are stored whole, with their records.
        assert count_rows(Match) == 21 and count_rows(Seat) == sum(len(d["players"]) for d in documents[:21])
        assert count_rows(Round) == 21
        assert_exact()
        monkeypatch.setattr(imports, "_store_batch", real)
        results = imports.import_matches(documents)
        assert [entry.created for entry in results] == [False] * 21 + [True] * 19
        assert count_rows(Match) == 40
        assert_exact()


def test_a_round_saved_during_an_import_is_stored_and_the_import_too(app, client):
    """The import of a large file runs in one thread while a scorekeeper saves a round through the app.

    The import is held after each commit until the test has seen part of it stored, then let go
    at the moment the save is sent: the two write at once. The save waits at most for the batch
    being written, so it is answered (not a 500 after the database's timeout) and stored, and
    the import goes on to store every match.
    """
    documents = shared_file(1200)
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"], length="long")
    form = entry_fields(app, match_id, {"losers": ["Bob"]})
    form["number"], form["csrf_token"] = "1", csrf_token(client, f"/matches/{ref(match_id)}")
    host = grant_host_rights(app.test_client())
    commits: queue.Queue = queue.Queue()
    resume: queue.Queue = queue.Queue()
    released = threading.Event()
    outcome: dict = {}

    def importing() -> None:
        try:
            outcome["import"] = upload(host, documents)
        except BaseException as error:  # pragma: no cover - reported by the assertions below
            outcome["import"] = error
        finally:
            commits.put("done")

    importer = threading.Thread(target=importing)

    def held_after_commit(session) -> None:
        if threading.current_thread() is importer and not released.is_set():
            commits.put("commit")
            resume.get(timeout=120)

    event.listen(Session, "after_commit", held_after_commit)
    try:
        importer.start()
        stored = 0
        while stored == 0:
            assert commits.get(timeout=120) == "commit", "the import ended before any of it was stored"
            with app.app_context():
                stored = db.session.scalar(select(func.count()).select_from(Match).where(Match.uid.like("m%")))
                db.session.remove()
            if stored == 0:
                resume.put("go")
        assert 0 < stored < len(documents), "the import stored everything in one transaction"
        released.set()
        resume.put("go")
        saved = client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers={"HX-Request": "true"})
    finally:
        released.set()
        resume.put("go")
        importer.join(300)
        event.remove(Session, "after_commit", held_after_commit)
    assert saved.status_code == 200
    assert [saved_round["losers"] for saved_round in stored_match(app, match_id).rounds] == [["Bob"]]
    status, html = outcome["import"]
    assert status == 302 and "Imported 1200 match(es); 0 already stored." in html
    with app.app_context():
        assert count_rows(Match) == 1201
        assert_exact()


def test_the_service_names_the_match_and_round_of_a_refusal(app):
    documents = shared_file(3)
    documents[1] = doc("zed", "pazaak", PAIR, [{"winner": "Ann"}, {"winner": "Zed"}], "2025-01-01T20:00:00Z")
    with app.app_context(), pytest.raises(RuleError) as refused:
        imports.import_matches(documents)
    assert str(refused.value).startswith("match 2: round 2: winner")
