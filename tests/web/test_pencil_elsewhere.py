"""Web tests: a phone that lost the pencil is told so where the entry was; a refused save says so in view."""

from __future__ import annotations

import re

from tests.helpers import csrf_token, give_pencil, ref, save_round, start_match
from tests.pages import read

SAME_ON_EVERY_DATABASE = "what the page says where the pencil went: markup"

NOTICE = re.compile(r'<p class="entry-notice" role="alert" data-fade>([^<]*)</p>')
PLAYERS = ["Ann", "Bob", "Cy"]


def post_save(client, match_id: int, token: str, **fields):
    """Save round 1 with the CSRF token of the page as the phone last opened it (before the pencil moved)."""
    return save_round(client, match_id, fields, 1, csrf=token)


def test_the_owner_whose_pencil_went_to_another_phone_sees_who_holds_it_and_can_take_it_back(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    token = csrf_token(client, f"/matches/{ref(match_id)}")  # the page still shows the entry
    other = app.test_client()
    give_pencil(client, other, match_id)

    refused = post_save(client, match_id, token, loser="Bob")
    html = refused.get_data(as_text=True)
    assert refused.status_code == 403
    assert "HX-Retarget" not in refused.headers  # it replaces the entry, where the eye is
    assert "Another phone holds the pencil." in html and "Take the pencil back" in html
    assert not read(html).find_all(name="number") and not read(html).find_all("html")
    # The tools drawn with it offer no Undo to a phone that cannot undo.
    assert read(html).by_id("match-tools")["hx-swap-oob"] == "true" and "/undo" not in html

    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    take_back = read(page).one_by_role("button", "Take the pencil back").closest("form")
    assert "Another phone holds the pencil." in page and take_back["action"] == f"/matches/{ref(match_id)}/pencil/back"
    back = client.post(
        f"/matches/{ref(match_id)}/pencil/back", data={"csrf_token": csrf_token(client, f"/matches/{ref(match_id)}")}
    )
    assert back.status_code == 302
    assert post_save(client, match_id, csrf_token(client, f"/matches/{ref(match_id)}"), loser="Bob").status_code == 200


def test_a_phone_that_was_given_the_pencil_and_lost_it_cannot_take_it_back(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    other = app.test_client()
    give_pencil(client, other, match_id)
    token = csrf_token(other, f"/matches/{ref(match_id)}")
    client.post(
        f"/matches/{ref(match_id)}/pencil/back", data={"csrf_token": csrf_token(client, f"/matches/{ref(match_id)}")}
    )

    html = post_save(other, match_id, token, loser="Bob").get_data(as_text=True)
    assert "Another phone holds the pencil." in html and "Take the pencil back" not in html


def test_a_phone_that_never_held_the_pencil_is_simply_following(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    viewer = app.test_client()
    page = viewer.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "You are following this match." in page and "Another phone holds the pencil." not in page


def test_a_refused_save_says_so_at_the_top_of_the_entry(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    missing = post_save(client, match_id, token, several="on")
    assert missing.status_code == 422
    assert NOTICE.findall(missing.get_data(as_text=True)) == ["Not saved: see the marked fields."]

    assert post_save(client, match_id, token, loser="Bob").status_code == 200
    stale = post_save(client, match_id, token, loser="Cy")
    assert stale.status_code == 409
    (message,) = NOTICE.findall(stale.get_data(as_text=True))
    assert "This round changed meanwhile" in message

    saved = post_save(client, match_id, token, loser="Bob").get_data(as_text=True)
    assert NOTICE.findall(saved) == []
