"""Browser tests of how a phone reaches the club evenings and picks among their entrants: the top bar's link to
them at 360 and 390 px in English and Italian, the arbiter's entrant picker showing 40-character names whole, the
setup form keeping what is typed while it is redrawn, a confirmation kept by the version before sent by this one, and
a table's phone polling once a second while following the hands, the network and its panel."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Page, Route, expect
from sqlalchemy import select

from companion.extensions import db
from companion.models import Group, Match, utcnow
from companion.models.club import ClubEvening, ClubTable
from companion.services import club as club_service
from companion.services import host, matches
from companion.services.club_clock import run_clock
from tests.e2e.audit import audit_layout
from tests.e2e.burraco_helpers import enter_burraco_hand
from tests.e2e.helpers import NETWORK_CUT, controlled_by_the_service_worker, go_offline, go_online, wait_until_held
from tests.helpers import begun_evening, started_evening, unref

pytestmark = pytest.mark.e2e

PHONES = [{"width": 360, "height": 740}, {"width": 390, "height": 844}]
LOOKS = [("en-GB", "Evenings", "Club evenings"), ("it-IT", "Serate", "Serate di circolo")]
# Two pairs of 40-character names, each with a club: the longest line the picker draws; a double surname the longest
# word a column of names must hold.
LONG = [
    f"{first} Della Valle Bonaventura-Squarcialupi"[:38] + f" {n}" for n in (1, 2) for first in ("Gianfranco", "Ada")
]
PAIRS = [
    (LONG[:2], "Circolo Lungolago di Arona"),
    (LONG[2:], None),
    (["Verdi", "Neri"], None),
    (["Gallo", "Conti"], None),
]
PLAN = {"game": "burraco", "pairs": True, "turns": 2, "hands": 2, "first": "mitchell", "then": "danese_modificato"}


def call_from_table(app, address: str, number: int) -> None:
    """Table `number` of the turn calls the arbiter (as its phone's call stores it)."""
    with app.app_context():
        evening = db.session.scalar(select(ClubEvening).where(ClubEvening.public_id == address))
        table = db.session.scalar(select(ClubTable).filter_by(evening_id=evening.id, turn=evening.turn, number=number))
        table.call, table.called_at = "a card fell under the table", utcnow()
        evening.version += 1
        db.session.commit()
        db.session.remove()


def phone(browser: Browser, size: dict, locale: str) -> Page:
    return browser.new_context(viewport=size, has_touch=True, locale=locale).new_page()


@pytest.mark.parametrize("size", PHONES, ids=["360", "390"])
@pytest.mark.parametrize(("locale", "label", "heading"), LOOKS, ids=["en", "it"])
def test_the_top_bar_leads_to_the_club_evenings(browser: Browser, module_live_server, size, locale, label, heading):
    page = phone(browser, size, locale)
    page.goto(f"{module_live_server.url}/history")
    bar = page.locator("header.topbar nav")
    link = bar.get_by_role("link", name=label, exact=True)
    expect(link).to_be_visible()
    # The bar holds its links on the phone's width: nothing pushed off the right edge, each one a thumb's target.
    for item in bar.get_by_role("link").all():
        box = item.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"], item.inner_text()
        assert box["height"] >= 44, item.inner_text()
    audit_layout(page, sizes=[size])
    link.tap()
    expect(page.get_by_role("heading", name=heading, level=1)).to_be_visible()


def test_the_arbiters_entrant_picker_shows_long_names_whole_and_the_setup_form_keeps_what_is_typed(
    browser: Browser, module_live_server, module_app, browser_faults
):
    address = started_evening(module_app, "Friday", PLAN, PAIRS)
    # A phone half an hour off the server's UTC: the log's times are the phone's.
    kolkata = browser.new_context(viewport=PHONES[0], has_touch=True, locale="en-GB", timezone_id="Asia/Kolkata")
    page = kolkata.new_page()
    page.goto(f"{module_live_server.url}/host?token={host.new_link_token(module_app)}")
    page.get_by_role("button", name="Take host rights").click()
    page.goto(f"{module_live_server.url}/evenings/{address}")
    picker = page.get_by_role("group", name="Entrant")
    for number, (players, club) in enumerate(PAIRS, 1):
        label = picker.locator("label").filter(has=page.get_by_role("radio", name=re.compile(rf"^{number}\. ")))
        # The whole pair and its club, in lines no wider than the picker.
        expect(label).to_have_text(re.compile(re.escape(" – ".join(players)) + (rf".*{club}" if club else "")))
        assert label.evaluate("label => label.scrollWidth <= label.clientWidth")
    picker.get_by_role("radio", name=re.compile(r"^2\. ")).check()
    page.get_by_role("button", name="Late").click()
    expect(page.locator(".club-log")).to_contain_text(f"{' – '.join(LONG[2:])} late in turn 1: penalty 0")
    stamp = page.locator(".club-log time").first
    utc = datetime.fromisoformat(stamp.get_attribute("datetime").removesuffix("Z")).replace(tzinfo=UTC)
    expect(stamp).to_have_text(utc.astimezone(ZoneInfo("Asia/Kolkata")).strftime("%H:%M"))
    audit_layout(page, [name for players, _ in PAIRS for name in players])
    # Withdraw, which no tap takes back, asks first: declined, nothing is sent.
    questions: list[str] = []
    page.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.dismiss()))
    picker.get_by_role("radio", name=re.compile(r"^2\. ")).check()
    page.get_by_role("button", name="Withdraw").click()
    picker.get_by_role("radio", name=re.compile(r"^2\. ")).check()
    page.get_by_role("button", name="Late").click()
    expect(page.locator(".club-log li").filter(has_text="late in turn 1")).to_have_count(2)
    assert questions and questions[0].startswith("Withdraw this entrant from the evening?")
    expect(page.locator(".club-log")).not_to_contain_text("withdraws")
    # Points refused on a table's card are told there, what was typed kept, through the arbiter page's next poll;
    # the page stays where the arbiter was (the region's redraw once moved it to the bottom).
    card = page.locator(".club-table").filter(has_text="Table 2")
    card.locator("summary", has_text="Settle").click()
    card.get_by_label("N/S").fill("12a")
    card.get_by_label("E/W").fill("200")
    scrolled = page.evaluate("scrollY")
    browser_faults.expect("Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)")
    with page.expect_response(re.compile(r"/decide$")):
        card.get_by_role("button", name="Give these points").click()
    page.wait_for_timeout(2500)  # a poll's time: the region holds while its Settle is open
    refused = card.get_by_role("alert")
    expect(refused).to_have_text('A side\'s points must be a whole number, got "12a"')
    expect(card.get_by_label("N/S")).to_have_value("12a")
    assert abs(page.evaluate("scrollY") - scrolled) < 100
    # The log open, the page still follows the tables: a table's call shows at the next poll and the log stays open
    # (an open part once held every poll: the arbiter reading the log missed the calls).
    card.locator("summary", has_text="Settle").click()
    page.locator(".club-log summary").click()
    call_from_table(module_app, address, 1)
    expect(page.locator(".club-calls")).to_contain_text("Table 1")
    expect(page.locator("details.club-log")).to_have_attribute("open", "")
    # The standings, every pair's path with its opponents, fit the phone in English and in Italian.
    page.get_by_role("link", name="Standings").first.click()
    expect(page.get_by_role("heading", name=re.compile("^Standings"), level=1)).to_be_visible()
    audit_layout(page, [name for players, _ in PAIRS for name in players])

    # A new evening's form is redrawn when the hands change (the preset scale follows them): the entrants typed
    # while that redraw was on its way stay in the form it brings.
    page.goto(f"{module_live_server.url}/evenings/new")
    held: list[Route] = []
    page.route("**/evenings/new", lambda route: held.append(route) if "redraw" in (route.request.post_data or "")
               else route.continue_())  # fmt: skip
    page.get_by_label("Hands a turn").select_option("2")
    page.wait_for_function("() => document.querySelector('.htmx-request')")
    typed = "Rossi & Bianchi\nVerdi & Neri"
    page.get_by_label("Entrants: one a line").fill(typed)
    page.get_by_label("Name of the evening").fill("Venerdì")
    wait_until_held(page, held, "the redraw")
    assert len(held) == 1
    # The host goes on typing the entrants as the redrawn form comes: the keys land in the field it brings.
    page.get_by_label("Entrants: one a line").focus()
    held[0].continue_()
    expect(page.get_by_text("Preset for 2 hands")).to_be_visible()
    page.keyboard.type("\nGallo & Conti")
    expect(page.get_by_label("Entrants: one a line")).to_have_value(typed + "\nGallo & Conti")
    expect(page.get_by_label("Name of the evening")).to_have_value("Venerdì")


