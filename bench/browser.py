"""First load on a phone: real Chromium, cold cache, slow 3G and a CPU slowed 4× (DevTools Protocol)."""

from __future__ import annotations

import os
import shutil
import statistics
from typing import Any

PHONE = {"width": 390, "height": 844}
SLOW_3G = {
    "offline": False,
    "latency": 400,  # ms added to every request
    "downloadThroughput": 400 * 1000 / 8,  # bytes/s
    "uploadThroughput": 400 * 1000 / 8,
}
CPU_SLOWDOWN = 4
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-quic", "--no-first-run"]  # fmt: skip


def chromium() -> str | None:
    """$CHROMIUM, Debian's /usr/bin/chromium, or None for Playwright's own."""
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


# Usable: the page styled and its first tap answered, which takes every stylesheet and script it
# fetches. DOMContentLoaded covers those of its head (deferred scripts run after the stylesheets
# they wait for); a stylesheet or script fetched later (after the load event, a module a page
# names, a bundle app.js adds) counts until it has arrived. `since` is when the navigation began.
# What the page fetched ahead for the pages it links to (link rel=prefetch) is not the page's own
# until it uses it: the page is usable without it.
USABLE = """(since) => {
  const ahead = new Set([...document.querySelectorAll('link[rel=prefetch]')].map(tag => tag.href));
  const used = new Set([...document.querySelectorAll('link[rel=stylesheet], script[src]')]
    .map(tag => tag.href || tag.src));
  const late = performance.getEntriesByType('resource')
    .filter(r => r.startTime >= since && /\\.(css|m?js)$/.test(new URL(r.name).pathname))
    .filter(r => !ahead.has(r.name) || used.has(r.name))
    .map(r => r.responseEnd);
  return late.length ? Math.max(...late) : 0;
}"""
# A boosted link tapped on the page shown: timed from the tap until htmx has drawn the new page
# (its settle) and every stylesheet and script fetched since has arrived.
TAP = """(href) => {
  window.__boosted = {};
  document.addEventListener('htmx:afterSettle', (event) => {
    if (event.detail.boosted && !window.__boosted.settled) window.__boosted.settled = performance.now();
  });
  window.__boosted.start = performance.now();
  document.querySelector(`a[href="${href}"]`).click();
}"""


def _context(browser, cookies: list[dict], throttled: bool):
    """A fresh phone (cold cache), slowed down or not: its page and DevTools session."""
    # The service worker is blocked: a phone on the LAN's http:// address is not a secure
    # context and never registers it; on HTTPS it precaches after the load, not before.
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale="en-GB",
                                  service_workers="block")  # fmt: skip
    if cookies:
        context.add_cookies(cookies)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    # A fresh context's cache is empty: its first load is cold. The cache is left on, as a phone's is: a boosted
    # link then finds in it what the page it leaves fetched ahead.
    if throttled:
        cdp.send("Network.emulateNetworkConditions", SLOW_3G)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    return context, page, cdp


class _Wire:
    """The bytes each request took on the wire (headers included), by DevTools' request id, in order."""

    def __init__(self, cdp) -> None:
        self.urls: dict[str, str] = {}
        self.sizes: dict[str, float] = {}
        cdp.on("Network.requestWillBeSent", lambda e: self.urls.setdefault(e["requestId"], e["request"]["url"]))
        cdp.on("Network.loadingFinished", lambda e: self.sizes.__setitem__(e["requestId"], e["encodedDataLength"]))

    def files(self, after: int = 0) -> list[tuple[str, float]]:
        """(URL, bytes) of the requests made after the first `after`, largest first."""
        ids = list(self.urls)[after:]
        return sorted(((self.urls[k], self.sizes[k]) for k in ids if k in self.sizes), key=lambda item: -item[1])


