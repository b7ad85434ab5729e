"""The pencil hand-off code (ten minutes, wrong codes rate-limited); undo and redo as the page showed them."""

from __future__ import annotations

import re
import time

from companion.extensions import db
from companion.models import Match
from companion.services import pencil as pencil_service
from tests.helpers import HTMX, csrf_token, dump, ref, save_round, start_match, stored_match
from tests.pages import read


def offer(app, match_id: int) -> str:
    with app.app_context():
        code = pencil_service.offer_pencil(db.session.get(Match, match_id))
        db.session.remove()
    return code


def test_a_pencil_code_expires_after_ten_minutes(app, client, monkeypatch):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    code = offer(app, match_id)
    phone = app.test_client()
    token = csrf_token(phone, f"/matches/{ref(match_id)}")
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + 601)
    before = dump(app)
    late = phone.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": code})
    assert late.status_code == 409 and "more than ten minutes old" in late.get_data(as_text=True)
    assert dump(app) == before
    monkeypatch.setattr(time, "time", lambda: now + 590)
    assert phone.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": code}).status_code == 302


def test_repeated_wrong_codes_are_rate_limited_but_the_right_code_is_taken(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    stale = [offer(app, match_id) for _ in range(12)]  # each offer replaces the one before
    code = offer(app, match_id)
    guesser = app.test_client()
    token = csrf_token(guesser, f"/matches/{ref(match_id)}")
    statuses = [
        guesser.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": old}).status_code
        for old in stale
    ]
    assert statuses == [409] * 10 + [429] * 2
    held_off = guesser.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": stale[0]})
    assert held_off.status_code == 429 and "wait a minute" in held_off.get_data(as_text=True)
    # A wrong-code limit never refuses the right code, this phone's own included.
    taken = guesser.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": code})
    assert taken.status_code == 302


def test_undo_and_redo_change_one_round_per_page_drawn(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    for loser in ("Bob", "Cy", "Ann"):
        assert save_round(client, match_id, {"loser": loser}).status_code == 200
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    shown = read(page).by_id("rounds-shown")
    assert (shown["name"], shown["value"]) == ("shown", "3")
    assert [part for part in read(page).iter() if part.get("hx-include") == "#rounds-shown"]
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    double = [client.post(f"/matches/{ref(match_id)}/undo", data={"csrf_token": token, "shown": "3"}, headers=HTMX)
              for _ in range(2)]  # fmt: skip
    assert [answer.status_code for answer in double] == [200, 409]
    assert "not the 3 this page showed" in double[1].get_data(as_text=True)
    assert len(stored_match(app, match_id).rounds) == 2
    assert [field["value"] for field in read(double[0].get_data(as_text=True)).find_all("input", name="shown")] == ["2"]
    redo = [client.post(f"/matches/{ref(match_id)}/redo", data={"csrf_token": token, "shown": "2"}, headers=HTMX)
            for _ in range(2)]  # fmt: skip
    assert [answer.status_code for answer in redo] == [200, 409]
    assert len(stored_match(app, match_id).rounds) == 3


EMPTIED_BANNER = re.compile(r'<div id="banner"[^>]*hx-swap-oob="innerHTML"[^>]*>\s*</div>')


def test_a_phone_that_lost_the_pencil_loses_its_read_back_and_undo_with_its_entry(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    assert save_round(client, match_id, {"loser": "Ann"}).status_code == 200
    code = offer(app, match_id)
    phone = app.test_client()
    token = csrf_token(phone, f"/matches/{ref(match_id)}")
    assert phone.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": code}).status_code == 302
    # The first phone's next poll: its page still shows the entry, with the read-back and its Undo.
    polled = client.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "X-Entry-Shows": "pencil"})
    body = polled.get_data(as_text=True)
    assert "Another phone holds the pencil." in body
    # ...and the banner slot comes emptied out of band: no Undo left that this phone may no longer use.
    assert EMPTIED_BANNER.search(body)


def test_the_scorekeeper_whose_save_ended_the_match_keeps_its_read_back(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"], length="exact", deck="2")
    # One round reveals one of the two cards: the deck is out, the match over.
    assert save_round(client, match_id, {"loser": "Ann"}).status_code == 200
    assert stored_match(app, match_id).status == "finished"
    # A poll sent while its page still showed the entry: the entry becomes the finished match's,
    # the read-back of the last round (and its Undo, which opens the match again) stays.
    polled = client.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "X-Entry-Shows": "pencil"})
    assert polled.status_code == 200 and read(polled.get_data(as_text=True)).by_id("entry")
    assert not EMPTIED_BANNER.search(polled.get_data(as_text=True))
