"""Browser test of Pazaak on a phone: a match to three set wins played by taps on the set calculator."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.audit import audit_layout
from tests.e2e.helpers import add_to_roster, expect_rounds_as_drawn_whole, press_start, save_round, seat_players
from tests.helpers import PHONE

pytestmark = pytest.mark.e2e

# The palette spells out the two cards whose printed label is a letter.
PALETTE_NAMES = {"D": "Double", "T±1": "Tiebreaker ±1"}
# Every name a match page of these tests shows.
PLAYERS = ["Ann", "Bob"]


def start_pazaak(page: Page, base: str, hands: dict[str, list[str]]) -> None:
    """Seat Ann and Bob, note their hand cards from the palette, and start; all by taps."""
    seat_players(page, base, "Pazaak", list(hands))
    expect(page.get_by_label("Sets to win")).to_have_text("3")
    page.get_by_text("Hand cards (optional)").click()
    for name, cards in hands.items():
        owner = page.get_by_role("button", name=name, exact=True)
        if owner.get_attribute("aria-pressed") != "true":  # the palette starts on the first seat
            owner.click()
            expect(owner).to_have_attribute("aria-pressed", "true")
        for label in cards:
            page.get_by_role("button", name=PALETTE_NAMES.get(label, label), exact=True).click()
            expect(page.get_by_role("button", name=f"Remove {label} from {name}’s hand")).to_be_visible()
    audit_layout(page, hands)
    press_start(page, "Pazaak", list(hands))


def tap(page: Page, *names: str) -> None:
    """Tap calculator buttons one after another, each time waiting for the table to change."""
    moves = page.locator('input[name="moves"]')
    for name in names:
        before = moves.input_value()
        page.get_by_role("button", name=name, exact=True).click()
        expect(moves).not_to_have_value(before)
        audit_layout(page, PLAYERS)


def refused(page: Page, name: str, reason: str) -> None:
    """Tap a button the rules forbid: the reason shows and the table stays as it was."""
    table = page.locator('input[name="table"]').input_value()
    page.get_by_role("button", name=name, exact=True).click()
    expect(page.get_by_role("alert")).to_have_text(f"Refused: {reason}")
    expect(page.locator('input[name="table"]')).to_have_value(table)
    audit_layout(page, PLAYERS)


def total(page: Page, name: str):
    return page.get_by_label(f"{name}’s total")


def save_set(page: Page, number: int, readback: str) -> None:
    """Save the set played, then the read-back line and the next set's calculator."""
    save_round(page, f"Save set {number}", readback, PLAYERS)
    expect(page.get_by_role("heading", name=f"Set {number + 1} · calculator")).to_be_visible()


def expect_standings_as_flask_scores(page: Page, base: str, runner, tmp_path) -> tuple[dict, dict]:
    """The page's standings are what `flask score` computes for the exported match.

    Returns the exported match file and what `flask score` printed for it.
    """
    match_id = re.search(r"/matches/([0-9A-Za-z]{11})$", page.url).group(1)
    document = page.request.get(f"{base}/matches/{match_id}.json").json()
    path = tmp_path / "match.json"
    path.write_text(json.dumps(document))
    result = runner.invoke(args=["score", str(path)])
    assert result.exit_code == 0, result.output
    scored = json.loads(result.output)
    standings = page.locator("#standings .pazaak-standings tbody tr")
    for row, (name, sets) in zip(standings.all(), scored["totals"].items(), strict=True):
        expect(row.get_by_role("rowheader")).to_contain_text(name)
        expect(row.get_by_role("cell")).to_have_text(f"{sets}/3")
    return document, scored


