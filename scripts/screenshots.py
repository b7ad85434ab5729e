"""Take phone and desktop screenshots of the main pages into docs/screenshots/ for review."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion import create_app  # noqa: E402
from tests.conftest import LiveServer, chromium_executable  # noqa: E402

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


def main(paths: list[str]) -> None:
    """Serve a scratch app and photograph each path at both sizes."""
    out = ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as instance:
        app = create_app(instance_path=instance)
        with LiveServer(app) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_executable(), args=["--no-sandbox"])
            for size, viewport in SIZES.items():
                page = browser.new_page(viewport=viewport)
                for path in paths:
                    page.goto(server.url + path)
                    name = path.strip("/").replace("/", "-") or "home"
                    page.screenshot(path=str(out / f"{name}-{size}.png"), full_page=True)
            browser.close()


if __name__ == "__main__":
    main(sys.argv[1:] or ["/", "/matches/new"])
