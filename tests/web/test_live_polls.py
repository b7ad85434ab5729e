"""The live poll at its edges: odd ids, foreign Host names, one language per entity tag, the version a save drew."""

from __future__ import annotations

import logging
import random

import pytest
from sqlalchemy import create_engine, update

from companion import create_app
from companion.extensions import db
from companion.games import REGISTRY
from companion.models import Match
from companion.queries.matches import find_match
from companion.services import matches as service
from companion.services.seed import play_match
from companion.web import poll_board
from tests.helpers import (
    ADDRESS_KEY,
    HTMX,
    entry_fields,
    finished_match,
    hold_pencil,
    read_words,
    ref,
    save_round,
    start_match,
    store_samples,
)
from tests.pages import read

PLAYERS = ["Ann", "Bob", "Cy", "Di"]
GAMES = sorted(slug for slug, game in REGISTRY.items() if game.seed is not None)
HUGE_IDS = ["99999999999999999999", "9" * 5000, "2147483648"]


@pytest.mark.parametrize("match_id", HUGE_IDS, ids=["20 digits", "5000 digits", "past INTEGER"])
@pytest.mark.parametrize("host", [None, "evil.example"], ids=["own host", "foreign host"])
def test_a_poll_of_an_id_no_row_can_have_is_refused_quietly(client, caplog, match_id, host):
    headers = {**HTMX, "If-None-Match": '"v1-abcd-en"'}
    if host:
        headers["Host"] = host
    with caplog.at_level(logging.DEBUG):
        response = client.get(f"/matches/{match_id}/live", headers=headers)
    assert response.status_code == (400 if host else 404)
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert len(caplog.text) < 2000


def test_an_unchanged_poll_from_a_foreign_host_is_not_answered_as_unchanged(client):
    match_id = start_match(client, "topic", PLAYERS)
    tag = client.get(f"/matches/{ref(match_id)}/live", headers=HTMX).headers["ETag"]
    foreign = client.get(
        f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": tag, "Host": "evil.example"}
    )
    assert foreign.status_code == 400


def test_the_same_version_in_another_language_is_another_entity(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    save_round(client, match_id, entry_fields(app, match_id, {"losers": ["Ann"]}))
    english = app.test_client().get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "Accept-Language": "en"})
    italian_phone = app.test_client()
    italian = italian_phone.get(
        f"/matches/{ref(match_id)}/live",
        headers={**HTMX, "Accept-Language": "it", "If-None-Match": english.headers["ETag"]},
    )
    assert english.status_code == 200 and italian.status_code == 200
    assert english.get_data() != italian.get_data()
    assert english.headers["ETag"] != italian.headers["ETag"]
    # The language chosen with the switch (a cookie) counts as much as the browser's.
    chosen = app.test_client()
    chosen.set_cookie("lang", "it")
    by_cookie = chosen.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": english.headers["ETag"]})
    assert by_cookie.status_code == 200 and by_cookie.headers["ETag"] == italian.headers["ETag"]
    for response in (english, italian):
        named = {header.strip().lower() for header in response.headers["Vary"].split(",")}
        assert {"cookie", "accept-language", "hx-request"} <= named
    # The same Italian phone polling again is told "unchanged", with the same Vary.
    again = italian_phone.get(
        f"/matches/{ref(match_id)}/live",
        headers={**HTMX, "Accept-Language": "it", "If-None-Match": italian.headers["ETag"]},
    )
    assert again.status_code == 304
    assert "Accept-Language" in again.headers["Vary"] and "Cookie" in again.headers["Vary"]


def test_the_unchanged_poll_in_italian_is_still_answered_before_flask(tmp_path, database_url, monkeypatch):
    monkeypatch.setenv("COMPANION_COUNT_QUERIES", "1")
    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
    app = create_app(config, instance_path=str(tmp_path / "instance"))
    phone = app.test_client()
    phone.set_cookie("lang", "it")
    match_id = start_match(phone, "topic", PLAYERS)
    first = app.test_client()
    first.set_cookie("lang", "it")
    tag = first.get(f"/matches/{ref(match_id)}/live", headers=HTMX).headers["ETag"]
    unchanged = first.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": tag})
    assert unchanged.status_code == 304 and unchanged.headers["X-Queries"] == "1"


