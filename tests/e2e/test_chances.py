"""The chances to win on the new-match form follow the players chosen, by taps alone, on a small phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from companion.extensions import db
from tests.e2e.audit import NARROW_PHONE, audit_layout
from tests.e2e.helpers import add_to_roster
from tests.helpers import played_match, predicted

pytestmark = pytest.mark.e2e

NAMES = ["Annalisa", "Bartolomeo", "Cy"]


def test_the_chances_change_as_players_are_chosen(page: Page, app, live_server):
    with app.app_context():
        # Annalisa beat Bartolomeo twice at Pazaak; Cy has never played it.
        played_match("pazaak", NAMES[:2], [0, 0])
        played_match("pazaak", NAMES[:2], [0, 0])
        db.session.remove()
    add_to_roster(app, "Cy")
    ann, bart = predicted(app, "pazaak", [["Annalisa"], ["Bartolomeo"]])
    ann_vs_cy, cy = predicted(app, "pazaak", [["Annalisa"], ["Cy"]])
    assert (ann, bart) != (ann_vs_cy, cy)

    page.set_viewport_size(NARROW_PHONE)
    page.goto(f"{live_server.url}/matches/new")
    page.get_by_role("button", name="Pazaak", exact=True).click()
    expect(page.get_by_role("button", name="Pazaak", exact=True)).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="+ Annalisa", exact=True).click()
    expect(page.locator('input[name="seat"][value="Annalisa"]')).to_have_count(1)
    chances = page.get_by_role("region", name="Chances to win")
    expect(chances).to_have_count(0)

    page.get_by_role("button", name="+ Bartolomeo", exact=True).click()
    expect(chances.get_by_role("listitem")).to_have_text([f"Annalisa {ann}%", f"Bartolomeo {bart}%"])
    expect(chances).to_contain_text("From the ratings at Pazaak.")
    audit_layout(page, NAMES)

    # Bartolomeo makes way for Cy: the chances are worked out again, Cy as a newcomer.
    page.get_by_role("button", name="Remove Bartolomeo").click()
    expect(chances).to_have_count(0)
    page.get_by_role("button", name="+ Cy", exact=True).click()
    expect(chances.get_by_role("listitem")).to_have_text([f"Annalisa {ann_vs_cy}%", f"Cy {cy}%"])
    expect(chances).to_contain_text("a player not rated yet counts as a newcomer")
    # Only taps: no text field took the focus, so no phone keyboard came up.
    expect(page.locator("input:focus, textarea:focus")).to_have_count(0)
    audit_layout(page, NAMES)


def test_burraco_in_pairs_shows_a_chance_per_pair(page: Page, app, live_server):
    seats = ["Ann", "Bob", "Cy", "Di"]
    with app.app_context():
        # Ann and Cy beat Bob and Di in pairs.
        played_match("burraco", seats, [1])
        db.session.remove()
    ours, theirs = predicted(app, "burraco", [["Ann", "Cy"], ["Bob", "Di"]])
    page.set_viewport_size(NARROW_PHONE)
    page.goto(f"{live_server.url}/matches/new?game=burraco" + "".join(f"&seat={name}" for name in seats))
    chances = page.get_by_role("region", name="Chances to win")
    expect(chances.get_by_role("listitem")).to_have_count(4)
    page.get_by_role("radio", name="In pairs").click()
    expect(chances.get_by_role("listitem")).to_have_text([f"Ann & Cy {ours}%", f"Bob & Di {theirs}%"])
    expect(page.get_by_role("radio", name="In pairs")).to_be_checked()
    audit_layout(page, [*seats, "Us", "Them"])
    page.get_by_role("radio", name="Each alone").click()
    expect(chances.get_by_role("listitem")).to_have_count(4)
