"""Web tests of the Pazzaparola pages: settings, round entry, refusals next to the row, standings, corrections."""

from __future__ import annotations

import re

import pytest

from companion.extensions import db
from companion.models import Match
from tests.helpers import csrf_token, post_new_match, read_words, ref, save_round, start_match, stored_match

BEATLES = ["John", "Ringo", "Paul", "George"]
# The rulebook's round: ZANZARA 18, Ringo 14, Paul 10, George 9 with 8 cards each.
RULEBOOK = {
    "theme": "Things that make you lose patience",
    "word-0": "ZANZARA",
    "used-0": ["7", "2", "7", "2", "3"],
    "used-1": ["5", "3", "3", "3", "3"],
    "used-2": ["3", "3", "3", "2", "2"],
    "used-3": ["3", "3", "2", "2", "2"],
}


def one_chip_round(*points: int) -> dict:
    """A round in which seat i puts one card of `points[i]` in the upper row (score points - 7)."""
    return {f"used-{i}": [str(p)] for i, p in enumerate(points)}


# --- new match ---------------------------------------------------------------------------


def test_new_match_form_has_steppers_and_eldest_chips(client):
    html = client.get("/matches/new?game=pazzaparola&seat=John&seat=Ringo").get_data(as_text=True)
    assert re.search(r'<input type="text" id="pz-cards" name="cards" value="8" readonly inputmode="none"', html)
    assert 'id="pz-target" name="target" value="3"' in html
    assert 'aria-label="More victory points to win"' in html
    assert re.search(r'name="eldest" value="" checked', html)
    assert 'name="eldest" value="Ringo"' in html


def test_settings_from_the_form_are_stored(client, app):
    mid = start_match(client, "pazzaparola", BEATLES, cards="6", target="2", eldest="Ringo")
    settings = stored_match(app, mid).settings
    assert settings == {"cards": 6, "target": 2, "eldest": "Ringo"}


def test_default_settings_when_left_alone(client, app):
    mid = start_match(client, "pazzaparola", BEATLES, cards="8", target="3", eldest="")
    assert stored_match(app, mid).settings == {"cards": 8, "target": 3, "eldest": None}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"cards": "lots"}, "Cards per player must be a whole number"),
        ({"target": "0"}, "Victory points to win must be a whole number from 1 to 20"),
        ({"cards": "21"}, "Cards per player must be a whole number from 1 to 20"),
    ],
)
def test_bad_settings_are_shown_next_to_their_stepper(client, app, fields, message):
    response = post_new_match(client, "pazzaparola", BEATLES, **fields)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    field = next(iter(fields))
    setting = html[html.index(f'id="pz-{field}"') :]
    setting = setting[: setting.index('class="pz-setting"') if 'class="pz-setting"' in setting else 1200]
    assert 'aria-invalid="true"' in setting and message in setting
    assert html.count(message) == 1
    with app.app_context():
        assert db.session.query(Match).count() == 0


# --- entering a round ------------------------------------------------------------------------


def test_match_page_shows_the_entry_and_who_announces(client):
    mid = start_match(client, "pazzaparola", BEATLES, eldest="Paul")
    html = client.get(f"/matches/{ref(mid)}").get_data(as_text=True)
    assert 'class="pz-entry" data-cards="8"' in html
    assert html.count('class="pz-pick"') == 4
    assert 'name="active" value="0"' in html
    assert "Paul announces first — the eldest." in html
    assert re.search(r'<button type="submit" class="save big"[^>]*>Save round 1</button>', html)


def test_without_an_eldest_the_table_is_asked(client):
    mid = start_match(client, "pazzaparola", BEATLES)
    assert "Ask the table: the eldest announces first." in client.get(f"/matches/{ref(mid)}").get_data(as_text=True)


def test_saving_the_rulebook_round_reads_back_and_updates_the_standings(client, app):
    mid = start_match(client, "pazzaparola", BEATLES)
    response = save_round(client, mid, RULEBOOK)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.count("Round 1: John 18 ★, Ringo 14, Paul 10, George 9") == 2  # the banner, and at the thumb
    assert 'id="standings" class="standings" hx-swap-oob="true"' in html
    assert "John announces first — winner of round 1." in html
    assert "ZANZARA" in html and "Things that make you lose patience" in html
    assert 'name="used-0"' not in html  # the entry is fresh again
    rounds = stored_match(app, mid).rounds
    assert rounds[0]["rows"]["John"] == {"word": "ZANZARA", "used": [7, 2, 7, 2, 3], "unused": 3}


def test_a_row_over_the_card_count_is_refused_next_to_it_and_kept(client, app):
    mid = start_match(client, "pazzaparola", BEATLES)
    fields = {**RULEBOOK, "used-1": ["1"] * 9}
    response = save_round(client, mid, fields)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    ringo = html[html.index('aria-label="Ringo"') : html.index('aria-label="Paul"')]
    assert "9 cards in the rows, but each player has 8" in ringo
    assert ringo.count('name="used-1" value="1"') == 9
    assert 'value="ZANZARA"' in html and 'value="Things that make you lose patience"' in html
    assert html.count('name="used-0"') == 5
    assert stored_match(app, mid).rounds == []


