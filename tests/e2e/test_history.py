"""Browser test of the history: a finished match found by its player, opened, its chart seen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from companion.extensions import db
from companion.services import imports
from companion.services import matches as service
from companion.services.seed import seed
from tests.e2e.audit import audit_layout
from tests.helpers import ref

pytestmark = pytest.mark.e2e


def test_find_a_finished_match_by_player_and_see_its_chart(page: Page, live_server, app):
    with app.app_context():
        seed(30, 4)  # other matches around it, none with Quincy
        match, _ = service.create_match("pazaak", ["Quincy", "Rosa"], {"sets": 2})
        service.save_round(match, {"winner": "Quincy"})
        service.save_round(match, {"totals": {"Quincy": 18, "Rosa": 20}, "filled": [], "tiebreaker": None})
        service.save_round(match, {"winner": "Quincy"})
        assert match.is_over
        match_id = match.id
        db.session.remove()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)

    page.goto(live_server.url + "/")
    page.get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    expect(page.locator(".history-count")).to_contain_text("31 matches")
    audit_layout(page, ["Quincy", "Rosa"])

    page.get_by_label("Player", exact=True).select_option(label="Quincy")
    expect(page.locator(".history-count")).to_have_text("1 match")
    expect(page).to_have_url(re.compile(r"/history\?.*player=[0-9A-Za-z]{11}"))
    row = page.locator(".history-item")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Quincy, Rosa")
    expect(row).to_contain_text("Finished")
    audit_layout(page, ["Quincy", "Rosa"])

    row.click()
    expect(page).to_have_url(re.compile(rf"/matches/{ref(match_id)}$"))
    chart = page.get_by_role("img", name=re.compile("Totals after each of 3 sets: Quincy 2, Rosa 1"))
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    assert box and box["width"] > 300 and box["height"] > 150
    # The chart's lines carry their colours as attributes, which the CSP lets through.
    stroke = page.locator(".totals-chart .series path.line").first.evaluate("e => getComputedStyle(e).stroke")
    assert stroke not in ("none", "")
    assert not [e for e in errors if "Content Security Policy" in e]
    audit_layout(page, ["Quincy", "Rosa"])

    page.go_back()
    # Back on the history, still filtered by Quincy (the option's value is the player's address).
    picker = page.get_by_label("Player", exact=True)
    expect(picker).to_have_value(picker.locator("option", has_text="Quincy").get_attribute("value"))
    expect(page.locator(".history-item")).to_have_count(1)
    audit_layout(page, ["Quincy", "Rosa"])


def _one_history_page(page: Page) -> None:
    """The page holds one header, one heading, one filter form and one results block: none drawn inside another."""
    expect(page.get_by_role("heading", name="History", exact=True)).to_have_count(1)
    expect(page.locator("header.topbar")).to_have_count(1)
    expect(page.locator("form.history-filters")).to_have_count(1)
    expect(page.locator("#history-results")).to_have_count(1)
    expect(page.get_by_role("heading", name="Export", exact=True)).to_have_count(1)
    audit_layout(page)


def test_every_history_control_draws_one_page(page: Page, live_server, app):
    with app.app_context():
        seed(45, 7)
        db.session.remove()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/history")
    expect(page.locator(".history-count")).to_have_text("45 matches · page 1 of 3")
    audit_layout(page)
    # Back from a match tapped far down the list opens the list where it was left, at that match.
    tapped = page.locator(".history-item").nth(12)
    tapped.scroll_into_view_if_needed()
    address = tapped.get_attribute("href")
    tapped.click()
    expect(page).to_have_url(re.compile(r"/matches/"))
    page.go_back()
    expect(page.locator(f'.history-item[href="{address}"]')).to_be_in_viewport()

    page.get_by_label("Game").select_option(label="Topic_")
    expect(page).to_have_url(re.compile(r"game=topic"))
    expect(page.locator(".history-item .game-tag").first).to_have_text("Topic_")
    _one_history_page(page)

    page.get_by_role("button", name="Clear").click()
    expect(page).to_have_url(re.compile(r"/history$"))
    expect(page.locator(".history-count")).to_have_text("45 matches · page 1 of 3")
    expect(page.get_by_label("Game")).to_have_value("")
    _one_history_page(page)

    page.get_by_role("button", name="Older →").click()
    expect(page.locator(".history-count")).to_have_text("45 matches · page 2 of 3")
    _one_history_page(page)

    page.get_by_label("Search by player name").fill("zzz-nobody")
    expect(page.locator(".history-count")).to_contain_text("No match found.")
    _one_history_page(page)
    page.get_by_role("link", name="Show every match").click()
    expect(page.locator(".history-count")).to_have_text("45 matches · page 1 of 3")
    _one_history_page(page)

    page.go_back()
    expect(page.get_by_label("Search by player name")).to_have_value("zzz-nobody")
    _one_history_page(page)
    page.go_back()
    expect(page.locator(".history-count")).to_have_text("45 matches · page 2 of 3")
    _one_history_page(page)


def test_dates_are_typed_and_picked_as_the_pages_language_writes_them(browser, live_server, app, browser_faults):
    # A day before the first, and a date that is no day, are answered 400 (which the browser logs).
    browser_faults.expect("Failed to load resource: the server responded with a status of 400 (BAD REQUEST)")
    started = {"early": "2026-11-02T20:00:00Z", "middle": "2026-11-12T20:00:00Z", "late": "2026-11-25T20:00:00Z"}
    with app.app_context():
        imports.import_matches([
            {"format": "companion-match/1", "id": uid, "game": "topic", "players": ["Ann", "Bob"],
             "settings": {"deck": 2}, "rounds": [], "started": moment} for uid, moment in started.items()
        ])  # fmt: skip
        db.session.remove()
    page = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, locale="it-IT").new_page()
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if "/history?" in request.url else None)
    # The history's own scripts come with a boosted link from another page too.
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Storico").click()
    count = page.locator(".history-count")
    expect(count).to_have_text("3 partite")
    audit_layout(page, ["Ann", "Bob"])
    start, end = page.get_by_role("textbox", name="Dal", exact=True), page.get_by_role("textbox", name="Al", exact=True)
    expect(start).to_have_attribute("placeholder", "gg/mm/aaaa")

    # Half a date is not sent; the whole day, written the Italian way, filters at once.
    start.fill("5/11")
    page.wait_for_timeout(600)
    assert sent == [] and page.locator("#history-from-error").text_content() == ""
    start.fill("5/11/2026")
    expect(count).to_have_text("2 partite")
    expect(page).to_have_url(re.compile(r"/history\?from=2026-11-05$"))
    assert len(sent) == 1 and "from=5%2F11%2F2026" in sent[0], sent
    audit_layout(page, ["Ann", "Bob"])

    # A day before the first is named beside its field, in view, in Italian.
    end.fill("01/11/2026")
    message = page.locator("#history-to-error")
    expect(message).to_have_text("Questo giorno viene prima di quello in “Dal”.")
    expect(message).to_be_in_viewport()
    expect(end).to_have_attribute("aria-invalid", "true")
    audit_layout(page, ["Ann", "Bob"])

    # The calendar speaks Italian, starts the week on Monday and opens on the day the field holds.
    # Each calendar's button says which field it fills (both read "the day" alike).
    page.get_by_role("button", name="Scegli sul calendario il giorno di “Al”").click()
    calendar = page.locator("#history-to-calendar")
    expect(calendar).to_be_visible()
    expect(calendar.locator("calendar-month")).to_contain_text("novembre")
    expect(calendar.get_by_role("columnheader").first).to_have_accessible_name("lunedì")
    audit_layout(page, ["Ann", "Bob"])
    calendar.locator("calendar-month").get_by_role("button", name=re.compile(r"^20 novembre")).click()
    expect(calendar).to_be_hidden()
    expect(end).to_have_value("20/11/2026")
    expect(message).to_have_text("")
    expect(end).not_to_have_attribute("aria-invalid", "true")
    expect(count).to_have_text("1 partita")
    # A screen reader hears the count in the status line, not the whole list again (the results are no live region).
    expect(page.get_by_role("status").filter(has_text="1 partita")).to_have_count(1)
    expect(page.locator("#history-results")).not_to_have_attribute("aria-live", "polite")
    expect(page).to_have_url(re.compile(r"/history\?from=2026-11-05&to=2026-11-20$"))
    audit_layout(page, ["Ann", "Bob"])

    # The address reads back in the page's language; "Qualsiasi giorno" lifts a date.
    page.reload()
    expect(start).to_have_value("05/11/2026")
    expect(end).to_have_value("20/11/2026")
    page.get_by_role("button", name="Scegli sul calendario il giorno di “Dal”").click()
    page.get_by_role("button", name="Qualsiasi giorno").first.click()
    expect(start).to_have_value("")
    expect(count).to_have_text("2 partite")
    expect(page).to_have_url(re.compile(r"/history\?to=2026-11-20$"))
    audit_layout(page, ["Ann", "Bob"])

    # A date that is no day, sent with Enter, is named beside its field.
    start.fill("31/02/2026")
    start.press("Enter")
    expect(page.locator("#history-from-error")).to_have_text("Non è una data: scrivila come gg/mm/aaaa.")
    audit_layout(page, ["Ann", "Bob"])
    expect(page).to_have_url(re.compile(r"/history\?to=2026-11-20$"))
    page.context.close()
