"""Browser test of the foundation: a match created by taps alone shows as in progress."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import add_to_roster, start_match

pytestmark = pytest.mark.e2e

PLAYERS = ["Ann", "Bob", "Cy", "Di"]


def test_four_player_match_by_taps_then_in_progress_on_home(page: Page, live_server, app):
    add_to_roster(app, *PLAYERS)
    start_match(page, live_server.url, "Pazzaparola", PLAYERS)
    expect(page.get_by_label("Seat order")).to_contain_text("1. Ann")
    expect(page.get_by_label("Seat order")).to_contain_text("4. Di")
    page.get_by_role("link", name="Table companion").click()
    expect(page.get_by_role("heading", name="In progress")).to_be_visible()
    expect(page.get_by_role("link", name="Pazzaparola Ann, Bob, Cy, Di")).to_be_visible()
    audit_layout(page, PLAYERS)

    # The players page and a player's own page.
    page.get_by_role("link", name="Players", exact=True).click()
    expect(page.get_by_role("heading", name="Players", exact=True)).to_be_visible()
    audit_layout(page, PLAYERS)
    page.get_by_role("link", name="Ann", exact=True).click()
    expect(page.get_by_role("heading", name="Ann", exact=True)).to_be_visible()
    audit_layout(page, PLAYERS)
