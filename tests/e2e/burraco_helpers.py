"""Helpers for the browser tests of Burraco PAROLE: starting a match, its keypad, a side's card, a hand typed."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import press_start, seat_players

BURRACO_GAME_NAME = "Burraco PAROLE"
# Every name a page of the Burraco tests shows: the players and the pairs' teams.
BURRACO_NAMES = ["Ann", "Bob", "Cy", "Di", "Us", "Them"]


def start_burraco(page: Page, base: str, players: list[str], pairs: bool = False) -> int:
    """From the home page by taps: pick Burraco, seat the players, optionally play in pairs, start."""
    seat_players(page, base, BURRACO_GAME_NAME, players)
    if pairs:
        page.get_by_role("radio", name="In pairs").click()
        # The pairs proposed from the seats: 1 and 3 against 2 and 4.
        expect(page.get_by_label("Team of Ann & Cy")).to_have_value("Us")
        expect(page.get_by_label("Team of Bob & Di")).to_have_value("Them")
    else:
        expect(page.get_by_role("radio", name="In pairs")).to_be_disabled()
    return press_start(page, BURRACO_GAME_NAME, BURRACO_NAMES)


def side_named(side: str) -> re.Pattern:
    """A side's card by the name it starts with ("Us" is also inside "chiusura" of the closing group)."""
    # A slash escaped too: Playwright writes the pattern between slashes ("N/S", a club evening's pair).
    return re.compile(rf"^{re.escape(side).replace('/', chr(92) + '/')}\b")


def tap_burraco_keypad(page: Page, text: str) -> None:
    """Type a number or a sum on Burraco's on-screen keypad."""
    keypad = page.get_by_role("group", name="Keypad")
    for key in text:
        keypad.get_by_role("button", name=key, exact=True).click()


def enter_burraco_hand(page: Page, sides: dict[str, dict], closed_by: str | None) -> None:
    """Fill one hand by taps: keypad points, burraco steppers, who closed."""
    entry = page.locator("#entry")
    for side, line in sides.items():
        card = entry.get_by_role("group", name=side_named(side))
        for label, key in (("Laid on the table", "table"), ("Left in hand", "hand")):
            if line.get(key):
                card.get_by_label(label).click()
                tap_burraco_keypad(page, line[key])
                expect(card.get_by_label(label)).to_have_value(line[key])
        for kind, key in (("Clean (pulito)", "clean"), ("Dirty (sporco)", "dirty")):
            for _ in range(line.get(key, 0)):
                card.get_by_role("button", name=f"One more {kind} for {side}").click()
    entry.get_by_role("radio", name=closed_by or "Nobody", exact=True).click()
    audit_layout(page, BURRACO_NAMES)
