"""Browser test of seats for the players' own phones: the seat link, a phone taking its seat (in Italian), its own
cards held growing live, the scorekeeper seeing who sits where and freeing a seat, the seated phone told at once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.burraco_helpers import BURRACO_NAMES, side_named, start_burraco, tap_burraco_keypad
from tests.e2e.helpers import (
    NETWORK_CUT,
    add_to_roster,
    go_offline,
    go_online,
    new_phone,
    press_start,
    seat_players,
    start_match,
)
from tests.e2e.topic_helpers import COUNT_TAPS_SCRIPT, topic_loser_button
from tests.helpers import PHONE

pytestmark = pytest.mark.e2e

LONG = "Bartolomeo-Massimiliano-Giovanbattista-X"  # 40 characters, one unbroken word
PLAYERS = ["Ann", LONG, "Cy"]


def test_a_phone_takes_its_seat_follows_its_own_cards_and_is_told_when_freed(
    page: Page, browser: Browser, live_server, app
):
    add_to_roster(app, *PLAYERS)
    page.set_viewport_size(PHONE)
    start_match(page, live_server.url, "Topic_", PLAYERS)
    match_url = page.url
    page.get_by_role("link", name="Share · viewer QR").click()
    expect(page.get_by_role("img", name="QR code of the seat link")).to_be_visible()
    link = page.locator("#seats-panel .qr-url a").get_attribute("href")
    audit_layout(page, PLAYERS)

    # A player's phone, in Italian, opens the seat link and takes the 40-character name's seat.
    seated = new_phone(browser, live_server.url, {"width": 360, "height": 740}, locale="it-IT")
    seated.goto(link)
    expect(seated.get_by_role("heading", name="Quale giocatore sei?")).to_be_visible()
    audit_layout(seated, PLAYERS)
    # Each name's radio is drawn round (its label is the thumb's target), not stretched to a thumb's height.
    radio = seated.get_by_label(LONG).bounding_box()
    assert radio is not None and abs(radio["width"] - radio["height"]) <= 1, radio
    seated.get_by_label(LONG).check()
    seated.get_by_role("button", name="Prendi posto").tap()
    expect(seated).to_have_url(match_url)
    expect(seated.get_by_role("status").filter(has_text="Il tuo posto")).to_contain_text(LONG)
    mine = seated.locator(".topic-mine .big-num")
    expect(mine).to_have_text("0")
    audit_layout(seated, PLAYERS)

    # The scorekeeper's share page shows the seat taken without a reload; another phone cannot take it.
    taken = page.locator("#seats-panel li").filter(has_text=LONG)
    expect(taken.locator(".seat-phone")).to_contain_text("Chrome")
    late = new_phone(browser, live_server.url, PHONE)
    late.goto(link)
    expect(late.get_by_label(LONG)).to_be_disabled()
    expect(late.locator(".seat-taken")).to_contain_text("taken")

    # The scorekeeper's one tap: the seated phone's own cards held grow at its next poll; a viewer's page has none.
    page.goto(match_url)
    topic_loser_button(page, LONG).tap()
    expect(page.get_by_role("status").filter(has_text="Round 1:")).to_be_visible()
    expect(mine).to_have_text("1")
    expect(late.locator(".topic-mine")).to_have_count(0)
    audit_layout(seated, PLAYERS)

    # The scorekeeper frees the seat: the phone that sat there is told at its next poll, and follows.
    page.get_by_role("link", name="Share · viewer QR").click()
    page.get_by_role("button", name=f"Free the seat of {LONG}").tap()
    expect(taken.locator(".seat-phone")).to_have_count(0)
    expect(taken).to_contain_text("no phone yet")
    expect(seated.get_by_text("Il tuo posto")).to_have_count(0)
    expect(seated.locator(".topic-mine")).to_have_count(0)
    expect(seated.locator(".viewer-note")).to_be_visible()
    # The seat is free again: the late phone takes it.
    late.reload()
    late.get_by_label(LONG).check()
    late.get_by_role("button", name="Take a seat").tap()
    expect(late.get_by_role("status").filter(has_text="Your seat")).to_contain_text(LONG)
    expect(late.locator(".topic-mine .big-num")).to_have_text("1")
    assert re.search(r"/matches/\w{11}$", late.url)


def seat_link_of(page: Page) -> str:
    """The match's seat link, as its scorekeeper's share page shows it; the scorekeeper's phone goes back to the
    match page."""
    match_url = page.url
    page.get_by_role("link", name="Share · viewer QR").click()
    link = page.locator("#seats-panel .qr-url a").get_attribute("href")
    page.goto(match_url)
    return link


def seat_phone(browser: Browser, link: str, name: str, *, size: dict = PHONE, locale: str = "en-GB") -> Page:
    """A player's own phone: it opens the seat link, picks its name and takes the seat, in the phone's language."""
    phone = browser.new_context(viewport=size, has_touch=True, locale=locale).new_page()
    phone.goto(link)
    phone.get_by_label(name).check()
    phone.get_by_role("button", name="Prendi posto" if locale.startswith("it") else "Take a seat").tap()
    return phone


def send_row(phone: Page, points: list[int], word: str, send_label: str) -> None:
    """On a seated phone: the points of the word's cards on the keypad, the word, Send."""
    for value in points:
        phone.locator(".pz-keys").get_by_role("button", name=str(value), exact=True).tap()
    phone.locator(".pz-word").fill(word)
    phone.get_by_role("button", name=re.compile(send_label)).tap()


