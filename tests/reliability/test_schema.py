"""Migrations build the models' schema exactly, and a database of the first release is upgraded on start intact."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import upgrade
from sqlalchemy import text

from companion import create_app
from companion.extensions import db
from companion.queries.matches import hash_token
from tests.helpers import ADDRESS_KEY, address_database, csrf_token, fresh_database, old_ref, ref

FIRST_REVISION = "7846c37c80c0"
# The scorekeeper's cookie of the old match, so the test can go on playing it after the upgrade.
OLD_TOKEN = "old-release-scorekeeper-token-0123456789abcdef"


def test_migrations_build_the_models_schema(app, runner):
    with app.app_context():
        with db.engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True, "render_as_batch": True})
            assert compare_metadata(context, db.metadata) == []
            assert context.get_current_revision() is not None
    # The same check as a maintainer would run it: it exits with 1 when models and migrations differ.
    result = runner.invoke(args=["db", "check"])
    assert result.exit_code == 0, result.output


def rounds_played() -> list[dict]:
    """The rounds of the match stored in the old schema."""
    return [{"losers": ["Bob"]}, {"losers": ["Cy"], "penalties": ["Bob"]}, {"losers": ["Bob"]}]


@pytest.fixture
def old_database(tmp_path: Path) -> Iterator[str]:
    """A database at the first release's schema, holding one Topic_ match played on it."""
    with fresh_database() as url:
        url = url or f"sqlite:///{tmp_path / 'instance' / 'companion.sqlite'}"
        old = create_app(
            {"SQLALCHEMY_DATABASE_URI": url, "AUTO_MIGRATE": False}, instance_path=str(tmp_path / "instance")
        )
        with old.app_context():
            upgrade(revision=FIRST_REVISION)
            # Ids come from the database, as they did in the old release (sequences on PostgreSQL).
            statements = [
                "INSERT INTO player (name, key, created_at) VALUES ('Ann', 'ann', '2025-06-01 20:00:00'),"
                " ('Bob', 'bob', '2025-06-01 20:00:00'), ('Cy', 'cy', '2025-06-01 20:00:00')",
                "INSERT INTO match (game, settings, status, started_at, finished_at, version, scorekeeper_hash,"
                " uid, summary) VALUES ('topic', '{\"length\": \"short\"}', 'playing', '2025-06-01 20:00:00',"
                f" NULL, 3, '{hash_token(OLD_TOKEN)}', 'old-release-match', '{{}}')",
                "INSERT INTO seat (match_id, player_id, position) VALUES (1, 1, 0), (1, 2, 1), (1, 3, 2)",
            ]
            for number, data in enumerate(rounds_played(), start=1):
                at = f"2025-06-01 20:1{number}:00"
                statements.append(
                    "INSERT INTO round (match_id, number, data, created_at, updated_at, revision) VALUES"
                    f" (1, {number}, '{json.dumps(data)}', '{at}', '{at}', 0)"
                )
            with db.engine.begin() as connection:
                for statement in statements:
                    connection.execute(text(statement))
            db.engine.dispose()
        address_database(url)
        try:
            yield url
        finally:
            address_database(None)


def test_a_first_release_database_is_upgraded_on_start(tmp_path, old_database):
    app = create_app(
        {"SQLALCHEMY_DATABASE_URI": old_database, "SECRET_KEY": ADDRESS_KEY}, instance_path=str(tmp_path / "instance")
    )
    try:
        with app.app_context():
            with db.engine.connect() as connection:
                context = MigrationContext.configure(connection, opts={"render_as_batch": True})
                assert compare_metadata(context, db.metadata) == []
                seats = connection.execute(text("SELECT name, player_id FROM seat ORDER BY position")).all()
                assert seats == [("Ann", 1), ("Bob", 2), ("Cy", 3)]
                match = connection.execute(text("SELECT scorekeeper_hash, owner_hash, uid, version FROM match")).one()
                assert match == (hash_token(OLD_TOKEN), hash_token(OLD_TOKEN), "old-release-match", 3)
                rounds = connection.execute(text("SELECT number, data FROM round ORDER BY number")).all()
                data = [json.loads(d) if isinstance(d, str) else d for _, d in rounds]
                assert [n for n, _ in rounds] == [1, 2, 3] and data[1] == {"losers": ["Cy"], "penalties": ["Bob"]}
        client = app.test_client()
        page = client.get(f"/matches/{ref(1)}")
        assert page.status_code == 200
        html = page.get_data(as_text=True)
        assert 'id="standings"' in html
        for name in ("Ann", "Bob", "Cy"):
            assert name in html
        exported = client.get(f"/matches/{ref(1)}.json").get_json()
        assert [{k: v for k, v in r.items() if k != "at"} for r in exported["rounds"]] == rounds_played()
        # Standings are derived from the old rounds: Bob took 3 cards, Cy 1, Ann none.
        with app.app_context():
            from companion.models import Match
            from companion.queries.matches import standings_of

            assert standings_of(db.session.get(Match, 1)).totals == {"Ann": 0, "Bob": 3, "Cy": 1}
        section = html.split('id="standings"', 1)[1].split("</section>", 1)[0]
        assert all(name in section for name in ("Ann", "Bob", "Cy")) and "3" in section
        assert client.get("/history").status_code == 200
        assert client.get("/players").status_code == 200
        standings = client.get(f"/matches/{ref(1)}/live")
        assert standings.status_code == 200
        # The old match goes on: its scorekeeper saves round 4, and a new match gets a fresh id.
        client.set_cookie("pencil_1", OLD_TOKEN)
        token = csrf_token(client, f"/matches/{ref(1)}")
        saved = client.post(
            f"/matches/{ref(1)}/rounds", data={"csrf_token": token, "number": "4", "several": "on", "losers": "Ann"}
        )
        assert saved.status_code in (200, 302), saved.get_data(as_text=True)[:500]
        started = client.post(
            "/matches/new", data={"csrf_token": token, "game": "topic", "seat": ["Ann", "Di"], "action": "start"}
        )
        assert started.status_code == 302 and started.headers["Location"].endswith(f"/matches/{ref(2)}")
        # The match from before answers its old address (a printed QR code) by a redirect to its new one; the
        # match made since has none, nor has a player added since.
        with app.app_context():
            with db.engine.connect() as connection:
                addresses = connection.execute(text("SELECT id, public_id FROM match ORDER BY id")).all()
                old = connection.execute(text("SELECT match_max, player_max, member_max FROM old_addresses")).one()
        assert [row_id for row_id, _ in addresses] == [1, 2] and old == (1, 3, 0)
        assert all(re.fullmatch(r"[0-9A-Za-z]{11}", public_id) for _, public_id in addresses)
        moved = client.get(f"/matches/{old_ref(1)}/live")
        assert moved.status_code == 308 and moved.headers["Location"] == f"/matches/{ref(1)}/live"
        assert client.get(f"/players/{old_ref(2)}").headers["Location"] == f"/players/{ref(2, 'player')}"
        assert client.get(f"/matches/{old_ref(2)}").status_code == 404
    finally:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()
