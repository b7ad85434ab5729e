"""Browser tests of Burraco PAROLE on a phone: pairs to 1005, four hands alone, a refused closing."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.burraco_helpers import (
    BURRACO_GAME_NAME,
    BURRACO_NAMES,
    enter_burraco_hand,
    side_named,
    start_burraco,
    tap_burraco_keypad,
)
from tests.e2e.helpers import (
    LONG_NAMES,
    add_to_roster,
    new_match_redraw_held,
    save_round,
    seat_players,
    server_match_with_pencil,
)
from tests.helpers import ref

pytestmark = pytest.mark.e2e


def save(page: Page, number: int, readback: str) -> None:
    """One tap on Save, then the read-back line of the hand."""
    save_round(page, f"Save hand {number}", readback, BURRACO_NAMES)


def engine_says(page: Page, base: str, match_id: int, runner, tmp_path) -> dict:
    """What `flask score` computes for the match file the page offers."""
    document = page.request.get(f"{base}/matches/{ref(match_id)}.json").json()
    path = tmp_path / f"match-{match_id}.json"
    path.write_text(json.dumps(document))
    result = runner.invoke(args=["score", str(path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def expect_standings_match_engine(page: Page, scored: dict) -> None:
    """Every total shown equals the engine's, and so do the winners."""
    standings = page.locator("#standings")
    for side, total in scored["totals"].items():
        row = standings.get_by_role("row").filter(has=page.get_by_role("rowheader", name=re.compile(rf"^{side}\b")))
        expect(row.locator("[data-total]")).to_have_text(str(total))
    for side in scored["winners"]:
        expect(standings.get_by_role("row").filter(has_text=side).get_by_label("winner")).to_be_visible()


def test_a_pairs_match_reaches_1005_in_its_third_hand(page: Page, live_server, app, runner, tmp_path):
    add_to_roster(app, "Ann", "Bob", "Cy", "Di")
    match_id = start_burraco(page, live_server.url, ["Ann", "Bob", "Cy", "Di"], pairs=True)
    standings = page.locator("#standings")
    expect(standings).to_contain_text("Hand 1 of 4")
    expect(standings).to_contain_text("Ann deals (Us)")
    expect(standings).to_contain_text("clean (pulito) 200")

    enter_burraco_hand(
        page,
        {"Us": {"table": "120+35+10", "clean": 1, "dirty": 1}, "Them": {"table": "60", "hand": "25+15", "dirty": 1}},
        "Us",
    )
    # The sum shows its total, and each side's hand score is live before saving.
    expect(page.locator("#entry").get_by_role("group", name=side_named("Us"))).to_contain_text("This hand +565")
    expect(page.locator("#entry").get_by_role("group", name=side_named("Them"))).to_contain_text("This hand +120")
    save(page, 1, "Hand 1: Us 565 (closed), Them 120")
    expect(standings).to_contain_text("Hand 2 of 4")
    expect(standings).to_contain_text("Bob deals (Them)")

    enter_burraco_hand(page, {"Us": {"table": "80", "hand": "30"}, "Them": {"table": "90+40", "clean": 1}}, "Them")
    save(page, 2, "Hand 2: Us 50, Them 430 (closed)")
    expect(standings).to_contain_text("Hand 3 of 4")
    expect(standings).to_contain_text("Cy deals (Us)")
    expect(standings.get_by_role("row").filter(has_text="Us").locator("[data-total]")).to_have_text("615")
    expect(standings.get_by_role("row").filter(has_text="Us")).to_contain_text("390")

    enter_burraco_hand(page, {"Us": {"table": "150+45", "clean": 1}, "Them": {"table": "40", "hand": "20"}}, "Us")
    save(page, 3, "Hand 3: Us 495 (closed), Them 20")
    expect(page.get_by_text("Us wins!")).to_be_visible()
    expect(standings).to_contain_text("Target 1005 reached in hand 3.")
    expect(page.get_by_text("The match is over")).to_be_visible()
    # The hand-by-hand table tells clean from dirty burraco.
    first = page.locator("#rounds").get_by_role("row").nth(1)
    expect(first).to_contain_text("1 clean")
    expect(first).to_contain_text("1 dirty")

    scored = engine_says(page, live_server.url, match_id, runner, tmp_path)
    assert scored["over"] and scored["winners"] == ["Us"] and scored["totals"] == {"Us": 1110, "Them": 570}
    expect_standings_match_engine(page, scored)