@pytest.mark.database
def test_four_seated_phones_send_their_rows_and_the_scorekeeper_saves_the_round_with_one_tap(
    page: Page, browser: Browser, live_server, app, browser_faults
):
    players = ["John", "Ringo", "Paul", LONG]
    add_to_roster(app, *players)
    page.set_viewport_size(PHONE)
    start_match(page, live_server.url, "Pazzaparola", players)
    match_url = page.url
    link = seat_link_of(page)

    # Every tap the scorekeeper makes from here to the round saved, counted in the page.
    page.evaluate(COUNT_TAPS_SCRIPT)
    phones = {name: seat_phone(browser, link, name) for name in players[:3]}
    phones[LONG] = seat_phone(browser, link, LONG, size={"width": 360, "height": 740}, locale="it-IT")
    rows = {"John": ([7, 2, 7, 2, 3], "ZANZARA"), "Ringo": ([5, 3, 3], "GAS"), "Paul": ([3, 3], "OH"),
            LONG: ([2, 2, 2, 2], "CASA")}  # fmt: skip
    for name in players[:3]:
        points, word = rows[name]
        send_row(phones[name], points, word, "Send my row of round 1")
        expect(phones[name].get_by_role("status").filter(has_text="Row sent")).to_be_visible()
    # The scorekeeper's sheet fills in live: 3 of 4 rows in, each row marked with the phone it came from.
    expect(page.locator(".rows-in")).to_contain_text("Rows in: 3 of 4")
    john = page.get_by_role("group", name="John", exact=True)
    expect(john.locator(".pz-chip")).to_have_count(5)
    expect(john.locator(".pz-word")).to_have_value("ZANZARA")
    expect(john.locator(".sent-by")).to_contain_text("sent from")
    audit_layout(page, players)
    # The Italian phone's row, and its page, at 360 px.
    audit_layout(phones[LONG], players)
    send_row(phones[LONG], *rows[LONG], "Invia la mia riga del turno 1")
    expect(phones[LONG].get_by_role("status").filter(has_text="Riga inviata")).to_be_visible()
    expect(page.locator(".rows-in")).to_contain_text("Rows in: 4 of 4")
    expect(page.get_by_role("group", name=LONG, exact=True).locator(".pz-chip")).to_have_count(4)

    # One tap saves the round; every seated phone's entry moves on to round 2 and its standings show the point.
    page.get_by_role("button", name="Save round 1").tap()
    expect(page.get_by_role("status").filter(has_text="Round 1:")).to_be_visible()
    # The count starts again for round 2 at once (it stayed at round 1's "4 of 4" until a row came).
    expect(page.locator(".rows-in")).to_contain_text("Rows in: 0 of 4")
    taps = page.evaluate("window.topicTaps")
    print(f"\nthe scorekeeper's taps for a round of four seated players: {taps}")
    assert taps == 1
    stored = page.request.get(match_url + ".json").json()["rounds"][0]["rows"]
    assert {name: stored[name]["used"] for name in players} == {name: rows[name][0] for name in players}
    assert stored["John"]["word"] == "ZANZARA"
    for name in players[:3]:
        expect(phones[name].get_by_role("button", name="Send my row of round 2")).to_be_visible()
    expect(phones[LONG].get_by_role("button", name="Invia la mia riga del turno 2")).to_be_visible()
    expect(phones["Ringo"].locator(".pz-chip")).to_have_count(0)
    audit_layout(phones[LONG], players)

    # Round 2: the scorekeeper corrects Ringo's row as it came (4 → 6) while Ringo sends it again (4, 1): the
    # row changed here is not overwritten by the poll, and Save is refused with the row as Ringo sent it.
    send_row(phones["Ringo"], [4], "", "Send my row of round 2")
    ringo = page.get_by_role("group", name="Ringo", exact=True)
    expect(ringo.locator(".pz-chip")).to_have_count(1)
    ringo.get_by_role("button", name="Take back 4 from Ringo").tap()
    page.locator(".pz-keys").get_by_role("button", name="6", exact=True).tap()
    send_row(phones["Ringo"], [1], "", "Send my row of round 2")
    expect(phones["Ringo"].get_by_role("status").filter(has_text="Row sent")).to_be_visible()
    # The poll brings Ringo's second send; the row changed here keeps the scorekeeper's 6.
    expect(page.locator(".rows-in")).to_have_attribute("data-sent-rows", re.compile(r'"rev": 2'))
    expect(ringo.locator('input[name="used-1"]')).to_have_count(1)
    expect(ringo.locator('input[name="used-1"]')).to_have_value("6")
    # The refused Save is a 409 the browser reports, as the test means it to.
    browser_faults.expect("Failed to load resource: the server responded with a status of 409 (CONFLICT)")
    page.get_by_role("button", name="Save round 2").tap()
    expect(page.get_by_role("alert").filter(has_text="a row was sent again")).to_be_visible()
    ringo = page.get_by_role("group", name="Ringo", exact=True)
    expect(ringo).to_contain_text("Ringo sent this row again meanwhile")
    expect(ringo.locator(".pz-chip")).to_have_count(2)
    page.get_by_role("button", name="Save round 2").tap()
    expect(page.get_by_role("status").filter(has_text="Round 2:")).to_be_visible()
    stored = page.request.get(match_url + ".json").json()["rounds"][1]["rows"]
    assert stored["Ringo"]["used"] == [4, 1]


