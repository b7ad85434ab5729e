"""Helpers the suite's tests import: a phone's taps through the Flask test client, stored data, a live server."""

from __future__ import annotations

import io
import json
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

import psycopg
from flask import Flask
from flask.testing import FlaskClient
from openskill.models import PlackettLuce
from sqlalchemy import create_engine, event, func, select
from sqlalchemy import text as sql_text
from sqlalchemy.orm import selectinload
from sqlalchemy.pool import NullPool
from werkzeug.datastructures import MultiDict
from werkzeug.serving import make_server
from werkzeug.test import TestResponse

from companion.extensions import db
from companion.games import get_game
from companion.models import PLAYING, Group, Match, Player, PlayerRecord, Rating, Rivalry, new_public_id
from companion.models.club import ClubTable
from companion.queries.matches import find_match
from companion.queries.ratings import whole_percents
from companion.services import club, records
from companion.web.pencil import PENCIL_COOKIE, kept_under
from companion.web.row_ids import RowIds

CSRF_PATTERN = re.compile(r'name="csrf_token" value="([^"]+)"|"X-CSRFToken": "([^"]+)"')
# The suite's apps share one secret key, so a test writes a row's address without its app at hand.
ADDRESS_KEY = "the-suite's-own-key-which-no-server-uses-" * 2
_ROW_IDS = RowIds(ADDRESS_KEY)
# The tables whose rows have addresses (companion/web/row_ids.py).
ADDRESSED = ("match", "player", "member")
# The database whose rows' addresses `ref` and `unref` read: the test's own (the `database_url` fixture,
# a server process of the reliability tests), with what they read already.
_ADDRESS_BOOK: dict[str, Any] = {"url": None, "engine": None, "known": {}}


def address_database(url: str | None) -> None:
    """From now on the addresses are those of the rows of this database."""
    engine = _ADDRESS_BOOK["engine"]
    if engine is not None:
        engine.dispose()
    _ADDRESS_BOOK.update(url=url, known={}, engine=create_engine(url, poolclass=NullPool) if url else None)


def _read_address(statement: str, **values: Any) -> Any:
    engine = _ADDRESS_BOOK["engine"]
    assert engine is not None, "no database to read addresses from (the database_url fixture names it)"
    with engine.connect() as connection:
        return connection.execute(sql_text(statement), values).scalar()


def ref(row_id: int, table: str = "match") -> str:
    """The address of a row (a match's by default) as the test's app writes it (`/matches/{ref(match_id)}`);
    for a row that does not exist, an address no row has."""
    known = _ADDRESS_BOOK["known"]
    if (table, row_id) not in known:
        found = _read_address(f'SELECT public_id FROM "{table}" WHERE id = :id', id=row_id)
        if found is None:
            return new_public_id()
        known[(table, row_id)] = found
        known[found] = row_id
    return known[(table, row_id)]


def unref(text: str) -> int:
    """The id of a match, player or phone from its address text (the last part of `/matches/…`)."""
    known = _ADDRESS_BOOK["known"]
    if text not in known:
        for table in ADDRESSED:
            found = _read_address(f'SELECT id FROM "{table}" WHERE public_id = :text', text=text)
            if found is not None:
                known[text] = found
                known[(table, found)] = text
                break
    assert text in known, f"no row's address: {text!r}"
    return known[text]


def old_ref(row_id: int) -> str:
    """A row's address before public ids: the sqids text of its id under the suite's secret key."""
    return _ROW_IDS.encode(row_id)


# A name's words as the page draws them (each in a span that a line never breaks inside).
WORD_SPAN = re.compile(r'<span class="word">([^<]*)</span>')


def read_words(html: str) -> str:
    """The page with each name's word spans read as the plain words a user sees."""
    return WORD_SPAN.sub(r"\1", html)


# What htmx adds to the requests it sends: the app answers them with a fragment.
HTMX = {"HX-Request": "true"}


SERVER_URL = os.environ.get("DATABASE_URL", "")


