"""A club turn's clock and a table's call for the arbiter through their pages: the host's taps alone run the clock,
a hand saved once time is up ends its table's match, a table still playing is marked late, every answer carries the
server's time, and a phone seated at a table calls the arbiter until the arbiter answers."""

from __future__ import annotations

import html
import re
import time
from datetime import timedelta

import pytest

from companion.extensions import db
from companion.games.club import scales
from companion.models import FINISHED, Match
from companion.models.club import ClubEvening, ClubLog, ClubTable
from companion.services import matches
from tests.helpers import HTMX, entry_fields, grant_host_rights, read_words, ref, save_round
from tests.web.test_club_pages import begun, card_path, confirm_on, post, tables


@pytest.fixture
def host(client):
    return grant_host_rights(client)


def started(app, host, **changes) -> tuple[int, str]:
    """An evening of 2 turns × 3 hands, a 30-minute turn, turn 1 drawn."""
    return begun(host, hands="3", turn_minutes="30", **changes)


def tap(host, address: str, clock: str):
    return post(host, f"/evenings/{address}/decide", {"action": "clock", "clock": clock}, **HTMX)


def stored_clock(app, evening_id: int) -> tuple:
    with app.app_context():
        evening = db.session.get(ClubEvening, evening_id)
        return evening.clock_ends_at, evening.clock_left_ms


def seated(app, host, number: int):
    """Table `number`'s N/S and E/W phones, seated by its card."""
    path = card_path(host, number)
    ns, ew = app.test_client(), app.test_client()
    assert post(ns, path, {"seat": "0", "action": "sit"}).status_code == 302
    assert post(ew, path, {"seat": "1", "action": "sit"}).status_code == 302
    return ns, ew


def hand(app, match_id: int, ns: int, ew: int) -> None:
    with app.app_context():
        match = db.session.get(Match, match_id)
        matches.save_round(match, {"sides": {"N/S": {"table": ns, "hand": 0}, "E/W": {"table": ew, "hand": 0}},
                                   "closed_by": None})  # fmt: skip


def words(answer) -> str:
    return html.unescape(read_words(answer.get_data(as_text=True)))


def text(answer) -> str:
    """What the answer reads as, its tags and line breaks gone."""
    return " ".join(re.sub(r"<[^>]+>", "", words(answer)).split())


def test_the_host_alone_starts_pauses_extends_and_ends_the_clock(app, host):
    evening_id, address = started(app, host)
    member = app.test_client()
    refused = tap(member, address, "start")
    assert refused.status_code == 403 and stored_clock(app, evening_id) == (None, None)
    assert "Start the clock: 30 minutes" in words(host.get(f"/evenings/{address}"))
    # A tap that does not fit the clock is refused with its reason, nothing stored.
    refused = tap(host, address, "pause")
    assert refused.status_code == 403 and "The clock is not running" in words(refused)
    assert stored_clock(app, evening_id) == (None, None)
    page = words(tap(host, address, "start"))
    assert "30:00" in page or "29:59" in page
    assert "data-ends-ms" in page and "left in the turn" in page
    paused = words(tap(host, address, "pause"))
    assert "paused" in paused and "Resume" in paused
    left = stored_clock(app, evening_id)[1]
    assert stored_clock(app, evening_id)[0] is None and 29 * 60_000 < left <= 30 * 60_000
    tap(host, address, "extend-5")
    assert stored_clock(app, evening_id)[1] == left + 5 * 60_000
    refused = tap(host, address, "extend-7")
    assert refused.status_code == 422 and stored_clock(app, evening_id)[1] == left + 5 * 60_000
    tap(host, address, "resume")
    ends, paused_left = stored_clock(app, evening_id)
    assert paused_left is None and ends is not None
    ended = words(tap(host, address, "end"))
    assert "Time is up: the hand being played is the last" in ended and "00:00" in ended
    # Every phone at a table sees the same clock on its panel.
    _ns, ew = seated(app, host, 1)
    match_id = tables(app, evening_id, 1)[0][1]
    assert "Time is up" in words(ew.get(f"/evenings/table/{ref(match_id)}", headers=HTMX))
    # The log says what the host did.
    log = words(host.get(f"/evenings/{address}"))
    assert "The clock of turn 1 started" in log and "The clock extended by 5 minutes" in log


