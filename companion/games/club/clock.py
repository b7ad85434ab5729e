"""A club turn's clock: the time left from its stored end (or the time left while paused) and a given now, its state."""

from __future__ import annotations

from dataclasses import dataclass

MINUTE_MS = 60_000
# From five minutes left the clock warns; at zero the hand being played is the last.
WARNING_MS = 5 * MINUTE_MS
# The turn lengths the host picks from, in minutes, and the taps that extend a running turn.
TURN_MINUTES = tuple(range(20, 65, 5))
EXTENSIONS = (1, 5)
# About twelve minutes a hand (a set of Pazaak), within the 25 to 50 minutes a club's turn lasts.
MINUTES_A_HAND = 12

OFF, RUNNING, PAUSED, WARNING, UP = "off", "running", "paused", "warning", "up"


def default_minutes(hands: int) -> int:
    """The turn length the setup form offers for turns of `hands` hands: 25 to 50 minutes, in fives."""
    return min(50, max(25, 5 * round(hands * MINUTES_A_HAND / 5)))


@dataclass(frozen=True)
class Clock:
    """A turn's clock as stored: running to `ends_ms` (ms since the epoch, UTC), or paused with `paused_left_ms`
    left; neither: off (not started, or ended by the host)."""

    ends_ms: int | None = None
    paused_left_ms: int | None = None

    def left_ms(self, now_ms: int) -> int | None:
        """What is left of the turn at `now_ms` (never below zero); None while the clock is off."""
        if self.paused_left_ms is not None:
            return max(0, self.paused_left_ms)
        if self.ends_ms is None:
            return None
        return max(0, self.ends_ms - now_ms)

    def state(self, now_ms: int) -> str:
        """OFF, PAUSED, UP (nothing left), WARNING (five minutes or less) or RUNNING."""
        left = self.left_ms(now_ms)
        if left is None:
            return OFF
        if left == 0:
            return UP
        if self.paused_left_ms is not None:
            return PAUSED
        return WARNING if left <= WARNING_MS else RUNNING

    def is_up(self, now_ms: int) -> bool:
        """Whether time is up: a hand saved now is a table's last."""
        return self.state(now_ms) == UP

    def started(self, now_ms: int, minutes: int) -> Clock:
        """The clock running from now for `minutes`."""
        return Clock(ends_ms=now_ms + minutes * MINUTE_MS)

    def paused(self, now_ms: int) -> Clock:
        """Held with what is left now (a clock off or paused stays as it is)."""
        if self.ends_ms is None:
            return self
        return Clock(paused_left_ms=self.left_ms(now_ms))

    def resumed(self, now_ms: int) -> Clock:
        """Running again from now with what was left when paused."""
        if self.paused_left_ms is None:
            return self
        return Clock(ends_ms=now_ms + self.paused_left_ms)

    def extended(self, now_ms: int, minutes: int) -> Clock:
        """`minutes` more: from the end, or from now if time was up already; a paused clock keeps its pause."""
        more = minutes * MINUTE_MS
        if self.paused_left_ms is not None:
            return Clock(paused_left_ms=self.paused_left_ms + more)
        if self.ends_ms is None:
            return self
        return Clock(ends_ms=max(self.ends_ms, now_ms) + more)


def mm_ss(left_ms: int) -> str:
    """Time left as the clock shows it, 'mm:ss', whole seconds rounded up (zero only once it is all gone)."""
    seconds = -(-left_ms // 1000)
    return f"{seconds // 60:02d}:{seconds % 60:02d}"
