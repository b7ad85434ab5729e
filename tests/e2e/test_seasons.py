"""A game's season on a small phone, reached from its ratings board, and printed on one A4 page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from companion.extensions import db
from tests.e2e.audit import audit_layout
from tests.helpers import played_match

pytestmark = pytest.mark.e2e

FIRST = ["Annalisa", "Bartolomeo", "Costanza", "Domitilla", "Ermenegildo", "Filomena"]
LAST = ["Abbondanza", "Bellincioni", "Castelfranchi", "Degl’Innocenti", "Evangelisti"]
# Thirty players, each in a match or two of Pazaak finished now (this month).
NAMES = [f"{first} {last}" for last in LAST for first in FIRST]


def pdf_pages(pdf: bytes) -> int:
    """How many pages a PDF Chromium printed has: its page objects (/Type /Page, not /Pages)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


@pytest.fixture
def thirty(app):
    """Fifteen Pazaak matches, two players each, and five more: thirty players in this month's season."""
    with app.app_context():
        for index in range(0, 30, 2):
            played_match("pazaak", NAMES[index : index + 2], [index % 4 // 2] * 2)
        for index in range(5):
            played_match("pazaak", [NAMES[index], NAMES[29 - index]], [0, 0])
        db.session.remove()


def test_the_season_at_360_px_reached_from_the_ratings_board(page: Page, live_server, thirty, browser_faults):
    # A wrong day is answered 400, which the browser logs.
    browser_faults.expect("Failed to load resource: the server responded with a status of 400 (BAD REQUEST)")
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/players/ratings/pazaak")
    page.get_by_role("link", name=re.compile("Season of Pazaak")).click()
    expect(page).to_have_url(re.compile(r"/players/seasons/pazaak$"))
    expect(page.get_by_role("heading", name="Season of Pazaak")).to_be_visible()
    table = page.get_by_role("table")
    expect(table.get_by_role("row")).to_have_count(31)
    # Annalisa Abbondanza won both her matches (four sets): of those with the most wins she comes first by name.
    # (A name's words may break at their syllables: soft hyphens, drawn only where a line breaks.)
    first = table.get_by_role("row").nth(1)
    assert re.search(r"Annalisa Abbondanza\s*2\s*2\s*4\s*\+\d+", first.inner_text().replace("\u00ad", ""))
    expect(page.get_by_role("link", name="This month")).to_have_attribute("aria-current", "page")
    audit_layout(page, NAMES)

    page.get_by_role("link", name="This year").click()
    expect(page).to_have_url(re.compile(r"/players/seasons/pazaak\?period=year$"))
    expect(page.get_by_role("link", name="This year")).to_have_attribute("aria-current", "page")
    expect(table.get_by_role("row")).to_have_count(31)

    page.get_by_role("textbox", name="From").fill("13/45/2025")
    page.get_by_role("textbox", name="From").press("Enter")
    expect(page.get_by_text("Not a date: write it as mm/dd/yyyy.")).to_be_visible()
    expect(page.get_by_role("textbox", name="From")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("table")).to_have_count(0)
    audit_layout(page, NAMES)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_season_of_thirty_players_prints_on_one_a4_page(page: Page, live_server, thirty, theme):
    page.context.add_cookies([{"name": "theme", "value": theme, "url": live_server.url}])
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/players/seasons/pazaak?period=year")
    expect(page.get_by_role("table").get_by_role("row")).to_have_count(31)
    page.emulate_media(media="print")
    # On paper: the table and its heading, no navigation, no form, no button.
    expect(page.get_by_role("navigation")).to_have_count(0)
    expect(page.get_by_role("button")).to_have_count(0)
    expect(page.get_by_role("heading", name="Season of Pazaak")).to_be_visible()
    table = page.get_by_role("table")
    assert table.bounding_box()["width"] <= page.evaluate("document.documentElement.clientWidth")
    assert pdf_pages(page.pdf(format="A4")) == 1