def test_a_hand_saved_after_time_up_ends_the_match_with_the_hands_played_and_is_converted_for_them(app, host):
    evening_id, address = started(app, host, clock_penalty="2", late_costs="tournament points")
    (one, first_match, _), (two, second_match, _) = tables(app, evening_id, 1)
    _ns, ew = seated(app, host, one)
    tap(host, address, "start")
    hand(app, first_match, 300, 100)  # before time is up: the match goes on
    for _ in range(2):
        hand(app, second_match, 100, 100)
    with app.app_context():
        assert db.session.get(Match, first_match).status != FINISHED
    tap(host, address, "end")
    # Time is up: both tables still play, each marked late on the arbiter's page.
    arbiter = words(host.get(f"/evenings/{address}"))
    assert arbiter.count("late by the clock") == 2
    hand(app, first_match, 500, 100)  # the hand being played when time was up: the last
    with app.app_context():
        match = db.session.get(Match, first_match)
        assert match.status == FINISHED and len(match.rounds) == 2
    arbiter = words(host.get(f"/evenings/{address}"))
    assert arbiter.count("late by the clock") == 1 and "Table 1 ended with the time: 2 hands played" in arbiter
    panel = text(ew.get(f"/evenings/table/{ref(first_match)}", headers=HTMX))
    assert "Confirm: N/S 800 – E/W 200" in panel
    assert confirm_on(ew, first_match).status_code == 200
    # Table 2 was playing its last hand when time was up: it ends as it would have, and is late as table 1 is.
    hand(app, second_match, 100, 100)
    with app.app_context():
        table = db.session.scalars(db.select(ClubTable).filter_by(evening_id=evening_id, turn=1, number=one)).one()
        other = db.session.scalars(db.select(ClubTable).filter_by(evening_id=evening_id, turn=1, number=two)).one()
        assert table.hands_played == 2 and len(db.session.get(Match, second_match).rounds) == 3
        penalties = db.session.scalars(db.select(ClubLog).filter_by(evening_id=evening_id, action="late")).all()
        assert sorted((entry.entrant, entry.after["penalty"]) for entry in penalties) == [
            (side, 2) for side in sorted([*table.sides, *other.sides])
        ]
    # 800–200 over two hands of three, counted over three: 900 apart; then each side's 2 tournament points late.
    winner, _loser = scales.preset(3).convert((900, 0))
    assert winner != scales.preset(3).convert((600, 0))[0]
    standings = host.get(f"/evenings/{address}/standings.json").get_json()["standings"]
    assert standings[0]["tournament_points"] == winner - 2 and standings[0]["path"][0]["points_for"] == 800
    # The arbiter's penalty for lateness adds to the clock's, and lifted (0) leaves the clock's standing.
    for penalty, points in (("3", winner - 5), ("0", winner - 2)):
        late = {"action": "late", "turn": "1", "entrant": str(table.sides[0]), "penalty": penalty}
        assert post(host, f"/evenings/{address}/decide", late, **HTMX).status_code == 200
        standings = host.get(f"/evenings/{address}/standings.json").get_json()["standings"]
        line = next(line for line in standings if (line["path"][0]["table"], line["path"][0]["side"]) == (one, "N/S"))
        assert line["tournament_points"] == points, penalty
    # The arbiter's penalties offered are tournament points, none above a turn's 20.
    arbiter_page = host.get(f"/evenings/{address}").get_data(as_text=True)
    picker = re.search(r'<select id="club-penalty".*?</select>', arbiter_page)
    assert re.findall(r"<option[^>]*>(\d+)</option>", picker[0]) == ["0", "1", "2", "3", "5", "10", "20"]
    # More than a turn's tournament points is refused beside its field, nothing logged.
    late = {"action": "late", "turn": "1", "entrant": str(table.sides[0]), "penalty": "21"}
    refused = post(host, f"/evenings/{address}/decide", late, **HTMX)
    assert refused.status_code == 422 and "from 0 to 20" in refused.get_data(as_text=True)


def test_a_cut_tables_result_the_arbiter_settles_is_counted_pro_rata_as_a_confirmed_one(app, host):
    evening_id, address = started(app, host)
    (one, first_match, _), _second = tables(app, evening_id, 1)
    tap(host, address, "start")
    hand(app, first_match, 300, 100)
    tap(host, address, "end")
    hand(app, first_match, 500, 100)  # the last: two hands of three played
    settle = {"action": "settle", "turn": "1", "table": str(one), "points": ["800", "200"], "note": "disputed"}
    assert post(host, f"/evenings/{address}/decide", settle, **HTMX).status_code == 200
    # 600 apart over two hands of three: 900 over the turn, as the other side's Confirm would have counted it.
    standings = host.get(f"/evenings/{address}/standings.json").get_json()["standings"]
    assert standings[0]["tournament_points"] == scales.preset(3).convert((900, 0))[0]
    assert scales.preset(3).convert((900, 0)) != scales.preset(3).convert((600, 0))


