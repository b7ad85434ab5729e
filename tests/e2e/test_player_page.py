"""A player's page on a small phone: the results chart, partners apart from opponents, a merge confirmed first."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from companion.extensions import db
from companion.services import host, imports
from companion.services import matches as service
from tests.helpers import pairs_match, player_id, ref

pytestmark = pytest.mark.e2e


def test_a_players_page_at_360_px(page: Page, app, live_server, browser_faults):
    with app.app_context():
        imports.import_matches([pairs_match("p1", "Noi", "2025-03-01T20:00:00Z"),
                                pairs_match("p2", "Voi", "2025-03-02T20:00:00Z")])  # fmt: skip
        service.create_match("topic", ["Annie", "Bob", "Zed Maria Rossi"], {})
        db.session.remove()
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/host?token={host.new_link_token(app)}")
    page.get_by_role("button", name="Take host rights").click()
    expect(page.get_by_text("This phone has host rights.")).to_be_visible()
    page.goto(f"{live_server.url}/players/{ref(player_id(app, 'Ann'), 'player')}")

    chart = page.get_by_role("img", name=re.compile(r"Share of matches won after each of 2 finished matches: 50%"))
    expect(chart).to_be_visible()
    partners = page.get_by_role("table", name="With")
    expect(partners.get_by_role("row", name=re.compile(r"^Cy 2 1$"))).to_be_visible()
    expect(page.get_by_role("rowheader", name="Bob")).to_be_visible()
    expect(page.get_by_role("rowheader", name="Cy")).to_have_count(1)
    # The head-to-head's parts are headed smaller than the section they belong to.
    part, section = (page.get_by_role("heading", name=name) for name in ("With", "Head to head"))
    size = "heading => parseFloat(getComputedStyle(heading).fontSize)"
    assert part.evaluate(size) < section.evaluate(size)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    # A name refused: the page stays at its address (a reload does not send the form again), the field and its
    # reason brought into view, three screens down the page.
    address = page.url
    browser_faults.expect("Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)")
    page.get_by_label("Name", exact=True).fill("Bob")
    page.get_by_role("button", name="Rename").click()
    reason = page.locator("#rename-error")
    expect(reason).to_contain_text("Bob")
    expect(reason).to_be_in_viewport()
    expect(page.get_by_label("Name", exact=True)).to_be_focused()
    assert page.url == address
    page.reload()
    expect(page.get_by_label("Name", exact=True)).to_have_value("Ann")

    page.get_by_label("Merge another entry of the same person into Ann").select_option(label="Annie")
    page.get_by_role("button", name="Merge", exact=True).click()
    expect(page.get_by_role("heading", name="Merge Annie into Ann?")).to_be_visible()
    moved = "The 1 match of Annie moves to Ann, and the roster entry Annie is removed."
    expect(page.get_by_text(moved)).to_be_visible()
    page.get_by_role("button", name="Merge Annie into Ann").click()
    expect(page.get_by_role("status")).to_have_text("Merged Annie into Ann.")

    # A linked name is underlined whole: each word as the link is, and the spaces between them drawn in the link.
    page.goto(f"{live_server.url}/players")
    link = page.get_by_role("link", name="Zed Maria Rossi")
    assert link.evaluate("link => link.innerText") == "Zed Maria Rossi"
    underlined = link.locator(".word").evaluate_all("words => words.map(w => getComputedStyle(w).textDecorationLine)")
    assert underlined == ["underline"] * 3
