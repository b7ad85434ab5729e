"""Browser tests of a shared server's private groups: start, invite, join, remove, a new link, a viewer
link and switching, each by the taps a phone makes, and nothing of a group leaking to another."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.audit import audit_layout
from tests.helpers import PHONE

pytestmark = pytest.mark.e2e

NOT_FOUND = "Failed to load resource: the server responded with a status of 404 (NOT FOUND)"
GROUP_A, GROUP_B = "Gialli kitchen", "Blu club"
# The players of each group: names no page of the other group may show.
PLAYERS_A, PLAYERS_B = ["Ornella", "Pasquale"], ["Zeno", "Yolanda"]


def phone(browser: Browser, base: str) -> Page:
    """A phone of its own (its own cookies), on the server's first page."""
    page = browser.new_context(viewport=PHONE, has_touch=True, locale="en-GB").new_page()
    page.goto(base + "/")
    return page


def start_group(page: Page, base: str, name: str) -> str:
    """Start a group from the welcome page; the invite link its groups page then shows."""
    page.goto(base + "/")
    expect(page.get_by_role("heading", name="New here?")).to_be_visible()
    page.get_by_label("Name of the group").fill(name)
    page.get_by_role("button", name="Start a group").click()
    expect(page.get_by_role("heading", name=name, level=1)).to_be_visible()
    expect(page.get_by_role("img", name="QR code of the invite link")).to_be_visible()
    return invite_link(page)


def invite_link(page: Page) -> str:
    """The invite link as the host's groups page shows it, read off the page."""
    link = page.get_by_role("link", name=re.compile(r"\bjoin\b"))
    expect(link).to_have_count(1)
    return link.inner_text()


def join(page: Page, link: str, group: str) -> None:
    """Open an invite link and tap Join: the phone lands on the group's home page."""
    page.goto(link)
    expect(page.get_by_role("heading", name=f"Join {group}?")).to_be_visible()
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page.get_by_text("You are in the group.")).to_be_visible()
    expect(page.locator("header")).to_contain_text(group)


def start_topic(page: Page, base: str, players: list[str]) -> str:
    """Start a Topic_ match by taps, its players typed as new; the match page's address."""
    page.goto(base + "/matches/new")
    page.get_by_role("button", name="Topic_", exact=True).tap()
    expect(page.get_by_role("button", name="Topic_", exact=True)).to_have_attribute("aria-pressed", "true")
    for name in players:
        page.get_by_label("New player name").fill(name)
        page.get_by_role("group").filter(has=page.get_by_label("New player name")).get_by_role(
            "button", name="Add"
        ).tap()
        expect(page.locator(f'input[name="seat"][value="{name}"]')).to_have_count(1)
    page.get_by_role("button", name="Start Topic_").tap()
    expect(page).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    return page.url


def lose_round(page: Page, name: str, number: int) -> None:
    """One tap on the round's loser, then its read-back."""
    page.locator("#entry").get_by_role("button", name=re.compile(rf"^{name} \d+ cards?$")).tap()
    expect(page.get_by_role("status").filter(has_text=f"Round {number}:")).to_contain_text(f"{name} +1")


def rounds(page: Page):
    """The match's rounds table."""
    return page.locator("#rounds")


def expect_none_of(page: Page, names: list[str]) -> None:
    """None of these names anywhere on the page."""
    for name in names:
        expect(page.locator("body")).not_to_contain_text(name)


def expect_not_found(page: Page, url: str) -> None:
    """The address answers the 404 page, and shows nothing of what it would have held."""
    answer = page.goto(url)
    assert answer is not None and answer.status == 404
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect_none_of(page, [*PLAYERS_A, GROUP_A])


def two_groups(browser: Browser, base: str) -> tuple[Page, Page, Page, Page]:
    """Group A (A1 its host, A2 joined) and group B (B1 its host, B2 joined), on four phones."""
    a1, a2, b1, b2 = (phone(browser, base) for _ in range(4))
    join(a2, start_group(a1, base, GROUP_A), GROUP_A)
    join(b2, start_group(b1, base, GROUP_B), GROUP_B)
    return a1, a2, b1, b2