def test_a_hand_kept_offline_before_time_up_and_sent_after_it_is_not_the_last_whatever_the_phones_clock(app, host):
    """N/S's phone kept hand 2 with the network gone; the host ended the time before the hand reached the server.
    It was played before time was up: hand 3, being played then, is the last, as when the network held."""
    evening_id, address = started(app, host)
    (one, first_match, _), _ = tables(app, evening_id, 1)
    ns, _ew = seated(app, host, one)
    with app.app_context():
        db.session.get(Match, first_match).started_at -= timedelta(minutes=30)  # a turn under way
        db.session.commit()
    tap(host, address, "start")
    hand(app, first_match, 300, 100)
    with app.app_context():
        db.session.get(Match, first_match).rounds[0].created_at -= timedelta(minutes=1)  # hand 1, a minute ago
        db.session.commit()
    sides = {"N/S": {"table": 200, "hand": 0}, "E/W": {"table": 50, "hand": 0}}
    kept = entry_fields(app, first_match, {"sides": sides, "closed_by": None})
    phone_clock = int(time.time() * 1000) - 3 * 60 * 1000  # three minutes behind the server's
    kept["played_at"] = str(phone_clock)
    tap(host, address, "end")
    kept["sent_at"] = str(phone_clock + 20_000)  # sent 20 s after it was played, by the phone's clock
    assert save_round(ns, first_match, kept, 2).status_code == 200
    with app.app_context():
        match = db.session.get(Match, first_match)
        assert match.status != FINISHED and len(match.rounds) == 2
    # On the phone's word, which the arbiter reads in the log.
    assert "Table 1: hand 2 came after time was up, kept 0 min on its phone" in words(host.get(f"/evenings/{address}"))
    hand(app, first_match, 100, 100)
    with app.app_context():
        match = db.session.get(Match, first_match)
        assert match.status == FINISHED and len(match.rounds) == 3


def test_the_clocks_answers_carry_the_server_time_a_304_too_and_no_others(app, host):
    evening_id, address = started(app, host)
    before = time.time_ns() // 1_000_000
    answer = host.get(f"/evenings/{address}/live", headers=HTMX)
    unchanged = host.get(f"/evenings/{address}/live", headers={**HTMX, "If-None-Match": answer.headers["ETag"]})
    match_id = tables(app, evening_id, 1)[0][1]
    panel = host.get(f"/evenings/table/{ref(match_id)}", headers=HTMX)
    # The panel's unchanged poll is answered before Flask (web/live.UnchangedPolls): with the time all the same.
    panel_304 = host.get(f"/evenings/table/{ref(match_id)}", headers={**HTMX, "If-None-Match": panel.headers["ETag"]})
    after = time.time_ns() // 1_000_000
    assert unchanged.status_code == 304 and panel.status_code == 200 and panel_304.status_code == 304
    for each in (answer, unchanged, panel, panel_304):
        assert before <= int(each.headers["X-Server-Time"]) <= after
    # A match's own answers and the files have no clock to set: a first load is not sent the header.
    live = host.get(f"/matches/{ref(match_id)}/live", headers=HTMX)
    match_304 = host.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": live.headers["ETag"]})
    assert match_304.status_code == 304
    for each in (host.get(f"/matches/{ref(match_id)}"), live, match_304, host.get("/static/css/club.css")):
        assert "X-Server-Time" not in each.headers


