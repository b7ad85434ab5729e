"""A club evening through its pages: the host's setup form, the table cards seating phones, the other side's
Confirm on the table's panel, the next turn reaching the phones, the arbiter's decisions, the standings' files."""

from __future__ import annotations

import csv
import html
import io
import re
from collections import Counter

import pytest
from sqlalchemy import event

from companion.config import Settings
from companion.extensions import db
from companion.games.club import scales
from companion.models import Match, Member
from companion.models.club import ClubEntrant, ClubEvening, ClubTable
from companion.pages.club import MOVE_PAUSE_MS, MOVE_SLOTS, move_after_ms
from companion.services import matches
from companion.web import poll_board
from tests.conftest import suite_app
from tests.helpers import (
    HTMX,
    counted,
    csrf_token,
    entry_fields,
    grant_host_rights,
    join_group,
    read_words,
    ref,
    save_round,
    start_group,
    start_match,
    stored_match,
)
from tests.pages import read as read_html

SETUP = {"name": "Friday", "mode": "burraco-pairs", "turns": "2", "hands": "2", "first": "mitchell",
         "then": "danese_modificato", "groups": "1", "scale": "preset", "bye_points": "12", "late_costs": "points",
         "entrants": "Rossi & Bianchi (Arona)\nVerdi & Neri\nGallo & Conti (Arona)\nGreco & Bruno"}  # fmt: skip


def post(client, path: str, fields: dict, **headers):
    """A form's POST as its page sends it (the page's CSRF token; htmx's header where asked)."""
    return client.post(path, data={"csrf_token": csrf_token(client, "/evenings"), **fields}, headers=headers)


def create(client, **changes) -> tuple[int, str]:
    """The host sets up the evening; its id and address."""
    answer = post(client, "/evenings/new", {**SETUP, **changes, "action": "create"}, **HTMX)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    address = answer.headers["HX-Location"].rsplit("/", 1)[1]
    return ref_id(client, address), address


def begun(client, **changes) -> tuple[int, str]:
    """An evening set up through the host's form (`create`) and started: turn 1 drawn."""
    evening_id, address = create(client, **changes)
    assert post(client, f"/evenings/{address}/decide", {"action": "start"}, **HTMX).status_code == 200
    return evening_id, address


def ref_id(client, address: str) -> int:
    with client.application.app_context():
        return db.session.execute(db.select(ClubEvening.id).where(ClubEvening.public_id == address)).scalar_one()


def tables(app, evening_id: int, turn: int) -> list[tuple[int, int, list[int]]]:
    """A turn's tables: number, match id, sides."""
    with app.app_context():
        rows = db.session.scalars(db.select(ClubTable).filter_by(evening_id=evening_id, turn=turn)).all()
        return sorted((t.number, t.match_id, list(t.sides)) for t in rows if t.number)


def play(app, match_id: int, ns: int, ew: int, hands: int = 2) -> int:
    """The table's scorekeeper saves `hands` of the turn's two hands (those left, at most); the match's version."""
    hand = {"sides": {"N/S": {"table": ns, "hand": 0}, "E/W": {"table": ew, "hand": 0}}, "closed_by": None}
    with app.app_context():
        match = db.session.get(Match, match_id)
        for _ in range(min(hands, 2 - len(match.rounds))):
            matches.save_round(match, hand)
        return match.version


def confirm_on(client, match_id: int):
    """The phone confirms its table as its panel's Confirm does: the result the panel shows; the answer."""
    panel = client.get(f"/evenings/table/{ref(match_id)}", headers=HTMX).get_data(as_text=True)
    shown = re.search(r'name="result" value="([^"]*)"', panel)[1]
    return post(client, f"/evenings/table/{ref(match_id)}/confirm", {"action": "confirm", "result": shown}, **HTMX)


def card_path(client, number: int) -> str:
    """Table `number`'s card as the cards page prints it."""
    page = client.get("/evenings/cards").get_data(as_text=True)
    return re.search(rf'href="https?://[^/"]+(/evenings/card/[^/"]+/{number})"', page)[1]


def sat_by_card(app, host, number: int, seat: str):
    """A new phone that scanned table `number`'s card and took the seat at `seat` ("0": the first N/S player)."""
    phone = app.test_client()
    assert post(phone, card_path(host, number), {"seat": seat, "action": "sit"}).status_code == 302
    return phone


@pytest.fixture
def host(client):
    return grant_host_rights(client)


