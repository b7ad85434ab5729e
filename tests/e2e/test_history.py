"""Browser test of the history: a finished match found by its player, opened, its chart seen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from companion.extensions import db
from companion.seed import seed
from companion.services import matches as service

pytestmark = pytest.mark.e2e


def test_find_a_finished_match_by_player_and_see_its_chart(page: Page, live_server, app):
    with app.app_context():
        seed(30, 4)  # other matches around it, none with Quincy
        match, _ = service.create_match("pazaak", ["Quincy", "Rosa"], {"sets": 2})
        service.save_round(match, {"winner": "Quincy"})
        service.save_round(match, {"totals": {"Quincy": 18, "Rosa": 20}, "filled": [], "tiebreaker": None})
        service.save_round(match, {"winner": "Quincy"})
        assert match.is_over
        match_id = match.id
        db.session.remove()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)

    page.goto(live_server.url + "/")
    page.get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    expect(page.get_by_text("31 matches")).to_be_visible()

    page.get_by_label("Player", exact=True).select_option(label="Quincy")
    expect(page.get_by_text("1 match", exact=True)).to_be_visible()
    expect(page).to_have_url(re.compile(r"/history\?.*player=\d+"))
    row = page.locator(".history-item")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Quincy, Rosa")
    expect(row).to_contain_text("Finished")

    row.click()
    expect(page).to_have_url(re.compile(rf"/matches/{match_id}$"))
    chart = page.get_by_role("img", name=re.compile("Totals after each of 3 rounds: Quincy 2, Rosa 1"))
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    assert box and box["width"] > 300 and box["height"] > 150
    # The chart's lines carry their colours as attributes, which the CSP lets through.
    stroke = page.locator(".totals-chart .series path.line").first.evaluate("e => getComputedStyle(e).stroke")
    assert stroke not in ("none", "")
    assert not [e for e in errors if "Content Security Policy" in e]

    page.go_back()
    expect(page.get_by_label("Player", exact=True)).to_have_value(re.compile(r"\d+"))
    expect(page.locator(".history-item")).to_have_count(1)


def _one_history_page(page: Page) -> None:
    """The page holds one header, one heading, one filter form and one results block: none drawn inside another."""
    expect(page.get_by_role("heading", name="History", exact=True)).to_have_count(1)
    expect(page.locator("header.topbar")).to_have_count(1)
    expect(page.locator("form.history-filters")).to_have_count(1)
    expect(page.locator("#history-results")).to_have_count(1)
    expect(page.get_by_role("heading", name="Export and import")).to_have_count(1)


def test_every_history_control_draws_one_page(page: Page, live_server, app):
    with app.app_context():
        seed(45, 7)
        db.session.remove()
    page.goto(live_server.url + "/history")
    expect(page.get_by_text("45 matches · page 1 of 3")).to_be_visible()

    page.get_by_label("Game").select_option(label="Topic_")
    expect(page).to_have_url(re.compile(r"game=topic"))
    expect(page.locator(".history-item .game-tag").first).to_have_text("Topic_")
    _one_history_page(page)

    page.get_by_role("button", name="Clear").click()
    expect(page).to_have_url(re.compile(r"/history$"))
    expect(page.get_by_text("45 matches · page 1 of 3")).to_be_visible()
    expect(page.get_by_label("Game")).to_have_value("")
    _one_history_page(page)

    page.get_by_role("button", name="Older →").click()
    expect(page.get_by_text("45 matches · page 2 of 3")).to_be_visible()
    _one_history_page(page)

    page.get_by_label("Search by player name").fill("zzz-nobody")
    expect(page.get_by_text("No match found.")).to_be_visible()
    _one_history_page(page)
    page.get_by_role("link", name="Show every match").click()
    expect(page.get_by_text("45 matches · page 1 of 3")).to_be_visible()
    _one_history_page(page)

    page.go_back()
    expect(page.get_by_label("Search by player name")).to_have_value("zzz-nobody")
    _one_history_page(page)
    page.go_back()
    expect(page.get_by_text("45 matches · page 2 of 3")).to_be_visible()
    _one_history_page(page)
