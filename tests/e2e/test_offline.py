"""Browser tests of scoring through an outage: rounds kept on the phone, sent in order once each."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import Page, Route, expect

from companion.extensions import db
from companion.queries.matches import find_match
from companion.services import pencil as pencil_service
from tests.e2e.burraco_helpers import enter_burraco_hand, start_burraco
from tests.e2e.helpers import (
    NETWORK_CUT,
    add_to_roster,
    drop_connections,
    go_offline,
    go_online,
    start_match,
    wait_until_held,
)
from tests.e2e.pazzaparola_helpers import (
    TapCounter,
    enter_pazzaparola_round,
    pazzaparola_live_score,
    start_pazzaparola,
)
from tests.e2e.topic_helpers import topic_cards_held, topic_loser_button
from tests.helpers import ref, stored_match, unref

pytestmark = pytest.mark.e2e

PLAYERS = ["Ann", "Bob", "Cy"]
REFUSED_403 = "Failed to load resource: the server responded with a status of 403 (FORBIDDEN)"
REFUSED_422 = "Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)"


@pytest.fixture(autouse=True)
def network_cut(browser_faults):
    """Every test here cuts the network (offline, or a request aborted on its way), so the browser
    logs the failed loads and htmx its send errors; which of them come depends on what was on its
    way at that moment (a live poll, a save)."""
    for text in NETWORK_CUT:
        browser_faults.expect(text, may_not_come=True)


def losers_stored(app, match_id: int) -> list[list[str]]:
    """Each stored round's losers, in order."""
    return [round["losers"] for round in stored_match(app, match_id).rounds]


def kept_rows(page: Page):
    """The rounds the page shows as kept on this phone."""
    return page.locator("#waiting-rounds li")


def keep_cy_offline(page: Page) -> None:
    """The network goes away and Cy loses the next round: it is kept on the phone."""
    go_offline(page)
    topic_loser_button(page, "Cy").click()
    expect(kept_rows(page)).to_have_count(1)


# page.route does not see a request that passes through a service worker, whether or not it answers it
# (Playwright): the tests that intercept saves run without one, or their interception depends on timing.
INTERCEPTING = pytest.mark.browser_context_args(service_workers="block")


def start_topic(page: Page, base: str, app) -> int:
    """A Topic_ match of Ann, Bob and Cy started by taps on this phone, which holds the pencil."""
    add_to_roster(app, *PLAYERS)
    return start_match(page, base, "Topic_", PLAYERS)


@pytest.mark.database
def test_rounds_tapped_offline_are_sent_in_order_once_each(page: Page, live_server, app):
    match_id = start_topic(page, live_server.url, app)
    topic_loser_button(page, "Bob").click()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    assert losers_stored(app, match_id) == [["Bob"]]

    go_offline(page)
    for name, number in (("Cy", 2), ("Ann", 3), ("Bob", 4)):
        topic_loser_button(page, name).click()
        expect(page.get_by_role("heading", name=f"Who lost round {number + 1}?")).to_be_visible()
    expect(page.locator("#offline-status")).to_have_text("Offline — 3 rounds kept on this phone")
    # The read-back of the round just kept, with its Undo, is in view as after any save.
    readback = page.locator("#banner .readback")
    expect(readback).to_have_text(re.compile(r"^Round 4: Bob \+1 · kept on this phone — not sent yet"))
    expect(readback.get_by_role("button", name="Undo")).to_be_in_viewport()
    expect(kept_rows(page)).to_have_count(3)
    expect(kept_rows(page).nth(0)).to_contain_text("Round 2")
    expect(kept_rows(page).nth(0)).to_contain_text("Cy")
    # "Not sent yet" is said once above the kept rounds, not again on each of them.
    waiting = page.locator("#waiting-rounds")
    expect(waiting.get_by_role("heading")).to_have_text("Kept on this phone — not sent yet")
    expect(waiting.get_by_text("not sent yet")).to_have_count(1)
    for row in kept_rows(page).all():
        expect(row).not_to_contain_text("not sent")
    expect(page.locator(".standings-asof")).to_have_text("As of round 1 · 3 rounds waiting")
    assert losers_stored(app, match_id) == [["Bob"]]

    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("3 rounds sent")
    # Said once: the status line alone, not a read-back banner repeating it.
    expect(page.get_by_text("3 rounds sent")).to_have_count(1)
    expect(kept_rows(page)).to_have_count(0)
    assert losers_stored(app, match_id) == [["Bob"], ["Cy"], ["Ann"], ["Bob"]]
    # The page is the server's again: its standings, and the entry of the round after the last stored.
    expect(page.locator(".standings-asof")).to_have_count(0)
    expect(page.get_by_role("heading", name="Who lost round 5?")).to_be_visible()
    expect(topic_loser_button(page, "Bob")).to_have_accessible_name("Bob 2 cards")
    expect(topic_loser_button(page, "Ann")).to_have_accessible_name("Ann 1 card")


