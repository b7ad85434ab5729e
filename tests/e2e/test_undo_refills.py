"""Browser test of Undo as an eraser: a round taken back from the read-back is in the entry again, to fix and save."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import stored_match, unref
from tests.e2e.helpers import add_to_roster
from tests.e2e.test_pazzaparola import BEATLES, RULEBOOK, Taps, enter_round, save, score, start_pazzaparola

pytestmark = pytest.mark.e2e


def test_undo_from_the_readback_puts_a_pazzaparola_round_back_to_fix_one_card(page: Page, live_server, app):
    add_to_roster(app, *BEATLES)
    start_pazzaparola(page, live_server.url, BEATLES)
    tap = Taps(page)
    enter_round(page, tap, RULEBOOK, theme="Animali")
    save(page, tap, 1)
    expect(page.locator(".pz-chip")).to_have_count(0)
    page.locator("#banner").get_by_role("button", name="Undo").click()
    expect(page.locator("#banner")).to_contain_text("Round 1 taken back.")
    # Every chip of the round is back, with the theme and the scores it made.
    expect(page.locator(".pz-chip")).to_have_count(20)
    expect(page.get_by_label("Theme")).to_have_value("Animali")
    for name, expected in zip(BEATLES, (18, 14, 10, 9), strict=True):
        expect(score(page, name)).to_have_text(str(expected))
    # One card was wrong: George's last 2 was a 4.
    george = page.get_by_role("group", name="George", exact=True)
    george.get_by_role("button", name="George", exact=True).click()
    george.locator(".pz-chip").last.click()
    tap.button("4")
    expect(score(page, "George")).to_have_text("11")
    save(page, tap, 1)
    (stored,) = stored_match(app, unref(page.url.rsplit("/", 1)[1])).rounds
    assert sorted(stored["rows"]["George"]["used"]) == [2, 2, 3, 3, 4]
    assert stored["rows"]["John"]["used"] == [7, 2, 7, 2, 3]
    assert stored["theme"] == "Animali"
