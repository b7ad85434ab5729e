"""Photograph the hall screen of a 100-table evening (200 pairs, some with 40-character names) at a TV's 1920×1080 and
a laptop's 1280×720, dark and light; keep them in docs/screenshots/."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import create_app  # noqa: E402
from companion.extensions import db  # noqa: E402
from companion.models import Match, utcnow  # noqa: E402
from companion.models.club import ClubEvening, ClubLog, ClubTable  # noqa: E402
from companion.queries.matches import hash_token  # noqa: E402
from companion.services import club, club_table, matches  # noqa: E402
from companion.web.groups import hall_token  # noqa: E402
from tests.helpers import LiveServer, chromium_executable  # noqa: E402

SIZES = {"tv": {"width": 1920, "height": 1080}, "laptop": {"width": 1280, "height": 720}}
ROOMS = ("dark", "light")
TABLES = 100
SURNAMES = ["Rossi", "Bianchi", "Verdi", "Neri", "Gallo", "Conti", "Greco", "Bruno", "Costa", "Fontana", "Moretti",
            "Rizzo", "Marino", "Ferrari", "Romano", "Colombo", "Ricci", "Lombardi", "Esposito", "Barbieri"]  # fmt: skip
PLAN = {"game": "burraco", "pairs": True, "turns": 3, "hands": 3, "first": "mitchell", "then": "mitchell"}


def pairs() -> list:
    """200 pairs; every seventh pair's players have 40-character names (the awkward ones a hall must not cut)."""
    made = []
    for n in range(2 * TABLES):
        if n % 7 == 3:
            players = [
                f"{first} Della Valle Bonaventura Squarcialupi"[:36] + f" {n:03d}"
                for first in ("Gianfranco", "Maddalena")
            ]
        else:
            players = [f"{SURNAMES[n % 20]} {2 * n:03d}", f"{SURNAMES[(n * 7 + 3) % 20]} {2 * n + 1:03d}"]
        made.append((players, "Circolo Lungolago" if n % 5 == 0 else None))
    return made


def hand(ns: int, ew: int) -> dict:
    return {"sides": {"N/S": {"table": ns, "hand": 0}, "E/W": {"table": ew, "hand": 0}}, "closed_by": None}


def play(table: ClubTable, hands: int) -> None:
    match = db.session.get(Match, table.match_id)
    for _ in range(hands - len(match.rounds)):
        matches.save_round(match, hand(100 + 35 * (table.number % 9), 90 + 15 * (table.number % 4)))


def set_up(app) -> str:
    """Turn 1 played and counted at every table (turn 2 drawn by the last), then turn 2's tables in every state; the
    hall link."""
    with app.app_context():
        evening = club.create_evening("Regionale di Arona", PLAN, pairs())
        club.start(evening)
        for table in [t for t in evening.tables if t.turn == 1 and t.number]:
            play(table, 3)
            club.confirm_as_arbiter(evening, 1, table.number)
        tables = [t for t in evening.tables if t.turn == 2 and t.number]
        for table in tables:
            kind = table.number % 10
            play(table, {0: 0, 1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 3, 8: 3, 9: 3}[kind])
            if kind in (5, 6, 7):
                club.confirm_as_arbiter(evening, 2, table.number)
            elif kind == 8 and table.number % 20 == 8:
                seat = next(s for s in db.session.get(Match, table.match_id).seats)
                seat.phone = hash_token(f"shot-{table.number}")
                db.session.commit()
                club_table.dispute(evening, 2, table.number, f"shot-{table.number}", "hand 3: E/W laid 30 more")
        link = f"/evenings/{evening.public_id}/hall?hall_key={hall_token(evening.public_id, evening.hall_link)}"
        db.session.remove()
    return link


def drawn_minutes_ago(app, minutes: int) -> None:
    with app.app_context():
        evening = db.session.scalars(db.select(ClubEvening)).one()
        db.session.execute(db.update(ClubLog).where(ClubLog.evening_id == evening.id, ClubLog.action == "draw")
                           .values(at=utcnow() - timedelta(minutes=minutes)))  # fmt: skip
        db.session.commit()
        db.session.remove()


def shoot(base: str, link: str, out: Path, view: str) -> list[Path]:
    shots = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_executable(), args=["--no-sandbox"])
        for size, viewport in SIZES.items():
            for room in ROOMS:
                page = browser.new_page(viewport=viewport)
                page.goto(f"{base}{link}" + ("&room=light" if room == "light" else ""))
                page.locator("[data-pager-items] > li").first.wait_for()
                page.evaluate("document.fonts.ready")
                page.wait_for_timeout(300)
                shots.append(out / f"hall-{view}-{size}-{room}.png")
                page.screenshot(path=str(shots[-1]))
                page.close()
        browser.close()
    return shots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "hall-screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as instance:
        app = create_app(instance_path=instance)
        started = time.monotonic()
        link = set_up(app)
        print(f"100 tables in every state made in {time.monotonic() - started:.1f} s")
        with LiveServer(app) as server:
            seating = shoot(server.url, link, args.out, "seating")
            drawn_minutes_ago(app, 10)
            grid = shoot(server.url, link, args.out, "tables")
    docs = ROOT / "docs" / "screenshots"
    for shot in [*grid, seating[0]]:
        Image.open(shot).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(
            docs / shot.name, optimize=True
        )
    print(f"shots in {args.out}; kept in docs/screenshots: {', '.join(s.name for s in [*grid, seating[0]])}")


if __name__ == "__main__":
    main()
