"""Browser tests of a first evening at a real table: long names, the read-back in view, the table view."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from playwright.sync_api import Page, expect

from companion.extensions import db
from companion.models import Match
from companion.queries.matches import standings_of
from companion.services import pencil as pencil_service
from tests.e2e.audit import NARROW_PHONE, audit_layout
from tests.e2e.helpers import LONG_NAMES, luminance, server_match_with_pencil
from tests.helpers import ref, stored_match

pytestmark = pytest.mark.e2e

# One app, database and server for all of this module's cases, each on a match of its own
# (tests/conftest.py's module_app): starting them was most of what a case cost.
@pytest.fixture
def app(module_app):
    return module_app


@pytest.fixture
def live_server(module_live_server):
    return module_live_server


def pairs(names: list[str]) -> dict:
    """Burraco in pairs, the two teams named as long as names may be."""
    return {"teams": {LONG_NAMES[8]: [names[0], names[2]], LONG_NAMES[9]: [names[1], names[3]]}}


def sideways_scroll(page: Page) -> dict | None:
    """How far the page scrolls sideways, with the first elements past the right edge; None if it does not."""
    overflow = page.evaluate(
        """() => {
          const width = window.innerWidth;
          const wide = [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > width + 0.5 && getComputedStyle(e).position !== "fixed")
            .slice(0, 3).map((e) => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right));
          return {scroll: document.documentElement.scrollWidth, width, wide};
        }"""
    )
    return overflow if overflow["scroll"] > overflow["width"] else None


# --- 19.2: long names never push a page sideways -------------------------------------------------


MATCHES = [
    ("pazzaparola", 8, {}),
    ("burraco", 5, {}),
    ("burraco", 4, "pairs"),
    ("topic", 10, {}),
    ("pazaak", 2, {}),
]


def test_forty_character_names_never_scroll_a_page_sideways_at_360_px(page: Page, live_server, app):
    base = live_server.url
    page.set_viewport_size(NARROW_PHONE)
    pages: list[tuple[str, str]] = []
    for game, count, settings in MATCHES:
        names = LONG_NAMES[:count]
        extra = pairs(names) if settings == "pairs" else settings
        match_id = server_match_with_pencil(page, app, base, game, names, rounds=2, **extra)
        pages += [
            (f"{game} {count}", f"/matches/{ref(match_id)}"),
            (f"{game} {count} table view", f"/matches/{ref(match_id)}/table"),
            (f"{game} {count} share", f"/matches/{ref(match_id)}/share"),
            (f"{game} {count} change log", f"/matches/{ref(match_id)}/changes"),
        ]
    finished = server_match_with_pencil(page, app, base, "pazaak", LONG_NAMES[:2], rounds=3)
    with app.app_context():
        player_id = db.session.get(Match, finished).seats[0].player_id
    pages += [
        ("home", "/"),
        ("new match", "/matches/new"),
        ("new match with seats", "/matches/new?game=topic&" + "&".join(f"seat={n}" for n in LONG_NAMES)),
        ("finished pazaak", f"/matches/{ref(finished)}"),
        ("history", "/history"),
        ("players", "/players"),
        ("a player", f"/players/{ref(player_id, 'player')}"),
        ("preferences", "/preferences"),
    ]
    scrolling = {}
    for what, path in pages:
        response = page.goto(base + path)
        assert response.ok, (what, response.status)
        if found := sideways_scroll(page):
            scrolling[what] = found
        audit_layout(page, LONG_NAMES)
    assert scrolling == {}
    # A cut name keeps the whole of it a tap or a hover away.
    page.goto(base + f"/matches/{ref(finished)}")
    expect(page.locator(f'[title="{LONG_NAMES[0]}"]').first).to_be_attached()


# --- 19.8: after every save the read-back and its Undo are in view --------------------------------


def save_by_taps(page: Page, game: str, names: list[str]) -> None:
    """The last seat's round entered by taps, then Save, the page scrolled as far as the form took it."""
    entry = page.locator("#entry")
    if game == "topic":
        entry.get_by_role("button", name=re.compile("^" + re.escape(names[-1]))).first.click()
    elif game == "pazaak":
        entry.get_by_role("button", name=f"{names[1]} won").click()
    elif game == "pazzaparola":
        entry.get_by_role("group", name=names[-1], exact=True).get_by_role("button", name=names[-1]).click()
        page.get_by_role("group", name="Card points").get_by_role("button", name="5", exact=True).click()
        entry.get_by_role("button", name=re.compile(r"^Save round \d+")).click()
    else:
        field = entry.get_by_role("group", name=names[-1]).get_by_label("Laid on the table")
        field.click()
        keypad = page.get_by_role("group", name="Keypad")
        for key in "50":
            keypad.get_by_role("button", name=key, exact=True).click()
        entry.get_by_role("radio", name="Nobody", exact=True).click()
        entry.get_by_role("button", name=re.compile(r"^Save hand \d+")).click()


READBACK = {"topic": "Round 3:", "pazaak": "Set 3:", "pazzaparola": "Round 3:", "burraco": "Hand 3:"}


