"""Web tests of the foundation: pages, fragments, Vary, CSRF, headers, match creation."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.models import Match, Player
from tests.helpers import HTMX, csrf_token, post_new_match, ref
from tests.pages import read


def test_home_is_a_full_page_with_vendored_assets(client):
    page = client.get("/")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "<!doctype html>" in html.lower()
    assert "New match" in html
    # htmx and Pico come from this server, inside the page's two bundles (tests/web/test_assets.py).
    page = read(html)
    # Modules, run once the page is parsed, as deferred scripts are.
    scripts = [script for script in page.find_all("script") if script.get("type") == "module"]
    assert [script for script in scripts if re.fullmatch(r"/bundle/[0-9a-f]+\.js", script.get("src", ""))]
    styles = [link["href"] for link in page.find_all("link", rel="stylesheet")]
    assert [href for href in styles if re.fullmatch(r"/bundle/[0-9a-f]+\.css", href)]
    # Nothing from another host; the SVG namespace of the icon's drawing names no address anything is fetched from.
    assert "http://" not in html.replace("http://localhost", "").replace("http://www.w3.org/2000/svg", "")
    assert [element for element in page.iter() if element.get("hx-boost") == "true"]


def test_security_headers(client):
    response = client.get("/")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "frame-ancestors 'none'" in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"


def _setup(client, token, seat: list[str] = (), **fields):
    """A tap on the new-match form with Pazzaparola picked, sent with the token of the form opened earlier."""
    return post_new_match(client, "pazzaparola", list(seat), htmx=True, csrf=token, **fields)


def seated(html: str) -> list[str]:
    """The players seated on the new-match form, in their order, as Start would send them."""
    return [seat["value"] for seat in read(html).find_all("input", name="seat")]


def test_new_match_form_answers_a_tap_with_the_form_alone(client):
    token = csrf_token(client, "/matches/new")
    response = _setup(client, token, action="new", new_name="Ann")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert not read(html).find_all("html") and read(html).by_id("setup")
    assert seated(html) == ["Ann"]
    assert "HX-Request" in response.headers["Vary"]


def test_boosted_request_gets_the_whole_page(client):
    response = client.get("/matches/new", headers={**HTMX, "HX-Boosted": "true"})
    assert "<!doctype html>" in response.get_data(as_text=True).lower()
    assert "HX-Request" in response.headers["Vary"]


def test_history_restore_gets_the_whole_page(client):
    response = client.get("/matches/new", headers={**HTMX, "HX-History-Restore-Request": "true"})
    assert "<!doctype html>" in response.get_data(as_text=True).lower()


def test_post_without_csrf_token_is_refused(client, app):
    response = client.post("/matches/new", data={"game": "topic", "seat": ["A", "B"], "action": "start"})
    assert response.status_code == 400
    assert "CSRF" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(Match.id))) == 0


def test_taps_build_the_seat_order(client):
    token = csrf_token(client, "/matches/new")
    seats = {"seat": ["Ann", "Bob", "Cy"]}
    moved = _setup(client, token, action="up:2", **seats).get_data(as_text=True)
    assert seated(moved) == ["Ann", "Cy", "Bob"]
    removed = _setup(client, token, action="remove:0", **seats).get_data(as_text=True)
    assert "Ann" not in seated(removed)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"action": "new", "new_name": "   "}, "Type a name first."),
        ({"action": "new", "new_name": "x" * 41}, "1 to 40 characters"),
        ({"action": "new", "new_name": "ann", "seat": ["Ann"]}, "ann already has a seat."),
        ({"action": "start", "seat": ["Ann"]}, "needs 2 to 8 players, got 1"),
    ],
)
def test_bad_setup_gets_a_message_and_stores_nothing(client, app, fields, message):
    token = csrf_token(client, "/matches/new")
    response = _setup(client, token, **fields)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(Match.id))) == 0


def test_start_creates_the_match_and_hands_the_pencil(client, app):
    token = csrf_token(client, "/matches/new")
    response = _setup(client, token, action="start", seat=["Ann", "Bob", "Cy", "Di"])
    assert response.status_code == 200
    location = response.headers["HX-Location"]
    assert location.startswith("/matches/")
    assert any(c.startswith("pencil=") for c in response.headers.getlist("Set-Cookie"))
    with app.app_context():
        match = db.session.scalar(select(Match))
        assert match.player_names == ["Ann", "Bob", "Cy", "Di"]
        assert match.status == "playing"
        assert db.session.scalar(select(func.count(Player.id))) == 4
    home = client.get("/").get_data(as_text=True)
    assert "Ann, Bob, Cy, Di" in home and "In progress" in home


def test_roster_names_are_reused_ignoring_case(client, app):
    token = csrf_token(client, "/matches/new")
    _setup(client, token, action="start", seat=["Ann", "Bob"])
    _setup(client, token, action="start", seat=["  ANN ", "bob"])
    with app.app_context():
        assert db.session.scalar(select(func.count(Player.id))) == 2


def test_unknown_match_is_a_404_page(client):
    response = client.get(f"/matches/{ref(999)}")
    assert response.status_code == 404
    assert "Back to the start" in response.get_data(as_text=True)


def test_secret_key_is_generated_once_in_the_instance_folder(tmp_path, database_url):
    from companion import create_app

    # Not the suite's app: that one is given the suite's key.
    app = create_app(
        {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url}, instance_path=str(tmp_path / "instance")
    )
    key_file = app.instance_path + "/secret_key"
    with open(key_file) as handle:
        kept = handle.read().strip()
    assert len(kept) == 64 and kept == app.config["SECRET_KEY"]
    again = create_app(
        {"TESTING": True, "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"]},
        instance_path=app.instance_path,
    )
    assert again.config["SECRET_KEY"] == kept
