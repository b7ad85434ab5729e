"""Who may change what: CSRF on every write, the pencil on every match write, secrets that stay secret."""

from __future__ import annotations

import base64
import hmac
import multiprocessing
import re
import stat
from pathlib import Path

import pytest
from flask import Flask

from companion import create_app
from companion.extensions import db
from companion.models import Match
from companion.queries import matches as queries
from companion.services import matches as service
from companion.services import pencil as pencil_service
from tests.helpers import HTMX, begun_evening, csrf_token, dump, grant_host_rights, hold_pencil, pencil_of, ref, unref

ROOT = Path(__file__).resolve().parents[2]
TOPIC_ROUND = {"several": "on", "losers": "Bob"}


def post_rules(app: Flask) -> list[tuple[str, str]]:
    """(endpoint, rule) of every route that takes a POST, read from the app itself."""
    return sorted((r.endpoint, r.rule) for r in app.url_map.iter_rules() if "POST" in (r.methods or ()))


def concrete(rule: str, match_id: int, player_id: int, evening: dict[str, str] | None = None) -> str:
    """A rule with its arguments filled in: the match, its round 1, one of its players; a club evening's address
    and its group's table cards' key (`begun_evening`)."""
    path = rule.replace("<match:match_id>", ref(match_id)).replace("<int:number>", "1")
    path = path.replace("<player:player_id>", ref(player_id, "player"))
    if evening is not None:
        path = path.replace("<evening:evening_id>", evening["evening"]).replace("<cards_key>", evening["cards_key"])
    # A phone of a private group, and an invite link's token: neither is there on an open server.
    path = path.replace("<member:member_id>", ref(1, "member")).replace("<token>", "not-an-invite")
    assert "<" not in path, f"a new kind of URL argument in {rule}: teach this test about it"
    return path


@pytest.fixture
def match(app, client):
    """A Topic_ match of Ann, Bob and Cy with one round; `client` is its scorekeeper. Returns (id, token)."""
    token = csrf_token(client, "/matches/new")
    response = client.post(
        "/matches/new", data={"csrf_token": token, "game": "topic", "seat": ["Ann", "Bob", "Cy"], "action": "start"}
    )
    assert response.status_code == 302
    match_id = unref(response.headers["Location"].rsplit("/", 1)[1])
    pencil = pencil_of(client, match_id)
    saved = client.post(
        f"/matches/{ref(match_id)}/rounds", data={"csrf_token": token, "number": "1", **TOPIC_ROUND}, headers=HTMX
    )
    assert saved.status_code == 200
    return match_id, pencil


def first_player(app, match_id: int) -> int:
    with app.app_context():
        player_id = db.session.get(Match, match_id).seats[0].player_id
        db.session.remove()
    return player_id


def test_every_post_route_needs_a_valid_csrf_token(app, client, match):
    match_id, _ = match
    player_id = first_player(app, match_id)
    # A host phone of the group, whose buttons on the group's page have an address (a phone's, member 1).
    grant_host_rights(app.test_client())
    rules = post_rules(app)
    assert len(rules) >= 15, rules
    evening = begun_evening(app)
    before = dump(app)
    for endpoint, rule in rules:
        path = concrete(rule, match_id, player_id, evening)
        # The scorekeeper's own phone, with everything but the token: only CSRF stands in the way.
        for headers, form in (({}, {}), ({"X-CSRFToken": "forged"}, {"csrf_token": "forged"})):
            form = {**form, "number": "2", **TOPIC_ROUND, "name": "Zed", "theme": "dark"}
            for extra in ({}, HTMX):
                response = client.post(path, data=form, headers={**headers, **extra})
                assert response.status_code == 400, f"{endpoint} {path}: {response.status_code}"
                assert "CSRF" in response.get_data(as_text=True)
    assert dump(app) == before


# Match writes that need the pencil (or host rights). `pencil.take` is taking the pencil
# with a single-use code, which is checked on its own below; a seat is any phone's at the table to
# take or leave (tests/web/test_seats.py), and gives it no write of the match.
# A club evening's table is confirmed by its other side's seat, not the pencil, a seated phone goes on to its next
# table by itself (tests/web/test_club_pages.py), and either side's seat calls the arbiter (test_club_clock.py).
OPEN_MATCH_ROUTES = {"pencil.take", "seats.seat", "seats.leave", "club.confirm", "club.next_table", "club.call"}
# Match writes that need host rights whoever holds the pencil: their 403 says to ask the host.
HOST_MATCH_ROUTES = {"matches.end"}


