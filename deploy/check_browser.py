"""make deploy-check's phones: real Chromium through Caddy's HTTPS (its root trusted in the browser's store).

    check_browser.py live URL STATE       a group started, a second phone invited; two phones on two app
                                          servers; the service worker offline
    check_browser.py kill URL CONTAINER STATE   three phones save while CONTAINER is killed (-9)
    check_browser.py stop URL CONTAINER STATE   the same while CONTAINER is stopped (SIGTERM)
    check_browser.py verify URL STATE     every round written to STATE is still there
    check_browser.py evening URL CONTAINER   a club evening of 4 tables × 2 turns, its phones on both app
                                          servers; CONTAINER killed (-9) while the last turn confirms

The server keeps each group to its phones (COMPANION_GROUPS=private, as .env.example sets it): the first
phone starts a group, and every other phone joins it by the invite link, kept beside STATE for later steps.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.browser import ARGS, PHONE, chromium  # noqa: E402
from bench.outage import PAZAAK_PLAYERS, PAZAAK_RESULTS, TOPIC_PLAYERS, start  # noqa: E402

SITE = "scores.lan"
ROUNDS = 12  # per phone in the kill test
WAIT = 120_000


def launch(playwright) -> Browser:
    """Chromium that resolves the site's name to this machine; no flag touches certificate checks."""
    return playwright.chromium.launch(
        executable_path=chromium(), args=[*ARGS, f"--host-resolver-rules=MAP {SITE} 127.0.0.1"]
    )


def served_by(page: Page) -> str:
    """The app server this phone's requests go to (Caddy keeps a phone on one: a cookie)."""
    return page.evaluate("fetch('/healthz', {cache: 'no-store'}).then(r => r.headers.get('x-served-by'))")


def new_phone(browser: Browser) -> tuple[BrowserContext, Page]:
    """A phone that has never seen the server."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale="en-GB")
    return context, context.new_page()


def start_group(page: Page, base: str, name: str) -> str:
    """A phone starts a group from the welcome page (it is its host); the group's invite link."""
    page.goto(base + "/")
    page.get_by_label("Name of the group").fill(name)
    page.get_by_role("button", name="Start a group").click()
    invite = page.locator(".qr-url a").first.get_attribute("href")
    assert invite and "/join/" in invite, invite
    print(f"group {name!r} started on {served_by(page)}; its invite link shown with its QR code")
    return "/join/" + invite.split("/join/", 1)[1]


def invite_file(state_file: Path) -> Path:
    """Where the group's invite link is kept between the steps."""
    return state_file.with_name("invite.txt")


def join(page: Page, base: str, state_file: Path) -> None:
    """A phone opens the invite link and taps Join: it is in the group."""
    page.goto(base + invite_file(state_file).read_text())
    page.get_by_role("button", name="Join", exact=True).click()
    # The menu of a member: the group's history and players.
    expect(page.get_by_role("link", name="History", exact=True)).to_be_visible()


def phone_on(
    browser: Browser, base: str, server: str, state_file: Path | None, tries: int = 60
) -> tuple[BrowserContext, Page]:
    """A fresh phone that Caddy sent to this app server (one just started may wait out Caddy's fail_duration),
    joined to the group (with no STATE, in none: a table card's phone)."""
    for _ in range(tries):
        context, page = new_phone(browser)
        answer = page.goto(base + "/")
        assert answer is not None and answer.ok, answer
        if answer.headers.get("x-served-by") == server:
            if state_file:
                join(page, base, state_file)
            return context, page
        context.close()
        time.sleep(0.5)  # Caddy sends new phones to a server it doubts only once its fail_duration is over
    raise AssertionError(f"no phone reached {server} in {tries} tries")


def export(page: Page, match_id: str) -> dict:
    """The match's export, fetched by the phone through Caddy."""
    return page.evaluate(f"fetch('/matches/{match_id}.json', {{cache: 'no-store'}}).then(r => r.json())")


