"""Web tests of the Pazaak page: settings by taps, quick results, the calculator's steps, saving, correcting."""

from __future__ import annotations

import json
import re

import pytest

from companion.extensions import db
from companion.models import Match
from tests.helpers import HTMX, csrf_token, read_words, ref, save_round, start_match, stored_match
from tests.pages import Element, read

SAME_ON_EVERY_DATABASE = "the game's entry and standings through its page: the rules and the markup"

PAIR = ["Ann", "Bob"]


def hidden(page: str, name: str) -> str:
    """The value of a hidden field on a page, as the browser would post it back."""
    found = read(page).find_all("input", name=name)
    assert found, f"no field {name}"
    return found[0]["value"]


class Table:
    """The calculator driven as the page drives it: each tap posts the hidden state back."""

    def __init__(self, client, match_id: int, token: str):
        self.client, self.url, self.token = client, f"/matches/{ref(match_id)}", token
        self.page = read_words(client.get(self.url).get_data(as_text=True))

    def fields(self, **extra) -> dict:
        return {
            "csrf_token": self.token,
            "number": hidden(self.page, "number"),
            "table": hidden(self.page, "table"),
            "moves": hidden(self.page, "moves"),
            **extra,
        }

    def tap(self, move: str, **extra):
        response = self.client.post(self.url + "/entry", data=self.fields(move=move, **extra), headers=HTMX)
        assert response.status_code == 200
        self.page = read_words(response.get_data(as_text=True))
        return self

    def totals(self) -> list[str]:
        """Each player's total on the calculator, as shown beside their name."""
        return [total.text for total in read(self.page).find_all(cls="pazaak-total") if total.has("aria-label")]

    def save(self):
        return self.client.post(self.url + "/rounds", data=self.fields(source="table"), headers=HTMX)


def test_settings_taps_redraw_the_form_and_start_stores_them(client, app):
    token = csrf_token(client, "/matches/new")
    base = {"csrf_token": token, "game": "pazaak", "seat": ["Ann", "Bob"]}
    page = client.post("/matches/new", data={**base, "action": "pazaak-sets:+1"}, headers=HTMX).get_data(as_text=True)
    assert not read(page).find_all("html") and hidden(page, "sets") == "4"
    page = client.post("/matches/new", data={**base, "sets": "4", "action": "pazaak-card:±4"}, headers=HTMX).get_data(
        as_text=True
    )
    assert hidden(page, "hand:Ann") == "±4" and hidden(page, "sets") == "4"
    match_id = start_match(client, "pazaak", PAIR, sets="4", **{"hand:Ann": ["±4", "D"], "hand:Bob": ["T±1"]})
    assert stored_match(app, match_id).settings == {"sets": 4, "hands": {"Ann": ["±4", "D"], "Bob": ["T±1"]}}


def test_unreadable_sets_is_refused_next_to_its_field(client, app):
    token = csrf_token(client, "/matches/new")
    data = {"csrf_token": token, "game": "pazaak", "seat": ["Ann", "Bob"], "sets": "many", "action": "start"}
    response = client.post("/matches/new", data=data, headers=HTMX)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    # The alert follows the sets' note, inside the same part of the form.
    message = "The set wins needed must be a whole number"
    [error] = [alert for alert in read(page).by_role("alert") if alert.text.startswith(message)]
    beside = [part for part in error.parent.children if isinstance(part, Element)]
    assert "pazaak-note" in beside[beside.index(error) - 1].classes
    assert page.count("must be a whole number") == 1
    with app.app_context():
        assert db.session.query(Match).count() == 0


