"""Which steps of a long history a chart draws: a phone's chart has room for a few dozen points."""

from __future__ import annotations

# A chart 400 units wide on a 360 px phone: more points than this are closer than a pixel or two
# apart, and every one of them is bytes of the page and time to draw it, for a player of years.
CHART_POINTS = 60


def spread(count: int, most: int = CHART_POINTS) -> list[int]:
    """At most `most` of the indices 0..count-1, evenly spread, the first and the last among them."""
    if count <= most:
        return list(range(count))
    return sorted({round(k * (count - 1) / (most - 1)) for k in range(most)})
