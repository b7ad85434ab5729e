"""A club evening against wrong and late writes: each refused with its reason and nothing stored, the evening intact."""

from __future__ import annotations

import html
import re

import pytest

from companion.extensions import db
from companion.games.refusals import NotAllowed
from companion.models import Match
from companion.models.club import ClubEntrant, ClubEvening, ClubLog, ClubTable
from companion.services import matches
from tests.helpers import HTMX, entry_fields, grant_host_rights, ref, stored_match
from tests.pages import read as read_html
from tests.web.test_club_pages import SETUP, begun, card_path, confirm_on, create, play, post, tables

HAND = {"sides": {"N/S": {"table": 0, "hand": 0}, "E/W": {"table": 900, "hand": 0}}, "closed_by": None}


@pytest.fixture
def host(client):
    return grant_host_rights(client)


def logged(app, evening_id: int) -> list[str]:
    """The evening's log, its actions in order."""
    with app.app_context():
        rows = db.session.scalars(db.select(ClubLog).filter_by(evening_id=evening_id).order_by(ClubLog.id)).all()
        return [row.action for row in rows]


def seated(app, host, number: int):
    """Table `number`'s N/S phone (with the pencil) and E/W phone, seated by its card."""
    ns, ew = app.test_client(), app.test_client()
    assert post(ns, card_path(host, number), {"seat": "0", "action": "sit"}).status_code == 302
    assert post(ew, card_path(host, number), {"seat": "1", "action": "sit"}).status_code == 302
    return ns, ew


def text_of(answer) -> str:
    return html.unescape(answer.get_data(as_text=True))


def words_of(answer) -> str:
    """The words a page or panel shows, its markup left out."""
    return read_html(answer.get_data(as_text=True)).text


def test_an_evening_over_takes_no_more_decisions_and_its_pages_stay_open(app, host):
    evening_id, address = create(host, first="danese", then="danese", turns="1")
    decide = f"/evenings/{address}/decide"
    # Closing a turn, marking lateness or a forfeit before the start: refused, no turn drawn.
    for action in ({"action": "close"}, {"action": "late", "entrant": "1", "penalty": "10"}):
        refused = post(host, decide, action, **HTMX)
        assert refused.status_code == 403 and "This evening has not begun" in text_of(refused)
    assert tables(app, evening_id, 1) == [] and logged(app, evening_id) == ["create"]
    assert post(host, decide, {"action": "start"}, **HTMX).status_code == 200
    (number, match_id, _), _second = tables(app, evening_id, 1)
    _ns, ew = seated(app, host, number)
    assert post(host, decide, {"action": "close", "turn": "1", "note": "time"}, **HTMX).status_code == 200
    done = logged(app, evening_id)
    assert done.count("over") == 1
    # Once over: a forfeit (which left every page of the evening refusing with the closing's message), lateness, a
    # second closing, a withdrawal: each refused beside the arbiter's form, nothing logged; and a table's call.
    for action in ({"action": "forfeit", "entrant": "1"}, {"action": "late", "entrant": "1", "penalty": "10"},
                   {"action": "close"}, {"action": "withdraw", "entrant": "1"}):  # fmt: skip
        refused = post(host, decide, action, **HTMX)
        assert refused.status_code == 403 and "This evening is over" in text_of(refused), action
    called = post(ew, f"/evenings/table/{ref(match_id)}/call", {"action": "call", "note": "still here"}, **HTMX)
    assert called.status_code == 403 and "This evening is over" in text_of(called)
    assert logged(app, evening_id) == done
    for path in ("", "/live", "/standings", "/standings.csv", "/hall", "/podium.png"):
        assert host.get(f"/evenings/{address}{path}").status_code == 200, path