@contextmanager
def counted(app: Flask, in_transactions: bool = False) -> Iterator[list]:
    """The SQL statements run while the block runs; `in_transactions`: each as (statement, whether it ran inside a
    transaction), read from the driver just after it ran (a failed statement then is not listed)."""
    statements: list = []

    def count(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    def note(conn, cursor, statement, parameters, context, executemany):
        statements.append((statement, inside_a_transaction(conn.connection.dbapi_connection)))

    with app.app_context():
        engine = db.engine
    kind, listener = ("after_cursor_execute", note) if in_transactions else ("before_cursor_execute", count)
    event.listen(engine, kind, listener)
    try:
        yield statements
    finally:
        event.remove(engine, kind, listener)


def inside_a_transaction(dbapi_connection: Any) -> bool:
    """Whether the driver's connection is inside a transaction: psycopg's status, or sqlite3's (which begins one
    before a write alone)."""
    status = getattr(getattr(dbapi_connection, "info", None), "transaction_status", None)
    if status is not None:
        return status != psycopg.pq.TransactionStatus.IDLE
    return dbapi_connection.in_transaction


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

# How many times as many examples a property generates in `make test-deep` (the "deep" Hypothesis profile).
DEEP = 10


def generated(examples: int) -> int:
    """How many examples a property generates in this run: `examples` in `make test`, DEEP times as many in
    `make test-deep`. Its explicit examples (@example, a case table) run in both, and run first."""
    from hypothesis import settings

    return examples * (DEEP if settings.get_current_profile_name() == "deep" else 1)


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
    assert phone_cookie(client) is not None
    return client


def phone_cookie(client: FlaskClient):
    """The client's credential cookie, under its name on this server (`__Host-` prefixed over HTTPS)."""
    return client.get_cookie(PHONE_CREDENTIAL) or client.get_cookie(f"__Host-{PHONE_CREDENTIAL}")




def csrf_token(client: FlaskClient, path: str = "/") -> str:
    """The CSRF token a page hands to its forms, read from the page as a browser would."""
    page = client.get(path).get_data(as_text=True)
    found = CSRF_PATTERN.search(page)
    assert found, f"no CSRF token on {path}"
    return found.group(1) or found.group(2)


# --- Matches through the real forms --------------------------------------------------------------


def post_new_match(client: FlaskClient, game: str, seats: list[str], action: str = "start", htmx: bool = False,
                   csrf: str | None = None, **fields: Any) -> TestResponse:
    """A tap on (or Start of) the new-match form, with the game picked and these players seated; `csrf`: the
    token of a page the phone opened earlier (default: the one the form hands out now)."""
    token = csrf if csrf is not None else csrf_token(client, "/matches/new")
    data = {"csrf_token": token, "game": game, "seat": seats, "action": action, **fields}
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
               headers: Mapping[str, str] | None = None, csrf: str | None = None) -> TestResponse:
    """Tap Save on the round entry (an htmx POST) with these fields, as round `number` (default: the next);
    `csrf`: the token of a match page the phone opened earlier (default: the one the page hands out now)."""
    form = MultiDict(fields)
    if number is None:
        number = len(stored_match(client.application, match_id).rounds) + 1
    form["number"] = str(number)
    form["csrf_token"] = csrf if csrf is not None else csrf_token(client, f"/matches/{ref(match_id)}")
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


# --- The history's sample matches ----------------------------------------------------------------

def doc(uid, game, players, rounds, started, settings=None):
    """A match file with an id and a start time."""
    return {"format": "companion-match/1", "id": uid, "game": game, "players": players,
            "settings": settings or {}, "rounds": rounds, "started": started}  # fmt: skip


def row(word, used, unused):
    """A Pazzaparola row."""
    return {"word": word, "used": used, "unused": unused}


