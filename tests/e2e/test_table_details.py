"""Browser tests of the small faults of a third evening at the table, in real Chromium at 360 and 390 px:
the result card opened as a page, the replay's heading, the chart's axis labels, long names."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import LONG_NAMES, server_match_with_pencil
from tests.helpers import finished_match, ref

pytestmark = pytest.mark.e2e

WIDTHS = (360, 390)


def phone(browser: Browser, width: int, locale: str = "en-GB") -> Page:
    """A phone of this width, in this language."""
    return browser.new_context(viewport={"width": width, "height": 800}, has_touch=True, locale=locale).new_page()


def test_the_result_card_opened_as_a_page_raises_no_console_error(browser: Browser, live_server, app):
    # The guard of tests/e2e/conftest.py fails the test for any console error the image's page logs (before the
    # fix: its policy refused the styles Chromium's own image viewer puts on the page, and /favicon.ico was a 404).
    match_id, _players, _settings, _rounds = finished_match(app, "topic")
    for width in WIDTHS:
        for theme in ("light", "dark"):
            page = phone(browser, width)
            answer = page.goto(f"{live_server.url}/matches/{ref(match_id)}/card.png?theme={theme}")
            assert answer.status == 200 and answer.headers["content-type"] == "image/png"
            expect(page.locator("img")).to_have_count(1)
            # A tap zooms the card in, another back out: each a style of the image viewer's own.
            page.locator("img").click()
            page.locator("img").click()
            page.wait_for_load_state("networkidle")
            page.context.close()


# Each line box of the replay's heading, with the words drawn on it; and the separator "·" as drawn: where it
# starts a line, the heading clips it (it lies left of the heading's box), else it sits on the first line.
HEADING_LINES = """(heading) => {
  const range = document.createRange();
  const lines = new Map();
  const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
  const box = heading.getBoundingClientRect();
  while (walker.nextNode()) {
    const node = walker.currentNode;
    for (let i = 0; i < node.data.length; i++) {
      if (!node.data[i].trim()) continue;
      range.setStart(node, i); range.setEnd(node, i + 1);
      const r = range.getClientRects()[0];
      if (!r) continue;
      const top = Math.round(r.top);
      if (!lines.has(top)) lines.set(top, []);
      lines.get(top).push({ch: node.data[i], left: r.left, right: r.right});
    }
  }
  const ordered = [...lines.entries()].sort((a, b) => a[0] - b[0]).map(([top, chars]) => chars);
  return ordered.map(chars => chars.filter(c => c.right > box.left + 0.5 && c.left < box.right - 0.5)
                                   .map(c => c.ch).join(""));
}"""


@pytest.mark.parametrize("locale", ["en-GB", "it-IT"])
def test_the_replay_heading_never_starts_a_line_with_its_dot(browser: Browser, live_server, app, locale):
    match_id, _players, _settings, _rounds = finished_match(app, "topic", rounds_at_least=12)
    for width in WIDTHS:
        page = phone(browser, width, locale)
        page.goto(f"{live_server.url}/matches/{ref(match_id)}")
        heading = page.locator("#replay-title")
        expect(heading).to_be_visible()
        for step in ("the last round", "a round back"):
            lines = heading.evaluate(HEADING_LINES)
            assert lines and all(not line.startswith("·") for line in lines), (width, locale, step, lines)
            # Back a round by the replay's own button: the heading is drawn again by the swap.
            shown = heading.text_content()
            page.locator("#replay-previous").click()
            expect(heading).not_to_have_text(shown)
        page.context.close()


# Each axis label's box beside the chart's lines: the horizontal guides (the y axis's, the plot's left edge where
# they start) and the vertical ones (the x axis's, the plot's bottom where they end).
CHART_BOXES = """(svg) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
  const guides = [...svg.querySelectorAll('path')].filter(p => p.getAttribute('stroke') === 'currentColor').map(box);
  const across = guides.filter(g => g.b - g.t < 1), down = guides.filter(g => g.r - g.l < 1);
  const texts = [...svg.querySelectorAll('text')].map(t => ({text: t.textContent, ...box(t)}));
  return {plotLeft: Math.min(...across.map(g => g.l)), plotBottom: Math.max(...down.map(g => g.b)),
          texts, across: across.length, down: down.length};
}"""


def test_the_charts_axis_labels_stand_clear_of_the_axes(browser: Browser, live_server, app):
    match_id, _players, _settings, _rounds = finished_match(app, "topic", rounds_at_least=12)
    for width in WIDTHS:
        page = phone(browser, width)
        page.goto(f"{live_server.url}/matches/{ref(match_id)}")
        chart = page.locator("svg.totals-chart")
        chart.scroll_into_view_if_needed()
        drawn = chart.evaluate(CHART_BOXES)
        assert drawn["across"] and drawn["down"], drawn
        # y labels: left of the plot, their right edge clear of where the guides start.
        left_of_plot = [t for t in drawn["texts"] if t["b"] <= drawn["plotBottom"] + 2]
        below_plot = [t for t in drawn["texts"] if t["t"] >= drawn["plotBottom"] - 2]
        assert len(left_of_plot) >= 3 and len(below_plot) >= 3, drawn
        for label in left_of_plot:
            assert label["r"] <= drawn["plotLeft"] - 1, (width, "y label over the axis", label, drawn["plotLeft"])
        for label in below_plot:
            assert label["t"] >= drawn["plotBottom"] + 1, (width, "x label over the axis", label, drawn["plotBottom"])
        # And no two labels over each other.
        for i, one in enumerate(drawn["texts"]):
            for other in drawn["texts"][i + 1:]:
                apart = (one["r"] <= other["l"] or other["r"] <= one["l"]
                         or one["b"] <= other["t"] or other["b"] <= one["t"])  # fmt: skip
                assert apart, (width, "labels over each other", one, other)
        page.context.close()


PHONES = ({"width": 360, "height": 740}, {"width": 390, "height": 844})

# The names' texts the page cuts with an ellipsis where it need not: a name of several words (which could wrap
# between them instead), or a single word that a line of the phone could hold whole. Only a word longer than a
# line may be cut (its whole name is in its title).
NEEDLESS_CUTS = """([names, root]) => {
  const found = [];
  const room = window.innerWidth - 48;
  const places = [...document.querySelectorAll(root)];
  for (const el of places.flatMap(place => [place, ...place.querySelectorAll('*')])) {
    const style = getComputedStyle(el);
    if (style.textOverflow !== 'ellipsis' || !['hidden', 'clip'].includes(style.overflowX)) continue;
    if (el.scrollWidth <= el.clientWidth + 1 || !el.checkVisibility()) continue;
    const text = el.textContent.replace(/\\s+/g, ' ').trim().replace(/^\\+ /, '');
    if (!text || !names.some(name => name.includes(text) || text.includes(name))) continue;
    if (text.includes(' ')) found.push(`"${text}" cut instead of wrapped between its words`);
    else if (el.scrollWidth <= room) found.push(`"${text}" cut though a line holds it (${el.scrollWidth}/${room} px)`);
  }
  return found;
}"""


def needless_cuts(page: Page, names: list[str], place: str, root: str) -> list[str]:
    """Each needless cut of a name inside `root` (a selector), at 360 and 390 px, named by its place."""
    found = []
    assert page.locator(root).count(), f"{place}: nothing on the page is {root}"
    for size in PHONES:
        page.set_viewport_size(size)
        found += [f"{place} at {size['width']} px: {cut}" for cut in page.evaluate(NEEDLESS_CUTS, [names, root])]
    return found


def test_long_names_are_never_cut_inside_a_word(page: Page, live_server, app):
    # 40 characters each, half of them one unbroken word: wrapped between words, or cut with an ellipsis.
    names = LONG_NAMES[:4]
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", names, rounds=2)
    where = f"{live_server.url}/matches/{ref(match_id)}"
    found = []
    places = (("the rounds header", "", "#rounds summary"), ("Topic_'s correction picker", "/rounds/1", "main"),
              ("the table view", "/table", "main"))
    for place, path, root in places:
        page.goto(where + path)
        found += needless_cuts(page, names, place, root)
        try:
            audit_layout(page, names, sizes=PHONES)
        except AssertionError as fault:
            found.append(f"{place}: {fault}")
    assert not found, "\n".join(found)


# Each element of a place that its content overflows (wider inside than its box): a word drawn past its column's
# edge, or cut at it, is not whole on screen.
OVERFLOWS = """(root) => [...document.querySelectorAll(root)]
  .flatMap(place => [place, ...place.querySelectorAll('*')])
  .filter(el => el.checkVisibility() && el.scrollWidth > el.clientWidth + 1)
  .map(el => `<${el.tagName.toLowerCase()}.${el.className}> "${el.textContent.replace(/\u00ad/g, '')}"`
             + ` ${el.scrollWidth} px in ${el.clientWidth}`)"""


@pytest.mark.parametrize("game", ["burraco", "pazzaparola"])
def test_long_names_are_never_cut_in_a_rounds_tables_header(page: Page, live_server, app, game):
    # Four sides of 40 characters, half of them one word longer than a column: the columns keep their width (four
    # of them fit a 360 px phone: test_in_view.py), and a word too long for one breaks at its syllables with a
    # hyphen, never cut with an ellipsis (before: 4-4.6 rem columns cut "Fontanarossa" and the long words).
    names = LONG_NAMES[:4]
    match_id = server_match_with_pencil(page, app, live_server.url, game, names, rounds=2)
    found = []
    for language in ("en", "it"):
        page.context.add_cookies([{"name": "lang", "value": language, "url": live_server.url}])
        page.goto(f"{live_server.url}/matches/{ref(match_id)}")
        headers = page.locator("#rounds thead th.num")
        expect(headers.first).to_be_visible()
        assert sorted(headers.evaluate_all("hs => hs.map(h => h.title)")) == sorted(names)
        found += [f"{language}: {cut}" for cut in needless_cuts(page, names, "the rounds header", "#rounds thead")]
        for size in PHONES:
            page.set_viewport_size(size)
            found += [f"{language} at {size['width']} px: not whole: {fault}"
                      for fault in page.evaluate(OVERFLOWS, "#rounds thead")]  # fmt: skip
            for header in headers.all():
                left, right = header.evaluate("h => { const r = h.getBoundingClientRect(); return [r.left, r.right]; }")
                if left < 0 or right > size["width"]:
                    found.append(f"{language} at {size['width']} px: {header.get_attribute('title')} off screen")
        try:
            audit_layout(page, names, sizes=PHONES)
        except AssertionError as fault:
            found.append(f"{language}: the rounds header: {fault}")
    assert not found, "\n".join(found)


def test_a_long_group_name_is_never_cut_inside_a_word_in_the_header(browser: Browser, private_live_server):
    phone_page = phone(browser, 360)
    phone_page.goto(private_live_server.url + "/")
    name = "Circolo ricreativo Fontanarossa Bellinii"
    assert len(name) == 40
    phone_page.get_by_label("Name of the group").fill(name)
    phone_page.get_by_role("button", name="Start a group").click()
    expect(phone_page.locator("header .group-name")).to_contain_text("Circolo")
    found = needless_cuts(phone_page, [name], "the group name in the header", "header")
    try:
        audit_layout(phone_page, [name], sizes=PHONES)
    except AssertionError as fault:
        found.append(f"the group name in the header: {fault}")
    assert not found, "\n".join(found)