def test_quick_result_records_the_winner_or_a_tie(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    for number, value in enumerate(["1", "tie"], start=1):
        response = save_round(client, match_id, {"winner": value}, number, csrf=token)
        assert response.status_code == 200
    assert stored_match(app, match_id).rounds == [{"winner": "Bob"}, {"winner": None}]
    page = response.get_data(as_text=True)
    assert "Set 2: tied" in page and [part for part in read(page).iter() if part.get("hx-swap-oob") == "true"]
    assert "starts set 3" in page  # Ann started set 1, Bob set 2


def test_calculator_steps_return_the_entry_fragment(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    table = Table(client, match_id, token).tap("draw:7").tap("plus:3")
    assert not read(table.page).find_all("html") and table.totals() == ["10", "0"]
    before = hidden(table.page, "table")
    table.tap("minus:2")
    assert "Refused: Ann: only one side card per turn" in table.page and hidden(table.page, "table") == before
    table.tap("end_turn").tap("draw:4").tap("undo")
    assert table.totals() == ["10", "0"] and "Bob to play" in table.page
    assert stored_match(app, match_id).rounds == []
    # In Italian the pill starts its sentence with a capital, as in English.
    client.set_cookie("lang", "it")
    assert "Tocca a" in read_words(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))


def test_a_tampered_state_is_refused(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    table = Table(client, match_id, token)
    data = table.fields(move="draw:5")
    data["table"] = data["table"].replace('"drawn": false', '"drawn": "yes"')
    page = client.post(f"/matches/{ref(match_id)}/entry", data=data, headers=HTMX).get_data(as_text=True)
    assert "The calculator state is damaged" in page
    data = table.fields(source="table")
    data["table"] = '{"players": ["Ann", "Bob"], "over": true}'
    response = client.post(f"/matches/{ref(match_id)}/rounds", data=data, headers=HTMX)
    assert response.status_code == 422 and "The calculator state is damaged" in response.get_data(as_text=True)
    assert stored_match(app, match_id).rounds == []


def test_a_running_set_cannot_be_saved_and_is_kept(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    table = Table(client, match_id, token).tap("draw:9")
    response = table.save()
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "The set is not over yet" in page
    assert hidden(page, "table") == hidden(table.page, "table")
    assert stored_match(app, match_id).rounds == []


def test_a_decided_set_is_saved_with_its_cards_and_hand_cards_grey_out(client, app):
    match_id, token = start_match(client, "pazaak", PAIR, **{"hand:Ann": ["+3", "D"]}), csrf_token(client)
    table = Table(client, match_id, token)
    for move in ["draw:10", "end_turn", "draw:8", "stand", "draw:7", "plus:3"]:
        table.tap(move, **({"player": "0"} if move == "plus:3" else {}))
    assert "Save set 1" in table.page and "Ann wins the set, 20 to 8." in table.page
    response = table.save()
    assert response.status_code == 200
    assert stored_match(app, match_id).rounds == [
        {
            "totals": {"Ann": 20, "Bob": 8},
            "filled": [],
            "tiebreaker": None,
            "cards": {"Ann": ["10", "7", "+3"], "Bob": ["8"]},
        }
    ]
    page = response.get_data(as_text=True)
    drawn = read(page)
    assert drawn.one_by_role("button", "Ann: +3 (played)").has("disabled")
    assert not drawn.one_by_role("button", "Ann: Double").has("disabled")
    assert "Set 1: Ann wins (Ann 20, Bob 8)" in page


def test_correcting_a_set_prefills_it_and_saves_the_change(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    table = Table(client, match_id, token)
    for move in ["draw:10", "end_turn", "draw:9", "stand", "draw:9", "stand"]:
        table.tap(move)
    assert table.save().status_code == 200
    page = client.get(f"/matches/{ref(match_id)}/rounds/1").get_data(as_text=True)
    chosen = [option.text for option in read(page).find_all("option") if option.has("selected")]
    assert "19" in chosen and "9" in chosen
    assert not read(page).find_all(name="winner") and hidden(page, "cards")
    data = {
        "csrf_token": token,
        "revision": hidden(page, "revision"),
        "total-0": "19",
        "total-1": "19",
        "tiebreaker": "1",
        "cards": hidden(page, "cards"),
    }
    response = client.post(f"/matches/{ref(match_id)}/rounds/1", data=data)
    assert response.status_code in (200, 302)
    assert stored_match(app, match_id).rounds[0]["tiebreaker"] == "Bob"
    page = client.get(f"/matches/{ref(match_id)}/rounds/1").get_data(as_text=True)
    assert 'value="1" checked' in page  # the tiebreaker now marked for Bob
    data.update({"revision": hidden(page, "revision"), "total-0": "25", "total-1": "30"})
    response = client.post(f"/matches/{ref(match_id)}/rounds/1", data=data)
    assert response.status_code == 422
    assert "Both players are over 20" in response.get_data(as_text=True)


@pytest.mark.parametrize("sets", ["1", "2"])
def test_the_match_ends_at_the_set_wins_needed(client, app, sets):
    match_id, token = start_match(client, "pazaak", PAIR, sets=sets), csrf_token(client)
    for number in range(1, int(sets) + 1):
        save_round(client, match_id, {"winner": "0"}, number, csrf=token)
    assert stored_match(app, match_id).status == "finished"
    page = read_words(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "Ann wins!" in page and "The match is over" in page and "Save set" not in page
    rounds = json.loads(client.get(f"/matches/{ref(match_id)}.json").get_data(as_text=True))["rounds"]
    assert [r["winner"] for r in rounds] == ["Ann"] * int(sets)


# --- a recorded hand ---------------------------------------------------------------------------------


def test_a_recorded_hand_is_all_the_calculator_offers(client, app):
    match_id, token = start_match(client, "pazaak", PAIR, **{"hand:Ann": ["+3", "D"]}), csrf_token(client)
    table = Table(client, match_id, token).tap("draw:7")
    assert "Ann plays only the hand cards noted for this match, each once." in table.page
    assert "pazaak-palette" not in table.page and read(table.page).one_by_role("button", "Ann: +3")
    # A card not in the hand, sent anyway, is refused and the table stays as it was.
    before = hidden(table.page, "table")
    table.tap("plus:5", player="0")
    assert "Refused: +5 is not in Ann&#39;s hand (+3, D)" in table.page
    assert hidden(table.page, "table") == before
    # Bob has no recorded hand: on his turn the whole palette is there.
    table.tap("end_turn").tap("draw:4")
    assert "pazaak-palette" in table.page and read(table.page).one_by_role("button", "±5 as +5")
    table.tap("plusminus:5:+")
    assert table.totals() == ["7", "9"]


def test_a_hand_card_played_in_one_set_is_refused_in_the_next(client, app):
    match_id, token = start_match(client, "pazaak", PAIR, **{"hand:Ann": ["+3", "D"]}), csrf_token(client)
    table = Table(client, match_id, token)
    for move in ["draw:10", "end_turn", "draw:8", "stand", "draw:7", "plus:3"]:
        table.tap(move, **({"player": "0"} if move == "plus:3" else {}))
    assert table.save().status_code == 200
    table = Table(client, match_id, token).tap("draw:5").tap("draw:6")  # set 2: Bob starts
    assert 'aria-label="Ann: +3 (played)" disabled' in table.page
    table.tap("end_turn").tap("draw:9").tap("plus:3", player="0")
    assert "Refused: Ann has played +3 already: each hand card is played once a match" in table.page


# --- the set in progress survives ----------------------------------------------------------------------

TEN_TAPS = ["draw:3", "end_turn", "draw:4", "end_turn", "draw:2", "end_turn", "draw:5", "end_turn", "draw:1", "stand"]


def kept_in_database(app, match_id: int):
    with app.app_context():
        kept = db.session.get(Match, match_id).round_in_progress
        db.session.remove()
    return kept


def test_ten_taps_survive_a_reload_and_take_back_still_works(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    table = Table(client, match_id, token)
    for move in TEN_TAPS:
        table.tap(move)
    assert table.totals() == ["6", "9"]
    kept = kept_in_database(app, match_id)
    assert kept["number"] == 1 and len(kept["state"]["moves"]) == 10
    reloaded = Table(client, match_id, token)  # the page loaded afresh, as a reload or a visit does
    assert reloaded.totals() == ["6", "9"] and hidden(reloaded.page, "moves") == hidden(table.page, "moves")
    assert "Take back the last tap" in reloaded.page
    reloaded.tap("undo")  # Ann's Stand taken back: her turn again, her 1 still on the table
    assert reloaded.totals() == ["6", "9"] and "Ann to play" in reloaded.page and "is-stood" not in reloaded.page
    reloaded.tap("undo")
    assert reloaded.totals() == ["5", "9"] and "Draw Ann’s card from the main deck" in reloaded.page
    assert len(kept_in_database(app, match_id)["state"]["moves"]) == 8
    assert stored_match(app, match_id).rounds == []


def test_the_phone_that_takes_the_pencil_carries_on_with_the_set(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    Table(client, match_id, token).tap("draw:8").tap("end_turn").tap("draw:6")
    offer = client.post(f"/matches/{ref(match_id)}/pencil/offer", headers={**HTMX, "X-CSRFToken": token})
    code = re.search(r"code=([\w.-]+)", offer.get_data(as_text=True)).group(1)
    other = app.test_client()
    other_token = csrf_token(other, f"/matches/{ref(match_id)}/pencil?code={code}")
    assert (
        other.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": other_token, "code": code}).status_code
        == 302
    )
    table = Table(other, match_id, csrf_token(other, f"/matches/{ref(match_id)}"))
    assert table.totals() == ["8", "6"] and "Bob to play" in table.page
    table.tap("plus:2")
    assert table.totals() == ["8", "8"]


def test_a_tab_showing_an_older_set_is_brought_up_to_date_not_obeyed(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    first, second = Table(client, match_id, token), Table(client, match_id, token)
    first.tap("draw:8").tap("end_turn")
    second.tap("draw:2")  # this tab still shows the empty table
    assert "This set changed on another page or phone" in second.page
    assert second.totals() == ["8", "0"] and "Bob to play" in second.page
    assert [m["type"] for m in kept_in_database(app, match_id)["state"]["moves"]] == ["draw", "end_turn"]
    second.tap("draw:2")  # now up to date, its taps count again
    assert second.totals() == ["8", "2"] and "changed on another page" not in second.page


def test_saving_the_set_or_taking_back_a_set_empties_what_is_kept(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    table = Table(client, match_id, token)
    for move in ["draw:10", "stand", "draw:9", "stand"]:
        table.tap(move)
    assert table.save().status_code == 200 and kept_in_database(app, match_id) is None
    Table(client, match_id, token).tap("draw:4")
    assert kept_in_database(app, match_id)["number"] == 2
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"csrf_token": token}, headers=HTMX)
    assert undone.status_code == 200 and kept_in_database(app, match_id) is None
    page = Table(client, match_id, token)
    assert page.totals() == ["0", "0"] and "Take back the last tap" not in page.page


# --- refusals in the page's language ------------------------------------------------------------------


def refusal_by_the_calculator(page: str) -> str:
    """The refusal shown inside the calculator's own section (not elsewhere on the page)."""
    refusals = read(page).one("section", cls="pazaak-calc").find_all("p", cls="pazaak-refused")
    assert refusals and refusals[0].role == "alert", "no refusal by the calculator"
    return refusals[0].text


def test_the_calculator_refuses_in_italian_on_an_italian_page(client, app):
    client.set_cookie("lang", "it")
    match_id, token = start_match(client, "pazaak", PAIR, **{"hand:Ann": ["+3", "D"]}), csrf_token(client)
    table = Table(client, match_id, token).tap("draw:7").tap("plus:3", player="0")
    before = hidden(table.page, "table")
    table.tap("double", player="0")
    assert refusal_by_the_calculator(table.page) == "Rifiutato: Ann: una sola carta speciale per turno"
    table.tap("end_turn").tap("draw:4").tap("plus:2", player="0")
    assert refusal_by_the_calculator(table.page) == "Rifiutato: È il turno di Bob"
    table.tap("end_turn").tap("draw:2").tap("plus:5", player="0")
    assert refusal_by_the_calculator(table.page) == "Rifiutato: +5 non è nella mano di Ann (+3, D)"
    assert "Refused" not in table.page and "is not in" not in table.page
    assert hidden(table.page, "table") != before  # the taps that were allowed went through
    # Saving a set still in progress is refused next to the calculator too, in Italian.
    response = table.save()
    assert response.status_code == 422
    assert "Il set non è ancora finito: continua a giocare finché non è deciso" in response.get_data(as_text=True)
    assert stored_match(app, match_id).rounds == []


def test_the_calculator_refuses_in_english_starting_with_a_capital(client, app):
    match_id, token = start_match(client, "pazaak", PAIR), csrf_token(client)
    table = Table(client, match_id, token).tap("undo")
    assert refusal_by_the_calculator(table.page) == "Refused: Nothing to take back"
    table.tap("draw:5", player="1")
    assert refusal_by_the_calculator(table.page) == "Refused: It is Ann's turn"
    table.tap("plus:2")
    assert refusal_by_the_calculator(table.page) == "Refused: Ann: draw a main-deck card first"
    assert table.totals() == ["0", "0"]


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        ("en", ['aria-label="Draw 7"', 'aria-label="±5 as +5"', 'aria-label="Tiebreaker as −1"',
                'aria-label="Double"']),
        ("it", ['aria-label="Pesca 7"', 'aria-label="±5 come +5"', 'aria-label="Tiebreaker come −1"',
                'aria-label="Doppio"']),
    ],
)
def test_screen_reader_labels_of_the_calculator_are_in_the_pages_language(client, app, lang, labels):
    choice = {"csrf_token": csrf_token(client, "/preferences"), "theme": "", "lang": lang}
    assert client.post("/preferences", data=choice).status_code == 302
    match_id = start_match(client, "pazaak", PAIR)
    table = Table(client, match_id, csrf_token(client))
    draw, *palette = labels
    assert draw in table.page
    table.tap("draw:4")
    for label in palette:
        assert label in table.page, label
