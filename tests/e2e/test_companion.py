"""Browser tests of the table companion: the pencil between phones, offline shell, install files."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import PHONE
from tests.e2e.helpers import add_to_roster, start_match

pytestmark = pytest.mark.e2e


def phone(browser: Browser):
    """A second phone at the table: its own cookies, same size."""
    return browser.new_context(viewport=PHONE, has_touch=True, locale="en-GB")


def test_pencil_goes_to_another_phone_and_back(page: Page, browser: Browser, live_server, app):
    add_to_roster(app, "Ann", "Bob", "Cy")
    start_match(page, live_server.url, "Topic_", ["Ann", "Bob", "Cy"])
    match_url = page.url
    page.get_by_role("link", name="Share · viewer QR").click()
    expect(page.get_by_role("img", name="QR code of the viewer link")).to_be_visible()
    page.get_by_role("button", name="Show the pencil code").click()
    expect(page.get_by_role("img", name="QR code of the pencil link")).to_be_visible()
    pencil_link = page.get_by_role("link", name="Pencil link").get_attribute("href")

    other = phone(browser).new_page()
    other.goto(match_url)
    expect(other.get_by_text("Only the scorekeeper's phone can enter rounds")).to_be_visible()
    other.goto(pencil_link)
    other.get_by_role("button", name="Take the pencil").click()
    expect(other).to_have_url(re.compile(r"/matches/\d+$"))
    expect(other.get_by_text("Only the scorekeeper's phone can enter rounds")).to_have_count(0)

    page.goto(match_url)
    expect(page.get_by_text("Only the scorekeeper's phone can enter rounds")).to_be_visible()
    page.get_by_role("link", name="Share · viewer QR").click()
    page.get_by_role("button", name="Take the pencil back").click()
    expect(page.get_by_text("Only the scorekeeper's phone can enter rounds")).to_have_count(0)
    other.reload()
    expect(other.get_by_text("Only the scorekeeper's phone can enter rounds")).to_be_visible()


def test_viewer_write_is_refused_with_403(page: Page, browser: Browser, live_server, app):
    add_to_roster(app, "Ann", "Bob")
    start_match(page, live_server.url, "Topic_", ["Ann", "Bob"])
    viewer = phone(browser).new_page()
    viewer.goto(page.url)
    token = viewer.locator("body").get_attribute("hx-headers").split('"')[3]
    response = viewer.request.post(page.url + "/undo", headers={"X-CSRFToken": token})
    assert response.status == 403
    assert "Only the scorekeeper" in response.text()


def test_shell_loads_offline_after_a_visit(page: Page, live_server, app):
    page.goto(live_server.url + "/")
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null || "
                           "navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    page.context.set_offline(True)
    page.goto(live_server.url + "/")
    expect(page.get_by_role("link", name="Table companion")).to_be_visible()
    page.goto(live_server.url + "/history-never-visited")
    expect(page.get_by_role("heading", name="No connection to the scorekeeper's server")).to_be_visible()
    page.context.set_offline(False)


def loser_button(page: Page, name: str):
    """The Topic_ scorekeeper's one-tap button for a player who lost the round."""
    return page.locator("#entry").get_by_role("button", name=re.compile(rf"^{name} \d+ cards?$"))


def test_viewer_sees_saved_undone_and_redone_rounds_within_two_seconds(
    page: Page, browser: Browser, live_server, app
):
    add_to_roster(app, "Ann", "Bob", "Cy")
    start_match(page, live_server.url, "Topic_", ["Ann", "Bob", "Cy"])
    viewer = phone(browser).new_page()
    viewer.goto(page.url)
    bob = viewer.get_by_role("list", name="Cards held").get_by_role("listitem").filter(has_text="Bob")
    expect(bob).to_contain_text("0")

    loser_button(page, "Bob").click()
    expect(page.get_by_role("status").filter(has_text="Round 1")).to_be_visible()
    expect(bob).to_contain_text("1", timeout=2000)

    page.get_by_role("button", name="↶ Undo").click()
    expect(page.get_by_role("status").filter(has_text="Round 1 taken back")).to_be_visible()
    expect(bob).to_contain_text("0", timeout=2000)

    page.get_by_role("button", name="Redo").first.click()
    expect(bob).to_contain_text("1", timeout=2000)
    expect(viewer.locator("#entry form")).to_have_count(0)