def settle(page: Page) -> None:
    """No save on its way and none kept waiting on this phone."""
    page.wait_for_function("() => !document.querySelector('.htmx-request')", timeout=WAIT)
    expect(page.locator("#waiting-rounds li")).to_have_count(0, timeout=WAIT)


def tap(page: Page, button: Locator) -> None:
    """A tap on the entry's button; when there is none to tap, what the phone showed instead: a failure to read."""
    try:
        button.click(timeout=30_000)
    except PlaywrightTimeout:
        shown = page.evaluate(
            "() => ['#banner', '#entry', '#waiting-rounds', '#offline-status'].map(s => {"
            " const e = document.querySelector(s); return s + ': ' + (e ? e.outerHTML.slice(0, 3000) : 'none'); })"
        )
        print(f"no button to tap at {page.url} ({page.title()!r}):", *shown, sep="\n  ", file=sys.stderr)
        raise


def tap_topic(page: Page, index: int) -> str:
    name = TOPIC_PLAYERS[index % len(TOPIC_PLAYERS)]
    tap(page, page.locator("#entry").get_by_role("button", name=re.compile(rf"^{name} \d+ cards?$")))
    return name


def tap_pazaak(page: Page, index: int) -> str:
    result = PAZAAK_RESULTS[min(index, len(PAZAAK_RESULTS) - 1)]
    tap(page, page.locator("#entry").get_by_role("button", name=result, exact=True))
    return result


