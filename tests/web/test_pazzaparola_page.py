"""Web tests of the Pazzaparola pages: settings, round entry, refusals next to the row, standings, corrections."""

from __future__ import annotations

import pytest

from companion.extensions import db
from companion.models import Match
from tests.helpers import csrf_token, post_new_match, read_words, ref, save_round, start_match, stored_match
from tests.pages import checked, read

SAME_ON_EVERY_DATABASE = "the game's entry and standings through its page: the rules and the markup"

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
    page = read(client.get("/matches/new?game=pazzaparola&seat=John&seat=Ringo").get_data(as_text=True))
    cards = page.one_by_role("textbox", "Cards per player")
    assert (cards["name"], cards["value"], cards.has("readonly"), cards["inputmode"]) == ("cards", "8", True, "none")
    target = page.one_by_role("textbox", "Victory points to win")
    assert (target["name"], target["value"]) == ("target", "3")
    assert page.one_by_role("button", "More victory points to win")
    assert checked(page, "eldest") == [""]
    assert page.one_by_role("radio", "Not named")["value"] == ""
    assert page.one_by_role("radio", "Ringo")["value"] == "Ringo"


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
    label = {"cards": "Cards per player", "target": "Victory points to win"}[next(iter(fields))]
    stepper = read(html).one_by_role("textbox", label)
    assert stepper.get("aria-invalid") == "true" and message in stepper.closest(cls="pz-setting").text
    assert html.count(message) == 1
    with app.app_context():
        assert db.session.query(Match).count() == 0


# --- entering a round ------------------------------------------------------------------------


def test_match_page_shows_the_entry_and_who_announces(client):
    mid = start_match(client, "pazzaparola", BEATLES, eldest="Paul")
    html = client.get(f"/matches/{ref(mid)}").get_data(as_text=True)
    page = read(html)
    assert page.one(cls="pz-entry")["data-cards"] == "8"
    # A soft hyphen shows only where a name too long for its card breaks.
    assert [pick.text.replace("\xad", "") for pick in page.find_all("button", cls="pz-pick")] == BEATLES
    assert page.one("input", name="active")["value"] == "0"
    assert "Paul announces first — the eldest." in html
    assert page.one_by_role("button", "Save round 1")["type"] == "submit"


def test_without_an_eldest_the_table_is_asked(client):
    mid = start_match(client, "pazzaparola", BEATLES)
    assert "Ask the table: the eldest announces first." in client.get(f"/matches/{ref(mid)}").get_data(as_text=True)


def test_saving_the_rulebook_round_reads_back_and_updates_the_standings(client, app):
    mid = start_match(client, "pazzaparola", BEATLES)
    response = save_round(client, mid, RULEBOOK)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.count("Round 1: John 18 ★, Ringo 14, Paul 10, George 9") == 2  # the banner, and at the thumb
    assert read(html).by_id("standings")["hx-swap-oob"] == "true"
    assert "John announces first — winner of round 1." in html
    assert "ZANZARA" in html and "Things that make you lose patience" in html
    assert not read(html).find_all(name="used-0")  # the entry is fresh again
    rounds = stored_match(app, mid).rounds
    assert rounds[0]["rows"]["John"] == {"word": "ZANZARA", "used": [7, 2, 7, 2, 3], "unused": 3}


def test_a_row_over_the_card_count_is_refused_next_to_it_and_kept(client, app):
    mid = start_match(client, "pazzaparola", BEATLES)
    fields = {**RULEBOOK, "used-1": ["1"] * 9}
    response = save_round(client, mid, fields)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    page = read(html)
    ringo = page.one_by_role("group", "Ringo")
    assert "9 cards in the rows, but each player has 8" in ringo.text
    assert [chip["value"] for chip in ringo.find_all("input", name="used-1")] == ["1"] * 9
    sent = page.one("form", cls="round-entry").fields()
    assert ("word-0", "ZANZARA") in sent and ("theme", "Things that make you lose patience") in sent
    assert len([value for name, value in sent if name == "used-0"]) == 5
    assert stored_match(app, mid).rounds == []


