"""Schema management: bring the database up to the newest migration on start."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic.migration import MigrationContext
from flask import Flask
from flask_migrate import upgrade
from sqlalchemy import text

from .extensions import db

# The key of PostgreSQL's advisory lock that servers starting together take around their migrations.
MIGRATION_LOCK = 0x7AB1EC0


def upgrade_database(app: Flask) -> None:
    """Apply pending migrations, one process at a time when several start together.

    Processes sharing the instance folder take a file lock; servers on PostgreSQL also take
    the database's advisory lock, since two containers share no disk. The one that gets it
    first migrates; the others wait, then find nothing left to do.
    """
    lock_path = Path(app.instance_path) / "migrate.lock"
    with app.app_context(), open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with _database_lock():
                before = _revision()
                upgrade()
                from .services.matches import refresh_stale_caches

                refresh_stale_caches()
                from .services.ratings import rebuild_stale

                rebuild_stale()
                after = _revision()
            if before != after:
                app.logger.info("Database migrated from %s to %s", before or "empty", after)
            else:
                app.logger.info("Database at %s: nothing to migrate", after)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _revision() -> str | None:
    """The migration the database is at."""
    with db.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


@contextmanager
def _database_lock() -> Iterator[None]:
    """On PostgreSQL, hold the migrations' advisory lock (a session lock: freed if this process dies)."""
    if db.engine.dialect.name != "postgresql":
        yield
        return
    with db.engine.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
            connection.commit()