def test_a_counted_tables_match_takes_no_more_writes_and_its_page_offers_none(app, host):
    evening_id, address = begun(host)
    (number, match_id, _), (_, other_match, _) = tables(app, evening_id, 1)
    ns, ew = seated(app, host, number)
    play(app, match_id, 400, 100)
    page = text_of(ns.get(f"/matches/{ref(match_id)}"))
    # Before the other side confirms, the pencil may still take a hand back (a mistake seen in time).
    assert "Undo" in page and "Delete match" not in page
    assert confirm_on(ew, match_id).status_code == 200
    before = stored_match(app, match_id)
    path = f"/matches/{ref(match_id)}"
    writes = {
        "undo": post(ns, f"{path}/undo", {"shown": "2"}, **HTMX),
        "correct": post(ns, f"{path}/rounds/1", {"revision": "1", **entry_fields(app, match_id, HAND)}),
        "delete": post(ns, f"{path}/delete", {}),
    }
    for write, answer in writes.items():
        assert answer.status_code == 403, (write, answer.status_code)
    assert "only the arbiter may change it now" in text_of(writes["undo"])
    assert "A club evening's match stays with its evening" in text_of(writes["delete"])
    assert stored_match(app, match_id) == before
    page = text_of(ns.get(f"/matches/{ref(match_id)}"))
    assert "Undo" not in page and "Delete match" not in page
    # A table the arbiter closed while it played takes no more hands either.
    assert post(host, f"/evenings/{address}/decide", {"action": "close", "turn": "1"}, **HTMX).status_code == 200
    hand = {"sides": {"N/S": {"table": 100, "hand": 0}, "E/W": {"table": 100, "hand": 0}}, "closed_by": None}
    with app.app_context():
        with pytest.raises(NotAllowed, match="only the arbiter may change it now"):
            matches.save_round(db.session.get(Match, other_match), hand)
        assert db.session.get(Match, other_match).rounds == []


def test_notes_and_calls_are_kept_without_invisible_characters_and_cut_to_their_column(app, host):
    evening_id, address = create(host)
    decide = f"/evenings/{address}/decide"
    assert post(host, decide, {"action": "start"}, **HTMX).status_code == 200
    (number, match_id, _), _second = tables(app, evening_id, 1)
    ns, ew = seated(app, host, number)
    called = post(ew, f"/evenings/table/{ref(match_id)}/call", {"note": "a\x00b\u202e  wrong   count"}, **HTMX)
    assert called.status_code == 200
    play(app, match_id, 400, 100)
    # PostgreSQL refused a NUL and a note longer than the log's column (a 500): both kept as the column can.
    settled = post(host, decide, {"action": "settle", "turn": "1", "table": str(number), "points": ["500", "100"],
                                  "note": "n\x00" * 300}, **HTMX)  # fmt: skip
    assert settled.status_code == 200
    with app.app_context():
        table = db.session.scalars(db.select(ClubTable).filter_by(evening_id=evening_id, number=number, turn=1)).one()
        notes = dict(db.session.execute(db.select(ClubLog.action, ClubLog.note).filter_by(evening_id=evening_id)).all())
    assert notes["call"] == "ab wrong count" and table.points == [500, 100]
    assert notes["settle"] == "n" * 200


def test_a_call_from_a_turn_gone_by_and_an_unknown_confirmation_are_refused(app, host):
    evening_id, address = create(host)
    decide = f"/evenings/{address}/decide"
    assert post(host, decide, {"action": "start"}, **HTMX).status_code == 200
    (number, match_id, _), (other_number, other_match, _) = tables(app, evening_id, 1)
    ns, ew = seated(app, host, number)
    play(app, match_id, 400, 100)
    odd = post(ew, f"/evenings/table/{ref(match_id)}/confirm", {"action": "x" * 1000}, **HTMX)
    assert odd.status_code == 400 and logged(app, evening_id) == ["create", "draw"]
    assert confirm_on(ew, match_id).status_code == 200
    play(app, other_match, 100, 100)
    assert post(host, decide, {"action": "confirm", "turn": "1", "table": str(other_number)}, **HTMX).status_code == 200
    assert len(tables(app, evening_id, 2)) == 2
    late_call = post(ew, f"/evenings/table/{ref(match_id)}/call", {"note": "still here"}, **HTMX)
    assert late_call.status_code == 403 and "This table's turn is over" in text_of(late_call)
    with app.app_context():
        assert all(table.call is None for table in db.session.scalars(db.select(ClubTable)))


