"""Web tests of the Topic_ page: length settings, one-tap and several-loser rounds, penalties, the end."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from werkzeug.datastructures import MultiDict

from companion.extensions import db
from companion.models import Match
from tests.helpers import HTMX, csrf_token, post_new_match, read_words, ref, save_round, start_match, stored_match

PLAYERS = ["Ann", "Bob", "Cy"]


class FormFields(HTMLParser):
    """The hidden fields of one form of a page (by its id), as a browser would post them."""

    def __init__(self, form_id: str):
        super().__init__()
        self.form_id, self.inside, self.fields = form_id, False, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
        elif tag == "input" and self.inside and attrs.get("type") == "hidden":
            self.fields.append((attrs["name"], attrs.get("value", "")))

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False


def form_fields(page: str, form_id: str) -> list[tuple[str, str]]:
    parser = FormFields(form_id)
    parser.feed(page)
    return parser.fields


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
    assert f'<progress id="topic-deck-bar" value="{deck}" max="{deck}">' in page


def test_new_match_form_shows_length_chips_and_a_keyboardless_deck(client):
    page = client.get("/matches/new?game=topic").get_data(as_text=True)
    for key in ("short", "medium", "long", "exact"):
        assert f'name="length" value="{key}"' in page
    assert re.search(r'name="length" value="medium" checked', page)
    assert re.search(r'name="deck" value="36" readonly inputmode="none"', page)
    assert 'style="' not in page


def test_a_stepper_tap_picks_the_exact_deck(client):
    response = setup_post(client, action="topic-deck:-10", length="medium", deck="36")
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" not in page
    assert re.search(r'name="length" value="exact" checked', page)
    assert 'name="deck" value="26"' in page
    assert 'name="seat" value="Cy"' in page


@pytest.mark.parametrize(
    "deck, words",
    [("abc", "whole number of cards from 2 to 72"), ("1", "from 2 to 72, got 1"), ("99", "from 2 to 72, got 99")],
)
def test_a_bad_exact_deck_is_shown_next_to_it_and_nothing_is_stored(client, app, deck, words):
    response = setup_post(client, action="start", length="exact", deck=deck)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    error = re.search(r'<p class="field-error" id="topic-deck-error" role="alert">([^<]*)</p>', page)
    assert error and words in error.group(1)
    assert 'aria-describedby="topic-deck-error"' in page
    assert page.count(words) == 1
    with app.app_context():
        assert db.session.query(Match).count() == 0


# --- recording rounds ---------------------------------------------------------------------


def test_entry_has_a_submit_button_per_player_inside_the_disabled_element(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    entry = page[page.index('<fieldset class="save topic-losers"'):]
    for name in PLAYERS:
        assert f'<button type="submit" name="loser" value="{name}" class="topic-player">' in entry
    # hx-disabled-elt="find .save" finds the first .save: it must be the fieldset around every button.
    assert page.index('class="save topic-losers"') < page.index('class="save big"')
    assert 'hx-disabled-elt="find .save"' in page


def test_one_tap_saves_the_round_and_answers_with_the_readback(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="10")
    response = save_round(client, match_id, dict(loser="Bob"), 1)
    page = read_words(response.get_data(as_text=True))
    assert response.status_code == 200
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": []}]
    assert re.search(r"<strong>Round 1:</strong>\s*<span class=\"topic-taken\"[^>]*>Bob \+1</span>", page)
    assert "9 cards left in the deck" in page
    assert 'id="standings" class="standings" hx-swap-oob="true"' in page
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
    assert "Bob +1 <small>(1 penalty)</small>" in page
    assert "7 cards left in the deck" in page


def test_several_with_nobody_ticked_keeps_the_entry_and_says_why(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    response = save_round(client, match_id, dict(several="on", penalty=["Cy", "Cy"]), 1)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert '<p class="field-error" role="alert">Tick every player who lost, then Save</p>' in page
    assert re.search(r'name="several" value="on" checked', page)
    assert page.count('<input type="hidden" name="penalty" value="Cy">') == 2
    assert '<span class="topic-count" aria-hidden="true">2</span>' in page
    assert stored_match(app, match_id).rounds == []


def test_ticks_are_redrawn_after_an_error(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    response = save_round(client, match_id, dict(several="on", losers=["Ann", "Zed"]), 1)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert '&#34;Zed&#34; is not one of Ann, Bob, Cy' in page
    assert re.search(r'name="losers" value="Ann" checked', page)
    assert not re.search(r'name="losers" value="Bob" checked', page)
    assert stored_match(app, match_id).rounds == []


def test_a_bad_penalty_name_is_shown_under_the_penalties(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    response = save_round(client, match_id, dict(loser="Bob", penalty=["Nobody"]), 1)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    penalties = page[page.index('class="topic-penalties"'):]
    assert '&#34;Nobody&#34; is not one of' in penalties
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
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    fields = form_fields(page, "topic-late-penalty")
    action = re.search(r'<form id="topic-late-penalty"[^>]*action="([^"]+)"', page).group(1)
    return client.post(action, data=MultiDict([*fields, ("penalty", name)]), headers=HTMX)


def test_a_penalty_on_its_own_corrects_the_round_just_played(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="10")
    save_round(client, match_id, dict(loser="Bob", penalty=["Ann"]), 1)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert 'form="topic-late-penalty"' in page and "For round 1, just played" in page
    response = late_penalty(client, match_id, "Cy")
    assert response.status_code == 200 and response.headers["HX-Location"] == f"/matches/{ref(match_id)}"
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": ["Ann", "Cy"]}]
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert '<progress id="topic-deck-bar" value="7" max="10">' in page
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
    fields = form_fields(page, "topic-late-penalty")
    action = f"/matches/{ref(match_id)}/rounds/1"
    tap = MultiDict([*fields, ("penalty", "Cy")])
    assert client.post(action, data=tap, headers=HTMX).status_code == 200
    assert client.post(action, data=tap, headers=HTMX).status_code == 409
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": ["Cy"]}]


def test_the_correction_page_is_prefilled_and_saves(client, app):
    match_id = start_match(client, "topic", PLAYERS, length="exact", deck="20")
    save_round(client, match_id, dict(several="on", losers=["Ann", "Cy"], penalty=["Bob", "Bob"]), 1)
    page = client.get(f"/matches/{ref(match_id)}/rounds/1").get_data(as_text=True)
    assert re.search(r'name="losers" value="Ann" checked', page)
    assert re.search(r'name="losers" value="Cy" checked', page)
    assert not re.search(r'name="losers" value="Bob" checked', page)
    assert page.count('<input type="hidden" name="penalty" value="Bob">') == 2
    assert 'name="loser"' not in page and 'role="switch"' not in page
    assert '<button type="submit" class="save big">Save correction</button>' in page
    revision = re.search(r'name="revision" value="(\d+)"', page).group(1)
    data = MultiDict([("csrf_token", csrf_token(client, f"/matches/{ref(match_id)}/rounds/1")), ("revision", revision),
                      ("several", "on"), ("losers", "Bob"), ("penalty", "Bob")])
    response = client.post(f"/matches/{ref(match_id)}/rounds/1", data=data)
    assert response.status_code == 302
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": ["Bob"]}]


def test_undo_takes_the_last_round_back(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    save_round(client, match_id, dict(loser="Bob"), 1)
    page = save_round(client, match_id, dict(loser="Cy"), 2).get_data(as_text=True)
    assert f'hx-post="/matches/{ref(match_id)}/undo"' in page
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
    hands = re.findall(r'<li class="topic-hand( leader)?">\s*<span class="topic-hand-name" title="(\w+)">', page)
    assert [name for _, name in hands] == ["Cy", "Ann", "Bob"]
    assert [bool(lead) for lead, _ in hands] == [False, False, True]
    assert '<span class="topic-mark">fewest</span>' in page
    assert "2 rounds played" in page and "Cy reveals next" in read_words(page)
    assert '<progress id="topic-deck-bar" value="17" max="20">' in page


def test_before_the_first_round_nobody_leads_and_anyone_reveals(client):
    match_id = start_match(client, "topic", PLAYERS)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "topic-hand leader" not in page
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
    assert '<span class="winner-mark topic-mark">★<span class="visually-hidden"> winner</span></span>' in page
    assert "just go to sleep" not in page
    assert 'name="loser"' not in page
    # With no entry left, the penalty for the last round is drawn with its own form.
    late = page[page.index('<form id="topic-late-penalty"'):]
    assert 'name="penalty" value="Ann"' in late[: late.index("</form>")]


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
    assert "topic-late-penalty" not in page and 'name="loser"' not in page
    assert "Bob +1" in read_words(page) and "<details class=\"topic-rounds\" open>" in page