def test_a_bad_setup_is_refused_beside_its_field_and_nothing_is_stored(app, host):
    # A fresh form marks no field as checked (Pico draws aria-invalid="false" green, with a tick).
    assert "aria-invalid" not in host.get("/evenings/new").get_data(as_text=True)
    answer = post(host, "/evenings/new", {**SETUP, "turns": "4", "then": "mitchell", "action": "create"}, **HTMX)
    assert answer.status_code == 422
    assert "A Mitchell of 4 entrants holds at most 2 turns" in html.unescape(answer.get_data(as_text=True))
    answer = post(host, "/evenings/new", {**SETUP, "entrants": "Rossi & Bianchi\nSolo", "action": "create"}, **HTMX)
    text = html.unescape(answer.get_data(as_text=True))
    assert answer.status_code == 422 and "Entrant 2: A pair is two players" in text
    # What was typed stays in the form.
    assert "Rossi &amp; Bianchi\nSolo" in answer.get_data(as_text=True)
    # A name longer than the form lets a phone type is refused beside its field.
    answer = post(host, "/evenings/new", {**SETUP, "name": "N" * 41, "action": "create"}, **HTMX)
    assert answer.status_code == 422 and 'id="name-error"' in answer.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(ClubEvening).count() == 0


def test_a_member_without_host_rights_may_not_set_up_an_evening(client):
    answer = post(client, "/evenings/new", {**SETUP, "action": "create"}, **HTMX)
    assert answer.status_code == 403


