"""A game's ratings board on a small phone, reached by the players page's boosted link."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from companion.extensions import db
from tests.e2e.audit import audit_layout
from tests.helpers import played_match

pytestmark = pytest.mark.e2e

NAMES = ["Annalisa", "Bartolomeo", "Cy", "Domitilla"]


def test_the_ratings_board_at_360_px(page: Page, app, live_server):
    with app.app_context():
        for _ in range(5):
            played_match("topic", NAMES, [0, 1])
        played_match("topic", ["Cy", "Zed"], [1, 1])
        db.session.remove()
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/players?game=topic")
    page.get_by_role("link", name=re.compile("Ratings of Topic_")).click()
    expect(page).to_have_url(re.compile(r"/players/ratings/topic$"))
    expect(page.get_by_role("heading", name="Ratings")).to_be_visible()
    board = page.get_by_role("table")
    # Cy and Domitilla took no card in five matches; Zed has played one, and is provisional.
    expect(board.get_by_role("row").nth(1)).to_contain_text("Cy")
    expect(board.get_by_role("row", name=re.compile("Zed 1 played · 0 won · provisional"))).to_be_visible()
    # Annalisa and Bartolomeo lost every match: they share fourth place, rated lower than at first.
    expect(board.get_by_role("row", name=re.compile(r"^4 Annalisa 5 played · 0 won \d+ −\d+$"))).to_be_visible()
    audit_layout(page, [*NAMES, "Zed"])
