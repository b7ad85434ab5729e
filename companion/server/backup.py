"""Consistent copies of the SQLite database, taken while the server keeps running."""

from __future__ import annotations

import os
import sqlite3
import threading
from datetime import date
from pathlib import Path

from flask import Flask

KEEP_DAILY = 7

# The daily backup's thread starts in gunicorn's arbiter before it forks the workers. A worker forked while the
# thread is inside SQLite would inherit SQLite's own locks held (its file-system mutex among them) and block on its
# first query for ever, deaf to SIGTERM: no process forks while a copy is under way, and a copy waits for a fork.
_copying = threading.Lock()
os.register_at_fork(before=_copying.acquire, after_in_parent=_copying.release, after_in_child=_copying.release)


def sqlite_path(app: Flask) -> Path | None:
    """The database file, when the app runs on SQLite."""
    uri = app.config["SQLALCHEMY_DATABASE_URI"]
    if not uri.startswith("sqlite:///"):
        return None
    return Path(uri.removeprefix("sqlite:///"))


def backup_to(source: Path, target: Path) -> None:
    """Copy the database with SQLite's online backup API: consistent even mid-write."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with _copying:
        with sqlite3.connect(source) as origin, sqlite3.connect(partial) as copy:
            origin.backup(copy)
        copy.close()
        origin.close()
        partial.replace(target)


def daily_backup(app: Flask, today: date | None = None) -> Path | None:
    """Today's backup in instance/backups (once a day), keeping the last few days."""
    source = sqlite_path(app)
    if source is None or not source.exists():
        return None
    folder = Path(app.instance_path) / "backups"
    target = folder / f"companion-{(today or date.today()).isoformat()}.sqlite"
    if not target.exists():
        backup_to(source, target)
    for old in sorted(folder.glob("companion-*.sqlite"))[:-KEEP_DAILY]:
        old.unlink()
    return target


def keep_daily_backups(app: Flask, every_seconds: float = 3600) -> threading.Thread:
    """A background thread that takes the day's backup, checking every hour."""
    stop = threading.Event()

    def run() -> None:
        while True:
            try:
                daily_backup(app)
            except (OSError, sqlite3.Error) as error:
                app.logger.warning("daily backup failed: %s", error)
            if stop.wait(every_seconds):
                return

    thread = threading.Thread(target=run, name="daily-backup", daemon=True)
    thread.start()
    return thread
