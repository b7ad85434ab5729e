"""An instance of the previous version upgraded: its phones keep their memberships, seats, pencils and host rights."""

from __future__ import annotations

import html
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from flask.sessions import SecureCookieSessionInterface
from flask_migrate import upgrade
from sqlalchemy import select, text

from companion import create_app
from companion.extensions import db
from companion.models import MovedPhone
from companion.queries.matches import hash_token
from companion.services.groups import MOVED_PHONE_GRACE
from tests.helpers import ADDRESS_KEY, HTMX, address_database, csrf_token, fresh_database, read_words, ref

# The revision the previous version left its database at.
PREVIOUS_REVISION = "e9a7c5b3d1f2"
# The cookies the previous version gave its phones: a raw credential each, a pencil cookie named by the row id.
HOST = "previous-version-host-credential-0123456789ab"
SEATED = "previous-version-seated-credential-0123456789"
PENCIL = "previous-version-pencil-token-0123456789abcdef"
NEVER_HELD = "previous-version-shaped-but-held-by-nothing-01"
HTTPS = {"base_url": "https://localhost", "headers": {"X-Forwarded-Proto": "https"}}


@pytest.fixture
def previous_instance(tmp_path: Path) -> Iterator[tuple[str, dict[str, int]]]:
    """A private server's database as the previous version left it: a group whose host phone started a Topic_
    match (it holds the pencil) at which a phone outside the group took Ann's seat."""
    with fresh_database() as url:
        url = url or f"sqlite:///{tmp_path / 'instance' / 'companion.sqlite'}"
        old = create_app({"SQLALCHEMY_DATABASE_URI": url, "AUTO_MIGRATE": False, "SECRET_KEY": ADDRESS_KEY},
                         instance_path=str(tmp_path / "instance"))  # fmt: skip
        with old.app_context(), db.engine.begin() as connection:
            upgrade(revision=PREVIOUS_REVISION)
            at = "2026-12-01 20:00:00"

            def insert(statement: str, **values) -> int:
                return connection.execute(text(f"{statement} RETURNING id"), values).scalar_one()

            group = insert("INSERT INTO play_group (name, created_at, invite) VALUES ('Gialli kitchen', :at, 'inv')",
                           at=at)  # fmt: skip
            insert("INSERT INTO member (group_id, phone, host, joined_at, last_seen, label) VALUES"
                   " (:g, :phone, :host, :at, :at, 'Ann''s phone')", g=group, phone=hash_token(HOST), host=True, at=at)
            players = [insert("INSERT INTO player (name, key, created_at, group_id) VALUES (:n, :k, :at, :g)",
                              n=name, k=name.lower(), at=at, g=group) for name in ("Ann", "Bob")]  # fmt: skip
            match = insert(
                "INSERT INTO match (game, settings, status, started_at, version, scorekeeper_hash, owner_hash, uid,"
                " summary, redo, cache_version, group_id) VALUES ('topic', '{}', 'playing', :at, 2, :pencil, :pencil,"
                " 'previous-version-match', '{}', '[]', 0, :g)", at=at, pencil=hash_token(PENCIL), g=group)
            for position, (player, phone) in enumerate(zip(players, (hash_token(SEATED), None), strict=True)):
                insert("INSERT INTO seat (match_id, player_id, position, name, phone, phone_label) VALUES"
                       " (:m, :p, :pos, :n, :phone, 'Firefox · Android')", m=match, p=player, pos=position,
                       n=("Ann", "Bob")[position], phone=phone)  # fmt: skip
        with old.app_context():
            db.engine.dispose()
        yield url, {"group": group, "match": match}


def moved(response) -> tuple[set[str], set[str]]:
    """The cookies an answer sets, and those it deletes (by name)."""
    lines = response.headers.getlist("Set-Cookie")
    deleted = {line.split("=", 1)[0] for line in lines if "Max-Age=0" in line or "Expires=Thu, 01 Jan 1970" in line}
    return {line.split("=", 1)[0] for line in lines} - deleted, deleted


