"""Backups of a PostgreSQL database: pg_dump's consistent snapshot, and pg_restore into an empty database."""

from __future__ import annotations

import subprocess
from pathlib import Path

from flask import Flask
from sqlalchemy import inspect

from ..extensions import db


def postgres_url(app: Flask) -> str | None:
    """The database's address as libpq reads it, when the app runs on PostgreSQL."""
    uri = app.config["SQLALCHEMY_DATABASE_URI"]
    if not uri.startswith("postgresql"):
        return None
    return "postgresql://" + uri.split("://", 1)[1]


def dump(url: str, target: Path) -> None:
    """One transaction's snapshot (pg_dump's own), in its custom format, written whole or not at all."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    subprocess.run(
        ["pg_dump", "--format=custom", "--no-owner", "--no-privileges", f"--file={partial}", f"--dbname={url}"],
        check=True,
    )
    partial.replace(target)


def restore(app: Flask, url: str, source: Path) -> None:
    """Load a dump into an empty database, in one transaction: any error leaves it empty."""
    with app.app_context():
        tables = inspect(db.engine).get_table_names()
        db.engine.dispose()
    if tables:
        raise ValueError(f"the database is not empty ({len(tables)} tables): restore needs an empty one")
    subprocess.run(
        ["pg_restore", "--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error",
         f"--dbname={url}", str(source)],
        check=True,
    )  # fmt: skip
