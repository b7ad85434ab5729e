"""Browser test of Topic_ on a phone: a short game to its end, one tap per round, checked against `flask score`."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import (
    LONG_NAMES,
    NETWORK_CUT,
    add_to_roster,
    expect_rounds_as_drawn_whole,
    go_offline,
    server_match_with_pencil,
)
from tests.e2e.topic_helpers import COUNT_TAPS_SCRIPT, start_topic, topic_cards_held, topic_loser_button
from tests.helpers import ref

pytestmark = pytest.mark.e2e

PLAYERS = ["Ann", "Bob", "Cy"]


def test_a_short_game_to_its_end(page: Page, live_server, app, runner, tmp_path):
    add_to_roster(app, *PLAYERS)
    # 36 by default: −10, −10, −10, +, + gives a deck of 8.
    start_topic(page, live_server.url, PLAYERS, ["10 cards fewer"] * 3 + ["One card more"] * 2)
    match_url = page.url
    deck_left = page.locator("#topic-deck-left")
    expect(deck_left).to_have_text("8")
    expect(page.get_by_text("Anyone reveals the first card")).to_be_visible()

    # Round 1: Bob lost. One tap, counted in the page.
    page.evaluate(COUNT_TAPS_SCRIPT)
    topic_loser_button(page, "Bob").tap()
    expect(page.get_by_role("status").filter(has_text="Round 1:")).to_contain_text("Bob +1")
    one_loser_taps = page.evaluate("window.topicTaps")
    print(f"\ntaps for a one-loser round: {one_loser_taps}")
    assert one_loser_taps == 1
    expect(deck_left).to_have_text("7")
    assert len(page.request.get(match_url + ".json").json()["rounds"]) == 1
    audit_layout(page, PLAYERS)

    # A wrong tap is taken back with one tap on the read-back's Undo, then entered again.
    page.evaluate("window.topicTaps = 0")
    page.get_by_role("status").get_by_role("button", name="Undo").tap()
    expect(page.get_by_text("Round 1 taken back.")).to_be_visible()
    assert page.evaluate("window.topicTaps") == 1
    expect(deck_left).to_have_text("8")
    assert page.request.get(match_url + ".json").json()["rounds"] == []
    audit_layout(page, PLAYERS)
    topic_loser_button(page, "Bob").tap()
    expect(deck_left).to_have_text("7")
    expect(page.get_by_text("Bob reveals next")).to_be_visible()

    # Round 2: a disputed word first (Cy's penalty card goes with the round), then Ann lost.
    page.get_by_role("button", name="Penalty card for Cy", exact=True).tap()
    expect(page.locator('.topic-penalty-fields input[value="Cy"]')).to_have_count(1)
    audit_layout(page, PLAYERS)
    topic_loser_button(page, "Ann").tap()
    expect(page.get_by_role("status").filter(has_text="Round 2:")).to_contain_text("Cy +1 (1 penalty)")
    expect(deck_left).to_have_text("5")
    audit_layout(page, PLAYERS)

    # Round 3: two losers, one tap on the switch, a tick each, Save.
    page.get_by_role("switch", name="Several losers").tap()
    page.get_by_role("checkbox", name="Bob").tap()
    page.get_by_role("checkbox", name="Cy").tap()
    audit_layout(page, PLAYERS)
    page.get_by_role("button", name="Save round 3").tap()
    expect(page.get_by_role("status").filter(has_text="Round 3:")).to_contain_text("Bob +1 · Cy +1")
    expect(deck_left).to_have_text("3")
    expect(page.get_by_role("switch", name="Several losers")).not_to_be_checked()
    audit_layout(page, PLAYERS)

    # After round 3 the table penalises Bob's word: the switch turns the one row of penalty buttons
    # to round 3, then one tap saves the card at once into round 3.
    expect(page.locator(".topic-penalty-row:visible")).to_have_count(1)
    expect(page.get_by_role("button", name="Penalty card for Bob in round 3")).to_be_hidden()
    page.get_by_role("switch", name="For round 3, just played (one tap saves it)").tap()
    expect(page.locator(".topic-penalty-row:visible")).to_have_count(1)
    expect(page.get_by_role("button", name="Penalty card for Bob", exact=True)).to_be_hidden()
    page.get_by_role("button", name="Penalty card for Bob in round 3").tap()
    expect(deck_left).to_have_text("2")
    expect(topic_cards_held(page, "Bob")).to_contain_text("3")
    audit_layout(page, PLAYERS)

    # Round 4: Cy lost; the deck is down to 1 card, so the match ends by itself.
    topic_loser_button(page, "Cy").tap()
    expect(page.get_by_text("The match is over")).to_be_visible()
    expect(page.get_by_text("Ann wins!")).to_be_visible()
    expect(deck_left).to_have_text("1")
    audit_layout(page, PLAYERS)

    # The page agrees with the engine run on the exported match file.
    exported = page.request.get(match_url + ".json").json()
    path = tmp_path / "match.json"
    path.write_text(json.dumps(exported))
    result = runner.invoke(args=["score", str(path)])
    assert result.exit_code == 0, result.output
    score = json.loads(result.output)
    assert score["over"] is True
    assert score["winners"] == ["Ann"]
    assert score["deck"] == 1
    assert score["totals"] == {"Ann": 1, "Bob": 3, "Cy": 3}
    for name, total in score["totals"].items():
        expect(topic_cards_held(page, name).locator(".big-num")).to_have_text(str(total))
    expect(deck_left).to_have_text(str(score["deck"]))
    assert [r["losers"] for r in exported["rounds"]] == [["Bob"], ["Ann"], ["Bob", "Cy"], ["Cy"]]
    assert exported["rounds"][2]["penalties"] == ["Bob"]


def test_a_double_tap_on_a_loser_stores_one_round(page: Page, live_server, app):
    add_to_roster(app, *PLAYERS)
    start_topic(page, live_server.url, PLAYERS, [])
    topic_loser_button(page, "Bob").dblclick()
    expect(page.get_by_role("status").filter(has_text="Round 1:")).to_be_visible()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    assert len(page.request.get(page.url + ".json").json()["rounds"]) == 1
    expect(page.locator("#topic-deck-left")).to_have_text("35")


def test_the_rounds_table_grows_newest_first_as_a_reload_draws_it(page: Page, live_server, app):
    add_to_roster(app, *PLAYERS)
    start_topic(page, live_server.url, PLAYERS, [])
    for number, name in enumerate(["Bob", "Ann", "Cy", "Bob"], start=1):
        topic_loser_button(page, name).tap()
        expect(page.get_by_role("heading", name=f"Who lost round {number + 1}?")).to_be_visible()
        audit_layout(page, PLAYERS)
    expect(page.locator("#topic-last-round")).to_contain_text("last: Bob +1")
    page.get_by_role("switch", name="For round 4, just played (one tap saves it)").tap()
    expect(page.get_by_role("button", name="Penalty card for Ann in round 4")).to_be_visible()
    rows = expect_rounds_as_drawn_whole(page)
    assert [row.split()[0] for row in rows[1:]] == ["4", "3", "2", "1"]
    assert rows[1].startswith("4 Bob +1 32")


def test_the_last_round_line_shows_a_long_name_on_a_narrow_phone(page: Page, live_server, app):
    # The folded rounds table's summary names who took the last card: a 40-character name
    # was cut whole, and the line read "· last: …".
    long_name = "Maximiliana Wilhelmina Montgomery-Smythe"
    players = [long_name, "Bob", "Cy"]
    add_to_roster(app, *players)
    page.set_viewport_size({"width": 360, "height": 740})
    start_topic(page, live_server.url, players, [])
    topic_loser_button(page, long_name).tap()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    last = page.locator("#topic-last-round")
    expect(last).to_contain_text(f"last: {long_name} +1")
    # Every letter of the name and its card is drawn inside the summary's box, none hidden by it.
    hidden = last.evaluate("""(line) => {
      const box = line.getBoundingClientRect();
      const range = document.createRange();
      range.selectNodeContents(line.querySelector('.topic-taken'));
      const outside = (r) => r.right > box.right + 1 || r.left < box.left - 1;
      return [...range.getClientRects()].filter((r) => r.width && outside(r)).length;
    }""")
    assert hidden == 0
    audit_layout(page, players)


# Where each loser button is, and whether a tap at its centre lands on it rather than on what covers it.
LOSER_BUTTONS_REACHED = """() => [...document.querySelectorAll("#entry button.topic-player")].map((button) => {
  const box = button.getBoundingClientRect();
  const inside = box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return {name: button.value, inside, reached: Boolean(hit && button.contains(hit)),
          covered_by: hit && !button.contains(hit) ? hit.outerHTML.slice(0, 80) : null};
})"""


def assert_loser_buttons_reached(page: Page, after: str) -> None:
    """Every loser button lies inside the screen, and a tap at its centre reaches it."""
    found = page.evaluate(LOSER_BUTTONS_REACHED)
    assert len(found) == 4
    missed = [button for button in found if not (button["inside"] and button["reached"])]
    assert missed == [], f"after {after}: {missed}"


def scrolled_to_the_end(page: Page) -> None:
    """The scorekeeper has scrolled to the end of the page, the loser buttons near the top of the screen."""
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")


@pytest.mark.parametrize("size", [{"width": 360, "height": 740}, {"width": 390, "height": 844}])
def test_the_read_back_line_never_covers_the_next_rounds_loser_buttons(
    page: Page, live_server, app, size, browser_faults
):
    # At the table the read-back line and its Undo stuck to the top of the screen over the loser buttons a
    # scorekeeper had scrolled up to, so a quick tap for the next round undid the round just saved.
    for fault in NETWORK_CUT:
        browser_faults.expect(fault, may_not_come=True)
    four = [*PLAYERS, "Dee"]
    add_to_roster(app, *four)
    page.set_viewport_size(size)
    start_topic(page, live_server.url, four, [])
    scrolled_to_the_end(page)
    topic_loser_button(page, "Bob").tap()
    readback = page.locator("#banner .readback")
    expect(readback).to_contain_text("Round 1: Bob +1")
    assert_loser_buttons_reached(page, "a save")

    scrolled_to_the_end(page)
    readback.get_by_role("button", name="Undo", exact=True).tap()
    expect(page.get_by_role("heading", name="Who lost round 1?")).to_be_visible()
    expect(readback).to_contain_text("Round 1 taken back.")
    assert_loser_buttons_reached(page, "an undo")

    scrolled_to_the_end(page)
    topic_loser_button(page, "Cy").tap()
    expect(readback).to_contain_text("Round 1: Cy +1")
    go_offline(page)
    scrolled_to_the_end(page)
    topic_loser_button(page, "Dee").tap()
    expect(readback).to_contain_text("kept on this phone")
    assert_loser_buttons_reached(page, "an offline save")


# Whether the read-back line's words are cut short (held to three lines, an ellipsis at their end).
CUT_SHORT = "(said) => said.scrollHeight > said.clientHeight + 1"


def test_a_long_read_back_held_to_three_lines_is_shown_whole_by_a_tap(page: Page, live_server, app, browser_faults):
    # Five 40-character names lost a round: the line over the form showed the first alone, and nothing opened it.
    for fault in NETWORK_CUT:
        browser_faults.expect(fault, may_not_come=True)
    names = LONG_NAMES[:6]
    match_id = server_match_with_pencil(page, app, live_server.url, "topic", names)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    for number, offline in ((1, False), (2, True)):
        if offline:
            go_offline(page)
        page.get_by_role("switch", name="Several losers").check()
        for name in names[1:]:
            page.get_by_role("checkbox", name=name, exact=True).check()
        page.get_by_role("button", name=f"Save round {number}").tap()
        said = page.locator("#banner .readback > span")
        expect(said).to_contain_text(names[1][:10])
        assert said.evaluate(CUT_SHORT), number
        said.tap()
        assert not said.evaluate(CUT_SHORT), number
        page.get_by_role("heading", name=f"Who lost round {number + 1}?").click()
        assert said.evaluate(CUT_SHORT), number
