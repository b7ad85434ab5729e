"""The hall screen in Chromium, opened by its hall link on a TV and a laptop: the grid and the standings, a table
confirmed on the server shown without a tap, the standings paged by themselves, "Reconnecting…" through a network cut.
One evening of 40 pairs for the whole module: 20 tables, 17 counted, 3 waiting for their confirmation."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.extensions import db
from companion.models import Match, utcnow
from companion.models.club import ClubEvening, ClubLog
from companion.services import club, club_clock, matches
from companion.web.groups import hall_token
from tests.e2e.audit import audit_layout
from tests.e2e.helpers import NETWORK_CUT

pytestmark = pytest.mark.e2e

PAIRS = [([f"Rossi {n:02d}", f"Bianchi {n:02d}"], "Arona" if n % 4 == 0 else None) for n in range(38)]
# Two pairs with 40-character names: they wrap between their words, never cut.
PAIRS += [
    ([f"Gianfranco Della Valle Bonaventura Sq {n}", f"Maddalena Della Valle Bonaventura Squa {n}"], None)
    for n in (1, 2)
]
NAMES = [name for players, _ in PAIRS for name in players]
PLAN = {"game": "burraco", "pairs": True, "turns": 2, "hands": 2, "first": "mitchell", "then": "mitchell"}
TV, LAPTOP = {"width": 1920, "height": 1080}, {"width": 1280, "height": 720}
WAITING = (18, 19, 20)
HAND = {"sides": {"N/S": {"table": 150, "hand": 0}, "E/W": {"table": 90, "hand": 0}}, "closed_by": None}
# How many lines an element's text takes: the distinct tops of its text's boxes.
LINES = """element => {
  const range = document.createRange();
  range.selectNodeContents(element);
  return new Set([...range.getClientRects()].map(box => Math.round(box.top))).size;
}"""


@pytest.fixture(scope="module")
def app(module_app):
    return module_app


@pytest.fixture(scope="module")
def live_server(module_live_server):
    return module_live_server


@pytest.fixture(scope="module")
def hall(app, live_server) -> str:
    """The evening's hall link: turn 1 played at every table, counted at all but the last three, drawn long ago."""
    with app.app_context():
        evening = club.create_evening("Regionale", PLAN, PAIRS)
        club.start(evening)
        for table in [t for t in evening.tables if t.number]:
            match = db.session.get(Match, table.match_id)
            for _ in range(2):
                matches.save_round(match, HAND)
            if table.number not in WAITING:
                club.confirm_as_arbiter(evening, 1, table.number)
        db.session.execute(db.update(ClubLog).values(at=utcnow() - timedelta(minutes=10)))
        db.session.commit()
        link = f"{live_server.url}/evenings/{evening.public_id}/hall?hall_key={hall_token(evening.public_id, 0)}"
        db.session.remove()
    return link


def screen(browser: Browser, link: str, size: dict, **options) -> Page:
    """A TV or a laptop by the door that opened the hall link; its clock installed where a test turns it."""
    page = browser.new_context(viewport=size).new_page()
    if options.get("clock"):
        page.clock.install()
    page.goto(link)
    return page


def cell(page: Page, number: int):
    return page.locator(".hall-cell").filter(has=page.locator("strong", has_text=re.compile(rf"^{number}$")))


def test_the_grid_and_the_standings_appear(browser: Browser, hall: str):
    page = screen(browser, hall, TV)
    expect(page.get_by_role("heading", name=re.compile("^Tables"))).to_be_visible()
    expect(page.get_by_role("heading", name=re.compile("^Standings"))).to_be_visible()
    expect(page.locator(".hall-head")).to_contain_text("Turn 1 of 2 · 17 of 20 tables counted")
    expect(page.locator(".hall-cell:visible")).to_have_count(20)
    expect(cell(page, 1)).to_contain_text("confirmed")
    expect(cell(page, 18)).to_contain_text("waiting for confirmation")
    expect(page.locator(".hall-legend")).to_contain_text("waiting for confirmation: 3")
    expect(page.locator(".hall-standings li:visible").first).to_contain_text("TP")
    audit_layout(page, NAMES, sizes=(TV, LAPTOP))
    # The whole screen and no more: no scrollbar on the TV, its title and clock never scrolled out of sight.
    for size in (TV, LAPTOP):
        page.set_viewport_size(size)
        assert page.evaluate("document.documentElement.scrollHeight - innerHeight") <= 0, size
    page.context.close()


