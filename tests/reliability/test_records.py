"""Matches of the same players finished and taken back at once on the real servers leave their records exact."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from companion import create_app
from companion.extensions import db
from companion.games import get_game
from tests.helpers import counted_from_the_seats, kept, ref
from tests.reliability.client import HTMX, Client, save_round, start_match

PLAYERS = ["Ann", "Bob", "Cy", "Di"]
# One victory point wins: the first round saved finishes the match.
SETTINGS = {"cards": 8, "target": 1}
MATCHES = 12


def start(url: str) -> tuple[int, str, str]:
    """A Pazzaparola match of the four players, started through the new-match form: its id and pencil cookie."""
    match = start_match(url, "pazzaparola", PLAYERS, SETTINGS)
    return match.id, match.cookie_name, match.cookie_value


def winning_round(winner: str) -> list[tuple[str, str]]:
    """The entry form of a first round that `winner` takes with a two-card word."""
    rows = {name: {"used": [9, 9] if name == winner else [1], "unused": 6 if name == winner else 7} for name in PLAYERS}
    fields = get_game("pazzaparola").entry.form_from_round({"rows": rows}, PLAYERS, SETTINGS)
    pairs = []
    for key, values in fields.items():
        pairs += [(key, str(v)) for v in values] if isinstance(values, list) else [(key, str(values))]
    return pairs + [("number", "1")]


def all_at_once(url: str, matches: list[tuple[int, str, str]], send) -> list[int]:
    """Each match's request sent by a phone of its own, all released together; the statuses."""
    statuses: list[int] = [0] * len(matches)
    ready = threading.Barrier(len(matches))

    def phone(index: int) -> None:
        match_id, cookie, pencil = matches[index]
        client = Client(url)
        client.cookies[cookie] = pencil
        client.get("/offline")  # the session and its CSRF token
        ready.wait()
        statuses[index] = send(client, match_id, index).status
        client.close()

    threads = [threading.Thread(target=phone, args=(index,)) for index in range(len(matches))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return statuses


def check_records(db_url: str, instance: Path) -> dict:
    """The records as kept by the writers, after checking they are what the stored seats add up to."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": db_url, "AUTO_MIGRATE": False}, instance_path=str(instance))
    with app.app_context():
        try:
            expected = counted_from_the_seats()
            assert kept() == expected
            return expected[0]
        finally:
            db.session.remove()
            db.engine.dispose()


@pytest.mark.slow
def test_matches_finished_and_undone_at_once_keep_the_records_exact(start_server, tmp_path):
    server = start_server(workers=2)
    matches = [start(server.url) for _ in range(MATCHES)]

    def finish(client: Client, match_id: int, index: int):
        return save_round(client, match_id, winning_round(PLAYERS[index % len(PLAYERS)]))

    assert all_at_once(server.url, matches, finish) == [200] * MATCHES
    records = check_records(server.db_url, tmp_path / "check")
    assert sum(figures[1] for figures in records.values()) == MATCHES * len(PLAYERS)

    def undo(client: Client, match_id: int, index: int):
        return client.post(f"/matches/{ref(match_id)}/undo", [], HTMX)

    half = matches[::2]
    assert all_at_once(server.url, half, undo) == [200] * len(half)
    records = check_records(server.db_url, tmp_path / "check")
    assert sum(figures[1] for figures in records.values()) == (MATCHES - len(half)) * len(PLAYERS)