def test_unchanged_polls_share_one_read_and_another_process_write_shows_within_a_quarter_second(
    tmp_path, database_url, monkeypatch
):
    # A hall's 800 polls a second asked a statement each; now one read of all the polled addresses stands for
    # FRESH_FOR, and a write of this app server (any of its workers) makes it stale at once.
    monkeypatch.setenv("COMPANION_COUNT_QUERIES", "1")
    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
    app = create_app(config, instance_path=str(tmp_path / "instance"))
    now = [1000.0]
    monkeypatch.setattr(poll_board.time, "monotonic", lambda: now[0])
    keeper = app.test_client()
    match_id = start_match(keeper, "topic", PLAYERS)
    live = f"/matches/{ref(match_id)}/live"
    phones = [app.test_client() for _ in range(4)]
    tag = phones[0].get(live, headers=HTMX).headers["ETag"]
    answers = [phone.get(live, headers={**HTMX, "If-None-Match": tag}) for phone in phones]
    assert [(a.status_code, a.headers["X-Queries"]) for a in answers] == [(304, "1")] + [(304, "0")] * 3
    # Another app server saves: within FRESH_FOR the board still stands...
    other = create_engine(database_url)
    matches = Match.__table__
    with other.begin() as connection:
        connection.execute(update(matches).where(matches.c.id == match_id).values(version=matches.c.version + 1))
    other.dispose()
    assert phones[1].get(live, headers={**HTMX, "If-None-Match": tag}).status_code == 304
    # ... and once it is FRESH_FOR old, every phone is drawn the new version.
    now[0] += poll_board.FRESH_FOR
    changed = phones[1].get(live, headers={**HTMX, "If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    # A save of this app server is seen at once, the clock standing still.
    new_tag = changed.headers["ETag"]
    assert phones[2].get(live, headers={**HTMX, "If-None-Match": new_tag}).status_code == 304
    assert save_round(keeper, match_id, entry_fields(app, match_id, {"losers": ["Ann"]})).status_code == 200
    assert phones[2].get(live, headers={**HTMX, "If-None-Match": new_tag}).status_code == 200


@pytest.mark.parametrize("slug", GAMES)
def test_the_row_a_save_adds_is_marked_with_the_version_its_answer_drew(client, app, slug):
    # The page skips a row its poll drew already (a poll answered between the save's storing and its
    # answer): it knows by the version the answer marks on the row it adds, every game's the same way.
    seed = 0
    while len((made := play_match(random.Random(seed), slug))[2]) < 3:
        seed += 1
    players, settings, rounds = made
    with app.app_context():
        match, token = service.create_match(slug, players, settings)
        service.save_round(match, rounds[0])
        match_id = match.id
        db.session.remove()
    hold_pencil(client, match_id, token)
    saved = save_round(client, match_id, entry_fields(app, match_id, rounds[1]), number=2)
    assert saved.status_code == 200, saved.get_data(as_text=True)
    added = [element for element in read(saved.get_data(as_text=True)).iter() if element.has("data-live-etag")]
    assert len(added) == 1 and added[0]["hx-swap-oob"].endswith(":#round-rows")
    assert added[0]["data-live-etag"] == saved.headers["X-Live-ETag"]
    assert saved.headers["X-Live-ETag"] == client.get(f"/matches/{ref(match_id)}/live", headers=HTMX).headers["ETag"]


def test_a_poll_of_a_match_nothing_can_change_any_more_is_its_last(app, client):
    # A match no longer played was polled every second for ever. htmx ends a poll answered 286: so are the polls of
    # a match the host ended and of a finished one whose pencil no phone can hold (imported); a match played, or
    # finished with its pencil (an Undo plays it on), is still told "unchanged".
    playing = start_match(client, "topic", PLAYERS)
    viewer = app.test_client()
    live = f"/matches/{ref(playing)}/live"
    tag = viewer.get(live, headers=HTMX).headers["ETag"]
    assert viewer.get(live, headers={**HTMX, "If-None-Match": tag}).status_code == 304
    with app.app_context():
        service.end_match(find_match(playing))
        db.session.remove()
    # The page that saw it played is drawn the end, its entry included, in the poll's last answer.
    ended = viewer.get(live, headers={**HTMX, "If-None-Match": tag, "X-Entry-Shows": "viewer"})
    assert ended.status_code == 286
    assert "The host ended this match as unfinished." in read_words(ended.get_data(as_text=True))
    # A page opened since shows it as it is: its first poll keeps that, and is its last; the table view's too.
    for path in (live, f"{live}?view=table"):
        tag = viewer.get(path, headers=HTMX).headers["ETag"]
        unchanged = viewer.get(path, headers={**HTMX, "If-None-Match": tag})
        assert unchanged.status_code == 286 and unchanged.headers["HX-Reswap"] == "none" and not unchanged.data

    finished, *_ = finished_match(app, "topic")
    imported = store_samples(app)
    # An imported match still played is the host's to take the pencil of.
    for match_id, status in ((finished, 304), (imported["to"], 286), (imported["on"], 304)):
        live = f"/matches/{ref(match_id)}/live"
        tag = viewer.get(live, headers=HTMX).headers["ETag"]
        assert viewer.get(live, headers={**HTMX, "If-None-Match": tag}).status_code == status


@pytest.mark.parametrize("sent", ['""', 'W/""', '"", "v1-abcd-en"'], ids=["empty", "weak empty", "empty among"])
def test_a_poll_that_sends_an_empty_tag_is_drawn_as_one_that_sent_none(client, sent):
    match_id = start_match(client, "topic", PLAYERS)
    drawn = client.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": sent})
    assert drawn.status_code == 200 and "Ann" in read_words(drawn.get_data(as_text=True))
