"""The small faults of a third evening at the table, each as the page's markup shows it to its phone."""

from __future__ import annotations

import re

from tests.helpers import HTMX, csrf_token, finished_match, grant_host_rights, ref, save_round, start_match, take
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the table's small faults as the markup shows them"


def import_forms(page: str) -> list:
    """The history's forms that send a match file to be imported."""
    return [form for form in read(page).find_all("form") if (form.get("action") or "").endswith("/history/import")]


def test_import_is_offered_to_the_hosts_alone_on_a_private_server(two_groups):
    _app, phones, _friday, _club = two_groups
    # Ann started the group (a host); Bob joined it by the invite (a member without host rights).
    host_page = phones["ann"].get("/history").get_data(as_text=True)
    assert import_forms(host_page), "the host's history offers no import"
    member_page = phones["bob"].get("/history").get_data(as_text=True)
    assert not import_forms(member_page), "a member without host rights is offered an import it would be refused"
    assert not read(member_page).by_role("button", "Import")
    # The export stays every member's.
    assert read(member_page).by_role("button", "Download JSON")


def test_import_is_offered_to_the_hosts_alone_on_an_open_server(app, client):
    # On the laptop every phone reads the history, and a phone without host rights is offered no import either.
    assert not import_forms(client.get("/history").get_data(as_text=True))
    assert import_forms(grant_host_rights(client).get("/history").get_data(as_text=True))


def test_a_match_being_played_shows_no_duration_of_0_min(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    assert save_round(client, match_id, {"loser": "Bob"}).status_code == 200
    page = read(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "Duration: 0 min" not in page.visible_text
    assert "Duration" not in page.visible_text, "a match played for under a minute tells no duration yet"


ROUND_WORDS = re.compile(r"\b(rounds?|rows?)\b", re.IGNORECASE)
ITALIAN_ROUND_WORDS = re.compile(r"\b(turn[oi]|righ[ea])\b", re.IGNORECASE)
IT = {"Accept-Language": "it-IT,it;q=0.9"}


def words_of(element) -> str:
    """What a phone's reader meets in an element: its text and the names of its controls."""
    names = [control.name() for role in ("slider", "textbox", "button", "link") for control in element.by_role(role)]
    labels = [label.text for label in element.find_all("label")]
    return " ".join([element.text, *names, *labels])


def test_burraco_seats_speak_of_hands(app, client):
    match_id = start_match(client, "burraco", ["Ann", "Bob", "Cy", "Di"], burraco_mode="pairs",
                           burraco_team1="Noi", burraco_team2="Voi")  # fmt: skip
    ann, cy = app.test_client(), app.test_client()
    assert take(ann, match_id, 0).status_code == 302 and take(cy, match_id, 2).status_code == 302
    hand = {"csrf_token": csrf_token(ann, f"/matches/{ref(match_id)}"), "number": "1", "table_1": "120",
            "hand_1": "0", "clean_1": "1", "dirty_1": "0"}  # fmt: skip
    for language, headers, wrong in (("en", {}, ROUND_WORDS), ("it", IT, ITALIAN_ROUND_WORDS)):
        answer = ann.post(f"/matches/{ref(match_id)}/rows", data=hand, headers={**HTMX, **headers})
        assert answer.status_code == 200
        sent = read(answer.get_data(as_text=True))
        assert not wrong.findall(words_of(sent)), (language, "the seat's answer", words_of(sent))
        seat_page = read(cy.get(f"/matches/{ref(match_id)}", headers=headers).get_data(as_text=True))
        entry = seat_page.by_id("entry")
        assert not wrong.findall(words_of(entry)), (language, "the partner's entry", wrong.findall(words_of(entry)))
        live = read(client.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, **headers}).get_data(as_text=True))
        rows_in = live.one(cls="rows-in") if live.find_all(cls="rows-in") else live
        assert not wrong.findall(rows_in.text), (language, "the scorekeeper's count of hands in", rows_in.text)
    # A hand sent for a hand already saved is refused in the same words.
    form = {"csrf_token": csrf_token(client), "number": "1", "closed_by": "Noi", "table_2": "40", "hand_2": "15"}
    assert client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX).status_code == 200
    late = ann.post(f"/matches/{ref(match_id)}/rows", data=hand, headers=HTMX)
    assert late.status_code == 409
    refusal = read(late.get_data(as_text=True)).one(cls="entry-notice").text
    assert "hand 1" in refusal.lower() and not ROUND_WORDS.findall(refusal), refusal