@pytest.mark.parametrize("field", ["word-0", "theme"])
def test_a_nul_in_a_word_or_the_theme_is_refused_and_nothing_stored(client, app, field):
    # A NUL was kept on SQLite and failed the save with a 500 on PostgreSQL.
    mid = start_match(client, "pazzaparola", BEATLES)
    response = save_round(client, mid, {**RULEBOOK, field: "ZAN\x00ZARA"})
    assert response.status_code == 422 and "a text may not hold a NUL character" in response.get_data(as_text=True)
    assert stored_match(app, mid).rounds == []


def test_a_refused_round_keeps_the_active_row(client):
    mid = start_match(client, "pazzaparola", BEATLES)
    html = save_round(client, mid, {**RULEBOOK, "used-2": ["1"] * 9, "active": "2"}).get_data(as_text=True)
    page = read(html)
    assert page.one("input", name="active")["value"] == "2"
    assert "pz-active" in page.one_by_role("group", "Paul").classes


def test_an_empty_round_is_refused(client, app):
    mid = start_match(client, "pazzaparola", BEATLES)
    response = save_round(client, mid, {"theme": "Kitchen"})
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Nothing was entered" in html and ("theme", "Kitchen") in read(html).one("form", cls="round-entry").fields()
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
    assert len([mark for mark in read(html).iter() if mark.get("aria-label") == "winner"]) >= 2
    assert "announces first" not in html and "Ask the table" not in html
    assert not read(html).find_all(cls="pz-entry")
    response = save_round(client, mid, one_chip_round(5, 4, 3, 2), number=3)
    assert response.status_code == 422
    assert "The match is over" in response.get_data(as_text=True)
    assert len(stored_match(app, mid).rounds) == 2


# --- corrections -----------------------------------------------------------------------------


def test_correction_form_is_prefilled_and_saves_the_change(client, app):
    mid = start_match(client, "pazzaparola", BEATLES)
    save_round(client, mid, RULEBOOK)
    html = client.get(f"/matches/{ref(mid)}/rounds/1").get_data(as_text=True)
    form = read(html).one_by_role("button", "Save correction").closest("form")
    sent = form.fields()
    assert len([value for name, value in sent if name == "used-0"]) == 5 and ("word-0", "ZANZARA") in sent
    # The correction is a plain form post: nothing in the entry sends it by htmx.
    entry = read(html).one(cls="pz-entry")
    assert not [element for element in [entry, *entry.iter()] if element.has("hx-post")]
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
    george = read(html).one_by_role("group", "George")
    assert "10 cards in the rows, but each player has 8" in george.text
    assert [chip["value"] for chip in george.find_all("input", name="used-3")] == ["2"] * 10


def test_rounds_table_shows_theme_words_stars_and_edit_links(client):
    mid = start_match(client, "pazzaparola", BEATLES)
    save_round(client, mid, RULEBOOK)
    html = client.get(f"/matches/{ref(mid)}").get_data(as_text=True)
    table = read(html).one(cls="pz-rounds")
    assert "Things that make you lose patience" in table.text
    marks = [mark for mark in table.find_all(cls="winner-mark") if mark.name() == "took the point"]
    # The star follows the points of the row that took the point.
    assert [(mark.closest("td").text.split()[:2], mark.text) for mark in marks] == [(["18", "★"], "★")]
    assert [link["href"] for link in table.by_role("link")] == [f"/matches/{ref(mid)}/rounds/1"]


def test_a_follower_sees_the_standings_and_rounds_but_no_entry(client, app):
    mid = start_match(client, "pazzaparola", BEATLES, eldest="Paul")
    save_round(client, mid, RULEBOOK)
    html = app.test_client().get(f"/matches/{ref(mid)}").get_data(as_text=True)
    assert "John announces first — winner of round 1." in html and "ZANZARA" in html
    assert not read(html).find_all(cls="pz-entry") and not read(html).find_all(cls="edit-round")
