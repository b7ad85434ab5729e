"""Unit tests of the history's date fields: a day read and written as a language writes it."""

from __future__ import annotations

from datetime import date

import pytest

from companion.queries.history import DayForm

ITALIAN = DayForm(order="dmy", separator="/", placeholder="gg/mm/aaaa")
AMERICAN = DayForm(order="mdy", separator="/", placeholder="mm/dd/yyyy")
JAPANESE = DayForm(order="ymd", separator="/", placeholder="yyyy/mm/dd")


@pytest.mark.parametrize(
    ("form", "text", "day"),
    [
        (ITALIAN, "25/12/2026", date(2026, 12, 25)),
        (ITALIAN, " 5/1/2026 ", date(2026, 1, 5)),
        (ITALIAN, "5.1.2026", date(2026, 1, 5)),
        (ITALIAN, "5-1-2026", date(2026, 1, 5)),
        (ITALIAN, "5 1 2026", date(2026, 1, 5)),
        (ITALIAN, "5,1,2026", date(2026, 1, 5)),  # an Italian decimal keypad's comma
        (ITALIAN, "25/12/26", date(2026, 12, 25)),
        (ITALIAN, "25122026", date(2026, 12, 25)),  # a keypad with no separator
        (ITALIAN, "251226", date(2026, 12, 25)),
        (ITALIAN, "2026-12-25", date(2026, 12, 25)),  # the links' ISO form, in every language
        (AMERICAN, "12/25/2026", date(2026, 12, 25)),
        (AMERICAN, "12252026", date(2026, 12, 25)),
        (AMERICAN, "2026-12-25", date(2026, 12, 25)),
        (JAPANESE, "2026/12/25", date(2026, 12, 25)),
        (JAPANESE, "20261225", date(2026, 12, 25)),
    ],
)
def test_a_day_is_read_in_the_forms_order_or_as_iso(form, text, day):
    assert form.read(text) == day


@pytest.mark.parametrize(
    "text",
    ["yesterday", "31/02/2026", "25/13/2026", "12/25/2026", "25/12", "25/12/2026/1", "25/12/202", "2512202",
     "25/12/0001", "31/12/9999", "٢٥/١٢/٢٠٢٦", "25//12//2026x", "1" * 21, "2026-12-25" + " " * 15],
)  # fmt: skip
def test_what_is_not_a_day_in_the_forms_order_is_refused(text):
    with pytest.raises(ValueError):
        ITALIAN.read(text)


def test_an_empty_field_holds_no_day():
    assert ITALIAN.read("") is None and ITALIAN.read("   ") is None


@pytest.mark.parametrize(
    ("form", "written"), [(ITALIAN, "05/01/2026"), (AMERICAN, "01/05/2026"), (JAPANESE, "2026/01/05")]
)
def test_a_day_is_written_in_the_forms_order_and_read_back(form, written):
    assert form.write(date(2026, 1, 5)) == written
    assert form.read(written) == date(2026, 1, 5)


def test_the_message_names_the_form_to_write():
    assert str(ITALIAN.problem) == "Not a date: write it as gg/mm/aaaa."
