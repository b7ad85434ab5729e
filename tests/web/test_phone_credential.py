"""A phone's own credential: only the server makes one, it is kept across groups, and a removed phone stays out."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from companion import create_app
from companion.extensions import db
from companion.models import Group, Member, MovedPhone, Seat, SentRow
from companion.queries.matches import hash_token
from companion.services.groups import MOVED_PHONE_GRACE
from companion.web.groups import signed_credential
from tests.helpers import (
    ADDRESS_KEY,
    HTMX,
    PHONE_CREDENTIAL,
    csrf_token,
    invite_path,
    join_group,
    read_words,
    ref,
    start_match,
    take,
)
from tests.pages import read


def members_of(app, name: str) -> int:
    """How many phones the group of that name has."""
    with app.app_context():
        found = db.session.scalars(select(Member).join(Group, Group.id == Member.group_id).where(Group.name == name))
        count = len(list(found))
        db.session.remove()
    return count


def test_a_removed_phone_cannot_rejoin_by_its_old_invite_link_even_with_its_cookies_cleared(two_groups):
    app, phones, friday_match, _ = two_groups
    ann = phones["ann"]
    old_invite = invite_path(ann)
    with app.app_context():
        group_id = db.session.scalar(select(Group.id).where(Group.name == "Gialli kitchen"))
        bob_id = db.session.scalar(select(Member.id).where(~Member.host, Member.group_id == group_id))
        db.session.remove()
    removed = ann.post(f"/groups/phones/{ref(bob_id, 'member')}/remove",
                       data={"csrf_token": csrf_token(ann, "/groups")}, follow_redirects=True)  # fmt: skip
    page = read_words(html.unescape(removed.get_data(as_text=True)))
    assert "the invite link renewed: the one that phone had no longer lets it back in" in page
    new_invite = invite_path(ann)
    assert new_invite != old_invite
    assert read(removed.get_data(as_text=True)).one_by_role("img", "QR code of the invite link")
    # Bob's phone, its cookies cleared (no credential, no session: a new client), opens the link it had:
    # it is told the link is no longer valid.
    bob = app.test_client()
    opened = bob.get(old_invite)
    assert opened.status_code == 404 and "This invite link is no longer valid" in html.unescape(
        opened.get_data(as_text=True))
    assert join_group(bob, old_invite).status_code == 404
    assert members_of(app, "Gialli kitchen") == 1
    assert bob.get(f"/matches/{ref(friday_match)}").status_code == 404
    # The new link goes on letting in whom the host shows it to.
    assert join_group(app.test_client(), new_invite).status_code == 302
    assert members_of(app, "Gialli kitchen") == 2



PLANTED = "a-credential-the-server-never-issued-0123456789"


@pytest.mark.parametrize(
    "planted", [PLANTED, f"{PLANTED}.c2lnbmF0dXJl", "é" * 43], ids=["made up", "signed-looking", "not ascii"]
)
def test_a_planted_phone_cookie_is_replaced_before_a_join_binds_anything_to_it(two_groups, planted):
    app, phones, friday_match, _ = two_groups
    invite = invite_path(phones["ann"])
    phone = app.test_client()
    phone.set_cookie(PHONE_CREDENTIAL, planted)
    assert join_group(phone, invite).status_code == 302
    issued = phone.get_cookie(PHONE_CREDENTIAL).value
    assert planted not in issued
    assert phone.get(f"/matches/{ref(friday_match)}").status_code == 200
    with app.app_context():
        held = db.session.scalars(select(Member.phone)).all()
        db.session.remove()
    assert hash_token(planted) not in held and hash_token(planted.rsplit(".", 1)[0]) not in held
    # Whoever planted it reaches nothing of the group with it.
    planter = app.test_client()
    planter.set_cookie(PHONE_CREDENTIAL, planted)
    assert planter.get(f"/matches/{ref(friday_match)}").status_code == 404
    assert planter.get("/history").status_code == 404


def test_a_phone_keeps_its_credential_in_every_group_it_joins(two_groups):
    app, phones, _, _ = two_groups
    ann, cy = phones["ann"], phones["cy"]
    credential = ann.get_cookie(PHONE_CREDENTIAL).value
    assert join_group(ann, invite_path(cy)).status_code == 302
    assert ann.get_cookie(PHONE_CREDENTIAL).value == credential
    page = ann.get("/groups").get_data(as_text=True)
    assert "Open Gialli kitchen" in read_words(page)
    assert members_of(app, "Gialli kitchen") == 2 and members_of(app, "Chess club") == 3


@pytest.fixture
def https_private(monkeypatch, tmp_path, database_url):
    """A private server whose phones reach it over HTTPS (behind its proxy, as compose.yaml runs it)."""
    monkeypatch.setenv("BEHIND_PROXY", "1")
    monkeypatch.setenv("COMPANION_GROUPS", "private")
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY},
                     instance_path=str(tmp_path / "instance"))  # fmt: skip
    yield app
    with app.app_context():
        db.engine.dispose()


HTTPS = {"base_url": "https://localhost", "headers": {"X-Forwarded-Proto": "https", "Origin": "https://localhost"}}


def set_cookies(response) -> dict[str, str]:
    """The cookies an answer sets (by name: the whole Set-Cookie line); deleted ones included."""
    return {line.split("=", 1)[0]: line for line in response.headers.getlist("Set-Cookie")}


def test_over_https_every_cookie_of_a_phone_is_host_prefixed(https_private):
    phone = https_private.test_client()
    token = csrf_token(phone, "https://localhost/")
    started = phone.post("/groups", data={"csrf_token": token, "name": "Gialli kitchen"}, **HTTPS)
    assert started.status_code == 302
    cookies = set_cookies(started)
    assert {"__Host-phone", "__Host-group", "__Host-session"} <= set(cookies), cookies
    for name, line in cookies.items():
        assert name.startswith("__Host-") and "; Secure" in line and "Path=/" in line and "Domain" not in line, line
    token = csrf_token(phone, "https://localhost/matches/new")
    made = phone.post("/matches/new", data={"csrf_token": token, "game": "topic", "seat": ["Ann", "Bob"],
                                            "action": "start"}, **HTTPS)  # fmt: skip
    assert made.status_code == 302 and "__Host-pencil" in set_cookies(made)


def moved_back(app, seconds: float) -> None:
    """Time moved on: every move of a previous version's credential noted that many seconds earlier."""
    with app.app_context():
        for moved in db.session.scalars(select(MovedPhone)):
            moved.moved_at -= timedelta(seconds=seconds)
        db.session.commit()
        db.session.remove()