def test_three_players_end_after_four_hands_without_reaching_the_target(page: Page, live_server, app, runner, tmp_path):
    add_to_roster(app, "Ann", "Bob", "Cy")
    page.goto(live_server.url + "/")
    match_id = start_burraco(page, live_server.url, ["Ann", "Bob", "Cy"])
    standings = page.locator("#standings")
    hands = [
        (
            {
                "Ann": {"table": "100", "clean": 1},
                "Bob": {"table": "50", "hand": "20"},
                "Cy": {"table": "30", "hand": "10"},
            },
            "Ann",
            "Hand 1: Ann 400 (closed), Bob 30, Cy 20",
        ),
        (
            {"Ann": {"hand": "35"}, "Bob": {"table": "80", "dirty": 1}, "Cy": {"table": "60"}},
            "Bob",
            "Hand 2: Ann -35, Bob 280 (closed), Cy 60",
        ),
        (
            {"Ann": {"table": "40"}, "Bob": {"table": "20", "hand": "15"}, "Cy": {"table": "70", "clean": 1}},
            None,
            "Hand 3: Ann 40, Bob 5, Cy 270",
        ),
        (
            {"Ann": {"table": "10"}, "Bob": {"hand": "40"}, "Cy": {"table": "55+20", "dirty": 1}},
            "Cy",
            "Hand 4: Ann 10, Bob -40, Cy 275 (closed)",
        ),
    ]
    dealers = ["Ann", "Bob", "Cy", "Ann"]
    for number, (sides, closer, readback) in enumerate(hands, start=1):
        expect(standings).to_contain_text(f"Hand {number} of 4")
        expect(standings).to_contain_text(f"{dealers[number - 1]} deals")
        enter_burraco_hand(page, sides, closer)
        save(page, number, readback)

    expect(page.get_by_text("Cy wins!")).to_be_visible()
    expect(standings).to_contain_text("All 4 hands played; nobody reached 1005.")
    scored = engine_says(page, live_server.url, match_id, runner, tmp_path)
    assert scored["over"] and scored["winners"] == ["Cy"]
    assert scored["totals"] == {"Ann": 415, "Bob": 275, "Cy": 625}
    assert max(scored["totals"].values()) < 1005
    expect_standings_match_engine(page, scored)


def test_a_closing_without_a_burraco_is_refused_and_nothing_is_stored(
    page: Page, live_server, app, runner, tmp_path, browser_faults
):
    # The refused Save is answered 422, which the browser logs.
    browser_faults.expect("Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)")
    add_to_roster(app, "Ann", "Bob", "Cy")
    match_id = start_burraco(page, live_server.url, ["Ann", "Bob", "Cy"])
    enter_burraco_hand(page, {"Ann": {"table": "90"}, "Bob": {"table": "40", "hand": "5+5"}}, "Ann")
    # The page warns before Save; the server refuses anyway if Save is tapped.
    expect(page.get_by_text("Ann has no burraco yet: closing needs one.")).to_be_visible()
    page.get_by_role("button", name="Save hand 1").click()

    card = page.locator("#entry").get_by_role("group", name="Ann")
    expect(card.get_by_role("alert")).to_have_text("Ann: closed the hand without having made a burraco")
    # What was typed is all still there.
    expect(card.get_by_label("Laid on the table")).to_have_value("90")
    expect(page.locator("#entry").get_by_role("group", name="Bob").get_by_label("Left in hand")).to_have_value("5+5")
    expect(page.locator("#entry").get_by_role("radio", name="Ann", exact=True)).to_be_checked()
    expect(page.locator("#standings")).to_contain_text("Hand 1 of 4")
    scored = engine_says(page, live_server.url, match_id, runner, tmp_path)
    assert scored["rounds"] == [] and scored["totals"] == {"Ann": 0, "Bob": 0, "Cy": 0}

    # Adding the burraco the scorekeeper forgot makes the hand valid.
    card.get_by_role("button", name="One more Clean (pulito) for Ann").click()
    expect(card).to_contain_text("This hand +390")
    expect(page.get_by_text("Ann has no burraco yet: closing needs one.")).to_be_hidden()
    save(page, 1, "Hand 1: Ann 390 (closed), Bob 30, Cy 0")
    expect_standings_match_engine(page, engine_says(page, live_server.url, match_id, runner, tmp_path))


def test_settings_are_set_by_keypad_and_steppers_and_kept_with_the_match(page: Page, live_server, app):
    add_to_roster(app, "Ann", "Bob")
    page.goto(live_server.url + "/matches/new?game=burraco")
    for name in ("Ann", "Bob"):
        page.get_by_role("button", name=f"+ {name}", exact=True).click()
        expect(page.locator(f'input[name="seat"][value="{name}"]')).to_have_count(1)
    target = page.get_by_label("Target", exact=True)
    target.click()
    # The first digit replaces the value shown, as on a calculator.
    tap_burraco_keypad(page, "2005")
    expect(target).to_have_value("2005")
    page.get_by_role("button", name="Raise: Hands").click()
    expect(page.get_by_label("Hands", exact=True)).to_have_value("5")
    page.get_by_role("button", name="Lower: Closing (chiusura)").click()
    expect(page.get_by_label("Closing (chiusura)", exact=True)).to_have_value("50")
    page.get_by_role("button", name=f"Start {BURRACO_GAME_NAME}").click()
    expect(page).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    expect(page.locator("#standings")).to_contain_text("Hand 1 of 5")
    expect(page.locator("#standings")).to_contain_text(
        "To 2005 · 5 hands · clean (pulito) 200 · dirty (sporco) 100 · closing (chiusura) 50"
    )


