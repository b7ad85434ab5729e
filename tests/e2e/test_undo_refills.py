"""Browser test of Undo as an eraser: a round taken back from the read-back is in the entry again, to fix and save."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import add_to_roster, save_round, wait_until_held
from tests.e2e.pazzaparola_helpers import (
    BEATLES,
    PAZZAPAROLA_RULEBOOK_ROUND,
    TapCounter,
    enter_pazzaparola_round,
    pazzaparola_live_score,
    start_pazzaparola,
)
from tests.helpers import stored_match, unref

pytestmark = pytest.mark.e2e


def test_undo_from_the_readback_puts_a_pazzaparola_round_back_to_fix_one_card(page: Page, live_server, app):
    add_to_roster(app, *BEATLES)
    start_pazzaparola(page, live_server.url, BEATLES)
    tap = TapCounter(page)
    enter_pazzaparola_round(page, tap, PAZZAPAROLA_RULEBOOK_ROUND, theme="Animali")
    save_round(page, "Save round 1", "Round 1:", BEATLES, tap=tap)
    expect(page.locator(".pz-chip")).to_have_count(0)
    page.locator("#banner").get_by_role("button", name="Undo").click()
    expect(page.locator("#banner")).to_contain_text("Round 1 taken back.")
    # Every chip of the round is back, with the theme and the scores it made.
    expect(page.locator(".pz-chip")).to_have_count(20)
    expect(page.get_by_label("Theme")).to_have_value("Animali")
    for name, expected in zip(BEATLES, (18, 14, 10, 9), strict=True):
        expect(pazzaparola_live_score(page, name)).to_have_text(str(expected))
    # One card was wrong: George's last 2 was a 4.
    george = page.get_by_role("group", name="George", exact=True)
    george.get_by_role("button", name="George", exact=True).click()
    george.locator(".pz-chip").last.click()
    tap.button("4")
    expect(pazzaparola_live_score(page, "George")).to_have_text("11")
    save_round(page, "Save round 1", "Round 1:", BEATLES, tap=tap)
    (stored,) = stored_match(app, unref(page.url.rsplit("/", 1)[1])).rounds
    assert sorted(stored["rows"]["George"]["used"]) == [2, 2, 3, 3, 4]
    assert stored["rows"]["John"]["used"] == [7, 2, 7, 2, 3]
    assert stored["theme"] == "Animali"


def test_a_live_poll_answered_after_the_undo_of_the_last_round_leaves_the_round_in_the_entry(
    page: Page, live_server, app
):
    # The page's live poll runs every second: one sent before the Undo and answered after it carries the
    # version the Undo made, and its entry, drawn empty, replaced the round just put back (seen on a loaded
    # machine in the whole-evening test).
    add_to_roster(app, *BEATLES)
    start_pazzaparola(page, live_server.url, BEATLES, target=1)
    tap = TapCounter(page)
    enter_pazzaparola_round(page, tap, PAZZAPAROLA_RULEBOOK_ROUND, theme="Animali")
    save_round(page, "Save round 1", "Round 1:", BEATLES, tap=tap)
    expect(page.get_by_text("The match is over. It is kept in the history.")).to_be_visible()
    held = []
    page.route("**/live*", lambda route: held.append(route))
    with page.expect_request("**/live*"):
        pass  # the next poll goes out, and is held
    page.locator("#banner").get_by_role("button", name="Undo").click()
    expect(page.locator("#banner")).to_contain_text("Round 1 taken back.")
    expect(page.locator(".pz-chip")).to_have_count(20)
    page.evaluate("""() => document.addEventListener("htmx:afterRequest", (event) => {
      if (event.detail.elt.id === "live") window.heldPollDone = true;
    })""")
    wait_until_held(page, held, "the poll")
    held[0].continue_()
    page.wait_for_function("() => window.heldPollDone === true")
    # The answer is of the version the Undo drew already: the round stays in the entry, to fix and save.
    expect(page.locator(".pz-chip")).to_have_count(20)
    expect(page.get_by_label("Theme")).to_have_value("Animali")
    page.unroute("**/live*")