@pytest.mark.parametrize(
    "game, count", [("pazzaparola", 8), ("burraco", 5), ("topic", 10), ("pazaak", 2)], ids=lambda v: str(v)
)
def test_after_a_save_the_readback_and_its_undo_are_in_view(page: Page, live_server, app, game, count):
    names = [f"{name[:12].strip()}" for name in LONG_NAMES[:count]]
    match_id = server_match_with_pencil(page, app, live_server.url, game, names, rounds=2)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    audit_layout(page, names)
    save_by_taps(page, game, names)

    readback = page.locator("#banner .readback")
    expect(readback).to_contain_text(READBACK[game])
    expect(readback).to_be_in_viewport()
    expect(readback.get_by_role("button", name="Undo")).to_be_in_viewport()
    audit_layout(page, names)
    # The chart and its legend follow the standings after the save and after an undo.
    expect_legend_is_the_standings(page, app, match_id)
    readback.get_by_role("button", name="Undo").click()
    undone = page.locator("#banner .readback.undone")
    # Undo names what was taken back as the game calls it.
    expect(undone).to_contain_text({"burraco": "Hand", "pazaak": "Set"}.get(game, "Round") + " 3 taken back.")
    expect(undone).to_be_in_viewport()
    expect(undone.get_by_role("button", name="Redo")).to_be_in_viewport()
    audit_layout(page, names)
    expect_legend_is_the_standings(page, app, match_id)


def expect_legend_is_the_standings(page: Page, app: Flask, match_id: int) -> None:
    """The chart and its legend show each side's total as the server scores the match now."""
    with app.app_context():
        match = db.session.get(Match, match_id)
        rounds, totals, game = len(match.rounds), standings_of(match).totals, match.game
        db.session.remove()
    final = ", ".join(f"{side} {total}" for side, total in totals.items())
    steps = {"burraco": "hands", "pazaak": "sets"}.get(game, "rounds")
    expect(page.locator(".totals-chart")).to_have_attribute(
        "aria-label", f"Totals after each of {rounds} {steps}: {final}"
    )
    legend = page.locator(".chart-legend li")
    expect(legend).to_have_count(len(totals))
    for item, (side, total) in zip(legend.all(), totals.items(), strict=True):
        expect(item).to_have_text(f"{side} {total}")


# --- 19.7: the table view fits the table on a phone and a tablet, on its own dark board ---------

SCREENS = {
    "phone": {"width": 360, "height": 740},
    "phone on its side": {"width": 740, "height": 360},
    "tablet on its side": {"width": 1024, "height": 768},
    "tablet": {"width": 768, "height": 1024},
}


@pytest.mark.parametrize("count", [2, 10])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_table_view_fits_every_player_on_a_dark_board(page: Page, live_server, app, count, theme):
    game = "topic" if count == 10 else "pazaak"
    names = [name[:14].strip() for name in LONG_NAMES[: count - 1]] + [LONG_NAMES[count - 1]]
    match_id = server_match_with_pencil(page, app, live_server.url, game, names, rounds=2)
    page.context.add_cookies([{"name": "theme", "value": theme, "url": live_server.url}])
    for screen, size in SCREENS.items():
        page.set_viewport_size(size)
        page.goto(f"{live_server.url}/matches/{ref(match_id)}/table")
        assert sideways_scroll(page) is None, screen
        totals = page.locator(".table-scores .total")
        expect(totals).to_have_count(count)
        for index in range(count):
            expect(totals.nth(index)).to_be_in_viewport(ratio=1)
        board = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        title = page.locator(".table-title").evaluate("e => getComputedStyle(e).color")
        back = page.get_by_role("link", name="← Back")
        assert luminance(board) < 0.1, (screen, board)
        assert luminance(title) > 0.8, (screen, title)
        assert luminance(back.evaluate("e => getComputedStyle(e).color")) > 0.6, screen
        expect(back).to_be_in_viewport()
        # The round being played, as the game's entry counts them: Pazaak's sets.
        expect(page.locator(".table-title")).to_have_text(re.compile(r"· Round 3$" if game == "topic" else r"· Set 3$"))
        audit_layout(page, names)


# --- desktop: the Pazzaparola keypad never covers the word being typed --------------------------


def overlap(first: dict, second: dict) -> bool:
    """Whether two bounding boxes share any area."""
    return not (
        first["x"] + first["width"] <= second["x"]
        or second["x"] + second["width"] <= first["x"]
        or first["y"] + first["height"] <= second["y"]
        or second["y"] + second["height"] <= first["y"]
    )


@pytest.mark.parametrize("size", [{"width": 1280, "height": 800}, {"width": 1024, "height": 768}], ids=str)
def test_on_a_desktop_the_keypad_never_covers_the_active_word_field(page: Page, live_server, app, size):
    names = [name[:16].strip() for name in LONG_NAMES[:8]]
    match_id = server_match_with_pencil(page, app, live_server.url, "pazzaparola", names, rounds=2)
    page.set_viewport_size(size)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    keypad = page.locator(".pz-tray")
    for name in names:
        row = page.get_by_role("group", name=name, exact=True)
        row.get_by_role("button", name=name).click()
        word = row.get_by_role("textbox")
        word.click()
        word.fill("CUCINA")
        expect(word).to_be_in_viewport(ratio=1)
        expect(keypad).to_be_in_viewport()
        assert not overlap(word.bounding_box(), keypad.bounding_box()), name