# Four finished matches with figures worked out by hand (see tests/web/test_players.py), and one in progress.
SAMPLES = [
    doc("pz", "pazzaparola", ["Ann", "Bob"], [
        {"theme": "Animali", "rows": {"Ann": row("ZANZARA", [7, 2, 7, 2, 3], 3), "Bob": row("RE", [2, 2], 6)}},
        {"rows": {"Ann": row("OCA", [1, 1, 1], 5), "Bob": row("GATTO", [9, 9, 9, 5], 4)}},
        {"rows": {"Ann": row("QUIZ", [10, 10], 6), "Bob": row(None, [1], 7)}},
    ], "2024-03-01T20:00:00Z", {"target": 2}),
    doc("bu", "burraco", ["Ann", "Bob"], [
        {"sides": {"Ann": {"table": 300, "hand": 0, "clean": 1}, "Bob": {"table": 100, "hand": 50}},
         "closed_by": "Ann"},
        {"sides": {"Ann": {"table": 100, "hand": 20}, "Bob": {"table": 200, "hand": 0, "dirty": 1}},
         "closed_by": "Bob"},
    ], "2024-05-10T20:00:00Z", {"hands": 2}),
    doc("to", "topic", ["Ann", "Bob", "Cy"], [
        {"losers": ["Bob"]}, {"losers": ["Bob"]}, {"losers": ["Cy"]},
    ], "2025-01-15T21:00:00Z", {"deck": 4}),
    doc("pk", "pazaak", ["Ann", "Bob"], [
        {"winner": "Ann"}, {"winner": None}, {"winner": "Bob"},
        {"totals": {"Ann": 19, "Bob": 22}, "filled": [], "tiebreaker": None},
    ], "2025-06-20T19:30:00Z", {"sets": 2}),
    doc("on", "topic", ["Cy", "Di"], [{"losers": ["Di"]}], "2025-07-01T20:00:00Z"),
]  # fmt: skip


def store_samples(app) -> dict[str, int]:
    """Store the sample matches as the import would; their ids by match-file id."""
    from companion.services import imports

    with app.app_context():
        imports.import_matches(SAMPLES)
        return {m.uid: m.id for m in db.session.scalars(select(Match))}


def player_id(app, name: str) -> int:
    """The roster id of a player."""
    with app.app_context():
        return db.session.scalar(select(Player.id).where(Player.name == name))


def dump(app: Flask) -> dict[str, list[tuple]]:
    """Every row of every table, for comparing the database before and after a request."""
    with app.app_context():
        rows = {}
        for table in db.metadata.sorted_tables:
            order = list(table.primary_key.columns)
            rows[table.name] = [tuple(r) for r in db.session.execute(select(table).order_by(*order))]
        db.session.remove()
        return rows


# The documented example of each game (docs/match-format.md): its match file and its score output.
MATCH_FORMAT_DOC = Path(__file__).resolve().parents[1] / "docs" / "match-format.md"
EXAMPLE_BLOCK = re.compile(r"<!-- example (\w+): (match file|score) -->\s*```json\n(.*?)```", re.DOTALL)


def examples() -> dict[str, dict[str, object]]:
    """Each game's example file and documented score output, read from the page."""
    found: dict[str, dict[str, object]] = {}
    for slug, kind, text in EXAMPLE_BLOCK.findall(MATCH_FORMAT_DOC.read_text(encoding="utf-8")):
        found.setdefault(slug, {})[kind] = json.loads(text)
    return found


# --- The players' records, as kept and as counted from the seats ---------------------------------

def counted_from_the_seats() -> tuple[dict, dict]:
    """Every player's record per game and head to head, added up in Python from every seat."""
    found: dict = {}
    pairs: dict = {}
    for match in db.session.scalars(select(Match).options(selectinload(Match.seats))):
        finished = match.status == "finished"
        for seat in match.seats:
            record = found.setdefault((seat.player_id, match.game), {"sums": [0] * 6, "best": None})
            if not finished:
                record["sums"][0] += 1
                continue
            figures = (1, int(seat.won), seat.total or 0, seat.score_sum or 0, seat.score_count or 0)
            record["sums"][1:] = [a + b for a, b in zip(record["sums"][1:], figures, strict=True)]
            if seat.best_score is not None:
                best = (seat.best_score, seat.best_label, match.started_at, match.id)
                rank = (-best[0], best[2], best[3])
                if record["best"] is None or rank < (-record["best"][0], record["best"][2], record["best"][3]):
                    record["best"] = best
            for other in match.seats:
                if other.player_id != seat.player_id:
                    pair = pairs.setdefault((seat.player_id, other.player_id), [0, 0, 0, 0, 0])
                    partners = seat.team is not None and seat.team == other.team
                    figures = (1, int(seat.won), int(other.won), int(partners), int(partners and seat.won))
                    pair[:] = [a + b for a, b in zip(pair, figures, strict=True)]
    expected = {key: (*value["sums"], value["best"]) for key, value in found.items()}
    return expected, {key: tuple(value) for key, value in pairs.items()}