def _load(browser, url: str, cookies: list[dict], throttled: bool, boost: str | None = None) -> dict:
    """Open `url` in a fresh context (cold cache): bytes over the wire and the page's timings.

    `boost`: then tap the boosted link to that address, and time it too.
    """
    context, page, cdp = _context(browser, cookies, throttled)
    wire = _Wire(cdp)
    page.goto(url, wait_until="load", timeout=60_000)
    page.wait_for_load_state("networkidle", timeout=30_000)
    timing = page.evaluate(
        """() => {
          const nav = performance.getEntriesByType('navigation')[0];
          const paint = performance.getEntriesByName('first-contentful-paint')[0];
          const res = performance.getEntriesByType('resource');
          return {
            dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
            fcp: paint ? paint.startTime : null,
            body: nav.encodedBodySize + res.reduce((s, r) => s + r.encodedBodySize, 0),
            decoded: nav.decodedBodySize + res.reduce((s, r) => s + r.decodedBodySize, 0),
            requests: 1 + res.length,
          };
        }"""
    )
    timing["usable"] = max(timing["dcl"], page.evaluate(USABLE, 0))
    files = wire.files()
    out = {**timing, "wire": sum(size for _, size in files), "files": files}
    if boost:
        before = len(wire.urls)
        page.evaluate(TAP, boost)
        page.wait_for_function("() => window.__boosted.settled", timeout=30_000)
        page.wait_for_load_state("networkidle", timeout=30_000)
        start, settled = page.evaluate("() => [window.__boosted.start, window.__boosted.settled]")
        late = page.evaluate(USABLE, start)
        # Only the requests the tap made: the live polls of the page left behind are not the new page's.
        tapped = [(u, size) for u, size in wire.files(before) if not u.split("?")[0].endswith("/live")]
        out["boosted"] = {"usable": max(settled, late) - start, "wire": sum(size for _, size in tapped),
                          "files": tapped}  # fmt: skip
    context.close()
    return out


def first_load(pages: dict[Any, tuple[str, list[dict], str | None]], runs: int = 5) -> dict[Any, dict]:
    """For each page: bytes of a cold load, and the median time until usable on the throttled phone.

    Usable (see USABLE): the page styled and its scripts run, those it fetches after the load event
    included. A page given an address to boost to is then left by that boosted link, timed the same
    way from the tap (the page reached keeps the shared bundles and fetches what it lacks). One
    throttled load varies by some 150 ms from the next on this machine: the median is of `runs`
    loads, taken in turns across the pages so that a slow moment of the machine falls on all of them.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        executable = chromium()
        browser = p.chromium.launch(executable_path=executable, args=ARGS, headless=True)
        fast = {name: _load(browser, url, cookies, False, boost) for name, (url, cookies, boost) in pages.items()}
        slow: dict[str, list[dict]] = {name: [] for name in pages}
        for _ in range(runs):
            for name, (url, cookies, boost) in pages.items():
                slow[name].append(_load(browser, url, cookies, True, boost))
        browser.close()
    results = {}
    for name, (_, _, boost) in pages.items():
        results[name] = {
            "requests": fast[name]["requests"],
            "wire_bytes": fast[name]["wire"],
            "body_bytes": fast[name]["body"],
            "decoded_bytes": fast[name]["decoded"],
            "files": fast[name]["files"],
            "usable_ms": statistics.median(s["usable"] for s in slow[name]),
            "usable_all_ms": [round(s["usable"]) for s in slow[name]],
            "dcl_ms": statistics.median(s["dcl"] for s in slow[name]),
            "load_ms": statistics.median(s["load"] for s in slow[name]),
            "fcp_ms": statistics.median(s["fcp"] or 0 for s in slow[name]),
            "usable_unthrottled_ms": fast[name]["usable"],
        }
        if boost:
            results[name]["boosted"] = {
                "to": boost,
                "wire_bytes": fast[name]["boosted"]["wire"],
                "files": fast[name]["boosted"]["files"],
                "usable_ms": statistics.median(s["boosted"]["usable"] for s in slow[name]),
                "usable_all_ms": [round(s["boosted"]["usable"]) for s in slow[name]],
            }
    return results