@pytest.mark.database
def test_a_table_that_chose_it_has_the_round_saved_by_the_last_row_sent(page: Page, browser: Browser, live_server, app):
    players = ["John", LONG]
    add_to_roster(app, *players)
    page.set_viewport_size({"width": 360, "height": 740})
    seat_players(page, live_server.url, "Pazzaparola", players)
    page.get_by_label("Save each round by itself once every player's row is in").check()
    audit_layout(page, players)
    press_start(page, "Pazzaparola", players)
    match_url = page.url
    link = seat_link_of(page)
    page.evaluate(COUNT_TAPS_SCRIPT)
    john, long = seat_phone(browser, link, "John"), seat_phone(browser, link, LONG, locale="it-IT")
    send_row(john, [7, 2, 3], "GAS", "Send my row of round 1")
    expect(page.locator(".rows-in")).to_contain_text("Rows in: 1 of 2")
    send_row(long, [2, 2], "IO", "Invia la mia riga del turno 1")
    expect(long.get_by_role("status").filter(has_text="La tua era l'ultima riga")).to_be_visible()
    # No tap on the scorekeeper's phone: its standings show the point and its entry has moved on to round 2.
    expect(page.get_by_role("button", name="Save round 2")).to_be_visible()
    expect(page.locator("#rounds")).to_contain_text("GAS")
    assert page.evaluate("window.topicTaps") == 0
    expect(john.get_by_role("button", name="Send my row of round 2")).to_be_visible()
    audit_layout(page, players)
    audit_layout(long, players)
    stored = page.request.get(match_url + ".json").json()["rounds"][0]["rows"]
    assert stored["John"]["used"] == [7, 2, 3] and stored[LONG]["used"] == [2, 2]