def live(base: str, state_file: Path) -> None:
    """A group started, a phone invited; a match started by a phone on app1 and followed live by a phone on
    app2; then offline."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        _, host = new_phone(browser)
        invite_file(state_file).write_text(start_group(host, base, "Deploy check"))
        scorer_context, scorer = phone_on(browser, base, "app1", state_file)
        _, follower = phone_on(browser, base, "app2", state_file)
        match_id = start(scorer, base, "topic", "Topic_", TOPIC_PLAYERS)
        follower.goto(f"{base}/matches/{match_id}")
        assert served_by(scorer) == "app1" and served_by(follower) == "app2"
        before = follower.locator("#rounds tr").count()
        tap_topic(scorer, 0)
        settle(scorer)
        after = scorer.locator("#rounds tr").count()
        assert after > before, (before, after)
        expect(follower.locator("#rounds tr")).to_have_count(after, timeout=30_000)
        print(f"live: round saved on app1 (match {match_id}) seen on app2's phone: {after - before} row(s)")

        scorer.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")
        scorer.goto(f"{base}/matches/{match_id}")  # the copy the worker keeps
        scorer_context.set_offline(True)
        scorer.reload()
        expect(scorer.get_by_role("heading", name="Topic_")).to_be_visible()
        tap_topic(scorer, 1)
        expect(scorer.locator("#waiting-rounds li")).to_have_count(1)
        scorer_context.set_offline(False)
        settle(scorer)
        expect(follower.locator("#rounds tr")).not_to_have_count(after, timeout=30_000)
        print("service worker: in control over HTTPS; the match page opened offline, kept a round, sent it on return")
        browser.close()


def kill(base: str, container: str, state_file: Path, how: str = "kill") -> None:
    """Three phones save rounds; one app server is killed (-9), or stopped (SIGTERM), while they do.

    No round may be lost or stored twice, and the phones go on through the other server.
    """
    with sync_playwright() as playwright:
        browser = launch(playwright)
        tables = [
            {"page": phone_on(browser, base, server, state_file)[1], "game": game, "entered": []}
            for server, game in (("app1", "topic"), ("app2", "pazaak"), ("app1", "topic"))
        ]
        for table in tables:
            name, players = ("Topic_", TOPIC_PLAYERS) if table["game"] == "topic" else ("Pazaak", PAZAAK_PLAYERS)
            table["match"] = start(table["page"], base, table["game"], name, players)
        killed = threading.Event()
        took: list[float] = []

        def kill_it() -> None:
            action = ["kill", "--signal", "KILL"] if how == "kill" else ["stop", "--time", "40"]
            began = time.monotonic()
            subprocess.run(["podman", "--runtime", "runc", *action, container], check=True, stdout=subprocess.DEVNULL)
            took.append(time.monotonic() - began)
            killed.set()

        for index in range(ROUNDS):
            if index == ROUNDS // 3:
                # Fired while the three phones' saves are going out, not between them.
                threading.Timer(0.05, kill_it).start()
            for table in tables:
                enter = tap_topic if table["game"] == "topic" else tap_pazaak
                table["entered"].append(enter(table["page"], index))
            for table in tables:
                settle(table["page"])
        killed.wait(60)
        assert killed.is_set()
        for table in tables:
            table["stored"] = export(table["page"], table["match"])["rounds"]
        entered = sum(len(table["entered"]) for table in tables)
        stored = sum(len(table["stored"]) for table in tables)
        lost = sum(max(0, len(table["entered"]) - len(table["stored"])) for table in tables)
        twice = sum(max(0, len(table["stored"]) - len(table["entered"])) for table in tables)
        topic = [table for table in tables if table["game"] == "topic"]
        in_order = all([r["losers"][0] for r in table["stored"]] == table["entered"] for table in topic)
        now = sorted({served_by(table["page"]) for table in tables})
        what = "kill -9" if how == "kill" else f"SIGTERM (podman stop, gone after {took[0]:.1f} s)"
        print(f"{what} of {container} while 3 phones saved: {entered} rounds entered, {stored} stored; "
              f"lost {lost}, stored twice {twice}; Topic_ rounds in the order tapped: {in_order}; "
              f"the phones now on {now}")  # fmt: skip
        if not (lost == 0 and twice == 0 and in_order):
            # What each phone entered and what its match holds, and what its page says: a failure to read.
            for table in tables:
                banner = table["page"].locator("#banner, #waiting-rounds").all_inner_texts()
                stored = [r.get("losers") or r.get("winner") for r in table["stored"]]
                print(f"  {table['game']} {table['match']}: entered {table['entered']}, stored {stored}")
                print(f"    its page says: {banner}")
        assert lost == 0 and twice == 0 and in_order and container not in now
        counts = json.loads(state_file.read_text()) if state_file.exists() else {}
        counts.update({str(table["match"]): len(table["entered"]) for table in tables})
        state_file.write_text(json.dumps(counts))
        browser.close()


def verify(base: str, state_file: Path) -> None:
    """After a full stop and start: each match of the kill test has every round it had."""
    expected = json.loads(state_file.read_text())
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_context().new_page()
        join(page, base, state_file)
        found = {match_id: len(export(page, match_id)["rounds"]) for match_id in expected}
        print(f"after a restart: rounds per match {found} (expected {expected})")
        assert found == expected
        browser.close()


EVENING_PAIRS = ["Rossi & Bianchi", "Verdi & Neri", "Gallo & Conti", "Greco & Bruno", "Costa & Fontana",
                 "Moretti & Rizzo", "Marino & Ferrari", "Romano & Colombo"]  # fmt: skip
EVENING_HANDS = 2
SIDES = ("N/S", "E/W")


def tap_laid(page: Page, side: str, points: int) -> None:
    """The side's points laid on the table, typed on Burraco's keypad."""
    card = page.locator("#entry").get_by_role("group", name=re.compile("^" + re.escape(side).replace("/", r"\/")))
    card.get_by_label("Laid on the table").click()
    for key in str(points):
        page.get_by_role("group", name="Keypad").get_by_role("button", name=key, exact=True).click()


def play_hands(page: Page, table: int) -> tuple[int, int]:
    """The table's pencil saves the turn's hands by taps; the turn's points of N/S and E/W."""
    laid = (100 + 20 * table, 60 + 10 * table)
    for number in range(1, EVENING_HANDS + 1):
        for side, points in zip(SIDES, laid, strict=True):
            tap_laid(page, side, points)
        page.locator("#entry").get_by_role("radio", name="Nobody", exact=True).click()
        page.get_by_role("button", name=f"Save hand {number}", exact=True).click()
        settle(page)
    return laid[0] * EVENING_HANDS, laid[1] * EVENING_HANDS


