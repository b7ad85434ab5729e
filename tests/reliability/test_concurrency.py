"""Twenty phones saving rounds into five matches at once on the real servers lose and duplicate nothing."""

from __future__ import annotations

import pytest

from tests.reliability.client import Load, load_round
from tests.reliability.helpers import CLIENTS, MATCHES, check_nothing_lost, load_tables, stored_data, stored_rounds

SECONDS = 8


@pytest.mark.alone
@pytest.mark.slow
def test_concurrent_writers_lose_nothing(start_server, record_property):
    server = start_server(workers=2)
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
        f"\n{CLIENTS} clients, {MATCHES} matches, {SECONDS} s: {stored} rounds stored, "
        f"{len(result.acks)} acknowledged, answers {dict(result.statuses)}"
    )