def test_a_confirmation_the_previous_version_kept_offline_is_sent_by_this_one(browser: Browser, module_live_server):
    page = phone(browser, PHONES[1], "en-GB")
    address = "/evenings/table/ABCDEFGHIJK/confirm"
    page.route(f"**{address}", lambda route: route.fulfill(status=200, body=""))
    page.goto(f"{module_live_server.url}/evenings")
    # As stop 49's club.js kept it: a key of its own, the form's fields as an object.
    kept = [f"companion.club.{address}", '{"action": "confirm"}']
    page.evaluate("([key, fields]) => localStorage.setItem(key, fields)", kept)
    with page.expect_request(f"**{address}") as sent:
        page.reload()
    assert sent.value.method == "POST" and sent.value.post_data == "action=confirm"
    # Answered, it leaves the phone: nothing of the club's is kept any more.
    page.wait_for_function("!Object.keys(localStorage).some(key => key.startsWith('companion.club.'))")


def seated_at_table_one(browser: Browser, server, app, size: dict, name: str) -> tuple[Page, dict[str, str]]:
    """A phone of a newly begun evening that scanned table 1's card and took `name`'s seat, its panel drawn; and the
    evening's routes' arguments (`begun_evening`)."""
    found = begun_evening(app)
    page = phone(browser, size, "en-GB")
    page.goto(f"{server.url}/evenings/card/{found['cards_key']}/1")
    page.get_by_label(name, exact=True).check()
    page.get_by_role("button", name="Take my seat").click()
    expect(page.locator("#club-table")).to_contain_text("Arbiter, please")
    return page, found


