"""The bench's self-test of the hall's part: a small evening played through at a quick pace counts every phone
at each of its next tables and every hand saved; the figures count a phone never shown its next table, a refused
answer and a table left unconfirmed as errors."""

from __future__ import annotations

import math

from bench import hall


def test_a_small_evening_is_played_through_and_every_phone_reaches_its_next_tables(monkeypatch):
    monkeypatch.setattr(hall, "HAND_EVERY", (0.2, 0.6))
    monkeypatch.setattr(hall, "CONFIRM_AFTER", (0.1, 0.2))
    row = hall.evening(2, workers=1, limit=90)
    assert row["phones"] == 8 and row["tables"] == 2
    assert row["errors"] == 0, row["error_samples"]
    assert row["saves"] == 2 * hall.HANDS * hall.TURNS
    # Each phone was shown each next turn after the turn's last confirmation (how long after, this busy machine
    # decides: the bench's runs measure it).
    assert 0 <= row["turn_close_p50_ms"] <= row["turn_close_max_ms"] < 90_000
    assert row["peak_rss_mb"] > 0 and row["cpu_seconds_per_table"] > 0
    assert row["hall_screen_stand_in"] == ("/hall/" not in row["screen_path"])


def played(shown: list, errors: list, confirmed: list, samples: list) -> dict:
    """What one load process of a two-phone evening would report."""
    result = {"samples": samples, "errors": errors, "confirmed": confirmed, "shown": shown, "over": 2, "phones": 2,
              "resent": 0}  # fmt: skip
    return {"results": [result], "seconds": 10.0, "cpu_seconds": 2.0, "peak_rss": 2**20, "seating_errors": 0,
            "screen_path": "/evenings/x/live"}  # fmt: skip


def test_the_figures_count_a_missed_next_table_a_refusal_and_a_table_not_confirmed_as_errors():
    confirmed = [(turn, 100.0 * turn) for turn in range(1, hall.TURNS + 1)]
    arrivals = [(turn, 100.0 * (turn - 1) + 0.5, 100.0 * (turn - 1) + 1.0) for turn in range(2, hall.TURNS + 1)]
    samples = [("live", 0.01, 200, 1.0), ("panel", 0.02, 304, 1.5), ("save", 0.05, 200, 2.0)]  # kind, s, status, sent
    clean = hall.figures(played(arrivals * 2, [], confirmed, samples), tables=1)
    assert clean["errors"] == 0 and clean["held"]
    assert clean["turn_close_p50_ms"] == clean["turn_close_max_ms"] == 500
    assert clean["poll_p95_ms"] == 20 and clean["save_p95_ms"] == 50
    # One phone never shown its turn 2; a save refused; the last turn's table never confirmed.
    messy = hall.figures(played(arrivals * 2 + [], ["save /matches/x/rounds: 500"], confirmed[:-1], samples),
                         tables=1)  # fmt: skip
    assert messy["errors"] == 2 and not messy["held"]
    missed = hall.figures(played(arrivals + arrivals[1:], [], confirmed, samples), tables=1)
    assert missed["errors"] == 1 and "1 phones never shown their next table" in missed["error_samples"]
    slow = hall.figures(played([(2, 103.0, 103.5)] + arrivals[1:] * 2 + [arrivals[0]], [], confirmed, samples), 1)
    assert slow["turn_close_max_ms"] > hall.TURN_CLOSE_MS and not slow["budgets"]["turn close to every phone <= 2 s"]
    assert not math.isnan(slow["turn_close_p50_ms"])
