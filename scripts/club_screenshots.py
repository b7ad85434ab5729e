"""Photograph a club evening's pages at every size, theme and language for review; keep a few in docs/screenshots/."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flask import Flask
from PIL import Image
from playwright.sync_api import Browser, Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import create_app  # noqa: E402
from companion.extensions import db  # noqa: E402
from companion.models import Match  # noqa: E402
from companion.models.club import ClubEvening, ClubTable  # noqa: E402
from companion.queries.matches import hash_token  # noqa: E402
from companion.services import club, club_table, host, matches  # noqa: E402
from tests.helpers import LiveServer, chromium_executable  # noqa: E402

SIZES = {"phone360": {"width": 360, "height": 740}, "phone390": {"width": 390, "height": 844},
         "tablet": {"width": 1024, "height": 768}, "desktop": {"width": 1440, "height": 900},
         "tv": {"width": 1920, "height": 1080}}  # fmt: skip
PHONES = ("phone360", "phone390")
# Every page at every size, light, in English; then these in the dark and in Italian.
LOOKS = [("light", "en-GB"), ("dark", "en-GB"), ("light", "it-IT")]
PAIRS = [(["Rossi", "Bianchi"], "Arona"), (["Verdi", "Neri"], None), (["Gallo", "Conti"], "Arona"),
         (["Greco", "Bruno"], None), (["Costa", "Fontana"], None), (["Moretti", "Rizzo"], "Torino"),
         (["Marino", "Ferrari"], None), (["Romano", "Colombo"], "Torino")]  # fmt: skip
PLAN = {"game": "burraco", "pairs": True, "turns": 3, "hands": 3, "first": "mitchell", "then": "danese_modificato"}
# The awkward evening: 48 pairs on 24 tables, every player's name 40 characters long.
LONG_PAIRS = [([f"{first} Della Valle Bonaventura Squarcialupi"[:37] + f" {n:02d}"
                for first in ("Gianfranco", "Maddalena")], "Circolo Lungolago") for n in range(48)]  # fmt: skip
# The few kept in the repository (name in docs/screenshots: the shot's name in the scratch folder).
KEPT = {"club-setup-phone.png": "setup-scale-phone390-light-en",
        "club-arbiter-tablet.png": "arbiter-tablet-light-en",
        "club-arbiter-tv-dark.png": "arbiter-tv-dark-en",
        "club-card-phone-it.png": "card-phone360-light-it",
        "club-confirm-phone.png": "table-ew-phone390-light-en",
        "club-hand-over-phone-dark.png": "table-ns-phone360-dark-en",
        "club-standings-desktop.png": "standings-desktop-light-en",
        "club-cards-desktop.png": "cards-desktop-light-en",
        "club-log-phone.png": "log-phone390-light-en",
        "club-podium-card.png": "podium-card-light-en"}  # fmt: skip


def hand(ns: int, ew: int) -> dict:
    """A hand of a pairs table: N/S and E/W lay these points, nobody closes."""
    return {"sides": {"N/S": {"table": ns, "hand": 0}, "E/W": {"table": ew, "hand": 0}}, "closed_by": None}


def turn_tables(turn: int) -> list[ClubTable]:
    return list(db.session.scalars(db.select(ClubTable).filter_by(turn=turn).where(ClubTable.number > 0)
                                   .order_by(ClubTable.number)))  # fmt: skip


def play(table: ClubTable, hands: int | None = None) -> None:
    """The table's scorekeeper saves its hands (all of them unless `hands`)."""
    match = db.session.get(Match, table.match_id)
    evening = table.evening
    for _ in range((hands or evening.hands) - len(match.rounds)):
        matches.save_round(match, hand(100 + 35 * table.number + 20 * table.turn, 90 + 15 * (table.number % 3)))


def players(table: ClubTable, side: int) -> list[str]:
    return next(e.players for e in table.evening.entrants if e.number == table.sides[side])


