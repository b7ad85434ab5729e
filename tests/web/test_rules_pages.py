"""Web tests of rules a real table would catch: Burraco pairs closing, corrections that end a match."""

from __future__ import annotations

import html as markup
import json
import re

from flask.testing import FlaskClient

from tests.helpers import HTMX, csrf_token, entry_fields, ref, save_round, start_match, stored_match
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the rules a table would catch, through the pages"

FOUR = ["Ann", "Bob", "Cy", "Di"]
PAIRS = {"burraco_mode": "pairs", "burraco_team1": "Noi", "burraco_team2": "Voi"}


def text_of(html: str) -> str:
    """The page's text with tags and runs of spaces removed."""
    return markup.unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def scored_by_cli(client: FlaskClient, runner, tmp_path, match_id: int) -> dict:
    """`flask score` of the match file the page exports."""
    path = tmp_path / f"match-{match_id}.json"
    path.write_bytes(client.get(f"/matches/{ref(match_id)}.json").data)
    result = runner.invoke(args=["score", str(path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- Burraco in pairs: the closer's partner may still hold cards -------------------------


def test_in_pairs_the_closing_pair_saves_a_hand_with_the_partners_cards(client, app, runner, tmp_path):
    match_id = start_match(client, "burraco", FOUR, **PAIRS)
    entry = text_of(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "Left in hand (both partners)" in entry
    # Ann closes for Noi; her partner Cy still holds 25; the pair laid 230 with a clean burraco.
    fields = {"closed_by": "Noi", "table_1": "230", "hand_1": "25", "clean_1": "1", "table_2": "150", "hand_2": "40"}
    response = save_round(client, match_id, fields, 1)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert "Hand 1: Noi 505 (closed), Voi 110" in text_of(response.get_data(as_text=True))
    assert stored_match(app, match_id).rounds[0]["sides"]["Noi"]["hand"] == 25
    assert scored_by_cli(client, runner, tmp_path, match_id)["totals"] == {"Noi": 505, "Voi": 110}


def test_playing_alone_the_closer_with_cards_in_hand_is_still_refused(client, app):
    match_id = start_match(client, "burraco", FOUR)
    assert "Left in hand (both partners)" not in client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    response = save_round(client, match_id, {"closed_by": "Ann", "table_1": "230", "hand_1": "25", "clean_1": "1"}, 1)
    assert response.status_code == 422
    assert "closed the hand but holds 25 points in hand" in text_of(response.get_data(as_text=True))
    assert stored_match(app, match_id).rounds == []


# --- A correction that ends the match earlier --------------------------------------------

THREE = ["Ann", "Bob", "Cy"]
# An 8-card deck: five rounds of one loser each leave 3 cards, so the match is still on.
FIVE_ROUNDS = [{"losers": [name]} for name in ("Bob", "Cy", "Ann", "Bob", "Cy")]
# Round 3 as it really was: two penalties for Ann leave 1 card in the deck, which ends the match.
ENDING = {"losers": ["Ann", "Bob", "Cy"], "penalties": ["Ann", "Ann"]}


def losers(app, match_id: int) -> list[list[str]]:
    """The losers of each stored round of the match."""
    return [r["losers"] for r in stored_match(app, match_id).rounds]


FIVE_LOSERS = [r["losers"] for r in FIVE_ROUNDS]


def five_round_topic(client, app) -> int:
    """A Topic_ match of 8 cards with five rounds saved, still being played."""
    match_id = start_match(client, "topic", THREE, length="exact", deck="8")
    for number, data in enumerate(FIVE_ROUNDS, start=1):
        assert save_round(client, match_id, entry_fields(app, match_id, data), number).status_code == 200
    assert not stored_match(app, match_id).is_over
    return match_id


def post_correction(client, app, match_id: int, number: int, data: dict, revision: int, **extra: str):
    """Tap Save on the correction page of round `number`, filled in with `data`."""
    form = entry_fields(app, match_id, data)
    form.add("revision", str(revision))
    form.add("csrf_token", csrf_token(client, f"/matches/{ref(match_id)}/rounds/{number}"))
    for key, value in extra.items():
        form.add(key, value)
    return client.post(f"/matches/{ref(match_id)}/rounds/{number}", data=form)


def redo(client, match_id: int):
    """Tap Redo on the match page."""
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    return client.post(f"/matches/{ref(match_id)}/redo", headers={**HTMX, "X-CSRFToken": token})


def test_a_correction_that_ends_the_match_earlier_says_so_and_waits_for_one_more_tap(client, app):
    match_id = five_round_topic(client, app)
    first = post_correction(client, app, match_id, 3, ENDING, 0)
    assert first.status_code == 200
    text = text_of(first.get_data(as_text=True))
    assert "With this change the match ends at round 3: rounds 4–5 will be taken back." in text
    assert "Save and end the match at round 3" in text
    # Nothing is stored before the second tap, and what was typed is drawn again.
    assert losers(app, match_id) == FIVE_LOSERS
    confirm = read(first.get_data(as_text=True)).one_by_role("button", "Save and end the match at round 3")
    assert (confirm["name"], confirm["value"]) == ("ends_at", "3")
    second = post_correction(client, app, match_id, 3, ENDING, 0, ends_at="3")
    assert second.status_code == 302
    stored = stored_match(app, match_id)
    assert stored.is_over and len(stored.rounds) == 3 and stored.rounds[2]["penalties"] == ["Ann", "Ann"]
    log = text_of(client.get(f"/matches/{ref(match_id)}/changes").get_data(as_text=True))
    # Newest first: the correction, then the two rounds it took back.
    assert re.search(r"Round 3 · \d\d:\d\d · corrected · .*Round 4 · \d\d:\d\d · undone · .* taken back"
                     r" Round 5 · \d\d:\d\d · undone · .* taken back", log)


def test_a_confirmation_for_another_ending_round_is_asked_again(client, app):
    match_id = five_round_topic(client, app)
    # The page confirmed an end at round 4, but with this change the match ends at round 3.
    response = post_correction(client, app, match_id, 3, ENDING, 0, ends_at="4")
    assert "the match ends at round 3: rounds 4–5" in text_of(response.get_data(as_text=True))
    assert losers(app, match_id) == FIVE_LOSERS


def test_redo_puts_the_rounds_back_and_undoes_the_correction(client, app, runner, tmp_path):
    match_id = five_round_topic(client, app)
    post_correction(client, app, match_id, 3, ENDING, 0, ends_at="3")
    assert redo(client, match_id).status_code == 200
    assert losers(app, match_id) == FIVE_LOSERS[:4]
    assert stored_match(app, match_id).rounds[2]["penalties"] == []
    assert redo(client, match_id).status_code == 200
    assert losers(app, match_id) == FIVE_LOSERS and not stored_match(app, match_id).is_over
    log = text_of(client.get(f"/matches/{ref(match_id)}/changes").get_data(as_text=True))
    assert len(re.findall(r"Round 3 · \d\d:\d\d · corrected", log)) == 2
    assert re.search(r"Round 4 · \d\d:\d\d · redone · .* put back", log)
    assert re.search(r"Round 5 · \d\d:\d\d · redone · .* put back", log)
    assert scored_by_cli(client, runner, tmp_path, match_id)["totals"] == {"Ann": 1, "Bob": 2, "Cy": 2}


def test_redo_gives_an_earlier_corrected_round_back_its_values_and_puts_the_rounds_back(client, app):
    # Round 2 corrected so that the match ends at round 3: Redo was refused on every tap ("already over after round
    # 3"), as it gave back only a corrected last round's values.
    match_id = five_round_topic(client, app)
    assert post_correction(client, app, match_id, 2, ENDING, 0, ends_at="3").status_code == 302
    assert stored_match(app, match_id).is_over and losers(app, match_id) == [["Bob"], ENDING["losers"], ["Ann"]]
    assert redo(client, match_id).status_code == 200
    assert losers(app, match_id) == FIVE_LOSERS[:4] and stored_match(app, match_id).rounds[1]["penalties"] == []
    assert redo(client, match_id).status_code == 200
    assert losers(app, match_id) == FIVE_LOSERS and not stored_match(app, match_id).is_over
    # Taken back and put back by hand on the way, the correction is still the one Redo gives back.
    again = five_round_topic(client, app)
    post_correction(client, app, again, 3, ENDING, 0, ends_at="3")
    token = csrf_token(client, f"/matches/{ref(again)}")
    undo = client.post(f"/matches/{ref(again)}/undo", headers={**HTMX, "X-CSRFToken": token})
    assert undo.status_code == 200 and redo(client, again).status_code == 200
    assert stored_match(app, again).is_over and redo(client, again).status_code == 200
    assert redo(client, again).status_code == 200 and losers(app, again) == FIVE_LOSERS


def test_correcting_the_round_back_reopens_the_match_and_redo_puts_the_rounds_back(client, app):
    match_id = five_round_topic(client, app)
    post_correction(client, app, match_id, 3, ENDING, 0, ends_at="3")
    assert post_correction(client, app, match_id, 3, FIVE_ROUNDS[2], 1).status_code == 302
    assert not stored_match(app, match_id).is_over
    assert redo(client, match_id).status_code == 200 and redo(client, match_id).status_code == 200
    assert losers(app, match_id) == FIVE_LOSERS


# --- Pazzaparola rows never exceed the cards per player ----------------------------------


def test_each_pazzaparola_row_carries_the_reason_a_card_more_is_refused(client):
    match_id = start_match(client, "pazzaparola", THREE)
    html = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert read(html).one(cls="pz-entry")["data-cards"] == "8"
    for name in THREE:
        # Each row holds its alert, hidden until a card more is tapped.
        [full] = read(html).one("fieldset", data_name=name).find_all(cls="pz-full")
        assert full.role == "alert" and full.has("hidden") and "field-error" in full.classes
        assert full.text == f"{name} has all 8 cards in the rows: tap a chip to take one back before adding another."


# --- Rule errors in the page's language, next to their field ------------------------------

ITALIAN = {"Accept-Language": "it-IT,it;q=0.9"}


def test_a_rule_error_reaches_an_italian_page_in_italian_naming_the_player_next_to_their_row(client, app):
    match_id = start_match(client, "burraco", THREE)
    fields = {"closed_by": "Ann", "table_1": "230", "hand_1": "25", "clean_1": "1"}
    html = save_round(client, match_id, fields, 1, headers=ITALIAN).get_data(as_text=True)
    card = read(html).one_by_role("group", "Ann").text
    assert "Ann: ha chiuso la mano ma ha 25 punti in mano (devono essere 0)" in card
    assert "closed the hand" not in text_of(html)


def test_a_field_error_in_italian_starts_with_a_capital_and_translates_the_field(client):
    match_id = start_match(client, "burraco", THREE)
    html = save_round(client, match_id, {"closed_by": "", "hand_1": "10+"}, 1, headers=ITALIAN).get_data(as_text=True)
    field = read(html).one("input", name="hand_1")
    error = read(html).by_id(field["aria-describedby"])
    assert error["id"] == "bu-hand_1-error"
    assert error.text == "Punti rimasti in mano: 10+ finisce con +: aggiungi l’ultimo numero o tocca ⌫"


def test_a_conflict_reaches_an_italian_page_in_italian(client, app):
    match_id = start_match(client, "topic", THREE)
    save_round(client, match_id, entry_fields(app, match_id, {"losers": ["Bob"]}), 1)
    stale = save_round(client, match_id, entry_fields(app, match_id, {"losers": ["Cy"]}), 1, headers=ITALIAN)
    assert stale.status_code == 409
    assert "Questo turno è cambiato nel frattempo" in stale.get_data(as_text=True)