def test_an_entrant_withdrawn_before_the_start_is_dealt_no_table(app, host):
    entrants = SETUP["entrants"] + "\nCosta & Fontana\nMoretti & Rizzo"
    evening_id, address = create(host, entrants=entrants, first="mitchell", then="mitchell", turns="1")
    decide = f"/evenings/{address}/decide"
    assert post(host, decide, {"action": "withdraw", "entrant": "6"}, **HTMX).status_code == 200
    assert post(host, decide, {"action": "start"}, **HTMX).status_code == 200
    dealt = [side for _number, _match, sides in tables(app, evening_id, 1) for side in sides]
    with app.app_context():
        byes = db.session.scalars(db.select(ClubTable).filter_by(evening_id=evening_id, turn=1, number=0)).all()
    assert 6 not in dealt and all(6 not in bye.sides for bye in byes)
    assert sorted([*dealt, *(side for bye in byes for side in bye.sides)]) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("changes", "field", "said"),
    [
        ({"scale": "custom", "bands": "0 10-10\n51 11-9-3"}, "bands", "Band 2: a line of three numbers"),
        ({"scale": "custom", "bands": "0 10-10 60 12-8"}, "bands", "Band 1: a line of three numbers"),
        ({"late_costs": "-1"}, "late_costs", "Lateness costs points or tournament points"),
        ({"short_turn": "never"}, "short_turn", "Unknown conversion"),
        ({"scale": "official"}, "scale", "Pick a scale: the preset, your own bands or plain points"),
        ({"turns": "-1"}, "turns", "got -1"),
        ({"hands": "abc"}, "hands", 'got "abc"'),
        ({"scale": "custom", "bands": "0 10-10\n99999999999 11-9"}, "bands", 'got "99999999999"'),
    ],
    ids=[
        "a band of four numbers",
        "two bands on a line",
        "lateness",
        "a turn cut short",
        "an unknown scale",
        "turns below one",
        "hands in letters",
        "a band's start too long",
    ],  # fmt: skip
)
def test_a_setup_refused_says_why_beside_the_field(app, host, changes, field, said):
    answer = post(host, "/evenings/new", {**SETUP, **changes, "action": "create"}, **HTMX)
    page = text_of(answer)
    assert answer.status_code == 422 and f'id="{field}-error"' in page and said in page
    # The field that takes it (a select, the bands' box) is marked invalid and read with it.
    marked = f'aria-invalid="true" aria-describedby="{field}-error"'
    if field in ("turns", "hands", "bands"):
        assert marked in page
    with app.app_context():
        assert db.session.query(ClubEvening).count() == 0 and db.session.query(ClubEntrant).count() == 0


def test_an_empty_tag_sent_with_a_club_poll_is_drawn_as_none_sent(app, host):
    evening_id, address = begun(host)
    (_number, match_id, _), _second = tables(app, evening_id, 1)
    for path in (f"/evenings/{address}/live", f"/evenings/{address}/hall/live", f"/evenings/table/{ref(match_id)}",
                 f"/matches/{ref(match_id)}/live"):  # fmt: skip
        assert host.get(path, headers={**HTMX, "If-None-Match": '""'}).status_code == 200, path


