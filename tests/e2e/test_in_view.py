"""Browser tests that every column, name and control of a match page is in view on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.audit import NARROW_PHONE
from tests.e2e.helpers import LONG_NAMES, add_to_roster, seat_players, server_match_with_pencil
from tests.helpers import ref

pytestmark = pytest.mark.e2e

# One app, database and server for all of this module's cases, each on a match of its own
# (tests/conftest.py's module_app): starting them was most of what a case cost.
@pytest.fixture
def app(module_app):
    return module_app


@pytest.fixture
def live_server(module_live_server):
    return module_live_server

FOUR = ["Tommaso", "Benedetta", "Lorenzo", "Francesca"]


def rounds_table(page: Page):
    """The match's rounds (hands) table."""
    return page.locator("#rounds table")


def across(locator) -> tuple[float, float]:
    """Where an element starts and ends across the screen, however far the page is scrolled down."""
    box = locator.evaluate("e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; }")
    return round(box[0]), round(box[1])


def assert_across_the_screen(page: Page, locator) -> None:
    """The element is wholly between the screen's left and right edges: no sideways scroll needed to reach it."""
    expect(locator).to_be_visible()
    left, right = across(locator)
    assert 0 <= left and right <= page.viewport_size["width"], (left, right)


# --- 27.4: columns and controls off-screen -------------------------------------------------------


@pytest.mark.parametrize("game", ["pazzaparola", "burraco"])
@pytest.mark.parametrize("width", [360, 390])
def test_four_players_columns_are_all_in_view_without_scrolling(page: Page, live_server, app, game, width):
    match_id = server_match_with_pencil(page, app, live_server.url, game, FOUR, rounds=2)
    page.set_viewport_size({"width": width, "height": 740})
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    headers = rounds_table(page).locator("thead th.num")
    expect(headers).to_have_count(4)
    for header in headers.all():
        assert_across_the_screen(page, header)
    for number in (1, 2):
        assert_across_the_screen(page, page.get_by_role("link", name=f"Edit round {number}"))
    expect(page.get_by_text("swipe the table")).to_be_hidden()


def test_pazaaks_two_40_character_names_fit_its_sets_table_without_a_swipe(page: Page, live_server, app):
    match_id = server_match_with_pencil(page, app, live_server.url, "pazaak", LONG_NAMES[:2], rounds=1)
    page.set_viewport_size(NARROW_PHONE)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    headers = rounds_table(page).locator("thead th.num")
    expect(headers).to_have_count(2)
    for header in headers.all():
        assert_across_the_screen(page, header)
    expect(page.get_by_text("swipe the table")).to_be_hidden()


@pytest.mark.parametrize("game, count", [("pazzaparola", 8), ("burraco", 5)])
def test_a_table_too_wide_says_so_and_keeps_each_rows_edit_in_view(page: Page, live_server, app, game, count):
    match_id = server_match_with_pencil(page, app, live_server.url, game, LONG_NAMES[:count], rounds=2)
    page.set_viewport_size(NARROW_PHONE)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    expect(page.get_by_text("More players to the right: swipe the table →")).to_be_visible()
    box = page.locator("#rounds .rounds-scroll")
    for edge in ("start", "end"):
        box.evaluate(f"e => {{ e.scrollLeft = {'0' if edge == 'start' else 'e.scrollWidth'}; }}")
        for number in (1, 2):
            assert_across_the_screen(page, page.get_by_role("link", name=f"Edit round {number}"))
        if edge == "end":
            last = rounds_table(page).locator("thead th.num").last
            expect(last).to_have_attribute("title", LONG_NAMES[count - 1])
            assert_across_the_screen(page, last)
    page.get_by_role("link", name="Edit round 2").click()
    expect(page).to_have_url(re.compile(r"/rounds/2"))
    back = page.get_by_role("link", name="Back to the match without changing it")
    assert back.bounding_box()["height"] >= 44  # a thumb's target, as every link standing alone on its line


