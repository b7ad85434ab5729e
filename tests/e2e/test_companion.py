"""Browser tests of the table companion: the pencil between phones, offline shell, install files."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.helpers import add_to_roster, go_offline, go_online, start_match
from tests.e2e.topic_helpers import topic_loser_button
from tests.helpers import PHONE, ref

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
    expect(other).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    expect(other.get_by_text("Only the scorekeeper's phone can enter rounds")).to_have_count(0)

    page.goto(match_url)
    expect(page.get_by_text("Only the scorekeeper's phone can enter rounds")).to_be_visible()
    page.get_by_role("link", name="Share · viewer QR").click()
    # The match page offers "Take the pencil back" too: the share page's own button, once that page is drawn.
    expect(page).to_have_url(match_url + "/share")
    page.locator("#pencil-panel").get_by_role("button", name="Take the pencil back").click()
    # Back on the match page (not the share page, where the text is never shown) before looking.
    expect(page).to_have_url(match_url)
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
    go_offline(page)
    page.goto(live_server.url + "/")
    expect(page.get_by_role("link", name="Table companion")).to_be_visible()
    page.goto(live_server.url + "/history-never-visited")
    expect(page.get_by_role("heading", name="No connection to the scorekeeper's server")).to_be_visible()
    go_online(page)


def test_viewer_sees_saved_undone_and_redone_rounds_within_two_seconds(
    page: Page, browser: Browser, live_server, app
):
    add_to_roster(app, "Ann", "Bob", "Cy")
    start_match(page, live_server.url, "Topic_", ["Ann", "Bob", "Cy"])
    viewer = phone(browser).new_page()
    viewer.goto(page.url)
    bob = viewer.get_by_role("list", name="Cards held").get_by_role("listitem").filter(has_text="Bob")
    expect(bob).to_contain_text("0")

    topic_loser_button(page, "Bob").click()
    expect(page.get_by_role("status").filter(has_text="Round 1")).to_be_visible()
    expect(bob).to_contain_text("1", timeout=2000)

    page.get_by_role("button", name="↶ Undo").click()
    expect(page.get_by_role("status").filter(has_text="Round 1 taken back")).to_be_visible()
    expect(bob).to_contain_text("0", timeout=2000)

    page.get_by_role("button", name="Redo").first.click()
    expect(bob).to_contain_text("1", timeout=2000)
    expect(viewer.locator("#entry form")).to_have_count(0)


def test_a_match_started_scored_and_shared_by_its_address(page: Page, browser: Browser, live_server, app):
    add_to_roster(app, "Ann", "Bob", "Cy")
    match_id = start_match(page, live_server.url, "Topic_", ["Ann", "Bob", "Cy"])
    match_url = page.url
    # The address names the match by an opaque text, not by its id.
    assert match_url == f"{live_server.url}/matches/{ref(match_id)}" and not match_url.endswith(f"/{match_id}")
    topic_loser_button(page, "Bob").click()
    expect(page.get_by_role("status").filter(has_text="Round 1")).to_be_visible()

    page.get_by_role("link", name="Share · viewer QR").click()
    expect(page.get_by_role("img", name="QR code of the viewer link")).to_be_visible()
    shared = page.get_by_role("link", name=re.compile(rf"matches\/{ref(match_id)}$")).get_attribute("href")
    viewer = phone(browser).new_page()
    viewer.goto(shared)
    bob = viewer.get_by_role("list", name="Cards held").get_by_role("listitem").filter(has_text="Bob")
    expect(bob).to_contain_text("1")

    # The viewer's page follows the match by polling its address: the next round reaches it.
    page.get_by_role("link", name=re.compile("^← Topic_")).click()
    expect(page).to_have_url(match_url)
    topic_loser_button(page, "Bob").click()
    expect(page.get_by_role("status").filter(has_text="Round 2")).to_be_visible()
    expect(bob).to_contain_text("2")
    # The match file is reached by the same address.
    assert viewer.request.get(f"{match_url}.json").json()["game"] == "topic"


def correct(tab: Page, untick: str, tick: str) -> None:
    """On a Topic_ correction page: change who lost, then Save correction."""
    form = tab.locator("form.correcting")
    form.get_by_role("checkbox", name=untick, exact=True).click()
    form.get_by_role("checkbox", name=tick, exact=True).click()
    form.get_by_role("button", name="Save correction").click()


def test_correction_is_logged_and_a_second_editor_is_refused(page: Page, live_server, app, browser_faults):
    # The second editor's correction is refused with a 409, which the browser logs.
    browser_faults.expect("Failed to load resource: the server responded with a status of 409 (CONFLICT)")
    add_to_roster(app, "Ann", "Bob", "Cy")
    start_match(page, live_server.url, "Topic_", ["Ann", "Bob", "Cy"])
    match_url = page.url
    topic_loser_button(page, "Bob").click()
    expect(page.get_by_role("status").filter(has_text="Round 1")).to_be_visible()

    # The same scorekeeper's phone with the round open twice (two tabs, or two hands).
    other = page.context.new_page()
    for tab in (page, other):
        tab.goto(match_url + "/rounds/1")
        expect(tab.get_by_role("heading", name="Correct round 1")).to_be_visible()

    correct(page, untick="Bob", tick="Cy")
    expect(page).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    expect(page.locator("#rounds")).to_contain_text("corrected")

    correct(other, untick="Bob", tick="Ann")
    expect(other.get_by_role("alert")).to_contain_text("This round changed meanwhile")
    # The refused page shows the round as it now stands, for the second editor to start from.
    expect(other.get_by_role("heading", name="Correct round 1")).to_be_visible()

    page.get_by_role("link", name="Change log").click()
    # The change log says what the correction changed, as a score sheet would: Bob's card went to Cy.
    expect(page.locator(".change-log li").first).to_have_text(
        re.compile(r"Round 1 · \d\d:\d\d · corrected · Bob 1 → 0, Cy 0 → 1")
    )