class Shooter:
    """Takes the shots into a scratch folder, named page-size-theme-language."""

    def __init__(self, app: Flask, browser: Browser, base: str, out: Path) -> None:
        self.app, self.browser, self.base, self.out = app, browser, base, out

    def phone(self, size: str, theme: str = "light", locale: str = "en-GB") -> Page:
        context = self.browser.new_context(viewport=SIZES[size], has_touch=size != "desktop", locale=locale,
                                           color_scheme=theme)  # fmt: skip
        context.add_cookies([{"name": "theme", "value": theme, "url": self.base}])
        return context.new_page()

    def arbiter(self, size: str, theme: str = "light", locale: str = "en-GB") -> Page:
        """A phone holding host rights (the host link tapped)."""
        page = self.phone(size, theme, locale)
        page.goto(f"{self.base}/host?token={host.new_link_token(self.app)}")
        page.locator("form[action$='/host'] [type=submit]").click()
        expect(page.get_by_role("status")).to_be_visible()
        return page

    def shot(self, page: Page, name: str, size: str, theme: str, locale: str, full: bool = True) -> None:
        page.evaluate("document.fonts.ready")
        page.screenshot(path=str(self.out / f"{name}-{size}-{theme}-{locale[:2]}.png"), full_page=full)


@contextmanager
def served(instance: str, pairs: list) -> Iterator[tuple[Flask, str, str]]:
    """A scratch app with an evening of `pairs` started; the app, its base URL and the evening's address."""
    app = create_app(instance_path=instance)
    with app.app_context():
        evening = club.create_evening("Venerdì del circolo", PLAN, pairs)
        club.start(evening)
        address = evening.public_id
        db.session.remove()
    with LiveServer(app) as server:
        yield app, server.url, address


def play_turn_1(shooter: Shooter, card_links: list[str]) -> Page:
    """Turn 1 played at every table and counted by the arbiter but the last, whose N/S phone (seated by its
    card) waits to hand over to E/W, who has no phone; that phone."""
    with shooter.app.app_context():
        tables = turn_tables(1)
        last, ns_name = tables[-1].number, players(tables[-1], 0)[0]
    ns = seated(shooter, card_links[last - 1], ns_name, "phone360")
    with shooter.app.app_context():
        evening = db.session.scalars(db.select(ClubEvening)).one()
        for table in turn_tables(1):
            play(table)
            if table.number != last:
                club.confirm_as_arbiter(evening, 1, table.number)
        db.session.remove()
    return ns


def hand_over(ns: Page) -> None:
    """E/W confirms on the N/S phone handed over: the turn's last table counted, turn 2 is drawn."""
    ns.locator(".club-hand-over").evaluate("details => details.open = true")
    ns.locator(".club-hand-over button").click()
    expect(ns.locator("#club-table")).to_contain_text("Turn 2 of", timeout=10_000)


def set_the_tables_of_turn_2(shooter: Shooter, card_links: list[str]) -> Page:
    """Turn 2's tables in every state: 1 counted, 2 disputed, 3 waiting for its E/W phone (seated by card),
    4 on its first hand, those after (24 tables) on their hands or waiting; the E/W phone."""
    with shooter.app.app_context():
        table = turn_tables(2)[2]
        free = [seat.name for seat in db.session.get(Match, table.match_id).seats if not seat.phone]
        number, ew_name = table.number, next(name for name in players(table, 1) if name in free)
    ew = seated(shooter, card_links[number - 1], ew_name, "phone390")
    with shooter.app.app_context():
        evening = db.session.scalars(db.select(ClubEvening)).one()
        tables = turn_tables(2)
        play(tables[0])
        club.confirm_as_arbiter(evening, 2, tables[0].number)
        play(tables[1])
        seat = next(s for s in db.session.get(Match, tables[1].match_id).seats if s.name in players(tables[1], 1))
        seat.phone = hash_token("screenshot-phone")
        db.session.commit()
        club_table.dispute(evening, 2, tables[1].number, "screenshot-phone", "hand 3: E/W laid 30 more")
        play(tables[2])
        play(tables[3], 1)
        for table in tables[4:]:
            play(table, 1 + table.number % 3)
        db.session.remove()
    return ew