def test_a_match_page_reached_by_a_boosted_link_keeps_rounds_offline(page: Page, live_server, app):
    """The home page does not load the offline sender: the match page a tap on its link brings does."""
    match_id = start_topic(page, live_server.url, app)
    page.goto(live_server.url + "/")
    expect(page.locator('script[src*="/bundle/offline."]')).to_have_count(0)
    page.get_by_role("link", name=re.compile(r"^Topic_ Ann, Bob, Cy")).click()
    expect(page.get_by_role("heading", name="Who lost round 1?")).to_be_visible()
    keep_cy_offline(page)
    expect(page.locator("#offline-status")).to_have_text("Offline — 1 round kept on this phone")
    expect(kept_rows(page).nth(0)).to_contain_text("Cy")
    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 round sent")
    assert losers_stored(app, match_id) == [["Cy"]]


def test_undo_takes_back_a_kept_round_on_the_phone_alone(page: Page, live_server, app):
    match_id = start_topic(page, live_server.url, app)
    topic_loser_button(page, "Bob").click()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    go_offline(page)
    topic_loser_button(page, "Cy").click()
    topic_loser_button(page, "Ann").click()
    expect(kept_rows(page)).to_have_count(2)
    kept_rows(page).nth(1).get_by_role("button", name="Undo").click()
    expect(kept_rows(page)).to_have_count(1)
    expect(page.get_by_role("heading", name="Who lost round 3?")).to_be_visible()
    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 round sent")
    assert losers_stored(app, match_id) == [["Bob"], ["Cy"]]


@pytest.mark.database
@INTERCEPTING
def test_a_save_whose_answer_was_lost_is_not_stored_twice(page: Page, live_server, app):
    match_id = start_topic(page, live_server.url, app)
    lost: list[str] = []

    def store_then_lose_the_answer(route: Route) -> None:
        if not lost:
            route.fetch()  # the server stores the round...
            lost.append(route.request.post_data or "")
            route.abort()  # ...and its answer never reaches the phone
        else:
            route.continue_()

    page.route(re.compile(r"/matches/[0-9A-Za-z]{11}/rounds$"), store_then_lose_the_answer)
    topic_loser_button(page, "Bob").click()
    expect(page.locator("#offline-status")).to_have_text("1 round sent")
    assert lost and "round_key=" in lost[0]
    assert losers_stored(app, match_id) == [["Bob"]]
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()


def expect_502_on_saves(browser_faults, base: str, match_id: int) -> None:
    """What the browser logs of a save the proxy answers 502: the test's faults, not the page's."""
    for text in (
        f"502 answer to POST {base}/matches/{ref(match_id)}/rounds",
        "Failed to load resource: the server responded with a status of 502 (Bad Gateway)",
        f"Response Status Error Code 502 from /matches/{ref(match_id)}/rounds, [object HTMLElement]",
    ):
        browser_faults.expect(text)


