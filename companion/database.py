"""Schema management: bring the database up to the newest migration on start."""

from __future__ import annotations

import fcntl
from pathlib import Path

from flask import Flask
from flask_migrate import upgrade


def upgrade_database(app: Flask) -> None:
    """Apply pending migrations, one process at a time when several start together."""
    lock_path = Path(app.instance_path) / "migrate.lock"
    with app.app_context(), open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            upgrade()
            from .services.matches import refresh_stale_caches

            refresh_stale_caches()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