def kept() -> tuple[dict, dict]:
    """The records and head to head as kept, leaving out the rows that add nothing."""
    found = {}
    for r in db.session.scalars(select(PlayerRecord)):
        best = (r.best_score, r.best_label, r.best_started_at, r.best_match_id) if r.best_score is not None else None
        sums = (r.playing, r.played, r.won, r.total, r.score_sum, r.score_count)
        if any(sums) or best:
            found[r.player_id, r.game] = (*sums, best)
    pairs = {
        (r.player_id, r.other_id): (r.together, r.mine, r.theirs, r.partnered, r.partnered_won)
        for r in db.session.scalars(select(Rivalry))
    }
    return found, {key: value for key, value in pairs.items() if any(value)}


def assert_exact() -> None:
    """The kept records are the seats' sums, and a rebuild from scratch changes nothing."""
    db.session.expire_all()
    expected = counted_from_the_seats()
    assert kept() == expected
    records.rebuild()
    db.session.expire_all()
    assert kept() == expected
    db.session.rollback()


# --- More taps of a phone ------------------------------------------------------------------------

def give_pencil(owner, other, match_id: int) -> None:
    """The owner shows the pencil code, the other phone takes it."""
    token = csrf_token(owner, f"/matches/{ref(match_id)}/share")
    offer = owner.post(f"/matches/{ref(match_id)}/pencil/offer", headers={**HTMX, "X-CSRFToken": token}).get_data(
        as_text=True
    )
    code = offer.split('id="pencil-link"')[0].rsplit('href="', 1)[1].split('"')[0].split("code=")[1]
    taken = other.post(
        f"/matches/{ref(match_id)}/pencil",
        data={"csrf_token": csrf_token(other, f"/matches/{ref(match_id)}/pencil?code={code}"), "code": code},
    )
    assert taken.status_code == 302


# The seat link's key, which the seat picker's form sends back with the seat taken.
SEAT_KEY_FIELD = re.compile(r'name="seat_key" value="([^"]*)"')


def pencil_of(client: FlaskClient, match_id: int) -> str | None:
    """The scorekeeper token the client's pencil cookie keeps for a match (web/pencil.py), if any."""
    cookie = client.get_cookie(PENCIL_COOKIE)
    with client.application.app_context():
        uid = db.session.get(Match, match_id).uid
        db.session.remove()
    entries = dict(entry.partition(":")[::2] for entry in (cookie.value.split(".") if cookie else []))
    return entries.get(kept_under(uid))


def hold_pencil(client: FlaskClient, match_id: int, token: str) -> None:
    """Put a scorekeeper token for a match into the client's pencil cookie, as the server writes it."""
    with client.application.app_context():
        uid = db.session.get(Match, match_id).uid
        db.session.remove()
    cookie = client.get_cookie(PENCIL_COOKIE)
    kept = [entry for entry in (cookie.value.split(".") if cookie else []) if entry]
    client.set_cookie(PENCIL_COOKIE, ".".join([*kept, f"{kept_under(uid)}:{token}"]))


def take(phone, match_id: int, position, path: str | None = None):
    """This phone opens the seat link (`path`, else the seat picker's plain address) and takes the seat at
    `position`, sending what the picker's form sends."""
    path = path or f"/matches/{ref(match_id)}/seat"
    page = phone.get(path).get_data(as_text=True)
    found = CSRF_PATTERN.search(page)
    assert found, f"no CSRF token on {path}"
    fields = {"csrf_token": found.group(1) or found.group(2), "seat": str(position)}
    key = SEAT_KEY_FIELD.search(page)
    if key:
        fields["seat_key"] = key.group(1)
    return phone.post(f"/matches/{ref(match_id)}/seat", data=fields)