@pytest.mark.database
@INTERCEPTING
@pytest.mark.parametrize("stored_first", [False, True], ids=["never-reached", "stored-then-died"])
def test_a_save_answered_502_by_the_proxy_is_kept_then_stored_once(
    page: Page, live_server, app, stored_first, browser_faults
):
    # Behind Caddy, an app server that is down (or dies during the save) makes the proxy answer 502.
    match_id = start_topic(page, live_server.url, app)
    expect_502_on_saves(browser_faults, live_server.url, match_id)
    failed: list[int] = []

    def gateway_error_once(route: Route) -> None:
        if failed:
            route.continue_()
            return
        if stored_first:
            route.fetch()
        failed.append(1)
        route.fulfill(status=502, body="Bad Gateway")

    page.route(re.compile(r"/matches/[0-9A-Za-z]{11}/rounds$"), gateway_error_once)
    topic_loser_button(page, "Bob").click()
    expect(page.locator("#offline-status")).to_have_text("1 round sent", timeout=15000)
    assert failed
    assert losers_stored(app, match_id) == [["Bob"]]
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()


@pytest.mark.database
@INTERCEPTING
def test_a_save_answered_502_after_a_poll_redrew_the_page_leaves_the_next_round_tappable(
    page: Page, live_server, app, browser_faults
):
    # A server dying under the proxy: the round is stored, the live poll draws it while the save's own answer is
    # still out (the save's buttons disabled meanwhile), then the proxy answers the save 502 and the resends too.
    match_id = start_topic(page, live_server.url, app)
    expect_502_on_saves(browser_faults, live_server.url, match_id)
    held: list[Route] = []
    failing = [True]

    def store_then_hold(route: Route) -> None:
        if not held:
            route.fetch()
            held.append(route)
        elif failing[0]:
            route.fulfill(status=502, body="Bad Gateway")
        else:
            route.continue_()

    page.route(re.compile(r"/matches/[0-9A-Za-z]{11}/rounds$"), store_then_hold)
    topic_loser_button(page, "Bob").click()
    expect(topic_cards_held(page, "Bob")).to_contain_text("1")  # drawn by the poll: the save is still out
    expect(topic_loser_button(page, "Cy")).to_be_disabled()
    held[0].fulfill(status=502, body="Bad Gateway")
    expect(kept_rows(page)).to_have_count(1)
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    # The entry the round was kept for is the one the server drew for the next round, its buttons not disabled.
    expect(topic_loser_button(page, "Cy")).to_be_enabled()
    failing[0] = False
    expect(page.locator("#offline-status")).to_have_text("1 round sent", timeout=15000)
    assert losers_stored(app, match_id) == [["Bob"]]


def test_a_save_whose_connection_drops_while_the_phone_seems_online_is_kept_then_sent(page: Page, live_server, app):
    # The Wi-Fi lost its router: the phone believes it is online, its save never reaches the server.
    match_id = start_topic(page, live_server.url, app)
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    drop_connections(page)
    topic_loser_button(page, "Bob").click()
    expect(kept_rows(page)).to_have_count(1)
    expect(kept_rows(page).nth(0)).to_contain_text("Bob")
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    assert losers_stored(app, match_id) == []

    go_online(page)  # the router is back; the phone's own retry sends the round
    expect(page.locator("#offline-status")).to_have_text("1 round sent", timeout=15000)
    assert losers_stored(app, match_id) == [["Bob"]]


@INTERCEPTING
def test_kept_rounds_survive_a_reload_and_are_sent_when_the_server_answers(page: Page, live_server, app):
    match_id = start_topic(page, live_server.url, app)
    go_offline(page)
    topic_loser_button(page, "Cy").click()
    topic_loser_button(page, "Ann").click()
    expect(kept_rows(page)).to_have_count(2)
    # The network is back but the saves still cannot get through, and the phone reloads the page.
    page.route(re.compile(r"/matches/[0-9A-Za-z]{11}/rounds$"), lambda route: route.abort())
    go_online(page)
    page.reload()
    expect(kept_rows(page)).to_have_count(2)
    expect(kept_rows(page).nth(1)).to_contain_text("Ann")
    expect(page.get_by_role("heading", name="Who lost round 3?")).to_be_visible()
    assert losers_stored(app, match_id) == []
    page.unroute(re.compile(r"/matches/[0-9A-Za-z]{11}/rounds$"))
    expect(page.locator("#offline-status")).to_have_text("2 rounds sent", timeout=15000)
    assert losers_stored(app, match_id) == [["Cy"], ["Ann"]]


