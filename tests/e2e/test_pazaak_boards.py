"""Browser test of Pazaak on two phones: each player's phone its own board, its hand seen by no other phone,
the match played to three sets by the two seated phones alone, a viewer following."""

from __future__ import annotations

import html
import json
import re

import pytest
from playwright.sync_api import APIResponse, Browser, Page, Response, Route, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import add_to_roster, new_phone, start_match, wait_until_held

pytestmark = pytest.mark.e2e

LONG = "Bartolomeo-Massimiliano-Giovanbattista-X"  # 40 characters, one unbroken word
PLAYERS = ["Ann", LONG]
ANN = ["+5", "−6", "±4", "Flip 3&6"]
BOB = ["+1", "+2", "−1", "T±1"]
# Ann plays her +5 in the first set: from then on Bob may see it; the three others never.
NEVER_PLAYED = ANN[1:]
# A character as JSON may write it ("\u2212" for "−").
JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


class Answers:
    """Every answer a phone's page received (pages, fragments, polls, scripts' JSON), read once asked for."""

    def __init__(self, page: Page):
        self.responses: list[Response] = []
        page.on("response", lambda response: self.responses.append(response))

    def texts(self) -> list[str]:
        found = []
        for response in self.responses:
            try:
                found.append(response.text())
            except Exception:  # noqa: BLE001 - a redirect or a body the browser let go of has nothing to read
                continue
        return found


def leaked(texts: list[str], cards: list[str]) -> list[str]:
    """The cards of `cards` found in any of `texts`, decoded as a browser reads them (HTML entities, JSON)."""
    found = set()
    for text in texts:
        for decoded in (text, html.unescape(text), JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)):
            found.update(card for card in cards if card in decoded or html.escape(card) in decoded)
    return sorted(found)


def stored(page: Page) -> list[str]:
    """What the phone keeps: its local and session storage, cookies, and the page as it stands."""
    storage = page.evaluate("() => JSON.stringify([{...localStorage}, {...sessionStorage}])")
    cookies = json.dumps(page.context.cookies())
    return [storage, cookies, page.content()]


def take_seat(phone: Page, link: str, name: str) -> None:
    """The phone opens the seat link and sits at `name`'s seat."""
    phone.goto(link)
    phone.get_by_label(name).check()
    phone.get_by_role("button", name="Take a seat").tap()
    expect(phone.get_by_role("status").filter(has_text="Your seat")).to_contain_text(name)


def note_hand(phone: Page, cards: list[str]) -> None:
    """The phone notes its hand by taps on the picker."""
    for card in cards:
        phone.get_by_role("button", name=f"Add {card} to your hand", exact=True).tap()
    expect(phone.locator(".pazaak-note-hand .pazaak-palette")).to_have_count(0)


def play(phone: Page, *moves: str) -> None:
    """Taps on this phone's board, each answered before the next: a tap while one is on its way is dropped,
    as on a phone, so the board the tap was made on must have been drawn again first."""
    for name in moves:
        button = phone.get_by_role("button", name=name, exact=True)
        expect(button).to_be_enabled()
        board = phone.locator("#entry .pazaak-entry").element_handle()
        button.tap()
        board.wait_for_element_state("hidden")
        expect(phone.locator(".pazaak-refused")).to_have_count(0)


def start_pazaak(page: Page, base: str, app, size: dict) -> tuple[str, str]:
    """Ann and the 40-character name's Pazaak match started on `page` by taps; its address and its seat link."""
    add_to_roster(app, *PLAYERS)
    page.set_viewport_size(size)
    start_match(page, base, "Pazaak", PLAYERS)
    match_url = page.url
    page.get_by_role("link", name="Share · viewer QR").click()
    return match_url, page.locator("#seats-panel .qr-url a").get_attribute("href")


