"""Fixtures shared by the suite: an app on a temporary database, its clients, a live server."""

from __future__ import annotations

import os
import random
import re
import shutil
import socket
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings
from sqlalchemy import event
from werkzeug.datastructures import MultiDict
from werkzeug.serving import make_server
from werkzeug.test import TestResponse

from companion import create_app
from companion.extensions import db
from companion.games import get_game
from companion.queries.matches import find_match
from companion.web.row_ids import RowIds

# Speed is measured by the benchmark, never by tests: a loaded machine must not fail a property.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

CSRF_PATTERN = re.compile(r'name="csrf_token" value="([^"]+)"|"X-CSRFToken": "([^"]+)"')
# The suite's apps share one secret key, so a test writes a row's address without its app at hand.
ADDRESS_KEY = "the-suite's-own-key-which-no-server-uses-" * 2
_ROW_IDS = RowIds(ADDRESS_KEY)


def ref(row_id: int) -> str:
    """A match's or player's id as the suite's apps write it in an address (`/matches/{ref(match_id)}`)."""
    return _ROW_IDS.encode(row_id)


def unref(text: str) -> int:
    """The id of a match or player from its address text (the last part of `/matches/…`)."""
    row_id = _ROW_IDS.decode(text)
    assert row_id is not None, f"no row's address: {text!r}"
    return row_id


# A name's words as the page draws them (each in a span that a line never breaks inside).
WORD_SPAN = re.compile(r'<span class="word">([^<]*)</span>')


def read_words(html: str) -> str:
    """The page with each name's word spans read as the plain words a user sees."""
    return WORD_SPAN.sub(r"\1", html)


# What htmx adds to the requests it sends: the app answers them with a fragment.
HTMX = {"HX-Request": "true"}


SERVER_URL = os.environ.get("DATABASE_URL", "")


@contextmanager
def counted(app: Flask) -> Iterator[list[str]]:
    """The SQL statements run while the block runs."""
    statements: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


@contextmanager
def reaching_flask(app: Flask) -> Iterator[list[str]]:
    """The paths of the requests that got past the unchanged-poll middleware to Flask while the block runs."""
    polls = app.wsgi_app
    flask = polls.flask
    reached: list[str] = []

    def spy(environ: dict[str, Any], start_response: Any) -> Any:
        reached.append(environ["PATH_INFO"])
        return flask(environ, start_response)

    polls.flask = spy
    try:
        yield reached
    finally:
        polls.flask = flask


ON_POSTGRESQL = SERVER_URL.startswith(("postgres://", "postgresql://"))


@contextmanager
def fresh_database(template: str | None = None) -> Iterator[str | None]:
    """A new PostgreSQL database on the DATABASE_URL server (empty, or a copy of `template`), or None for SQLite."""
    if not ON_POSTGRESQL:
        yield None
        return
    import psycopg

    name = f"test_{uuid.uuid4().hex[:16]}"
    admin_url = SERVER_URL
    copied = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"{copied}')
    base = SERVER_URL.rsplit("/", 1)[0]
    try:
        yield f"postgresql+psycopg://{base.split('://', 1)[1]}/{name}"
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _migrate(url: str, instance: Path) -> None:
    """Bring the database at `url` to the newest migration, as a first start does, and let go of it."""
    application = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": ADDRESS_KEY},
                             instance_path=str(instance))  # fmt: skip
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One database migrated to head for the whole run: a SQLite file, or a PostgreSQL database's name.

    Each test's database is a copy of it, which is what a first start's migrations leave, without
    running a dozen migrations again for each of the suite's tests (minutes on PostgreSQL).
    """
    instance = tmp_path_factory.mktemp("migrated") / "instance"
    instance.mkdir()
    if not ON_POSTGRESQL:
        path = instance / "companion.sqlite"
        _migrate(f"sqlite:///{path}", instance)
        yield str(path)
        return
    with fresh_database() as url:
        assert url is not None
        _migrate(url, instance)
        yield url.rsplit("/", 1)[1]


@pytest.fixture
def database_url(tmp_path: Path, migrated_database: str) -> Iterator[str]:
    """Where this test's data lives: a new SQLite file or PostgreSQL database, migrated to head."""
    with fresh_database(template=migrated_database) as url:
        if url:
            yield url
            return
        instance = tmp_path / "instance"
        instance.mkdir(exist_ok=True)
        shutil.copyfile(migrated_database, instance / "companion.sqlite")
        yield f"sqlite:///{instance / 'companion.sqlite'}"


@pytest.fixture
def app(tmp_path: Path, database_url: str) -> Iterator[Flask]:
    """The app on its own database, migrated to head as on a first start and holding nothing yet."""
    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
    application = create_app(config, instance_path=str(tmp_path / "instance"))
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def private_app(tmp_path: Path, database_url: str) -> Iterator[Flask]:
    """The app as a shared server runs it (COMPANION_GROUPS=private), on its own database holding nothing yet."""
    from companion.config import Settings

    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
    application = create_app(config, instance_path=str(tmp_path / "instance"), settings=Settings(groups="private"))
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