def test_a_round_refused_by_the_server_needs_a_look_and_nothing_is_stored(page: Page, live_server, app, browser_faults):
    browser_faults.expect(REFUSED_403)
    match_id = start_topic(page, live_server.url, app)
    keep_cy_offline(page)
    # Meanwhile another phone takes the pencil.
    with app.app_context():
        match = find_match(match_id)
        pencil_service.take_pencil(match, pencil_service.offer_pencil(match))
        db.session.remove()
    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 round needs a look")
    row = kept_rows(page).nth(0)
    expect(row.locator(".kept-state")).to_have_text(
        "Needs a look: Another phone holds the pencil. Only the scorekeeper's phone can enter rounds; "
        "this phone follows the match."
    )
    expect(row.get_by_role("button", name="Enter again")).to_be_visible()
    expect(row.get_by_role("button", name="Discard")).to_be_visible()
    assert losers_stored(app, match_id) == []
    row.get_by_role("button", name="Discard").click()
    expect(kept_rows(page)).to_have_count(0)
    assert losers_stored(app, match_id) == []


def test_with_the_service_worker_the_match_page_opens_offline_with_its_kept_rounds(page: Page, live_server, app):
    """The service worker runs where the page is a secure context: HTTPS, or this laptop's own address."""
    match_id = start_topic(page, live_server.url, app)
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")  # the copy the worker keeps
    topic_loser_button(page, "Bob").click()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()

    keep_cy_offline(page)
    page.reload()
    expect(page.get_by_role("heading", name="Topic_")).to_be_visible()
    expect(kept_rows(page)).to_have_count(1)
    expect(kept_rows(page).nth(0)).to_contain_text("Cy")
    expect(page.locator("#offline-status")).to_have_text("Offline — 1 round kept on this phone")
    topic_loser_button(page, "Ann").click()
    expect(kept_rows(page)).to_have_count(2)

    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("2 rounds sent")
    assert losers_stored(app, match_id) == [["Bob"], ["Cy"], ["Ann"]]


PAZZAPAROLA_PLAYERS = ["John", "Ringo", "Paul"]


def keep_a_pazzaparola_round_offline(page: Page, base: str, app):
    """A Pazzaparola match of John, Ringo and Paul; the network goes, and round 1 is entered, saved and kept.
    Returns the match's id and the keypad's taps."""
    add_to_roster(app, *PAZZAPAROLA_PLAYERS)
    start_pazzaparola(page, base, PAZZAPAROLA_PLAYERS)
    match_id = unref(page.url.rsplit("/", 1)[1])
    go_offline(page)
    tap = TapCounter(page)
    enter_pazzaparola_round(page, tap, {"John": [5, 3, 2], "Ringo": [4], "Paul": [2, 2]}, theme="Kitchen")
    page.get_by_role("button", name="Save round 1", exact=True).click()
    expect(kept_rows(page)).to_have_count(1)
    return match_id, tap


def test_a_pazzaparola_round_entered_offline_is_kept_then_sent(page: Page, live_server, app):
    players = PAZZAPAROLA_PLAYERS
    match_id, _ = keep_a_pazzaparola_round_offline(page, live_server.url, app)
    # The row's words and their scores as the keypad showed them (cards − the unused of 8), as the read-back says them.
    expect(kept_rows(page).nth(0).locator("strong")).to_have_text("Round 1:")
    expect(kept_rows(page).nth(0).locator(".kept-summary")).to_have_text("John 5 ★, Ringo -3, Paul -2")
    expect(page.get_by_role("button", name="Save round 2", exact=True)).to_be_visible()
    assert stored_match(app, match_id).rounds == []

    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 round sent")
    rounds = stored_match(app, match_id).rounds
    assert [rounds[0]["rows"][name]["used"] for name in players] == [[5, 3, 2], [4], [2, 2]]
    assert rounds[0]["theme"] == "Kitchen"
    expect(page.get_by_role("button", name="Save round 2", exact=True)).to_be_visible()


