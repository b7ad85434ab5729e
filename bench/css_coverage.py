"""Which rules of the stylesheets the pages use: Chromium's CSS rule coverage over every kind of page.

`python bench/css_coverage.py` seeds an instance, starts the app as `make run` serves it, and opens
every kind of page in Chromium (each game's match as scorekeeper and as viewer, open and finished, its
correction, table view and new-match settings; home, history, players, preferences, host, share,
pencil, end, delete, changes, offline), at a phone's and a desktop's width, in the light and the dark
scheme, with a few taps that change what a page shows (a game picked, a Save refused). Chromium counts
a rule as used once it has matched an element. Printed per stylesheet file: its size, and the share
of its rules' bytes that some page used. A lower bound: a rule only a state not visited here matches
(a hover, a key pressed) counts as unused, so this says how much of a file is dead weight, never which
rules may go.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.browser import ARGS, chromium  # noqa: E402
from bench.server import Server, app_env, seed  # noqa: E402

SIZES = {"phone": {"width": 360, "height": 740}, "desktop": {"width": 1280, "height": 800}}
MARKER = re.compile(r"/\* ([\w.-]+) \*/\n")


def _matches(instance: Path) -> dict[str, dict]:
    """One open match per game with some rounds, its pencil token; and a finished one per game."""
    import os

    os.environ.update(app_env(instance))
    from companion import create_app
    from companion.extensions import db
    from companion.games import REGISTRY
    from companion.models import Match, Player
    from companion.services import matches as service
    from companion.services.seed import play_match
    from companion.web import cookies
    from companion.web.pencil import PENCIL_COOKIE, kept_under

    app = create_app()
    found: dict[str, dict] = {}
    with app.app_context():
        rng = random.Random(5)
        for slug, game in REGISTRY.items():
            players, settings, rounds = play_match(rng, slug)
            match, token = service.create_match(slug, players, settings)
            for data in rounds[: max(1, len(rounds) // 2)]:
                service._append(match, data)
            service.rescore(match)
            db.session.commit()
            finished = db.session.scalars(db.select(Match).where(Match.game == slug, Match.status == "finished"))
            done, player = finished.first(), db.session.get(Player, 1)
            # The pencil as the app keeps it: one cookie, the token under a digest of the match's uid.
            found[slug] = {"open": match.id, "pencil": (cookies.name(PENCIL_COOKIE, app),
                                                        f"{kept_under(match.uid)}:{token}"),
                           "finished": done.id, "game": game,
                           "addresses": {"open": match.public_id, "finished": done.public_id,
                                         "player": player.public_id}}  # fmt: skip
    return found


def _pages(url: str, matches: dict[str, dict]) -> list[tuple[str, str, str | None]]:
    """(name, URL, the match whose pencil this phone holds) for every kind of page."""
    player = next(iter(matches.values()))["addresses"]["player"]
    pages = [("home", "/", None), ("new match", "/matches/new", None), ("history", "/history", None),
             ("history, searched", "/history?q=a&game=topic", None), ("players", "/players", None),
             ("player", f"/players/{player}", None), ("preferences", "/preferences", None), ("host", "/host", None),
             ("offline", "/offline", None)]  # fmt: skip
    for slug, found in matches.items():
        open_ = found["open"]
        shown, done = found["addresses"]["open"], found["addresses"]["finished"]
        pages += [
            (f"new match, {slug}", f"/matches/new?game={slug}", None),
            (f"{slug}: scorekeeper", f"/matches/{shown}", open_),
            (f"{slug}: viewer", f"/matches/{shown}", None),
            (f"{slug}: finished", f"/matches/{done}", None),
            (f"{slug}: correction", f"/matches/{shown}/rounds/1", open_),
            (f"{slug}: table view", f"/matches/{shown}/table", None),
            (f"{slug}: share", f"/matches/{shown}/share", open_),
            (f"{slug}: pencil", f"/matches/{shown}/pencil", open_),
            (f"{slug}: changes", f"/matches/{shown}/changes", open_),
            (f"{slug}: end", f"/matches/{shown}/end", open_),
            (f"{slug}: delete", f"/matches/{done}/delete", None),
        ]
    return [(name, url + path, pencil) for name, path, pencil in pages]


def _taps(page) -> None:
    """A few taps that change what a page shows: a Save refused, another game picked."""
    save = page.locator("#entry button.save:visible")
    if save.count():
        save.first.click()
        page.wait_for_load_state("networkidle")
    games = page.locator(".game-pick button")
    for index in range(games.count()):
        games.nth(index).click()
        page.wait_for_load_state("networkidle")


def measure(url: str, matches: dict[str, dict]) -> dict[str, dict]:
    """For every stylesheet file: its bytes and the bytes of the rules some page used."""
    from playwright.sync_api import sync_playwright

    used: dict[str, set[tuple[int, int]]] = {}
    texts: dict[str, str] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=ARGS, headless=True)
        for size in SIZES.values():
            for scheme in ("light", "dark"):
                for _, page_url, pencil in _pages(url, matches):
                    context = browser.new_context(viewport=size, color_scheme=scheme, service_workers="block")
                    if pencil:
                        name, value = next(m["pencil"] for m in matches.values() if m["open"] == pencil)
                        context.add_cookies([{"name": name, "value": value, "url": url}])
                    page = context.new_page()
                    cdp = context.new_cdp_session(page)
                    sheets: dict[str, str] = {}
                    cdp.on("CSS.styleSheetAdded", lambda e, s=sheets: s.__setitem__(e["header"]["styleSheetId"],
                                                                                 e["header"]["sourceURL"]))  # fmt: skip
                    cdp.send("DOM.enable")
                    cdp.send("CSS.enable")
                    cdp.send("CSS.startRuleUsageTracking")
                    page.goto(page_url, wait_until="networkidle")
                    _taps(page)
                    rules = cdp.send("CSS.stopRuleUsageTracking")["ruleUsage"]
                    for sheet_id, source in list(sheets.items()):
                        key = re.sub(r"/?[0-9a-f]{12}\.css$", "", source.split("//", 1)[-1].split("/", 1)[-1])
                        if key not in texts:
                            texts[key] = cdp.send("CSS.getStyleSheetText", {"styleSheetId": sheet_id})["text"]
                        mine = [r for r in rules if r["styleSheetId"] == sheet_id and r["used"]]
                        used.setdefault(key, set()).update((r["startOffset"], r["endOffset"]) for r in mine)
                    context.close()
        browser.close()
    return _per_file(texts, used)


def _per_file(texts: dict[str, str], used: dict[str, set[tuple[int, int]]]) -> dict[str, dict]:
    """Bytes and used bytes per file, over every bundle that holds it (their `/* name */` markers)."""
    out: dict[str, dict] = {}
    for key, text in texts.items():
        starts = [(m.end(), m.group(1)) for m in MARKER.finditer(text)] or [(0, key)]
        bounds = [*[start for start, _ in starts[1:]], len(text)]
        for (start, name), end in zip(starts, bounds, strict=True):
            found = out.setdefault(name, {"bytes": end - start, "ranges": set(), "bundles": set()})
            found["ranges"].update((a - start, b - start) for a, b in used.get(key, ()) if start <= a < end)
            found["bundles"].add(key.removeprefix("bundle").lstrip("/") or "shared")
    return {name: {"bytes": f["bytes"], "used": _union(list(f["ranges"])), "bundle": ", ".join(sorted(f["bundles"]))}
            for name, f in out.items()}  # fmt: skip


def _union(ranges: list[tuple[int, int]]) -> int:
    """How many bytes the ranges cover (a rule inside a used @media block is counted once)."""
    total, reach = 0, -1
    for a, b in sorted(ranges):
        if b > reach:
            total += b - max(a, reach)
            reach = b
    return total


def main() -> int:
    """Seed, serve, measure, print."""
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    with tempfile.TemporaryDirectory(prefix="css-coverage-") as tmp:
        instance = Path(tmp) / "instance"
        seed(instance, 100)
        matches = _matches(instance)
        with Server(instance, Path(tmp) / "server.log") as server:
            files = measure(server.url, matches)
    print("| file | bundle | bytes | used by some page | share |")
    print("|---|---|---:|---:|---:|")
    # A stylesheet without a file behind it (a shadow root's own) has no name: left out.
    for name, f in sorted(((n, f) for n, f in files.items() if n), key=lambda item: (item[1]["bundle"], item[0])):
        print(f"| {name} | {f['bundle']} | {f['bytes']} | {f['used']} | {f['used'] / max(f['bytes'], 1):.0%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