def topic_file(players: list[str], uid: str = "t1") -> dict:
    """A short Topic_ match file with these players; the first one loses the only round."""
    return {"format": "companion-match/1", "id": uid, "game": "topic", "players": players,
            "settings": {}, "rounds": [{"losers": [players[0]]}], "started": "2025-01-15T21:00:00Z"}  # fmt: skip


def upload(client, content: bytes, **headers):
    """POST a match file to the import from the host's phone (imports need host rights), with the page's CSRF token."""
    if phone_cookie(client) is None:
        grant_host_rights(client)
    token = csrf_token(client, "/history")
    return client.post(
        "/history/import",
        data={"csrf_token": token, "file": (io.BytesIO(content), "history.json")},
        content_type="multipart/form-data",
        headers=headers,
    )


def stored_matches(app) -> int:
    """How many matches the database holds."""
    with app.app_context():
        return db.session.scalar(select(func.count(Match.id)))


def check_headers(response, what: str) -> None:
    """The headers every response carries, whatever it is."""
    csp = response.headers.get("Content-Security-Policy", "")
    directives = {part.split()[0]: part.split()[1:] for part in csp.split(";") if part.strip()}
    assert directives.get("script-src") == ["'self'"], f"{what}: script-src {directives.get('script-src')}"
    assert "'unsafe-eval'" not in csp and "'unsafe-inline'" not in csp, what
    assert directives.get("frame-ancestors") == ["'none'"], what
    assert directives.get("object-src") == ["'none'"], what
    assert "default-src" in directives, what
    assert response.headers.get("X-Content-Type-Options") == "nosniff", what
    assert response.headers.get("Referrer-Policy") in (
        "same-origin",
        "no-referrer",
        "strict-origin-when-cross-origin",
    ), what


# --- Browser tests: the phone, the live server ---------------------------------------------------

PHONE = {"width": 390, "height": 844}