def test_undo_of_a_round_kept_offline_puts_it_back_in_the_entry_to_fix(page: Page, live_server, app):
    players = PAZZAPAROLA_PLAYERS
    match_id, tap = keep_a_pazzaparola_round_offline(page, live_server.url, app)
    expect(page.locator(".pz-chip")).to_have_count(0)

    page.locator("#banner").get_by_role("button", name="Undo").click()
    expect(kept_rows(page)).to_have_count(0)
    # The round is in the entry again, as it was typed: every card, the theme, the scores it made.
    expect(page.locator(".pz-chip")).to_have_count(6)
    expect(page.get_by_label("Theme")).to_have_value("Kitchen")
    expect(pazzaparola_live_score(page, "John")).to_have_text("5")
    # Paul's second 2 was a 3.
    paul = page.get_by_role("group", name="Paul", exact=True)
    paul.get_by_role("button", name="Paul", exact=True).click()
    paul.locator(".pz-chip").last.click()
    tap.button("3")
    page.get_by_role("button", name="Save round 1", exact=True).click()
    expect(kept_rows(page)).to_have_count(1)

    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 round sent")
    (stored,) = stored_match(app, match_id).rounds
    assert [sorted(stored["rows"][name]["used"]) for name in players] == [[2, 3, 5], [4], [2, 3]]
    assert stored["theme"] == "Kitchen"


def test_a_burraco_hand_entered_offline_is_kept_then_sent(page: Page, live_server, app):
    add_to_roster(app, "Ann", "Bob")
    match_id = start_burraco(page, live_server.url, ["Ann", "Bob"])
    go_offline(page)
    enter_burraco_hand(page, {"Ann": {"table": "120+35", "clean": 1}, "Bob": {"table": "60", "hand": "25"}}, "Ann")
    page.get_by_role("button", name="Save hand 1").click()
    expect(kept_rows(page)).to_have_count(1)
    expect(kept_rows(page).nth(0).locator("strong")).to_have_text("Hand 1:")
    expect(kept_rows(page).nth(0).locator(".kept-summary")).to_have_text("Ann 455 (closed), Bob 35")
    expect(page.get_by_role("button", name="Save hand 2")).to_be_visible()
    assert stored_match(app, match_id).rounds == []

    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 hand sent")
    (hand,) = stored_match(app, match_id).rounds
    assert hand["closed_by"] == "Ann"
    assert (hand["sides"]["Ann"]["table"], hand["sides"]["Bob"]["hand"]) == (155, 25)


def test_pazaak_quick_results_are_kept_offline_the_calculator_needs_the_server(page: Page, live_server, app):
    add_to_roster(app, "Rosa", "Quincy")
    match_id = start_match(page, live_server.url, "Pazaak", ["Rosa", "Quincy"])
    go_offline(page)
    page.get_by_role("button", name="Rosa won", exact=True).click()
    expect(kept_rows(page)).to_have_count(1)
    expect(kept_rows(page).nth(0).locator("strong")).to_have_text("Set 1:")
    expect(kept_rows(page).nth(0).locator(".kept-summary")).to_have_text("Rosa wins")
    expect(page.locator("#offline-status")).to_have_text("Offline — 1 set kept on this phone")
    expect(page.get_by_role("heading", name="Set 2 · quick result")).to_be_visible()
    expect(page.get_by_role("heading", name=re.compile(r"^Set 2 · calculator"))).to_be_visible()
    # The set calculator works on the server: offline it says so instead of failing quietly, and that its tap
    # was not kept (the words of every other tap, that what is saved is kept, are not true of it).
    page.get_by_role("button", name="Draw 8", exact=True).click()
    expect(page.locator("#banner")).to_have_text(
        "The calculator needs the server, which cannot be reached right now: tap again once it answers."
    )

    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 set sent")
    assert [round.get("winner") for round in stored_match(app, match_id).rounds] == ["Rosa"]