def test_a_table_confirmed_on_the_server_shows_without_a_tap(browser: Browser, hall: str, app):
    page = screen(browser, hall, TV)
    expect(cell(page, 19)).to_contain_text("waiting for confirmation")
    with app.app_context():
        club.confirm_as_arbiter(db.session.scalars(db.select(ClubEvening)).one(), 1, 19)
        db.session.remove()
    expect(cell(page, 19)).to_contain_text("confirmed", timeout=6000)
    expect(page.locator(".hall-head")).to_contain_text("18 of 20 tables counted")
    # The poll's swap drew the region once: one grid, one standings, one legend.
    for part in (".hall-grid", ".hall-standings", ".hall-legend", ".hall-head"):
        expect(page.locator(part)).to_have_count(1)
    page.context.close()


def test_the_standings_page_by_themselves_when_they_do_not_fit(browser: Browser, hall: str):
    page = screen(browser, hall, LAPTOP, clock=True)
    label = page.locator('[data-pager-label="standings"]')
    expect(label).to_have_text(re.compile(r"^page 1 of [2-9]$"))
    pages = int(label.inner_text().rsplit(" ", 1)[1])
    rows = page.locator(".hall-standings li")
    first_shown = rows.filter(visible=True).first.inner_text()
    # A page holds what the screen's height does: every line shown is inside the panel, and it is full (less than
    # a line's room left below the last; a 40-character pair may take two).
    box = page.locator('[data-pager="standings"]').bounding_box()
    last = rows.filter(visible=True).last.bounding_box()
    assert box["y"] + box["height"] - 2 * last["height"] <= last["y"] + last["height"] <= box["y"] + box["height"] + 1
    page.clock.fast_forward(10_500)
    expect(label).to_have_text(f"page 2 of {pages}")
    assert rows.filter(visible=True).first.inner_text() != first_shown
    for shown in (*range(3, pages + 1), 1):
        page.clock.fast_forward(10_000)
        expect(label).to_have_text(f"page {shown} of {pages}")
    page.context.close()


def test_reconnecting_while_the_network_is_cut(browser: Browser, hall: str, browser_faults):
    for text in NETWORK_CUT:
        browser_faults.expect(text, may_not_come=True)
    page = screen(browser, hall, TV)
    reconnecting = page.get_by_text("Reconnecting…")
    expect(page.locator(".hall-cell").first).to_be_visible()
    expect(reconnecting).to_be_hidden()
    page.context.set_offline(True)
    expect(reconnecting).to_be_visible(timeout=6000)
    # The last picture stays.
    expect(page.locator(".hall-cell:visible")).to_have_count(20)
    page.context.set_offline(False)
    expect(reconnecting).to_be_hidden(timeout=6000)
    page.context.close()


def test_time_up_keeps_the_clocks_words_on_one_line_and_the_pages_their_rows(browser: Browser, hall: str, app):
    with app.app_context():
        evening = db.session.scalars(db.select(ClubEvening)).one()
        club_clock.run_clock(evening, "start")
        db.session.remove()
    page = screen(browser, hall, LAPTOP)
    words = page.locator(".hall-clock .club-clock-words")
    expect(words).to_have_text("left in the turn")
    running = page.locator(".hall-head").bounding_box()["height"]
    with app.app_context():
        club_clock.run_clock(db.session.scalars(db.select(ClubEvening)).one(), "end")
        db.session.remove()
    expect(words).to_have_text("Time is up: the hand being played is the last", timeout=6000)
    for size in (TV, LAPTOP):
        page.set_viewport_size(size)
        assert words.evaluate(LINES) == 1, size
    assert page.locator(".hall-head").bounding_box()["height"] == running
    page.context.close()