def test_a_confirmation_kept_offline_and_refused_says_why_beside_the_result_to_confirm(
    browser: Browser, module_live_server, module_app, browser_faults
):
    # E/W confirmed with the network gone; N/S took the last hand back and saved it again before it reached the
    # server. The panel shows the new result to confirm and, until it is confirmed, why the first did not count.
    for text in NETWORK_CUT:
        browser_faults.expect(text, may_not_come=True)
    browser_faults.expect("Failed to load resource: the server responded with a status of 409 (CONFLICT)",
                          may_not_come=True)  # fmt: skip
    page, found = seated_at_table_one(browser, module_live_server, module_app, PHONES[0], "P1a")
    panel = page.locator("#club-table")
    expect(panel).to_contain_text("you are E/W")
    hand = {"sides": {"N/S": {"table": 345, "hand": 0}, "E/W": {"table": 95, "hand": 0}}, "closed_by": None}
    with module_app.app_context():
        for _ in range(2):
            matches.save_round(db.session.get(Match, unref(found["table"])), hand)
        db.session.remove()
    first = panel.get_by_role("button", name=re.compile(r"^Confirm:"))
    expect(first).to_be_visible()
    shown = first.inner_text()
    go_offline(page)
    first.click()
    expect(panel.get_by_role("status").filter(has_text="No network: this phone keeps it")).to_be_visible()
    with module_app.app_context():
        table = db.session.get(Match, unref(found["table"]))
        matches.undo_last_round(table)
        matches.save_round(table, {**hand, "sides": {**hand["sides"], "N/S": {"table": 205, "hand": 0}}})
        db.session.remove()
    go_online(page)
    reason = panel.get_by_role("alert")
    expect(reason).to_have_text("The result changed since this phone showed it: check it, then confirm again")
    again = panel.get_by_role("button", name=re.compile(r"^Confirm:"))
    expect(again).not_to_have_text(shown)
    # The panel's polls go on: the reason stays beside the result it asks to check, read at arm's length.
    page.wait_for_timeout(2500)
    expect(reason).to_be_visible()
    again.click()
    expect(panel).to_contain_text("Counted")
    expect(reason).to_have_count(0)