def test_match_to_three_set_wins_by_taps_equals_flask_score(page: Page, live_server, app, runner, tmp_path):
    add_to_roster(app, "Ann", "Bob")
    start_pazaak(page, live_server.url, {"Ann": ["+3", "D"], "Bob": ["T±1", "+6"]})
    expect(page.get_by_text("Set 1: Ann starts.")).to_be_visible()

    # Set 1: Ann stands automatically at 20; Bob plays on alone and busts.
    tap(page, "Draw 10", "End turn", "Draw 9", "End turn", "Draw 10")
    expect(total(page, "Ann")).to_have_text("20")
    expect(page.get_by_role("region", name="Ann’s table")).to_contain_text("stood")
    refused(page, "Ann: +3", "Ann has stood")
    tap(page, "Draw 10", "End turn", "Draw 5")
    expect(total(page, "Bob")).to_have_text("24")
    tap(page, "End turn")
    expect(page.get_by_role("status").filter(has_text="wins the set")).to_have_text("Ann wins the set: Bob bust at 24.")
    save_set(page, 1, "Set 1: Ann wins (Ann 20, Bob 24)")

    # Set 2, Bob starts: both stand on 9, a tied set.
    expect(page.get_by_role("status").filter(has_text="to play")).to_have_text("Bob to play")
    tap(page, "Draw 9", "Stand", "Draw 9", "Stand")
    expect(page.get_by_text("Tied set at 9: it counts for no one.")).to_be_visible()
    save_set(page, 2, "Set 2: tied")

    # Set 3, Ann starts: Ann doubles a 5 to stand on 18; Bob ties with his Tiebreaker and wins the tie.
    tap(page, "Draw 8", "End turn", "Draw 10", "End turn", "Draw 5", "Ann: Double")
    expect(total(page, "Ann")).to_have_text("18")
    tap(page, "Stand", "Draw 7", "Bob: Tiebreaker as +1")
    refused(page, "Bob: +6", "Bob: only one side card per turn")
    tap(page, "Stand")
    expect(page.get_by_text("Bob wins the tie at 18 with the Tiebreaker.")).to_be_visible()
    save_set(page, 3, "Set 3: Bob wins (Ann 18, Bob 18 · tiebreaker)")
    # Hand cards played in earlier sets stay greyed out for the rest of the match.
    expect(page.get_by_role("button", name="Ann: Double (played)")).to_be_disabled()
    expect(page.get_by_role("button", name="Bob: Tiebreaker as +1 (played)")).to_be_disabled()
    expect(page.get_by_role("button", name="Ann: +3", exact=True)).to_be_enabled()

    # Set 4, Bob starts: recorded with one tap.
    page.get_by_role("button", name="Ann won", exact=True).click()
    expect(page.locator("#banner")).to_contain_text("Set 4: Ann wins")

    # Set 5, Ann starts: Ann's +3 makes 20, Bob stands on 19.
    tap(page, "Draw 10", "End turn", "Draw 10", "End turn", "Draw 7", "Ann: +3", "Draw 9", "Stand")
    expect(page.get_by_text("Ann wins the set, 20 to 19.")).to_be_visible()
    page.get_by_role("button", name="Save set 5").click()
    expect(page.get_by_text("Ann wins!")).to_be_visible()
    expect(page.get_by_text("The match is over. It is kept in the history.")).to_be_visible()
    audit_layout(page, PLAYERS)

    # The standings on the page are what `flask score` computes for the exported match.
    document, scored = expect_standings_as_flask_scores(page, live_server.url, runner, tmp_path)
    assert scored["over"] and scored["winners"] == ["Ann"]
    assert scored["totals"] == {"Ann": 3, "Bob": 1}
    rows = page.locator("#rounds tbody tr")
    expect(rows).to_have_count(len(scored["rounds"]))
    for row, entry in zip(rows.all(), scored["rounds"], strict=True):
        if entry["winner"] is None:
            expect(row.get_by_role("rowheader")).to_contain_text("tied")
        else:
            expect(row.get_by_label("won the set")).to_have_count(1)
            column = 1 + list(scored["totals"]).index(entry["winner"])
            expect(row.get_by_role("cell").nth(column - 1)).to_contain_text("✓")
    assert [r.get("cards") is not None for r in document["rounds"]] == [True, True, True, False, True]


