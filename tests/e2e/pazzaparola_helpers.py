"""Helpers for the browser tests of Pazzaparola: the rulebook's round, counted taps, a match started, a round typed."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import press_start, seat_players

BEATLES = ["John", "Ringo", "Paul", "George"]
# The rulebook's example round: John's ZANZARA is 7+2+7+2+3 − 3 = 18; five cards each, the
# others' values picked to give its Ringo 14, Paul 10 and George 9.
PAZZAPAROLA_RULEBOOK_ROUND = {
    "John": [7, 2, 7, 2, 3],
    "Ringo": [5, 3, 3, 3, 3],
    "Paul": [3, 3, 3, 2, 2],
    "George": [3, 3, 2, 2, 2],
}


class TapCounter:
    """Every tap the test makes, counted, so a round's cost at the table can be measured."""

    def __init__(self, page: Page):
        self.page = page
        self.count = 0

    def __call__(self, target: Locator) -> None:
        target.click()
        self.count += 1

    def button(self, name: str) -> None:
        """Tap the button with exactly this accessible name."""
        self(self.page.get_by_role("button", name=name, exact=True))


def start_pazzaparola(page: Page, base: str, players: list[str], *, target: int = 3, eldest: str | None = None):
    """From the home page by taps: seat the players, step the victory points, pick the eldest, start."""
    seat_players(page, base, "Pazzaparola", players)
    victory = page.get_by_label("Victory points to win", exact=True)
    expect(page.get_by_label("Cards per player", exact=True)).to_have_value("8")
    expect(victory).to_have_value("3")
    for _ in range(abs(target - 3)):
        page.get_by_role("button", name=("More" if target > 3 else "Fewer") + " victory points to win").click()
    expect(victory).to_have_value(str(target))
    expect(page.get_by_role("radio", name="Not named")).to_be_checked()
    if eldest:
        page.get_by_role("radio", name=eldest).click()
        expect(page.get_by_role("radio", name=eldest)).to_be_checked()
    audit_layout(page, [*players, "Add"])
    return press_start(page, "Pazzaparola", players)


def enter_pazzaparola_round(
    page: Page, tap: TapCounter, rows: dict[str, list[int]], *, theme: str | None = None
) -> None:
    """Tap each player's row (the first is already active), then the points of its cards."""
    if theme:
        page.get_by_label("Theme").fill(theme)
    for position, (name, cards) in enumerate(rows.items()):
        row = page.get_by_role("group", name=name, exact=True)
        if position:
            tap(row.get_by_role("button", name=name, exact=True))
        expect(row.get_by_role("button", name=name, exact=True)).to_have_attribute("aria-pressed", "true")
        for points in cards:
            if 1 <= points <= 10:
                tap.button(str(points))
            else:
                tap.button("Other value")
                for digit in str(points):
                    tap.button(digit)
                tap.button("Add")
        expect(row.locator(".pz-chip")).to_have_count(len(cards))
        audit_layout(page, rows)


def pazzaparola_live_score(page: Page, name: str) -> Locator:
    """The live word score shown on a player's row."""
    return page.get_by_role("group", name=name, exact=True).locator(".pz-score-num")