def test_a_row_sent_offline_waits_goes_out_once_and_a_refused_one_needs_a_look(
    page: Page, browser: Browser, live_server, app, browser_faults
):
    players = ["John", "Ringo"]
    add_to_roster(app, *players)
    page.set_viewport_size(PHONE)
    start_match(page, live_server.url, "Pazzaparola", players)
    match_url = page.url
    link = seat_link_of(page)
    ringo = seat_phone(browser, link, "Ringo", size={"width": 360, "height": 740})
    for text in NETWORK_CUT:
        browser_faults.expect(text, may_not_come=True)
    expect(ringo.get_by_role("button", name="Send my row of round 1")).to_be_visible()
    # Round 1: the row is sent while the phone is offline; it waits, then goes out by itself, once.
    go_offline(ringo)
    send_row(ringo, [5, 3], "GAS", "Send my row of round 1")
    expect(ringo.get_by_role("status").filter(has_text="Not sent yet")).to_be_visible()
    audit_layout(ringo, players)
    expect(page.locator(".rows-in")).to_contain_text("Rows in: 0 of 2")
    go_online(ringo)
    expect(page.locator(".rows-in")).to_contain_text("Rows in: 1 of 2")
    expect(ringo.locator("#seat-rows-kept")).to_have_count(0)
    ringo_row = page.get_by_role("group", name="Ringo", exact=True)
    expect(ringo_row.locator(".pz-chip")).to_have_count(2)
    page.get_by_role("group", name="John", exact=True).locator(".pz-pick").tap()
    page.locator(".pz-keys").get_by_role("button", name="4", exact=True).tap()
    page.get_by_role("button", name="Save round 1").tap()
    expect(page.get_by_role("status").filter(has_text="Round 1:")).to_be_visible()
    stored = page.request.get(match_url + ".json").json()["rounds"][0]["rows"]
    assert stored["Ringo"]["used"] == [5, 3] and stored["John"]["used"] == [4]

    # Round 2: offline again; meanwhile the scorekeeper saves round 2 without it. Back online, the row is
    # refused with its reason and stays, as needing a look, until Ringo discards it; nothing else is stored.
    expect(ringo.get_by_role("button", name="Send my row of round 2")).to_be_visible()
    go_offline(ringo)
    send_row(ringo, [9], "", "Send my row of round 2")
    expect(ringo.get_by_role("status").filter(has_text="Not sent yet")).to_be_visible()
    page.locator(".pz-keys").get_by_role("button", name="2", exact=True).tap()
    page.get_by_role("button", name="Save round 2").tap()
    expect(page.get_by_role("status").filter(has_text="Round 2:")).to_be_visible()
    browser_faults.expect("Failed to load resource: the server responded with a status of 409 (CONFLICT)")
    go_online(ringo)
    look = ringo.get_by_role("alert").filter(has_text="Needs a look, not sent")
    expect(look).to_contain_text("2 was saved before your row arrived")
    expect(ringo.get_by_role("button", name="Send my row of round 3")).to_be_visible()
    # The reason alone: not the warnings the answer's entry keeps hidden until a tap calls for them.
    expect(look).not_to_contain_text("cards")
    ringo.reload()  # a phone put away and opened again still shows it
    expect(look).to_contain_text("2 was saved before your row arrived")
    audit_layout(ringo, players)
    look.get_by_role("button", name="Discard").tap()
    expect(look).to_have_count(0)
    ringo.reload()
    expect(ringo.locator("#seat-rows-kept")).to_have_count(0)
    assert len(page.request.get(match_url + ".json").json()["rounds"]) == 2

    # Round 3: the scorekeeper's phone keeps the round offline, Ringo's row not in, and Ringo sends one meanwhile.
    # Back online, the kept round is refused for a look, and its read-back no longer says it waits to be sent.
    go_offline(page)
    page.get_by_role("group", name="John", exact=True).locator(".pz-pick").tap()
    page.locator(".pz-keys").get_by_role("button", name="5", exact=True).tap()
    page.get_by_role("button", name="Save round 3").tap()
    expect(page.locator("#banner")).to_contain_text("not sent yet")
    send_row(ringo, [6], "", "Send my row of round 3")
    expect(ringo.get_by_role("status").filter(has_text="Row sent")).to_be_visible()
    go_online(page)
    expect(page.locator("#offline-status")).to_have_text("1 round needs a look")
    expect(page.locator("#waiting-rounds")).to_contain_text("Ringo sent a row after this round was kept on this phone")
    expect(page.locator("#banner")).not_to_contain_text("not sent yet")
    assert len(page.request.get(match_url + ".json").json()["rounds"]) == 2
    # The entry below is round 4's, after the kept one: Ringo's row of round 3 is not filled into it by the polls.
    expect(page.get_by_role("button", name="Save round 4")).to_be_visible()
    ringo_row = page.get_by_role("group", name="Ringo", exact=True)
    page.wait_for_timeout(2500)
    expect(ringo_row.locator(".pz-chip")).to_have_count(0)
    # Entered again, the entry is round 3's once more, with Ringo's row as sent.
    page.locator("#waiting-rounds").get_by_role("button", name="Enter again").tap()
    expect(page.get_by_role("button", name="Save round 3")).to_be_visible()
    expect(ringo_row.locator(".pz-chip")).to_have_count(1)


