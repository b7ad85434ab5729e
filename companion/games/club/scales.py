"""A club evening's scales: a turn's points difference turned into tournament points (0 to 20, summing to 20)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..checks import whole
from ..refusals import N_, Message, RuleError

TOTAL = 20
EVEN = TOTAL // 2
# The difference up to which a turn is an even 10-10 in the presets.
EVEN_UP_TO = 50
# Beyond this difference a turn is 20-0 in the presets, by number of hands. 2, 3 and 4 hands follow the
# federation's shape; 5 hands carries its step of 500 points per hand on, an extrapolation of ours.
PRESET_TOPS = {2: 1000, 3: 1500, 4: 2000, 5: 2500}
PLACEHOLDER = N_("example figures in the federation's shape, not its official scale: check them before play")


@dataclass(frozen=True)
class Band:
    """From a difference of `start` up (to the next band's start), the side ahead gets `ahead` and the other
    `behind` tournament points."""

    start: int
    ahead: int
    behind: int


@dataclass(frozen=True)
class Scale:
    """Bands of a points difference (the first from 0, at 10-10); or `plain`, the turn's points kept as they are.

    `placeholder` marks a preset whose figures are not the federation's official ones: the page says so
    (`PLACEHOLDER`). Build one with `banded`, `from_form`, `preset` or `PLAIN`: they check it.
    """

    bands: tuple[Band, ...] = ()
    plain: bool = False
    placeholder: bool = False

    def convert(self, points: Sequence[int]) -> tuple[int, ...]:
        """The tournament points of a table's sides from their points (two sides: the difference decides)."""
        if self.plain:
            return tuple(points)
        first, second = points
        difference = abs(first - second)
        band = next(band for band in reversed(self.bands) if band.start <= difference)
        if first == second:
            return (EVEN, EVEN)
        return (band.ahead, band.behind) if first > second else (band.behind, band.ahead)

    def convert_played(
        self, points: Sequence[int], played: int | None, hands: int, less: Sequence[int] = (0, 0)
    ) -> tuple[int, ...]:
        """As `convert`, of the points `less` each side's penalty, for a turn the clock cut short after `played`
        of its `hands` hands: its points counted pro rata over the whole turn first (exactly: a difference of
        211.5 falls short of a band from 212), so a difference over two hands of three weighs as over three, and a
        penalty as it was given (plain points are kept as played)."""
        if self.plain or not played or played >= hands:
            return self.convert([figure - penalty for figure, penalty in zip(points, less, strict=True)])
        weight = Fraction(hands, played)
        return self.convert([figure * weight - penalty for figure, penalty in zip(points, less, strict=True)])

    @property
    def neutral(self) -> tuple[int, int]:
        """A neutral result (the arbiter's "average"): the scale's figures for an even turn."""
        return (0, 0) if self.plain else (EVEN, EVEN)

    @property
    def top(self) -> int | None:
        """The most tournament points one side can get from a turn; None when plain (no bound)."""
        return None if self.plain else self.bands[-1].ahead

    def to_form(self) -> list[dict[str, int]]:
        """The bands as a form shows them, the shape `from_form` reads back."""
        return [{"start": band.start, "ahead": band.ahead, "behind": band.behind} for band in self.bands]


PLAIN = Scale(plain=True)


def banded(bands: Iterable[Band], *, placeholder: bool = False) -> Scale:
    """A scale of these bands, or a RuleError naming the band and what is wrong with it.

    The first band starts at 0 and gives 10-10; the starts grow; each band's sides sum to 20, none below 0;
    the side ahead never gets less in a band further up (monotonic).
    """
    bands = tuple(bands)
    if not bands:
        raise RuleError(N_("a scale needs at least one band"), field="bands")
    for index, band in enumerate(bands):
        field = f"bands.{index}"
        if band.ahead + band.behind != TOTAL:
            raise RuleError(N_("the two sides' points of a band must sum to %(n)s", n=TOTAL), field=field)
        if band.behind < 0 or band.ahead < band.behind:
            raise RuleError(N_("the side ahead gets from %(lo)s to %(hi)s points", lo=EVEN, hi=TOTAL), field=field)
        if index == 0 and (band.start != 0 or band.ahead != EVEN):
            raise RuleError(N_("the first band starts at a difference of 0, at %(n)s-%(n)s", n=EVEN), field=field)
        if index and band.start <= bands[index - 1].start:
            raise RuleError(N_("each band starts at a larger difference than the one before"), field=field)
        if index and band.ahead < bands[index - 1].ahead:
            raise RuleError(N_("a larger difference may not give the side ahead fewer points"), field=field)
    return Scale(bands, placeholder=placeholder)


def from_form(rows: Any) -> Scale:
    """A host's edited scale as a form posts it: a list of {"start", "ahead", "behind"} (whole numbers).

    An empty list, or {"plain": true}, is plain points.
    """
    if rows == {"plain": True}:
        return PLAIN
    if not isinstance(rows, list):
        raise RuleError(N_("a scale is a list of bands"), field="bands")
    bands = []
    for index, row in enumerate(rows):
        field = f"bands.{index}"
        if not isinstance(row, dict):
            raise RuleError(N_("a band has a start, the points ahead and the points behind"), field=field)
        numbers = {key: whole(row.get(key), _WORDS[key], lo=0, field=field) for key in _WORDS}
        bands.append(Band(**numbers))
    return banded(bands)


_WORDS: dict[str, Message] = {
    "start": N_("the difference a band starts at"),
    "ahead": N_("the points of the side ahead"),
    "behind": N_("the points of the side behind"),
}


def preset(hands: int) -> Scale:
    """The placeholder scale for turns of `hands` hands (2 to 5): 10-10 up to a difference of 50, 20-0 beyond
    the top (1,000 / 1,500 / 2,000 / 2,500), and 11-9 to 19-1 in bands of equal width between."""
    if hands not in PRESET_TOPS:
        raise RuleError(N_("the preset scales are for %(lo)s to %(hi)s hands", lo=2, hi=5), field="hands")
    return stepped(EVEN_UP_TO, PRESET_TOPS[hands])


def preset_for_sets(sets: int) -> Scale:
    """The placeholder scale of a Pazaak turn, a match to `sets` sets: each set of difference a band."""
    whole(sets, N_("the sets to win"), lo=1, hi=EVEN, field="sets")
    return stepped(0, sets - 1)


def stepped(even_up_to: int, top: int) -> Scale:
    """Even up to `even_up_to`, all for the side ahead beyond `top`, the steps between of equal width
    (as equal as whole numbers allow)."""
    steps = TOTAL - EVEN - 1
    width = (top - even_up_to) / steps
    starts = [0] + [even_up_to + 1 + round(width * step) for step in range(steps)] + [top + 1]
    bands = []
    for step, start in enumerate(starts):
        if bands and start <= bands[-1].start:  # too few differences to give every step its own band
            bands.pop()
        bands.append(Band(start, EVEN + step, EVEN - step))
    return banded(bands, placeholder=True)
