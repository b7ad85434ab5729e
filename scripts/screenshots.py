"""Take phone and desktop screenshots of the main pages into docs/screenshots/ for review."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import create_app  # noqa: E402
from companion.extensions import db  # noqa: E402
from companion.services.seed import seed  # noqa: E402
from tests.e2e.helpers import start_match  # noqa: E402
from tests.helpers import LiveServer, address_database, chromium_executable  # noqa: E402

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
TABLET = {"width": 1024, "height": 768}


def main() -> None:
    """Serve a scratch app with generated history, start a match by taps, photograph the pages.

    Besides each page on a phone and a desktop: the match on a phone in the dark theme, the
    table view on a tablet lying on its side, and the history's calendar on an Italian phone.
    """
    out = ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as instance:
        app = create_app(instance_path=instance)
        # The taps' helpers read a started match's address back to its id in this app's database.
        address_database(app.config["SQLALCHEMY_DATABASE_URI"])
        with app.app_context():
            seed(40, seed_value=7)
            db.session.remove()
        with LiveServer(app) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_executable(), args=["--no-sandbox"])
            shots = [(size, viewport, "light") for size, viewport in SIZES.items()] + [
                ("phone", SIZES["phone"], "dark")
            ]
            for size, viewport, theme in shots:
                context = browser.new_context(viewport=viewport, has_touch=True, locale="en-GB")
                context.add_cookies([{"name": "theme", "value": theme, "url": server.url}])
                page = context.new_page()
                suffix = f"{size}-dark" if theme == "dark" else size
                start_match(page, server.url, "Topic_", ["Elena", "Bruno", "Carla", "Dario"])
                for loser in ("Bruno 0 cards", "Carla 0 cards", "Bruno 1 card"):
                    page.locator("#entry").get_by_role("button", name=loser).click()
                    page.locator("#banner .readback").wait_for()
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(out / f"match-{suffix}.png"))
                if theme == "light" and size == "phone":
                    table = page.url + "/table"
                    page.set_viewport_size(TABLET)
                    page.goto(table)
                    page.screenshot(path=str(out / "table-tablet.png"))
                    page.set_viewport_size(viewport)
                if theme == "light":
                    for name, path in (("home", "/"), ("history", "/history")):
                        page.goto(server.url + path)
                        page.screenshot(path=str(out / f"{name}-{size}.png"))
                context.close()
            # The history's calendar, in the page's language: Italian on a phone.
            context = browser.new_context(viewport=SIZES["phone"], has_touch=True, locale="it-IT")
            page = context.new_page()
            page.goto(server.url + "/history")
            page.get_by_role("button", name="Scegli il giorno sul calendario").first.click()
            page.locator("#history-from-calendar calendar-month").wait_for()
            page.screenshot(path=str(out / "history-calendar-phone-it.png"))
            context.close()
            browser.close()


if __name__ == "__main__":
    main()
