"""Browser test of the fifth game (tests/fifth_game), registered at test time: started, scored, undone, finished."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import add_to_roster, press_start, seat_players, start_match
from tests.fifth_game import registered
from tests.helpers import ref

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def fives_registered() -> Iterator[None]:
    """Fives in the registry for one test, and out of it again afterwards."""
    with registered():
        yield


def enter(page: Page, ann: str, bob: str) -> None:
    """Type both players' points and save the round."""
    page.get_by_label("Points of Ann").fill(ann)
    page.get_by_label("Points of Bob").fill(bob)
    page.get_by_role("button", name="Save", exact=True).click()


def test_fives_is_played_on_a_phone_like_any_other_game(page: Page, live_server, app):
    add_to_roster(app, "Ann", "Bob")
    match_id = start_match(page, live_server.url, "Fives", ["Ann", "Bob"])
    enter(page, "5", "3")
    expect(page.locator(".readback")).to_contain_text("Fives round 1 saved: Ann 5, Bob 3")
    expect(page.locator(".fives-standings")).to_contain_text("needs 5")
    audit_layout(page, ["Ann", "Bob"])
    page.locator(".readback").get_by_role("button", name="Undo").click()
    expect(page.locator(".readback")).to_contain_text("Round 1 taken back.")
    expect(page.locator(".fives-round")).to_have_count(0)
    audit_layout(page, ["Ann", "Bob"])
    enter(page, "5", "3")
    expect(page.locator(".fives-round")).to_have_count(1)
    enter(page, "5", "0")
    expect(page.get_by_text("Ann wins!")).to_be_visible()
    audit_layout(page, ["Ann", "Bob"])
    page.goto(f"{live_server.url}/matches/{ref(match_id)}/table")
    expect(page.locator(".table-title")).to_have_text("Fives · Final")
    audit_layout(page, ["Ann", "Bob"])


def test_a_declared_setting_is_stepped_kept_across_taps_and_started_with(page: Page, live_server, app):
    add_to_roster(app, "Ann", "Bob")
    seat_players(page, live_server.url, "Fives", ["Ann"])
    target = page.get_by_role("textbox", name="Points to reach")
    expect(target).to_have_value("10")
    page.get_by_role("button", name="Points to reach: one more").click()
    expect(target).to_have_value("11")
    page.get_by_role("button", name="Points to reach: one more").click()
    expect(target).to_have_value("12")
    page.get_by_role("button", name="+ Bob", exact=True).click()
    expect(page.locator('input[name="seat"][value="Bob"]')).to_have_count(1)
    expect(target).to_have_value("12")
    press_start(page, "Fives")
    expect(page.locator(".fives-standings")).to_contain_text("needs 12")