INVITE_PATH = re.compile(r'href="https?://[^/"]+(/join/[^"]+)"')


def start_group(client: FlaskClient, name: str) -> str:
    """Start a group from the welcome page as a phone does; returns the path of its invite link."""
    response = client.post("/groups", data={"csrf_token": csrf_token(client, "/"), "name": name})
    assert response.status_code == 302, response.get_data(as_text=True)
    return invite_path(client)


def invite_path(client: FlaskClient) -> str:
    """The invite link a host phone's groups page shows, as a path."""
    found = INVITE_PATH.search(client.get("/groups").get_data(as_text=True))
    assert found, "no invite link on the groups page"
    return found.group(1)


def join_group(client: FlaskClient, invite: str) -> TestResponse:
    """Open an invite link and tap Join."""
    return client.post(invite, data={"csrf_token": csrf_token(client, invite)})


@pytest.fixture
def without_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limits per phone and per address off (companion/web/limits.py), for a test that sends one endpoint
    hundreds of generated requests as one phone to check what each answer holds, not how often it may ask."""
    from companion.extensions import limiter

    monkeypatch.setattr(limiter, "enabled", False)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of the app."""
    return app.test_client()


# The cookie of a phone's own credential, which its host rights and its groups hang on (web/groups.py).
PHONE_CREDENTIAL = "phone"


def grant_host_rights(client: FlaskClient) -> FlaskClient:
    """Give a client host rights as a phone gets them: open a fresh host link and tap its button."""
    from companion.services import host

    token = host.new_link_token(client.application)
    landing = client.get(f"/host?token={token}")
    assert landing.status_code == 200, landing.get_data(as_text=True)
    found = CSRF_PATTERN.search(landing.get_data(as_text=True))
    assert found
    claimed = client.post("/host", data={"csrf_token": found.group(1) or found.group(2), "token": token})
    assert claimed.status_code == 302, claimed.get_data(as_text=True)
    assert client.get_cookie(PHONE_CREDENTIAL) is not None
    return client


@pytest.fixture
def host_client(client: FlaskClient) -> FlaskClient:
    """The test client (the same object as `client`) with host rights: roster edits, imports, any delete."""
    return grant_host_rights(client)


@pytest.fixture
def runner(app: Flask):
    """A runner for the app's `flask` commands."""
    return app.test_cli_runner()


def csrf_token(client: FlaskClient, path: str = "/") -> str:
    """The CSRF token a page hands to its forms, read from the page as a browser would."""
    page = client.get(path).get_data(as_text=True)
    found = CSRF_PATTERN.search(page)
    assert found, f"no CSRF token on {path}"
    return found.group(1) or found.group(2)


# --- Matches through the real forms ------------------------------------------------------


def post_new_match(client: FlaskClient, game: str, seats: list[str], action: str = "start", htmx: bool = False,
                   **fields: Any) -> TestResponse:
    """A tap on (or Start of) the new-match form, with the game picked and these players seated."""
    data = {"csrf_token": csrf_token(client, "/matches/new"), "game": game, "seat": seats, "action": action, **fields}
    return client.post("/matches/new", data=data, headers=HTMX if htmx else {})  # fmt: skip


def start_match(client: FlaskClient, game: str, seats: list[str], htmx: bool = False, **fields: Any) -> int:
    """Start a match through the new-match form; `client` holds its pencil. Returns the match's id."""
    response = post_new_match(client, game, seats, htmx=htmx, **fields)
    assert response.status_code == (200 if htmx else 302), response.get_data(as_text=True)
    return unref(response.headers["HX-Location" if htmx else "Location"].rsplit("/", 1)[1])


def entry_fields(app: Flask, match_id: int, round_data: dict[str, Any]) -> MultiDict:
    """The entry form a scorekeeper's page sends for this round, as the game fills it in."""
    with app.app_context():
        match = find_match(match_id)
        fields = get_game(match.game).entry.form_from_round(round_data, match.player_names, match.settings)
        db.session.remove()
    return MultiDict([(key, value) for key, values in fields.items() for value in values])


def save_round(client: FlaskClient, match_id: int, fields: Mapping[str, Any], number: int | None = None,
               headers: Mapping[str, str] | None = None) -> TestResponse:
    """Tap Save on the round entry (an htmx POST) with these fields, as round `number` (default: the next)."""
    form = MultiDict(fields)
    if number is None:
        number = len(stored_match(client.application, match_id).rounds) + 1
    form["number"] = str(number)
    form["csrf_token"] = csrf_token(client, f"/matches/{ref(match_id)}")
    return client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers={**HTMX, **(headers or {})})  # fmt: skip


