"""Browser test: a sentence's punctuation never starts a line alone after a name, nor a bracket ends one before it,
at any width."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, expect

from companion.extensions import db
from companion.services import matches as service
from tests.e2e.helpers import new_phone
from tests.helpers import ref

pytestmark = pytest.mark.e2e

# For every width from the element's own down to 160 px (half a small phone): each full stop, comma or closing bracket
# that follows a letter must sit on the same line as that letter, and an opening bracket on the line of the letter
# after it. Returns the first width and text where one
# did not, or null. Widths are set through the CSSOM, which the page's CSP allows.
ALONE_AT_SOME_WIDTH = """(element) => {
  const full = element.getBoundingClientRect().width;
  const chars = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) chars.push([node, i]);
  }
  const rect = ([node, i]) => {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    return range.getBoundingClientRect();
  };
  try {
    for (let width = Math.floor(full); width >= 160; width--) {
      element.style.width = width + "px";
      for (let k = 1; k < chars.length; k++) {
        const [node, i] = chars[k];
        const [before, j] = chars[k - 1];
        // A closing mark after a letter, or an opening bracket before one: the two on one line.
        const closing = /[.,)]/.test(node.data[i]) && /\\p{L}/u.test(before.data[j]);
        const opening = before.data[j] === "(" && /\\p{L}/u.test(node.data[i]);
        if (!closing && !opening) continue;
        const mark = rect(chars[k]), letter = rect(chars[k - 1]);
        if (mark.width && letter.width && mark.top > letter.bottom - 2) {
          return `${width} px: "${before.data[j]}${node.data[i]}" at ${k} in "${element.textContent.trim()}"`;
        }
      }
    }
    return null;
  } finally {
    element.style.width = "";
  }
}"""


def expect_punctuation_kept_with_names(element: Locator) -> None:
    """However narrow the box gets, no comma or full stop after a name wraps to a line of its own."""
    expect(element).to_be_visible()
    assert element.evaluate(ALONE_AT_SOME_WIDTH) is None


def test_a_full_stop_or_comma_stays_with_the_name_before_it(browser: Browser, app, live_server):
    names = ["Benedetta Cavalcanti", "Massimiliano", "Bruno"]
    with app.app_context():
        pazaak, _ = service.create_match("pazaak", names[:2], {})
        service.save_round(pazaak, {"winner": names[0]})
        topic, _ = service.create_match("topic", names, {})
        pazaak_id, topic_id = pazaak.id, topic.id
        teams = {"Us": names[:2], "Them": ["Ann", "Cy"]}
        pairs, _ = service.create_match("burraco", [names[0], "Ann", names[1], "Cy"], {"teams": teams})
        pairs_id = pairs.id
        db.session.remove()
    # In Italian the name ends the sentence: "Set 2: inizia Massimiliano."
    page = new_phone(browser, live_server.url, {"width": 360, "height": 740}, locale="it-IT")

    page.goto(f"{live_server.url}/matches/{ref(pazaak_id)}")
    summary = page.locator(".pazaak-summary")
    expect(summary).to_contain_text("inizia Massimiliano.")
    expect_punctuation_kept_with_names(summary)

    # The dealer's side in brackets: "dà le carte Benedetta Cavalcanti (Noi)", neither bracket alone on a line.
    page.goto(f"{live_server.url}/matches/{ref(pairs_id)}")
    dealer = page.locator("p", has=page.locator(".burraco-dealer"))  # the line's box, whose width the check narrows
    expect(dealer).to_contain_text("dà le carte Benedetta Cavalcanti (Noi)")
    expect_punctuation_kept_with_names(dealer)

    page.goto(f"{live_server.url}/history")
    players = page.locator(".history-players").filter(has_text="Bruno")
    expect(players).to_have_text("Benedetta Cavalcanti, Massimiliano, Bruno")
    expect_punctuation_kept_with_names(players)
    page.goto(f"{live_server.url}/matches/{ref(topic_id)}/share")
    expect_punctuation_kept_with_names(page.get_by_role("link", name="Benedetta Cavalcanti, Massimiliano, Bruno"))
