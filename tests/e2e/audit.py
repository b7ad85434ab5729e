"""The layout audit browser tests call at every state they reach: at 360 px and on a tablet, nothing
scrolls sideways, every control is on screen and uncovered, no text is cut without an ellipsis and
no name breaks inside a word (the rules are written at the top of layout_audit.js)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from playwright.sync_api import Page

AUDIT_SCRIPT = (Path(__file__).with_name("layout_audit.js")).read_text(encoding="utf-8")
NARROW_PHONE = {"width": 360, "height": 740}
TABLET = {"width": 1024, "height": 768}
AUDITED_SIZES = (NARROW_PHONE, TABLET)


def layout_faults(page: Page, names: Iterable[str] = ()) -> list[str]:
    """The layout faults of the page as it is now, at the viewport it has now."""
    return page.evaluate(AUDIT_SCRIPT, list(names))


def audit_layout(page: Page, names: Iterable[str] = (), sizes: Iterable[dict] = AUDITED_SIZES) -> None:
    """Fail, listing each fault and its element, unless the page's present state is well laid out
    at each size; `names` are the player names the page shows. The page's own viewport is put back."""
    names = list(names)
    own = page.viewport_size
    found = []
    try:
        for size in sizes:
            page.set_viewport_size(size)
            found += [f"at {size['width']}×{size['height']}: {fault}" for fault in layout_faults(page, names)]
    finally:
        if own:
            page.set_viewport_size(own)
    assert not found, f"layout faults on {page.url}:\n" + "\n".join(f"  - {fault}" for fault in found)
