"""Twenty phones saving rounds into five matches at once on the real servers lose and duplicate nothing."""

from __future__ import annotations

import pytest

from tests.reliability.client import Load, LoadMatch, LoadResult, load_round, start_match
from tests.reliability.helpers import stored_data, stored_rounds

CLIENTS = 20
MATCHES = 5
SECONDS = 8


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


@pytest.mark.alone
@pytest.mark.slow
@pytest.mark.parametrize("kind", ["waitress", "gunicorn"])
def test_concurrent_writers_lose_nothing(start_server, kind, record_property):
    server = start_server(kind)
    result = Load(server.url, load_tables(server.url), clients=CLIENTS, seconds=SECONDS).run()
    assert not result.server_errors, result.server_errors[:3]
    assert result.connection_errors == 0
    stored = check_nothing_lost(result, stored_rounds(server.db_url))
    # And stored as sent: each acknowledged round's rows are the ones its client entered.
    data = stored_data(server.db_url)
    for ack in result.acks:
        sent = load_round(ack.number, ack.tag)["rows"]
        kept = data[(ack.match_id, ack.number)]["rows"]
        assert {name: row["used"] for name, row in kept.items()} == {name: row["used"] for name, row in sent.items()}, (
            ack
        )
    # Four phones race for each match, so most saves are refused as stale (409); enough
    # must get through for the check to mean something.
    assert len(result.acks) >= 20, f"too little load to prove anything: {result.statuses}"
    # Other answers are the expected refusals of stale pages (409) and finished matches (422).
    assert set(result.statuses) <= {200, 409, 422}, result.statuses
    record_property("rounds", stored)
    print(
        f"\n{kind}: {CLIENTS} clients, {MATCHES} matches, {SECONDS} s: {stored} rounds stored, "
        f"{len(result.acks)} acknowledged, answers {dict(result.statuses)}"
    )