def test_an_evening_from_the_setup_to_its_standings_through_the_phones(app, host):
    evening_id, address = create(host)
    page = read_words(host.get(f"/evenings/{address}").get_data(as_text=True))
    assert "Entrants (4)" in page and "Start turn 1" in page and "in pairs · 2 turns × 2 hands" in page
    assert post(host, f"/evenings/{address}/decide", {"action": "start"}, **HTMX).status_code == 200
    first = tables(app, evening_id, 1)
    assert len(first) == 2
    # Each table's phones scan its card: N/S's first phone holds the pencil, E/W's phone sits down.
    phones = {}
    for number, match_id, _sides in first:
        path = card_path(host, number)
        ns, ew = app.test_client(), app.test_client()
        card = read_words(ns.get(path).get_data(as_text=True))
        assert f"Table {number}" in card and "Take my seat" in card
        with app.app_context():
            seats = db.session.get(Match, match_id).seats
        assert post(ns, path, {"seat": "0", "action": "sit"}).status_code == 302
        assert post(ew, path, {"seat": "1", "action": "sit"}).status_code == 302
        phones[number] = (ns, ew)
        assert seats[0].name in read_words(ns.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
        # The N/S phone holds the pencil: its page has the entry's Save; the E/W phone's has none.
        assert "Save hand" in ns.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
        assert "Save hand" not in ew.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    # Table 1 plays its hands; its panel offers E/W the Confirm, and N/S waits for it.
    number, match_id, sides = first[0]
    play(app, match_id, 400, 100)
    ns, ew = phones[number]
    # The evening draws the next match: the finished table offers no Play again, even to its pencil.
    finished = ns.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "Play again" not in read_words(finished)
    # Nor does its page ask every second whether the match was played again: the panel sends the phone on.
    assert f"/matches/{ref(match_id)}/followed" not in finished
    answer = ew.get(f"/evenings/table/{ref(match_id)}", headers=HTMX)
    assert "Confirm: N/S 800 – E/W 200" in read_html(answer.get_data(as_text=True)).text
    # The panel's poll is the table page's only one: its answer names the match's version, and the page's live block
    # waits to be asked for (club.js) once that is newer than the version it shows, rather than polling itself.
    with app.app_context():
        assert answer.headers["X-Match-Version"] == str(db.session.get(Match, match_id).version)
    assert 'hx-trigger="live-check"' in finished and 'hx-trigger="every 1s"' not in finished
    # Polled again with the tag it shows, the panel is unchanged (304) until the table moves (its confirmation).
    unchanged = {**HTMX, "If-None-Match": answer.headers["ETag"]}
    assert ew.get(f"/evenings/table/{ref(match_id)}", headers=unchanged).status_code == 304
    assert "Waiting for E/W to confirm" in read_words(ns.get(f"/evenings/table/{ref(match_id)}").get_data(as_text=True))
    refused = post(ns, f"/evenings/table/{ref(match_id)}/confirm", {"action": "confirm", "result": "800 200"}, **HTMX)
    assert refused.status_code == 403 and "The other side confirms this result" in html.unescape(
        refused.get_data(as_text=True)
    )
    other = phones[first[1][0]][0]
    other_path = f"/evenings/table/{ref(first[1][1])}"
    other_tag = {**HTMX, "If-None-Match": other.get(other_path, headers=HTMX).headers["ETag"]}
    assert confirm_on(ew, match_id).status_code == 200
    counted = ew.get(f"/evenings/table/{ref(match_id)}", headers=unchanged)
    assert counted.status_code == 200 and "Waiting for the other tables" in read_words(counted.get_data(as_text=True))
    assert "Counted: N/S 800 – E/W 200" in read_html(counted.get_data(as_text=True)).text
    counted_path, counted_phone = f"/evenings/table/{ref(match_id)}", ew
    counted_tag = {**HTMX, "If-None-Match": counted.headers["ETag"]}
    # Another table's panel, still playing, is unchanged by this confirmation (400 phones of a hall ask it).
    assert other.get(other_path, headers=other_tag).status_code == 304
    arbiter = read_words(host.get(f"/evenings/{address}").get_data(as_text=True))
    assert "1 of 2 tables counted" in arbiter and "Table 1 confirmed: 800–200" in arbiter
    # Table 2's E/W calls the arbiter; the arbiter settles it: the last table counted draws turn 2.
    number, match_id, _sides = first[1]
    play(app, match_id, 100, 100)
    ns, ew = phones[number]
    disputed = post(ew, f"/evenings/table/{ref(match_id)}/confirm", {"action": "dispute", "note": "hand 2 was 150"},
                    **HTMX)  # fmt: skip
    assert disputed.status_code == 200 and "The arbiter is called" in read_words(disputed.get_data(as_text=True))
    # Called already: the panel offers no second call.
    assert "Arbiter, please" not in read_words(disputed.get_data(as_text=True))
    # The counted table's panel is unchanged by the other table's moves (a hall's 100 tables would redraw it at
    # every confirmation).
    assert counted_phone.get(counted_path, headers=counted_tag).status_code == 304
    # The arbiter's table card says why.
    assert "The table says: “hand 2 was 150”" in read_words(host.get(f"/evenings/{address}").get_data(as_text=True))
    settled = post(host, f"/evenings/{address}/decide",
                   {"action": "settle", "turn": "1", "table": "2", "points": ["200", "250"], "note": "hand 2"},
                   **HTMX)  # fmt: skip
    assert settled.status_code == 200, re.findall(r"role=\"alert\">([^<]*)", settled.get_data(as_text=True))
    second = tables(app, evening_id, 2)
    assert len(second) == 2
    # Its phones read whose result counts: the arbiter's, not the match's totals shown under the panel.
    assert "Counted by the arbiter: N/S 200 – E/W 250" in read_html(
        ew.get(f"/evenings/table/{ref(match_id)}", headers=HTMX).get_data(as_text=True)
    ).text
    # Every phone's panel takes it to its next table, the N/S phones with their pencil.
    moves_after: dict[int, int] = {}
    for number, (ns, ew) in phones.items():
        old_match = next(m for n, m, _ in first if n == number)
        for phone in (ns, ew):
            # The poll (a read) shows where the phone sits now; its form, sent by itself, takes the phone there.
            drawn = phone.get(f"/evenings/table/{ref(old_match)}", headers=HTMX).get_data(as_text=True)
            shown = read_words(drawn)
            assert "Turn 2: table" in shown and "against" in shown
            # It goes by itself after a pause to read it (below), or at once at the tap.
            table = int(re.search(r"Turn 2: table (\d+)", shown)[1])
            moves_after[table] = int(re.search(r'hx-trigger="load delay:(\d+)ms, submit"', drawn)[1])
            moved = post(phone, f"/evenings/table/{ref(old_match)}/next", {}, **HTMX)
            # The answer is the new table's match page, drawn in place of this one at its address.
            new_match = int(next(m for _, m, _ in second if ref(m) == moved.headers["HX-Push-Url"].rsplit("/", 1)[1]))
            assert moved.status_code == 200 and moved.headers["HX-Retarget"] == "body"
            assert 'id="club-table"' in moved.get_data(as_text=True) and ref(new_match) in moved.get_data(as_text=True)
            # At N/S it is drawn as the pencil's page: the hand's entry saves there.
            saves = f'hx-post="/matches/{ref(new_match)}/rounds"' in moved.get_data(as_text=True)
            assert saves == (phone is ns)
            assert phone.get(f"/matches/{ref(new_match)}").status_code == 200
    # Table 1's phones go after the pause alone, table 2's a little later.
    assert moves_after[1] == MOVE_PAUSE_MS < moves_after[2]
    # The arbiter corrects a result of turn 1 from turn 2's page: the standings change, turn 2's tables stay.
    arbiter = read_words(host.get(f"/evenings/{address}").get_data(as_text=True))
    assert "Correct a result of an earlier turn" in arbiter
    corrected = post(host, f"/evenings/{address}/decide",
                     {"action": "settle", "turn": "1", "table": "2", "points": ["200", "200"], "note": "recount"},
                     **HTMX)  # fmt: skip
    assert corrected.status_code == 200 and tables(app, evening_id, 2) == second
    assert "The arbiter corrected table 2 from 200–250 to 200–200" in read_words(corrected.get_data(as_text=True))
    # 800–200 over two hands, by the preset for two hands; the settled table's 200–250 within the even band.
    winner, _loser = scales.preset(2).convert((800, 200))
    standings = read_words(host.get(f"/evenings/{address}/standings").get_data(as_text=True))
    assert f"1. Rossi – Bianchi Arona {winner} TP · +600" in standings or f"{winner} TP · +600" in standings
    rows = list(csv.DictReader(io.StringIO(host.get(f"/evenings/{address}/standings.csv").get_data(as_text=True))))
    assert rows[0]["place"] == "1" and rows[0]["tournament_points"] == str(winner) and rows[0]["difference"] == "600"
    document = host.get(f"/evenings/{address}/standings.json").get_json()
    assert document["standings"][0]["path"][0]["how"] == "played"


def test_a_card_of_a_table_the_turn_does_not_have_says_so(app, host):
    _evening_id, address = create(host)
    post(host, f"/evenings/{address}/decide", {"action": "start"}, **HTMX)
    answer = host.get(card_path(host, 9))
    assert answer.status_code == 404 and "Table 9 has no match in this turn" in read_words(
        answer.get_data(as_text=True)
    )
    # Renewed cards: the old one opens nothing.
    old = card_path(host, 1)
    post(host, "/evenings/cards/renew", {})
    assert host.get(old).status_code == 404 and card_path(host, 1) != old


def test_on_a_private_server_a_card_lets_a_phone_outside_the_group_into_its_table_and_the_standings_alone(private_app):
    host = private_app.test_client()
    start_group(host, "Circolo")
    other_match = start_match(host, "topic", ["Ann", "Bob"])
    evening_id, address = create(host)
    post(host, f"/evenings/{address}/decide", {"action": "start"}, **HTMX)
    number, match_id, _sides = tables(private_app, evening_id, 1)[0]
    stranger = private_app.test_client()
    path = card_path(host, number)
    assert stranger.get(path).status_code == 200
    assert post(stranger, path, {"seat": "1", "action": "sit"}).status_code == 302
    assert stranger.get(f"/matches/{ref(match_id)}").status_code == 200
    assert stranger.get(f"/evenings/{address}/standings").status_code == 200
    # Nothing else of the group: its history, another match, the arbiter's page, the cards.
    for elsewhere in (
        "/history",
        f"/matches/{ref(other_match)}",
        f"/evenings/{address}",
        "/evenings/cards",
        "/evenings",
    ):
        assert stranger.get(elsewhere).status_code == 404, elsewhere
    # A made-up card key opens nothing.
    assert private_app.test_client().get(path.replace(path.split("/")[3], "x" * 22)).status_code == 404


def test_on_a_private_server_the_n_s_phone_a_card_seated_scores_its_table_and_the_e_w_phone_may_not(private_app):
    host = private_app.test_client()
    start_group(host, "Circolo")
    evening_id, address = create(host)
    post(host, f"/evenings/{address}/decide", {"action": "start"}, **HTMX)
    number, match_id, _sides = tables(private_app, evening_id, 1)[0]
    path = card_path(host, number)
    north_south, east_west = private_app.test_client(), private_app.test_client()
    for phone, seat in ((north_south, "0"), (east_west, "1")):
        assert post(phone, path, {"seat": seat, "action": "sit"}).status_code == 302
    hand = {"sides": {"N/S": {"table": 120, "hand": 0}, "E/W": {"table": 70, "hand": 0}}, "closed_by": None}
    fields = entry_fields(private_app, match_id, hand)
    # Neither phone is of the group: the card gave N/S the pencil (it was refused as an unknown match before);
    # E/W's phone follows the table but holds no pencil: the rounds' address is not there for it, as for a viewer.
    assert save_round(east_west, match_id, fields).status_code == 404
    assert len(stored_match(private_app, match_id).rounds) == 0
    assert save_round(north_south, match_id, fields).status_code == 200
    assert len(stored_match(private_app, match_id).rounds) == 1


def test_a_phone_the_host_removes_from_the_group_leaves_its_tables_pencil_to_its_partner(private_app):
    # The removed member's phone kept the table's pencil: its N/S partner, sitting down, was not given it.
    host = private_app.test_client()
    invite = start_group(host, "Circolo")
    evening_id, address = create(host)
    post(host, f"/evenings/{address}/decide", {"action": "start"}, **HTMX)
    number, match_id, _sides = tables(private_app, evening_id, 1)[0]
    path = card_path(host, number)
    member, partner = private_app.test_client(), private_app.test_client()
    assert join_group(member, invite).status_code == 302
    assert post(member, path, {"seat": "0", "action": "sit"}).status_code == 302
    with private_app.app_context():
        member_id = db.session.scalar(db.select(Member.id).where(Member.host.is_(False)))
        db.session.remove()
    remove = f"/groups/phones/{ref(member_id, 'member')}/remove"
    assert host.post(remove, data={"csrf_token": csrf_token(host, "/groups")}).status_code == 302
    assert post(partner, path, {"seat": "2", "action": "sit"}).status_code == 302
    hand = {"sides": {"N/S": {"table": 120, "hand": 0}, "E/W": {"table": 70, "hand": 0}}, "closed_by": None}
    fields = entry_fields(private_app, match_id, hand)
    assert save_round(member, match_id, fields).status_code in (403, 404)
    assert save_round(partner, match_id, fields).status_code == 200


def test_an_unchanged_panel_poll_is_answered_before_flask_in_one_statement_or_none(tmp_path, database_url, monkeypatch):
    # A hall's 400 phones ask their panel every second: the 304 is given by the unchanged-poll middleware, from one
    # read of every polled panel, which stands for the others within FRESH_FOR (the clock stands still here).
    monkeypatch.setattr(poll_board.time, "monotonic", lambda: 1000.0)
    app = suite_app(database_url, tmp_path / "instance", Settings(count_queries=True))
    host = grant_host_rights(app.test_client())
    evening_id, address = begun(host)
    number, match_id, _sides = tables(app, evening_id, 1)[0]
    phone = app.test_client()
    assert post(phone, card_path(host, number), {"seat": "1", "action": "sit"}).status_code == 302
    panel = f"/evenings/table/{ref(match_id)}"
    drawn = phone.get(panel, headers=HTMX)
    assert drawn.status_code == 200 and "Arbiter, please" in drawn.get_data(as_text=True)
    assert "you are E/W, against Rossi – Bianchi" in drawn.get_data(as_text=True)
    # Drawn by Flask: its table, evening and match read in one statement, which its tag is worked out from too (8
    # statements when the tag was a read of its own and the table's match two more).
    assert int(drawn.headers["X-Queries"]) <= 6, drawn.headers["X-Queries"]
    unchanged = phone.get(panel, headers={**HTMX, "If-None-Match": drawn.headers["ETag"]})
    assert unchanged.status_code == 304 and unchanged.headers["X-Queries"] == "1"
    assert unchanged.headers["ETag"] == drawn.headers["ETag"] and "X-Server-Time" in unchanged.headers
    # The phone switches to Italian: the same turn is another panel, drawn in its language, then unchanged again.
    phone.set_cookie("lang", "it")
    italian = phone.get(panel, headers={**HTMX, "If-None-Match": drawn.headers["ETag"]})
    assert italian.status_code == 200 and "Arbitro, per favore" in italian.get_data(as_text=True)
    # Its side in Italian words: Est/Ovest.
    assert "sei E/O, contro Rossi – Bianchi" in italian.get_data(as_text=True)
    match_page = phone.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert '<span class="word">E/O</span>' in match_page and '<span class="word">E/W</span>' not in match_page
    assert 'title="E/O"' in match_page and 'title="E/W"' not in match_page
    again = phone.get(panel, headers={**HTMX, "If-None-Match": italian.headers["ETag"]})
    assert again.status_code == 304 and again.headers["X-Queries"] == "0"
    phone.set_cookie("lang", "en")
    # A hand saved while the table plays leaves the panel as it was (each save redrew its table's 4 panels), and the
    # 304 names the match's new version, at which the page asks for its standings (club.js).
    version = play(app, match_id, 400, 100, hands=1)
    played = phone.get(panel, headers={**HTMX, "If-None-Match": drawn.headers["ETag"]})
    assert played.status_code == 304 and played.headers["X-Match-Version"] == str(version)
    assert int(drawn.headers["X-Match-Version"]) < version
    # The last hand moves it (the result to confirm): drawn again, by Flask, naming the version too.
    version = play(app, match_id, 400, 100)
    finished = phone.get(panel, headers={**HTMX, "If-None-Match": drawn.headers["ETag"]})
    assert finished.status_code == 200 and finished.headers["X-Match-Version"] == str(version)
    assert "Confirm: N/S 800 – E/W 200" in read_html(finished.get_data(as_text=True)).text


def test_a_hand_is_saved_in_one_transaction_and_the_phones_polls_read_outside_one(app, host):
    # A hall's 400 phones poll every second: on PostgreSQL a poll's BEGIN and ROLLBACK were two more round trips to
    # the database, each holding the worker's other requests (docs/performance.md). A save stays whole.
    evening_id, address = begun(host)
    number, match_id, _sides = tables(app, evening_id, 1)[0]
    north_south, east_west = app.test_client(), app.test_client()
    for phone, seat in ((north_south, "0"), (east_west, "1")):
        assert post(phone, card_path(host, number), {"seat": seat, "action": "sit"}).status_code == 302
    panel, live = f"/evenings/table/{ref(match_id)}", f"/matches/{ref(match_id)}/live"
    shown = {path: east_west.get(path, headers=HTMX).headers["ETag"] for path in (panel, live)}
    hand = {"sides": {"N/S": {"table": 300, "hand": 0}, "E/W": {"table": 150, "hand": 0}}, "closed_by": None}
    fields, token = entry_fields(app, match_id, hand), csrf_token(north_south, f"/matches/{ref(match_id)}")
    with app.app_context():
        engine = db.engine
    commits: list[int] = []

    def committed(_connection) -> None:
        commits.append(hand_number)

    event.listen(engine, "commit", committed)
    try:
        with counted(app, in_transactions=True) as saved:
            for hand_number in (1, 2):
                assert save_round(north_south, match_id, fields, number=hand_number, csrf=token).status_code == 200
    finally:
        event.remove(engine, "commit", committed)
    writes = [inside for statement, inside in saved if statement.lstrip().upper().startswith(("INSERT", "UPDATE"))]
    # Each hand's writes inside a transaction, and each hand one commit: a save is not split in two.
    assert len(writes) >= 4 and all(writes) and commits == [1, 2], (saved, commits)
    # The turn's hands are in: E/W's polls find the result to confirm, drawn by Flask from a few reads.
    with counted(app, in_transactions=True) as polled:
        drawn = {path: east_west.get(path, headers={**HTMX, "If-None-Match": shown[path]}) for path in (panel, live)}
    assert "Confirm: N/S 600 – E/W 300" in read_html(drawn[panel].get_data(as_text=True)).text
    assert drawn[live].status_code == 200 and drawn[live].headers["ETag"] != shown[live]
    assert len(polled) >= 3 and not any(inside for _statement, inside in polled), polled


def test_a_tables_panel_reads_its_own_match_alone_not_every_match_of_the_hall(app, host):
    # At a turn's close 400 phones draw their panel: each read every match's totals of the evening before.
    evening_id, address = begun(host)
    (number, mine, _), (_, other, _) = tables(app, evening_id, 1)
    phone = app.test_client()
    assert post(phone, card_path(host, number), {"seat": "1", "action": "sit"}).status_code == 302
    play(app, mine, 400, 100)
    play(app, other, 300, 200)
    read: list[tuple] = []

    def seen(_conn, _cursor, statement, parameters, _context, _many):
        if "summary" in statement:
            # SQLite's driver is given a tuple of values, PostgreSQL's a dict of named ones.
            read.append(tuple(parameters.values() if isinstance(parameters, dict) else parameters or ()))

    with app.app_context():
        engine = db.engine
    db.event.listen(engine, "before_cursor_execute", seen)
    try:
        drawn = phone.get(f"/evenings/table/{ref(mine)}", headers=HTMX)
    finally:
        db.event.remove(engine, "before_cursor_execute", seen)
    assert drawn.status_code == 200 and "Confirm: N/S 800 – E/W 200" in read_html(drawn.get_data(as_text=True)).text
    assert read and all(other not in parameters for parameters in read), read
    assert any(mine in parameters for parameters in read), read


def test_the_standings_are_worked_out_once_for_every_page_of_a_version_and_again_after_a_confirmation(
    app, host, monkeypatch
):
    # At a turn's close every phone of a hall draws its counted table's panel, with the whole evening's standings.
    from companion.queries import club as read

    evening_id, address = begun(host)
    (first_number, first, _), (second_number, second, _) = tables(app, evening_id, 1)
    phones = [app.test_client(), app.test_client()]
    for phone, number in zip(phones, (first_number, second_number), strict=True):
        assert post(phone, card_path(host, number), {"seat": "1", "action": "sit"}).status_code == 302
    play(app, first, 400, 100)
    play(app, second, 300, 200)
    worked_out = []
    standings = read.standings
    monkeypatch.setattr(read, "standings", lambda evening: worked_out.append(evening.version) or standings(evening))

    def points_for() -> list[int]:
        lines = host.get(f"/evenings/{address}/standings.json").get_json()["standings"]
        return sorted(line["path"][0]["points_for"] for line in lines)

    assert confirm_on(phones[0], first).status_code == 200
    confirmed = len(worked_out)  # the service's own check of the write, and its answer's panel
    assert points_for() == [0, 0, 200, 800]
    for phone, panel in ((phones[0], first), (phones[1], second), (phones[0], first)):
        assert phone.get(f"/evenings/table/{ref(panel)}", headers=HTMX).status_code == 200
    assert host.get(f"/evenings/{address}").status_code == 200
    assert len(worked_out) - confirmed <= 1, worked_out
    # The second table's confirmation moves the evening: its standings are worked out again, with that table.
    assert confirm_on(phones[1], second).status_code == 200
    assert points_for() == [200, 400, 600, 800]


def test_a_phones_panel_after_the_turns_close_reads_its_own_tables_and_pairs_not_the_halls(app, host):
    # At a turn's close each of a hall's 400 phones draws its panel: each read all 200 pairs and all 300 tables.
    pairs = ["Rossi & Bianchi", "Verdi & Neri", "Gallo & Conti", "Greco & Bruno", "Costa & Fontana",
             "Moretti & Rizzo", "Marino & Ferrari", "Romano & Colombo"]  # fmt: skip
    evening_id, address = create(host, entrants="\n".join(pairs))
    assert post(host, f"/evenings/{address}/decide", {"action": "start"}, **HTMX).status_code == 200
    first = tables(app, evening_id, 1)
    number, mine, _sides = first[0]
    phone = app.test_client()
    assert post(phone, card_path(host, number), {"seat": "0", "action": "sit"}).status_code == 302
    for table, _match, _ in first:
        settled = post(host, f"/evenings/{address}/decide",
                       {"action": "settle", "turn": "1", "table": str(table), "points": ["300", "200"], "note": ""},
                       **HTMX)  # fmt: skip
        assert settled.status_code == 200
    assert len(tables(app, evening_id, 2)) == 4
    loaded: dict[type, int] = {ClubEntrant: 0, ClubTable: 0, ClubEvening: 0, Match: 0}

    def count(target, _context) -> None:
        loaded[type(target)] += 1

    for kind in loaded:
        db.event.listen(kind, "load", count)
    try:
        with counted(app) as statements:
            drawn = phone.get(f"/evenings/table/{ref(mine)}", headers=HTMX)
        drawn_loaded = dict(loaded)
        token = csrf_token(phone, "/evenings")
        loaded.update(dict.fromkeys(loaded, 0))
        # Then its form takes it there: at N/S, with the table's pencil.
        with counted(app) as moved_statements:
            moved = phone.post(f"/evenings/table/{ref(mine)}/next", data={"csrf_token": token}, headers=HTMX)
    finally:
        for kind in loaded:
            db.event.remove(kind, "load", count)
    assert drawn.status_code == 200 and "Turn 2: table" in read_words(drawn.get_data(as_text=True))
    # Its tables of turn 1 and of turn 2, its pair and the two it meets there: not the evening's 8 pairs and 8 tables;
    # the evening and each table's match read once, kept by their table for the page.
    assert drawn_loaded == {ClubEntrant: 3, ClubTable: 2, ClubEvening: 1, Match: 2}, drawn_loaded
    # In four statements: the address, its table with the evening, the match and its seats (the side this phone
    # sits for), the phone's next table, and the pairs of both tables (six, when the seats and each table's pairs
    # were statements of their own).
    assert len(statements) == 4, statements
    assert moved.status_code == 200 and "/matches/" in moved.headers["HX-Push-Url"]
    assert any(cookie.startswith(("pencil", "__Host-pencil")) for cookie in moved.headers.getlist("Set-Cookie"))
    # Its tables of turn 1 and 2 and the pairs it meets there, the pencil given by the pairs' players alone.
    assert loaded == {ClubEntrant: 2, ClubTable: 2, ClubEvening: 1, Match: 2}, loaded
    # The new match and its evening came with the phone's seating at its next table, and its page reads neither again:
    # the address, the table left with its evening, match and seats, the seating, its pairs, the new match's seats, the
    # pencil's side (its pairs), its version, its rounds, the pencil given (two UPDATEs), the sent rows, the chances,
    # the phone's membership (15, when the page read the match and its evening's table again).
    assert len(moved_statements) == 13, [" ".join(statement.split())[:80] for statement in moved_statements]


def test_a_counted_tables_panel_shows_the_arbiters_correction_at_its_next_poll(app, host):
    evening_id, address = begun(host)
    (number, match_id, _), _other = tables(app, evening_id, 1)
    ew = sat_by_card(app, host, number, "1")
    play(app, match_id, 400, 100)
    assert confirm_on(ew, match_id).status_code == 200
    path = f"/evenings/table/{ref(match_id)}"
    shown = {**HTMX, "If-None-Match": ew.get(path, headers=HTMX).headers["ETag"]}
    assert ew.get(path, headers=shown).status_code == 304
    corrected = post(host, f"/evenings/{address}/decide",
                     {"action": "settle", "turn": "1", "table": str(number), "points": ["700", "300"], "note": ""},
                     **HTMX)  # fmt: skip
    assert corrected.status_code == 200
    # The table stays counted, and its phones were told 304 with the old points until the turn moved: the panel's tag
    # names when its result was counted.
    polled = ew.get(path, headers=shown)
    assert polled.status_code == 200
    assert "Counted by the arbiter: N/S 700 – E/W 300" in read_html(polled.get_data(as_text=True)).text


def test_a_halls_phones_go_to_their_next_tables_in_turns_over_half_a_minute_at_most():
    # 400 tables' 1,600 phones: each table a little after the one before, table 101 with table 1 again, so that
    # no phone waits much more than half a minute for its new page and no moment sends more than 4 tables' phones.
    after = [move_after_ms(number) for number in range(1, 401)]
    assert after[0] == MOVE_PAUSE_MS and after[1] > after[0] and after[MOVE_SLOTS] == after[0]
    assert max(after) <= MOVE_PAUSE_MS + 30_000
    assert max(Counter(after).values()) == 4


def test_the_table_cards_point_phones_at_the_laptops_address_and_are_as_many_as_the_evenings_tables(
    app, host, monkeypatch
):
    _evening_id, address = create(host)
    # The arbiter's link asks for the evening's tables: 4 pairs, 2 tables.
    assert "/evenings/cards?tables=2" in host.get(f"/evenings/{address}").get_data(as_text=True)
    # Opened on the laptop itself (localhost), the cards name its address on the network, which the phones reach.
    monkeypatch.setattr("companion.web.network.lan_addresses", lambda: ["192.168.1.20"])
    page = host.get("/evenings/cards?tables=30").get_data(as_text=True)
    links = re.findall(r'href="(https?://[^"]+/evenings/card/[^"]+)"', page)
    assert len(links) == 30 and all(link.startswith("http://192.168.1.20/evenings/card/") for link in links)
    assert "<option selected>30</option>" in page


def test_an_e_w_phone_that_scans_its_card_once_the_hands_are_played_sits_to_confirm_and_not_once_counted(app, host):
    evening_id, _address = begun(host)
    (number, match_id, _), _second = tables(app, evening_id, 1)
    sat_by_card(app, host, number, "0")
    play(app, match_id, 300, 100)
    # E/W's phone comes out only now, asked to confirm: it takes its seat, and confirms.
    ew = sat_by_card(app, host, number, "1")
    assert confirm_on(ew, match_id).status_code == 200
    with app.app_context():
        assert db.session.scalars(db.select(ClubTable).filter_by(match_id=match_id)).one().state == "confirmed"
    # A table whose result counts takes no more phones.
    late = app.test_client()
    refused = post(late, card_path(host, number), {"seat": "2", "action": "sit"})
    assert refused.status_code == 403 and "no longer played" in html.unescape(refused.get_data(as_text=True))


def test_a_negative_score_reads_with_a_minus_sign_in_the_standings_and_the_log(app, host):
    evening_id, address = begun(host)
    (number, _match, _), _second = tables(app, evening_id, 1)
    settle = {"action": "settle", "turn": "1", "table": str(number), "points": ["-500", "120"], "note": ""}
    assert post(host, f"/evenings/{address}/decide", settle, **HTMX).status_code == 200
    standings = html.unescape(host.get(f"/evenings/{address}/standings").get_data(as_text=True))
    assert "−500–120" in standings and "120–−500" in standings and "–-" not in standings
    assert "−500–120" in html.unescape(host.get(f"/evenings/{address}").get_data(as_text=True))
