"""Phones racing on one match against the real server: one correction wins, a code is taken once, one undo a tap."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from companion.games import get_game
from companion.queries.matches import hash_token
from tests.helpers import HTMX, ref
from tests.reliability.client import LOAD_GAME, LOAD_PLAYERS, LOAD_SETTINGS, Client, round_form, save_round, start_match
from tests.reliability.helpers import at_once, query

PHONES = 4
TRIALS = 8
CODE = re.compile(r"/pencil\?code=([A-Za-z0-9_.\-]+)")


def scorekeeper(url: str, match) -> Client:
    """A phone holding the load match's pencil, with a page's CSRF token."""
    phone = Client(url)
    phone.cookies[match.cookie_name] = match.cookie_value
    phone.get(f"/matches/{ref(match.id)}")
    return phone


def correction(number: int, tag: str, revision: int, winner: int) -> list[tuple[str, str]]:
    """The correction form of a load round: `winner` takes it, its theme is `tag`."""
    # Move the winning row to another seat: the correction changes the standings.
    rounds = {"theme": tag, "rows": {name: {"used": [1], "unused": 7} for name in LOAD_PLAYERS}}
    rounds["rows"][LOAD_PLAYERS[winner]] = {"used": [9, 9], "unused": 6}
    entry = get_game(LOAD_GAME).entry.form_from_round(rounds, LOAD_PLAYERS, LOAD_SETTINGS)
    fields = [(key, str(value)) for key, values in entry.items() for value in values]
    return fields + [("revision", str(revision))]


@pytest.mark.slow
def test_four_corrections_of_one_round_at_one_revision_one_wins(start_server, record_property):
    server = start_server(workers=2)
    match = start_match(server.url)
    keeper = scorekeeper(server.url, match)
    assert save_round(keeper, match.id, round_form(1, "first")).status == 200
    tally: Counter = Counter()
    for trial in range(TRIALS):
        phones = [scorekeeper(server.url, match) for _ in range(PHONES)]
        for phone in phones:
            phone.get(f"/matches/{ref(match.id)}/rounds/1")
        tags = [f"t{trial}-p{index}" for index in range(PHONES)]
        path = f"/matches/{ref(match.id)}/rounds/1"
        posts = [(path, correction(1, tag, trial, i + 1), HTMX) for i, tag in enumerate(tags)]
        answers = at_once(phones, posts)
        statuses = [answer.status for answer in answers]
        tally.update(statuses)
        assert sorted(statuses) == [200] + [409] * (PHONES - 1), statuses
        winner = tags[statuses.index(200)]
        stored = query(server.db_url, 'SELECT data, revision FROM "round" WHERE match_id = :m AND number = 1',
                       m=match.id)  # fmt: skip
        data = stored[0][0] if isinstance(stored[0][0], dict) else json.loads(stored[0][0])
        assert data["theme"] == winner and stored[0][1] == trial + 1
        # Each refused phone is shown the values that won, to correct again from.
        for answer in answers:
            if answer.status == 409:
                assert winner in answer.text and "changed meanwhile" in answer.text
        for phone in phones:
            phone.close()
    changes = query(server.db_url, "SELECT COUNT(*) FROM round_change WHERE match_id = :m AND action = 'correct'",
                    m=match.id)  # fmt: skip
    assert changes[0][0] == TRIALS, "a correction overwrote another without a trace"
    record_property("corrections", dict(tally))
    print(f"\nconcurrent corrections, {TRIALS} trials of {PHONES} phones: accepted {tally[200]}, refused {tally[409]}")


@pytest.mark.slow
def test_corrections_of_two_rounds_at_once_leave_the_summary_right(start_server):
    server = start_server(workers=2)
    match = start_match(server.url)
    keeper = scorekeeper(server.url, match)
    for number in (1, 2):
        assert save_round(keeper, match.id, round_form(number, f"r{number}")).status == 200
    game = get_game(LOAD_GAME)
    for trial in range(TRIALS):
        phones = [scorekeeper(server.url, match) for _ in range(2)]
        for number, phone in enumerate(phones, start=1):
            phone.get(f"/matches/{ref(match.id)}/rounds/{number}")
        winners = [(trial + 2) % len(LOAD_PLAYERS), (trial + 5) % len(LOAD_PLAYERS)]
        posts = [
            (
                f"/matches/{ref(match.id)}/rounds/{number}",
                correction(number, f"t{trial}-r{number}", trial, winner),
                HTMX,
            )
            for number, winner in enumerate(winners, start=1)
        ]
        answers = at_once(phones, posts)
        assert [answer.status for answer in answers] == [200, 200]
        rows = query(server.db_url, 'SELECT data FROM "round" WHERE match_id = :m ORDER BY number', m=match.id)
        rounds = [row[0] if isinstance(row[0], dict) else json.loads(row[0]) for row in rows]
        summary = query(server.db_url, "SELECT summary FROM match WHERE id = :m", m=match.id)[0][0]
        summary = summary if isinstance(summary, dict) else json.loads(summary)
        expected = game.standings(LOAD_PLAYERS, LOAD_SETTINGS, rounds)
        assert summary["totals"] == expected.totals, (trial, summary, expected.totals)
        for phone in phones:
            phone.close()


@pytest.mark.slow
def test_a_pencil_code_is_taken_by_exactly_one_phone(start_server, record_property):
    server = start_server(workers=2)
    tally: Counter = Counter()
    for _ in range(TRIALS):
        match = start_match(server.url)
        keeper = scorekeeper(server.url, match)
        offer = keeper.post(f"/matches/{ref(match.id)}/pencil/offer", [], HTMX)
        code = CODE.search(offer.text).group(1)
        phones = [Client(server.url) for _ in range(PHONES)]
        for phone in phones:
            phone.get(f"/matches/{ref(match.id)}/pencil?code={code}")
        answers = at_once(phones, [(f"/matches/{ref(match.id)}/pencil", [("code", code)], {})] * PHONES)
        statuses = [answer.status for answer in answers]
        tally.update(statuses)
        assert sorted(statuses) == [302] + [409] * (PHONES - 1), statuses
        holders = [phone for phone in phones if match.cookie_name in phone.cookies]
        assert len(holders) == 1
        hashes = query(server.db_url, "SELECT scorekeeper_hash, handover_hash FROM match WHERE id = :m", m=match.id)
        # The pencil cookie keeps the token under a digest of the match's uid: "key:token".
        token = holders[0].cookies[match.cookie_name].split(":", 1)[1]
        assert hashes[0] == (hash_token(token), None)
    record_property("pencil", dict(tally))
    print(f"\npencil codes, {TRIALS} trials of {PHONES} phones: taken {tally[302]}, refused {tally[409]}")


@pytest.mark.slow
def test_a_double_tap_on_undo_takes_back_one_round(start_server):
    server = start_server(workers=2)
    match = start_match(server.url)
    keeper = scorekeeper(server.url, match)
    for number in range(1, 2 + TRIALS * 2):
        assert save_round(keeper, match.id, round_form(number, f"r{number}")).status == 200
    for action in ("undo", "redo") * TRIALS:
        shown = query(server.db_url, 'SELECT COUNT(*) FROM "round" WHERE match_id = :m', m=match.id)[0][0]
        phones = [scorekeeper(server.url, match) for _ in range(2)]
        answers = at_once(phones, [(f"/matches/{ref(match.id)}/{action}", [("shown", str(shown))], HTMX)] * 2)
        assert sorted(answer.status for answer in answers) == [200, 409], (action, [a.status for a in answers])
        after = query(server.db_url, 'SELECT COUNT(*) FROM "round" WHERE match_id = :m', m=match.id)[0][0]
        assert after == shown + (1 if action == "redo" else -1)
        for phone in phones:
            phone.close()