def test_pazaaks_replay_speaks_of_sets(app, client):
    match_id, _players, _settings, _rounds = finished_match(app, "pazaak")
    for language, headers, wrong in (("en", {}, ROUND_WORDS), ("it", IT, ITALIAN_ROUND_WORDS)):
        page = read(client.get(f"/matches/{ref(match_id)}", headers=headers).get_data(as_text=True))
        replay = page.by_id("replay")
        said = " ".join([words_of(replay), *(field.name() for field in replay.find_all("input"))])
        assert not wrong.findall(said), (language, wrong.findall(said))


def main_deck_keys(page: str) -> list:
    """The buttons of the calculator's main deck, as the page draws them."""
    return read(page).one_by_role("group", "Main deck").by_role("button")


def test_pazaaks_main_deck_keys_are_disabled_once_the_turns_card_is_drawn(app, client):
    from tests.web.test_pazaak_page import Table

    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    table = Table(client, match_id, csrf_token(client))
    keys = main_deck_keys(table.page)
    assert len(keys) == 10 and not any(key.has("disabled") for key in keys), "Ann's draw must be open to her"
    table.tap("draw:7")
    assert all(key.has("disabled") for key in main_deck_keys(table.page)), "a second draw is offered in Ann's turn"
    table.tap("end_turn")
    assert not any(key.has("disabled") for key in main_deck_keys(table.page)), "Bob's draw is closed to him"


ALIKE = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/120 Mobile Safari/537.36"


def seated_phone(app, match_id: int, position: int):
    """A phone of its own, of the table's one make (the same browser and system as the others), at this seat."""
    phone = app.test_client()
    phone.environ_base["HTTP_USER_AGENT"] = ALIKE
    assert take(phone, match_id, position).status_code == 302
    return phone


def send_burraco_hand(phone, match_id: int, side: int, table: str, headers=None):
    """The seated phone sends its pair's hand: the points laid, nothing in hand, no burraco."""
    fields = {"csrf_token": csrf_token(phone, f"/matches/{ref(match_id)}"), "number": "1", f"table_{side}": table,
              f"hand_{side}": "0", f"clean_{side}": "0", f"dirty_{side}": "0"}  # fmt: skip
    return phone.post(f"/matches/{ref(match_id)}/rows", data=fields, headers={**HTMX, **(headers or {})})


def entry_word(page: str) -> str:
    """The word for what the phone's entry shows, which its live poll sends back."""
    [word] = [span["data-entry-shows"] for span in read(page).find_all("span") if span.has("data-entry-shows")]
    return word


