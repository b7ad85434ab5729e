"""Browser tests of every phone following the match: the pencil's moves, the host's end, the giver's page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.extensions import db
from companion.queries.matches import find_match
from companion.services import matches as service
from companion.services import pencil as pencil_service
from tests.e2e.burraco_helpers import enter_burraco_hand, start_burraco
from tests.e2e.helpers import add_to_roster
from tests.helpers import PHONE, stored_match

pytestmark = pytest.mark.e2e

# What a phone whose pencil went elsewhere shows where the entry was.
ELSEWHERE = "Another phone holds the pencil."


def phone(browser: Browser) -> Page:
    """A second phone at the table: its own cookies, same size."""
    return browser.new_context(viewport=PHONE, has_touch=True, locale="en-GB").new_page()


def hand_over(page: Page, other: Page) -> None:
    """The phone `page` shows the pencil code on its share page, and `other` scans it and takes the pencil."""
    page.get_by_role("link", name="Share · viewer QR").click()
    page.get_by_role("button", name="Show the pencil code").click()
    link = page.get_by_role("link", name="Pencil link").get_attribute("href")
    other.goto(link)
    other.get_by_role("button", name="Take the pencil").click()
    expect(other.get_by_role("button", name="Save hand 1")).to_be_visible()


def test_the_giver_sees_the_pencil_taken_and_the_taker_loses_it_when_taken_back(
    page: Page, browser: Browser, live_server, app
):
    add_to_roster(app, "Ann", "Bob")
    start_burraco(page, live_server.url, ["Ann", "Bob"])
    other = phone(browser)
    hand_over(page, other)
    # The giver's share page no longer shows a code that is used up.
    expect(page.get_by_text("The pencil was given to the phone that scanned it.")).to_be_visible()
    expect(page.get_by_role("img", name="QR code of the pencil link")).to_have_count(0)

    page.get_by_role("button", name="Take the pencil back").click()
    expect(page.get_by_role("button", name="Save hand 1")).to_be_visible()
    # The other phone, untouched, stops offering an entry it can no longer save.
    expect(other.locator("#entry")).to_contain_text(ELSEWHERE)
    expect(other.get_by_role("button", name="Save hand 1")).to_have_count(0)


def test_the_scorekeepers_phone_follows_the_host_ending_the_match(page: Page, live_server, app):
    add_to_roster(app, "Ann", "Bob")
    match_id = start_burraco(page, live_server.url, ["Ann", "Bob"])
    with app.app_context():
        service.end_match(find_match(match_id))
        db.session.remove()
    expect(page.locator("#entry")).to_contain_text("The host ended this match as unfinished.")
    expect(page.get_by_role("button", name="Save hand 1")).to_have_count(0)


@pytest.mark.browser_context_args(service_workers="block")  # page.route must see the live polls
def test_a_save_refused_for_a_moved_pencil_keeps_what_was_typed(
    page: Page, browser: Browser, live_server, app, browser_faults
):
    browser_faults.expect("Failed to load resource: the server responded with a status of 403 (FORBIDDEN)")
    # The live poll aborted below: whether one was on its way when it was cut is up to timing.
    for text in (
        "Failed to load resource: net::ERR_FAILED",
        "htmx:sendError, [object HTMLDivElement]",
        "htmx:afterRequest, [object HTMLDivElement]",
    ):
        browser_faults.expect(text, may_not_come=True)
    add_to_roster(app, "Ann", "Bob")
    match_id = start_burraco(page, live_server.url, ["Ann", "Bob"])
    # This phone cannot hear the live poll: it learns that the pencil moved only from its Save.
    page.route(re.compile(r"/matches/[0-9A-Za-z]{11}/live"), lambda route: route.abort())
    with app.app_context():
        match = find_match(match_id)
        pencil_service.take_pencil(match, pencil_service.offer_pencil(match))
        db.session.remove()
    enter_burraco_hand(page, {"Ann": {"table": "120+35", "clean": 1}, "Bob": {"table": "60", "hand": "25"}}, "Ann")
    page.get_by_role("button", name="Save hand 1").click()
    expect(page.locator("#entry")).to_contain_text(ELSEWHERE)
    kept = page.locator("#waiting-rounds li")
    expect(kept).to_have_count(1)
    expect(kept.nth(0)).to_contain_text("Hand 1:")
    expect(kept.nth(0)).to_contain_text("Ann 455 (closed), Bob 35")
    expect(kept.nth(0)).to_contain_text("Needs a look: Another phone holds the pencil.")
    assert stored_match(app, match_id).rounds == []