def test_the_panels_link_to_the_standings_is_a_thumbs_target(browser: Browser, module_live_server, module_app):
    page, _found = seated_at_table_one(browser, module_live_server, module_app, PHONES[0], "P0a")
    link = page.locator("#club-table").get_by_role("link", name="Standings →")
    box = link.bounding_box()
    assert box is not None and box["height"] >= 44, box
    link.tap()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Standings")


# The line (its top, rounded) each of these words of an element's text is drawn on.
LINES_OF_WORDS = """(element, words) => words.map((word) => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.textContent.indexOf(word);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + word.length);
    return Math.round(range.getBoundingClientRect().top);
  }
  return null;
})"""


def test_the_confirm_button_breaks_its_line_before_the_result_never_between_a_side_and_its_points(
    browser: Browser, module_live_server, module_app
):
    # In Italian on a 360 px phone a four-figure result is wider than the button: "Conferma: N/S 1250 – E/O 1100".
    found = begun_evening(module_app)
    page = phone(browser, PHONES[0], "it-IT")
    page.goto(f"{module_live_server.url}/evenings/card/{found['cards_key']}/1")
    page.locator('input[name="seat"][value="1"]').check()  # E/W
    page.get_by_role("button", name="Prendo il mio posto").click()
    expect(page.locator("#club-table")).to_contain_text("sei E/O")
    hand = {"sides": {"N/S": {"table": 625, "hand": 0}, "E/W": {"table": 550, "hand": 0}}, "closed_by": None}
    with module_app.app_context():
        match = db.session.get(Match, unref(found["table"]))
        for _ in range(2):
            matches.save_round(match, hand)
        db.session.remove()
    button = page.locator("#club-table button.club-confirm")
    expect(button).to_have_text("Conferma: N/S 1250 – E/O 1100")
    conferma, ns, ns_points, ew, ew_points = button.evaluate(LINES_OF_WORDS, ["Conferma", "N/S", "1250", "E/O", "1100"])
    assert conferma < ns, "the result fits its line, so the line breaks before it"
    assert ns == ns_points == ew == ew_points
    # Counted, the panel says the result the same way: no line between a side and its points.
    button.tap()
    counted = page.locator("#club-table .club-result")
    expect(counted).to_contain_text("N/S 1250 – E/O 1100 · punti torneo")
    ns, ns_points, ew, ew_points = counted.evaluate(LINES_OF_WORDS, ["N/S", "1250", "E/O", "1100"])
    assert ns == ns_points == ew == ew_points


def test_a_panel_polled_while_nothing_changes_is_not_redrawn_under_the_phones_finger(
    browser: Browser, module_live_server, module_app
):
    # The browser turns the server's 304 into the answer it kept: drawn again every second, the panel closed what a
    # tap had just opened ("The result is wrong") when the two met, and its aria-live region spoke again.
    page, _found = seated_at_table_one(browser, module_live_server, module_app, PHONES[1], "P0a")
    page.evaluate("() => { document.querySelector('#club-table > *').dataset.drawnOnce = '1'; }")
    polls = []
    page.on("response", lambda answer: polls.append(answer.status) if "/evenings/table/" in answer.url else None)
    page.wait_for_timeout(3500)
    assert len(polls) >= 2, polls
    expect(page.locator("#club-table > [data-drawn-once]")).to_have_count(1)


