"""Browser test of a finished match's replay on a narrow phone: opened from the history, stepped with its
buttons and its slider, each step the engine's standings, the address following, Back going back, and the
layout audited at every step (nothing scrolls sideways)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.games import get_game
from tests.e2e.audit import NARROW_PHONE, audit_layout
from tests.e2e.helpers import new_phone, serious_axe_violations
from tests.helpers import finished_match, match_short_of_its_end, ref, save_stored_round

pytestmark = pytest.mark.e2e


def standings(page: Page) -> list[str]:
    """The standings' victory points, in seat order, as the phone shows them."""
    return [" ".join(text.split()) for text in page.locator("#standings tbody td.big-num").all_text_contents()]


def expect_round(page: Page, match_id: int, number: int, count: int, totals: list[str]) -> None:
    """The replay shows round `number`: its line, its address, its slider and the engine's standings then."""
    expect(page.locator("#replay-title")).to_contain_text(f"After round {number} of {count}")
    expect(page).to_have_url(re.compile(rf"/matches/{ref(match_id)}(\?round={number})?$"))
    expect(page.get_by_label("Round shown")).to_have_value(str(number))
    expect(page.locator("#standings tbody td.big-num")).to_have_text(totals)


def test_a_finished_match_is_stepped_round_by_round_on_a_narrow_phone(browser: Browser, live_server, app):
    match_id, players, settings, rounds = finished_match(app, "pazzaparola")
    count = len(rounds)
    game = get_game("pazzaparola")

    def after(number: int) -> list[str]:
        totals = game.standings(players, settings, rounds[:number]).totals
        return [str(totals[name]) for name in players]

    page = new_phone(browser, live_server.url, NARROW_PHONE)
    page.get_by_role("link", name="History").click()
    page.locator(".history-item").first.click()
    # The boosted link opens the match as it ended: the last round of its replay.
    expect_round(page, match_id, count, count, after(count))
    expect(page.locator("#standings .result")).to_be_visible()
    expect(page.locator("#replay-next")).to_have_count(0)
    audit_layout(page, players)

    page.get_by_role("link", name="Previous").click()
    expect_round(page, match_id, count - 1, count, after(count - 1))
    assert after(count - 1) != after(count)
    expect(page.locator("#standings .result")).to_have_count(0)
    audit_layout(page, players)
    assert serious_axe_violations(page) == []
    # A screen reader hears where the replay is now: its region outlives the swap that redrew the replay.
    expect(page.locator("#replay-said")).to_have_text(f"After round {count - 1} of {count}")

    page.get_by_label("Round shown").fill("1")
    expect_round(page, match_id, 1, count, after(1))
    expect(page.locator("#replay-previous")).to_have_count(0)
    audit_layout(page, players)

    for number in (2, 3):
        page.get_by_role("link", name="Next").click()
        expect_round(page, match_id, number, count, after(number))
        expect(page.locator("#replay-said")).to_have_text(f"After round {number} of {count}")
    assert len({tuple(after(number)) for number in (1, 2, 3)}) > 1
    audit_layout(page, players)
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")

    # Back retraces the steps; a reload (or the link shared) opens at the same round.
    page.go_back()
    expect_round(page, match_id, 2, count, after(2))
    page.reload()
    expect_round(page, match_id, 2, count, after(2))
    page.get_by_role("link", name="Next").click()
    expect_round(page, match_id, 3, count, after(3))


def test_a_phone_following_a_match_as_it_ends_gets_the_replay_styled(browser: Browser, live_server, app):
    """The page of a match being played goes without the replay's styles; when the last round ends the match,
    the live answer that draws the replay brings them first, so the replay's steps ride at the screen's foot."""
    match_id, players, last = match_short_of_its_end(app, "topic")
    page = new_phone(browser, live_server.url, NARROW_PHONE)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    expect(page.locator("#standings")).to_be_visible()
    rules = "[...document.styleSheets].flatMap((sheet) => [...sheet.cssRules].map((rule) => rule.cssText))"
    assert not any(".replay-steps" in rule for rule in page.evaluate(rules))

    save_stored_round(app, match_id, last)
    steps = page.locator(".replay-steps")
    expect(steps).to_be_visible(timeout=10_000)
    assert steps.evaluate("(nav) => getComputedStyle(nav).position") == "sticky"
    audit_layout(page, players)
