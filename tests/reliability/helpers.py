"""Helpers of the tests against real server processes: where the project lives, what their databases hold."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[2]


def stored_data(db_url: str) -> dict[tuple[int, int], dict]:
    """Every stored round's data by (match id, number), read straight from the database."""
    import json

    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(text('SELECT match_id, number, data FROM "round" ORDER BY match_id, number'))
            return {(m, n): json.loads(d) if isinstance(d, str) else d for m, n, d in rows}
    finally:
        engine.dispose()


def stored_rounds(db_url: str) -> dict[int, list[tuple[int, str]]]:
    """Every stored round per match as (number, theme tag), in order of number."""
    found: dict[int, list[tuple[int, str]]] = {}
    for (match_id, number), data in stored_data(db_url).items():
        found.setdefault(match_id, []).append((number, data.get("theme", "")))
    return found


def integrity_check(path: Path) -> str:
    """SQLite's own verdict on a database file."""
    import sqlite3

    with sqlite3.connect(path) as connection:
        verdict = connection.execute("PRAGMA integrity_check").fetchone()[0]
    connection.close()
    return verdict
