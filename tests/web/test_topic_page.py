"""Web tests of the Topic_ page: length settings, one-tap and several-loser rounds, penalties, the end."""

from __future__ import annotations

import re

import pytest
from werkzeug.datastructures import MultiDict

from companion.extensions import db
from companion.models import Match
from tests.helpers import HTMX, csrf_token, post_new_match, read_words, ref, save_round, start_match, stored_match
from tests.pages import checked, read

SAME_ON_EVERY_DATABASE = "the game's entry and standings through its page: the rules and the markup"

PLAYERS = ["Ann", "Bob", "Cy"]


def deck_bar(page: str) -> tuple[str, str]:
    """The deck's progress bar as a phone shows it: the cards left and the deck it started with."""
    bar = read(page).one_by_role("progressbar", re.compile("^Cards left in the deck"))
    return bar["value"], bar["max"]


def setup_post(client, **fields):
    """A tap on (or Start of) the new-match form with Topic_ picked and three players seated."""
    return post_new_match(client, "topic", PLAYERS, htmx=True, **fields)


# --- settings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings, deck",
    [({}, 36), ({"length": "short"}, 24), ({"length": "long"}, 67), ({"length": "exact", "deck": "6"}, 6)],
)
def test_start_with_a_length_or_an_exact_deck(client, app, settings, deck):
    match_id = start_match(client, "topic", PLAYERS, **settings)
    assert stored_match(app, match_id).settings["deck"] == deck
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert deck_bar(page) == (str(deck), str(deck))


def test_new_match_form_shows_length_chips_and_a_keyboardless_deck(client):
    page = read(client.get("/matches/new?game=topic").get_data(as_text=True))
    chips = page.find_all("input", name="length")
    assert {chip.role for chip in chips} == {"radio"}
    assert {"short", "medium", "long", "exact"} <= {chip["value"] for chip in chips}
    assert checked(page, "length") == ["medium"]
    deck = page.one_by_role("textbox", "Cards in the deck")
    assert deck["value"] == "36" and deck.has("readonly") and deck["inputmode"] == "none"
    assert not [element for element in page.iter() if element.has("style")]


def test_a_stepper_tap_picks_the_exact_deck(client):
    response = setup_post(client, action="topic-deck:-10", length="medium", deck="36")
    page = read(response.get_data(as_text=True))
    assert response.status_code == 200 and not page.find_all("html")
    assert checked(page, "length") == ["exact"]
    assert page.one_by_role("textbox", "Cards in the deck")["value"] == "26"
    assert "Cy" in [seat["value"] for seat in page.find_all("input", name="seat")]


@pytest.mark.parametrize(
    "deck, words",
    [("abc", "whole number of cards from 2 to 72"), ("1", "from 2 to 72, got 1"), ("99", "from 2 to 72, got 99")],
)
def test_a_bad_exact_deck_is_shown_next_to_it_and_nothing_is_stored(client, app, deck, words):
    response = setup_post(client, action="start", length="exact", deck=deck)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    # The deck field is described by the alert that says what is wrong with it.
    deck = read(page).one_by_role("textbox", "Cards in the deck")
    error = read(page).by_id(deck["aria-describedby"])
    assert error.role == "alert" and words in error.text
    assert page.count(words) == 1
    with app.app_context():
        assert db.session.query(Match).count() == 0


# --- recording rounds ---------------------------------------------------------------------


