"""make deploy-check's phones: real Chromium through Caddy's HTTPS (its root trusted in the browser's store).

    check_browser.py live URL STATE       a group started, a second phone invited; two phones on two app
                                          servers; the service worker offline
    check_browser.py kill URL CONTAINER STATE   three phones save while CONTAINER is killed (-9)
    check_browser.py stop URL CONTAINER STATE   the same while CONTAINER is stopped (SIGTERM)
    check_browser.py verify URL STATE     every round written to STATE is still there

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

from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

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


def start_group(page: Page, base: str, state_file: Path) -> None:
    """The first phone starts the group from the welcome page; its invite link is kept beside STATE."""
    page.goto(base + "/")
    page.get_by_label("Name of the group").fill("Deploy check")
    page.get_by_role("button", name="Start a group").click()
    invite = page.locator(".qr-url a").first.get_attribute("href")
    assert invite and "/join/" in invite, invite
    invite_file(state_file).write_text("/join/" + invite.split("/join/", 1)[1])
    print(f"group started on {served_by(page)}; its invite link shown with its QR code")


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
    browser: Browser, base: str, server: str, state_file: Path, tries: int = 60
) -> tuple[BrowserContext, Page]:
    """A fresh phone that Caddy sent to this app server (one just started may wait out Caddy's 30 s of doubt),
    joined to the group."""
    for _ in range(tries):
        context, page = new_phone(browser)
        answer = page.goto(base + "/")
        assert answer is not None and answer.ok, answer
        if answer.headers.get("x-served-by") == server:
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


def tap_topic(page: Page, index: int) -> str:
    name = TOPIC_PLAYERS[index % len(TOPIC_PLAYERS)]
    page.locator("#entry").get_by_role("button", name=re.compile(rf"^{name} \d+ cards?$")).click()
    return name


def tap_pazaak(page: Page, index: int) -> str:
    result = PAZAAK_RESULTS[min(index, len(PAZAAK_RESULTS) - 1)]
    page.locator("#entry").get_by_role("button", name=result, exact=True).click()
    return result


def live(base: str, state_file: Path) -> None:
    """A group started, a phone invited; a match started by a phone on app1 and followed live by a phone on
    app2; then offline."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        _, host = new_phone(browser)
        start_group(host, base, state_file)
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
                tap = tap_topic if table["game"] == "topic" else tap_pazaak
                table["entered"].append(tap(table["page"], index))
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


if __name__ == "__main__":
    step, url, *rest = sys.argv[1:]
    if step == "live":
        live(url, Path(rest[0]))
    elif step in ("kill", "stop"):
        kill(url, rest[0], Path(rest[1]), step)
    else:
        verify(url, Path(rest[0]))