def test_a_viewer_says_it_is_reconnecting_and_catches_up_by_itself(page: Page, live_server, app, browser):
    match_id = start_topic(page, live_server.url, app)
    viewer = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    viewer.goto(f"{live_server.url}/matches/{ref(match_id)}")
    live = viewer.locator("#live")
    expect(live).to_have_attribute("data-live", "")
    go_offline(viewer)
    expect(live).to_have_class(re.compile(r"\breconnecting\b"))
    said = live.evaluate("element => getComputedStyle(element, '::before').content")
    assert said == '"Reconnecting…"'
    topic_loser_button(page, "Bob").click()  # the scorekeeper goes on meanwhile
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    go_online(viewer)
    expect(live).not_to_have_class(re.compile(r"\breconnecting\b"))
    bob = viewer.get_by_role("list", name="Cards held").get_by_role("listitem").filter(has_text="Bob")
    expect(bob).to_contain_text("1")
    viewer.context.close()


def test_discarding_a_refused_round_moves_the_rounds_kept_after_it_up(page: Page, live_server, app, browser_faults):
    browser_faults.expect(REFUSED_422)
    match_id = start_topic(page, live_server.url, app)
    go_offline(page)
    topic_loser_button(page, "Cy").click()
    topic_loser_button(page, "Ann").click()
    expect(kept_rows(page)).to_have_count(2)
    # The first kept round is refused (here: its loser is not seated), the second waits behind it.
    page.evaluate(
        """(address) => {
        const key = "companion.waiting." + address;
        const kept = JSON.parse(localStorage.getItem(key));
        kept[0].fields = kept[0].fields.map(([name, value]) => name === "loser" ? [name, "Zed"] : [name, value]);
        localStorage.setItem(key, JSON.stringify(kept));
    }""",
        ref(match_id),
    )
    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 round needs a look")
    assert losers_stored(app, match_id) == []
    kept_rows(page).nth(0).get_by_role("button", name="Discard").click()
    expect(page.locator("#offline-status")).to_have_text("1 round sent")
    assert losers_stored(app, match_id) == [["Ann"]]


def test_kept_rounds_are_sent_with_the_pages_own_token_after_the_browser_was_closed(page: Page, live_server, app):
    """A restart ends the browser's session: the rounds kept before it go out with the new page's CSRF token."""
    match_id = start_topic(page, live_server.url, app)
    keep_cy_offline(page)
    # What a browser closed and opened again still has: the kept rounds, but no session cookie.
    page.evaluate("""() => {
        for (const key of Object.keys(localStorage)) {
            const kept = JSON.parse(localStorage.getItem(key));
            kept.forEach((round) => {
                round.fields = round.fields.map(([n, v]) => n === "csrf_token" ? [n, "old"] : [n, v]);
            });
            localStorage.setItem(key, JSON.stringify(kept));
        }
    }""")
    page.goto("about:blank")
    page.context.clear_cookies(name="session")
    go_online(page)
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    expect(page.locator("#offline-status")).to_have_text("1 round sent")
    assert losers_stored(app, match_id) == [["Cy"]]


@pytest.mark.database
@INTERCEPTING
def test_undo_of_a_round_on_its_way_takes_it_back_on_the_server(page: Page, live_server, app):
    match_id = start_topic(page, live_server.url, app)
    topic_loser_button(page, "Bob").click()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    keep_cy_offline(page)
    held: list[Route] = []
    page.route(re.compile(r"/matches/[0-9A-Za-z]{11}/rounds$"), lambda route: held.append(route))
    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 round waiting — sending…")
    wait_until_held(page, held, "the kept round")
    kept_rows(page).nth(0).get_by_role("button", name="Undo").click()  # tapped while the round is on its way
    # The round reaches the server, which stores it, and the phone then takes it back there: what is stored is
    # read once that undo is answered (the page's own state is right before it, so it cannot say when).
    with page.expect_response(re.compile(r"/matches/[0-9A-Za-z]{11}/undo$")):
        held[0].continue_()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    page.wait_for_function("() => !document.querySelector('#waiting-rounds li')")
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    assert losers_stored(app, match_id) == [["Bob"]]


