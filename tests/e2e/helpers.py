"""Helpers for the browser tests of every game: roster, taps like the table's, server-side matches, long names, axe."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from axe_playwright_python.sync_playwright import Axe
from flask import Flask
from playwright.sync_api import Browser, Locator, Page, expect
from werkzeug.datastructures import MultiDict

from companion.extensions import db
from companion.games import get_game
from companion.services import matches as service
from companion.services.matches import roster_players
from companion.web.pencil import PENCIL_COOKIE, kept_under
from tests.e2e.audit import audit_layout
from tests.helpers import CUT_PHONES, PHONE_COOKIE, unref

# The longest names allowed: half of them one unbroken word, which only an ellipsis or a break can tame.
LONG_NAMES = [
    (chr(ord("A") + i) + "olfeschlegelsteinhausenbergerdorffvoral")[:40]
    if i % 2 == 0
    else f"{chr(ord('A') + i)}nna Maria Lucrezia Fontanarossa Bellin"[:40].ljust(40, "i")
    for i in range(10)
]
assert all(len(name) == 40 for name in LONG_NAMES) and len(set(LONG_NAMES)) == 10

# One round of each game as its entry form posts it, seat by seat.
ROUND_FORMS = {
    "topic": lambda names: {"loser": names[-1]},
    "pazaak": lambda names: {"winner": "0"},
    "pazzaparola": lambda names: {f"used-{i}": ["5", "3", str(1 + i % 9)] for i in range(len(names))},
    "burraco": lambda sides: {"closed_by": "", **{f"table_{i}": str(100 + 10 * i) for i in range(1, len(sides) + 1)}},
}

AXE = Axe()


def add_to_roster(app: Flask, *names: str) -> None:
    """Put players in the roster, as earlier evenings would have."""
    with app.app_context():
        roster_players(list(names))
        db.session.commit()


def new_phone(browser: Browser, base: str, size: dict, *, locale: str = "en-GB") -> Page:
    """Another device at the table, with its own cookies, screen size and browser language; on the home page."""
    page = browser.new_context(viewport=size, has_touch=True, locale=locale).new_page()
    page.goto(base + "/")
    return page


def seat_players(page: Page, base: str, game_name: str, players: list[str]) -> None:
    """From the home page, by taps alone: pick the game and seat the roster players in order."""
    page.goto(base + "/")
    audit_layout(page, players)
    page.get_by_role("button", name="New match").click()
    page.get_by_role("button", name=game_name, exact=True).click()
    expect(page.get_by_role("button", name=game_name, exact=True)).to_have_attribute("aria-pressed", "true")
    audit_layout(page, players)
    for name in players:
        page.get_by_role("button", name=f"+ {name}", exact=True).click()
        expect(page.locator(f'input[name="seat"][value="{name}"]')).to_have_count(1)
    # "Add" beside the new player's name must not wrap inside the word either.
    audit_layout(page, [*players, "Add"])


def wait_until_held(page: Page, held: list, what: str = "a request", count: int = 1) -> None:
    """Wait up to ten seconds for a route handler to have held `count` requests: the handler is called as Playwright
    next hears from the browser, which may be after the page shows the request on its way. `what` names it in the
    failure."""
    for _ in range(200):
        if len(held) >= count:
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"{what} was expected to be held within ten seconds ({len(held)} of {count})")


@contextmanager
def new_match_redraw_held(page: Page) -> Iterator[None]:
    """The new-match form's redraw (its POST) held on its way while the block taps and looks, then let through."""
    held: list = []

    def hold(route) -> None:
        if route.request.method == "POST":
            held.append(route)
        else:
            route.fallback()

    page.route("**/matches/new", hold)
    try:
        yield
        wait_until_held(page, held, "the redraw")
        held.pop().fallback()
    finally:
        page.unroute("**/matches/new")


def press_start(page: Page, game_name: str, names: list[str] = ()) -> int:
    """Start the match set up on the page; its id. `names`: the player names its page shows."""
    page.get_by_role("button", name=f"Start {game_name}").click()
    expect(page).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    audit_layout(page, names)
    return unref(page.url.rsplit("/", 1)[1])


def start_match(page: Page, base: str, game_name: str, players: list[str]) -> int:
    """From the home page, by taps alone: pick the game, seat the roster players, start."""
    seat_players(page, base, game_name, players)
    return press_start(page, game_name, players)


def save_round(page: Page, button: str, readback: str, names: Iterable[str] = (),
               tap: Callable[[Locator], None] = Locator.click) -> None:  # fmt: skip
    """Tap the entry's Save button (`button`: its name, "Save round 2", "Save hand 2", "Save set 2") and wait for
    the read-back above the board to say `readback`; the page then audited with the `names` it shows. `tap`: how
    the button is tapped (a test that counts its taps passes its counter)."""
    tap(page.get_by_role("button", name=button, exact=True))
    expect(page.locator("#banner .readback")).to_contain_text(readback)
    audit_layout(page, names)