def test_a_table_phone_polls_once_a_second_and_follows_the_hands_the_network_and_a_held_panel(
    browser: Browser, module_live_server, module_app, browser_faults
):
    # The panel's answer names the match's version: the standings are asked for only once a hand moved it on, so a
    # hall's 400 phones ask 400 polls a second, not 800; what the phone sees of the hands is as before.
    for text in NETWORK_CUT:
        browser_faults.expect(text, may_not_come=True)
    page, found = seated_at_table_one(browser, module_live_server, module_app, PHONES[0], "P0b")
    asked: list[str] = []
    page.on("request", lambda sent: asked.append(sent.url.split("?")[0]))
    page.wait_for_timeout(3200)
    panel_polls = [url for url in asked if "/evenings/table/" in url]
    assert len(panel_polls) >= 2 and not [url for url in asked if url.endswith("/live")], asked
    # A hand saved on the scorekeeper's phone shows at the panel's next poll, the live block asked for once.
    hand = {"sides": {"N/S": {"table": 345, "hand": 0}, "E/W": {"table": 95, "hand": 0}}, "closed_by": None}
    with module_app.app_context():
        matches.save_round(db.session.get(Match, unref(found["table"])), hand)
        db.session.remove()
    expect(page.locator("#live")).to_contain_text("345")
    page.wait_for_timeout(1500)
    assert len([url for url in asked if url.endswith("/live")]) == 1, asked
    # Cut from the network, the page says so and catches up by itself once it is back.
    go_offline(page)
    expect(page.locator("#live")).to_have_class(re.compile(r"\breconnecting\b"))
    go_online(page)
    expect(page.locator("#live")).not_to_have_class(re.compile(r"\breconnecting\b"))
    # While the phone works in its panel (the arbiter's call open), the panel is not redrawn under its finger, and
    # the standings still follow the hands.
    page.locator("#club-table summary").first.click()
    with module_app.app_context():
        second = {**hand, "sides": {**hand["sides"], "N/S": {"table": 205, "hand": 0}}}
        matches.save_round(db.session.get(Match, unref(found["table"])), second)
        db.session.remove()
    expect(page.locator("#live")).to_contain_text("550")
    expect(page.locator("#club-table details[open]")).to_have_count(1)


def test_hands_refused_once_the_turn_closed_keep_the_phone_at_its_table_until_it_has_looked_at_them(
    browser: Browser, module_live_server, module_app, browser_faults
):
    # N/S's phone saved two hands with the network gone; the host closed the turn before they reached the server.
    for text in NETWORK_CUT:
        browser_faults.expect(text, may_not_come=True)
    browser_faults.expect("Failed to load resource: the server responded with a status of 403 (FORBIDDEN)")
    page, found = seated_at_table_one(browser, module_live_server, module_app, PHONES[0], "P0a")
    go_offline(page)
    for number in (1, 2):
        enter_burraco_hand(page, {"N/S": {"table": "300"}, "E/W": {"table": "100"}}, None)
        page.get_by_role("button", name=f"Save hand {number}", exact=True).click()
    expect(page.locator("#waiting-rounds li")).to_have_count(2)
    with module_app.app_context():
        evening = db.session.scalars(select(ClubEvening).filter_by(public_id=found["evening"])).one()
        club_service.close_turn(evening, 1, {})
        db.session.remove()
    moves: list[str] = []
    page.on("request", lambda sent: moves.append(sent.url) if sent.url.endswith("/next") else None)
    go_online(page)
    # The first is refused with the server's reason; the phone stays with them, its next table a tap away.
    expect(page.locator("#waiting-rounds li.needs-look")).to_contain_text("only the arbiter may change it now")
    to_next = page.get_by_role("button", name=re.compile(r"^To table \d+$"))
    expect(to_next).to_be_visible()
    page.wait_for_timeout(3500)  # past the pause after which a phone goes to its next table by itself
    assert moves == [] and page.url == f"{module_live_server.url}/matches/{found['table']}"
    controlled_by_the_service_worker(page)
    to_next.click()
    expect(page).not_to_have_url(f"{module_live_server.url}/matches/{found['table']}")
    # The new table's page, drawn in place of the old one, opens again without the network (its N/S pencil here).
    expect(page.get_by_role("button", name="Save hand 1", exact=True)).to_be_visible()
    moved_to = page.url
    go_offline(page)
    page.reload()
    expect(page).to_have_url(moved_to)
    expect(page.get_by_role("button", name="Save hand 1", exact=True)).to_be_visible()


