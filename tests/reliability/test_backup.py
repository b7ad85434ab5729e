"""`flask backup` copies the live SQLite database consistently under load; the daily copies keep the last 7."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from datetime import date, timedelta

import pytest

from companion import create_app
from companion.extensions import db
from companion.server.backup import KEEP_DAILY, daily_backup
from tests.reliability.client import Load
from tests.reliability.helpers import CLIENTS, ROOT, integrity_check, load_tables

ON_POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


def rounds_in(path) -> dict[int, list[tuple[int, str]]]:
    """(number, theme tag) of every round per match in a SQLite file."""
    import json

    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT match_id, number, data FROM round ORDER BY match_id, number").fetchall()
    connection.close()
    found: dict[int, list[tuple[int, str]]] = {}
    for match_id, number, data in rows:
        found.setdefault(match_id, []).append((number, json.loads(data).get("theme", "")))
    return found


@pytest.mark.slow
@pytest.mark.skipif(ON_POSTGRES, reason="flask backup copies the SQLite database; PostgreSQL has pg_dump")
def test_backup_under_write_load_is_consistent(start_server, tmp_path, record_property):
    server = start_server()
    # `make run` keeps a daily copy from the moment it serves.
    backups = server.instance / "backups"
    deadline = time.monotonic() + 30
    while not list(backups.glob("companion-*.sqlite")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [p.name for p in backups.glob("companion-*.sqlite")] == [f"companion-{date.today().isoformat()}.sqlite"]

    load = Load(server.url, load_tables(server.url), clients=CLIENTS, seconds=60).start()
    try:
        time.sleep(3)
        copy = tmp_path / "copy.sqlite"
        started = time.monotonic()
        env = dict(os.environ, COMPANION_INSTANCE=str(server.instance))
        env.pop("DATABASE_URL", None)
        done = subprocess.run(
            [sys.executable, "-m", "flask", "--app", "app", "backup", str(copy)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        # Keep writing a little after the copy, so the load spans the whole backup.
        time.sleep(0.5)
    finally:
        load.stop.set()
        result = load.join()
    assert done.returncode == 0, done.stderr
    assert "backup written" in done.stdout
    assert integrity_check(copy) == "ok"
    before = result.acked_before(started)
    assert before, "nothing was acknowledged before the backup started"
    assert len(result.acks) > len(before), "no save was acknowledged while the backup ran"
    copied = rounds_in(copy)
    for match_id, rounds in copied.items():
        assert [n for n, _ in rounds] == list(range(1, len(rounds) + 1)), f"match {match_id} has gaps in the copy"
    missing = [a for a in before if (a.number, a.tag) not in copied.get(a.match_id, [])]
    assert not missing, f"acknowledged before the backup but not in it: {missing[:5]}"
    assert not result.server_errors, result.server_errors[:3]
    record_property("rounds_in_copy", sum(len(r) for r in copied.values()))
    print(
        f"\nbackup under load: {len(before)} rounds acknowledged before it, "
        f"{sum(len(r) for r in copied.values())} in the copy, {len(result.acks)} by the end"
    )


@pytest.fixture
def sqlite_app(tmp_path):
    """An app on a SQLite file, whatever database the suite runs on (daily backups are SQLite's)."""
    app = create_app(
        {"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'instance' / 'companion.sqlite'}"},
        instance_path=str(tmp_path / "instance"),
    )
    yield app
    with app.app_context():
        db.engine.dispose()


def test_daily_backup_keeps_the_last_seven(sqlite_app, tmp_path):
    folder = tmp_path / "instance" / "backups"
    first = date(2026, 1, 28)
    days = [first + timedelta(days=n) for n in (0, 1, 2, 4, 5, 6, 9, 10, 11, 12)]
    for day in days:
        made = daily_backup(sqlite_app, day)
        assert made == folder / f"companion-{day.isoformat()}.sqlite" and made.exists()
        # A second call the same day (the hourly check) makes no second copy.
        assert daily_backup(sqlite_app, day) == made
    kept = sorted(p.name for p in folder.glob("companion-*.sqlite"))
    assert KEEP_DAILY == 7
    assert kept == [f"companion-{day.isoformat()}.sqlite" for day in days[-7:]]
    assert all(integrity_check(folder / name) == "ok" for name in kept)
    assert not list(folder.glob("*.partial"))


def test_daily_backup_does_nothing_without_a_sqlite_file(tmp_path):
    app = create_app(
        {"SQLALCHEMY_DATABASE_URI": "sqlite:///" + str(tmp_path / "absent.sqlite"), "AUTO_MIGRATE": False},
        instance_path=str(tmp_path / "instance"),
    )
    assert daily_backup(app, date(2026, 1, 1)) is None
    app.config["SQLALCHEMY_DATABASE_URI"] = "postgresql+psycopg://nobody@127.0.0.1/none"
    assert daily_backup(app, date(2026, 1, 1)) is None


def test_a_worker_is_not_forked_while_the_daily_copy_is_inside_sqlite(tmp_path, monkeypatch):
    # gunicorn forks its workers after the daily backup's thread has started: a worker forked in the middle of a
    # copy inherited SQLite's locks held and never answered (seen in CI: a request timed out, the worker deaf to
    # SIGTERM). The fork now waits for the copy: the worker starts with the copy done.
    import threading

    from companion.server import backup

    source = tmp_path / "live.sqlite"
    sqlite3.connect(source).close()
    target = tmp_path / "backups" / "copy.sqlite"
    inside = threading.Event()
    real_connect = sqlite3.connect

    class SlowCopy:
        """A connection whose copy takes half a second, so a fork lands in the middle of it."""

        def __init__(self, path):
            self.connection = real_connect(path)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def backup(self, other):
            inside.set()
            time.sleep(0.5)
            self.connection.backup(other.connection)

        def close(self):
            self.connection.close()

    monkeypatch.setattr(backup.sqlite3, "connect", SlowCopy)
    copier = threading.Thread(target=backup.backup_to, args=(source, target))
    copier.start()
    assert inside.wait(5)
    child = os.fork()
    if child == 0:  # the worker: the copy must be over, not under way, when it starts
        os._exit(0 if target.exists() else 1)
    _, status = os.waitpid(child, 0)
    copier.join(5)
    assert os.waitstatus_to_exitcode(status) == 0
