"""Browser tests of the scorekeeper's page when its own live poll and its saves are answered in either order."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import add_to_roster, expect_rounds_as_drawn_whole, rounds_rows, wait_until_held
from tests.e2e.topic_helpers import start_topic, topic_loser_button

# On PostgreSQL too (pytest.ini's `database`): what each answer holds is what the database's versions say.
pytestmark = [pytest.mark.e2e, pytest.mark.database]

PLAYERS = ["Ann", "Bob", "Cy"]


def _hold_answers(page: Page, pattern: str) -> list:
    """Hold every request matching `pattern` after the server answered it: (route, answer) pairs, to let
    through later. The server has stored what the request wrote; the page has not heard yet."""
    held = []
    page.route(pattern, lambda route: held.append((route, route.fetch())))
    return held


def _played_rounds(page: Page) -> list[str]:
    return [row.split()[0] for row in rounds_rows(page)[1:]]


def test_a_poll_that_draws_the_round_before_the_saves_answer_leaves_one_row_for_it(page: Page, live_server, app):
    # A fresh-clone CI run saw round 3 twice in the table: the page's poll, answered after the save
    # was stored but before the save's own answer came, drew the table with round 3; then the save's
    # answer added round 3's row on top of it.
    add_to_roster(app, *PLAYERS)
    start_topic(page, live_server.url, PLAYERS, [])
    for number, name in enumerate(["Bob", "Ann"], start=1):
        topic_loser_button(page, name).tap()
        expect(page.get_by_role("heading", name=f"Who lost round {number + 1}?")).to_be_visible()
    held = _hold_answers(page, "**/rounds")
    topic_loser_button(page, "Cy").tap()
    wait_until_held(page, held)
    # The next poll hears of round 3 and draws the table with it while the save's answer waits.
    expect(page.locator("#topic-last-round")).to_contain_text("last: Cy +1")
    assert _played_rounds(page) == ["3", "2", "1"]
    route, answer = held[0]
    route.fulfill(response=answer)
    page.unroute("**/rounds")
    expect(page.get_by_role("heading", name="Who lost round 4?")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="Round 3:")).to_contain_text("Cy +1")
    # One row for round 3, as a reload draws the table whole.
    rows = expect_rounds_as_drawn_whole(page)
    assert [row.split()[0] for row in rows[1:]] == ["3", "2", "1"]


def test_a_poll_answered_with_an_older_version_after_two_saves_does_not_take_the_newer_round_away(
    page: Page, live_server, app
):
    # A poll that left before a save's answer and came back after the next save carries a version older
    # than the page shows: drawn, it took the newest round out of the table until the following poll.
    add_to_roster(app, *PLAYERS)
    start_topic(page, live_server.url, PLAYERS, [])
    topic_loser_button(page, "Bob").tap()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    saves = _hold_answers(page, "**/rounds")
    topic_loser_button(page, "Ann").tap()
    wait_until_held(page, saves, "a save")
    polls = _hold_answers(page, "**/live*")
    wait_until_held(page, polls, "a poll")  # the server answered it with round 2: the page has not heard yet
    route, answer = saves[0]
    route.fulfill(response=answer)
    page.unroute("**/rounds")
    expect(page.get_by_role("heading", name="Who lost round 3?")).to_be_visible()
    topic_loser_button(page, "Cy").tap()
    expect(page.get_by_role("heading", name="Who lost round 4?")).to_be_visible()
    assert _played_rounds(page) == ["3", "2", "1"]
    page.evaluate("""() => document.addEventListener("htmx:afterRequest", (event) => {
      if (event.detail.elt.id === "live") window.heldPollDone = true;
    })""")
    route, answer = polls[0]
    route.fulfill(response=answer)
    page.unroute("**/live*")
    page.wait_for_function("() => window.heldPollDone === true")
    assert _played_rounds(page) == ["3", "2", "1"]
    expect(page.locator("#topic-last-round")).to_contain_text("last: Cy +1")
    # And the page goes on following: the next poll is asked for the newest version, which it shows.
    with page.expect_response(lambda response: "/live" in response.url) as next_poll:
        pass
    assert next_poll.value.status == 304
