"""A club turn's clock: the time left and its state from the stored end and a given now; pause, extend, the default."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.club import plan as plans
from companion.games.club.clock import (
    MINUTE_MS,
    OFF,
    PAUSED,
    RUNNING,
    UP,
    WARNING,
    WARNING_MS,
    Clock,
    default_minutes,
    mm_ss,
)
from companion.games.refusals import RuleError

NOW = 1_800_000_000_000
moments = st.integers(0, 4_000_000_000_000)
spans = st.integers(0, 120 * MINUTE_MS)


def test_a_clock_never_started_is_off_and_no_hand_is_the_last():
    assert Clock().state(NOW) == OFF and Clock().left_ms(NOW) is None and not Clock().is_up(NOW)


def test_a_running_clock_warns_from_five_minutes_and_is_up_at_zero():
    clock = Clock().started(NOW, 30)
    assert clock.state(NOW) == RUNNING and clock.left_ms(NOW) == 30 * MINUTE_MS
    assert clock.state(NOW + 25 * MINUTE_MS - 1) == RUNNING
    assert clock.state(NOW + 25 * MINUTE_MS) == WARNING
    assert clock.state(NOW + 30 * MINUTE_MS - 1) == WARNING and not clock.is_up(NOW + 30 * MINUTE_MS - 1)
    assert clock.state(NOW + 30 * MINUTE_MS) == UP and clock.is_up(NOW + 31 * MINUTE_MS)
    assert clock.left_ms(NOW + 40 * MINUTE_MS) == 0


@given(start=moments, length=spans, elapsed=spans)
def test_time_left_falls_as_time_passes_and_never_below_zero(start, length, elapsed):
    clock = Clock(ends_ms=start + length)
    assert clock.left_ms(start) == length
    assert clock.left_ms(start + elapsed) == max(0, length - elapsed)


@given(start=moments, minutes=st.integers(1, 60), before=spans, pause=spans, after=spans)
def test_a_pause_holds_what_is_left_however_long_it_lasts(start, minutes, before, pause, after):
    running = Clock().started(start, minutes)
    left = running.left_ms(start + before)
    paused = running.paused(start + before)
    assert paused.left_ms(start + before + pause) == left
    assert paused.state(start + before + pause) == (UP if left == 0 else PAUSED)
    resumed = paused.resumed(start + before + pause)
    assert resumed.left_ms(start + before + pause + after) == max(0, left - after)


@given(start=moments, length=spans, elapsed=spans, more=st.sampled_from((1, 5)))
def test_extending_adds_its_minutes_to_what_is_left_or_to_now_once_up(start, length, elapsed, more):
    clock = Clock(ends_ms=start + length)
    now = start + elapsed
    assert clock.extended(now, more).left_ms(now) == clock.left_ms(now) + more * MINUTE_MS
    assert clock.paused(now).extended(now, more).left_ms(now + length) == clock.left_ms(now) + more * MINUTE_MS


def test_an_off_clock_is_neither_paused_extended_nor_resumed():
    assert Clock().paused(NOW) == Clock().extended(NOW, 5) == Clock().resumed(NOW) == Clock()


@given(left=st.integers(0, 100 * MINUTE_MS))
def test_the_figures_round_up_to_the_second_and_show_zero_only_at_zero(left):
    minutes, seconds = map(int, mm_ss(left).split(":"))
    assert (minutes * 60 + seconds) * 1000 - 1000 < left <= (minutes * 60 + seconds) * 1000
    assert (mm_ss(left) == "00:00") == (left == 0)
    assert mm_ss(WARNING_MS) == "05:00"


def test_the_default_turn_is_25_to_50_minutes_in_fives():
    assert [default_minutes(hands) for hands in (1, 2, 3, 4, 5, 10)] == [25, 25, 35, 50, 50, 50]
    assert all(default_minutes(hands) % 5 == 0 for hands in range(1, 11))


RAW = {"game": "burraco", "pairs": True, "turns": 2, "hands": 3, "first": "mitchell", "then": "danese_modificato"}


def test_the_plan_keeps_the_turns_minutes_the_late_penalty_and_the_short_turns_conversion():
    late = {"late_costs": "tournament points", "clock_penalty": 2}
    plan = plans.checked({**RAW, **late, "turn_minutes": 40, "short_turn": "as_played"}, 4)
    again = plans.from_json("burraco", True, 2, 3, plan.to_json())
    assert (again.turn_minutes, again.clock_penalty, again.short_turn) == (40, 2, "as_played")
    # In points, with plain points only: taken off both sides, they would leave the difference and its scale as
    # they were.
    assert plans.checked({**RAW, "clock_penalty": 20, "scale": {"plain": True}}, 4).clock_penalty == 20
    # Unset: the default for the hands, marked late alone, pro rata; an evening stored before the clock reads so.
    plan = plans.checked(RAW, 4)
    assert (plan.turn_minutes, plan.clock_penalty, plan.short_turn) == (35, 0, "pro_rata")
    rules = {key: value for key, value in plan.to_json().items() if key not in ("turn_minutes", "clock_penalty")}
    assert plans.from_json("burraco", True, 2, 3, rules).turn_minutes == 35
    for wrong in ({"turn_minutes": 90}, {"clock_penalty": -1}, {"short_turn": "halved"}, {"clock_penalty": 20},
                  {"clock_penalty": 21, "late_costs": "tournament points"}):  # fmt: skip
        with pytest.raises(RuleError) as refused:
            plans.checked({**RAW, **wrong}, 4)
        assert refused.value.field == next(iter(wrong))