def test_a_new_match_and_every_hand_open_at_the_first_field(page: Page, live_server, app):
    """27.6: the setup's Start and a hand's Save sit at the foot of long pages; the entry opens at its top."""
    players = [f"{name} Fontanarossa Bellini" for name in ("Ann", "Bob", "Cy", "Di", "Ed")]
    add_to_roster(app, *players)
    page.set_viewport_size({"width": 360, "height": 740})
    start_burraco(page, live_server.url, players)
    first = page.get_by_role("group", name=players[0]).get_by_label("Laid on the table")
    expect(first).to_be_in_viewport(ratio=1)
    expect(page.get_by_role("group", name="Keypad")).to_be_in_viewport()
    for hand in (1, 2):
        page.get_by_role("group", name=players[-1]).get_by_label("Laid on the table").click()
        tap_burraco_keypad(page, "50")
        page.get_by_role("radio", name="Nobody", exact=True).click()
        page.get_by_role("button", name=f"Save hand {hand}").click()
        expect(page.get_by_role("button", name=f"Save hand {hand + 1}")).to_be_attached()
        expect(first).to_be_in_viewport(ratio=1)


def test_a_hands_read_back_leaves_the_next_hand_uncovered(page: Page, live_server, app):
    """The read-back stays at the top of the screen for a few seconds after a save, above wherever the form was
    scrolled: with five 40-character names it is held to a few lines, not a screenful over the next hand."""
    match_id = server_match_with_pencil(page, app, live_server.url, "burraco", LONG_NAMES[:5])
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    page.get_by_role("group", name=LONG_NAMES[4]).get_by_label("Laid on the table").click()
    tap_burraco_keypad(page, "50")
    page.get_by_role("radio", name="Nobody", exact=True).click()
    page.get_by_role("button", name="Save hand 1").click()
    banner = page.locator("#banner .readback")
    expect(banner.get_by_role("button", name="Undo")).to_be_visible()
    box = banner.bounding_box()
    assert box is not None and box["height"] <= 740 * 0.25, box
    first = page.get_by_role("group", name=LONG_NAMES[0]).get_by_label("Laid on the table")
    expect(first).to_be_in_viewport(ratio=1)
    uncovered = """e => { const r = e.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return e === hit || e.contains(hit); }"""
    assert first.evaluate(uncovered)


def test_next_brings_the_next_field_and_its_keypad_into_view(page: Page, live_server, app):
    """27.4: the player being entered is in view, with the keypad under their field."""
    match_id = server_match_with_pencil(page, app, live_server.url, "burraco", LONG_NAMES[:5])
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    # The burraco counts' steppers fit their side's card at 360 px (the Dirty's + ran over its padding to its border).
    past_the_padding = page.evaluate("""() => [...document.querySelectorAll('.burraco-count .stepper')].map(stepper => {
        const card = stepper.closest('.burraco-side'), style = getComputedStyle(card);
        const padding = parseFloat(style.paddingRight) + parseFloat(style.borderRightWidth);
        const inner = card.getBoundingClientRect().right - padding;
        return stepper.getBoundingClientRect().right - inner;
    }).filter(past => past > 0.5)""")
    assert past_the_padding == []
    keypad = page.get_by_role("group", name="Keypad")
    for _ in range(8):
        keypad.get_by_role("button", name="Next ↓").click()
        expect(page.locator(".burraco-active")).to_be_in_viewport(ratio=1)
        expect(keypad.get_by_role("button", name="0", exact=True)).to_be_in_viewport(ratio=1)


def test_a_stepper_tap_while_the_form_is_redrawn_is_not_undone_by_the_redraw(page: Page, live_server, app):
    """Choosing "In pairs" redraws the new-match form from what it sent: a tap on the target's stepper meanwhile
    would be undone by the redrawn form, so the form's buttons rest until it is drawn."""
    add_to_roster(app, "Ann", "Bob", "Cy", "Di")
    seat_players(page, live_server.url, "Burraco PAROLE", ["Ann", "Bob", "Cy", "Di"])
    lower = page.get_by_role("button", name="Lower: Target")
    with new_match_redraw_held(page):
        page.get_by_role("radio", name="In pairs").click()
        expect(lower).to_be_disabled()
        # Every other button rests too: a seat's removal meanwhile would be undone as well.
        expect(page.get_by_role("button", name="Remove Ann")).to_be_disabled()
    expect(page.get_by_label("Team of Ann & Cy")).to_have_value("Us")
    lower.click()
    expect(page.get_by_label("Target", exact=True)).to_have_value("505")