# --- 19.6: a phone that lost the pencil says so where Save was ----------------------------------


def test_a_save_from_a_phone_that_lost_the_pencil_says_who_holds_it(page: Page, live_server, app, browser_faults):
    browser_faults.expect("Failed to load resource: the server responded with a status of 403 (FORBIDDEN)")
    names = [name[:12].strip() for name in LONG_NAMES[:10]]
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", names, rounds=2)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    with app.app_context():
        match = db.session.get(Match, match_id)
        pencil_service.take_pencil(match, pencil_service.offer_pencil(match))  # another phone scans the code
        db.session.remove()

    page.locator("#entry").get_by_role("button", name=re.compile("^" + re.escape(names[-1]))).first.click()
    notice = page.locator("#entry").get_by_role("alert")
    expect(notice).to_contain_text("Another phone holds the pencil.")
    expect(notice).to_be_in_viewport()
    audit_layout(page, names)
    expect(page.get_by_role("button", name="↶ Undo")).to_have_count(0)
    expect(page.locator("#waiting-rounds li")).to_contain_text("Needs a look: Another phone holds the pencil.")
    page.get_by_role("button", name="Take the pencil back").click()
    # The pencil is back: the round refused meanwhile goes out as typed, once, and the entry moves on.
    expect(page.get_by_role("heading", name="Who lost round 4?")).to_be_visible()
    expect(page.locator("#waiting-rounds li")).to_have_count(0)
    stored = stored_match(app, match_id).rounds
    assert len(stored) == 3 and stored[-1]["losers"] == [names[-1]]


def test_a_refused_save_is_told_in_view(page: Page, live_server, app, browser_faults):
    browser_faults.expect("Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)")
    names = [name[:12].strip() for name in LONG_NAMES[:10]]
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", names, rounds=2)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    page.get_by_role("switch", name="Several losers").click()
    save = page.get_by_role("button", name="Save round 3")
    save.click()
    refused = page.locator("#entry .entry-notice")
    expect(refused).to_have_text("Not saved: see the marked fields.")
    expect(refused).to_be_in_viewport()
    audit_layout(page, names)


# --- 27.1: the table view is the same however it is reached, every name readable ---------------

TABLE_NAMES = ["Tommaso", "Benedetta", "Lorenzo", "Francesca", "Giacomo", "Margherita", "Alessandro", "Gianluca",
               "Valentina", LONG_NAMES[1]]  # fmt: skip


def cut_words(page: Page) -> list[str]:
    """The words of the table's names that do not fit their tile (cut with an ellipsis)."""
    return page.locator(".table-scores .side .word").evaluate_all(
        "words => words.filter((w) => w.scrollWidth > w.clientWidth + 0.5).map((w) => w.textContent)"
    )


@pytest.mark.parametrize("size", [NARROW_PHONE, {"width": 1024, "height": 768}], ids=lambda s: f"{s['width']}px")
@pytest.mark.parametrize("reached", ["by its link", "by a reload"])
def test_the_table_view_reached_by_its_link_is_the_dark_board_with_every_name(
    page: Page, live_server, app, size, reached
):
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", TABLE_NAMES, rounds=2)
    page.context.add_cookies([{"name": "theme", "value": "light", "url": live_server.url}])
    page.set_viewport_size(size)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    page.get_by_role("link", name="Table view").click()
    expect(page).to_have_url(re.compile(r"/table$"))
    if reached == "by a reload":
        page.reload()
    expect(page.locator(".table-scores .total")).to_have_count(10)
    # The colour drawn behind the board: the body's, or the page's where the body has none (a browser's white).
    board = page.evaluate(
        "() => [document.body, document.documentElement].map((e) => getComputedStyle(e).backgroundColor)"
        "  .find((c) => c !== 'rgba(0, 0, 0, 0)') || 'rgb(255, 255, 255)'"
    )
    title = page.locator(".table-title").evaluate("e => getComputedStyle(e).color")
    assert luminance(board) < 0.1, board
    assert luminance(title) > 0.8, title
    expect(page.get_by_role("link", name="History")).to_be_hidden()
    for total in page.locator(".table-scores .total").all():
        expect(total).to_be_in_viewport(ratio=1)
    # Names of one word are whole; a 40-character name of several words takes two lines on a phone, then an
    # ellipsis, and three on a tablet, whose tiles have the room.
    assert cut_words(page) == []
    longest = page.locator(".table-scores .side").last
    expect(longest).to_have_attribute("title", TABLE_NAMES[-1])
    lines = longest.evaluate(
        "e => Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight))"
    )
    assert lines == (2 if size == NARROW_PHONE else 3), lines
    # Topic_'s own figure: the deck, as the match page counts it.
    expect(page.locator(".table-figure")).to_have_text("34 cards left in the deck")
    expect(page.locator(".table-figure")).to_be_in_viewport()
    audit_layout(page, TABLE_NAMES)