def test_burraco_in_pairs_each_pair_sends_its_hand_from_a_partners_phone(
    page: Page, browser: Browser, live_server, app, browser_faults
):
    players = ["Ann", "Bob", "Cy", "Di"]
    add_to_roster(app, *players)
    page.set_viewport_size(PHONE)
    start_burraco(page, live_server.url, players, pairs=True)
    match_url = page.url
    link = seat_link_of(page)
    cy, di = seat_phone(browser, link, "Cy"), seat_phone(browser, link, "Di", locale="it-IT")
    # Cy's phone enters the pair Us's hand: Us's card alone, no closer; Di's (Them) in Italian.
    expect(cy.locator("#entry").get_by_role("group", name=side_named("Them"))).to_have_count(0)
    expect(cy.locator("#entry").get_by_role("radio", name="Nobody")).to_have_count(0)
    card = cy.locator("#entry").get_by_role("group", name=side_named("Us"))
    card.get_by_label("Laid on the table").click()
    tap_burraco_keypad(cy, "120+35")
    card.get_by_role("button", name="One more Clean (pulito) for Us").click()
    # The wi-fi drops as Cy taps Send: the phone keeps the hand, says so, and sends it by itself once back.
    for text in NETWORK_CUT:
        browser_faults.expect(text, may_not_come=True)
    go_offline(cy)
    cy.get_by_role("button", name="Send our hand 1").tap()
    expect(cy.get_by_role("status").filter(has_text="Not sent yet: it waits on this phone")).to_be_visible()
    expect(card.get_by_label("Laid on the table")).to_have_value("120+35")
    audit_layout(cy, BURRACO_NAMES)
    expect(page.locator(".rows-in")).to_contain_text("Hands in: 0 of 2")
    go_online(cy)
    expect(cy.get_by_role("status").filter(has_text="Hand sent")).to_be_visible()
    expect(cy.locator("#seat-rows-kept")).to_have_count(0)
    audit_layout(cy, BURRACO_NAMES)
    # The scorekeeper's sheet fills Us's card in live; Them's still waits.
    expect(page.locator(".rows-in")).to_contain_text("Hands in: 1 of 2")
    expect(page.locator(".rows-in")).to_contain_text("waiting for Them")
    us = page.locator("#entry").get_by_role("group", name=side_named("Us"))
    expect(us.get_by_label("Laid on the table")).to_have_value("155")
    expect(us.locator(".sent-by")).to_contain_text("sent from")
    di.get_by_label("Calate in tavola").click()
    for key in "40":
        di.get_by_role("group", name="Tastierino").get_by_role("button", name=key, exact=True).click()
    di.get_by_role("button", name="Invia la nostra mano 1").tap()
    expect(page.locator(".rows-in")).to_contain_text("Hands in: 2 of 2")
    them = page.locator("#entry").get_by_role("group", name=side_named("Them"))
    expect(them.get_by_label("Laid on the table")).to_have_value("40")
    audit_layout(page, BURRACO_NAMES)
    # Who closed, then Save: the hands as sent.
    page.locator("#entry").get_by_role("radio", name="Us", exact=True).click()
    page.get_by_role("button", name="Save hand 1").click()
    expect(page.locator("#banner")).to_contain_text("Hand 1")
    stored = page.request.get(match_url + ".json").json()["rounds"][0]["sides"]
    assert stored["Us"] == {"table": 155, "hand": 0, "clean": 1, "dirty": 0}
    assert stored["Them"] == {"table": 40, "hand": 0, "clean": 0, "dirty": 0}
    expect(cy.get_by_role("button", name="Send our hand 2")).to_be_visible()


# Where a seated phone's own row lies against the top of the screen and the top of the keypad's tray.
OWN_ROW_IN_VIEW = """() => {
  const row = document.querySelector("#entry .seat-row-entry .pz-row").getBoundingClientRect();
  const tray = document.querySelector("#entry .pz-tray").getBoundingClientRect();
  return {row_top: Math.round(row.top), row_bottom: Math.round(row.bottom), tray_top: Math.round(tray.top),
          screen: innerHeight};
}"""


def assert_own_row_above_the_keypad(phone: Page, when: str) -> None:
    """The row the seated phone enters lies between the top of the screen and the top of the keypad's tray."""
    where = phone.evaluate(OWN_ROW_IN_VIEW)
    assert where["row_top"] >= 0 and where["row_bottom"] <= where["tray_top"], f"{when}: {where}"