def test_two_phones_play_a_match_each_hand_private_a_viewer_following(page: Page, browser: Browser, live_server, app):
    match_url, link = start_pazaak(page, live_server.url, app, {"width": 360, "height": 740})
    viewer_link = page.locator(".qr-card .qr-url a").first.get_attribute("href")

    # The scorekeeper's phone is Ann's board; Bob's phone takes his seat; a third phone follows as a viewer.
    take_seat(page, link, "Ann")
    expect(page).to_have_url(match_url)
    bob = new_phone(browser, live_server.url, {"width": 390, "height": 844})
    bob.emulate_media(color_scheme="dark")
    take_seat(bob, link, LONG)
    viewer = new_phone(browser, live_server.url, {"width": 360, "height": 740})
    viewer.goto(viewer_link)
    audit_layout(page, PLAYERS)

    ann_answers = Answers(page)
    note_hand(page, ANN)
    note_hand(bob, BOB)
    # From here on nothing Bob's phone or the viewer receives may hold a card still in Ann's hand.
    bob_answers, viewer_answers = Answers(bob), Answers(viewer)
    bob.reload()
    viewer.reload()
    expect(bob.locator(".pazaak-hidden")).to_have_text("4 cards in hand, on their own phone")
    expect(bob.get_by_role("status").filter(has_text="Waiting for Ann to play.")).to_be_visible()
    audit_layout(bob, PLAYERS)

    # Set 1: Ann draws 10, plays her +5 and stands; Bob's board, live, shows it and then plays.
    play(page, "Draw 10", "Ann: +5", "Stand")
    expect(bob.locator(".pazaak-hidden")).to_have_text("3 cards in hand, on their own phone")
    expect(bob.get_by_role("list", name="Ann’s cards")).to_contain_text("+5")
    audit_layout(bob, PLAYERS)
    play(bob, "Draw 9", "Stand")
    expect(bob.get_by_role("status").filter(has_text="Set 1 is decided and saved.")).to_be_visible()
    expect(page.get_by_role("heading", name="Set 2 · your board")).to_be_visible()
    # The sets table came with the answer: its "Set" column is never broken into letters by the long name.
    expect(bob.get_by_role("columnheader", name="Set", exact=True)).to_be_visible()
    audit_layout(bob, [*PLAYERS, "Set"])

    # Sets 2 and 3, each begun by its starter, are won by Ann: the match ends on both boards and the viewer.
    for number in (2, 3):
        expect(bob.get_by_role("heading", name=f"Set {number} · your board")).to_be_visible()
        starts = bob if bob.get_by_role("button", name="Draw 9", exact=True).count() else page
        if starts is bob:
            play(bob, "Draw 9", "Stand")
            play(page, "Draw 10", "Stand")
        else:
            play(page, "Draw 10", "Stand")
            play(bob, "Draw 9", "Stand")
    for phone in (page, bob, viewer):
        expect(phone.get_by_text("The match is over. It is kept in the history.")).to_be_visible()
    audit_layout(bob, PLAYERS)

    assert leaked(bob_answers.texts() + stored(bob), NEVER_PLAYED) == []
    assert leaked(viewer_answers.texts() + stored(viewer), [*NEVER_PLAYED, "−1", "T±1"]) == []
    # The check can fail: Ann's own phone received her hand, in its answers as in the board it drew.
    assert leaked(ann_answers.texts(), NEVER_PLAYED) == sorted(NEVER_PLAYED)
    export = page.request.get(match_url + ".json").text()
    assert leaked([export, page.request.get(match_url + "/changes").text()], NEVER_PLAYED) == []


def test_a_scorekeeper_who_does_not_play_watches_both_boards_live_and_frees_a_seat(
    page: Page, browser: Browser, live_server, app
):
    match_url, link = start_pazaak(page, live_server.url, app, {"width": 1180, "height": 820})
    ann = new_phone(browser, live_server.url, {"width": 360, "height": 740})
    bob = new_phone(browser, live_server.url, {"width": 360, "height": 740}, locale="it-IT")
    take_seat(ann, link, "Ann")
    bob.goto(link)
    bob.get_by_label(LONG).check()
    bob.get_by_role("button", name="Prendi posto").tap()
    note_hand(ann, ANN)
    page.goto(match_url)
    # The scorekeeper's calculator: Ann's hand only as its size, and her side cards left to her phone.
    expect(page.locator(".pazaak-hidden")).to_have_text("4 cards in hand, on their own phone")
    expect(page.get_by_text("Ann plays their side cards on their own phone.")).to_be_visible()
    audit_layout(page, PLAYERS)
    play(ann, "Draw 10", "Ann: +5")
    # Live, without a reload: her cards on her table, her hand one card smaller.
    expect(page.get_by_role("list", name="Ann’s cards").get_by_role("listitem")).to_contain_text(["10", "+5"])
    expect(page.locator(".pazaak-hidden")).to_have_text("3 cards in hand, on their own phone")
    assert leaked([page.content()], NEVER_PLAYED) == []

    # The scorekeeper frees Bob's seat: his phone is told, follows as a viewer, and his taps go nowhere.
    page.get_by_role("link", name="Share · viewer QR").click()
    page.get_by_role("button", name=f"Free the seat of {LONG}").click()
    expect(bob.get_by_text("Stai seguendo questa partita")).to_be_visible()
    expect(bob.locator(".pazaak-calc")).to_have_count(0)
    audit_layout(bob, PLAYERS)


def test_a_hand_answer_that_comes_back_late_never_draws_the_picker_over_the_full_hand(
    page: Page, browser: Browser, live_server, app
):
    # On a busy machine Ann's four quick taps were all stored, yet her phone still showed the picker: the
    # third tap's answer came back after the fourth's and drew the entry as it stood a card before, and
    # every poll after it was a 304, so nothing drew it again.
    ann = seated_with_two_cards(page, browser, live_server.url, app)
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    ann.route("**/hand", hold_the_first)
    ann.get_by_role("button", name=f"Add {ANN[2]} to your hand", exact=True).tap()
    wait_until_held(ann, held, "the third card's answer")
    # The fourth tap, on the picker the third's answer has not redrawn yet, is answered first.
    ann.get_by_role("button", name=f"Add {ANN[3]} to your hand", exact=True).tap()
    expect_full_hand(ann)
    route, answer = held[0]
    with ann.expect_event("requestfinished", lambda request: request.url.endswith("/hand")):
        route.fulfill(response=answer)
    ann.unroute("**/hand")
    # The page has drawn (or skipped) the late answer before it hears its next poll.
    with ann.expect_response(lambda response: "/live" in response.url):
        pass
    # The late answer drew nothing over the hand: the four cards and no palette, as a reload draws them.
    expect_full_hand(ann)
    ann.reload()
    expect_full_hand(ann)