@pytest.mark.parametrize("game", ["pazzaparola", "burraco", "topic", "pazaak"])
def test_each_rounds_edit_and_the_top_bars_preferences_are_thumbs_targets(page: Page, live_server, app, game):
    players = FOUR[:2] if game == "pazaak" else FOUR
    match_id = server_match_with_pencil(page, app, live_server.url, game, players, rounds=1)
    page.set_viewport_size(NARROW_PHONE)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    if game == "topic":  # its rounds are folded away for the scorekeeper
        page.locator(".topic-rounds summary").click()
    edit = page.get_by_role("link", name="Edit round 1")
    expect(edit).to_be_visible()
    for target in (edit, page.get_by_role("link", name="Preferences")):
        box = target.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44, box


# --- 27.5: names break between words only --------------------------------------------------------
# (and, in a rounds table's header, a word too long for its column between its syllables too: at the soft hyphens
# the page put there, issue 42)

SPLIT_WORDS = """(roots) => {
  const split = [];
  for (const root of document.querySelectorAll(roots)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement.getClientRects().length || node.parentElement.closest(".visually-hidden")) continue;
      for (const match of node.textContent.matchAll(/[^\\s\\u00ad]+/g)) {
        // The line of each of its letters (the last box of its range: a letter just after a soft hyphen the line
        // broke at also has the drawn hyphen's box, on the line before).
        const lines = new Set();
        let at = match.index;
        for (const letter of match[0]) {
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + letter.length);
          const boxes = [...range.getClientRects()].filter((r) => r.width > 0);
          if (boxes.length) lines.add(Math.round(boxes[boxes.length - 1].top));
          at += letter.length;
        }
        if (lines.size > 1) split.push(match[0]);
      }
    }
  }
  return split;
}"""
NAMED = "#standings, #rounds thead, #rounds summary, .chart-legend, .topic-one, .topic-picks, .burraco-side legend"


@pytest.mark.parametrize("game, count", [("pazzaparola", 8), ("burraco", 5), ("topic", 10), ("pazaak", 2)])
@pytest.mark.parametrize("names", ["long", "short"])
def test_names_break_between_words_and_a_cut_word_keeps_the_whole_name(
    page: Page, live_server, app, game, count, names
):
    seated = LONG_NAMES[:count] if names == "long" else (FOUR * 3)[:count]
    if names == "short":
        seated = [f"{name} {index}" if index >= 4 else name for index, name in enumerate(seated)]
    match_id = server_match_with_pencil(page, app, live_server.url, game, seated, rounds=2)
    page.set_viewport_size(NARROW_PHONE)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    expect(page.locator("#standings")).to_be_visible()
    # The scorekeeper's own buttons never cut a name: eight long names alike read "Massimi…" on three cards.
    cut_on_the_entry = page.locator(".pz-pick, .topic-player-name, button[name=winner]").evaluate_all(
        "names => names.filter((n) => [n, ...n.querySelectorAll('*')].some((e) => e.getClientRects().length"
        "  && e.scrollWidth > e.clientWidth + 0.5)).map((n) => n.title)"
    )
    assert cut_on_the_entry == []
    if game == "topic":
        page.get_by_role("switch", name="Several losers").click()
    assert page.evaluate(SPLIT_WORDS, NAMED) == []
    # A word cut with an ellipsis sits in an element whose title is the whole name.
    cut = page.locator(".word").evaluate_all(
        "words => words.filter((w) => w.getClientRects().length && w.scrollWidth > w.clientWidth + 0.5)"
        "  .map((w) => [w.textContent, w.closest('[title]') && w.closest('[title]').title])"
    )
    for word, title in cut:
        assert title in seated and word in title.split(), (word, title)
    # Topic_'s "fewest" stays inside its tile.
    for tile in page.locator(".topic-hand").all():
        for mark in tile.locator(".topic-mark").all():
            assert (
                mark.bounding_box()["x"] + mark.bounding_box()["width"]
                <= tile.bounding_box()["x"] + tile.bounding_box()["width"] + 0.5
            )