def held_by(app, hashed: str) -> dict[str, int]:
    """How many rows of each kind hold this hash of a credential (a seat's list of phones kept out included)."""
    with app.app_context():
        seats = db.session.scalars(select(Seat)).all()
        found = {
            "member": db.session.scalar(select(func.count()).where(Member.phone == hashed)),
            "seat": sum(seat.phone == hashed for seat in seats),
            "kept out": sum(hashed in (seat.kept_out or ()) for seat in seats),
            "sent row": db.session.scalar(select(func.count()).where(SentRow.phone == hashed)),
        }
        db.session.remove()
    return found


def test_a_previous_versions_credential_is_moved_on_its_first_request_and_refused_after_a_short_grace(two_groups):
    app, phones, _, _ = two_groups
    ann, bob = phones["ann"], phones["bob"]
    match_id = start_match(bob, "pazzaparola", ["Annabella", "Bobbington", "Cyrillo"])
    match_page = f"/matches/{ref(match_id)}"
    # Ann's phone, the group's host, sat at Annabella's seat and was freed from it; it sits at Bobbington's and
    # has sent its row of round 1.
    assert take(ann, match_id, 0).status_code == 302
    freed = bob.post(f"{match_page}/seats/free", data={"csrf_token": csrf_token(bob, f"{match_page}/share"),
                                                       "seat": "0"}, headers=HTMX)  # fmt: skip
    assert freed.status_code == 200
    assert take(ann, match_id, 1).status_code == 302
    row = {"number": "1", "used-1": ["5", "1"], "word-1": "SI", "row_key": "3f0c2a9e-8b1d-4c6e-9a7f-2d5b8e1c4a60"}
    assert ann.post(f"{match_page}/rows", data={"csrf_token": csrf_token(ann, match_page), **row},
                    headers=HTMX).status_code == 200  # fmt: skip
    # The same credential as the previous version kept it in the cookie: unsigned.
    old = ann.get_cookie(PHONE_CREDENTIAL).value.rsplit(".", 1)[0]
    assert held_by(app, hash_token(old)) == {"member": 1, "seat": 1, "kept out": 1, "sent row": 1}

    # Its first request: the page as before, and a new credential, signed, in its cookie.
    upgraded = app.test_client()
    upgraded.set_cookie(PHONE_CREDENTIAL, old)
    first = upgraded.get(match_page)
    assert first.status_code == 200 and "Your seat: Bobbington" in read_words(first.get_data(as_text=True))
    issued = upgraded.get_cookie(PHONE_CREDENTIAL).value
    new = signed_credential(issued, app)
    assert new and new != old and old not in issued
    # Every right moved with it, at once: nothing holds the old credential any more.
    assert held_by(app, hash_token(old)) == {"member": 0, "seat": 0, "kept out": 0, "sent row": 0}
    assert held_by(app, hash_token(new)) == {"member": 1, "seat": 1, "kept out": 1, "sent row": 1}
    # With the new cookie: the host's invite link, the group's history, its seat, the seat it was freed from, and
    # its row sent again under its key (its answer lost) answered as stored, not refused.
    assert invite_path(upgraded).startswith("/join/")
    assert upgraded.get("/history").status_code == 200
    assert "Your seat: Bobbington" in read_words(upgraded.get(match_page).get_data(as_text=True))
    picker = read_words(html.unescape(upgraded.get(f"{match_page}/seat").get_data(as_text=True)))
    assert "scorekeeper freed Annabella's seat from this phone" in picker
    again = upgraded.post(f"{match_page}/rows", data={"csrf_token": csrf_token(upgraded, match_page), **row},
                          headers=HTMX)  # fmt: skip
    assert again.status_code == 200 and "Row sent" in again.get_data(as_text=True)

    # The same old value within a few seconds (the phone's other requests, sent at once): the same new credential.
    concurrent = app.test_client()
    concurrent.set_cookie(PHONE_CREDENTIAL, old)
    assert "Your seat: Bobbington" in read_words(concurrent.get(match_page).get_data(as_text=True))
    assert concurrent.get_cookie(PHONE_CREDENTIAL).value == issued

    # After the grace, the old value is one the server never issued: it opens nothing and is given nothing.
    moved_back(app, MOVED_PHONE_GRACE.total_seconds() + 1)
    for _ in range(2):
        planted = app.test_client()
        planted.set_cookie(PHONE_CREDENTIAL, old)
        assert planted.get(match_page).status_code == 404
        assert planted.get("/history").status_code == 404
        cookie = planted.get_cookie(PHONE_CREDENTIAL)
        assert cookie is None or signed_credential(cookie.value, app) != new
    # The phone that moved keeps it all.
    assert "Your seat: Bobbington" in read_words(upgraded.get(match_page).get_data(as_text=True))
    assert held_by(app, hash_token(new)) == {"member": 1, "seat": 1, "kept out": 1, "sent row": 1}