def seated_with_two_cards(page: Page, browser: Browser, base: str, app) -> Page:
    """Ann's phone at 360 px, seated at a Pazaak match the scorekeeper's tablet started, two cards of her hand
    noted."""
    _, link = start_pazaak(page, base, app, {"width": 1180, "height": 820})
    ann = new_phone(browser, base, {"width": 360, "height": 740})
    take_seat(ann, link, "Ann")
    for number, card in enumerate(ANN[:2], start=1):
        ann.get_by_role("button", name=f"Add {card} to your hand", exact=True).tap()
        expect(ann.get_by_role("list", name="Your hand").get_by_role("listitem")).to_have_count(number)
    return ann


def expect_full_hand(phone: Page) -> None:
    """The phone shows the four cards of Ann's hand noted, and no side card left to add."""
    expect(phone.get_by_role("list", name="Your hand").get_by_role("listitem")).to_have_count(4)
    expect(phone.locator(".pazaak-note-hand .pazaak-palette")).to_have_count(0)


def poll_held_over_the_third_card(ann: Page) -> tuple[Route, APIResponse]:
    """Every poll of Ann's phone held from now on; the first, sent while it showed two cards, answered by the
    server once her third card is stored (the entry as it stands at three cards, out of band): that poll and its
    answer, not yet given to the phone."""
    held = []
    # Every poll is held: the late one is let through alone, and none after it can draw the entry again before the
    # page is looked at.
    ann.route(re.compile(r"/matches/[0-9A-Za-z]{11}/live$"), lambda route: held.append(route))
    wait_until_held(ann, held, "a poll")
    ann.get_by_role("button", name=f"Add {ANN[2]} to your hand", exact=True).tap()
    expect(ann.get_by_role("list", name="Your hand").get_by_role("listitem")).to_have_count(3)
    answer = held[0].fetch()
    assert 'id="entry"' in answer.text(), "the held poll was expected to draw the entry again"
    return held[0], answer


def answer_late(ann: Page, poll: Route, answer: APIResponse) -> None:
    """The held poll's answer given to the phone now, and drawn (or skipped) by its page before this returns."""
    ann.evaluate("""() => { window.lateAnswerHandled = new Promise(done =>
        document.getElementById('live').addEventListener('htmx:afterRequest', done, {once: true})); }""")
    poll.fulfill(response=answer)
    ann.evaluate("() => window.lateAnswerHandled.then(() => true)")


def test_a_poll_that_comes_back_late_never_draws_the_picker_over_the_full_hand(
    page: Page, browser: Browser, live_server, app
):
    # A phone outside the group once kept its picker after four quick taps (a CI run on a busy machine): a poll
    # sent before the third tap was stored came back after the fourth tap's answer, with the entry redrawn as
    # it stood at three cards.
    ann = seated_with_two_cards(page, browser, live_server.url, app)
    poll, answer = poll_held_over_the_third_card(ann)
    # The poll reaches the phone only after the fourth tap's answer drew the full hand.
    ann.get_by_role("button", name=f"Add {ANN[3]} to your hand", exact=True).tap()
    expect_full_hand(ann)
    answer_late(ann, poll, answer)
    expect_full_hand(ann)
    ann.unroute_all(behavior="ignoreErrors")
    ann.reload()
    expect_full_hand(ann)


def test_a_poll_that_brings_the_entry_the_tap_drew_already_does_not_draw_it_again_under_the_next_tap(
    page: Page, browser: Browser, live_server, app
):
    # A host's Stand was lost in a CI run: its poll, sent before its Draw was answered, came back after with the
    # board the Draw's answer had drawn, and drew it again; the Stand tapped meanwhile landed on the board being
    # replaced and sent nothing.
    ann = seated_with_two_cards(page, browser, live_server.url, app)
    poll, answer = poll_held_over_the_third_card(ann)
    # The poll, answered since the third card's tap, brings the entry that tap's answer drew: the one on the phone
    # stays, the next tap's target.
    ann.evaluate("() => { document.querySelector('#entry [data-entry-version]').kept = true; }")
    answer_late(ann, poll, answer)
    assert ann.evaluate("() => document.querySelector('#entry [data-entry-version]').kept === true"), (
        "the poll drew the entry the tap had drawn again"
    )
    ann.unroute_all(behavior="ignoreErrors")
    ann.get_by_role("button", name=f"Add {ANN[3]} to your hand", exact=True).tap()
    expect_full_hand(ann)