def test_the_eldest_chips_wrap_a_long_name_between_its_words_uncut(page: Page, live_server, app):
    # Each word of a chip's name shrank alone with its ellipsis ("Alessa… D… Gherar…") in a chip two lines would fit.
    names = [LONG_NAMES[1], LONG_NAMES[3], "Ann"]
    add_to_roster(app, *names)
    page.set_viewport_size(NARROW_PHONE)
    seat_players(page, live_server.url, "Pazzaparola", names)
    chips = page.locator(".pz-eldest .pz-radio")
    expect(chips).to_have_count(4)
    cut = chips.locator(".word").evaluate_all("words => words.filter((w) => w.scrollWidth > w.clientWidth + 0.5)"
                                              "  .map((w) => w.textContent)")  # fmt: skip
    assert cut == []


def test_ten_long_names_in_the_seat_order_share_its_lines_each_whole_in_its_title(page: Page, live_server, app):
    # Each 40-character name took a line of its own: ten lines of seat order above the standings on a phone.
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", LONG_NAMES)
    page.set_viewport_size(NARROW_PHONE)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    chips = page.locator(".seat-order .seat-chip")
    expect(chips).to_have_count(10)
    assert [chip.get_attribute("title") for chip in chips.all()] == LONG_NAMES
    lines = {round(chip.bounding_box()["y"]) for chip in chips.all()}
    assert len(lines) == 5, lines
    for chip in chips.all():
        assert_across_the_screen(page, chip)


# --- 27.11: small but seen -------------------------------------------------------------------------


@pytest.mark.parametrize("width", [360, 1024])
def test_the_viewer_qr_code_is_drawn_in_the_middle_of_its_card(page: Page, live_server, app, width):
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", FOUR)
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{live_server.url}/matches/{ref(match_id)}/share")
    code = page.get_by_role("img", name="QR code of the viewer link")
    expect(code).to_be_visible()
    card, drawing = code.evaluate(
        "e => [e.closest('article').getBoundingClientRect(), e.querySelector('svg path').getBoundingClientRect()]"
        "  .map((r) => [r.left, r.right, r.width])"
    )
    assert abs((card[0] + card[1]) / 2 - (drawing[0] + drawing[1]) / 2) < 2, (card, drawing)
    assert drawing[2] >= min(0.6 * width, 300), drawing


def test_topic_late_penalty_switch_keeps_the_shape_of_a_switch(page: Page, live_server, app):
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", FOUR, rounds=1)
    page.set_viewport_size(NARROW_PHONE)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    switch = page.get_by_role("switch", name=re.compile("^For round 1, just played"))
    box = switch.bounding_box()
    assert box["height"] < 0.7 * box["width"], box


@pytest.mark.parametrize("width", [360, 390, 768])
def test_topics_fewest_badge_stays_inside_its_tile_in_italian(page: Page, live_server, app, width):
    names = ["Tommaso", "Benedetta", "Lorenzo", "Francesca", "Giacomo", "Margherita", "Alessandro", "Gianluca"]
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", names, rounds=1)
    page.context.add_cookies([{"name": "lang", "value": "it", "url": live_server.url}])
    page.set_viewport_size({"width": width, "height": 740})
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    marks = page.locator(".topic-hand .topic-mark")
    expect(marks.first).to_have_text("meno carte")
    past = page.locator(".topic-hand").evaluate_all(
        "tiles => tiles.flatMap((t) => [...t.querySelectorAll('.topic-mark')]"
        "  .map((m) => m.getBoundingClientRect().right - t.getBoundingClientRect().right)).filter((d) => d > 0.5)"
    )
    assert past == []


@pytest.mark.parametrize("width", [360, 390])
def test_the_new_match_add_button_says_add_on_one_line(page: Page, live_server, width):
    page.set_viewport_size({"width": width, "height": 740})
    page.goto(f"{live_server.url}/matches/new?game=pazzaparola")
    add = page.get_by_role("group").filter(has=page.get_by_label("New player name")).get_by_role("button", name="Add")
    expect(add).to_be_visible()
    lines = add.evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e); "
        "return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; }"
    )
    assert lines == 1
