"""Which steps of a long history a phone's chart draws."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from companion.queries.sampling import CHART_POINTS, spread


def test_a_short_history_is_drawn_whole():
    assert spread(0) == []
    assert spread(5) == [0, 1, 2, 3, 4]
    assert spread(CHART_POINTS) == list(range(CHART_POINTS))


@given(st.integers(min_value=2, max_value=50_000), st.integers(min_value=2, max_value=200))
def test_a_long_history_is_drawn_at_an_even_spread_from_the_first_step_to_the_last(count, most):
    drawn = spread(count, most)
    assert drawn[0] == 0 and drawn[-1] == count - 1
    assert len(drawn) == min(count, most)
    assert drawn == sorted(set(drawn))
    if count > most:
        gaps = [later - earlier for earlier, later in zip(drawn, drawn[1:], strict=False)]
        assert max(gaps) - min(gaps) <= 1
