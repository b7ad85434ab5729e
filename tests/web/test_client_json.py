"""JSON a client sends is read by one bounded reader: deep nesting, lone surrogates and impossible dates are refused."""

from __future__ import annotations

import html
import io
import json

import pytest

from tests.helpers import HTMX, csrf_token, dump, ref, start_match, take

# A `table` field nested a thousand levels deep: Python's own reader gives up with a RecursionError.
DEEP = "[" * 1000 + "]" * 1000


def upload(client, text: str):
    """The import form posted with this file's text."""
    data = {"csrf_token": csrf_token(client, "/history"), "file": (io.BytesIO(text.encode()), "history.json")}
    return client.post("/history/import", data=data, content_type="multipart/form-data")


def match_file(**changes) -> dict:
    """A small finished Topic_ match file, with `changes` made to it."""
    document = {"format": "companion-match/1", "id": "late-night", "game": "topic", "players": ["Ann", "Bob"],
                "settings": {"deck": 2}, "started": "2025-03-01T20:00:00Z",
                "rounds": [{"losers": ["Bob"]}]}  # fmt: skip
    document.update(changes)
    return document


def refused_page(response) -> str:
    assert response.status_code == 422, response.status_code
    return html.unescape(response.get_data(as_text=True))


def test_an_imported_player_name_with_a_lone_surrogate_is_refused_and_nothing_stored(app, host_client):
    before = dump(app)
    # json.dumps writes the lone surrogate as the escape "\ud800", as a hostile file would.
    text = json.dumps([match_file(players=["\ud800x", "Bob"], rounds=[{"losers": ["Bob"]}])])
    page = refused_page(upload(host_client, text))
    assert "text holds a lone surrogate (\\ud800)" in page
    assert dump(app) == before


def test_a_lone_surrogate_anywhere_in_an_imported_file_is_refused(app, host_client):
    before = dump(app)
    text = json.dumps([match_file(settings={"deck": 2, "theme": "caf\udc00"})])
    assert "lone surrogate" in refused_page(upload(host_client, text))
    assert dump(app) == before


@pytest.mark.parametrize("field", ["started", "finished"])
def test_an_import_with_an_impossible_date_is_refused_naming_the_match(app, host_client, field):
    before = dump(app)
    page = refused_page(upload(host_client, json.dumps([match_file(**{field: "9999-99-99"})])))
    assert f"late-night: {field}: 9999-99-99 is not a date" in page
    assert dump(app) == before


def test_an_impossible_date_of_a_round_is_refused_too(app, host_client):
    before = dump(app)
    page = refused_page(upload(host_client, json.dumps([match_file(rounds=[{"losers": ["Bob"], "at": "2025-13-40"}])])))
    assert "late-night: round 1: at: 2025-13-40 is not a date" in page
    assert dump(app) == before


def test_a_pazaak_entry_post_nested_a_thousand_deep_is_refused(app, client):
    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    before = dump(app)
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    answer = client.post(f"/matches/{ref(match_id)}/entry", headers=HTMX,
                         data={"csrf_token": token, "move": "draw:6", "table": DEEP, "moves": "[]"})  # fmt: skip
    assert answer.status_code == 422
    assert "nests deeper than" in html.unescape(answer.get_data(as_text=True))
    assert dump(app) == before


def test_a_pazaak_board_post_nested_a_thousand_deep_is_refused(app, client):
    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    assert take(client, match_id, 0).status_code == 302
    before = dump(app)
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    answer = client.post(f"/matches/{ref(match_id)}/board", headers=HTMX,
                         data={"csrf_token": token, "move": "draw:6", "number": "1", "table": DEEP})  # fmt: skip
    assert answer.status_code == 422
    assert "nests deeper than" in html.unescape(answer.get_data(as_text=True))
    assert dump(app) == before


def test_a_lone_surrogate_in_a_pazaak_field_is_refused(app, client):
    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    before = dump(app)
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    answer = client.post(f"/matches/{ref(match_id)}/entry", headers=HTMX,
                         data={"csrf_token": token, "move": "draw:6", "table": '{"players": ["\\ud800"]}'})  # fmt: skip
    assert answer.status_code == 422
    assert "lone surrogate" in html.unescape(answer.get_data(as_text=True))
    assert dump(app) == before
