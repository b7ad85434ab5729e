"""Browser test of the foundation: a match created by taps alone shows as in progress."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import add_to_roster, new_match_redraw_held, start_match

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


def test_a_tap_on_a_player_while_the_form_is_redrawn_waits_for_it_rather_than_being_dropped(
    page: Page, live_server, app
):
    # On a slow network the new-match form is redrawn after each tap; htmx drops a second request of the form
    # meanwhile, so a player tapped then was not seated, with no sign (a CI run on a loaded machine lost one so).
    # The players' buttons rest until the form is drawn, then the tap seats the player.
    add_to_roster(app, "Ann")
    page.goto(live_server.url + "/matches/new")
    ann = page.get_by_role("button", name="+ Ann", exact=True)
    with new_match_redraw_held(page):
        page.get_by_role("button", name="Topic_", exact=True).click()
        expect(ann).to_be_disabled()
    expect(page.get_by_role("button", name="Topic_", exact=True)).to_have_attribute("aria-pressed", "true")
    expect(ann).to_be_enabled()
    ann.click()
    expect(page.locator('input[name="seat"][value="Ann"]')).to_have_count(1)