def where(phone: Page, turn: int) -> tuple[int, str]:
    """The phone's table in this turn and its side, as its table's panel says once the phone is there."""
    head = phone.locator("#club-table .club-panel-head")
    expect(head).to_contain_text(f"Turn {turn} of 2", timeout=WAIT)
    expect(head.locator(".club-my-side")).to_be_visible(timeout=WAIT)
    found = re.search(r"Table (\d+) · you are (N/S|E/W)", head.inner_text())
    assert found, head.inner_text()
    return int(found[1]), found[2]


# What each phone of the evening heard go wrong (its console, its failed requests, its answers of 400 and more),
# printed when the evening fails.
heard: dict[Page, list[str]] = {}


def set_up_evening(browser: Browser, base: str) -> tuple[Page, str, list[Page]]:
    """A host starts a group and an evening of 8 pairs, 2 turns × 2 hands, and starts turn 1; a phone for each
    pair takes its seat by its table's card (N/S of tables 1-2 and E/W of 3-4 on app1, the others on app2)."""
    _, host = new_phone(browser)
    start_group(host, base, "Club evening")
    host.goto(base + "/evenings/new")
    host.get_by_label("Name of the evening").fill("Deploy evening")
    host.get_by_label("Turns", exact=True).select_option("2")
    host.get_by_label("Hands a turn").select_option(str(EVENING_HANDS))
    expect(host.get_by_text(f"Preset for {EVENING_HANDS} hands")).to_be_visible()
    host.get_by_label("Entrants: one a line").fill("\n".join(EVENING_PAIRS))
    host.get_by_role("button", name="Create the evening").click()
    host.get_by_role("button", name="Start turn 1").click()
    expect(host.get_by_role("heading", name=re.compile("Turn 1 of 2"))).to_be_visible()
    host.get_by_role("button", name=re.compile("^Start the clock")).click()
    expect(host.locator("[data-club-clock]")).to_be_visible()
    arbiter = host.url
    host.goto(base + "/evenings/cards?tables=4")
    cards = [host.locator(".club-card-link a").nth(i).get_attribute("href") or "" for i in range(4)]
    phones = []
    for number, card in enumerate(cards, start=1):
        for side in SIDES:
            phone = phone_on(browser, base, "app1" if (side == "N/S") == (number <= 2) else "app2", None)[1]
            phone.goto(card if card.startswith("http") else base + card)
            phone.locator("fieldset").filter(has_text=side).get_by_role("radio").first.check()
            phone.get_by_role("button", name="Take my seat").click()
            expect(phone).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"), timeout=WAIT)
            phones.append(phone)
            heard[phone] = []
            phone.on("console", lambda message, said=heard[phone]: said.append(f"console: {message.text}"))
            phone.on(
                "requestfailed",
                lambda request, said=heard[phone]: said.append(f"failed: {request.method} {request.url}"),
            )
            phone.on(
                "response",
                lambda response, said=heard[phone]: (
                    response.status >= 400
                    and said.append(f"{response.status}: {response.request.method} {response.url}")
                ),
            )
    servers = [served_by(phone) for phone in phones]
    print(f"8 phones seated by the table cards: {servers.count('app1')} on app1, {servers.count('app2')} on app2")
    return host, arbiter, phones