@INTERCEPTING
def test_kept_rounds_still_show_after_a_reload_on_a_phone_that_lost_the_pencil(
    page: Page, live_server, app, browser_faults
):
    browser_faults.expect(REFUSED_403)
    match_id = start_topic(page, live_server.url, app)
    keep_cy_offline(page)
    blocked = re.compile(r"/matches/[0-9A-Za-z]{11}/rounds$")
    page.route(blocked, lambda route: route.abort())
    go_online(page)
    with app.app_context():
        match = find_match(match_id)
        pencil_service.take_pencil(match, pencil_service.offer_pencil(match))
        db.session.remove()
    page.reload()  # this phone now only follows the match
    expect(page.get_by_text("Another phone holds the pencil.")).to_be_visible()
    expect(kept_rows(page)).to_have_count(1)
    page.unroute(blocked)
    expect(page.locator("#offline-status")).to_have_text("1 round needs a look", timeout=15000)
    assert losers_stored(app, match_id) == []


def round_times(app, match_id: int) -> list[datetime]:
    """When each stored round of the match was played, as the server keeps it (naive UTC)."""
    with app.app_context():
        times = [stored.created_at for stored in find_match(match_id).rounds]
        db.session.remove()
    return times


def test_an_offline_page_names_the_kept_rounds_and_leads_back_to_send_them(page: Page, live_server, app):
    match_id = start_topic(page, live_server.url, app)
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    # The match began an hour ago; its rounds are played offline, and sent half an hour later, by a phone whose clock
    # is three hours behind the server's.
    with app.app_context():
        find_match(match_id).started_at -= timedelta(hours=1)
        db.session.commit()
        db.session.remove()
    wrong = timedelta(hours=3)
    played = datetime.now(UTC) - wrong
    page.clock.set_fixed_time(played)
    go_offline(page)
    for name in ("Cy", "Ann", "Bob"):
        topic_loser_button(page, name).click()
    expect(kept_rows(page)).to_have_count(3)

    # A page this phone has no copy of: the offline page says what waits, and where.
    page.goto(f"{live_server.url}/players")
    waiting = page.locator("[data-offline-page]")
    expect(waiting).to_contain_text("3 rounds saved here wait on this phone, not sent yet.")
    expect(waiting.get_by_role("link", name="Topic_ · Ann, Bob, Cy")).to_have_attribute(
        "href", f"/matches/{ref(match_id)}"
    )
    expect(waiting).to_contain_text("3 rounds waiting")
    expect(page.get_by_role("button", name="Try again")).to_have_attribute("href", f"/matches/{ref(match_id)}")
    assert losers_stored(app, match_id) == []

    # The server answers: the page goes back to the match by itself, which sends them. They are dated half an hour
    # before the server's time they arrived at, as long as they waited on the phone.
    page.clock.set_fixed_time(played + timedelta(minutes=30))
    sent_from = datetime.now(UTC).replace(tzinfo=None) - timedelta(minutes=30)
    go_online(page)
    expect(page).to_have_url(f"{live_server.url}/matches/{ref(match_id)}")
    expect(page.locator("#offline-status")).to_have_text("3 rounds sent")
    sent_by = datetime.now(UTC).replace(tzinfo=None) - timedelta(minutes=30)
    assert losers_stored(app, match_id) == [["Cy"], ["Ann"], ["Bob"]]
    assert all(sent_from <= at <= sent_by for at in round_times(app, match_id)), (sent_from, round_times(app, match_id))


# The laptop's plain http:// address, as `make run` prints it, is no secure context (127.0.0.1, where the test
# server listens, is one): there the page registers no service worker, and a reload without the network is the
# browser's own error page.
PLAIN_HTTP = 'Object.defineProperty(window, "isSecureContext", { value: false });'
RELOAD_NOTE = "Over http://, reloading this page needs the network."


