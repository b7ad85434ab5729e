"""The guards themselves: the layout audit fails on one planted fault of each kind and passes a clean
page; the browser-fault guard records console errors, CSP violations, page errors and 5xx answers."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.audit import NARROW_PHONE, audit_layout, layout_faults
from tests.e2e.helpers import add_to_roster, start_match

pytestmark = pytest.mark.e2e

STYLE = """
<style>
  body { margin: 0; font: 16px/1.4 sans-serif; }
  main { padding: 8px; }
  button { display: block; margin: 8px 0; }
  .sticky { position: sticky; top: 0; background: #fff; }
  .cut { overflow: hidden; white-space: nowrap; text-overflow: ellipsis; width: 120px; }
  .scroll { overflow-x: auto; }
  .scroll table { width: 900px; }
  .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); }
  .chip { position: relative; display: inline-block; padding: 8px; }
  .chip input { position: absolute; inset: 0; opacity: 0; margin: 0; }
</style>
"""

# What the app does that the audit must let pass: a sticky header, a link wrapped over two lines, an
# ellipsis, a table that scrolls in its own box that shows it does, a field for screen readers only, a
# radio laid invisibly over its chip, names whole.
CLEAN = f"""{STYLE}
<header class="sticky"><a href="#top">Home</a></header>
<main>
  <h1>Massimiliano Bartolomeo</h1>
  <p style="width: 220px">Back to the match of <a href="#match">Massimiliano Bartolomeo and Anna</a></p>
  <p class="cut">Alessandra Giovannina Mariangela Ottaviani won the match</p>
  <p data-scroll-hint>More players to the right →</p>
  <div class="scroll">
    <table><tr><td><button>Edit</button> Anna</td><td style="padding-left: 700px">Ringo</td></tr></table>
  </div>
  <label class="sr">Search <input name="q"></label>
  <label class="chip"><input type="radio" name="pick">Anna</label>
  <button>Save round</button>
  <div style="height: 1200px"></div>
  <button>Last button</button>