def evening(base: str, container: str) -> None:
    """A short club evening across both app servers: every phone is told the same next turn whichever server
    answers it, and CONTAINER killed (-9) while the last turn's E/W phones confirm loses no confirmation: the
    evening ends with every table counted as entered, no tap again."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        host, arbiter, phones = set_up_evening(browser, base)
        try:
            play_evening(host, arbiter, phones, container)
        except Exception:
            # What each phone shows, to read the failure from the log (and its screen, kept in /tmp).
            for number, phone in enumerate(phones):
                panel = phone.locator("#club-table").all_inner_texts()
                print(f"phone {number} on {served_by(phone)} at {phone.url}: entry {phone.locator('#entry').count()}, "
                      f"panel {panel}; heard {heard.get(phone)}")  # fmt: skip
                phone.screenshot(path=f"/tmp/deploy-evening-phone-{number}.png", full_page=True)
            raise
        browser.close()


def same_clock(phones: list[Page]) -> None:
    """Every phone shows the turn's clock with one end, whichever server drew its panel, and the same time left."""
    ends = set()
    for phone in phones:
        clock = phone.locator("#club-table [data-club-clock]")
        expect(clock).to_be_visible(timeout=WAIT)
        ends.add(clock.get_attribute("data-ends-ms"))
    # Read one phone after another: each figure brought to the moment of the first reading (the figures show whole
    # seconds, so two agreeing clocks may differ by one).
    began, left = time.monotonic(), []
    for phone in phones:
        minutes, seconds = phone.locator("#club-table [data-clock-left]").inner_text().split(":")
        left.append(int(minutes) * 60 + int(seconds) + time.monotonic() - began)
    spread = max(left) - min(left)
    print(f"the clock on the 8 phones of both servers: {len(ends)} end; the time left read alike within {spread:.1f} s")
    assert len(ends) == 1 and spread < 2, (ends, left)


def play_evening(host: Page, arbiter: str, phones: list[Page], container: str) -> None:
    """The evening's two turns played through its phones, CONTAINER killed as the last turn confirms."""
    same_clock(phones)
    entered: dict[tuple[int, str], int] = {}
    killed = threading.Event()

    def kill_it() -> None:
        subprocess.run(["podman", "--runtime", "runc", "kill", "--signal", "KILL", container], check=True)
        killed.set()

    for turn in (1, 2):
        seated = {phone: where(phone, turn) for phone in phones}
        # One phone a side at each table, whichever server drew its panel.
        assert sorted(seated.values()) == sorted((table, side) for table in (1, 2, 3, 4) for side in SIDES), seated
        for phone, (table, side) in seated.items():
            if side == "N/S":
                points = play_hands(phone, table)
                entered.update({(turn, table, "N/S"): points[0], (turn, table, "E/W"): points[1]})
        if turn == 2:
            threading.Timer(0.05, kill_it).start()  # while the confirmations go out, not between them
        for phone, (table, side) in seated.items():
            if side == "E/W":
                ns, ew = entered[(turn, table, "N/S")], entered[(turn, table, "E/W")]
                phone.locator("#club-table").get_by_role("button", name=f"Confirm: N/S {ns} – E/W {ew}").click()
        if turn == 1:
            moved = sum(where(phone, 2) != seated[phone] for phone in phones)
            print(f"turn 1 confirmed on both servers: each phone at its turn-2 table by itself ({moved} moved)")
    assert killed.wait(60)
    for phone in phones:
        expect(phone.locator("#club-table")).to_contain_text("The evening is over.", timeout=WAIT)
    host.goto(arbiter)
    expect(host.get_by_role("heading", name="The evening is over")).to_be_visible(timeout=WAIT)
    rows = host.evaluate("url => fetch(url, {cache: 'no-store'}).then(r => r.json())", arbiter + "/standings.json")
    rows = rows["standings"]
    results = {(m["turn"], m["table"], m["side"]): m["points_for"] for row in rows for m in row["path"]}
    now = sorted({served_by(phone) for phone in phones})
    print(
        f"kill -9 of {container} while turn 2's confirmations went out: the evening over on every phone; "
        f"{len(results)} results of 16 in its standings, as entered: {results == entered}; phones on {now}"
    )
    assert results == entered, (results, entered)


if __name__ == "__main__":
    step, url, *rest = sys.argv[1:]
    if step == "live":
        live(url, Path(rest[0]))
    elif step == "evening":
        evening(url, rest[0])
    elif step in ("kill", "stop"):
        kill(url, rest[0], Path(rest[1]), step)
    else:
        verify(url, Path(rest[0]))
