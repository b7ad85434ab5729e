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
from tests.helpers import HTMX, csrf_token, post_new_match, ref, save_round, start_match, stored_match

FOUR = ["Ann", "Bob", "Cy", "Di"]
THREE = ["Ann", "Bob", "Cy"]
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


# --- settings ---------------------------------------------------------------------------


def test_settings_show_on_the_new_match_form(client):
    html = client.get("/matches/new?game=burraco").get_data(as_text=True)
    for name, value in [
        ("burraco_target", "1005"),
        ("burraco_hands", "4"),
        ("burraco_clean", "200"),
        ("burraco_dirty", "100"),
        ("burraco_closing", "100"),
    ]:
        assert re.search(rf'name="{name}" value="{value}"\s+inputmode="none"', html), name
    assert "Clean burraco (pulito)" in html and "Dirty burraco (sporco)" in html and "Closing (chiusura)" in html


def test_pairs_are_offered_only_with_four_seated(client):
    three = setup(client, THREE, action="noop").get_data(as_text=True)
    assert re.search(r'value="pairs"\s+disabled', three)
    assert "Pairs need exactly 4 players (3 seated)." in three
    four = setup(client, FOUR, action="noop", burraco_mode="pairs").get_data(as_text=True)
    assert re.search(r'value="pairs" checked', four)
    # The pairs follow the seats as they are reordered: seats 1 & 3 against 2 & 4.
    assert "Team of Ann &amp; Cy" in four and "Team of Bob &amp; Di" in four
    moved = setup(client, FOUR, action="up:1", burraco_mode="pairs").get_data(as_text=True)
    assert "Team of Bob &amp; Cy" in moved and "Team of Ann &amp; Di" in moved


@pytest.mark.parametrize(
    ("language", "proposed"), [("en-GB,en;q=0.9", ("Us", "Them")), ("it-IT,it;q=0.9", ("Noi", "Voi"))]
)
def test_pair_names_proposed_in_the_pages_language(client, language, proposed):
    data = {"csrf_token": csrf_token(client, "/matches/new"), "game": "burraco", "seat": FOUR, "action": "noop",
            "burraco_mode": "pairs"}  # fmt: skip
    html = client.post("/matches/new", data=data, headers={**HTMX, "Accept-Language": language}).get_data(as_text=True)
    assert re.search(rf'name="burraco_team1"[^>]*value="{proposed[0]}"', html)
    assert re.search(rf'name="burraco_team2"[^>]*value="{proposed[1]}"', html)


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
    for field in ("table_1", "hand_1", "clean_1", "dirty_1", "table_2", "hand_2", "clean_2", "dirty_2"):
        assert f'name="{field}"' in html
    assert 'inputmode="none"' in html and 'type="number"' not in html
    assert 'name="closed_by" value="Noi"' in html and 'name="closed_by" value=""' in html
    assert "Clean (pulito)" in html and "Dirty (sporco)" in html and "Who closed? (chiusura)" in html
    assert 'class="save big"' in html and "Save hand 1" in html


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
    assert 'id="standings" class="standings" hx-swap-oob="true"' in html
    assert "Hand 2 of 4 · Bob deals (Voi)" in text
    assert "Noi Ann & Cy 565 440" in text
    # The hand-by-hand table tells clean from dirty burraco and marks the closing.
    assert "565 1 clean 1 dirty closed" in text and "120 1 dirty" in text
    # A fresh entry: nothing left over from the saved hand.
    assert 'value="120+35+10"' not in html and "Save hand 2" in html


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
    if where in THREE:
        # Inside that player's card, after its name and before the next card.
        card = html[html.index(f'<span class="burraco-side-name" title="{where}">') :]
        card = card[: card.index("</fieldset>")]
        assert message in cell_text(card) and "burraco-invalid" in html
    elif where == "closed_by":
        closing = html[html.index("Who closed? (chiusura)") :]
        assert message in cell_text(closing[: closing.index("</fieldset>")])
    else:
        assert f'id="bu-{where}-error"' in html and f'aria-describedby="bu-{where}-error"' in html
    # Everything typed is drawn again.
    for name, value in fields.items():
        if name.startswith(("table_", "hand_")):
            assert f'name="{name}" value="{value}"' in html
        elif name == "closed_by" and value:
            assert f'name="closed_by" value="{value}" checked' in html


def test_a_refused_hand_keeps_the_burraco_counts_and_nobody(client):
    match_id = start_match(client, "burraco", THREE)
    html = save_round(client, match_id, hand("", table_1="x", clean_2="2", dirty_3="1"), 1).get_data(as_text=True)
    assert 'name="clean_2" value="2"' in html and 'name="dirty_3" value="1"' in html
    assert 'name="closed_by" value="" checked' in html


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
    assert 'name="table_1" value="100"' in page and 'name="hand_2" value="30"' in page
    assert 'name="clean_1" value="1"' in page and 'name="closed_by" value="Noi" checked' in page
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