@pytest.mark.parametrize("cookie", ["none", "forged", "other match"])
def test_match_writes_need_the_scorekeeper_token(app, client, match, cookie):
    match_id, pencil = match
    stranger = app.test_client()
    if cookie == "forged":
        hold_pencil(stranger, match_id, "A" * 43)
    elif cookie == "other match":
        # The real pencil of another match is no key to this one.
        token = csrf_token(stranger, "/matches/new")
        other = stranger.post(
            "/matches/new", data={"csrf_token": token, "game": "topic", "seat": ["X", "Y"], "action": "start"}
        )
        other_id = unref(other.headers["Location"].rsplit("/", 1)[1])
        hold_pencil(stranger, match_id, pencil_of(stranger, other_id))
    # A viewer who followed the viewer link: the page, its session and its CSRF token.
    page = stranger.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert 'name="number"' not in page, "a viewer is offered the round entry"
    token = csrf_token(stranger, f"/matches/{ref(match_id)}")
    player_id = first_player(app, match_id)
    before = dump(app)
    checked = 0
    for endpoint, rule in post_rules(app):
        if "<match:match_id>" not in rule or endpoint in OPEN_MATCH_ROUTES:
            continue
        path = concrete(rule, match_id, player_id)
        for extra in ({}, HTMX):
            form = {"csrf_token": token, "number": "2", "revision": "0", **TOPIC_ROUND}
            response = stranger.post(path, data=form, headers=extra)
            assert response.status_code == 403, f"{endpoint}: {response.status_code}"
            body = response.get_data(as_text=True)
            if endpoint in HOST_MATCH_ROUTES:
                assert "host rights" in body and "Ask the host" in body, endpoint
            else:
                assert "scorekeeper" in body or "started the match" in body, endpoint
        checked += 1
    assert checked >= 7
    assert dump(app) == before


def test_taking_the_pencil_needs_the_single_use_code(app, client, match):
    match_id, _ = match
    stranger = app.test_client()
    token = csrf_token(stranger, f"/matches/{ref(match_id)}")
    with app.app_context():
        code = pencil_service.offer_pencil(db.session.get(Match, match_id))
        db.session.remove()
    before = dump(app)
    for guess in ("", "x", code[:-1], code + "x", "A" * len(code)):
        response = stranger.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": guess})
        assert response.status_code == 409
    assert dump(app) == before
    taken = stranger.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": code})
    assert taken.status_code == 302
    again = app.test_client()
    token = csrf_token(again, f"/matches/{ref(match_id)}")
    assert again.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": code}).status_code == 409


def test_the_phone_that_started_a_match_the_host_ended_may_play_it_again(app, client, match):
    # The host ends the match as unfinished: its pencil is gone from the scorekeeper's phone, not the offer
    # to play it again (the scorekeeper is still at the table).
    match_id, _ = match
    with app.app_context():
        service.end_match(db.session.get(Match, match_id))
        db.session.remove()
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "Play again" in page
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    again = client.post(f"/matches/{ref(match_id)}/again", data={"csrf_token": token})
    assert again.status_code == 302
    assert again.headers["Location"] != f"/matches/{ref(match_id)}"
    # A phone that only watched it is offered nothing, and refused.
    viewer = app.test_client()
    assert "Play again" not in viewer.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    token = csrf_token(viewer, f"/matches/{ref(match_id)}")
    assert viewer.post(f"/matches/{ref(match_id)}/again", data={"csrf_token": token}).status_code == 403


def test_play_again_needs_the_pencil_or_the_host_and_leaves_the_match_alone(app, client, match):
    match_id, _ = match
    stranger = app.test_client()
    token = csrf_token(stranger, f"/matches/{ref(match_id)}")
    before = dump(app)
    refused = stranger.post(f"/matches/{ref(match_id)}/again", data={"csrf_token": token})
    assert refused.status_code == 403
    assert "or the host can start it again" in refused.get_data(as_text=True)
    assert dump(app) == before
    response = grant_host_rights(stranger).post(f"/matches/{ref(match_id)}/again", data={"csrf_token": token})
    assert response.status_code == 302
    after = dump(app)
    assert len(after["match"]) == len(before["match"]) + 1
    assert [row for row in after["match"] if row[0] == match_id] == [
        row for row in before["match"] if row[0] == match_id
    ]
    assert [r for r in after["round"] if r[1] == match_id] == [r for r in before["round"] if r[1] == match_id]