def finished_match(
    app, slug: str, rounds_at_least: int = 4, players_at_least: int = 0
) -> tuple[int, list[str], dict, list[dict]]:
    """A whole match of the game as `flask seed` plays one (from the first seed that plays so many rounds, with so
    many players), stored round by round through the services."""
    from companion.services import matches as service
    from companion.services.seed import play_match

    seed = 0
    while len((made := play_match(random.Random(seed), slug))[2]) < rounds_at_least or len(made[0]) < players_at_least:
        seed += 1
    players, settings, rounds = made
    with app.app_context():
        match, _ = service.create_match(slug, players, settings)
        for data in rounds:
            service.save_round(match, data)
        assert match.status == "finished"
        match_id, settings = match.id, match.settings
        db.session.remove()
    return match_id, players, settings, rounds


def match_short_of_its_end(app, slug: str, seed: int = 3) -> tuple[int, list[str], dict]:
    """A match as `flask seed` plays one from `seed`, stored through the services but for its last round, which
    would end it: its id, its players and that last round (see `save_stored_round`)."""
    from companion.services import matches as service
    from companion.services.seed import play_match

    players, settings, rounds = play_match(random.Random(seed), slug)
    with app.app_context():
        match, _ = service.create_match(slug, players, settings)
        for data in rounds[:-1]:
            service.save_round(match, data)
        assert match.status == "playing"
        match_id = match.id
        db.session.remove()
    return match_id, players, rounds[-1]


def save_stored_round(app, match_id: int, data: dict) -> None:
    """A round saved through the services, as another phone's save would store it."""
    from companion.services import matches as service

    with app.app_context():
        service.save_round(find_match(match_id), data)
        db.session.remove()


@dataclass
class StoredMatch:
    """A match as the database holds it, read back as plain values."""

    settings: dict[str, Any]
    rounds: list[dict[str, Any]]
    status: str
    player_names: list[str]

    @property
    def is_over(self) -> bool:
        """Whether the match is stored as finished."""
        return self.status == "finished"


def stored_match(app: Flask, match_id: int) -> StoredMatch:
    """What the database holds of a match: its settings, its rounds' data, its status and its players."""
    with app.app_context():
        match = find_match(match_id)
        assert match is not None, f"no match {match_id} stored"
        found = StoredMatch(match.settings, [r.data for r in match.rounds], match.status, match.player_names)
        db.session.remove()
    return found


# --- Browser tests -------------------------------------------------------------------

PHONE = {"width": 390, "height": 844}


def chromium_executable() -> str | None:
    """The Chromium to drive: $CHROMIUM, Debian's /usr/bin/chromium, or Playwright's own."""
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict, playwright) -> dict:
    """Launch the system Chromium headless, quiet on this machine's closed network."""
    executable = chromium_executable()
    args = dict(browser_type_launch_args)
    if executable:
        args["executable_path"] = executable
    elif not os.path.exists(playwright.chromium.executable_path):
        pytest.fail(
            "No Chromium for the browser tests: install Debian's 'chromium' package, set "
            "CHROMIUM to a Chromium binary, or run 'python -m playwright install chromium'.",
            pytrace=False,
        )
    args["args"] = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
    ]
    return args


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """Every page starts as a phone: 390×844 with touch."""
    return {**browser_context_args, "viewport": PHONE, "has_touch": True, "locale": "en-GB"}


# The phones a test has cut from the network, by the value of their PHONE_COOKIE. Chromium's offline
# emulation (context.set_offline) now and then lets through a request of a page a service worker
# controls (Playwright issue 2311), so the server drops those phones' connections too, unanswered.
CUT_PHONES: set[str] = set()
PHONE_COOKIE = "test-phone"


def _unreachable_for_cut_phones(app: Flask):
    """The app, except that a cut phone's request is dropped as an unreachable network would: the
    connection closes before anything is read or answered (a net:: error in the browser)."""

    def serve(environ, start_response):
        cookies = environ.get("HTTP_COOKIE", "")
        if CUT_PHONES and any(f"{PHONE_COOKIE}={phone}" in cookies for phone in CUT_PHONES):
            environ["werkzeug.socket"].shutdown(socket.SHUT_RDWR)
            start_response("503 Service Unavailable", [])
            return [b""]  # written to a closed socket: werkzeug drops the connection error
        return app(environ, start_response)

    return serve


class LiveServer:
    """The app served from a thread on a free loopback port."""

    def __init__(self, app: Flask):
        self.app = app
        self.server = make_server("127.0.0.1", 0, _unreachable_for_cut_phones(app), threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.thread.join(5)
        CUT_PHONES.clear()


@pytest.fixture
def live_server(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """The test app served over HTTP for the browser."""
    # It listens on loopback only, so the share page's links must not name the LAN address.
    monkeypatch.setattr("companion.web.network.lan_addresses", lambda: [])
    with LiveServer(app) as server:
        yield server


@pytest.fixture
def private_live_server(private_app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """A shared server (COMPANION_GROUPS=private) served over HTTP for the browser."""
    monkeypatch.setattr("companion.web.network.lan_addresses", lambda: [])
    with LiveServer(private_app) as server:
        yield server
