"""Browser tests of the word after a change made on another page: a late penalty, host rights, preferences."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from companion.services import host
from tests.e2e.helpers import add_to_roster, start_match

pytestmark = pytest.mark.e2e


def test_a_late_penalty_says_what_was_saved(page: Page, live_server, app):
    add_to_roster(app, "Ann", "Bob", "Cy")
    start_match(page, live_server.url, "Topic_", ["Ann", "Bob", "Cy"])
    page.locator("#entry").get_by_role("button", name=re.compile(r"^Bob \d+ cards?$")).click()
    expect(page.locator("#banner")).to_contain_text("Round 1:")
    page.get_by_role("switch", name="For round 1, just played (one tap saves it)").click()
    page.get_by_role("button", name="Penalty card for Ann in round 1").click()
    banner = page.locator("#banner").get_by_role("status")
    expect(banner).to_contain_text("Correction saved.")
    expect(banner).to_contain_text("Round 1:")
    expect(banner).to_contain_text("Ann +1 (1 penalty)")
    expect(banner).to_contain_text("Bob +1")


def test_taking_host_rights_says_so_on_the_home_page(page: Page, live_server, app):
    token = host.new_link_token(app)
    page.goto(f"{live_server.url}/host?token={token}")
    page.get_by_role("button", name="Take host rights").click()
    expect(page).to_have_url(live_server.url + "/")
    expect(page.get_by_role("status")).to_have_text("This phone has host rights.")


def test_saved_preferences_lead_back_to_the_page_they_were_opened_from(page: Page, live_server, app):
    add_to_roster(app, "Ann", "Bob")
    start_match(page, live_server.url, "Topic_", ["Ann", "Bob"])
    match_url = page.url
    page.get_by_role("link", name="Preferences").click()
    expect(page.get_by_role("heading", name="Preferences")).to_be_visible()
    page.get_by_role("radio", name="Dark").check()
    page.get_by_role("radio", name="Italiano").check()
    page.get_by_role("button", name="Save preferences").click()
    expect(page).to_have_url(match_url)
    expect(page.get_by_role("status").filter(has_text="Preferenze salvate.")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.locator("html")).to_have_attribute("lang", "it")