def test_letters_typed_as_a_settlements_points_are_named_in_its_refusal(app, host):
    evening_id, address = create(host)
    decide = f"/evenings/{address}/decide"
    assert post(host, decide, {"action": "start"}, **HTMX).status_code == 200
    (number, _match, _), _second = tables(app, evening_id, 1)
    refused = post(host, decide, {"action": "settle", "turn": "1", "table": str(number), "points": ["12a", "200"],
                                  "note": ""}, **HTMX)  # fmt: skip
    said = text_of(refused)
    assert refused.status_code == 422 and 'got "12a"' in said and "null" not in said
    # The field it names is marked invalid, and read with the refusal beside it; the other side's is not.
    here = f"settle-1-{number}"
    assert f'<p id="refused-{here}" class="field-error" role="alert">' in said
    settling = re.search(r'<details class="club-settle" data-keep-open="[^"]+" open>.*?</details>', said, re.S)[0]
    marked = re.findall(r'<input name="points"[^>]*>', settling)
    assert [f'aria-describedby="refused-{here}"' in field for field in marked] == [True, False]
    assert all('aria-invalid="true"' in field for field in marked[:1])
    unnamed = post(host, decide, {"action": "settle", "points": ["100", "200"]}, **HTMX)
    assert unnamed.status_code == 422 and "Pick a turn and one of its tables" in text_of(unnamed)
    late = post(host, decide, {"action": "late", "turn": "1", "entrant": "1", "penalty": "-5"}, **HTMX)
    assert late.status_code == 422 and "from 0 to 100000, got -5" in text_of(late)
    marked = 'name="penalty" aria-invalid="true" aria-describedby="refused-entrants">'
    assert f'<select id="club-penalty" {marked}' in text_of(late)
    # A page's worth of junk is named by its start, not echoed whole beside the form (whose field keeps it).
    junk = post(host, decide, {"action": "settle", "turn": "1", "table": str(number), "points": ["x" * 1000, "200"],
                               "note": ""}, **HTMX)  # fmt: skip
    said = re.search(r'role="alert">([^<]*)<', text_of(junk))[1]
    assert junk.status_code == 422 and f'got "{"x" * 38}…' in said and "x" * 40 not in said
    assert f'value="{"x" * 1000}"' in text_of(junk)
    assert logged(app, evening_id) == ["create", "draw"]


def test_a_counted_tables_scorekeeper_is_offered_no_correction_the_save_would_refuse(app, host):
    evening_id, address = begun(host)
    (number, match_id, _), _second = tables(app, evening_id, 1)
    ns, ew = seated(app, host, number)
    play(app, match_id, 400, 100)
    page = ns.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert f"/matches/{ref(match_id)}/rounds/1" in page  # the pencil's phone may still correct a hand
    assert confirm_on(ew, match_id).status_code == 200
    page = ns.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert f"/matches/{ref(match_id)}/rounds/1" not in page
    correction = ns.get(f"/matches/{ref(match_id)}/rounds/1")
    assert correction.status_code == 403 and "only the arbiter may change it now" in text_of(correction)


def test_a_result_the_arbiter_gives_after_a_forfeit_stands_and_a_forfeit_after_a_result_stands(app, host):
    evening_id, address = create(host, first="danese", then="danese")
    decide = f"/evenings/{address}/decide"
    assert post(host, decide, {"action": "start"}, **HTMX).status_code == 200
    (number, _match, sides), _second = tables(app, evening_id, 1)

    def how_it_counts() -> tuple[str, int]:
        standings = host.get(f"/evenings/{address}/standings.json").get_json()["standings"]
        meeting = next(line["path"][0] for line in standings if line["path"][0]["table"] == number
                       and line["path"][0]["side"] == "N/S")  # fmt: skip
        return meeting["how"], meeting["points_for"]

    forfeit = {"action": "forfeit", "turn": "1", "entrant": str(sides[0])}
    assert post(host, decide, forfeit, **HTMX).status_code == 200
    assert how_it_counts() == ("forfeit", 0)
    settle = {"action": "settle", "turn": "1", "table": str(number), "points": ["1000", "0"], "note": "played"}
    assert post(host, decide, settle, **HTMX).status_code == 200
    assert how_it_counts() == ("played", 1000)
    assert post(host, decide, forfeit, **HTMX).status_code == 200
    assert how_it_counts() == ("forfeit", 0)


def test_an_evening_set_up_for_next_week_leaves_tonights_table_cards_to_tonights(app, host):
    evening_id, address = begun(host, name="Tonight")
    create(host, name="Next week")
    phone = app.test_client()
    card = phone.get(card_path(host, 1))
    assert card.status_code == 200 and "Tonight" in text_of(card) and "Next week" not in text_of(card)
    assert post(phone, card_path(host, 1), {"seat": "0", "action": "sit"}).status_code == 302


