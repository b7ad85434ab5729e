"""Browser tests of a finished match's "Share the result" on a 360 px phone: one PNG file handed to the phone's
share sheet where the phone can share files, else (and without JavaScript) the card downloaded; the card in
the theme the page is drawn in, and the page well laid out. A finished club evening's "Share the podium" alike."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from tests.e2e.audit import NARROW_PHONE, audit_layout
from tests.helpers import (
    finished_evening,
    finished_match,
    match_short_of_its_end,
    ref,
    save_stored_round,
    start_match,
)

pytestmark = pytest.mark.e2e

# A phone whose browser shares files: what it was asked to share is kept for the test to read, and counted on
# the page's root element, for `expect` to wait on.
SHARE_SHEET = """
window.sharedFiles = [];
Object.defineProperty(navigator, "canShare", {configurable: true, value: function (data) {
  return !!(data && data.files && data.files.length);
}});
Object.defineProperty(navigator, "share", {configurable: true, value: async function (data) {
  for (const file of data.files) {
    const head = Array.from(new Uint8Array(await file.slice(0, 8).arrayBuffer()));
    window.sharedFiles.push({name: file.name, type: file.type, size: file.size, head: head, title: data.title});
  }
  document.documentElement.dataset.sharedFiles = String(window.sharedFiles.length);
}});
"""
# A phone whose browser has no Web Share at all.
NO_SHARE_SHEET = """
Object.defineProperty(navigator, "share", {configurable: true, value: undefined});
Object.defineProperty(navigator, "canShare", {configurable: true, value: undefined});
"""
PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10]


def phone(browser: Browser, script: str | None = None, **options) -> Page:
    """A 360 px phone, its browser prepared by `script` before any page runs."""
    page = browser.new_context(viewport=NARROW_PHONE, has_touch=True, locale="en-GB", **options).new_page()
    if script:
        page.add_init_script(script)
    return page


def share_button(page: Page):
    """The Share the result control, as a person finds it."""
    return page.get_by_role("button", name="Share the result")


def expect_tappable(page: Page) -> None:
    """The control is on screen and big enough for a thumb: the phone's width, a tall target."""
    box = share_button(page).bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= NARROW_PHONE["width"] * 0.8, box


def test_a_phone_that_shares_files_hands_the_card_to_its_share_sheet(browser: Browser, live_server, app):
    match_id, players, _, _ = finished_match(app, "pazzaparola")
    page = phone(browser, SHARE_SHEET, color_scheme="dark")
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    expect(share_button(page)).to_be_visible()
    expect_tappable(page)
    audit_layout(page, players)
    # The page follows the system's dark scheme: so does the card it shares.
    expect(share_button(page)).to_have_attribute("href", re.compile(r"theme=dark$"))
    share_button(page).tap()
    expect(page.locator("html")).to_have_attribute("data-shared-files", "1")
    shared = page.evaluate("window.sharedFiles")
    assert len(shared) == 1
    assert shared[0]["name"] == f"pazzaparola-{ref(match_id)}.png"
    assert shared[0]["type"] == "image/png" and shared[0]["head"] == PNG_SIGNATURE and shared[0]["size"] > 10_000
    assert shared[0]["title"] == "Pazzaparola"
    # Still on the match page: sharing is no navigation.
    expect(page).to_have_url(re.compile(rf"/matches/{ref(match_id)}$"))


@pytest.mark.parametrize("javascript", [True, False], ids=["no-share-sheet", "no-javascript"])
def test_without_a_share_sheet_the_link_downloads_the_card(browser: Browser, live_server, app, javascript):
    match_id, players, _, _ = finished_match(app, "burraco")
    page = phone(browser, NO_SHARE_SHEET if javascript else None, java_script_enabled=javascript)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    expect(share_button(page)).to_be_visible()
    expect_tappable(page)
    with page.expect_download() as download:
        share_button(page).click()
    assert download.value.suggested_filename == f"burraco-{ref(match_id)}.png"
    image = Image.open(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert image.format == "PNG" and image.size[0] == 1080
    expect(page).to_have_url(re.compile(rf"/matches/{ref(match_id)}$"))


def test_a_match_being_played_offers_no_card(browser: Browser, live_server, app):
    match_id = start_match(app.test_client(), "topic", ["Anna", "Bruno"])
    page = phone(browser)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    expect(page.get_by_role("heading", name="Topic_")).to_be_visible()
    expect(share_button(page)).to_have_count(0)


def test_a_phone_following_the_match_is_offered_the_card_as_the_last_round_ends_it(browser: Browser, live_server, app):
    match_id, players, last = match_short_of_its_end(app, "pazzaparola")
    page = phone(browser, SHARE_SHEET, color_scheme="dark")
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    expect(page.get_by_text("You are following this match.")).to_be_visible()
    expect(share_button(page)).to_have_count(0)
    save_stored_round(app, match_id, last)
    # The live poll brings the entry of a finished match, and its script comes with it.
    expect(share_button(page)).to_be_visible()
    expect(share_button(page)).to_have_attribute("href", re.compile(r"theme=dark$"))
    audit_layout(page, players)
    share_button(page).tap()
    expect(page.locator("html")).to_have_attribute("data-shared-files", "1")
    assert [file["name"] for file in page.evaluate("window.sharedFiles")] == [f"pazzaparola-{ref(match_id)}.png"]


def test_a_finished_evenings_standings_hand_its_podium_card_to_the_share_sheet(browser: Browser, live_server, app):
    address = finished_evening(app)
    page = phone(browser, SHARE_SHEET, color_scheme="dark")
    page.goto(f"{live_server.url}/evenings/{address}/standings")
    podium = page.get_by_role("button", name="Share the podium")
    expect(podium).to_be_visible()
    expect(podium).to_have_attribute("href", re.compile(r"/podium\.png\?theme=dark$"))
    audit_layout(page, ["P0a", "P1a"])
    podium.tap()
    expect(page.locator("html")).to_have_attribute("data-shared-files", "1")
    shared = page.evaluate("window.sharedFiles")
    assert shared[0]["name"] == f"burraco-evening-{address}.png" and shared[0]["type"] == "image/png"
    assert shared[0]["head"] == PNG_SIGNATURE and shared[0]["title"] == "Thursday"