def test_a_phone_seated_by_its_table_card_opens_its_table_again_without_the_network(
    browser: Browser, module_live_server, module_app, browser_faults
):
    for text in NETWORK_CUT:
        browser_faults.expect(text, may_not_come=True)
    found = begun_evening(module_app)
    page = phone(browser, PHONES[1], "en-GB")
    page.goto(f"{module_live_server.url}/evenings/card/{found['cards_key']}/1")
    controlled_by_the_service_worker(page)
    page.get_by_label("P0a", exact=True).check()
    page.get_by_role("button", name="Take my seat").click()
    expect(page.get_by_role("button", name="Save hand 1", exact=True)).to_be_visible()
    go_offline(page)
    page.reload()
    expect(page).to_have_url(f"{module_live_server.url}/matches/{found['table']}")
    expect(page.get_by_role("button", name="Save hand 1", exact=True)).to_be_visible()


def test_a_table_phone_reloaded_shows_the_turns_time_left_at_once_not_as_its_panel_was_first_drawn(
    browser: Browser, module_live_server, module_app
):
    page, found = seated_at_table_one(browser, module_live_server, module_app, PHONES[0], "P0a")
    with module_app.app_context():
        run_clock(db.session.scalars(select(ClubEvening).filter_by(public_id=found["evening"])).one(), "start")
        db.session.remove()
    figures = page.locator("#club-table [data-clock-left]")
    expect(figures).to_be_visible()
    started = seconds_of(figures.text_content())
    page.wait_for_timeout(4000)  # the panel the browser keeps says its time: four seconds old at the reload
    # Every figure the clock shows from the reload on, as it is drawn.
    page.add_init_script("""window.shown = []; new MutationObserver(() => {
        const figures = document.querySelector("[data-clock-left]");
        if (figures && figures.textContent !== window.shown.at(-1)) window.shown.push(figures.textContent);
    }).observe(document, { subtree: true, childList: true, characterData: true });""")
    page.reload()
    expect(page.locator("#club-table [data-clock-left]")).to_be_visible()
    page.wait_for_timeout(500)
    seconds = [seconds_of(shown) for shown in page.evaluate("window.shown")]
    # The time left less the 4 s gone, from the first figure on: never as the panel showed it four seconds before.
    assert seconds and all(seconds[0] - 2 <= left <= started - 4 for left in seconds), (started, seconds)


def seconds_of(figures: str) -> int:
    """A clock's "mm:ss" in seconds."""
    minutes, seconds = figures.split(":")
    return int(minutes) * 60 + int(seconds)


def test_a_table_card_holds_a_40_letter_name_of_one_word(browser: Browser, module_live_server, module_app):
    one_word = "Wolfeschlegelsteinhausenbergerdorffvoral"
    pairs = [([one_word, "Neri"], None), *[(pair, None) for pair in (["Gallo", "Conti"], ["Rossi", "Bianchi"],
                                                                      ["Greco", "Bruno"])]]
    plan = {**PLAN, "first": "danese", "then": "danese"}  # table 1: the first two entrants
    started_evening(module_app, "Saturday", plan, pairs)
    with module_app.app_context():
        cards_key = db.session.scalar(select(Group.cards_key).where(Group.cards_key.is_not(None)))
    page = phone(browser, PHONES[0], "en-GB")
    page.goto(f"{module_live_server.url}/evenings/card/{cards_key}/1")
    expect(page.get_by_label(one_word)).to_be_visible()
    assert page.locator(f'[title="{one_word}"]').count() == 1
    # At either phone's width the page is no wider than the phone: the word is cut with an ellipsis, its whole name
    # its title.
    for size in PHONES:
        page.set_viewport_size(size)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], size