def test_a_confirmation_counts_only_the_result_its_phone_showed(app, host):
    evening_id, address = begun(host)
    (number, match_id, _), _second = tables(app, evening_id, 1)
    ns, ew = seated(app, host, number)
    play(app, match_id, 400, 100)
    assert "Confirm: N/S 800 – E/W 200" in words_of(ew.get(f"/evenings/table/{ref(match_id)}", headers=HTMX))
    # N/S takes the last hand back and saves another while E/W's page still shows the first result.
    assert post(ns, f"/matches/{ref(match_id)}/undo", {"shown": "2"}, **HTMX).status_code == 200
    play(app, match_id, 1500, 50)
    stale = post(ew, f"/evenings/table/{ref(match_id)}/confirm", {"action": "confirm", "result": "800 200"}, **HTMX)
    assert stale.status_code == 409 and "The result changed since this phone showed it" in text_of(stale)
    assert "Confirm: N/S 1900 – E/W 150" in words_of(stale) and "confirm" not in logged(app, evening_id)
    assert confirm_on(ew, match_id).status_code == 200
    with app.app_context():
        assert db.session.scalars(db.select(ClubTable.points).filter_by(match_id=match_id)).one() == [1900, 150]


def test_the_phone_that_entered_a_result_confirms_it_neither_from_the_other_sides_seat_nor_by_freeing_it(app, host):
    evening_id, address = begun(host)
    (one, first_match, _), (two, second_match, _) = tables(app, evening_id, 1)
    # At table 1 the pencil's phone moves to an E/W seat before the last hand, then taps Confirm.
    pencil = app.test_client()
    assert post(pencil, card_path(host, one), {"seat": "0", "action": "sit"}).status_code == 302
    play(app, first_match, 400, 100, hands=1)
    assert post(pencil, card_path(host, one), {"seat": "1", "action": "sit"}).status_code == 302
    play(app, first_match, 400, 100)
    panel = text_of(pencil.get(f"/evenings/table/{ref(first_match)}", headers=HTMX))
    assert "This phone entered the result: another E/W phone confirms it" in panel and 'value="confirm"' not in panel
    moved = {"action": "confirm", "result": "800 200"}
    refused = post(pencil, f"/evenings/table/{ref(first_match)}/confirm", moved, **HTMX)
    assert refused.status_code == 403 and "The phone that entered the result does not confirm it" in text_of(refused)
    # At table 2 it may not free E/W's phone from its seat (nor let a phone back in): only the arbiter does.
    ns, _ew = seated(app, host, two)
    # It still follows who sits where on its share page (the seat panel polls), offering no Free button.
    share = text_of(ns.get(f"/matches/{ref(second_match)}/share"))
    assert f'hx-get="/matches/{ref(second_match)}/seats"' in share and "seats/free" not in share
    play(app, second_match, 300, 100)
    for write in ("free", "let-in"):
        refused = post(ns, f"/matches/{ref(second_match)}/seats/{write}", {"seat": "1"}, **HTMX)
        assert refused.status_code == 403 and "only the arbiter frees a seat" in text_of(refused), write
    # Freed by the arbiter, E/W's phone is not replaced by the entering phone handed over.
    assert post(host, f"/matches/{ref(second_match)}/seats/free", {"seat": "1"}, **HTMX).status_code == 200
    panel = text_of(ns.get(f"/evenings/table/{ref(second_match)}", headers=HTMX))
    assert "Waiting for E/W to confirm on its phone" in panel and 'value="handed"' not in panel
    handed = post(ns, f"/evenings/table/{ref(second_match)}/confirm", {"action": "handed", "result": "600 200"}, **HTMX)
    assert handed.status_code == 403 and "the arbiter confirms this result" in text_of(handed)
    assert "confirm" not in logged(app, evening_id)


