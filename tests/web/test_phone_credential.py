"""A phone's own credential: only the server makes one, it is kept across groups, and a removed phone stays out."""

from __future__ import annotations

import html

import pytest
from sqlalchemy import select

from companion import create_app
from companion.extensions import db
from companion.models import Group, Member
from companion.queries.matches import hash_token
from tests.helpers import ADDRESS_KEY, PHONE_CREDENTIAL, csrf_token, invite_path, join_group, read_words, ref
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
    removed = ann.post(f"/groups/phones/{ref(bob_id)}/remove", data={"csrf_token": csrf_token(ann, "/groups")},
                       follow_redirects=True)  # fmt: skip
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
