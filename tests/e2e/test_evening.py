"""Browser test of a whole evening at the table: four phones and a tablet, every game to its end, the pencil
handed over and taken back, the host ending a match, an outage with a reload, the table view reached by its
link, the history filtered and exported; the layout audited at every step, in Italian on one phone."""

from __future__ import annotations

import csv
import io
import json
import re
import time
from dataclasses import dataclass

import pytest
from flask import Flask
from playwright.sync_api import Browser, Page, expect

from companion.services import host
from tests.e2e.audit import audit_layout
from tests.e2e.burraco_helpers import enter_burraco_hand, side_named
from tests.e2e.helpers import (
    NETWORK_CUT,
    add_to_roster,
    go_offline,
    go_online,
    luminance,
    new_phone,
    press_start,
    seat_players,
)
from tests.e2e.pazzaparola_helpers import TapCounter, enter_pazzaparola_round, start_pazzaparola
from tests.e2e.topic_helpers import start_topic
from tests.helpers import stored_match, unref

pytestmark = pytest.mark.e2e

PLAYERS = ["Anna", "Bruno", "Carla", "Dario", "Margherita"]
# Every name a page of the evening shows: the players and Burraco's two pairs.
NAMES = [*PLAYERS, "Us", "Them"]
# Another phone's page follows a change made elsewhere within this (its live poll asks every second).
FOLLOWS = 2000

NARROW = {"width": 360, "height": 740}
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1024, "height": 768}


@dataclass
class Table:
    """The evening's devices: Anna the host (360 px), Bruno in Italian (his browser's language), Carla in the
    dark theme (her preference, 360 px), Dario, and a tablet."""

    base: str
    anna: Page
    bruno: Page
    carla: Page
    dario: Page
    tablet: Page

    def audit(self, *pages: Page) -> None:
        """The layout audit of each page as it is now, at 360 px and on the tablet."""
        for page in pages:
            audit_layout(page, NAMES)


def loser(page: Page, name: str):
    """A Topic_ loser's one-tap button ("Bruno 1 card", "Bruno 1 carta")."""
    return page.locator("#entry").get_by_role("button", name=re.compile(rf"^{name} \d+ \w+$"))


def match_path(page: Page) -> str:
    """The path of the match page the phone is on."""
    found = re.search(r"/matches/[0-9A-Za-z]{11}$", page.url)
    assert found, page.url
    return found.group(0)


def topic_losers(app: Flask, path: str) -> list[list[str]]:
    """Each stored Topic_ round's losers, in order."""
    return [round["losers"] for round in stored_match(app, unref(path.rsplit("/", 1)[1])).rounds]


# How the table view is drawn: the colour behind the board (the body's, or the page's where the body has
# none), the title's colour, each total's size, and the names cut short (text wider than its box).
BOARD = """() => ({
  board: [document.body, document.documentElement].map((e) => getComputedStyle(e).backgroundColor)
    .find((c) => c !== "rgba(0, 0, 0, 0)") || "rgb(255, 255, 255)",
  title: getComputedStyle(document.querySelector(".table-title")).color,
  totals: [...document.querySelectorAll(".table-scores .total")].map((e) => getComputedStyle(e).fontSize),
  cut: [...document.querySelectorAll(".table-scores .side")]
    .filter((side) => [side, ...side.querySelectorAll("*")].some((e) => e.scrollWidth > e.clientWidth + 0.5))
    .map((side) => side.textContent.trim()),
})"""


def table_view_by_its_link(tablet: Page, match_url: str, names: list[str], figure: str | None = None) -> None:
    """The tablet opens the match page and taps Table view (a boosted link): the dark board a reload draws,
    every total whole on screen, every name whole, and the game's own figure if it has one."""
    tablet.goto(match_url)
    tablet.get_by_role("link", name="Table view").click()
    expect(tablet).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}/table$"))
    totals = tablet.locator(".table-scores .total")
    expect(totals).to_have_count(len(names))
    for name in names:
        expect(tablet.locator(".table-scores")).to_contain_text(name)
    if figure:
        expect(tablet.get_by_text(figure)).to_be_visible()
    by_link = tablet.evaluate(BOARD)
    tablet.reload()
    expect(totals).to_have_count(len(names))
    assert by_link == tablet.evaluate(BOARD), "the table view reached by its link is not the one a reload draws"
    assert luminance(by_link["board"]) < 0.1, f"the table view's board is {by_link['board']}"
    assert luminance(by_link["title"]) > 0.8, f"the table view's title is {by_link['title']}"
    assert by_link["cut"] == [], f"names cut short on the table view: {by_link['cut']}"
    for total in totals.all():
        expect(total).to_be_in_viewport(ratio=1)


