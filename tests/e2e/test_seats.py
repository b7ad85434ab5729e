"""Browser test of seats for the players' own phones: the seat link, a phone taking its seat (in Italian), its own
cards held growing live, the scorekeeper seeing who sits where and freeing a seat, the seated phone told at once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import PHONE
from tests.e2e.audit import audit_layout
from tests.e2e.helpers import add_to_roster, new_phone, start_match
from tests.e2e.test_topic import loser

pytestmark = pytest.mark.e2e

LONG = "Bartolomeo-Massimiliano-Giovanbattista-X"  # 40 characters, one unbroken word
PLAYERS = ["Ann", LONG, "Cy"]


def test_a_phone_takes_its_seat_follows_its_own_cards_and_is_told_when_freed(
    page: Page, browser: Browser, live_server, app
):
    add_to_roster(app, *PLAYERS)
    page.set_viewport_size(PHONE)
    start_match(page, live_server.url, "Topic_", PLAYERS)
    match_url = page.url
    page.get_by_role("link", name="Share · viewer QR").click()
    expect(page.get_by_role("img", name="QR code of the seat link")).to_be_visible()
    link = page.locator("#seats-panel .qr-url a").get_attribute("href")
    audit_layout(page, PLAYERS)

    # A player's phone, in Italian, opens the seat link and takes the 40-character name's seat.
    seated = new_phone(browser, live_server.url, {"width": 360, "height": 740}, locale="it-IT")
    seated.goto(link)
    expect(seated.get_by_role("heading", name="Quale giocatore sei?")).to_be_visible()
    audit_layout(seated, PLAYERS)
    seated.get_by_label(LONG).check()
    seated.get_by_role("button", name="Prendi posto").tap()
    expect(seated).to_have_url(match_url)
    expect(seated.get_by_role("status").filter(has_text="Il tuo posto")).to_contain_text(LONG)
    mine = seated.locator(".topic-mine .big-num")
    expect(mine).to_have_text("0")
    audit_layout(seated, PLAYERS)

    # The scorekeeper's share page shows the seat taken without a reload; another phone cannot take it.
    taken = page.locator("#seats-panel li").filter(has_text=LONG)
    expect(taken.locator(".seat-phone")).to_contain_text("Chrome")
    late = new_phone(browser, live_server.url, PHONE)
    late.goto(link)
    expect(late.get_by_label(LONG)).to_be_disabled()
    expect(late.locator(".seat-taken")).to_contain_text("taken")

    # The scorekeeper's one tap: the seated phone's own cards held grow at its next poll; a viewer's page has none.
    page.goto(match_url)
    loser(page, LONG).tap()
    expect(page.get_by_role("status").filter(has_text="Round 1:")).to_be_visible()
    expect(mine).to_have_text("1")
    expect(late.locator(".topic-mine")).to_have_count(0)
    audit_layout(seated, PLAYERS)

    # The scorekeeper frees the seat: the phone that sat there is told at its next poll, and follows.
    page.get_by_role("link", name="Share · viewer QR").click()
    page.get_by_role("button", name=f"Free the seat of {LONG}").tap()
    expect(taken.locator(".seat-phone")).to_have_count(0)
    expect(taken).to_contain_text("no phone yet")
    expect(seated.get_by_text("Il tuo posto")).to_have_count(0)
    expect(seated.locator(".topic-mine")).to_have_count(0)
    expect(seated.locator(".viewer-note")).to_be_visible()
    # The seat is free again: the late phone takes it.
    late.reload()
    late.get_by_label(LONG).check()
    late.get_by_role("button", name="Take a seat").tap()
    expect(late.get_by_role("status").filter(has_text="Your seat")).to_contain_text(LONG)
    expect(late.locator(".topic-mine .big-num")).to_have_text("1")
    assert re.search(r"/matches/\w{8}$", late.url)