def test_two_groups_on_one_server_see_only_their_own(browser: Browser, private_live_server, browser_faults):
    browser_faults.expect(NOT_FOUND)
    base = private_live_server.url
    a1, a2, b1, b2 = two_groups(browser, base)

    match_a = start_topic(a2, base, PLAYERS_A)
    lose_round(a2, "Pasquale", 1)
    # A1 finds the match on its home page and follows it live.
    a1.goto(base + "/")
    a1.get_by_role("link", name=re.compile("Ornella, Pasquale")).click()
    expect(a1).to_have_url(match_a)
    expect(rounds(a1)).to_contain_text("Pasquale +1")
    lose_round(a2, "Ornella", 2)
    expect(rounds(a1)).to_contain_text("Ornella +1")

    start_topic(b1, base, PLAYERS_B)
    lose_round(b1, "Zeno", 1)
    for stranger in (b1, b2):
        for path in ("/", "/history", "/players"):
            stranger.goto(base + path)
            expect(stranger.locator("main")).to_contain_text("Zeno")
            expect_none_of(stranger, [*PLAYERS_A, GROUP_A])
        expect_not_found(stranger, match_a)
    # And group A sees nothing of B's.
    for path in ("/", "/history", "/players"):
        a1.goto(base + path)
        expect(a1.locator("main")).to_contain_text("Ornella")
        expect_none_of(a1, [*PLAYERS_B, GROUP_B])


def test_a_removed_phone_loses_the_match_it_was_following(browser: Browser, private_live_server, browser_faults):
    browser_faults.expect(NOT_FOUND)
    base = private_live_server.url
    a1, a2 = phone(browser, base), phone(browser, base)
    join(a2, start_group(a1, base, GROUP_A), GROUP_A)
    match_a = start_topic(a1, base, PLAYERS_A)
    lose_round(a1, "Pasquale", 1)
    a2.goto(match_a)
    expect(rounds(a2)).to_contain_text("Pasquale +1")

    hosting = a1.context.new_page()
    hosting.goto(base + "/groups")
    phones = hosting.get_by_role("list").filter(has_text="this phone")
    expect(phones.get_by_role("listitem")).to_have_count(2)
    phones.get_by_role("listitem").filter(has_not_text="this phone").get_by_role("button", name="Remove").click()
    expect(hosting.get_by_text("The phone was removed, and the invite link renewed")).to_be_visible()
    expect(hosting.get_by_role("img", name="QR code of the invite link")).to_be_visible()
    expect(phones.get_by_role("listitem")).to_have_count(1)

    # A new round: the removed phone's next poll is refused, and its page does not show the round.
    with a2.expect_response(lambda answer: "/live" in answer.url and answer.status == 404):
        lose_round(a1, "Ornella", 2)
    expect(rounds(a1)).to_contain_text("Ornella +1")
    expect(rounds(a2)).not_to_contain_text("Ornella")
    expect_not_found(a2, match_a)
    a2.goto(base + "/")
    expect(a2.get_by_role("button", name="Start a group")).to_be_visible()
    expect_none_of(a2, [*PLAYERS_A, GROUP_A])


def test_a_new_invite_link_ends_the_old_one(browser: Browser, private_live_server, browser_faults):
    browser_faults.expect(NOT_FOUND)
    base = private_live_server.url
    host = phone(browser, base)
    old = start_group(host, base, GROUP_A)
    host.get_by_role("button", name="New invite link").click()
    expect(host.get_by_text("A new invite link: the old one no longer works.")).to_be_visible()
    new = invite_link(host)
    assert new != old

    newcomer = phone(browser, base)
    answer = newcomer.goto(old)
    assert answer is not None and answer.status == 404
    expect(newcomer.get_by_text("This invite link is no longer valid")).to_be_visible()
    expect(newcomer.get_by_role("button", name="Join", exact=True)).to_have_count(0)
    join(newcomer, new, GROUP_A)


def test_a_viewer_link_follows_one_match_and_nothing_else(browser: Browser, private_live_server, browser_faults):
    browser_faults.expect(NOT_FOUND)
    base = private_live_server.url
    host = phone(browser, base)
    start_group(host, base, GROUP_A)
    other_match = start_topic(host, base, ["Quirino", "Rosalba"])
    match_a = start_topic(host, base, PLAYERS_A)
    lose_round(host, "Pasquale", 1)
    host.get_by_role("link", name="Share · viewer QR").click()
    viewer_link = host.get_by_role("link", name=re.compile(r"matches.\w{11}\?follow=")).inner_text()

    stranger = phone(browser, base)
    stranger.goto(viewer_link)
    expect(rounds(stranger)).to_contain_text("Pasquale +1")
    host.goto(match_a)
    lose_round(host, "Ornella", 2)
    expect(rounds(stranger)).to_contain_text("Ornella +1")
    for url in (other_match, base + "/history", base + "/players"):
        answer = stranger.goto(url)
        assert answer is not None and answer.status == 404, url
        expect_none_of(stranger, ["Quirino", "Rosalba", *PLAYERS_A])
    stranger.goto(base + "/")
    expect(stranger.get_by_role("button", name="Start a group")).to_be_visible()
    expect_none_of(stranger, ["Quirino", "Rosalba", *PLAYERS_A, GROUP_A])


