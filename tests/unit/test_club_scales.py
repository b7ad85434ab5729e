"""A club evening's scales: the presets hold, conversion is monotonic and sums to 20, a bad edited scale is refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.club.scales import PLAIN, Band, banded, from_form, preset, preset_for_sets
from companion.games.refusals import RuleError

PRESETS = [preset(hands) for hands in (2, 3, 4, 5)] + [preset_for_sets(sets) for sets in (1, 2, 3, 5, 10)]


@pytest.mark.parametrize("scale", PRESETS)
def test_every_preset_is_a_valid_scale_marked_as_placeholder(scale):
    assert banded(scale.bands).bands == scale.bands  # banded checks every band again
    assert scale.placeholder
    assert from_form(scale.to_form()).bands == scale.bands


@pytest.mark.parametrize("scale", PRESETS)
@given(first=st.integers(-3000, 3000), second=st.integers(-3000, 3000), more=st.integers(0, 3000))
def test_conversion_sums_to_20_and_more_difference_never_gives_less(scale, first, second, more):
    ahead, behind = scale.convert((first, second))
    assert ahead + behind == 20 and 0 <= ahead <= 20
    assert scale.convert((second, first)) == (behind, ahead)
    assert scale.convert((first + more, second))[0] >= ahead


def test_the_two_hands_preset_has_the_federation_shape():
    scale = preset(2)
    assert scale.convert((550, 500)) == (10, 10)
    assert scale.convert((551, 500)) == (11, 9)
    assert scale.convert((1000, 0)) == (19, 1)
    assert scale.convert((0, 1001)) == (0, 20)
    assert [band.ahead for band in scale.bands] == list(range(10, 21))
    widths = {later.start - earlier.start for earlier, later in zip(scale.bands[1:-1], scale.bands[2:], strict=False)}
    assert max(widths) - min(widths) <= 1


def test_the_tops_grow_with_the_hands():
    assert [preset(hands).bands[-1].start for hands in (2, 3, 4, 5)] == [1001, 1501, 2001, 2501]


def test_plain_points_are_kept_as_they_are():
    assert PLAIN.convert((730, -40)) == (730, -40)
    assert from_form({"plain": True}) is PLAIN


def _rows(*bands):
    return [{"start": start, "ahead": ahead, "behind": behind} for start, ahead, behind in bands]


@pytest.mark.parametrize(
    ("rows", "field"),
    [
        (_rows((0, 10, 10), (100, 12, 9)), "bands.1"),  # sides summing to 21
        (_rows((0, 10, 10), (100, 14, 6), (200, 12, 8)), "bands.2"),  # not monotonic
        (_rows((0, 10, 10), (300, 12, 8), (200, 14, 6)), "bands.2"),  # starts out of order
        (_rows((10, 10, 10)), "bands.0"),  # the first band not from 0
        (_rows((0, 12, 8)), "bands.0"),  # a difference of 0 not even
        (_rows((0, 10, 10), (100, 21, -1)), "bands.1"),  # below 0
        (_rows((0, 10, 10), (100, 8, 12)), "bands.1"),  # the side ahead getting less
        ([{"start": 0, "ahead": 10}], "bands.0"),  # a missing figure
        ([{"start": "0", "ahead": 10, "behind": 10}], "bands.0"),  # a text, not a number
        ([], "bands"),
        ("10-10", "bands"),
    ],
)
def test_a_bad_edited_scale_is_refused_naming_the_band(rows, field):
    with pytest.raises(RuleError) as refused:
        from_form(rows)
    assert refused.value.field == field


def test_an_edited_scale_is_taken_as_posted():
    scale = from_form(_rows((0, 10, 10), (100, 15, 5), (400, 20, 0)))
    assert scale.bands == (Band(0, 10, 10), Band(100, 15, 5), Band(400, 20, 0))
    assert not scale.placeholder
    assert scale.convert((0, 250)) == (5, 15)


def test_presets_exist_for_2_to_5_hands_only():
    with pytest.raises(RuleError) as refused:
        preset(6)
    assert refused.value.field == "hands"
