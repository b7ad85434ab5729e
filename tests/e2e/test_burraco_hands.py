"""Browser test of Burraco's "Hands" table: each header cell stands over its own column of values, and the
scorekeeper's Edit under each hand's number is a thumb's target nothing covers."""

from __future__ import annotations

import pytest
from flask import Flask
from playwright.sync_api import Page

from companion.extensions import db
from companion.services import matches as service
from tests.e2e.audit import NARROW_PHONE, audit_layout
from tests.e2e.helpers import hold_pencil
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

# Whether every mark and Edit of the hands' rows lies within its own cell, not drawn over a neighbour's.
WITHIN_THEIR_CELLS = """() => [
  ...document.querySelectorAll('.burraco-hands tbody :is(.edit-round, .corrected, .burraco-mark)')]
  .every(el => { const cell = el.closest('th, td').getBoundingClientRect(), box = el.getBoundingClientRect();
                 return box.left >= cell.left - 0.5 && box.right <= cell.right + 0.5; })"""


def burraco_with_hands(
    app: Flask, names: list[str], settings: dict | None, pencil: tuple[Page, str] | None = None
) -> int:
    """A Burraco match with three hands saved, marks of every kind among them (the widest cells); with `pencil`
    (a page and the server's address), the first hand corrected and that page's browser holding the pencil."""
    with app.app_context():
        match, token = service.create_match("burraco", names, settings)
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
        if pencil is not None:
            first = match.rounds[0]
            service.correct_round(match, 1, {**first.data, "sides": {**first.data["sides"], sides[1]: {
                **first.data["sides"][sides[1]], "table": 150}}}, first.revision)  # fmt: skip
            hold_pencil(*pencil, match, token)
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


def test_the_scorekeepers_edit_under_each_hand_fits_its_column_in_italian(page: Page, live_server, app):
    # "Modifica" and a corrected hand's mark sat on one line beside the number, in a column sized for "Edit": they
    # were drawn over the first side's points and marks, and English's Edit was 30 px wide.
    page.context.add_cookies([{"name": "lang", "value": "it", "url": live_server.url}])
    for names in (NAMES[:4], NAMES):
        match_id = burraco_with_hands(app, names, None, pencil=(page, live_server.url))
        page.goto(f"{live_server.url}/matches/{ref(match_id)}")
        edits = page.locator(".burraco-hands .edit-round")
        assert edits.count() == 3 and edits.first.inner_text().startswith("Modifica")
        for size in (NARROW_PHONE, {"width": 430, "height": 900}):
            page.set_viewport_size(size)
            assert page.evaluate(WITHIN_THEIR_CELLS), (names, size)
            for edit in edits.all():
                box = edit.bounding_box()
                assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
        audit_layout(page, names, sizes=[NARROW_PHONE])