def test_a_burraco_partners_phone_shows_the_hand_its_partner_sent(app, client):
    match_id = start_match(client, "burraco", ["Ann", "Bob", "Cy", "Di"], burraco_mode="pairs",
                           burraco_team1="Noi", burraco_team2="Voi")  # fmt: skip
    ann, cy = seated_phone(app, match_id, 0), seated_phone(app, match_id, 2)
    before = cy.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert not read(before).find_all(cls="partner-sent")
    assert send_burraco_hand(ann, match_id, 1, "500").status_code == 200
    # Cy's phone learns it at its next poll (its entry drawn again out of band), and a page opened says it too.
    poll = cy.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "X-Entry-Shows": entry_word(before)})
    assert "Ann sent +500 — sending again replaces it" in read(poll.get_data(as_text=True)).text
    page = read(cy.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    told = page.one(cls="partner-sent")
    assert told.role == "status" and told.text == "Ann sent +500 — sending again replaces it"
    italian = read(cy.get(f"/matches/{ref(match_id)}", headers=IT).get_data(as_text=True))
    assert italian.one(cls="partner-sent").text == "Ann ha inviato +500 — un nuovo invio lo sostituisce"
    # Ann's own phone is not told of its own hand; once Cy sends the pair's hand again, Ann's is told of Cy's.
    assert not read(ann.get(f"/matches/{ref(match_id)}").get_data(as_text=True)).find_all(cls="partner-sent")
    assert send_burraco_hand(cy, match_id, 1, "300+40").status_code == 200
    told = read(ann.get(f"/matches/{ref(match_id)}").get_data(as_text=True)).one(cls="partner-sent")
    assert told.text == "Cy sent +340 — sending again replaces it"


def test_each_seated_phone_is_named_apart_on_the_scorekeepers_sheet(app, client):
    # Four phones of one make at Pazzaparola: each row's "sent from" names its seat beside the browser and system.
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    for position in (0, 1):
        phone = seated_phone(app, match_id, position)
        fields = {"csrf_token": csrf_token(phone, f"/matches/{ref(match_id)}"), "number": "1",
                  f"word-{position}": "", f"used-{position}": ["3"]}  # fmt: skip
        assert phone.post(f"/matches/{ref(match_id)}/rows", data=fields, headers=HTMX).status_code == 200
    page = read(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert [line.text for line in page.find_all(cls="sent-by")] == [
        "sent from Chrome · Android (Ann)", "sent from Chrome · Android (Bob)"]
    # In Burraco's pairs the pair's one hand says which partner's phone sent it.
    burraco = start_match(client, "burraco", ["Ann", "Bob", "Cy", "Di"], burraco_mode="pairs",
                          burraco_team1="Noi", burraco_team2="Voi")  # fmt: skip
    seated_phone(app, burraco, 0)
    assert send_burraco_hand(seated_phone(app, burraco, 2), burraco, 1, "120").status_code == 200
    sheet = read(client.get(f"/matches/{ref(burraco)}").get_data(as_text=True))
    assert sheet.one(cls="sent-by").text == "sent from Chrome · Android (Cy)"


def standings_sides(page: str) -> list[str]:
    """The sides the standings name, as a phone reads them."""
    headers = read(page).by_id("standings").by_role("rowheader")
    return [" ".join(word.text for word in header.find_all(cls="word") if not word.closest(cls="burraco-members"))
            for header in headers]


def test_the_default_burraco_team_names_follow_each_phones_language(app, client):
    # An English phone starts the pairs with the names its form offers; an Italian phone reads them in Italian.
    english = start_match(client, "burraco", ["Ann", "Bob", "Cy", "Di"], burraco_mode="pairs",
                          burraco_team1="Us", burraco_team2="Them")  # fmt: skip
    italian_phone = app.test_client()
    page = italian_phone.get(f"/matches/{ref(english)}", headers=IT).get_data(as_text=True)
    assert standings_sides(page) == ["Noi", "Voi"], standings_sides(page)
    assert standings_sides(client.get(f"/matches/{ref(english)}").get_data(as_text=True)) == ["Us", "Them"]
    # And the other way: the Italian scorekeeper's "Noi" and "Voi" are "Us" and "Them" on an English phone.
    scorekeeper = app.test_client()
    token = csrf_token(scorekeeper, "/matches/new")
    started = scorekeeper.post("/matches/new", headers=IT, data={
        "csrf_token": token, "game": "burraco", "seat": ["Ann", "Bob", "Cy", "Di"], "action": "start",
        "burraco_mode": "pairs", "burraco_team1": "Noi", "burraco_team2": "Voi"})  # fmt: skip
    assert started.status_code == 302
    match_path = started.headers["Location"]
    assert standings_sides(scorekeeper.get(match_path, headers=IT).get_data(as_text=True)) == ["Noi", "Voi"]
    assert standings_sides(app.test_client().get(match_path).get_data(as_text=True)) == ["Us", "Them"]
    # Names of the table's own choosing are its own in every language.
    own = start_match(client, "burraco", ["Ann", "Bob", "Cy", "Di"], burraco_mode="pairs",
                      burraco_team1="Gialli", burraco_team2="Them")  # fmt: skip
    assert standings_sides(italian_phone.get(f"/matches/{ref(own)}", headers=IT).get_data(as_text=True)) == [
        "Gialli", "Voi"]
