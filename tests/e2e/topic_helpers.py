"""Helpers for the browser tests of Topic_: taps counted in the page, a match started, a loser's button, cards held."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.audit import audit_layout

# Counts the taps the person makes (trusted clicks) in `window.topicTaps`, whatever element they land on.
COUNT_TAPS_SCRIPT = """() => {
  window.topicTaps = 0;
  document.addEventListener("click", (event) => { if (event.isTrusted) window.topicTaps += 1; }, true);
}"""


def start_topic(page: Page, base: str, players: list[str], deck_taps: list[str]) -> None:
    """Tap through the new-match page: Topic_, the players, the Exact chip, the deck steppers, Start."""
    page.goto(base + "/matches/new")
    page.get_by_role("button", name="Topic_", exact=True).tap()
    expect(page.get_by_role("button", name="Topic_", exact=True)).to_have_attribute("aria-pressed", "true")
    for name in players:
        page.get_by_role("button", name=f"+ {name}", exact=True).tap()
        expect(page.locator(f'input[name="seat"][value="{name}"]')).to_have_count(1)
    page.get_by_text("Exact", exact=True).tap()
    deck = page.get_by_label("Cards in the deck")
    expect(deck).to_be_visible()
    for label in deck_taps:
        before = deck.input_value()
        page.get_by_role("button", name=label, exact=True).tap()
        expect(deck).not_to_have_value(before)
    audit_layout(page, players)
    page.get_by_role("button", name="Start Topic_").tap()
    expect(page).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    audit_layout(page, players)


def topic_loser_button(page: Page, name: str):
    """The big one-tap button of a player in the Topic_ round entry ("Bob / 2 cards")."""
    return page.locator("#entry").get_by_role("button", name=re.compile(rf"^{name} \d+ cards?$"))


def topic_cards_held(page: Page, name: str):
    """A player's tile in Topic_'s cards-held list."""
    return page.get_by_role("list", name="Cards held").get_by_role("listitem").filter(has_text=name)
