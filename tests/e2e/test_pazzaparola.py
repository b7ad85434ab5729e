"""Browser tests of Pazzaparola on a phone: the rulebook's round within the tap budget, a match to a tie for victory."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import (
    LONG_NAMES,
    add_to_roster,
    expect_rounds_as_drawn_whole,
    save_round,
    server_match_with_pencil,
)
from tests.e2e.pazzaparola_helpers import (
    BEATLES,
    PAZZAPAROLA_RULEBOOK_ROUND,
    TapCounter,
    enter_pazzaparola_round,
    pazzaparola_live_score,
    start_pazzaparola,
)
from tests.helpers import ref, start_match

pytestmark = pytest.mark.e2e

TAP_BUDGET = 26


def shown_totals(page: Page) -> dict[str, int]:
    """The victory points in the standings panel, as the page shows them."""
    totals = {}
    for row in page.locator("#standings .pz-standings tbody tr").all():
        name = row.get_by_role("rowheader").inner_text().replace("★", "").strip()
        totals[name] = int(row.locator(".big-num").inner_text())
    return totals


def engine_standings(page: Page, runner, tmp_path) -> dict:
    """`flask score` on the match file the page exports."""
    match_id = page.url.rsplit("/", 1)[1]
    document = page.request.get(page.url.rsplit("/", 2)[0] + f"/matches/{match_id}.json").json()
    path = tmp_path / f"match-{match_id}.json"
    path.write_text(json.dumps(document))
    result = runner.invoke(args=["score", str(path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_rulebook_round_within_the_tap_budget(page: Page, live_server, app, runner, tmp_path):
    add_to_roster(app, *BEATLES)
    start_pazzaparola(page, live_server.url, BEATLES, eldest="Paul")
    expect(page.locator(".pz-next-up")).to_contain_text("Paul announces first — the eldest.")
    expect(page.locator(".pz-tray-head")).to_contain_text("John")

    tap = TapCounter(page)
    enter_pazzaparola_round(page, tap, PAZZAPAROLA_RULEBOOK_ROUND)
    for name, expected in zip(BEATLES, (18, 14, 10, 9), strict=True):
        expect(pazzaparola_live_score(page, name)).to_have_text(str(expected))
    expect(page.locator(".pz-point")).to_have_text("★ John")
    expect(page.get_by_role("group", name="John", exact=True).locator(".pz-unused")).to_have_text("3")
    save_round(page, "Save round 1", "Round 1:", BEATLES, tap=tap)

    print(f"\nPazzaparola: 4 players x 5 cards entered in {tap.count} taps (budget {TAP_BUDGET})")
    assert tap.count == 24  # 20 chips + 3 row switches + Save
    assert tap.count <= TAP_BUDGET
    expect(page.locator(".readback")).to_contain_text("Round 1: John 18 ★, Ringo 14, Paul 10, George 9")
    expect(page.locator(".pz-tray .pz-saved")).to_contain_text("Round 1: John 18 ★, Ringo 14, Paul 10, George 9")
    expect(page.locator(".pz-next-up")).to_contain_text("John announces first — winner of round 1.")
    expect(page.locator(".pz-chip")).to_have_count(0)
    engine = engine_standings(page, runner, tmp_path)
    assert engine["rounds"][0] == {"scores": {"John": 18, "Ringo": 14, "Paul": 10, "George": 9}, "winners": ["John"]}
    assert shown_totals(page) == engine["totals"] == {"John": 1, "Ringo": 0, "Paul": 0, "George": 0}


def test_a_match_to_three_ends_in_a_tie_for_victory(page: Page, live_server, app, runner, tmp_path):
    add_to_roster(app, *BEATLES)
    start_pazzaparola(page, live_server.url, BEATLES)
    expect(page.locator(".pz-next-up")).to_contain_text("Ask the table: the eldest announces first.")
    tap = TapCounter(page)

    # Round 1, the rulebook's; a card typed in by mistake is taken back with a tap on its chip.
    enter_pazzaparola_round(page, tap, PAZZAPAROLA_RULEBOOK_ROUND, theme="Things that make you lose patience")
    page.get_by_label("Word of John").fill("ZANZARA")
    tap(page.get_by_role("button", name="Take back 2 from George").first)
    expect(pazzaparola_live_score(page, "George")).to_have_text("6")
    tap.button("2")
    expect(pazzaparola_live_score(page, "George")).to_have_text("9")
    save_round(page, "Save round 1", "Round 1:", BEATLES, tap=tap)

    # Round 2: John and Ringo tie; the table is asked who announces, as no eldest was named.
    enter_pazzaparola_round(page, tap, {"John": [12, 4], "Ringo": [9, 7], "Paul": [3], "George": [0, 0]})
    expect(page.locator(".pz-point")).to_have_text("★ John, Ringo (tie)")
    save_round(page, "Save round 2", "Round 2:", BEATLES, tap=tap)
    expect(page.locator(".readback")).to_contain_text("Round 2: John 10 ★, Ringo 10 ★, Paul -4, George -6")
    expect(page.locator(".pz-next-up")).to_contain_text("Round 2 was a tie. Ask the table")

    # Round 3: a ninth card on a row of eight is refused next to that row, in view, and
    # nothing typed is lost.
    enter_pazzaparola_round(page, tap, {"John": [1], "Ringo": [5, 5, 5], "Paul": [1] * 8, "George": [2]})
    paul = page.get_by_role("group", name="Paul", exact=True)
    tap(paul.get_by_role("button", name="Paul", exact=True))
    tap.button("1")
    full = paul.get_by_role("alert")
    expect(full).to_have_text("Paul has all 8 cards in the rows: tap a chip to take one back before adding another.")
    expect(full).to_be_in_viewport()
    assert full.bounding_box()["y"] + full.bounding_box()["height"] <= page.locator(".pz-tray").bounding_box()["y"]
    expect(paul.locator(".pz-chip")).to_have_count(8)
    expect(page.locator(".pz-chip")).to_have_count(13)
    expect(pazzaparola_live_score(page, "Paul")).to_have_text("8")
    tap(paul.get_by_role("button", name="Take back 1 from Paul").first)
    expect(paul.get_by_role("alert")).to_have_count(0)
    tap.button("1")
    expect(paul.locator(".pz-chip")).to_have_count(8)
    expect(paul.get_by_role("alert")).to_have_count(0)
    save_round(page, "Save round 3", "Round 3:", BEATLES, tap=tap)
    expect(page.locator(".readback")).to_contain_text("Round 3: John -6, Ringo 10 ★, Paul 8, George -5")
    expect(page.locator(".pz-next-up")).to_contain_text("Ringo announces first — winner of round 3.")

    # Round 4: John and Ringo tie again and both reach 3: a tie for victory.
    enter_pazzaparola_round(page, tap, {"John": [10, 10], "Ringo": [9, 9, 1], "Paul": [4], "George": [5]})
    save_round(page, "Save round 4", "Round 4:", BEATLES, tap=tap)
    expect(page.locator(".result")).to_have_text("Tie for victory: John, Ringo")
    expect(page.locator(".pz-next-up")).to_have_count(0)
    expect(page.locator(".pz-entry")).to_have_count(0)
    expect(page.locator("#rounds tbody")).to_have_count(4)
    expect(page.locator("#rounds")).to_contain_text("ZANZARA")

    engine = engine_standings(page, runner, tmp_path)
    assert engine["over"] is True and engine["winners"] == ["John", "Ringo"]
    assert shown_totals(page) == engine["totals"] == {"John": 3, "Ringo": 3, "Paul": 0, "George": 0}
    for name in engine["winners"]:
        expect(page.locator("#standings .pz-standings").get_by_role("row", name=re.compile(name))).to_contain_text(
            "won"
        )


def test_the_rounds_table_grows_a_group_per_round_as_a_reload_draws_it(page: Page, live_server, app):
    add_to_roster(app, *BEATLES)
    start_pazzaparola(page, live_server.url, BEATLES)
    tap = TapCounter(page)
    enter_pazzaparola_round(page, tap, PAZZAPAROLA_RULEBOOK_ROUND, theme="Animals")
    save_round(page, "Save round 1", "Round 1:", BEATLES, tap=tap)
    enter_pazzaparola_round(page, tap, {"John": [2], "Paul": [9, 9], "George": [1], "Ringo": [3]})
    save_round(page, "Save round 2", "Round 2:", BEATLES, tap=tap)
    enter_pazzaparola_round(page, tap, {"John": [5, 5], "Paul": [1], "George": [4], "Ringo": [2]})
    save_round(page, "Save round 3", "Round 3:", BEATLES, tap=tap)
    expect(page.locator("#rounds tbody")).to_have_count(3)
    rows = expect_rounds_as_drawn_whole(page)
    heads = [row for row in rows if row.startswith("Round")]
    assert [head.split()[:2] for head in heads] == [["Round", "1"], ["Round", "2"], ["Round", "3"]]
    assert "Animals" in heads[0]


@pytest.mark.parametrize("width", [360, 390])
def test_the_tray_names_the_active_player_whole_beside_a_long_named_leader(page: Page, live_server, app, width):
    """27.11: the leader's long name gives way in the keypad's header, not the player being entered."""
    names = ["Tommaso", LONG_NAMES[0], "Benedetta"]
    match_id = server_match_with_pencil(page, app, live_server.url, "pazzaparola", names)
    page.set_viewport_size({"width": width, "height": 740})
    page.goto(f"{live_server.url}/matches/{ref(match_id)}")
    entry = page.locator("#entry")
    entry.get_by_role("group", name=names[1], exact=True).get_by_role("button", name=names[1]).click()
    page.get_by_role("group", name="Card points").get_by_role("button", name="10", exact=True).click()
    entry.get_by_role("group", name=names[0], exact=True).get_by_role("button", name=names[0]).click()
    head = page.locator(".pz-tray-head")
    expect(head.locator(".pz-point")).to_contain_text(LONG_NAMES[0][:4])
    expect(head.locator(".pz-active-name")).to_have_text("Tommaso")
    whole = head.locator(".pz-active-name").evaluate("e => e.parentElement.scrollWidth <= e.parentElement.clientWidth")
    assert whole, "the active player's name is cut"


def test_the_standings_headers_wrap_between_words_on_a_360_px_phone_in_italian(browser: Browser, live_server, app):
    names = ["Bartolomeo-Massimiliano-Giovanbattista-X", "Ann", "Bob", "Cy"]
    match_id = start_match(app.test_client(), "pazzaparola", names)
    phone = browser.new_context(viewport={"width": 360, "height": 740}, locale="it-IT", has_touch=True).new_page()
    phone.goto(f"{live_server.url}/matches/{ref(match_id)}")
    expect(phone.locator(".pz-standings thead")).to_contain_text("Mancano")
    # The audit holds these words to what it holds the names to: never broken inside, nothing off the screen.
    audit_layout(phone, [*names, "Mancano", "vittoria"])
