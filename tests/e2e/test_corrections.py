"""Browser test of a correction that ends a match earlier: explained, saved with one more tap, put back by Redo."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import add_to_roster
from tests.e2e.topic_helpers import start_topic, topic_cards_held, topic_loser_button

pytestmark = pytest.mark.e2e

PLAYERS = ["Ann", "Bob", "Cy"]


def engine_totals(page: Page, match_url: str, runner, tmp_path) -> dict:
    """`flask score` on the match file the page exports: its totals."""
    path = tmp_path / "match.json"
    path.write_text(json.dumps(page.request.get(match_url + ".json").json()))
    result = runner.invoke(args=["score", str(path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["totals"]


def shown_cards(page: Page) -> dict[str, int]:
    """The cards each player holds, as the page's cards-held list shows them."""
    return {name: int(re.findall(r"\d+", topic_cards_held(page, name).inner_text())[0]) for name in PLAYERS}


def test_a_correction_that_ends_the_match_at_round_3_takes_rounds_4_and_5_back(
    page: Page, live_server, app, runner, tmp_path
):
    add_to_roster(app, *PLAYERS)
    # 36 by default: −10, −10, −10, +, + gives a deck of 8; five one-loser rounds leave 3.
    start_topic(page, live_server.url, PLAYERS, ["10 cards fewer"] * 3 + ["One card more"] * 2)
    match_url = page.url
    for number, name in enumerate(["Bob", "Cy", "Ann", "Bob", "Cy"], start=1):
        topic_loser_button(page, name).click()
        expect(page.get_by_role("status").filter(has_text=f"Round {number}:")).to_be_visible()
    expect(page.locator("#topic-deck-left")).to_have_text("3")

    # Round 3 really was lost by all three, and Ann took two penalty cards: 1 card is left.
    page.goto(match_url + "/rounds/3")
    form = page.locator("form.correcting")
    for name in ("Bob", "Cy"):
        form.get_by_role("checkbox", name=name, exact=True).click()
    for _ in range(2):
        form.get_by_role("button", name="Penalty card for Ann").click()
    expect(form.locator('input[name="penalty"][value="Ann"]')).to_have_count(2)
    form.get_by_role("button", name="Save correction").click()
    notice = page.get_by_role("alert").filter(has_text="With this change")
    expect(notice).to_contain_text("With this change the match ends at round 3: rounds 4–5 will be taken back.")
    expect(page.get_by_role("heading", name="Correct round 3")).to_be_visible()
    # The choices made survive the explanation; one more tap saves them.
    expect(form.locator('input[name="penalty"][value="Ann"]')).to_have_count(2)
    page.get_by_role("button", name="Save and end the match at round 3").click()
    expect(page).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    expect(page.locator("#rounds tbody tr")).to_have_count(3)
    assert shown_cards(page) == engine_totals(page, match_url, runner, tmp_path) == {"Ann": 3, "Bob": 2, "Cy": 2}

    page.get_by_role("link", name="Change log").click()
    for line in (r"Round 3 · \d\d:\d\d · corrected · ", r"Round [45] · \d\d:\d\d · undone · .* taken back"):
        expect(page.locator(".change-log li").filter(has_text=re.compile(line)).first).to_be_visible()
    expect(page.locator(".change-log li").filter(has_text=re.compile(r"undone"))).to_have_count(2)

    # Redo undoes the correction and puts round 4 back; a second Redo, round 5.
    page.goto(match_url)
    page.get_by_role("button", name="↷ Redo").click()
    expect(page.locator("#rounds tbody tr")).to_have_count(4)
    page.get_by_role("button", name="↷ Redo").click()
    expect(page.locator("#rounds tbody tr")).to_have_count(5)
    expect(page.locator("#topic-deck-left")).to_have_text("3")
    assert shown_cards(page) == engine_totals(page, match_url, runner, tmp_path) == {"Ann": 1, "Bob": 2, "Cy": 2}