def unb64(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


def test_tokens_are_long_and_random(app, client, match):
    match_id, pencil = match
    assert re.fullmatch(r"[A-Za-z0-9_-]{43,}", pencil)
    assert len(unb64(pencil)) >= 32
    with app.app_context():
        stored = db.session.get(Match, match_id)
        assert stored.scorekeeper_hash == queries.hash_token(pencil) != pencil
        codes = {pencil_service.offer_pencil(stored) for _ in range(3)}
        db.session.remove()
    assert len(codes) == 3 and all(len(unb64(code)) >= 32 for code in codes)
    other = app.test_client()
    token = csrf_token(other, "/matches/new")
    second = other.post(
        "/matches/new", data={"csrf_token": token, "game": "topic", "seat": ["Ann", "Bob"], "action": "start"}
    )
    second_id = unref(second.headers["Location"].rsplit("/", 1)[1])
    assert pencil_of(other, second_id) not in (None, pencil)
    assert len(app.config["SECRET_KEY"]) >= 64


def test_tokens_are_compared_in_constant_time(app, client, match, monkeypatch):
    match_id, pencil = match
    calls = []
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(queries.hmac, "compare_digest", spy)
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    with app.app_context():
        stored = db.session.get(Match, match_id).scorekeeper_hash
        db.session.remove()
    client.post(f"/matches/{ref(match_id)}/undo", headers={**HTMX, "X-CSRFToken": token})
    assert (queries.hash_token(pencil), stored) in calls
    calls.clear()
    stranger = app.test_client()
    hold_pencil(stranger, match_id, "B" * 43)
    assert (
        stranger.post(
            f"/matches/{ref(match_id)}/undo", headers={"X-CSRFToken": csrf_token(stranger, "/offline")}
        ).status_code
        == 403
    )
    assert (queries.hash_token("B" * 43), stored) in calls


def test_a_guessed_match_id_shows_only_what_is_public(app, client, match):
    match_id, pencil = match
    with app.app_context():
        stored = db.session.get(Match, match_id)
        code = pencil_service.offer_pencil(stored)  # a handover pending: its code must not leak either
        secrets_ = [pencil, code, stored.scorekeeper_hash, stored.owner_hash, stored.handover_hash]
        db.session.remove()
    stranger = app.test_client()
    gets = [r.rule for r in app.url_map.iter_rules() if "GET" in (r.methods or ()) and "<match:match_id>" in r.rule]
    assert len(gets) >= 6
    for rule in gets:
        for extra in ({}, HTMX):
            response = stranger.get(concrete(rule, match_id, 1), headers=extra)
            body = response.get_data(as_text=True) + str(response.headers)
            for secret in secrets_:
                assert secret not in body, f"{rule} shows a secret"
            assert "pencil_" not in response.headers.get("Set-Cookie", ""), rule
    export = stranger.get(f"/matches/{ref(match_id)}.json").get_json()
    assert not any("hash" in key for key in export)
    assert stranger.get(f"/matches/{ref(match_id + 1000)}").status_code == 404


def test_the_secret_key_is_generated_and_kept_in_the_instance_folder(tmp_path):
    instance = tmp_path / "instance"
    first = create_app({"AUTO_MIGRATE": False}, instance_path=str(instance))
    key_file = instance / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert re.fullmatch(r"[0-9a-f]{64}", first.config["SECRET_KEY"])
    assert key_file.read_text().strip() == first.config["SECRET_KEY"]
    assert (
        create_app({"AUTO_MIGRATE": False}, instance_path=str(instance)).config["SECRET_KEY"]
        == first.config["SECRET_KEY"]
    )
    other = create_app({"AUTO_MIGRATE": False}, instance_path=str(tmp_path / "elsewhere"))
    assert other.config["SECRET_KEY"] != first.config["SECRET_KEY"]


def _key_in(folder: str) -> str:
    from companion import _secret_key

    return _secret_key(Path(folder))


def test_workers_starting_together_agree_on_one_key(tmp_path):
    # gunicorn's workers each build the app; on a fresh folder they must not write two keys.
    with multiprocessing.get_context("fork").Pool(8) as pool:
        keys = pool.map(_key_in, [str(tmp_path)] * 32)
    assert len(set(keys)) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]


HARD_CODED = re.compile(r"""(SECRET_KEY|secret_key)["']?\s*[:=]\s*(b?["'][^"']{6,}["'])""")


def test_no_secret_key_in_the_code():
    checked = 0
    for path in ROOT.rglob("*"):
        parts = set(path.relative_to(ROOT).parts)
        if parts & {".venv", "node_modules", ".git", "instance", "vendor", "__pycache__"} or not path.is_file():
            continue
        if (
            path.suffix not in {".py", ".cfg", ".ini", ".toml", ".sh", ".env", ".js", ".html", ".json", ".md", ".txt"}
            and path.name != "Makefile"
        ):
            continue
        checked += 1
        text = path.read_text(errors="replace")
        assert not HARD_CODED.search(text), f"a hard-coded secret key in {path.relative_to(ROOT)}"
    assert checked > 50