def test_the_sets_table_grows_a_row_per_set_as_a_reload_draws_it(page: Page, live_server, app):
    add_to_roster(app, "Ann", "Bob")
    start_pazaak(page, live_server.url, {"Ann": [], "Bob": []})
    for number, winner in enumerate(["Ann", "Bob", "Ann"], start=1):
        page.get_by_role("button", name=f"{winner} won", exact=True).click()
        expect(page.locator("#banner")).to_contain_text(f"Set {number}: {winner} wins")
        audit_layout(page, PLAYERS)
    rows = expect_rounds_as_drawn_whole(page)
    assert [row.split()[0] for row in rows[1:]] == ["1", "2", "3"]
    assert [page.locator("#rounds tbody tr").nth(i).get_by_label("won the set").count() for i in range(3)] == [1, 1, 1]


def test_a_set_in_progress_survives_a_reload_and_goes_with_the_pencil(
    page: Page, browser: Browser, live_server, app, runner, tmp_path
):
    add_to_roster(app, "Ann", "Bob")
    start_pazaak(page, live_server.url, {"Ann": ["+3", "D"], "Bob": []})
    match_url = page.url
    expect(page.get_by_text("Ann plays only the hand cards noted for this match, each once.")).to_be_visible()
    expect(page.get_by_text("Side cards", exact=True)).to_have_count(0)

    # Ten taps into set 1, then a reload: the set is back as it was.
    tap(page, "Draw 3", "End turn", "Draw 4", "End turn", "Draw 2", "End turn", "Draw 5", "End turn", "Draw 1")
    tap(page, "Ann: +3")
    expect(total(page, "Ann")).to_have_text("9")
    moves = page.locator('input[name="moves"]').input_value()
    page.reload()
    expect(total(page, "Ann")).to_have_text("9")
    expect(total(page, "Bob")).to_have_text("9")
    expect(page.locator('input[name="moves"]')).to_have_value(moves)
    expect(page.get_by_role("button", name="Ann: +3 (played)")).to_be_disabled()

    # Take back the last tap still works after the reload: the +3 is back in Ann's hand.
    tap(page, "Take back the last tap")
    expect(total(page, "Ann")).to_have_text("6")
    expect(page.get_by_role("button", name="Ann: +3", exact=True)).to_be_enabled()
    tap(page, "End turn")

    # A trip to another page and back, then the pencil goes to another phone, which sees the same set.
    page.get_by_role("link", name="Share · viewer QR").click()
    page.get_by_role("button", name="Show the pencil code").click()
    pencil_link = page.get_by_role("link", name="Pencil link").get_attribute("href")
    page.goto(match_url)
    expect(total(page, "Ann")).to_have_text("6")
    # Read before the handover: once the pencil moves, this phone's entry gives way to "another phone holds it".
    moves = page.locator('input[name="moves"]').input_value()
    other = browser.new_context(viewport=PHONE, has_touch=True, locale="en-GB").new_page()
    other.goto(pencil_link)
    other.get_by_role("button", name="Take the pencil").click()
    expect(other).to_have_url(re.compile(r"/matches/[0-9A-Za-z]{11}$"))
    expect(total(other, "Ann")).to_have_text("6")
    expect(total(other, "Bob")).to_have_text("9")
    expect(other.get_by_role("status").filter(has_text="to play")).to_have_text("Bob to play")
    expect(other.locator('input[name="moves"]')).to_have_value(moves)

    # The new scorekeeper plays the set out and saves it.
    tap(other, "Draw 10", "Stand", "Draw 10", "Ann: +3", "Stand")
    expect(other.get_by_text("Tied set at 19: it counts for no one.")).to_be_visible()
    save_set(other, 1, "Set 1: tied")
    other.reload()
    expect(total(other, "Ann")).to_have_text("0")
    expect(other.get_by_role("button", name="Take back the last tap")).to_have_count(0)
    for number in range(2, 5):
        other.get_by_role("button", name="Bob won", exact=True).click()
        expect(other.locator("#banner")).to_contain_text(f"Set {number}: Bob wins")
    expect(other.get_by_text("Bob wins!")).to_be_visible()
    _, scored = expect_standings_as_flask_scores(other, live_server.url, runner, tmp_path)
    assert scored["over"] and scored["totals"] == {"Ann": 0, "Bob": 3}
    document = other.request.get(other.url + ".json").json()
    assert document["rounds"][0]["cards"] == {"Ann": ["3", "2", "1", "10", "+3"], "Bob": ["4", "5", "10"]}
    other.context.close()