def test_the_browser_that_entered_a_result_confirms_it_not_with_a_new_phone_credential(app, host):
    # It scored at N/S, threw its phone's cookie away (keeping the pencil's), sat at a free E/W seat as a new phone
    # and confirmed: counted. The pencil it holds names it the entering phone, whatever its credential says.
    evening_id, _address = begun(host)
    (one, match_id, _), _second = tables(app, evening_id, 1)
    scorer = app.test_client()
    assert post(scorer, card_path(host, one), {"seat": "0", "action": "sit"}).status_code == 302
    play(app, match_id, 900, 100, hands=1)
    scorer.delete_cookie("phone")
    assert post(scorer, card_path(host, one), {"seat": "3", "action": "sit"}).status_code == 302
    play(app, match_id, 900, 100)
    panel = text_of(scorer.get(f"/evenings/table/{ref(match_id)}", headers=HTMX))
    assert "This phone entered the result: another E/W phone confirms it" in panel and 'value="confirm"' not in panel
    refused = post(scorer, f"/evenings/table/{ref(match_id)}/confirm", {"action": "confirm", "result": "1800 200"},
                   **HTMX)  # fmt: skip
    assert refused.status_code == 403 and "The phone that entered the result does not confirm it" in text_of(refused)
    assert "confirm" not in logged(app, evening_id)


def test_a_decision_sent_again_after_its_turn_closed_falls_on_no_later_turn(app, host):
    evening_id, address = create(host, first="danese", then="danese")
    decide = f"/evenings/{address}/decide"
    assert post(host, decide, {"action": "start"}, **HTMX).status_code == 200
    close = {"action": "close", "turn": "1", "note": "time"}
    assert post(host, decide, close, **HTMX).status_code == 200
    # The same tap again (a page that had not heard, a second host): turn 2 is not closed by it, nor forfeited.
    forfeit, late = ({"action": action, "turn": "1", "entrant": "1", "penalty": "10"} for action in ("forfeit", "late"))
    for again in (close, forfeit, late):
        refused = post(host, decide, again, **HTMX)
        assert refused.status_code == 409 and "this is turn 2 now" in text_of(refused), again
    with app.app_context():
        closed = db.session.scalars(db.select(ClubLog.turn).filter_by(evening_id=evening_id, action="close")).all()
        states = db.session.scalars(db.select(ClubTable.state).filter_by(evening_id=evening_id, turn=2)).all()
    assert closed == [1, 1] and states == ["playing", "playing"]
    assert "forfeit" not in logged(app, evening_id) and "late" not in logged(app, evening_id)


def test_a_refused_closing_keeps_what_the_arbiter_picked_and_one_sent_for_a_turn_gone_by_picks_nothing_now(app, host):
    evening_id, address = create(host, first="danese", then="danese")
    decide = f"/evenings/{address}/decide"
    assert post(host, decide, {"action": "start"}, **HTMX).status_code == 200
    (one, _, _), (two, _, _) = tables(app, evening_id, 1)
    picked = {"action": "close", "turn": "1", f"outcome-{one}": "15-5", f"outcome-{two}": "16-", "note": "time up"}
    refused = text_of(post(host, decide, picked, **HTMX))
    closing = re.search(r'<details class="club-close" data-keep-open="close" open>.*?</details>', refused, re.S)[0]
    assert 'role="alert"' in closing and 'value="time up"' in closing
    assert re.search(rf'name="outcome-{one}">.*?<option value="15-5" selected>', closing, re.S)
    assert post(host, decide, {"action": "close", "turn": "1"}, **HTMX).status_code == 200
    # The same closing sent again reaches turn 2: its outcomes were for turn 1's tables, so none is picked now.
    again = post(host, decide, {**picked, f"outcome-{two}": "20-0"}, **HTMX)
    said = text_of(again)
    assert again.status_code == 409 and "this is turn 2 now" in said
    assert '<details class="club-close" data-keep-open="close">' in said
    assert " selected>" not in said and 'value="time up"' not in said


def test_a_result_is_disputed_only_once_its_hands_are_played_and_with_a_reason(app, host):
    evening_id, address = begun(host)
    (number, match_id, _), _second = tables(app, evening_id, 1)
    _ns, ew = seated(app, host, number)
    dispute = f"/evenings/table/{ref(match_id)}/confirm"
    early = post(ew, dispute, {"action": "dispute", "note": "hand 1 was 150"}, **HTMX)
    assert early.status_code == 403 and "call the arbiter instead" in text_of(early)
    play(app, match_id, 400, 100)
    mute = post(ew, dispute, {"action": "dispute", "note": " \u200b "}, **HTMX)
    assert mute.status_code == 422 and "Say what is wrong with the result" in text_of(mute)
    assert "dispute" not in logged(app, evening_id)
    assert post(ew, dispute, {"action": "dispute", "note": "hand 1 was 150"}, **HTMX).status_code == 200