# --- the steps of the evening, in order --------------------------------------------------------------


def dark_by_preference(table: Table) -> None:
    """Carla picks the dark theme in the preferences, which lead back to her home page and say so."""
    carla = table.carla
    carla.get_by_role("link", name="Preferences").click()
    carla.get_by_role("radio", name="Dark").check()
    table.audit(carla)
    carla.get_by_role("button", name="Save preferences").click()
    expect(carla).to_have_url(table.base + "/")
    expect(carla.get_by_role("status").filter(has_text="Preferences saved.")).to_be_visible()
    expect(carla.locator("html")).to_have_attribute("data-theme", "dark")
    table.audit(carla)


def host_rights(table: Table, app: Flask) -> None:
    """Anna opens a fresh host link on her phone and takes host rights."""
    table.anna.goto(f"{table.base}/host?token={host.new_link_token(app)}")
    table.anna.get_by_role("button", name="Take host rights").click()
    expect(table.anna).to_have_url(table.base + "/")
    expect(table.anna.get_by_role("status")).to_have_text("This phone has host rights.")
    table.audit(table.anna)


def topic_starts_and_everyone_follows(table: Table) -> str:
    """Anna starts a short Topic_ (a deck of 6); Carla and Dario follow by the viewer link, the tablet
    shows the table view, reached by its link; the first round reaches every screen."""
    anna = table.anna
    start_topic(anna, table.base, PLAYERS, ["10 cards fewer"] * 3)
    match_url = anna.url
    anna.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    anna.get_by_role("link", name="Share · viewer QR").click()
    expect(anna.get_by_role("img", name="QR code of the viewer link")).to_be_visible()
    viewer_url = anna.locator(".qr-card").first.get_by_role("link").get_attribute("href")
    table.audit(anna)
    for viewer in (table.carla, table.dario):
        viewer.goto(viewer_url)
        expect(viewer.get_by_text("You are following this match.")).to_be_visible()
        table.audit(viewer)

    table_view_by_its_link(table.tablet, match_url, PLAYERS, figure="6 cards left in the deck")
    table.audit(table.tablet)

    anna.goto(match_url)
    loser(anna, "Bruno").click()
    expect(anna.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    for viewer in (table.carla, table.dario):
        held = viewer.get_by_role("list", name="Cards held").get_by_role("listitem").filter(has_text="Bruno")
        expect(held).to_contain_text("1", timeout=FOLLOWS)
    expect(table.tablet.get_by_text(re.compile(r"\b5 cards left in the deck"))).to_be_visible(timeout=FOLLOWS)
    table.audit(anna, table.carla, table.dario, table.tablet)
    return match_url


def pencil_to_bruno_and_back(table: Table, app: Flask, match_url: str) -> None:
    """Anna shows the pencil code, Bruno's phone (in Italian) scans it and enters a round; her share
    page says where the pencil went; she takes it back and Bruno's page drops its entry by itself."""
    anna, bruno = table.anna, table.bruno
    anna.get_by_role("link", name="Share · viewer QR").click()
    anna.get_by_role("button", name="Show the pencil code").click()
    expect(anna.get_by_role("img", name="QR code of the pencil link")).to_be_visible()
    table.audit(anna)
    pencil_link = anna.get_by_role("link", name="Pencil link").get_attribute("href")

    bruno.goto(pencil_link)
    table.audit(bruno)
    bruno.get_by_role("button", name="Prendi la matita").click()
    expect(bruno).to_have_url(match_url)
    expect(bruno.get_by_role("heading", name="Chi ha perso il turno 2?")).to_be_visible()
    # Anna's share page, untouched, says where the pencil went instead of showing a used-up code.
    expect(anna.get_by_text("The pencil was given to the phone that scanned it.")).to_be_visible(timeout=FOLLOWS)
    expect(anna.get_by_role("img", name="QR code of the pencil link")).to_have_count(0)
    table.audit(bruno, anna)

    loser(bruno, "Carla").click()
    expect(bruno.get_by_role("heading", name="Chi ha perso il turno 3?")).to_be_visible()
    table.audit(bruno)

    anna.get_by_role("button", name="Take the pencil back").click()
    expect(anna).to_have_url(match_url)
    expect(anna.get_by_role("heading", name="Who lost round 3?")).to_be_visible()
    # Bruno's phone, untouched, stops offering an entry it can no longer save.
    expect(bruno.locator("#entry")).to_contain_text("La matita è su un altro telefono.", timeout=FOLLOWS)
    expect(loser(bruno, "Dario")).to_have_count(0)
    table.audit(anna, bruno)
    assert topic_losers(app, match_url) == [["Bruno"], ["Carla"]]


def outage_with_a_reload(table: Table, app: Flask, match_url: str, browser_faults) -> None:
    """Anna's phone loses the network, keeps two rounds, and is reloaded on a page it has no copy of:
    the offline page names the rounds waiting and leads back to their match, where they are sent."""
    for text in NETWORK_CUT:
        browser_faults.expect(text, may_not_come=True)
    anna = table.anna
    path = match_path(anna)
    go_offline(anna)
    loser(anna, "Dario").click()
    loser(anna, "Margherita").click()
    expect(anna.locator("#waiting-rounds li")).to_have_count(2)
    expect(anna.locator("#offline-status")).to_have_text("Offline — 2 rounds kept on this phone")
    table.audit(anna)

    anna.goto(table.base + "/history")
    anna.reload()
    expect(anna.get_by_role("heading", name="No connection to the scorekeeper's server")).to_be_visible()
    waiting = anna.locator("[data-offline-page]")
    expect(waiting).to_contain_text("2 rounds saved here wait on this phone, not sent yet.")
    expect(waiting.get_by_role("link", name="Topic_ · " + ", ".join(PLAYERS))).to_have_attribute("href", path)
    expect(anna.get_by_role("button", name="Try again")).to_have_attribute("href", path)
    table.audit(anna)
    assert topic_losers(app, match_url) == [["Bruno"], ["Carla"]]

    go_online(anna)
    expect(anna).to_have_url(match_url)
    expect(anna.locator("#offline-status")).to_have_text("2 rounds sent")
    assert topic_losers(app, match_url) == [["Bruno"], ["Carla"], ["Dario"], ["Margherita"]]
    table.audit(anna)


def topic_ends(table: Table, match_url: str) -> None:
    """The fifth card leaves one in the deck: the game is over on every phone and on the tablet, where
    Anna, who never lost a round, is named."""
    anna = table.anna
    loser(anna, "Bruno").click()
    expect(anna.get_by_text("The match is over. It is kept in the history.")).to_be_visible()
    for viewer in (table.carla, table.dario):
        expect(viewer.locator("#entry")).to_contain_text("The match is over.", timeout=FOLLOWS)
    expect(table.bruno.locator("#entry")).to_contain_text("La partita è finita.", timeout=FOLLOWS)
    expect(table.tablet.get_by_text("Winner: Anna")).to_be_visible(timeout=FOLLOWS)
    expect(table.tablet.get_by_text(re.compile(r"\b1 card left in the deck"))).to_be_visible()
    table.audit(anna, table.bruno, table.carla, table.dario, table.tablet)


def pazaak_in_italian(table: Table, app: Flask) -> None:
    """Bruno, in Italian, scores Anna against Bruno to three sets with quick results; Carla follows."""
    bruno = table.bruno
    bruno.goto(table.base + "/")
    bruno.get_by_role("button", name="Nuova partita").click()
    bruno.get_by_role("button", name="Pazaak", exact=True).click()
    expect(bruno.get_by_role("button", name="Pazaak", exact=True)).to_have_attribute("aria-pressed", "true")
    for name in ("Anna", "Bruno"):
        bruno.get_by_role("button", name=f"+ {name}", exact=True).click()
        expect(bruno.locator(f'input[name="seat"][value="{name}"]')).to_have_count(1)
    expect(bruno.get_by_label("Set per vincere")).to_have_text("3")
    table.audit(bruno)
    bruno.get_by_role("button", name="Inizia Pazaak").click()
    expect(bruno).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    table.audit(bruno)
    table.carla.goto(bruno.url)
    table.audit(table.carla)

    for number, winner in enumerate(("Anna", "Bruno", "Anna"), start=1):
        bruno.get_by_role("button", name=f"Vince {winner}", exact=True).click()
        expect(bruno.get_by_role("heading", name=f"Set {number + 1} · risultato rapido")).to_be_visible()
        table.audit(bruno)
    bruno.get_by_role("button", name="Vince Anna", exact=True).click()
    expect(bruno.get_by_text("La partita è finita. Resta nello storico.")).to_be_visible()
    expect(table.carla.locator("#entry")).to_contain_text("The match is over.", timeout=FOLLOWS)
    table.audit(bruno, table.carla)
    played = stored_match(app, unref(match_path(bruno).rsplit("/", 1)[1]))
    assert played.is_over and [round.get("winner") for round in played.rounds] == ["Anna", "Bruno", "Anna", "Anna"]


def pazzaparola_ended_by_the_host_then_played_again(table: Table, app: Flask) -> None:
    """Dario starts Pazzaparola to one victory point; Anna, the host, ends it as unfinished and Dario's
    page and Carla's follow by themselves; the host plays it again, to its end, and Dario follows."""
    dario, anna = table.dario, table.anna
    seated = ["Carla", "Dario", "Margherita", "Anna"]
    start_pazzaparola(dario, table.base, seated, target=1)
    first_url = dario.url
    table.audit(dario)
    table.carla.goto(first_url)
    table.audit(table.carla)

    anna.goto(first_url)
    anna.get_by_role("link", name="End as unfinished").click()
    expect(anna.get_by_role("heading", name="End this match as unfinished?")).to_be_visible()
    table.audit(anna)
    anna.get_by_role("button", name="End as unfinished").click()
    expect(anna).to_have_url(first_url)
    ended = "The host ended this match as unfinished."
    expect(anna.locator("#entry")).to_contain_text(ended)
    for phone in (dario, table.carla):
        expect(phone.locator("#entry")).to_contain_text(ended, timeout=FOLLOWS)
    expect(dario.get_by_role("button", name="Save round 1")).to_have_count(0)
    # The scorekeeper's tools follow too: no Undo of a match ended, and its own Play again.
    expect(dario.locator("#match-tools").get_by_role("button", name="Play again")).to_be_visible()
    table.audit(anna, dario, table.carla)
    assert stored_match(app, unref(first_url.rsplit("/", 1)[1])).status == "unfinished"

    # The host plays it again; Dario finds the new match in progress on his home page and follows it.
    anna.get_by_role("button", name="Play again").click()
    expect(anna).not_to_have_url(first_url)
    expect(anna).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    again_url = anna.url
    table.audit(anna)
    dario.goto(table.base + "/")
    dario.get_by_role("link", name=re.compile(r"^Pazzaparola Carla, Dario, Margherita, Anna Round 1")).click()
    expect(dario).to_have_url(again_url)
    table.audit(dario)
    enter_pazzaparola_round(
        anna, TapCounter(anna), {"Carla": [5, 3, 2], "Dario": [4], "Margherita": [2, 2], "Anna": [3]}
    )
    table.audit(anna)
    anna.get_by_role("button", name="Save round 1", exact=True).click()
    expect(anna.locator(".readback")).to_contain_text("Round 1:")
    expect(anna.get_by_text("The match is over. It is kept in the history.")).to_be_visible()
    expect(dario.locator("#entry")).to_contain_text("The match is over.", timeout=FOLLOWS)
    table.audit(anna, dario)
    assert stored_match(app, unref(match_path(anna).rsplit("/", 1)[1])).is_over


def burraco_in_pairs_in_the_dark(table: Table, app: Flask) -> None:
    """Carla (dark theme, 360 px) scores Burraco in pairs to a target of 5; the tablet's table view of it
    is reached by its link again; Bruno follows in Italian."""
    carla = table.carla
    seat_players(carla, table.base, "Burraco PAROLE", ["Anna", "Bruno", "Carla", "Dario"])
    carla.get_by_role("radio", name="In pairs").click()
    expect(carla.get_by_label("Team of Anna & Carla")).to_have_value("Us")
    target = carla.get_by_label("Target", exact=True)
    for _ in range(2):
        carla.get_by_role("button", name="Lower: Target").click()
    expect(target).to_have_value("5")
    table.audit(carla)
    press_start(carla, "Burraco PAROLE", NAMES)
    match_url = carla.url
    table.bruno.goto(match_url)
    table.audit(table.bruno)
    table_view_by_its_link(table.tablet, match_url, ["Us", "Them"])
    table.audit(table.tablet)

    enter_burraco_hand(carla, {"Us": {"table": "50"}, "Them": {"table": "30"}}, None)
    table.audit(carla)
    carla.get_by_role("button", name="Save hand 1").click()
    expect(carla.locator("#banner")).to_contain_text("Hand 1:")
    expect(carla.get_by_text("The match is over. It is kept in the history.")).to_be_visible()
    table.audit(carla)

    # Taken back at once, like an eraser: the hand goes back into the entry, its points as they were typed.
    carla.locator("#banner").get_by_role("button", name="Undo").click()
    expect(carla.locator("#banner")).to_contain_text(re.compile(r"\b1 taken back\."))
    entry = carla.locator("#entry")
    expect(entry.get_by_role("group", name=side_named("Us")).get_by_label("Laid on the table")).to_have_value("50")
    expect(entry.get_by_role("group", name=side_named("Them")).get_by_label("Laid on the table")).to_have_value("30")
    expect(table.bruno.locator("#entry")).not_to_contain_text("La partita è finita.", timeout=FOLLOWS)
    table.audit(carla, table.bruno)
    carla.get_by_role("button", name="Save hand 1").click()
    expect(carla.locator("#banner")).to_contain_text("Hand 1:")
    expect(carla.get_by_text("The match is over. It is kept in the history.")).to_be_visible()
    expect(table.bruno.locator("#entry")).to_contain_text("La partita è finita.", timeout=FOLLOWS)
    expect(table.tablet.get_by_text("Winner: Us")).to_be_visible(timeout=FOLLOWS)
    table.audit(carla, table.bruno, table.tablet)
    assert stored_match(app, unref(match_url.rsplit("/", 1)[1])).is_over


def history_filtered_and_exported(table: Table) -> None:
    """Carla opens the history, keeps Pazzaparola alone, and downloads what it shows, and only that."""
    carla = table.carla
    carla.goto(table.base + "/")
    carla.get_by_role("link", name="History").click()
    expect(carla.get_by_text("5 matches")).to_be_visible()
    table.audit(carla)
    carla.get_by_label("Game").select_option(label="Pazzaparola")
    expect(carla).to_have_url(re.compile(r"/history\?.*game=pazzaparola"))
    expect(carla.locator(".history-item")).to_have_count(2)
    expect(carla.get_by_text("The downloads hold the 2 matches the filters find.")).to_be_visible()
    table.audit(carla)

    with carla.expect_download() as download:
        carla.get_by_role("button", name="Download JSON").click()
    exported = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert [match["game"] for match in exported] == ["pazzaparola", "pazzaparola"]
    with carla.expect_download() as download:
        carla.get_by_role("button", name="Download CSV").click()
    rows = list(csv.DictReader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    assert rows and {row["game"] for row in rows} == {"pazzaparola"}, rows
    table.audit(carla)

    table.tablet.goto(carla.url)
    expect(table.tablet.locator(".history-item")).to_have_count(2)
    table.audit(table.tablet)


def test_a_whole_evening_on_four_phones_and_a_tablet(browser: Browser, live_server, app, browser_faults):
    base = live_server.url
    add_to_roster(app, *PLAYERS)
    began = time.monotonic()
    table = Table(
        base,
        anna=new_phone(browser, base, NARROW),
        bruno=new_phone(browser, base, PHONE, locale="it-IT"),
        carla=new_phone(browser, base, NARROW),
        dario=new_phone(browser, base, PHONE),
        tablet=new_phone(browser, base, TABLET),
    )
    expect(table.bruno.locator("html")).to_have_attribute("lang", "it")

    dark_by_preference(table)
    host_rights(table, app)
    match_url = topic_starts_and_everyone_follows(table)
    pencil_to_bruno_and_back(table, app, match_url)
    outage_with_a_reload(table, app, match_url, browser_faults)
    topic_ends(table, match_url)
    pazaak_in_italian(table, app)
    pazzaparola_ended_by_the_host_then_played_again(table, app)
    burraco_in_pairs_in_the_dark(table, app)
    history_filtered_and_exported(table)
    print(f"\nthe evening took {time.monotonic() - began:.0f} s of browser time")
