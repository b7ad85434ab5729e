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
from companion.seed import seed  # noqa: E402
from tests.conftest import LiveServer, chromium_executable  # noqa: E402
from tests.e2e.helpers import start_match  # noqa: E402

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


def main() -> None:
    """Serve a scratch app with generated history, start a match by taps, photograph the pages."""
    out = ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as instance:
        app = create_app(instance_path=instance)
        with app.app_context():
            seed(40, seed_value=7)
            db.session.remove()
        with LiveServer(app) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_executable(), args=["--no-sandbox"])
            for size, viewport in SIZES.items():
                page = browser.new_page(viewport=viewport)
                start_match(page, server.url, "Topic_", ["Elena", "Bruno", "Carla", "Dario"])
                page.locator("#entry").get_by_role("button", name="Bruno 0 cards").click()
                page.get_by_role("status").filter(has_text="Round 1").wait_for()
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(out / f"match-{size}.png"))
                for name, path in (("home", "/"), ("history", "/history")):
                    page.goto(server.url + path)
                    page.screenshot(path=str(out / f"{name}-{size}.png"))
            browser.close()


if __name__ == "__main__":
    main()