def test_a_phone_in_two_groups_switches_from_the_header(browser: Browser, private_live_server):
    base = private_live_server.url
    a1, b1 = phone(browser, base), phone(browser, base)
    invite_a = start_group(a1, base, GROUP_A)
    start_topic(a1, base, PLAYERS_A)
    start_group(b1, base, GROUP_B)
    start_topic(b1, base, PLAYERS_B)
    join(b1, invite_a, GROUP_A)
    expect(b1.locator("main")).to_contain_text("Ornella")

    b1.locator("header").get_by_role("link", name=GROUP_A).click()
    expect(b1).to_have_url(base + "/groups")
    b1.get_by_role("button", name=f"Open {GROUP_B}").click()
    expect(b1.locator("header")).to_contain_text(GROUP_B)
    expect(b1.locator("main")).to_contain_text("Zeno")
    expect_none_of(b1, PLAYERS_A)


# A group's name as long as a name may be (40 characters).
LONG_NAME = "Circolo ricreativo dei giocatori Pazzapa"


@pytest.mark.parametrize("width", [360, 390])
def test_a_long_group_name_leaves_the_menu_whole_on_a_phone(browser: Browser, private_live_server, width):
    base = private_live_server.url
    page = browser.new_context(viewport={"width": width, "height": 740}, has_touch=True, locale="en-GB").new_page()
    start_group(page, base, LONG_NAME)
    page.context.add_cookies([{"name": "lang", "value": "it", "url": base}])
    page.goto(base + "/")
    header = page.locator("header")
    expect(header.get_by_role("link", name=LONG_NAME)).to_be_visible()
    for word in ("Nuova", "Storico", "Giocatori"):
        link = header.get_by_role("link", name=word, exact=True)
        lines = link.evaluate(
            "e => { const r = document.createRange(); r.selectNodeContents(e); "
            "return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; }"
        )
        assert lines == 1, f"{word} is cut over {lines} lines"
    settings = header.get_by_role("link", name="Preferenze").bounding_box()
    assert settings is not None and settings["x"] + settings["width"] <= width


def test_a_hosts_badges_stand_apart(browser: Browser, private_live_server):
    page = phone(browser, private_live_server.url)
    start_group(page, private_live_server.url, GROUP_A)
    mine = page.get_by_role("listitem").filter(has_text="this phone")
    this_phone, host = (mine.get_by_text(text, exact=True).bounding_box() for text in ("this phone", "host"))
    assert this_phone is not None and host is not None
    assert host["x"] - (this_phone["x"] + this_phone["width"]) >= 4


@pytest.mark.parametrize("width", [1024, 1280])
def test_a_wide_screen_shows_a_longer_group_name_whole(browser: Browser, private_live_server, width):
    base = private_live_server.url
    page = browser.new_context(viewport={"width": width, "height": 768}, locale="en-GB").new_page()
    # Half again as long as the room a phone gives it; the longest (40 characters) is still cut.
    name = "Circolo del venerdì sera"
    start_group(page, base, name)
    page.goto(base + "/")
    shown = page.locator("header").get_by_role("link", name=name)
    expect(shown).to_be_visible()
    assert shown.evaluate("e => e.scrollWidth <= e.clientWidth"), "the group's name is cut short"


def test_the_invite_qr_code_stands_apart_from_its_link_in_the_dark(browser: Browser, private_live_server):
    page = phone(browser, private_live_server.url)
    page.context.add_cookies([{"name": "theme", "value": "dark", "url": private_live_server.url}])
    start_group(page, private_live_server.url, GROUP_A)
    code = page.get_by_role("img", name="QR code of the invite link").locator("svg").bounding_box()
    link = page.get_by_role("link", name=re.compile(r"\bjoin\b")).bounding_box()
    assert code is not None and link is not None
    assert link["y"] - (code["y"] + code["height"]) >= 8