def test_a_withdrawal_that_would_leave_the_next_turn_undrawable_is_refused(app, host):
    evening_id, address = create(host, first="danese", then="danese")
    decide = f"/evenings/{address}/decide"
    assert post(host, decide, {"action": "start"}, **HTMX).status_code == 200
    for entrant in ("1", "2"):
        assert post(host, decide, {"action": "withdraw", "entrant": entrant}, **HTMX).status_code == 200
    refused = post(host, decide, {"action": "withdraw", "entrant": "3"}, **HTMX)
    assert refused.status_code == 422 and "at least 2" in text_of(refused)
    assert logged(app, evening_id).count("withdraw") == 2
    # The turn closes and the next is drawn for the two left.
    assert post(host, decide, {"action": "close", "turn": "1"}, **HTMX).status_code == 200
    assert [sorted(sides) for _number, _match, sides in tables(app, evening_id, 2)] == [[3, 4]]


def test_an_italian_arbiter_and_standings_name_the_sides_in_italian(app, host):
    evening_id, address = begun(host)
    italian = {"Accept-Language": "it-IT,it;q=0.9"}
    for path in (f"/evenings/{address}", f"/evenings/{address}/standings"):
        shown = read_html(host.get(path, headers=italian).get_data(as_text=True)).text
        assert "E/O" in shown and "E/W" not in shown, path


def test_a_scheduled_turns_table_a_withdrawn_side_leaves_vacant_is_not_played_and_the_evening_goes_on(app, host):
    entrants = SETUP["entrants"] + "\nCosta & Fontana\nMoretti & Rizzo\nMarino & Ferri\nLeone & Serra"
    evening_id, address = begun(host, entrants=entrants, first="mitchell", then="mitchell", turns="3")
    decide = f"/evenings/{address}/decide"
    assert post(host, decide, {"action": "withdraw", "entrant": "1"}, **HTMX).status_code == 200
    assert post(host, decide, {"action": "close", "turn": "1"}, **HTMX).status_code == 200
    # Turn 2 deals entrant 1 its table, as the Mitchell does: no match is started there, and it counts at once.
    [(number, match_id, sides)] = [table for table in tables(app, evening_id, 2) if 1 in table[2]]
    with app.app_context():
        other = db.session.scalars(db.select(ClubEntrant).filter_by(evening_id=evening_id, number=max(sides))).one()
        other_side = " – ".join(other.players)
        state = db.session.scalars(db.select(ClubTable.state).filter_by(evening_id=evening_id, turn=2, number=number))
        assert (match_id, state.one()) == (None, "bye")
    for page in ("", "/hall"):  # the arbiter's and the room's: the turn plays three tables, not four
        assert "0 of 3 tables counted" in read_html(host.get(f"/evenings/{address}{page}").get_data(as_text=True)).text
    # The room's list of who sits where: the withdrawn pair is not on it, its opponent has a bye.
    seating = read_html(host.get(f"/evenings/{address}/hall").get_data(as_text=True)).text
    assert "Rossi – Bianchi:" not in seating and f"{other_side}: bye" in seating
    # The turn's other tables close it, and the evening goes on to its end (it stuck at turn 2, every decision 422).
    for turn in ("2", "3"):
        assert post(host, decide, {"action": "close", "turn": turn}, **HTMX).status_code == 200, turn
    assert logged(app, evening_id).count("over") == 1
    # The vacant table's other side takes a bye's points for it; the withdrawn pair plays no more.
    standings = host.get(f"/evenings/{address}/standings.json").get_json()["standings"]
    turn_two = [meeting for line in standings for meeting in line["path"] if meeting["turn"] == 2]
    assert [(meeting["how"], meeting["tournament_points"]) for meeting in turn_two if meeting["table"] == number] == [
        ("bye", 12)
    ]
