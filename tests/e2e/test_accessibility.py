"""Accessibility in real Chromium: axe-core finds no serious or critical violation, keys work."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from companion.extensions import db
from companion.games import REGISTRY
from companion.models import Match, Player, utcnow, within_group
from companion.models.club import ClubEvening
from companion.services import matches
from tests.e2e.helpers import add_to_roster, serious_axe_violations, server_match_with_pencil, start_match
from tests.helpers import begun_evening, play_turns, ref

pytestmark = pytest.mark.e2e

# One app, database and server for all of this module's cases, each on a match of its own
# (tests/conftest.py's module_app): starting them was most of what a case cost.
@pytest.fixture
def app(module_app):
    return module_app


@pytest.fixture
def live_server(module_live_server):
    return module_live_server

PLAYERS = {"pazzaparola": 4, "burraco": 4, "topic": 4, "pazaak": 2}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_home_new_match_and_history_pass_axe(page: Page, live_server, app, scheme):
    # A match in progress in the history's list: its badge's green was 3.4:1 on the dark card.
    with app.app_context():
        matches.create_match("topic", ["Ann", "Bob"], None)
        db.session.remove()
    page.emulate_media(color_scheme=scheme)
    for path in ("/", "/matches/new", "/history", "/preferences"):
        page.goto(live_server.url + path)
        assert serious_axe_violations(page) == [], path


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("slug", list(REGISTRY))
def test_each_game_match_page_passes_axe(page: Page, live_server, app, slug, scheme):
    page.emulate_media(color_scheme=scheme)
    names = ["Ann", "Bob", "Cy", "Di"][: PLAYERS[slug]]
    add_to_roster(app, *names)
    start_match(page, live_server.url, REGISTRY[slug].name, names)
    assert serious_axe_violations(page) == []


@pytest.mark.parametrize(("state", "left"), [("warning", timedelta(minutes=3)), ("up", -timedelta(minutes=1))])
def test_a_club_tables_clock_passes_axe_in_the_dark(page: Page, live_server, app, state, left):
    # Its amber and red were the light page's, below 4.5:1 on the dark card.
    found = begun_evening(app)
    with app.app_context(), within_group(None):
        evening = db.session.scalars(select(ClubEvening).filter_by(public_id=found["evening"])).one()
        evening.clock_ends_at = utcnow() + left
        db.session.commit()
        db.session.remove()
    page.emulate_media(color_scheme="dark")
    page.goto(f"{live_server.url}/matches/{found['table']}")
    expect(page.locator(f"#club-table .club-clock.clock-{state}")).to_be_visible()
    assert serious_axe_violations(page) == []


def test_new_match_can_be_made_with_the_keyboard(page: Page, live_server, app):
    add_to_roster(app, "Ann", "Bob")
    page.goto(live_server.url + "/matches/new")
    page.get_by_role("button", name="Topic_", exact=True).focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Topic_", exact=True)).to_have_attribute("aria-pressed", "true")
    for name in ("Ann", "Bob"):
        page.get_by_role("button", name=f"+ {name}", exact=True).focus()
        page.keyboard.press("Enter")
        expect(page.locator(f'input[name="seat"][value="{name}"]')).to_have_count(1)
    page.get_by_role("button", name="Start Topic_").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_label("Seat order")).to_contain_text("2. Bob")


# Where the keyboard's focus is: the control, by its name and value (a button) or its link.
FOCUSED = "() => { const e = document.activeElement; return [e.tagName, e.name || e.getAttribute('href') || e.id]; }"


def test_a_keyboards_focus_stays_on_the_control_a_save_or_a_refusal_redrew(page: Page, live_server, app,
                                                                            browser_faults):  # fmt: skip
    # The loser's button went with the entry it was drawn in: the focus fell to the page's start, and the next Tab
    # began again at the top (a screen reader lost its place too).
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", ["Ann", "Bob", "Cy"])
    page.clock.install()
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    page.evaluate("document.getElementById('banner').dataset.probe = 'kept'")
    page.locator('#entry button[name="loser"][value="Bob"]').focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    expect(page.locator('#entry button[name="loser"][value="Bob"]')).to_be_focused()
    # The read-back came into the live region that was there (one arriving already full is not read), and steps
    # aside after a few seconds, its text still read at 4.5:1 (its faded grey was 3.1:1).
    readback = page.locator('#banner[data-probe="kept"][aria-live="polite"] .readback')
    expect(readback).to_contain_text("Round 1")
    page.clock.fast_forward(8_500)
    expect(readback).to_have_class(re.compile(r"\bfaded\b"))
    assert serious_axe_violations(page) == []
    # A refusal: the first field it marks takes the focus, read with its reason (the closer's radios had no mark).
    burraco = server_match_with_pencil(page, app, live_server.url, "burraco", ["Ann", "Bob"])
    page.goto(f"{live_server.url}/matches/{ref(burraco)}")
    save = page.get_by_role("button", name="Save hand 1")
    browser_faults.expect("Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)")
    save.focus()
    page.keyboard.press("Enter")
    closer = page.locator('input[name="closed_by"]').first
    expect(closer).to_be_focused()
    expect(closer).to_have_attribute("aria-invalid", "true")
    expect(closer).to_have_attribute("aria-describedby", "bu-closed-by-error")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_keyboard_sees_its_focus_ring_presses_a_link_drawn_as_a_button_and_lands_on_a_new_pages_heading(
    page: Page, live_server, app, scheme
):
    # Pico's ring was a 25-50 % tint of the page (1.4-1.8:1); Space did nothing on a link drawn as a button; a boosted
    # link left the focus nowhere, so a screen reader said nothing of the page it brought.
    page.emulate_media(color_scheme=scheme)
    page.goto(live_server.url + "/")
    new_match = page.get_by_role("button", name="New match")
    new_match.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    ring = new_match.evaluate("e => [getComputedStyle(e).outlineStyle, getComputedStyle(e).outlineWidth,"
                              " getComputedStyle(e).outlineColor]")  # fmt: skip
    assert ring == ["solid", "3px", "rgb(29, 78, 216)" if scheme == "light" else "rgb(147, 197, 253)"]
    page.keyboard.press(" ")
    expect(page).to_have_url(live_server.url + "/matches/new")
    history = page.get_by_role("navigation").get_by_role("link", name="History")
    history.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(live_server.url + "/history")
    expect(page.locator("#main h1")).to_be_focused()


def test_a_keyboards_focus_is_never_under_pazzaparolas_keypad_tray(page: Page, live_server, app):
    # The tray sticks to the screen's foot: Tab gave the focus to a word field it covered whole.
    names = ["Ann", "Bob", "Cy", "Dee", "Eve"]
    match_id = server_match_with_pencil(page, app, live_server.url, "pazzaparola", names)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    tray = page.locator(".pz-tray")
    for word in page.locator(".pz-row .pz-word").all():
        word.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        expect(word).to_be_focused()
        assert word.bounding_box()["y"] + word.bounding_box()["height"] <= tray.bounding_box()["y"] + 0.5


def test_pazzaparolas_other_value_keypad_keeps_a_keyboards_focus_and_closes_with_escape(
    page: Page, live_server, app
):
    # Enter on "0–99…" hid the key with its keypad and the focus fell to the page's start; Escape did nothing.
    match_id = server_match_with_pencil(page, app, live_server.url, "pazzaparola", ["Ann", "Bob"])
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    other, compose = page.get_by_role("button", name="Other value"), page.locator(".pz-compose")
    other.focus()
    page.keyboard.press("Enter")
    expect(compose.locator("button[data-digit='1']")).to_be_focused()
    page.keyboard.press("Escape")
    expect(compose).to_be_hidden()
    expect(other).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # the digit 1
    compose.get_by_role("button", name="Add").focus()
    page.keyboard.press("Enter")
    expect(other).to_be_focused()
    expect(page.locator(".pz-row.pz-active .pz-chip")).to_have_count(1)


def test_pazzaparolas_point_is_written_once_while_its_taker_stays_the_same(page: Page, live_server, app):
    # A live region, it was written again at every key pressed: a screen reader read "★ Ann" after each card.
    match_id = server_match_with_pencil(page, app, live_server.url, "pazzaparola", ["Ann", "Bob"])
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    point = page.locator(".pz-point")
    point.evaluate("e => { window.pointWrites = 0; new MutationObserver(() => window.pointWrites++)"
                   "  .observe(e, {childList: true, characterData: true, subtree: true}); }")  # fmt: skip
    for card in ("5", "3", "2"):
        page.locator(f".pz-keys button[data-points='{card}']").click()
    expect(point).to_have_text("★ Ann")
    assert page.evaluate("window.pointWrites") == 1


def test_a_counted_tables_panel_reflows_on_a_320_px_screen(page: Page, live_server, app):
    # Its points and tournament points each kept on one line widened the page to 335 px: a sideways scroll (and the
    # text cut) at 320 px, WCAG's reflow width.
    found = begun_evening(app)
    play_turns(app, found["evening"], 1)
    page.set_viewport_size({"width": 320, "height": 700})
    page.goto(f"{live_server.url}/matches/{found['table']}")
    expect(page.locator("#club-table .club-result")).to_contain_text("tournament points")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 320


def test_a_focused_link_on_the_arbiters_page_keeps_the_focus_as_a_table_changes(page: Page, live_server, app):
    # The arbiter's page is redrawn every 2 s when a table moves on: a focused link went with it, and the next Tab
    # jumped to the foot of the page.
    found = begun_evening(app)
    page.goto(f"{live_server.url}/evenings/{found['evening']}")
    link = page.locator(f'#evening-live a[href="/matches/{found["table"]}"]')
    link.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    expect(link).to_be_focused()
    hand = {"sides": {"N/S": {"table": 300, "hand": 0}, "E/W": {"table": 100, "hand": 0}}, "closed_by": None}
    with app.app_context(), within_group(None):
        matches.save_round(db.session.scalars(select(Match).filter_by(public_id=found["table"])).one(), hand)
        db.session.remove()
    expect(page.locator("#evening-live")).to_contain_text("hand 2 of 2")
    assert page.evaluate(FOCUSED) == ["A", f"/matches/{found['table']}"]


@pytest.mark.parametrize("slug", list(REGISTRY))
def test_a_long_match_too_wide_for_a_phone_can_be_scrolled_by_keyboard(browser, live_server, app, slug):
    """The rounds table of a finished match with the most players overflows a 360 px screen: its scrolling
    region takes the focus (and names itself), or a keyboard could not read its hidden columns."""
    from tests.helpers import finished_match

    match_id, players, _, _ = finished_match(app, slug, rounds_at_least=3, players_at_least=REGISTRY[slug].max_players)
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    with app.app_context():
        player_id = db.session.scalar(select(Player.id).where(Player.name == players[0]))
    for path in (
        f"/matches/{ref(match_id)}",
        f"/matches/{ref(match_id)}?round=2",
        "/players",
        f"/players/{ref(player_id, 'player')}",
    ):
        page.goto(live_server.url + path)
        assert serious_axe_violations(page) == [], path
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    for box in page.locator('.rounds-scroll[tabindex="0"]').all():
        box.focus()
        sideways = box.evaluate("(box) => box.scrollWidth > box.clientWidth + 1")
        page.keyboard.press("ArrowRight" if sideways else "ArrowDown")
        page.wait_for_function("(box) => box.scrollLeft > 0 || box.scrollTop > 0", arg=box.element_handle())
    context.close()