def server_match_with_pencil(
    page: Page, app: Flask, base: str, game: str, names: list[str], rounds: int = 0, **settings
) -> int:
    """A match started on the server with `rounds` rounds played; this browser holds its pencil."""
    with app.app_context():
        match, token = service.create_match(game, names, settings or None)
        rules = get_game(game)
        sides = rules.sides(match.player_names, match.settings) if hasattr(rules, "sides") else match.player_names
        for _ in range(rounds):
            form = MultiDict(ROUND_FORMS[game](sides))
            service.save_round(match, rules.entry.round_from_form(form, match.player_names, match.settings))
        match_id = match.id
        hold_pencil(page, base, match, token)
        db.session.remove()
    return match_id


def hold_pencil(page: Page, base: str, match, token: str) -> None:
    """This browser holds the pencil of a match started on the server (`token`, as create_match gave it), beside
    the pencils it holds already, in the one cookie the server writes (web/pencil.py)."""
    held = [cookie["value"] for cookie in page.context.cookies(base) if cookie["name"] == PENCIL_COOKIE]
    kept = f"{kept_under(match.uid)}:{token}"
    page.context.add_cookies([{"name": PENCIL_COOKIE, "value": ".".join([*held, kept]), "url": base}])


def rounds_rows(page: Page) -> list[str]:
    """Each row of the match's rounds table as its text, folded or not, whitespace collapsed."""
    return [" ".join(text.split()) for text in page.locator("#rounds tr").all_text_contents()]


def expect_rounds_as_drawn_whole(page: Page) -> list[str]:
    """The rounds table grown a row per save is the one a reload draws whole; returns its rows."""
    grown = rounds_rows(page)
    page.reload()
    drawn = rounds_rows(page)
    assert drawn == grown, (drawn, grown)
    return grown


def luminance(rgb: str) -> float:
    """The relative luminance of a CSS rgb() colour, 0 (black) to 1 (white)."""
    red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", rgb)[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def serious_axe_violations(page: Page) -> list[str]:
    """The serious and critical axe-core findings on the page, one line each."""
    results = AXE.run(page)
    found = []
    for violation in results.response["violations"]:
        if violation["impact"] in ("serious", "critical"):
            targets = [", ".join(node["target"]) for node in violation["nodes"]][:3]
            found.append(f"{violation['id']} ({violation['impact']}): {violation['help']} at {targets}")
    return found


def go_offline(page: Page) -> None:
    """The phone loses the network, and its page knows it before the next tap (Chromium tells the page
    a moment after the context goes offline; a tap in between would be sent, through the service worker).
    The test server drops the phone's requests too: the emulation alone now and then lets one through."""
    drop_connections(page)
    page.context.set_offline(True)
    page.wait_for_function("!navigator.onLine")


def drop_connections(page: Page) -> None:
    """The phone's requests stop reaching the server, its connections dropped unanswered, while the
    phone still believes it is online (a Wi-Fi that lost its router)."""
    CUT_PHONES.add(_phone_of(page))


def go_online(page: Page) -> None:
    """The phone's network comes back: the server answers it again, then the page is told."""
    CUT_PHONES.discard(_phone_of(page))
    page.context.set_offline(False)


def controlled_by_the_service_worker(page: Page) -> None:
    """Wait until the service worker controls the page (at most ten seconds): asked once, where a polled
    `wait_for_function` would evaluate text, which the page's Content-Security-Policy forbids."""
    page.evaluate("""() => navigator.serviceWorker.controller || new Promise((resolve, reject) => {
        navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true });
        setTimeout(() => reject(new Error("no service worker took the page")), 10000);
    })""")


def _phone_of(page: Page) -> str:
    """The name the test server knows this phone's browser by: a cookie its requests carry."""
    context = page.context
    for cookie in context.cookies():
        if cookie["name"] == PHONE_COOKIE:
            return cookie["value"]
    phone = uuid.uuid4().hex
    context.add_cookies([{"name": PHONE_COOKIE, "value": phone, "url": page.url}])
    return phone


# What the browser logs while a phone is cut from the network: the loads that fail and htmx's send
# errors, each only if something was on its way at that moment (a live poll, a save, a reload).
NETWORK_CUT = (
    "Failed to load resource: net::ERR_INTERNET_DISCONNECTED",
    "Failed to load resource: net::ERR_FAILED",
    "Failed to load resource: net::ERR_EMPTY_RESPONSE",
    "Failed to load resource: net::ERR_CONNECTION_RESET",
    "htmx:sendError, [object HTMLElement]",
    "htmx:afterRequest, [object HTMLElement]",
    "htmx:sendError, [object HTMLDivElement]",
    "htmx:afterRequest, [object HTMLDivElement]",
)
