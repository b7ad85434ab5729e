"""Browser tests of every phone following the match: the pencil's moves, the host's end, the giver's page, the
polls' end."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.extensions import db
from companion.queries.matches import find_match
from companion.services import matches as service
from companion.services import pencil as pencil_service
from tests.e2e.audit import audit_layout
from tests.e2e.burraco_helpers import enter_burraco_hand, start_burraco
from tests.e2e.helpers import add_to_roster, server_match_with_pencil
from tests.helpers import PHONE, match_short_of_its_end, ref, save_stored_round, stored_match

pytestmark = pytest.mark.e2e

# What a phone whose pencil went elsewhere shows where the entry was.
ELSEWHERE = "Another phone holds the pencil."
# A match page's polls: its live block's, and on a phone seated at a match over, whether it was played again.
POLLS = re.compile(r"/matches/[0-9A-Za-z]{11}/(live|followed)")


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


def polls_of(page: Page) -> list[str]:
    """The polls the page sends from now on, each by what it asks (`live` or `followed`), as they leave."""
    sent: list[str] = []
    page.on("request", lambda request: (found := POLLS.search(request.url)) and sent.append(found.group(1)))
    return sent


def test_a_page_stops_polling_once_nothing_can_follow_its_match_and_polls_on_while_something_can(
    page: Page, browser: Browser, live_server, app
):
    # A match no longer played was polled every second, for ever, by every page left open on it.
    base = live_server.url
    # A finished match with a phone seated at it: a Play again takes that phone on, and an Undo would play it on.
    kept_id, players, last = match_short_of_its_end(app, "topic")
    seated = phone(browser)
    seated.goto(f"{base}/matches/{ref(kept_id)}/seat")
    seated.get_by_label(players[0]).check()
    seated.get_by_role("button", name="Take a seat").click()
    expect(seated.get_by_role("status").filter(has_text="Your seat")).to_contain_text(players[0])
    save_stored_round(app, kept_id, last)
    expect(seated.locator("#entry")).to_contain_text("The match is over.")
    seated_polls = polls_of(seated)
    # The host ends a match: no round is written to it again, and a Play again takes no phone from this page.
    ended_id = server_match_with_pencil(page, app, base, "topic", ["Ann", "Bob"], rounds=1)
    page.goto(f"{base}/matches/{ref(ended_id)}")
    ended_polls = polls_of(page)
    with app.app_context():
        service.end_match(find_match(ended_id))
        db.session.remove()
    expect(page.locator("#entry")).to_contain_text("The host ended this match as unfinished.")
    polled_before = len(ended_polls)
    page.wait_for_timeout(3000)
    assert len(ended_polls) == polled_before
    assert seated_polls.count("live") >= 2 and seated_polls.count("followed") >= 2
    # The same page opened again asks once, and keeps what it shows.
    page.reload()
    reloaded_polls = polls_of(page)
    page.wait_for_timeout(2500)
    assert reloaded_polls == ["live"]
    expect(page.locator("#entry")).to_contain_text("The host ended this match as unfinished.")
    expect(page.locator("#live")).to_contain_text("Bob")
    audit_layout(page, ["Ann", "Bob"])