</main>
"""

PLANTED = {
    "sideways": (
        '<div style="width: 600px">A wide board</div>',
        "page scrolls sideways: 608 px wide in a 360 px viewport",
    ),
    "off-screen": (
        '<button style="position: fixed; left: 300px; top: 60px; width: 120px">Edit</button>',
        'outside the viewport\'s width (0..360): <button> "Edit" at x=300..420',
    ),
    "a box that scrolls with no cue": (
        '<div class="scroll"><table><tr><td>Anna</td><td style="padding-left: 700px">Ringo</td></tr></table></div>',
        'scrolls sideways with no cue that it does: <div.scroll> "Anna Ringo"',
    ),
    "a control reachable only by a sideways scroll": (
        '<p data-scroll-hint>More players →</p>'
        '<div class="scroll"><table><tr><td style="padding-left: 700px"><button>Edit</button></td></tr></table></div>',
        "reachable only by scrolling sideways",
    ),
    "covered": (
        '<button id="under">Save round</button>'
        '<div style="position: fixed; inset: 0 0 auto 0; height: 100vh; background: #eee">Tray</div>',
        'covered: <button#under> "Save round"',
    ),
    "cut": (
        '<p style="width: 120px; overflow: hidden; white-space: nowrap">Alessandra won the match</p>',
        'text cut short without an ellipsis: "Alessandra won the match"',
    ),
    "broken name": (
        '<p style="width: 70px; overflow-wrap: anywhere">Massimiliano</p>',
        'name broken inside the word "Massimiliano"',
    ),
}


def show(page: Page, body: str) -> None:
    """Put a page of this markup on a 360 px phone."""
    page.set_viewport_size(NARROW_PHONE)
    page.set_content(f"<!doctype html><html><body>{body}</body></html>")


def test_a_clean_page_passes_the_audit_at_both_sizes(page: Page):
    show(page, CLEAN)
    wrapped = page.get_by_role("link", name="Massimiliano Bartolomeo and Anna")
    assert wrapped.evaluate("(link) => link.getClientRects().length") == 2
    audit_layout(page, names=["Massimiliano Bartolomeo", "Alessandra", "Anna"])
    assert page.viewport_size == NARROW_PHONE


POPOVER = '<div popover id="calendar" style="inset: 0; width: 100%; height: 100%"><button>Close</button></div>'


def test_with_a_popover_open_only_its_own_controls_are_audited(page: Page):
    show(page, CLEAN + POPOVER)
    page.evaluate("document.getElementById('calendar').showPopover()")
    save = page.get_by_role("button", name="Save round").bounding_box()
    point = [save["x"] + 5, save["y"] + 5]
    covering = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('[popover]')?.id", point)
    assert covering == "calendar"  # the page's controls lie under it, as they should while it is open
    assert layout_faults(page) == []


@pytest.mark.parametrize("kind", PLANTED)
def test_one_planted_fault_of_each_kind_fails_the_audit_naming_it(page: Page, kind: str):
    markup, said = PLANTED[kind]
    show(page, f"{STYLE}<main>{markup}</main>")
    faults = layout_faults(page, names=["Massimiliano", "Alessandra"])
    assert len(faults) == 1 and said in faults[0], faults
    with pytest.raises(AssertionError, match="layout faults on about:blank") as failed:
        audit_layout(page, names=["Massimiliano", "Alessandra"], sizes=[NARROW_PHONE])
    assert said in str(failed.value)


def test_the_guard_records_each_kind_of_browser_fault(page: Page, browser_faults, live_server):
    # One of the app's pages, under its own Content-Security-Policy, with each fault provoked in it.
    page.goto(live_server.url + "/")
    page.route("**/broken", lambda route: route.fulfill(status=500, body="down"))
    page.evaluate("console.error('a console error')")
    with page.expect_event("pageerror"):
        page.evaluate("setTimeout(() => { throw new Error('an uncaught error') })")
    with page.expect_console_message(lambda message: "style-src" in message.text):
        page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">styled</p>')")
    page.evaluate("fetch('/broken').then((answer) => answer.status)")
    # A 4xx the test provokes on purpose is named by its exact text, and then it is no fault.
    browser_faults.expect("Failed to load resource: the server responded with a status of 404 (NOT FOUND)")
    with page.expect_console_message(lambda message: "404" in message.text):
        page.evaluate("fetch('/no-such-page').then((answer) => answer.status)")
    texts = "\n".join(browser_faults.faults)
    assert "a console error" in texts
    assert "uncaught Error: an uncaught error" in texts
    assert "Applying inline style violates" in texts
    assert f"500 answer to GET {live_server.url}/broken" in texts
    # The expected 404 is not among the faults (its exact words: a port number may contain "404").
    assert "status of 404" not in texts and "/no-such-page" not in texts
    assert len(browser_faults.faults) == 5, texts  # the 500 is also a failed resource load in the console
    browser_faults.faults.clear()
    assert browser_faults.report() == ""


def test_an_expected_fault_that_never_comes_fails_the_test(page: Page, browser_faults):
    browser_faults.expect("Failed to load resource: net::ERR_INTERNET_DISCONNECTED")
    assert "never came: Failed to load resource: net::ERR_INTERNET_DISCONNECTED" in browser_faults.report()
    browser_faults.expected.clear()


def test_a_swap_writes_no_style_attribute_whatever_styled_the_page_before(page: Page, live_server, app):
    # Something outside the app (an extension, a reader mode, the audit of an earlier version) sets a
    # style on elements htmx will swap; settling the swap must not write it back as an attribute,
    # which the Content-Security-Policy refuses (and the guard fails the test for).
    add_to_roster(app, "Ann", "Bob")
    start_match(page, live_server.url, "Topic_", ["Ann", "Bob"])
    page.evaluate("document.querySelectorAll('[id]').forEach((element) => { element.style.outlineOffset = '1px'; })")
    page.locator("#entry").get_by_role("button", name=re.compile(r"^Bob \d+ cards?$")).click()
    expect(page.get_by_role("status").filter(has_text="Round 1:")).to_contain_text("Bob +1")