def test_a_seated_phone_sees_its_own_row_above_the_keypad_on_opening_and_after_each_round(
    page: Page, browser: Browser, live_server, app
):
    # On a 360×740 phone the keypad's tray, stuck to the bottom of the screen, covered the player's own row
    # when the page opened and again after every round: the player tapped points into a row they could not see.
    players = ["John", LONG]
    add_to_roster(app, *players)
    seat_players(page, live_server.url, "Pazzaparola", players)
    page.get_by_label("Save each round by itself once every player's row is in").check()
    press_start(page, "Pazzaparola", players)
    link = seat_link_of(page)
    john = seat_phone(browser, link, "John", size={"width": 360, "height": 740})
    long = seat_phone(browser, link, LONG, size={"width": 360, "height": 740}, locale="it-IT")
    expect(john.get_by_role("button", name="Send my row of round 1")).to_be_visible()
    assert_own_row_above_the_keypad(john, "on opening")
    expect(long.get_by_role("button", name="Invia la mia riga del turno 1")).to_be_visible()
    assert_own_row_above_the_keypad(long, "on opening, in Italian")
    for number, (john_row, long_row) in enumerate([([7, 2, 3], [2, 2]), ([5], [3, 3])], start=1):
        send_row(john, john_row, "", f"Send my row of round {number}")
        expect(john.get_by_role("status").filter(has_text="Row sent")).to_be_visible()
        send_row(long, long_row, "", f"Invia la mia riga del turno {number}")
        # The last row sent saved the round: each phone's entry moves on to the next by its poll.
        expect(john.get_by_role("button", name=f"Send my row of round {number + 1}")).to_be_visible()
        assert_own_row_above_the_keypad(john, f"after round {number}")
        expect(long.get_by_role("button", name=f"Invia la mia riga del turno {number + 1}")).to_be_visible()
        assert_own_row_above_the_keypad(long, f"after round {number}, in Italian")


def test_play_again_takes_the_seated_phones_to_the_new_match_at_their_seats(
    page: Page, browser: Browser, live_server, app
):
    # After Play again every player had to scan the seat link and pick their name again, or the rounds the table
    # had chosen to have saved by themselves waited for rows nobody could send.
    players = ["John", LONG]
    add_to_roster(app, *players)
    seat_players(page, live_server.url, "Pazzaparola", players)
    for _ in range(2):
        page.get_by_role("button", name="Fewer victory points to win").click()
    expect(page.get_by_label("Victory points to win", exact=True)).to_have_value("1")
    page.get_by_label("Save each round by itself once every player's row is in").check()
    press_start(page, "Pazzaparola", players)
    link = seat_link_of(page)
    john = seat_phone(browser, link, "John", size={"width": 360, "height": 740})
    long = seat_phone(browser, link, LONG, size={"width": 390, "height": 844}, locale="it-IT")
    send_row(john, [7, 2, 3], "GAS", "Send my row of round 1")
    expect(john.get_by_role("status").filter(has_text="Row sent")).to_be_visible()
    send_row(long, [2, 2], "IO", "Invia la mia riga del turno 1")
    expect(john.get_by_text("The match is over. It is kept in the history.")).to_be_visible()
    expect(long.get_by_text("La partita è finita. Resta nello storico.")).to_be_visible()
    finished_url = john.url

    page.get_by_role("button", name="Play again").click()
    expect(page).not_to_have_url(finished_url)
    new_url = page.url
    # Within a poll or two, each seated phone is on the new match, at its own seat, no name picked again.
    for phone in (john, long):
        expect(phone).to_have_url(new_url, timeout=3500)
    expect(john.get_by_role("status").filter(has_text="Your seat")).to_contain_text("John")
    expect(john.get_by_role("button", name="Send my row of round 1")).to_be_visible()
    expect(long.get_by_role("button", name="Invia la mia riga del turno 1")).to_be_visible()
    audit_layout(long, players)
    # And the round is saved by itself once both rows are in.
    send_row(john, [5], "", "Send my row of round 1")
    expect(john.get_by_role("status").filter(has_text="Row sent")).to_be_visible()
    send_row(long, [3, 3], "", "Invia la mia riga del turno 1")
    expect(page.locator("#rounds")).to_contain_text("Round 1")
    stored = page.request.get(new_url + ".json").json()["rounds"]
    assert [sorted(stored[0]["rows"][name]["used"]) for name in players] == [[5], [3, 3]]
    # The finished match is as it was: its seats and its one round.
    assert len(page.request.get(finished_url + ".json").json()["rounds"]) == 1
