"""Browser test of Burraco's "Hands" table: each header cell stands over its own column of values."""

from __future__ import annotations

import pytest
from flask import Flask
from playwright.sync_api import Page

from companion.extensions import db
from companion.services import matches as service
from tests.helpers import ref

pytestmark = pytest.mark.e2e

NAMES = ["Ann", "Bartolomeo", "Cy", "Donatella", "Eu"]
LAYOUTS = {
    "2 alone": (NAMES[:2], None),
    "3 alone": (NAMES[:3], None),
    "5 alone": (NAMES, None),
    "pairs": (NAMES[:4], {"teams": {"Us": [NAMES[0], NAMES[2]], "Them": [NAMES[1], NAMES[3]]}}),
}
SIZES = {"phone": {"width": 360, "height": 740}, "desktop": {"width": 1280, "height": 800}}

# The cells' left and right edges, header row first, then every hand's row, read as the browser laid them out.
EDGES = """() => [...document.querySelectorAll('.burraco-hands tr')].map(row =>
  [...row.children].map(cell => { const box = cell.getBoundingClientRect(); return [box.left, box.right]; }))"""


def burraco_with_hands(app: Flask, names: list[str], settings: dict | None) -> int:
    """A Burraco match with three hands saved, marks of every kind among them (the widest cells)."""
    with app.app_context():
        match, _ = service.create_match("burraco", names, settings)
        sides = list(settings["teams"]) if settings else names
        for hand in range(3):
            closer = sides[hand % len(sides)]
            round_data = {
                "sides": {
                    side: {
                        "table": 100 + 35 * position,
                        "hand": 0 if side == closer else 5 * hand,
                        "clean": int(hand == 0),
                        "dirty": 1,
                    }
                    for position, side in enumerate(sides)
                },
                "closed_by": closer,
            }
            service.save_round(match, round_data)
        match_id = match.id
        db.session.remove()
    return match_id


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_each_header_cell_lines_up_with_its_values(page: Page, live_server, app, layout, size):
    names, settings = LAYOUTS[layout]
    match_id = burraco_with_hands(app, names, settings)
    page.set_viewport_size(SIZES[size])
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    page.locator(".burraco-hands").scroll_into_view_if_needed()
    header, *rows = page.evaluate(EDGES)
    assert len(rows) == 3
    for row in rows:
        assert len(row) == len(header), (header, row)
        for column, ((head_left, head_right), (left, right)) in enumerate(zip(header, row, strict=True)):
            assert abs(head_left - left) <= 1 and abs(head_right - right) <= 1, (layout, size, column, header, row)
