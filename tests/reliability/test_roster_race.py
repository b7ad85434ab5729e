"""Phones starting matches at the same moment with the same new player: each match starts, the roster gets one entry."""

from __future__ import annotations

import pytest

from tests.reliability.client import Client
from tests.reliability.helpers import at_once, query

PHONES = 6
TRIALS = 4


@pytest.mark.slow
def test_six_phones_seating_one_new_name_at_once_all_start(start_server):
    server = start_server(workers=2)
    for trial in range(TRIALS):
        phones = [Client(server.url) for _ in range(PHONES)]
        for phone in phones:
            phone.get("/matches/new")
        newcomer = f"Newcomer {trial}"
        posts = [
            ("/matches/new", [("game", "topic"), ("seat", newcomer), ("seat", f"Host {trial}-{index}"),
                              ("seat", "Bob"), ("action", "start")], {})
            for index in range(PHONES)
        ]  # fmt: skip
        answers = at_once(phones, posts)
        assert [answer.status for answer in answers] == [302] * PHONES, [a.text[:300] for a in answers]
        entries = query(server.db_url, "SELECT id FROM player WHERE key = :key", key=newcomer.casefold())
        assert len(entries) == 1
        seated = query(
            server.db_url, "SELECT COUNT(*) FROM seat WHERE player_id = :id AND name = :name",
            id=entries[0][0], name=newcomer,
        )  # fmt: skip
        assert seated[0][0] == PHONES