def test_a_refused_round_keeps_the_active_row(client):
    mid = start_match(client, "pazzaparola", BEATLES)
    html = save_round(client, mid, {**RULEBOOK, "used-2": ["1"] * 9, "active": "2"}).get_data(as_text=True)
    assert 'name="active" value="2"' in html
    paul = html[html.index('aria-label="Paul"') - 80 :]
    assert paul.startswith('<fieldset class="pz-row pz-active') or "pz-row pz-active" in paul[:200]


def test_an_empty_round_is_refused(client, app):
    mid = start_match(client, "pazzaparola", BEATLES)
    response = save_round(client, mid, {"theme": "Kitchen"})
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Nothing was entered" in html and 'value="Kitchen"' in html
    assert stored_match(app, mid).rounds == []


def test_a_tied_round_without_eldest_asks_the_table(client):
    mid = start_match(client, "pazzaparola", BEATLES)
    html = save_round(client, mid, one_chip_round(9, 9, 3, 2)).get_data(as_text=True)
    assert "Round 1: John 2 ★, Ringo 2 ★, Paul -4, George -5" in html
    assert "Round 1 was a tie. Ask the table: the eldest announces first." in html


def test_a_tied_round_with_an_eldest_names_them(client):
    mid = start_match(client, "pazzaparola", BEATLES, eldest="George")
    html = save_round(client, mid, one_chip_round(9, 9, 3, 2)).get_data(as_text=True)
    assert "George announces first — the eldest, after the tie in round 1." in html


def test_the_match_ends_in_a_tie_for_victory_and_refuses_more_rounds(client, app):
    mid = start_match(client, "pazzaparola", BEATLES, target="2")
    save_round(client, mid, one_chip_round(9, 9, 3, 2))
    html = read_words(save_round(client, mid, one_chip_round(8, 8, 3, 2)).get_data(as_text=True))
    assert "Tie for victory: John, Ringo" in html
    assert html.count('aria-label="winner"') >= 2
    assert "announces first" not in html and "Ask the table" not in html
    assert 'class="pz-entry"' not in html
    response = save_round(client, mid, one_chip_round(5, 4, 3, 2), number=3)
    assert response.status_code == 422
    assert "The match is over" in response.get_data(as_text=True)
    assert len(stored_match(app, mid).rounds) == 2


# --- corrections -----------------------------------------------------------------------------


def test_correction_form_is_prefilled_and_saves_the_change(client, app):
    mid = start_match(client, "pazzaparola", BEATLES)
    save_round(client, mid, RULEBOOK)
    html = client.get(f"/matches/{ref(mid)}/rounds/1").get_data(as_text=True)
    assert html.count('name="used-0"') == 5 and 'value="ZANZARA"' in html
    assert "Save correction" in html and "hx-post" not in html[html.index('class="pz-entry"') :]
    token = csrf_token(client, f"/matches/{ref(mid)}/rounds/1")
    fields = {**RULEBOOK, "used-1": ["10", "10", "3", "3", "3"], "revision": "0", "csrf_token": token}
    response = client.post(f"/matches/{ref(mid)}/rounds/1", data=fields)
    assert response.status_code in (200, 302)
    rounds = stored_match(app, mid).rounds
    assert rounds[0]["rows"]["Ringo"]["used"] == [10, 10, 3, 3, 3]
    page = client.get(f"/matches/{ref(mid)}").get_data(as_text=True)
    assert "Ringo announces first — winner of round 1." in page


def test_a_refused_correction_keeps_the_entry(client):
    mid = start_match(client, "pazzaparola", BEATLES)
    save_round(client, mid, RULEBOOK)
    token = csrf_token(client, f"/matches/{ref(mid)}/rounds/1")
    fields = {**RULEBOOK, "used-3": ["2"] * 10, "revision": "0", "csrf_token": token}
    response = client.post(f"/matches/{ref(mid)}/rounds/1", data=fields)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    george = html[html.index('aria-label="George"') :]
    assert "10 cards in the rows, but each player has 8" in george
    assert george.count('name="used-3" value="2"') == 10


def test_rounds_table_shows_theme_words_stars_and_edit_links(client):
    mid = start_match(client, "pazzaparola", BEATLES)
    save_round(client, mid, RULEBOOK)
    html = client.get(f"/matches/{ref(mid)}").get_data(as_text=True)
    table = html[html.index('class="pz-rounds"') :]
    assert "Things that make you lose patience" in table
    assert re.search(r'18 <span class="winner-mark" aria-label="took the point">★</span>', table)
    assert f'href="/matches/{ref(mid)}/rounds/1"' in table


def test_a_follower_sees_the_standings_and_rounds_but_no_entry(client, app):
    mid = start_match(client, "pazzaparola", BEATLES, eldest="Paul")
    save_round(client, mid, RULEBOOK)
    html = app.test_client().get(f"/matches/{ref(mid)}").get_data(as_text=True)
    assert "John announces first — winner of round 1." in html and "ZANZARA" in html
    assert 'class="pz-entry"' not in html and 'class="edit-round"' not in html
