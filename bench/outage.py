"""A wi-fi outage at two tables: the network off for minutes while two phones go on scoring.

Two scorekeepers' phones (real Chromium, `python app.py` as `make run` serves it) each start
a match, Topic_ on one and Pazaak on the other; then the network goes away and they enter
rounds spread over the outage; then it comes back. Printed: rounds entered, rounds the server
holds, and for each match how many were lost and how many stored twice (both must be 0).

    .venv/bin/python bench/outage.py [--minutes 5] [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.browser import ARGS, PHONE, chromium  # noqa: E402
from bench.server import Server, seed  # noqa: E402

TOPIC_PLAYERS = ["Ann", "Bob", "Cy", "Di"]
PAZAAK_PLAYERS = ["Rosa", "Quincy"]
# Pazaak's quick results that never end a first-to-3 match: wins, then ties, turn about.
PAZAAK_RESULTS = ["Rosa won", "Quincy won", "Tied", "Rosa won", "Quincy won", "Tied", "Tied", "Tied", "Tied", "Tied"]


def start(page, base: str, game: str, name: str, players: list[str]) -> str:
    """A match started from the new-match page with the game and players picked; its address text."""
    query = "&".join([f"game={game}", *(f"seat={p}" for p in players)])
    page.goto(f"{base}/matches/new?{query}")
    page.get_by_role("button", name=f"Start {name}").click()
    expect(page).to_have_url(re.compile(r"/matches/[0-9A-Za-z]+$"))
    return page.url.rsplit("/", 1)[1]


def stored_rounds(base: str, match_id: str) -> list[dict]:
    """The rounds the server holds, from the match's export."""
    with urllib.request.urlopen(f"{base}/matches/{match_id}.json", timeout=10) as reply:
        return json.load(reply)["rounds"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long the network is off")
    parser.add_argument("--rounds", type=int, default=20, help="rounds entered during the outage, both phones")
    options = parser.parse_args()
    topic_rounds = options.rounds - options.rounds // 3
    pazaak_rounds = options.rounds - topic_rounds
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        instance = Path(folder) / "instance"
        seed(instance, 10)
        with Server(instance, Path(folder) / "server.log") as server:
            browser = playwright.chromium.launch(executable_path=chromium(), args=ARGS)
            phones = [browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True) for _ in range(2)]
            topic, pazaak = (phone.new_page() for phone in phones)
            topic_id = start(topic, server.url, "topic", "Topic_", TOPIC_PLAYERS)
            pazaak_id = start(pazaak, server.url, "pazaak", "Pazaak", PAZAAK_PLAYERS)

            entered = {topic_id: [], pazaak_id: []}
            taps = [("topic", i) for i in range(topic_rounds)] + [("pazaak", i) for i in range(pazaak_rounds)]
            taps.sort(key=lambda tap: tap[1] / (topic_rounds if tap[0] == "topic" else pazaak_rounds))
            for phone in phones:
                phone.set_offline(True)
            began = time.monotonic()
            pause = options.minutes * 60 / max(len(taps), 1)
            for kind, index in taps:
                if kind == "topic":
                    name = TOPIC_PLAYERS[index % len(TOPIC_PLAYERS)]
                    topic.locator("#entry").get_by_role("button", name=re.compile(rf"^{name} \d+ cards?$")).click()
                    entered[topic_id].append(name)
                    expect(topic.locator("#waiting-rounds li")).to_have_count(len(entered[topic_id]))
                else:
                    result = PAZAAK_RESULTS[index % len(PAZAAK_RESULTS)]
                    pazaak.locator("#entry").get_by_role("button", name=result, exact=True).click()
                    entered[pazaak_id].append(result)
                    expect(pazaak.locator("#waiting-rounds li")).to_have_count(len(entered[pazaak_id]))
                done = len(entered[topic_id]) + len(entered[pazaak_id])
                time.sleep(max(0.0, began + pause * done - time.monotonic()))
            offline_for = time.monotonic() - began
            back = time.monotonic()
            for phone in phones:
                phone.set_offline(False)
            for page in (topic, pazaak):
                expect(page.locator("#waiting-rounds li")).to_have_count(0, timeout=120_000)
            caught_up = time.monotonic() - back
            topic_stored = [r["losers"][0] for r in stored_rounds(server.url, topic_id)]
            pazaak_stored = stored_rounds(server.url, pazaak_id)
            browser.close()
    topic_lost = max(0, len(entered[topic_id]) - len(topic_stored))
    topic_twice = max(0, len(topic_stored) - len(entered[topic_id]))
    pazaak_lost = max(0, len(entered[pazaak_id]) - len(pazaak_stored))
    pazaak_twice = max(0, len(pazaak_stored) - len(entered[pazaak_id]))
    in_order = topic_stored == entered[topic_id]
    print(f"network off for {offline_for / 60:.1f} min; {sum(map(len, entered.values()))} rounds entered "
          f"({len(entered[topic_id])} Topic_, {len(entered[pazaak_id])} Pazaak); all sent {caught_up:.1f} s after")
    print(f"stored: Topic_ {len(topic_stored)}, Pazaak {len(pazaak_stored)}; "
          f"Topic_ losers in the order tapped: {in_order}")
    print(f"rounds lost = {topic_lost + pazaak_lost}, rounds stored twice = {topic_twice + pazaak_twice}")
    return 0 if (topic_lost + pazaak_lost + topic_twice + pazaak_twice) == 0 and in_order else 1


if __name__ == "__main__":
    sys.exit(main())
