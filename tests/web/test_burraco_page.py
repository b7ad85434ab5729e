"""Web tests of the Burraco page: settings on the new-match form, hand entry, refusals, standings, corrections."""

from __future__ import annotations

import html as markup
import json
import re

import pytest
from flask.testing import FlaskClient

from companion.extensions import db
from companion.games import score_match
from companion.models import Match
from companion.services import imports
from tests.helpers import HTMX, csrf_token, doc, post_new_match, ref, save_round, start_match, stored_match
from tests.pages import Element, checked, read

SAME_ON_EVERY_DATABASE = "the game's entry and standings through its page: the rules and the markup"

FOUR = ["Ann", "Bob", "Cy", "Di"]
THREE = ["Ann", "Bob", "Cy"]
START = "2026-11-20T20:00:00Z"
PAIRS = {"burraco_mode": "pairs", "burraco_team1": "Noi", "burraco_team2": "Voi"}


def setup(client: FlaskClient, seats: list[str], action: str = "start", **fields):
    """POST the new-match form as the page does, with Burraco's settings fields."""
    return post_new_match(client, "burraco", seats, action, htmx=True, **fields)


def hand(closed_by: str = "", **fields) -> dict:
    """The entry form's fields for one hand (blank fields count as 0)."""
    return {"closed_by": closed_by, **fields}


def cell_text(html: str) -> str:
    """The page's text with tags and runs of spaces removed, for readable assertions (a name's words
    read as the text they are: "(Noi)", not "( Noi )")."""
    html = re.sub(r'<span class="word">([^<]*)</span>', r"\1", html)
    return markup.unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def entry_form(html: str) -> Element:
    """The form the page's Save button (a hand's, or a correction's) sends."""
    return next(button.closest("form") for button in read(html).by_role("button") if button.name().startswith("Save"))


# --- settings ---------------------------------------------------------------------------


def test_settings_show_on_the_new_match_form(client):
    html = client.get("/matches/new?game=burraco").get_data(as_text=True)
    page = read(html)
    for name, value in [
        ("burraco_target", "1005"),
        ("burraco_hands", "4"),
        ("burraco_clean", "200"),
        ("burraco_dirty", "100"),
        ("burraco_closing", "100"),
    ]:
        field = page.one("input", name=name)
        assert (field["value"], field.get("inputmode")) == (value, "none"), name
    assert "Clean burraco (pulito)" in html and "Dirty burraco (sporco)" in html and "Closing (chiusura)" in html


def test_pairs_are_offered_only_with_four_seated(client):
    three = setup(client, THREE, action="noop").get_data(as_text=True)
    assert read(three).one_by_role("radio", "In pairs").has("disabled")
    assert "Pairs need exactly 4 players (3 seated)." in three
    four = read(setup(client, FOUR, action="noop", burraco_mode="pairs").get_data(as_text=True))
    assert four.one_by_role("radio", "In pairs")["value"] == "pairs" and checked(four, "burraco_mode") == ["pairs"]
    # The pairs follow the seats as they are reordered: seats 1 & 3 against 2 & 4.
    assert four.one_by_role("textbox", "Team of Ann & Cy") and four.one_by_role("textbox", "Team of Bob & Di")
    moved = read(setup(client, FOUR, action="up:1", burraco_mode="pairs").get_data(as_text=True))
    assert moved.one_by_role("textbox", "Team of Bob & Cy") and moved.one_by_role("textbox", "Team of Ann & Di")


@pytest.mark.parametrize(
    ("language", "proposed"), [("en-GB,en;q=0.9", ("Us", "Them")), ("it-IT,it;q=0.9", ("Noi", "Voi"))]
)
def test_pair_names_proposed_in_the_pages_language(client, language, proposed):
    data = {"csrf_token": csrf_token(client, "/matches/new"), "game": "burraco", "seat": FOUR, "action": "noop",
            "burraco_mode": "pairs"}  # fmt: skip
    html = client.post("/matches/new", data=data, headers={**HTMX, "Accept-Language": language}).get_data(as_text=True)
    teams = [read(html).one("input", name=f"burraco_team{side}")["value"] for side in (1, 2)]
    assert teams == list(proposed)