def finish_the_evening(shooter: Shooter) -> None:
    """Turn 2 settled: its disputed table given its points, its first table's result corrected, a pair marked late,
    the rest closed by the arbiter (average, and one table given TP); turn 3 played to the evening's end."""
    with shooter.app.app_context():
        evening = db.session.scalars(db.select(ClubEvening)).one()
        tables = turn_tables(2)
        club.settle(evening, 2, tables[1].number, [960, 450], "hand 3 recounted with both sides")
        club.settle(evening, 2, tables[0].number, [880, 300], "N/S's second hand was 50 more")
        club.late(evening, 2, tables[3].sides[1], 40, "ten minutes late")
        club.close_turn(evening, 2, {tables[3].number: [12, 8]}, "out of time")
        for table in turn_tables(3):
            play(table)
            club.confirm_as_arbiter(evening, 3, table.number)
        assert evening.status == "over"
        db.session.remove()


def photograph_the_end(shooter: Shooter, address: str, prefix: str = "") -> None:
    """The arbiter's log of the evening over, on both phones; its podium card in each look, as the phone gets it."""
    evening = f"{shooter.base}/evenings/{address}"
    for theme, locale in LOOKS:
        for size in PHONES:
            page = shooter.arbiter(size, theme, locale)
            page.goto(evening)
            log = page.locator(".club-log")
            log.evaluate("details => details.open = true")
            page.evaluate("document.fonts.ready")
            top, height = log.evaluate("log => [log.getBoundingClientRect().top + scrollY, log.offsetHeight]")
            # The log with the page's margin around it, as the phone shows it.
            clip = {"x": 0, "y": top - 12, "width": SIZES[size]["width"], "height": height + 24}
            page.screenshot(path=str(shooter.out / f"{prefix}log-{size}-{theme}-{locale[:2]}.png"), clip=clip,
                            full_page=True)  # fmt: skip
            card = page.request.get(f"{evening}/podium.png?theme={theme}", headers={"Accept-Language": locale})
            assert card.ok, card.status
            (shooter.out / f"{prefix}podium-card-{theme}-{locale[:2]}.png").write_bytes(card.body())
            page.context.close()


def seated(shooter: Shooter, card: str, name: str, size: str) -> Page:
    """A phone that scanned `card` and took `name`'s seat; its seat picker photographed on the way."""
    phone = shooter.phone(size)
    phone.goto(card)
    phone.get_by_label(name, exact=True).check()
    phone.get_by_role("button", name="Take my seat").click()
    expect(phone.locator("#club-table .club-panel")).to_be_visible()
    return phone


def photograph(shooter: Shooter, address: str, card_links: list[str], prefix: str = "") -> None:
    """Every page at every size in the light English look; the phones' and the TV's also dark and Italian."""
    evening = f"{shooter.base}/evenings/{address}"
    for theme, locale in LOOKS:
        plain = (theme, locale) == ("light", "en-GB")
        for size in SIZES:
            if not plain and size not in (*PHONES, "tv", "tablet"):
                continue
            page = shooter.arbiter(size, theme, locale)
            for name, path in (("setup", "/evenings/new"), ("arbiter", evening), ("standings", f"{evening}/standings"),
                               ("cards", "/evenings/cards?tables=8")):  # fmt: skip
                page.goto(shooter.base + path if path.startswith("/") else path)
                if name == "arbiter":
                    page.locator(".club-table").first.wait_for()
                shooter.shot(page, prefix + name, size, theme, locale)
                if name == "setup" and size in PHONES:
                    # The scale, its placeholder warning and the entrants on one screen.
                    page.locator("fieldset:has(.club-placeholder)").evaluate("scale => scale.scrollIntoView()")
                    shooter.shot(page, prefix + "setup-scale", size, theme, locale, full=False)
            if size == "desktop":
                # The cards as the printer gets them (an A4 page's width).
                page.set_viewport_size({"width": 794, "height": 1123})
                page.emulate_media(media="print")
                shooter.shot(page, prefix + "cards-print", size, theme, locale)
                page.emulate_media(media="screen")
            if size in PHONES:
                page.goto(card_links[0])
                page.locator(".club-card-pick input[type=radio]").last.check()
                page.wait_for_timeout(400)  # Pico's colour transition of the radio just checked
                shooter.shot(page, prefix + "card", size, theme, locale)
            page.context.close()


