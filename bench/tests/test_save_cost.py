"""bench/save_cost.py --parts times every part of a real save: the saves answered, each part found on its path."""

from __future__ import annotations

from pathlib import Path

from bench.save_cost import ROOT, ROWS, _in_process, _rows


def test_the_parts_of_a_save_are_timed_on_saves_the_app_answered():
    # _measure asserts each save's answer is a 200; a part's name gone from its module fails the import of it.
    result = _in_process(Path(ROOT), saves=5, parts=True)
    assert len(result["ms"]) == 5
    rows = _rows(result["parts"])
    assert set(rows) == set(ROWS)
    # Each timed function ran in every save: the view, the answer drawn and the round inserted among them.
    for name in ("view", "answer", "insert", "lock", "commit"):
        assert all(value > 0 for value in result["parts"][name]), name
    assert rows["the whole request inside the app"] > rows["the answer (MatchPage and the fragment drawn)"]