def test_a_pairs_match_keeps_its_settings_and_shows_them(client, app):
    settings = {"burraco_target": "1505", "burraco_nolimit": "1", "burraco_clean": "250"}
    match_id = start_match(client, "burraco", FOUR, **PAIRS, **settings)
    match = stored_match(app, match_id)
    assert match.settings == {
        "target": 1505,
        "hands": None,
        "clean": 250,
        "dirty": 100,
        "closing": 100,
        "teams": {"Noi": ["Ann", "Cy"], "Voi": ["Bob", "Di"]},
    }
    page = cell_text(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "To 1505 · no hand limit · clean (pulito) 250 · dirty (sporco) 100 · closing (chiusura) 100" in page
    assert "Hand 1 · Ann deals (Noi)" in page
    assert "Noi Ann & Cy 0 1505" in page


@pytest.mark.parametrize(
    ("seats", "fields", "message"),
    [
        (THREE, {"burraco_mode": "pairs"}, "Pairs need exactly 4 players, 3 are seated"),
        (FOUR, {**PAIRS, "burraco_team2": "noi"}, "The two teams need different names"),
        (FOUR, {**PAIRS, "burraco_team1": "  "}, "Give each team a name"),
        (THREE, {"burraco_target": "mille"}, "The target must be a whole number, got &#34;mille&#34;"),
        (THREE, {"burraco_target": "0"}, "The target must be a whole number of at least 1, got 0"),
        (THREE, {"burraco_hands": "0"}, "The number of hands must be a whole number of at least 1"),
    ],
)
def test_bad_settings_are_refused_next_to_their_field_and_nothing_is_stored(client, app, seats, fields, message):
    response = setup(client, seats, **fields)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert message in html
    # Shown once, inside the Burraco settings, not again in the form's general list.
    assert html.count(message) == 1
    assert html.index(message) > html.index("burraco-settings")
    with app.app_context():
        assert db.session.query(Match).count() == 0


# --- entering a hand --------------------------------------------------------------------


def test_the_entry_form_has_a_card_per_side(client):
    match_id = start_match(client, "burraco", FOUR, **PAIRS)
    html = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    form = entry_form(html)
    sent = [name for name, _ in form.fields()]
    for field in ("table_1", "hand_1", "clean_1", "dirty_1", "table_2", "hand_2", "clean_2", "dirty_2"):
        assert field in sent
    # Points are typed on the page's keypad: no field opens the phone's keyboard or a number spinner.
    assert [element for element in form.iter() if element.get("inputmode") == "none"]
    assert not read(html).find_all("input", type="number")
    closing = form.one_by_role("group", "Who closed? (chiusura)")
    assert {(radio.name(), radio["value"]) for radio in closing.by_role("radio")} >= {("Noi", "Noi"), ("Nobody", "")}
    assert "Clean (pulito)" in html and "Dirty (sporco)" in html
    assert {"save", "big"} <= form.one_by_role("button", "Save hand 1").classes


def test_saving_a_hand_updates_standings_and_reads_it_back(client, app):
    match_id = start_match(client, "burraco", FOUR, **PAIRS)
    response = save_round(
        client,
        match_id,
        hand("Noi", table_1="120+35+10", clean_1="1", dirty_1="1", table_2="60", hand_2="25+15", dirty_2="1"),
        1,
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert stored_match(app, match_id).rounds == [
        {
            "sides": {
                "Noi": {"table": 165, "hand": 0, "clean": 1, "dirty": 1},
                "Voi": {"table": 60, "hand": 40, "clean": 0, "dirty": 1},
            },
            "closed_by": "Noi",
        }
    ]
    text = cell_text(html)
    assert "Hand 1: Noi 565 (closed), Voi 120" in text
    assert read(html).by_id("standings")["hx-swap-oob"] == "true"
    assert "Hand 2 of 4 · Bob deals (Voi)" in text
    assert "Noi Ann & Cy 565 440" in text
    # The hand-by-hand table tells clean from dirty burraco and marks the closing.
    assert "565 1 clean 1 dirty closed" in text and "120 1 dirty" in text
    # A fresh entry: nothing left over from the saved hand.
    assert not [field for field in read(html).iter() if field.get("value") == "120+35+10"]
    assert read(html).one_by_role("button", "Save hand 2")


@pytest.mark.parametrize(
    ("fields", "where", "message"),
    [
        (hand("Ann", table_1="90+5", table_2="40"), "Ann", "closed the hand without having made a burraco"),
        (hand("Bob", table_2="90", hand_2="15", clean_2="1"), "Bob", "closed the hand but holds 15 points in hand"),
        (hand("", table_3="-5"), "table_3", "Points laid on the table: points cannot be negative, got -5"),
        (hand("", hand_1="10+"), "hand_1", "Points left in hand: 10+ ends with +"),
        (hand("", hand_1="2*5"), "hand_1", "only digits and + can be typed, not *"),
        ({"table_1": "50"}, "closed_by", "Tap who closed the hand, or Nobody"),
    ],
)
def test_impossible_hands_are_refused_next_to_the_field_keeping_what_was_typed(client, app, fields, where, message):
    match_id = start_match(client, "burraco", THREE)
    response = save_round(client, match_id, fields, 1)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert message in cell_text(html)
    assert stored_match(app, match_id).rounds == []
    page = read(html)
    if where in THREE:
        # Inside that player's card.
        card = page.one_by_role("group", where)
        assert message in card.text and page.find_all(cls="burraco-invalid")
    elif where == "closed_by":
        assert message in page.one_by_role("group", "Who closed? (chiusura)").text
    else:
        # Beside the field, which names the message as its description.
        field = page.one("input", name=where)
        assert message in page.by_id(field["aria-describedby"]).text
    # Everything typed is drawn again.
    sent = entry_form(html).fields()
    for name, value in fields.items():
        if name.startswith(("table_", "hand_")) or (name == "closed_by" and value):
            assert (name, value) in sent


def test_a_refused_hand_keeps_the_burraco_counts_and_nobody(client):
    match_id = start_match(client, "burraco", THREE)
    html = save_round(client, match_id, hand("", table_1="x", clean_2="2", dirty_3="1"), 1).get_data(as_text=True)
    sent = entry_form(html).fields()
    assert ("clean_2", "2") in sent and ("dirty_3", "1") in sent
    assert checked(read(html), "closed_by") == [""]


# --- the end ----------------------------------------------------------------------------


def page_text(client, match_id):
    """The match page as text."""
    return cell_text(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))


def test_reaching_the_target_ends_the_match_with_the_winner(client, app):
    match_id = start_match(client, "burraco", FOUR, **PAIRS)
    for number in (1, 2):
        assert save_round(client, match_id, hand("Noi", table_1="200", clean_1="1"), number).status_code == 200
    assert "Noi Ann & Cy 1000 5" in page_text(client, match_id)
    save_round(client, match_id, hand("Noi", table_1="5", clean_1="1", table_2="80"), 3)
    text = page_text(client, match_id)
    assert stored_match(app, match_id).is_over
    assert "Noi wins!" in text and "Target 1005 reached in hand 3." in text
    assert "Noi ★ Ann & Cy 1305 ✓" in text
    assert "Save hand" not in text and "The match is over" in text


def test_the_last_hand_ends_the_match_and_a_tie_is_shown(client, app):
    match_id = start_match(client, "burraco", THREE, burraco_hands="2")
    save_round(client, match_id, hand("", table_1="50", table_2="30"), 1)
    assert "Hand 2 of 2 · Bob deals" in page_text(client, match_id)
    save_round(client, match_id, hand("", table_2="20", table_3="10"), 2)
    text = page_text(client, match_id)
    assert "Tie for victory: Ann, Bob" in text
    assert "All 2 hands played; nobody reached 1005." in text
    document = client.get(f"/matches/{ref(match_id)}.json").get_json()
    assert score_match(document).winners == ["Ann", "Bob"]


# --- correcting a hand ------------------------------------------------------------------


def test_a_correction_is_prefilled_and_rescores(client, app):
    match_id = start_match(client, "burraco", FOUR, **PAIRS)
    save_round(client, match_id, hand("Noi", table_1="100", clean_1="1", table_2="40", hand_2="30"), 1)
    page = client.get(f"/matches/{ref(match_id)}/rounds/1").get_data(as_text=True)
    sent = entry_form(page).fields()
    assert ("table_1", "100") in sent and ("hand_2", "30") in sent
    assert ("clean_1", "1") in sent and checked(read(page), "closed_by") == ["Noi"]
    assert "Save correction" in page and "Enter hand" not in page
    token = csrf_token(client, f"/matches/{ref(match_id)}/rounds/1")
    fields = {
        "csrf_token": token,
        "revision": "0",
        "closed_by": "Noi",
        "table_1": "100",
        "clean_1": "2",
        "table_2": "40",
        "hand_2": "30",
    }
    refused = client.post(f"/matches/{ref(match_id)}/rounds/1", data={**fields, "closed_by": "Voi"})
    assert refused.status_code == 422 and "closed the hand without having made a burraco" in refused.get_data(
        as_text=True
    )
    response = client.post(f"/matches/{ref(match_id)}/rounds/1", data=fields, headers=HTMX)
    assert response.status_code == 200
    assert stored_match(app, match_id).rounds[0]["sides"]["Noi"]["clean"] == 2
    text = page_text(client, match_id)
    assert "Noi Ann & Cy 600" in text and "✎ corrected" in text


def test_the_standings_shown_equal_the_engine_on_the_exported_file(client, runner, tmp_path):
    match_id = start_match(client, "burraco", THREE, burraco_nolimit="1")
    for number, fields in enumerate(
        [
            hand("Ann", table_1="200+5", clean_1="1"),
            hand("", table_2="70", hand_3="45"),
            hand("Cy", table_3="30", dirty_3="2", hand_1="15"),
        ],
        start=1,
    ):
        assert save_round(client, match_id, fields, number).status_code == 200
    path = tmp_path / "match.json"
    path.write_text(json.dumps(client.get(f"/matches/{ref(match_id)}.json").get_json()))
    result = runner.invoke(args=["score", str(path)])
    scored = json.loads(result.output)
    text = page_text(client, match_id)
    for side, total in scored["totals"].items():
        assert f"{side} {total} {1005 - total}" in text
    assert "Hand 4 · Ann deals" in text


def test_a_match_without_a_target_shows_its_hands_and_no_distance_to_a_target(client, app):
    # A club evening's turn: three hands, no target (the new-match form always has one; an evening sets none).
    one_hand = {"sides": {"Ann": {"table": 1200, "hand": 0, "clean": 1}, "Bob": {"table": 50, "hand": 0}},
                "closed_by": "Ann"}  # fmt: skip
    settings = {"target": None, "hands": 3}
    with app.app_context():
        imported = imports.import_matches([doc("turn", "burraco", ["Ann", "Bob"], [one_hand] * 2, START, settings),
                                           doc("done", "burraco", ["Ann", "Bob"], [one_hand] * 3, START, settings)])
        playing, done = (found.id for found in imported)
    text = page_text(client, playing)
    assert "Hand 3 of 3" in text and "Ann 3000 Bob 100" in text
    assert "To " not in text and "1005" not in text
    text = page_text(client, done)
    assert "All 3 hands played." in text and "Ann wins!" in text and "1005" not in text