@INTERCEPTING
def test_over_plain_http_the_page_asks_before_it_is_left_while_rounds_wait(page: Page, live_server, app):
    # A scorekeeper on the laptop's http:// address reloaded with the wi-fi down: the browser's error page, the
    # rounds kept but out of sight, and nothing had said a reload needs the network.
    page.add_init_script(PLAIN_HTTP)
    start_topic(page, live_server.url, app)
    match_url = page.url
    note = page.locator("#reload-note")
    expect(note).to_be_hidden()
    asked = []
    page.on("dialog", lambda dialog: (asked.append((dialog.type, dialog.message)), dialog.dismiss()))
    keep_cy_offline(page)
    expect(note).to_have_text(RELOAD_NOTE)
    expect(note).to_be_visible()

    # A reload is asked about first, and staying keeps the page and its round.
    page.evaluate("setTimeout(() => location.reload(), 0)")
    for _ in range(100):
        if asked:
            break
        page.wait_for_timeout(50)
    assert [kind for kind, _ in asked] == ["beforeunload"]
    expect(kept_rows(page)).to_have_count(1)
    # So is a link of the app, which htmx follows without unloading the page.
    page.get_by_role("link", name="History", exact=True).click()
    for _ in range(100):
        if len(asked) == 2:
            break
        page.wait_for_timeout(50)
    assert asked[1] == ("confirm", "1 round kept on this phone is not sent yet. Leave this page anyway?")
    expect(page).to_have_url(match_url)
    expect(kept_rows(page)).to_have_count(1)

    # Once the round is sent there is nothing to ask, nor to say.
    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 round sent")
    expect(note).to_be_hidden()
    page.get_by_role("link", name="History", exact=True).click()
    expect(page).to_have_url(re.compile(r"/history$"))
    assert len(asked) == 2


def test_where_a_service_worker_runs_the_page_says_nothing_of_reloading(page: Page, live_server, app):
    start_topic(page, live_server.url, app)
    keep_cy_offline(page)
    expect(page.locator("#offline-status")).to_have_text("Offline — 1 round kept on this phone")
    expect(page.locator("#reload-note")).to_be_hidden()


def test_burraco_hands_typed_offline_one_after_another_each_on_the_keypad(page: Page, live_server, app):
    """After a hand kept offline, the next hand's keypad types (the blank entry is set up again by the game's
    script), and so does a kept hand put back by Undo; all of them are stored once the network is back. The phone
    counts them as the table does: hands, not rounds."""
    add_to_roster(app, "Ann", "Bob")
    match_id = start_burraco(page, live_server.url, ["Ann", "Bob"])
    go_offline(page)
    for number, laid in ((1, "170"), (2, "90")):
        enter_burraco_hand(page, {"Ann": {"table": laid}, "Bob": {"table": "130"}}, None)
        page.get_by_role("button", name=f"Save hand {number}", exact=True).click()
        expect(kept_rows(page)).to_have_count(number)
    expect(page.locator("#offline-status")).to_have_text("Offline — 2 hands kept on this phone")
    expect(page.locator(".standings-asof")).to_have_text("2 hands waiting")
    page.locator("#banner .readback").get_by_role("button", name="Undo").click()
    expect(kept_rows(page)).to_have_count(1)
    expect(page.locator("#offline-status")).to_have_text("Offline — 1 hand kept on this phone")
    enter_burraco_hand(page, {"Ann": {"table": "95"}}, None)
    page.get_by_role("button", name="Save hand 2", exact=True).click()
    expect(kept_rows(page)).to_have_count(2)
    go_online(page)
    expect(kept_rows(page)).to_have_count(0, timeout=15_000)
    expect(page.locator("#offline-status")).to_have_text("2 hands sent")
    tables = [hand["sides"]["Ann"]["table"] for hand in (r for r in stored_match(app, match_id).rounds)]
    assert tables == [170, 95]