def chromium_executable() -> str | None:
    """The Chromium to drive: $CHROMIUM, Debian's headless shell or its full browser, or Playwright's own.

    The headless shell (Debian's chromium-headless-shell, built from the same source and version as its
    chromium) is the one Playwright itself drives headless: the same Blink and V8 without the full
    browser's windowing, it ran the suite's browser tests on a third less CPU (a CI run's largest part)."""
    preferred = (os.environ.get("CHROMIUM"), "/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
    for candidate in (*preferred, shutil.which("chromium-headless-shell"), shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None





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
        # The server looks for its shutdown between requests every poll interval: half a second by default, a
        # quarter of a second lost at the end of each browser test on average.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.thread.join(5)
        CUT_PHONES.clear()


# --- Matches played through the services, for the ratings ------------------------------------------------

def played_match(game: str, seats: list[str], outcome: list[int]) -> Match:
    """A match of the game at these seats, played as far as `outcome` says (maybe to the end), through the services
    (inside an app context)."""
    from companion.services import matches as service

    if game == "burraco":
        names = seats[:4] if len(seats) >= 4 else ["Ann", "Bob", "Cy", "Di"]
        teams = {"Noi": [names[0], names[2]], "Voi": [names[1], names[3]]}
        match, _ = service.create_match("burraco", names, {"teams": teams, "hands": 1})
        if outcome:
            table = [100 + 50 * (n % 4) for n in outcome[:2]] + [100, 100]
            closer = "Noi" if outcome[0] % 2 else "Voi"
            sides = {"Noi": {"table": table[0], "hand": 0, "clean": 1}, "Voi": {"table": table[1], "hand": 0,
                                                                                  "clean": 1}}
            service.save_round(match, {"sides": sides, "closed_by": closer})
        return match
    names = seats[:2] if game == "pazaak" else seats
    settings_ = {"pazzaparola": {"target": 1, "cards": 3}, "topic": {"deck": 3}, "pazaak": {"sets": 2}}[game]
    match, _ = service.create_match(game, names, settings_)
    for n in outcome:
        if match.status != PLAYING:
            break
        if game == "pazaak":
            data = {"winner": None if n % 3 == 2 else names[n % 2]}
        elif game == "topic":
            data = {"losers": [names[n % len(names)]]}
        else:
            data = {"rows": {name: {"used": [(n + i) % 2], "unused": 2} for i, name in enumerate(names)}}
        service.save_round(match, data)
    return match


# The ratings' own library, to predict chances as the app should.
RATINGS_LIBRARY = PlackettLuce()


def predicted(app, game: str, sides: list[list[str]]) -> list[int]:
    """Each side's chance in whole percent, as the library predicts it from the ratings kept at the game."""
    with app.app_context():
        kept = {name: (mu, sigma) for name, mu, sigma in db.session.execute(
            select(Player.name, Rating.mu, Rating.sigma).join(Rating).where(Rating.game == game))}  # fmt: skip
        db.session.remove()
    library = RATINGS_LIBRARY
    teams = [[library.rating(mu=kept[n][0], sigma=kept[n][1]) if n in kept else library.rating() for n in side]
             for side in sides]  # fmt: skip
    return whole_percents(RATINGS_LIBRARY.predict_win(teams))


def pairs_match(uid: str, winners: str, started: str) -> dict:
    """A finished Burraco match in pairs, of one hand that `winners` close."""
    losers = "Voi" if winners == "Noi" else "Noi"
    hand = {"sides": {winners: {"table": 300, "hand": 0, "clean": 1}, losers: {"table": 50, "hand": 30}},
            "closed_by": winners}  # fmt: skip
    settings = {"hands": 1, "teams": {"Noi": ["Ann", "Cy"], "Voi": ["Bob", "Di"]}}
    return doc(uid, "burraco", ["Ann", "Bob", "Cy", "Di"], [hand], started, settings)


# --- A club evening ------------------------------------------------------------------------------


def begun_evening(app) -> dict[str, str]:
    """A club evening of four pairs begun, as its routes' arguments: its address, a table's match, the cards' key."""
    pairs = [([f"P{n}a", f"P{n}b"], None) for n in range(4)]
    plan = {"game": "burraco", "pairs": True, "turns": 2, "hands": 2, "first": "danese", "then": "danese"}
    with app.app_context():
        evening = club.create_evening("Friday", plan, pairs)
        club.start(evening)
        group = db.session.get(Group, evening.group_id)
        table = db.session.scalars(db.select(ClubTable).filter_by(evening_id=evening.id, number=1)).one()
        found = {"evening": evening.public_id, "table": ref(table.match_id), "cards_key": group.cards_key}
        db.session.remove()
    return found


def started_evening(app, name: str, plan: dict[str, Any], pairs: list) -> str:
    """A club evening set up and its first turn drawn, through the services; its address."""
    with app.app_context():
        evening = club.create_evening(name, plan, pairs)
        club.start(evening)
        address = evening.public_id
        db.session.remove()
    return address


def play_turns(app, address: str, turns: int, even: bool = False) -> None:
    """`turns` turns of a pairs evening played at every table (N/S ahead by 150 points a table's number a hand,
    or every hand even) and confirmed by the arbiter: the last table of the last turn ends the evening."""
    from companion.models import within_group
    from companion.models.club import ClubEvening
    from companion.services import matches as service

    with app.app_context(), within_group(None):
        evening = db.session.scalars(db.select(ClubEvening).filter_by(public_id=address)).one()
        for _ in range(turns):
            for table in [t for t in evening.tables if t.turn == evening.turn and t.number]:
                match = db.session.get(Match, table.match_id)
                ns = 100 if even else 100 + 150 * table.number
                for _hand in range(evening.hands - len(match.rounds)):
                    hand = {"sides": {"N/S": {"table": ns, "hand": 0}, "E/W": {"table": 100, "hand": 0}}}
                    service.save_round(match, {**hand, "closed_by": None})
                club.confirm_as_arbiter(evening, table.turn, table.number)
        db.session.remove()


def finished_evening(app) -> str:
    """A club evening of four pairs played to its end; its address."""
    pairs = [([f"P{n}a", f"P{n}b"], None) for n in range(4)]
    plan = {"game": "burraco", "pairs": True, "turns": 2, "hands": 2, "first": "danese", "then": "danese"}
    address = started_evening(app, "Thursday", plan, pairs)
    play_turns(app, address, 2)
    return address
