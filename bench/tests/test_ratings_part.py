"""The bench's self-test, run by `make bench` before the bench: the ratings part does what it says on a small
seeded instance (each save ends and rates its match, each correction of the oldest match is stored, and the
rebuild rates every finished match of the game)."""

from __future__ import annotations

import functools

from bench import ratings
from bench.server import ROOT, Server, seed


def test_the_ratings_part_rates_the_ended_matches_and_stores_the_corrections(tmp_path, monkeypatch):
    for name, value in {"REBUILDS": 1, "BOARD_REQUESTS": 3, "ENDING_SAVES": 3, "CORRECTIONS": 2}.items():
        monkeypatch.setattr(ratings, name, value)
    instance = tmp_path / "instance"
    seed(instance, 60)
    got = ratings.run(instance, ROOT, functools.partial(Server, instance, tmp_path / "server.log"))
    assert got["rebuild"]["matches"] > 0
    assert got["leaderboard"]["statuses"] == [200]
    assert got["ending_save"]["statuses"] == [200]
    assert got["ending_save"]["rated"] == 3
    assert got["correction"]["statuses"] == [302]
    # Each correction is followed by the board that rebuilds what it marked.
    assert got["board_after_correction"]["statuses"] == [200] and got["board_after_correction"]["n"] == 2
    assert len(ratings.budgets(got)) == 5