def test_a_seated_phone_calls_the_arbiter_until_answered_and_no_other_phone_may(app, host):
    evening_id, address = started(app, host)
    (one, first_match, _), (two, second_match, _) = tables(app, evening_id, 1)
    _ns, ew = seated(app, host, one)
    stranger, _ = seated(app, host, two)
    call = f"/evenings/table/{ref(first_match)}/call"
    refused = post(stranger, call, {"action": "call", "reason": "A question on the rules"}, **HTMX)
    assert refused.status_code == 403 and "only a phone seated at this table" in words(refused).lower()
    assert "Tables calling the arbiter" not in words(host.get(f"/evenings/{address}"))
    panel = words(ew.get(f"/evenings/table/{ref(first_match)}", headers=HTMX))
    assert "Arbiter, please" in panel and "The result is wrong" not in panel  # the result does not wait yet
    called = post(ew, call, {"action": "call", "reason": "A question on the rules", "note": "  a card on the floor "},
                  **HTMX)  # fmt: skip
    assert called.status_code == 200
    assert "The arbiter is called: “a card on the floor”" in text(called) and "Withdraw the call" in text(called)
    arbiter = words(host.get(f"/evenings/{address}"))
    assert "Tables calling the arbiter" in arbiter and "“a card on the floor”" in arbiter
    assert "calls the arbiter" in arbiter
    # Still there at the next poll, until the arbiter answers.
    assert "a card on the floor" in words(host.get(f"/evenings/{address}/live", headers=HTMX))
    answered = post(host, f"/evenings/{address}/decide", {"action": "answered", "turn": "1", "table": str(one)}, **HTMX)
    assert answered.status_code == 200 and "Tables calling the arbiter" not in words(answered)
    assert "The arbiter answered table 1" in words(answered)
    assert "Arbiter, please" in words(ew.get(f"/evenings/table/{ref(first_match)}", headers=HTMX))
    # A call withdrawn by its table leaves the arbiter's page too; a call with no reason is refused.
    assert post(ew, call, {"action": "call", "reason": " "}, **HTMX).status_code == 422
    # A reason picked on an Italian phone reads in English on the English arbiter's page, in Italian on the phone.
    italian = {**HTMX, "Accept-Language": "it-IT,it;q=0.9"}
    offered = words(ew.get(f"/evenings/table/{ref(first_match)}", headers=italian))
    picked = re.findall(r'name="reason" value="([^"]*)"', offered)[-1]
    assert "Altro" in offered
    post(ew, call, {"action": "call", "reason": picked}, **italian)
    assert "“Something else”" in words(host.get(f"/evenings/{address}"))
    assert "“Altro”" in text(ew.get(f"/evenings/table/{ref(first_match)}", headers=italian))
    withdrawn = post(ew, call, {"action": "uncall"}, **HTMX)
    assert withdrawn.status_code == 200 and "Arbiter, please" in words(withdrawn)
    assert "Tables calling the arbiter" not in words(host.get(f"/evenings/{address}"))
    # The arbiter giving a calling table its points answers its call: it leaves the arbiter's page, kept in the log.
    post(ew, call, {"action": "call", "reason": picked, "note": "we disagree"}, **HTMX)
    settle = {"action": "settle", "turn": "1", "table": str(one), "points": ["300", "200"], "note": ""}
    settled = post(host, f"/evenings/{address}/decide", settle, **HTMX)
    assert settled.status_code == 200 and "Tables calling the arbiter" not in words(settled)
    assert "calls the arbiter" not in words(settled) and words(settled).count("The arbiter answered table 1") == 2
    assert second_match


def test_at_pazaak_time_up_ends_the_match_on_the_sets_won_and_a_level_match_plays_one_more_set(app):
    from companion.services import club, club_clock

    plan = {"game": "pazaak", "pairs": False, "turns": 2, "hands": 3, "first": "swiss", "then": "swiss"}
    with app.app_context():
        evening = club.create_evening("", plan, [([name], None) for name in ("Ann", "Bob", "Cy", "Di")])
        club.start(evening)
        one, two = (db.session.get(Match, t.match_id) for t in evening.tables if t.turn == 1 and t.number)
        club_clock.run_clock(evening, "start")
        matches.save_round(one, {"winner": one.player_names[0]})
        matches.save_round(one, {"winner": one.player_names[1]})
        matches.save_round(two, {"winner": two.player_names[0]})
        club_clock.run_clock(evening, "end")
        matches.save_round(one, {"winner": one.player_names[1]})  # 1-2: the set after time up was the last
        matches.save_round(two, {"winner": two.player_names[1]})  # 1-1: level, one more set decides
        assert one.status == FINISHED and one.summary["winners"] == [one.player_names[1]]
        assert two.status != FINISHED
        matches.save_round(two, {"winner": two.player_names[0]})
        assert two.status == FINISHED and two.summary["winners"] == [two.player_names[0]]
        assert len(two.rounds) == 3 and two.settings["sets"] == 2


def test_a_table_panels_poll_is_redrawn_when_the_clock_moves_or_its_table_calls_the_arbiter(app, host):
    evening_id, address = started(app, host)
    (one, first_match, _), (_two, second_match, _) = tables(app, evening_id, 1)
    ns, ew = seated(app, host, one)
    panel = f"/evenings/table/{ref(first_match)}"

    def poll(phone, tag: str):
        return phone.get(panel, headers={**HTMX, "If-None-Match": tag})

    tag = ns.get(panel, headers=HTMX).headers["ETag"]
    assert poll(ns, tag).status_code == 304
    # Each of the host's taps and the table's call redraws the panel of every phone at the table.
    for step in ("start", "extend-5", "pause", "resume"):
        assert tap(host, address, step).status_code == 200
        moved = poll(ns, tag)
        assert moved.status_code == 200 and moved.headers["ETag"] != tag, step
        tag = moved.headers["ETag"]
    assert "data-club-clock" in moved.get_data(as_text=True)
    post(ew, f"{panel}/call", {"action": "call", "reason": "A question on the rules"}, **HTMX)
    called = poll(ns, tag)
    assert called.status_code == 200 and "The arbiter is called" in text(called)
    # Another table's call leaves this panel as it was.
    tag = called.headers["ETag"]
    _other_ns, other_ew = seated(app, host, _two)
    post(other_ew, f"/evenings/table/{ref(second_match)}/call", {"action": "call", "reason": "A question"}, **HTMX)
    assert poll(ns, tag).status_code == 304