def photograph_panel(shooter: Shooter, phone: Page, name: str, prefix: str = "") -> None:
    """A table's panel on its match page, in every look at both phone sizes (N/S's hand-over opened)."""
    for theme, locale in LOOKS:
        for size in PHONES:
            phone.set_viewport_size(SIZES[size])
            phone.context.add_cookies([{"name": "theme", "value": theme, "url": shooter.base},
                                       {"name": "lang", "value": locale[:2], "url": shooter.base}])  # fmt: skip
            phone.emulate_media(color_scheme=theme)
            phone.reload()
            panel = phone.locator("#club-table .club-panel")
            panel.wait_for()
            if phone.locator(".club-hand-over summary").count():
                phone.locator(".club-hand-over summary").click()
            panel.scroll_into_view_if_needed()
            shooter.shot(phone, prefix + name, size, theme, locale, full=False)
    phone.context.add_cookies([{"name": "lang", "value": "en", "url": shooter.base}])


def evening_shots(out: Path, pairs: list, prefix: str) -> None:
    with tempfile.TemporaryDirectory() as instance, served(instance, pairs) as (app, base, address):
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_executable(), args=["--no-sandbox"])
            shooter = Shooter(app, browser, base, out)
            arbiter = shooter.arbiter("desktop")
            arbiter.goto(f"{base}/evenings/cards?tables=24")
            # The cards name the machine's address on the network; this server listens on loopback alone.
            paths = "links => links.map(a => new URL(a.href).pathname)"
            card_paths = arbiter.locator(".club-card-link a").evaluate_all(paths)
            card_links = [base + path for path in card_paths]
            ns = play_turn_1(shooter, card_links)
            photograph_panel(shooter, ns, "table-ns", prefix)
            hand_over(ns)
            ew = set_the_tables_of_turn_2(shooter, card_links)
            photograph(shooter, address, card_links, prefix)
            photograph_panel(shooter, ew, "table-ew", prefix)
            finish_the_evening(shooter)
            photograph_the_end(shooter, address, prefix)
            browser.close()


def keep(out: Path) -> None:
    """The kept shots into docs/screenshots, their colours reduced so each stays small."""
    docs = ROOT / "docs" / "screenshots"
    for kept, shot in KEPT.items():
        image = Image.open(out / f"{shot}.png").convert("RGB")
        image = image.crop((0, 0, image.width, min(image.height, image.width * 2 if image.width < 500 else 1200)))
        image.quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(docs / kept, optimize=True)


def main() -> None:
    """Serve a scratch app with an evening of 8 pairs, its first turn counted (the last table by a hand-over) and
    the second in every state;
    photograph its pages; then the awkward evening (24 tables, 40-character names) the same way."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "club-screenshots")
    parser.add_argument("--no-awkward", action="store_true", help="skip the 24 tables of 40-character names")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    evening_shots(args.out, PAIRS, "")
    keep(args.out)
    if not args.no_awkward:
        evening_shots(args.out, LONG_PAIRS, "long-")
    print(f"shots in {args.out}; kept: {', '.join(KEPT)}")


if __name__ == "__main__":
    main()