def test_entry_has_a_submit_button_per_player_inside_the_disabled_element(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    page = read(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    losers = page.one_by_role("group", "Who lost round 1?")
    for name in PLAYERS:
        button = losers.one_by_role("button", f"{name} 0 cards")
        assert (button["type"], button["name"], button["value"]) == ("submit", "loser", name)
    # hx-disabled-elt="find .save" finds the first .save: it must be the fieldset around every button.
    form = page.one("form", cls="round-entry")
    assert form["hx-disabled-elt"] == "find .save"
    assert next(element for element in form.iter() if "save" in element.classes) is losers


def test_one_tap_saves_the_round_and_answers_with_the_readback(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="10")
    response = save_round(client, match_id, dict(loser="Bob"), 1)
    page = read_words(response.get_data(as_text=True))
    assert response.status_code == 200
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": []}]
    readback = read(page).one_by_role("status")
    assert readback.one("span").text == "Round 1: Bob +1 · 9 cards left in the deck"
    # The standings are redrawn in place beside the entry (out of band).
    assert read(page).by_id("standings")["hx-swap-oob"] == "true"
    assert "Bob reveals next" in page
    assert "Who lost round 2?" in page


def test_a_double_tap_stores_the_round_once(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    assert save_round(client, match_id, dict(loser="Bob"), 1).status_code == 200
    assert save_round(client, match_id, dict(loser="Bob"), 1).status_code == 200
    assert len(stored_match(app, match_id).rounds) == 1


def test_several_losers_and_a_pending_penalty(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="10")
    response = save_round(client, match_id, dict(several="on", losers=["Ann", "Cy"], penalty=["Bob"]), 1)
    assert response.status_code == 200
    assert stored_match(app, match_id).rounds == [{"losers": ["Ann", "Cy"], "penalties": ["Bob"]}]
    page = read_words(response.get_data(as_text=True))
    assert "Bob +1 (1 penalty)" in read(page).one_by_role("status").text
    assert "7 cards left in the deck" in page


def test_several_with_nobody_ticked_keeps_the_entry_and_says_why(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    response = save_round(client, match_id, dict(several="on", penalty=["Cy", "Cy"]), 1)
    page = read(response.get_data(as_text=True))
    assert response.status_code == 422
    assert "Tick every player who lost, then Save" in [alert.text for alert in page.by_role("alert")]
    assert page.one_by_role("switch", "Several losers").has("checked")
    assert [value for name, value in page.one("form", cls="round-entry").fields() if name == "penalty"] == ["Cy", "Cy"]
    assert page.one_by_role("button", "Penalty card for Cy").one(cls="topic-count").text == "2"
    assert stored_match(app, match_id).rounds == []


def test_ticks_are_redrawn_after_an_error(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    response = save_round(client, match_id, dict(several="on", losers=["Ann", "Zed"]), 1)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert '"Zed" is not one of Ann, Bob, Cy' in read(page).text
    assert "Ann" in checked(read(page), "losers")
    assert "Bob" not in checked(read(page), "losers")
    assert stored_match(app, match_id).rounds == []


def test_a_bad_penalty_name_is_shown_under_the_penalties(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    response = save_round(client, match_id, dict(loser="Bob", penalty=["Nobody"]), 1)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    penalties = read(page).one("fieldset", cls="topic-penalties")
    assert '"Nobody" is not one of' in penalties.text
    assert stored_match(app, match_id).rounds == []


def test_an_out_of_date_round_number_is_a_conflict(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    save_round(client, match_id, dict(loser="Bob"), 1)
    response = save_round(client, match_id, dict(loser="Cy"), 1)
    assert response.status_code == 409
    assert "changed meanwhile" in response.get_data(as_text=True)
    assert len(stored_match(app, match_id).rounds) == 1


# --- penalties after the round, corrections, undo ----------------------------------------------


def late_penalty(client, match_id: int, name: str):
    """Tap "+ name" for the round just played: post the page's late-penalty form with that button."""
    form = read(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)).by_id("topic-late-penalty")
    return client.post(form["action"], data=MultiDict([*form.fields(), ("penalty", name)]), headers=HTMX)


def test_a_penalty_on_its_own_corrects_the_round_just_played(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="10")
    save_round(client, match_id, dict(loser="Bob", penalty=["Ann"]), 1)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    late = [button for button in read(page).by_role("button") if button.get("form") == "topic-late-penalty"]
    assert late and "For round 1, just played" in page
    response = late_penalty(client, match_id, "Cy")
    assert response.status_code == 200 and response.headers["HX-Location"] == f"/matches/{ref(match_id)}"
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": ["Ann", "Cy"]}]
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert deck_bar(page) == ("7", "10")
    assert "corrected" in page


def test_a_penalty_on_its_own_can_end_the_game_in_that_round(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="3")
    save_round(client, match_id, dict(loser="Bob"), 1)
    late_penalty(client, match_id, "Cy")
    match = stored_match(app, match_id)
    assert match.status == "finished"
    assert match.rounds == [{"losers": ["Bob"], "penalties": ["Cy"]}]


def test_a_stale_late_penalty_is_refused(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    save_round(client, match_id, dict(loser="Bob"), 1)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    fields = read(page).by_id("topic-late-penalty").fields()
    action = f"/matches/{ref(match_id)}/rounds/1"
    tap = MultiDict([*fields, ("penalty", "Cy")])
    assert client.post(action, data=tap, headers=HTMX).status_code == 200
    assert client.post(action, data=tap, headers=HTMX).status_code == 409
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": ["Cy"]}]


def test_the_correction_page_is_prefilled_and_saves(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="20")
    save_round(client, match_id, dict(several="on", losers=["Ann", "Cy"], penalty=["Bob", "Bob"]), 1)
    page = read(client.get(f"/matches/{ref(match_id)}/rounds/1").get_data(as_text=True))
    assert "Ann" in checked(page, "losers") and "Cy" in checked(page, "losers")
    assert "Bob" not in checked(page, "losers")
    form = page.one_by_role("button", "Save correction").closest("form")
    assert [value for name, value in form.fields() if name == "penalty"] == ["Bob", "Bob"]
    assert not page.find_all(name="loser") and not page.by_role("switch")
    assert page.one_by_role("button", "Save correction")["type"] == "submit"
    revision = dict(form.fields())["revision"]
    assert revision.isdigit()
    data = MultiDict([("csrf_token", csrf_token(client, f"/matches/{ref(match_id)}/rounds/1")), ("revision", revision),
                      ("several", "on"), ("losers", "Bob"), ("penalty", "Bob")])
    response = client.post(f"/matches/{ref(match_id)}/rounds/1", data=data)
    assert response.status_code == 302
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": ["Bob"]}]


def test_undo_takes_the_last_round_back(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    save_round(client, match_id, dict(loser="Bob"), 1)
    page = read(save_round(client, match_id, dict(loser="Cy"), 2).get_data(as_text=True))
    assert page.one_by_role("status").one_by_role("button", "Undo")["hx-post"] == f"/matches/{ref(match_id)}/undo"
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    response = client.post(f"/matches/{ref(match_id)}/undo", headers={**HTMX, "X-CSRFToken": token})
    assert response.status_code == 200
    assert "Round 2 taken back." in response.get_data(as_text=True)
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": []}]


# --- what the table sees ------------------------------------------------------------------


def test_standings_most_cards_first_the_fewest_marked(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="20")
    save_round(client, match_id, dict(loser="Cy"), 1)
    save_round(client, match_id, dict(several="on", losers=["Cy", "Ann"]), 2)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    hands = read(page).one_by_role("list", "Cards held").by_role("listitem")
    assert [hand.one(cls="topic-hand-name").text for hand in hands] == ["Cy", "Ann", "Bob"]
    assert ["leader" in hand.classes for hand in hands] == [False, False, True]
    assert [mark.text for mark in hands[-1].find_all(cls="topic-mark")] == ["fewest"]
    assert "2 rounds played" in page and "Cy reveals next" in read_words(page)
    assert deck_bar(page) == ("17", "20")


def test_before_the_first_round_nobody_leads_and_anyone_reveals(client):
    match_id = start_match(client, "topic", PLAYERS)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    hands = read(page).one_by_role("list", "Cards held").by_role("listitem")
    assert len(hands) == 3 and not [hand for hand in hands if "leader" in hand.classes]
    assert "Anyone reveals the first card" in page
    assert "0 rounds played" in page


def test_the_end_with_one_winner(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="3")
    save_round(client, match_id, dict(loser="Bob"), 1)
    response = save_round(client, match_id, dict(loser="Cy"), 2)
    page = response.get_data(as_text=True)
    assert "Game over" in page and "The match is over" in page
    assert stored_match(app, match_id).status == "finished"
    page = read_words(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "Ann wins!" in page
    hands = read(page).one_by_role("list", "Cards held").by_role("listitem")
    winner = hands[-1]
    assert winner.one(cls="topic-hand-name").text == "Ann"
    mark = winner.one(cls="winner-mark")
    assert (mark.visible_text, mark.text) == ("★", "★ winner")
    assert "just go to sleep" not in page
    assert not read(page).find_all(name="loser")
    # With no entry left, the penalty for the last round is drawn with its own form.
    late = read(page).by_id("topic-late-penalty")
    button = late.one_by_role("button", "Penalty card for Ann in round 2")
    assert (button["name"], button["value"]) == ("penalty", "Ann")


def test_a_tie_is_shown_as_a_tie(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="4")
    save_round(client, match_id, dict(loser="Bob"), 1)
    save_round(client, match_id, dict(loser="Cy"), 2)
    save_round(client, match_id, dict(loser="Ann"), 3)
    page = read_words(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "Tie for victory: Ann, Bob, Cy" in page
    assert "just go to sleep already" in page


def test_a_viewer_sees_no_entry_and_no_penalty_buttons(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    save_round(client, match_id, dict(loser="Bob"), 1)
    viewer = app.test_client()
    page = viewer.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "topic-late-penalty" not in page and not read(page).find_all(name="loser")
    assert "Bob +1" in read_words(page) and read(page).one("details", cls="topic-rounds").has("open")