def test_a_phone_names_itself_for_its_hosts_list(browser: Browser, private_live_server, browser_faults):
    # Two phones of one table both read "Chrome · Android" on the host's list until one is named.
    browser_faults.expect("Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)")
    base = private_live_server.url
    host = phone(browser, base)
    link = start_group(host, base, GROUP_A)
    guest = phone(browser, base)
    join(guest, link, GROUP_A)
    guest.goto(base + "/groups")
    field = guest.get_by_label("Its name in the group's list of phones")
    field.fill(" ")
    guest.get_by_role("button", name="Save the name").click()
    expect(guest.get_by_text("A name has 1 to 40 characters")).to_be_visible()
    audit_layout(guest)
    name = "Bartholomew-Alexandrina Montgomery phone"
    guest.get_by_label("Its name in the group's list of phones").fill(name)
    guest.get_by_role("button", name="Save the name").click()
    expect(guest.get_by_text("This phone's name is saved.")).to_be_visible()
    expect(guest.get_by_label("Its name in the group's list of phones")).to_have_value(name)
    audit_layout(guest)
    host.reload()
    phones = host.get_by_role("list").filter(has_text="this phone")
    expect(phones.get_by_role("listitem").filter(has_text=name)).to_have_count(1)
    audit_layout(host, [name])


def start_game(page: Page, base: str, game: str, players: list[str]) -> str:
    """Start a match of `game` by taps, its players typed as new; the match page's address."""
    page.goto(base + "/matches/new")
    page.get_by_role("button", name=game, exact=True).tap()
    expect(page.get_by_role("button", name=game, exact=True)).to_have_attribute("aria-pressed", "true")
    for name in players:
        page.get_by_label("New player name").fill(name)
        page.get_by_role("group").filter(has=page.get_by_label("New player name")).get_by_role(
            "button", name="Add"
        ).tap()
        expect(page.locator(f'input[name="seat"][value="{name}"]')).to_have_count(1)
    page.get_by_role("button", name=f"Start {game}").tap()
    expect(page).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    return page.url


def tap_board(page: Page, *moves: str) -> None:
    """Taps on this phone's Pazaak board, each answered (and drawn again) before the next, none refused."""
    for name in moves:
        button = page.get_by_role("button", name=name, exact=True)
        expect(button).to_be_enabled()
        board = page.locator("#entry .pazaak-entry").element_handle()
        button.tap()
        board.wait_for_element_state("hidden")
        expect(page.locator(".pazaak-refused")).to_have_count(0)


FORBIDDEN = "Failed to load resource: the server responded with a status of 403 (FORBIDDEN)"


def test_a_phone_outside_the_group_seated_at_pazaak_notes_its_hand_and_plays_its_board(
    browser: Browser, private_live_server, browser_faults
):
    browser_faults.expect(NOT_FOUND)
    browser_faults.expect(FORBIDDEN)
    base = private_live_server.url
    host = phone(browser, base)
    start_group(host, base, GROUP_A)
    match_a = start_game(host, base, "Pazaak", PLAYERS_A)
    host.get_by_role("link", name="Share · viewer QR").click()
    seat_link = host.locator("#seats-panel .qr-url a").get_attribute("href")
    viewer_link = host.get_by_role("link", name=re.compile(r"matches.\w{11}\?follow=")).inner_text()
    assert "seat_key=" in seat_link and "follow=" not in seat_link

    # A phone that holds only the viewer link watches: the seat picker refuses it, saying why.
    viewer = phone(browser, base)
    viewer.goto(viewer_link)
    answer = viewer.goto(match_a + "/seat")
    assert answer is not None and answer.status == 403
    expect(viewer.get_by_text("This link only follows the match: to take a seat, scan the seat link")).to_be_visible()

    # A phone outside the group sits down by the seat link, notes its hand and plays its board.
    outsider = phone(browser, base)
    outsider.goto(seat_link)
    outsider.get_by_label("Pasquale").check()
    outsider.get_by_role("button", name="Take a seat").tap()
    expect(outsider.get_by_role("status").filter(has_text="Your seat")).to_contain_text("Pasquale")
    host.goto(match_a + "/seat")
    host.get_by_label("Ornella").check()
    host.get_by_role("button", name="Take a seat").tap()
    expect(host.get_by_role("status").filter(has_text="Your seat")).to_contain_text("Ornella")
    for card in ("+1", "+2", "−1", "T±1"):
        outsider.get_by_role("button", name=f"Add {card} to your hand", exact=True).tap()
    expect(outsider.locator(".pazaak-note-hand .pazaak-palette")).to_have_count(0)
    audit_layout(outsider, PLAYERS_A)
    tap_board(host, "Draw 10", "Stand")
    expect(outsider.get_by_role("button", name="Draw 9", exact=True)).to_be_enabled()
    tap_board(outsider, "Draw 9", "Pasquale: +1", "Stand")
    expect(outsider.get_by_role("status").filter(has_text="Set 1 is decided and saved.")).to_be_visible()
    audit_layout(outsider, PLAYERS_A)
    # Still nothing else of the group.
    for url in (base + "/history", base + "/players", match_a + "/share"):
        answer = outsider.goto(url)
        assert answer is not None and answer.status == 404, url
