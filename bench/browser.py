"""First load on a phone: real Chromium, cold cache, slow 3G and a CPU slowed 4× (DevTools Protocol)."""

from __future__ import annotations

import os
import shutil
import statistics

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


def _load(browser, url: str, cookies: list[dict], throttled: bool) -> dict:
    """Open `url` in a fresh context (cold cache); bytes over the wire and the page's timings."""
    # The service worker is blocked: a phone on the LAN's http:// address is not a secure
    # context and never registers it; on HTTPS it precaches after the load, not before.
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale="en-GB",
                                  service_workers="block")  # fmt: skip
    if cookies:
        context.add_cookies(cookies)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    if throttled:
        cdp.send("Network.emulateNetworkConditions", SLOW_3G)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    wire: dict[str, float] = {}
    urls: dict[str, str] = {}
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.loadingFinished", lambda e: wire.__setitem__(e["requestId"], e["encodedDataLength"]))
    page.goto(url, wait_until="load", timeout=60_000)
    page.wait_for_function("() => window.htmx !== undefined", timeout=30_000)
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
    files = sorted(((urls.get(k, "?"), v) for k, v in wire.items()), key=lambda item: -item[1])
    context.close()
    return {**timing, "wire": sum(wire.values()), "files": files}


def first_load(pages: dict[str, tuple[str, list[dict]]], runs: int = 5) -> dict[str, dict]:
    """For each page: bytes of a cold load, and the median time until usable on the throttled phone.

    Usable = DOMContentLoaded: the deferred scripts (htmx, app.js) have run, after the
    stylesheets they wait for, so the page is drawn and its controls answer. One throttled
    load varies by some 150 ms from the next on this machine: the median is of `runs` loads,
    taken in turns across the pages so that a slow moment of the machine falls on all of them.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        executable = chromium()
        browser = p.chromium.launch(executable_path=executable, args=ARGS, headless=True)
        fast = {name: _load(browser, url, cookies, throttled=False) for name, (url, cookies) in pages.items()}
        slow: dict[str, list[dict]] = {name: [] for name in pages}
        for _ in range(runs):
            for name, (url, cookies) in pages.items():
                slow[name].append(_load(browser, url, cookies, throttled=True))
        browser.close()
    return {
        name: {
            "requests": fast[name]["requests"],
            "wire_bytes": fast[name]["wire"],
            "body_bytes": fast[name]["body"],
            "decoded_bytes": fast[name]["decoded"],
            "files": fast[name]["files"],
            "usable_ms": statistics.median(s["dcl"] for s in slow[name]),
            "usable_all_ms": [round(s["dcl"]) for s in slow[name]],
            "load_ms": statistics.median(s["load"] for s in slow[name]),
            "fcp_ms": statistics.median(s["fcp"] or 0 for s in slow[name]),
            "usable_unthrottled_ms": fast[name]["dcl"],
        }
        for name in pages
    }
