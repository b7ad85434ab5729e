"""Seats for the players' own phones: the seat link, taking, leaving and freeing a seat, in open and private groups."""

from __future__ import annotations

import html
import re

from companion.extensions import db
from companion.models import Match, Member
from tests.conftest import HTMX, csrf_token, finished_match, read_words, ref, save_round, start_match
from tests.reliability.test_bad_input import dump
from tests.web.test_groups import two_groups  # noqa: F401 - a fixture

SEAT_LINK = re.compile(r'href="https?://[^/"]+(/matches/[^"]+/seat[^"]*)"')


def take(phone, match_id: int, position, path: str | None = None):
    """This phone opens the seat link and takes the seat at `position`."""
    path = path or f"/matches/{ref(match_id)}/seat"
    token = csrf_token(phone, path)
    return phone.post(f"/matches/{ref(match_id)}/seat", data={"csrf_token": token, "seat": str(position)})


def seated(app, match_id: int) -> dict[str, str | None]:
    """Who sits where, as stored: each seat's name and its phone's label (None when free)."""
    with app.app_context():
        match = db.session.get(Match, match_id)
        found = {seat.name: (seat.phone_label if seat.phone else None) for seat in match.seats}
        db.session.remove()
    return found


def test_a_phone_takes_its_seat_and_sees_its_own_part(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    assert save_round(client, match_id, {"loser": "Bob"}).status_code == 200
    share = client.get(f"/matches/{ref(match_id)}/share").get_data(as_text=True)
    assert "A seat for each player's phone" in share and SEAT_LINK.search(share)
    bob = app.test_client()
    bob.environ_base["HTTP_USER_AGENT"] = "Mozilla/5.0 (Linux; Android 14) Chrome/120"
    picker = bob.get(SEAT_LINK.search(share).group(1)).get_data(as_text=True)
    assert "Which player are you?" in picker and "Take a seat" in picker
    answer = take(bob, match_id, 1)
    assert answer.status_code == 302 and answer.headers["Location"].endswith(f"/matches/{ref(match_id)}")
    assert seated(app, match_id) == {"Ann": None, "Bob": "Chrome · Android", "Cy": None}
    page = read_words(bob.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "Your seat: Bob" in page and "Leave the seat" in page
    # Topic_: its own cards held, big, beside the deck; a viewer has none of that.
    assert re.search(r'class="topic-mine"[^>]*><span>Your cards</span>\s*<strong class="big-num">1</strong>', page)
    viewer_page = app.test_client().get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "topic-mine" not in viewer_page and "Your seat" not in viewer_page
    # The scorekeeper's share page says which phone sits where.
    assert "Chrome · Android" in client.get(f"/matches/{ref(match_id)}/seats").get_data(as_text=True)


def test_a_seat_holds_one_phone_and_a_phone_sits_at_one_seat(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    bob, other = app.test_client(), app.test_client()
    assert take(bob, match_id, 1).status_code == 302
    before = dump(app)
    refused = take(other, match_id, 1)
    text = html.unescape(refused.get_data(as_text=True))
    assert refused.status_code == 409 and "Another phone has taken Bob's seat" in text and 'id="seat-error"' in text
    assert dump(app) == before
    # Bob's phone moves to Cy's seat: it leaves Bob's, which the other phone may then take.
    assert take(bob, match_id, 2).status_code == 302
    assert take(other, match_id, 1).status_code == 302
    assert [name for name, phone in seated(app, match_id).items() if phone is not None] == ["Bob", "Cy"]


def test_a_seat_that_is_no_seat_is_refused_beside_its_field(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    phone = app.test_client()
    before = dump(app)
    for position in ("", "2", "-1", "x", "99999999999999999999"):
        answer = take(phone, match_id, position)
        assert answer.status_code == 422, position
        assert "Pick your name among the match's players" in html.unescape(answer.get_data(as_text=True))
    assert dump(app) == before


def test_the_scorekeeper_frees_a_seat_and_the_phone_learns_it_at_its_next_poll(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    bob = app.test_client()
    assert take(bob, match_id, 1).status_code == 302
    page = bob.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    etag = re.search(r"data-etag='([^']+)'", page).group(1)
    # Only the scorekeeper frees a seat.
    assert bob.post(f"/matches/{ref(match_id)}/seats/free", data={"csrf_token": csrf_token(bob), "seat": "1"},
                    headers=HTMX).status_code == 403  # fmt: skip
    freed = client.post(f"/matches/{ref(match_id)}/seats/free",
                        data={"csrf_token": csrf_token(client), "seat": "1"}, headers=HTMX)  # fmt: skip
    assert freed.status_code == 200 and "Chrome" not in freed.get_data(as_text=True)
    assert seated(app, match_id) == {"Ann": None, "Bob": None}
    poll = bob.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": etag, "X-Entry-Shows": "seat"})
    text = poll.get_data(as_text=True)
    assert poll.status_code == 200 and 'id="entry" hx-swap-oob' in text and "Your seat" not in text
    assert "You are following this match" in text


def test_a_seated_phone_leaves_its_seat(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    bob = app.test_client()
    assert take(bob, match_id, 0).status_code == 302
    left = bob.post(f"/matches/{ref(match_id)}/seat/leave", data={"csrf_token": csrf_token(bob)})
    assert left.status_code == 302 and seated(app, match_id) == {"Ann": None, "Bob": None}


def test_the_seats_of_a_match_no_longer_played_cannot_be_taken(app):
    match_id, players, _, _ = finished_match(app, "topic")
    phone = app.test_client()
    assert "its seats cannot be taken" in phone.get(f"/matches/{ref(match_id)}/seat").get_data(as_text=True)
    assert take(phone, match_id, 0).status_code == 403
    assert set(seated(app, match_id).values()) == {None}


def test_a_seat_link_seats_a_phone_outside_the_group_without_making_it_a_member(two_groups):  # noqa: F811
    app, phones, friday_match, club_match = two_groups
    share = phones["bob"].get(f"/matches/{ref(friday_match)}/share").get_data(as_text=True)
    link = SEAT_LINK.search(share).group(1).replace("&amp;", "&")
    assert "?follow=" in link
    stranger = phones["stranger"]
    assert stranger.get(link).status_code == 200
    assert take(stranger, friday_match, 2, path=link).status_code == 302
    assert seated(app, friday_match)["Cyrillo"] is not None
    page = read_words(stranger.get(f"/matches/{ref(friday_match)}").get_data(as_text=True))
    assert "Your seat: Cyrillo" in page
    with app.app_context():
        assert db.session.query(Member).count() == 4
        db.session.remove()
    # Nothing else of the group, nor the other group's seats.
    assert stranger.get("/history").status_code == 404
    assert stranger.get(f"/matches/{ref(club_match)}/seat").status_code == 404
    assert stranger.get(f"/matches/{ref(friday_match)}/share").status_code == 404