def test_an_upgraded_instances_phones_keep_their_groups_seats_pencils_and_host_rights(
    tmp_path, previous_instance, monkeypatch
):
    url, ids = previous_instance
    monkeypatch.setenv("BEHIND_PROXY", "1")
    monkeypatch.setenv("COMPANION_GROUPS", "private")
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": ADDRESS_KEY},
                     instance_path=str(tmp_path / "instance"))  # fmt: skip
    address_database(url)  # the match's address is the one the upgrade gave it
    match_page = f"/matches/{ref(ids['match'])}"
    try:
        # The host's phone, with the cookies the previous version set it: its credential, group, pencil, language.
        host = app.test_client()
        for name, value in (("phone", HOST), ("group", str(ids["group"])), (f"pencil_{ids['match']}", PENCIL),
                            ("lang", "it")):  # fmt: skip
            host.set_cookie(name, value)
        first = host.get(match_page, **HTTPS)
        assert first.status_code == 200
        set_now, deleted = moved(first)
        assert {"__Host-phone", "__Host-group", "__Host-pencil", "__Host-lang"} <= set_now
        assert {"phone", "group", f"pencil_{ids['match']}", "lang"} <= deleted
        assert host.get_cookie("phone") is None and host.get_cookie(f"pencil_{ids['match']}") is None
        # With the new cookies alone: still the scorekeeper (it saves a round), a host, in its language.
        for _ in range(2):
            page = host.get(match_page, **HTTPS).get_data(as_text=True)
            assert 'name="number"' in page and 'lang="it"' in page
        token = csrf_token(host, f"https://localhost{match_page}")
        saved = host.post(f"{match_page}/rounds", data={"csrf_token": token, "number": "1", "loser": "Bob"},
                          base_url="https://localhost", headers={**HTMX, **HTTPS["headers"],
                                                                 "Origin": "https://localhost"})  # fmt: skip
        assert saved.status_code == 200, saved.get_data(as_text=True)[:300]
        groups_page = html.unescape(host.get("/groups", **HTTPS).get_data(as_text=True))
        assert "/join/inv" in groups_page and "Ann's phone" in groups_page
        # The phone seated from outside the group, with its credential and the session that followed the match.
        serializer = SecureCookieSessionInterface().get_signing_serializer(app)
        with app.test_request_context():
            old_session = serializer.dumps({"following": [ids["match"]]})
        seated = app.test_client()
        seated.set_cookie("phone", SEATED)
        seated.set_cookie("session", old_session)
        first = seated.get(match_page, **HTTPS)
        assert first.status_code == 200 and "Your seat: Ann" in read_words(first.get_data(as_text=True))
        set_now, deleted = moved(first)
        assert {"__Host-phone", "__Host-session"} <= set_now and {"phone", "session"} <= deleted
        again = seated.get(match_page, **HTTPS)
        assert again.status_code == 200 and "Your seat: Ann" in read_words(again.get_data(as_text=True))
        # A cookie of the previous version's shape that nothing holds moves nothing and opens nothing.
        stranger = app.test_client()
        stranger.set_cookie("phone", NEVER_HELD)
        assert stranger.get(match_page, **HTTPS).status_code == 404
        assert "__Host-phone" not in moved(stranger.get("/", **HTTPS))[0]
        # The previous version's credentials, moved, are refused a few seconds later: carried to another phone
        # (planted there), they open nothing; the phones they were moved on keep everything.
        with app.app_context():
            for noted in db.session.scalars(select(MovedPhone)):
                noted.moved_at -= MOVED_PHONE_GRACE + timedelta(seconds=1)
            db.session.commit()
            db.session.remove()
        for old in (HOST, SEATED):
            planted = app.test_client()
            planted.set_cookie("phone", old)
            assert planted.get(match_page, **HTTPS).status_code == 404
            assert planted.get("/history", **HTTPS).status_code == 404
        assert 'name="number"' in host.get(match_page, **HTTPS).get_data(as_text=True)
        assert "Your seat: Ann" in read_words(seated.get(match_page, **HTTPS).get_data(as_text=True))
    finally:
        address_database(None)
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
