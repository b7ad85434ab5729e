"""Behind Caddy: the health check, who answered, the proxy's HTTPS, a shared secret key, a line per request."""

from __future__ import annotations

import json

import pytest
from sqlalchemy.exc import OperationalError

from companion import create_app
from companion.extensions import db
from tests.helpers import csrf_token, stored_matches, topic_file, upload

SAME_ON_EVERY_DATABASE = "the proxy's headers, the health check and the log line"


def app_in(instance, database_url):
    """An app on this instance folder and database."""
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url}, instance_path=str(instance))


@pytest.fixture
def proxied(monkeypatch, tmp_path, database_url):
    """The app as a container behind Caddy builds it: BEHIND_PROXY, SERVED_BY, ACCESS_LOG, SECRET_KEY set."""
    for name, value in {"BEHIND_PROXY": "1", "SERVED_BY": "app2", "ACCESS_LOG": "1", "SECRET_KEY": "s" * 64}.items():
        monkeypatch.setenv(name, value)
    app = app_in(tmp_path / "instance", database_url)
    yield app
    with app.app_context():
        db.engine.dispose()


FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "192.0.2.7"}


def test_the_health_check_says_the_database_answers_and_who_answered(proxied):
    response = proxied.test_client().get("/healthz")
    assert response.status_code == 200 and response.get_data(as_text=True) == "ok\n"
    assert response.headers["X-Served-By"] == "app2"
    assert response.headers["Cache-Control"] == "no-store"


def test_without_its_database_the_health_check_is_a_503(proxied, monkeypatch):
    def unreachable(*_args, **_kwargs):
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("the database is down"))

    monkeypatch.setattr(db.session, "execute", unreachable)
    response = proxied.test_client().get("/healthz")
    assert response.status_code == 503 and "database" in response.get_data(as_text=True)


def test_a_post_from_the_page_behind_the_proxys_https_goes_through_with_secure_cookies(proxied):
    client = proxied.test_client()
    response = upload(client, json.dumps(topic_file(["Ann", "Bob"])).encode(), Origin="https://localhost", **FORWARDED)
    assert response.status_code == 302
    assert stored_matches(proxied) == 1
    page = client.get("/preferences", headers=FORWARDED)
    token = csrf_token(client, "/preferences")
    answer = client.post("/preferences", data={"csrf_token": token, "lang": "it"},
                         headers={"Origin": "https://localhost", **FORWARDED})  # fmt: skip
    cookies = page.headers.getlist("Set-Cookie") + answer.headers.getlist("Set-Cookie")
    assert cookies and all("; Secure" in cookie for cookie in cookies), cookies


def test_every_server_signs_with_the_shared_secret_key(proxied, tmp_path, database_url):
    other = app_in(tmp_path / "other", database_url)
    assert other.config["SECRET_KEY"] == proxied.config["SECRET_KEY"] == "s" * 64
    with other.app_context():
        db.engine.dispose()


def test_each_request_is_one_line_on_standard_output(proxied, capsys):
    proxied.test_client().get("/healthz?probe=1", headers=FORWARDED)
    lines = [line for line in capsys.readouterr().out.splitlines() if "/healthz" in line]
    assert len(lines) == 1 and '192.0.2.7 "GET /healthz?probe=1" 200' in lines[0], lines


def test_the_app_still_logs_after_its_migrations(app, caplog):
    # alembic's logging set-up used to disable the loggers that existed: the app's errors went unwritten.
    app.logger.error("a request failed")
    assert "a request failed" in caplog.text


def test_a_laptops_answers_do_not_name_it(client):
    assert "X-Served-By" not in client.get("/healthz").headers
