"""Helpers of the tests against real server processes: phones sending at once, the load's tables, what is stored."""

from __future__ import annotations

import threading
from pathlib import Path

from sqlalchemy import create_engine, text

from tests.reliability.client import Client, LoadMatch, LoadResult, start_match

ROOT = Path(__file__).resolve().parents[2]
# The load of the concurrency tests: so many phones saving into so many tables at once.
CLIENTS = 20
MATCHES = 5


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


def at_once(phones: list[Client], posts: list[tuple[str, list, dict]]) -> list:
    """Each phone sends its POST (path, fields, headers) at the same moment, on its open connection; the answers."""
    barrier = threading.Barrier(len(phones))
    answers: list = [None] * len(phones)

    def run(index: int) -> None:
        barrier.wait()
        answers[index] = phones[index].post(*posts[index])

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(phones))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return answers


def query(db_url: str, sql: str, **values) -> list:
    """The rows a SQL statement reads straight from the server's database."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            return list(connection.execute(text(sql), values))
    finally:
        engine.dispose()


def load_tables(url: str, matches: int = MATCHES, spare: int = 2) -> list[list[LoadMatch]]:
    """Five tables, each with a few matches to play one after another (the first in play)."""
    return [[start_match(url) for _ in range(spare)] for _ in range(matches)]


def check_nothing_lost(result: LoadResult, stored: dict[int, list[tuple[int, str]]], exact: bool = True) -> int:
    """Every acknowledged save is stored once under its number; numbers run 1..n per match.

    `exact`: also no stored round that was not acknowledged (false after a crash, when a
    save may commit just before the server dies and its answer is lost).
    Returns how many rounds are stored.
    """
    for match_id, rounds in stored.items():
        numbers = [number for number, _ in rounds]
        assert numbers == list(range(1, len(numbers) + 1)), f"match {match_id}: gaps or duplicates in {numbers}"
        tags = [tag for _, tag in rounds]
        assert len(tags) == len(set(tags)), f"match {match_id}: a save stored twice"
    where = {(match_id, tag): number for match_id, rounds in stored.items() for number, tag in rounds}
    for ack in result.acks:
        assert where.get((ack.match_id, ack.tag)) == ack.number, f"acknowledged but not stored as sent: {ack}"
    if exact:
        assert len(where) == len(result.acks), "a round is stored that no client was told about"
    return len(where)
