"""Seats for the players' own phones: the seat link, taking, leaving and freeing a seat, in open and private groups."""

from __future__ import annotations

import html
import re
import time
import uuid

from companion.extensions import db
from companion.models import Match, Member
from tests.helpers import (
    HTMX,
    csrf_token,
    dump,
    finished_match,
    read_words,
    ref,
    save_round,
    start_match,
    stored_match,
    take,
    unref,
)
from tests.pages import read

SEAT_LINK = re.compile(r'href="https?://[^/"]+(/matches/[^"]+/seat[^"]*)"')


def seated(app, match_id: int) -> dict[str, str | None]:
    """Who sits where, as stored: each seat's name and its phone's label (None when free)."""
    with app.app_context():
        match = db.session.get(Match, match_id)
        found = {seat.name: (seat.phone_label if seat.phone else None) for seat in match.seats}
        db.session.remove()
    return found


def test_a_phone_takes_its_seat_and_sees_its_own_part(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    assert save_round(client, match_id, {"loser": "Bob"}).status_code == 200
    share = client.get(f"/matches/{ref(match_id)}/share").get_data(as_text=True)
    assert "A seat for each player's phone" in share and SEAT_LINK.search(share)
    bob = app.test_client()
    bob.environ_base["HTTP_USER_AGENT"] = "Mozilla/5.0 (Linux; Android 14) Chrome/120"
    picker = bob.get(SEAT_LINK.search(share).group(1)).get_data(as_text=True)
    assert "Which player are you?" in picker and "Take a seat" in picker
    answer = take(bob, match_id, 1)
    assert answer.status_code == 302 and answer.headers["Location"].endswith(f"/matches/{ref(match_id)}")
    assert seated(app, match_id) == {"Ann": None, "Bob": "Chrome · Android", "Cy": None}
    page = read_words(bob.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "Your seat: Bob" in page and "Leave the seat" in page
    # Topic_: its own cards held, big, above every player's (ten players' tiles pushed it a long scroll down a
    # phone); a viewer has none of that.
    mine = read(page).one(cls="topic-mine")
    assert mine.text == "Your cards 1" and mine.one("strong", cls="big-num").text == "1"
    assert page.index("Your cards") < page.index("Cards held")
    viewer_page = app.test_client().get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "topic-mine" not in viewer_page and "Your seat" not in viewer_page
    # The scorekeeper's share page says which phone sits where.
    assert "Chrome · Android" in client.get(f"/matches/{ref(match_id)}/seats").get_data(as_text=True)


def sent(html: str, name: str) -> list[str]:
    """The values of a field the page's round entry would send with Save."""
    return [value for field, value in read(html).one("form", cls="round-entry").fields() if field == name]


def test_a_seat_holds_one_phone_and_a_phone_sits_at_one_seat(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    bob, other = app.test_client(), app.test_client()
    assert take(bob, match_id, 1).status_code == 302
    before = dump(app)
    refused = take(other, match_id, 1)
    text = html.unescape(refused.get_data(as_text=True))
    assert refused.status_code == 409 and "Another phone has taken Bob's seat" in read(text).by_id("seat-error").text
    assert dump(app) == before
    # Bob's phone moves to Cy's seat: it leaves Bob's, which the other phone may then take.
    assert take(bob, match_id, 2).status_code == 302
    assert take(other, match_id, 1).status_code == 302
    assert [name for name, phone in seated(app, match_id).items() if phone is not None] == ["Bob", "Cy"]


def test_a_seat_that_is_no_seat_is_refused_beside_its_field(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    phone = app.test_client()
    before = dump(app)
    for position in ("", "2", "-1", "x", "99999999999999999999"):
        answer = take(phone, match_id, position)
        assert answer.status_code == 422, position
        assert "Pick your name among the match's players" in html.unescape(answer.get_data(as_text=True))
    assert dump(app) == before


def test_the_scorekeeper_frees_a_seat_and_the_phone_learns_it_at_its_next_poll(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    bob = app.test_client()
    assert take(bob, match_id, 1).status_code == 302
    page = bob.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    etag = re.search(r"data-etag='([^']+)'", page).group(1)
    # Only the scorekeeper frees a seat.
    assert bob.post(f"/matches/{ref(match_id)}/seats/free", data={"csrf_token": csrf_token(bob), "seat": "1"},
                    headers=HTMX).status_code == 403  # fmt: skip
    freed = client.post(f"/matches/{ref(match_id)}/seats/free",
                        data={"csrf_token": csrf_token(client), "seat": "1"}, headers=HTMX)  # fmt: skip
    assert freed.status_code == 200 and "Chrome" not in freed.get_data(as_text=True)
    assert seated(app, match_id) == {"Ann": None, "Bob": None}
    poll = bob.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": etag, "X-Entry-Shows": "seat"})
    text = poll.get_data(as_text=True)
    assert poll.status_code == 200 and read(text).by_id("entry").has("hx-swap-oob") and "Your seat" not in text
    assert "You are following this match" in text


def test_a_seated_phone_leaves_its_seat(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    bob = app.test_client()
    assert take(bob, match_id, 0).status_code == 302
    left = bob.post(f"/matches/{ref(match_id)}/seat/leave", data={"csrf_token": csrf_token(bob)})
    assert left.status_code == 302 and seated(app, match_id) == {"Ann": None, "Bob": None}


def test_the_seats_of_a_match_no_longer_played_cannot_be_taken(app):
    match_id, players, _, _ = finished_match(app, "topic")
    phone = app.test_client()
    assert "its seats cannot be taken" in phone.get(f"/matches/{ref(match_id)}/seat").get_data(as_text=True)
    assert take(phone, match_id, 0).status_code == 403
    assert set(seated(app, match_id).values()) == {None}


def test_a_seat_link_seats_a_phone_outside_the_group_without_making_it_a_member(two_groups):  # noqa: F811
    app, phones, friday_match, club_match = two_groups
    share = phones["bob"].get(f"/matches/{ref(friday_match)}/share").get_data(as_text=True)
    link = SEAT_LINK.search(share).group(1).replace("&amp;", "&")
    # The seat link carries its own key, not the viewer link's.
    assert "?seat_key=" in link and "follow=" not in link
    stranger = phones["stranger"]
    assert stranger.get(link).status_code == 200
    assert take(stranger, friday_match, 2, path=link).status_code == 302
    assert seated(app, friday_match)["Cyrillo"] is not None
    page = read_words(stranger.get(f"/matches/{ref(friday_match)}").get_data(as_text=True))
    assert "Your seat: Cyrillo" in page
    with app.app_context():
        assert db.session.query(Member).count() == 4
        db.session.remove()
    # Nothing else of the group, nor the other group's seats.
    assert stranger.get("/history").status_code == 404
    assert stranger.get(f"/matches/{ref(club_match)}/seat").status_code == 404
    assert stranger.get(f"/matches/{ref(friday_match)}/share").status_code == 404


def send(phone, match_id: int, position: int, chips: list[int], word: str = "", number: int = 1):
    """The seated phone sends its row of round `number`: the points of its word's cards, and the word."""
    token = csrf_token(phone, f"/matches/{ref(match_id)}")
    fields = {"csrf_token": token, "number": str(number), f"word-{position}": word,
              f"used-{position}": [str(points) for points in chips]}  # fmt: skip
    return phone.post(f"/matches/{ref(match_id)}/rows", data=fields, headers=HTMX)


def seated_phones(app, client, match_id: int, positions) -> dict[int, object]:
    """A phone of its own seated at each of `positions`."""
    phones = {}
    for position in positions:
        phones[position] = app.test_client()
        assert take(phones[position], match_id, position).status_code == 302
    return phones


def test_seated_phones_send_their_rows_and_the_scorekeeper_saves_them_with_one_tap(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob", "Cy", "Di"])
    phones = seated_phones(app, client, match_id, range(4))
    seated_page = read_words(phones[1].get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "Send my row of round 1" in seated_page and not read(seated_page).find_all(name="theme")
    assert 'name="used-1"' not in seated_page.split("pz-chips", 1)[0]  # its own row alone
    answers = [send(phones[0], match_id, 0, [3, 4, 2], "GATTO"), send(phones[1], match_id, 1, [5, 1]),
               send(phones[2], match_id, 2, [2, 2, 2, 2], "CASA")]  # fmt: skip
    assert [answer.status_code for answer in answers] == [200] * 3
    assert "Row sent" in answers[0].get_data(as_text=True)
    # The scorekeeper's sheet: 3 of 4 rows in, each filled in and marked with its phone.
    live = read_words(client.get(f"/matches/{ref(match_id)}/live", headers=HTMX).get_data(as_text=True))
    assert "Rows in: 3 of 4" in live and "waiting for Di" in live
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert sent(page, "used-0") == ["3", "4", "2"]
    assert sent(page, "word-0") == ["GATTO"] and len(read(page).find_all(cls="sent-by")) == 3
    assert send(phones[3], match_id, 3, [1], "IO").status_code == 200
    # One tap: Save with nothing typed saves the four rows as sent.
    saved = client.post(f"/matches/{ref(match_id)}/rounds", data={"csrf_token": csrf_token(client), "number": "1"},
                        headers=HTMX)  # fmt: skip
    assert saved.status_code == 200
    # Its answer counts round 2's rows anew, none in yet (the live block's next poll takes this version as drawn).
    counted = read(read_words(saved.get_data(as_text=True))).by_id("rows-in")
    assert counted.attrs.get("hx-swap-oob") == "true" and counted.text.startswith("Rows in: 0 of 4 · waiting for")
    rows = stored_match(app, match_id).rounds[0]["rows"]
    assert rows["Ann"]["used"] == [3, 4, 2] and rows["Ann"]["word"] == "GATTO" and rows["Di"]["used"] == [1]
    # A row sent for the round just saved is refused with its reason, and not kept for the next one.
    late = send(phones[1], match_id, 1, [9], number=1)
    assert late.status_code == 409 and "was saved before your row arrived" in html.unescape(late.get_data(as_text=True))
    assert "Rows in: 0 of 4" in client.get(f"/matches/{ref(match_id)}/live", headers=HTMX).get_data(as_text=True)


def test_a_row_sent_again_while_the_scorekeeper_changed_it_is_not_overwritten_unseen(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    phones = seated_phones(app, client, match_id, [1])
    assert send(phones[1], match_id, 1, [5, 1], "RE").status_code == 200
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    [revision] = sent(page, "sent-rev-1")
    assert revision.isdigit()
    # The scorekeeper corrects Bob's row (5, 1 → 5, 2) while Bob sends it again (5, 1, 1).
    assert send(phones[1], match_id, 1, [5, 1, 1], "RE").status_code == 200
    form = {"csrf_token": csrf_token(client), "number": "1", "used-0": ["4"], "used-1": ["5", "2"],
            "sent-rev-1": revision}  # fmt: skip
    before = dump(app)
    refused = client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX)
    text = read_words(html.unescape(refused.get_data(as_text=True)))
    assert refused.status_code == 409 and "Bob sent this row again meanwhile" in text
    assert sent(text, "used-1") == ["5", "1", "1"]
    assert dump(app) == before
    # Saved again from the page as it now shows it: Bob's row as sent.
    [revision] = sent(text, "sent-rev-1")
    assert revision.isdigit()
    form.update({"used-1": ["5", "1", "1"], "sent-rev-1": revision})
    assert client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX).status_code == 200
    assert stored_match(app, match_id).rounds[0]["rows"]["Bob"]["used"] == [5, 1, 1]


def test_a_round_kept_offline_is_not_filled_in_with_a_row_sent_since_its_page_showed_the_rows(app, client):
    """The scorekeeper's phone kept round 1 without the network, Cy's row not in; Cy's phone, still offered round 1's
    row (the server had no round 1), sent its next one. The kept round arrives: refused for a look, with Cy's row as
    sent, not stored with it filled in unseen."""
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob", "Cy"])
    phones = seated_phones(app, client, match_id, [2])
    played = int(time.time() * 1000)
    kept = {"csrf_token": csrf_token(client), "number": "1", "used-0": ["4", "4"], "used-1": ["2"],
            "played_at": str(played), "sent_at": str(played + 60_000)}  # fmt: skip
    assert send(phones[2], match_id, 2, [8, 8], "TWO").status_code == 200
    before = dump(app)
    refused = client.post(f"/matches/{ref(match_id)}/rounds", data=kept, headers=HTMX)
    text = read_words(html.unescape(refused.get_data(as_text=True)))
    assert refused.status_code == 409
    assert "Not saved: Cy sent a row after this round was kept on this phone. Enter the round again" in text
    assert sent(text, "used-2") == ["8", "8"]
    assert dump(app) == before


def test_a_round_kept_offline_stored_and_sent_again_is_answered_as_stored_whatever_rows_came_since(app, client):
    """Its answer lost, the kept round goes out again under its key: answered as stored, not refused for the next
    round's rows (an Enter again would have saved it twice)."""
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob", "Cy"])
    phones = seated_phones(app, client, match_id, [2])
    played = int(time.time() * 1000)
    kept = {"csrf_token": csrf_token(client), "number": "1", "used-0": ["4", "4"], "used-1": ["2"],
            "round_key": str(uuid.uuid4()), "played_at": str(played), "sent_at": str(played + 60_000)}  # fmt: skip
    assert client.post(f"/matches/{ref(match_id)}/rounds", data=kept, headers=HTMX).status_code == 200
    assert send(phones[2], match_id, 2, [6], "ONE", number=2).status_code == 200
    again = client.post(f"/matches/{ref(match_id)}/rounds", data=kept, headers=HTMX)
    assert again.status_code == 200 and len(stored_match(app, match_id).rounds) == 1


def test_a_row_sent_for_the_next_round_after_the_table_took_one_back_says_so(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    phones = seated_phones(app, client, match_id, [1])
    form = {"csrf_token": csrf_token(client), "number": "1", "used-0": ["4"], "used-1": ["5"]}
    assert client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX).status_code == 200
    # Bob's phone, without the network, kept its row of round 2; the scorekeeper takes round 1 back meanwhile.
    token = {"X-CSRFToken": csrf_token(client, f"/matches/{ref(match_id)}")}
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"shown": "1"}, headers={**HTMX, **token})
    assert undone.status_code == 200
    before = dump(app)
    early = send(phones[1], match_id, 1, [6], number=2)
    text = html.unescape(early.get_data(as_text=True))
    assert early.status_code == 409
    assert "Round 2 is not played yet: the table took a round back and plays round 1" in text
    assert "was saved before" not in text and dump(app) == before


def test_a_row_from_a_phone_without_the_seat_is_refused_and_nothing_is_stored(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    phones = seated_phones(app, client, match_id, [1])
    freed = client.post(f"/matches/{ref(match_id)}/seats/free", data={"csrf_token": csrf_token(client), "seat": "1"},
                        headers=HTMX)  # fmt: skip
    assert freed.status_code == 200
    before = dump(app)
    refused = send(phones[1], match_id, 1, [5])
    assert refused.status_code == 403 and "no longer has a seat" in refused.get_data(as_text=True)
    stranger = send(app.test_client(), match_id, 1, [5])
    assert stranger.status_code == 403
    assert dump(app) == before


def test_a_row_of_more_cards_than_dealt_is_refused_beside_it(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    phones = seated_phones(app, client, match_id, [0])
    before = dump(app)
    refused = send(phones[0], match_id, 0, [1] * 30)
    assert refused.status_code == 422 and "More cards than the" in refused.get_data(as_text=True)
    assert dump(app) == before


def test_burraco_in_pairs_either_partner_sends_the_pairs_one_hand(app, client):
    match_id = start_match(client, "burraco", ["Ann", "Bob", "Cy", "Di"], burraco_mode="pairs",
                           burraco_team1="Noi", burraco_team2="Voi")  # fmt: skip
    phones = seated_phones(app, client, match_id, range(4))
    page = read_words(phones[2].get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    # Cy plays for Noi, the first pair: its phone enters Noi's hand alone, and not who closed.
    drawn = read(page)
    assert "Send our hand 1" in page and drawn.find_all(name="table_1") and not drawn.find_all(name="table_2")
    assert not drawn.find_all(name="closed_by")
    token = csrf_token(phones[2], f"/matches/{ref(match_id)}")
    hand = {"csrf_token": token, "number": "1", "table_1": "120+35", "hand_1": "0", "clean_1": "1", "dirty_1": "0"}
    assert phones[2].post(f"/matches/{ref(match_id)}/rows", data=hand, headers=HTMX).status_code == 200
    # Ann, Cy's partner, sends the pair's hand again: one entry for the pair, the later one.
    token = csrf_token(phones[0], f"/matches/{ref(match_id)}")
    hand.update(csrf_token=token, table_1="160")
    assert phones[0].post(f"/matches/{ref(match_id)}/rows", data=hand, headers=HTMX).status_code == 200
    live = read_words(client.get(f"/matches/{ref(match_id)}/live", headers=HTMX).get_data(as_text=True))
    assert "Hands in: 1 of 2" in live and "waiting for Voi" in live
    sheet = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert sent(sheet, "table_1") == ["160"]
    # The scorekeeper taps who closed and Save: Voi's hand typed here, Noi's as sent.
    form = {"csrf_token": csrf_token(client), "number": "1", "closed_by": "Noi", "table_2": "40", "hand_2": "15"}
    assert client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX).status_code == 200
    sides = stored_match(app, match_id).rounds[0]["sides"]
    assert sides["Noi"] == {"table": 160, "hand": 0, "clean": 1, "dirty": 0}
    assert sides["Voi"] == {"table": 40, "hand": 15, "clean": 0, "dirty": 0}


def test_the_share_pages_seats_cost_a_bodiless_304_until_a_phone_sits_down(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    share = client.get(f"/matches/{ref(match_id)}/share").get_data(as_text=True)
    # The seats' panel polls its own address, sending the version it shows.
    polling = [part for part in read(share).iter() if part.has("data-live")]
    [seats] = [part for part in polling if part.get("hx-get", "").endswith("/seats")]
    etag = seats["data-etag"]
    unchanged = client.get(f"/matches/{ref(match_id)}/seats", headers={**HTMX, "If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.get_data() == b""
    bob = app.test_client()
    bob.environ_base["HTTP_USER_AGENT"] = "Mozilla/5.0 (iPhone) Safari/605"
    assert take(bob, match_id, 1).status_code == 302
    changed = client.get(f"/matches/{ref(match_id)}/seats", headers={**HTMX, "If-None-Match": etag})
    assert changed.status_code == 200 and "Safari · iPhone" in changed.get_data(as_text=True)
    # A viewer's share page does not poll the seats at all.
    viewer_share = app.test_client().get(f"/matches/{ref(match_id)}/share").get_data(as_text=True)
    assert "/seats\"" not in viewer_share


def test_a_correction_of_a_saved_round_is_never_filled_with_the_next_rounds_rows(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    phones = seated_phones(app, client, match_id, [1])
    # Round 1: Bob had no word (no chip); then Bob's phone sends its row of round 2.
    form = {"csrf_token": csrf_token(client), "number": "1", "used-0": ["4", "3"]}
    assert client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX).status_code == 200
    assert send(phones[1], match_id, 1, [9, 9, 9], "ZZZ", number=2).status_code == 200
    correction = client.get(f"/matches/{ref(match_id)}/rounds/1").get_data(as_text=True)
    chips = [chip.get("value", "") for chip in read(correction).find_all("input", name="used-1")]
    assert [value for value in chips if value.isdigit()] == [] and "ZZZ" not in correction
    assert "sent from" not in correction.split("data-sent-from", 1)[1].split(">", 1)[1]


def test_a_table_that_chose_it_has_each_round_saved_by_its_last_row(app, client):
    form = client.get("/matches/new?game=pazzaparola").get_data(as_text=True)
    assert read(form).one("input", name="save_when_rows_in") and "Save each round by itself once every player" in form
    burraco = client.get("/matches/new?game=burraco").get_data(as_text=True)
    assert not read(burraco).find_all(name="save_when_rows_in")
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob", "Cy", "Di"], save_when_rows_in="1")
    phones = seated_phones(app, client, match_id, range(4))
    for position, chips in ((0, [3, 4, 2]), (1, [5, 1]), (2, [2, 2])):
        assert send(phones[position], match_id, position, chips).status_code == 200
    assert stored_match(app, match_id).rounds == []
    last = send(phones[3], match_id, 3, [1], "IO")
    assert last.status_code == 200
    assert "Yours was the last row: round 1 is saved." in html.unescape(last.get_data(as_text=True))
    # Its answer brings that phone's standings too, as the version its page then shows.
    standings = read(last.get_data(as_text=True)).by_id("live")
    assert (standings.tag, standings["hx-swap-oob"]) == ("div", "innerHTML")
    assert last.headers["X-Live-ETag"] == phones[3].get(f"/matches/{ref(match_id)}/live", headers=HTMX).headers["ETag"]
    assert "Send my row of round 2" in read_words(last.get_data(as_text=True))
    rows = stored_match(app, match_id).rounds[0]["rows"]
    assert [rows[name]["used"] for name in ("Ann", "Bob", "Cy", "Di")] == [[3, 4, 2], [5, 1], [2, 2], [1]]
    assert rows["Di"]["word"] == "IO"
    # The scorekeeper's page showed round 1's entry: its next poll draws round 2's, with nothing to save twice.
    live = client.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "X-Entry-Shows": "pencil-1"})
    assert [part for part in read(live.get_data(as_text=True)).iter() if part.get("data-entry-shows") == "pencil-2"]
    assert "Rows in: 0 of 4" in live.get_data(as_text=True)


def test_rows_the_rules_refuse_as_a_round_wait_for_the_scorekeeper(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"], save_when_rows_in="1")
    phones = seated_phones(app, client, match_id, range(2))
    # Two rows with no card: no word was made, which the rules do not take as a round.
    assert [send(phones[p], match_id, p, []).status_code for p in range(2)] == [200, 200]
    assert stored_match(app, match_id).rounds == []
    assert "Rows in: 2 of 2" in client.get(f"/matches/{ref(match_id)}/live", headers=HTMX).get_data(as_text=True)


def test_play_again_keeps_the_tables_choice_and_a_game_without_it_ignores_it(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"], save_when_rows_in="1")
    burraco_id = start_match(client, "burraco", ["Ann", "Bob"], save_when_rows_in="1")
    with app.app_context():
        from companion.services.matches import play_again

        again, _ = play_again(db.session.get(Match, match_id))
        chosen = [db.session.get(Match, found).save_when_rows_in for found in (match_id, burraco_id, again.id)]
        db.session.remove()
    assert chosen == [True, False, True]


def test_a_row_sent_again_under_its_key_is_stored_once(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    bob = seated_phones(app, client, match_id, [1])[1]
    key = "3f0c2a9e-8b1d-4c6e-9a7f-2d5b8e1c4a60"
    token = csrf_token(bob, f"/matches/{ref(match_id)}")
    fields = {"csrf_token": token, "number": "1", "used-1": ["5", "1"], "word-1": "SI", "row_key": key}
    first = bob.post(f"/matches/{ref(match_id)}/rows", data=fields, headers=HTMX)
    assert first.status_code == 200
    with app.app_context():
        from companion.models import SentRow

        revision = db.session.scalar(db.select(SentRow.revision))
        db.session.remove()
    # The answer was lost: the phone sends the same row with the same key; it is stored once, not sent again.
    again = bob.post(f"/matches/{ref(match_id)}/rows", data=fields, headers=HTMX)
    assert again.status_code == 200
    with app.app_context():
        assert db.session.scalar(db.select(SentRow.revision)) == revision
        db.session.remove()
    before = dump(app)
    unreadable = bob.post(f"/matches/{ref(match_id)}/rows", data={**fields, "row_key": "not-a-key"}, headers=HTMX)
    assert unreadable.status_code == 400 and "key cannot be read" in html.unescape(unreadable.get_data(as_text=True))
    assert dump(app) == before


def test_the_row_that_ended_the_match_sent_again_under_its_key_is_answered_as_stored(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"], target="1", save_when_rows_in="1")
    phones = seated_phones(app, client, match_id, range(2))
    assert send(phones[0], match_id, 0, [5, 2]).status_code == 200
    token = csrf_token(phones[1], f"/matches/{ref(match_id)}")
    last = {"csrf_token": token, "number": "1", "used-1": ["3"], "row_key": "0b8f3c1e-2a4d-4e6f-8a9b-1c2d3e4f5a6b"}
    assert phones[1].post(f"/matches/{ref(match_id)}/rows", data=last, headers=HTMX).status_code == 200
    assert stored_match(app, match_id).is_over
    # (The match's version moves with every write that takes its lock; what it holds does not.)
    before = {table: rows for table, rows in dump(app).items() if table != "match"}
    # Its answer was lost: the same send again is told it was stored, not refused as sent to a match over.
    again = phones[1].post(f"/matches/{ref(match_id)}/rows", data=last, headers=HTMX)
    assert again.status_code == 200
    assert {table: rows for table, rows in dump(app).items() if table != "match"} == before
    # A row sent anew to the match over is refused with its reason.
    fresh = phones[1].post(f"/matches/{ref(match_id)}/rows", data={**last, "row_key": ""}, headers=HTMX)
    assert fresh.status_code == 403 and "no longer played" in html.unescape(fresh.get_data(as_text=True))


def test_play_again_seats_the_same_phones_and_their_poll_of_the_finished_match_takes_them_there(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"], target="1")
    phones = seated_phones(app, client, match_id, [1])
    viewer = app.test_client()
    viewer.get(f"/matches/{ref(match_id)}")
    form = {"csrf_token": csrf_token(client), "number": "1", "used-0": ["9"], "used-1": ["2"]}
    assert client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX).status_code == 200
    assert stored_match(app, match_id).status == "finished"
    # The finished match's page on the seated phone asks whether it was played again: not yet.
    asks = f"/matches/{ref(match_id)}/followed"
    assert asks in phones[1].get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert asks not in viewer.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "HX-Redirect" not in phones[1].get(asks, headers=HTMX).headers
    before = dump(app)
    again = client.post(f"/matches/{ref(match_id)}/again", data={"csrf_token": csrf_token(client)})
    new_id = unref(again.headers["Location"].rsplit("/", 1)[1])
    assert seated(app, new_id) == seated(app, match_id) and seated(app, new_id)["Bob"] is not None
    # The finished match is left as it was but for its version, one on: a viewer's poll draws the way to the new one.
    version = list(Match.__table__.columns.keys()).index("version")

    [after] = [row for row in dump(app)["match"] if row[0] == match_id]
    assert after[:version] + (after[version] - 1,) + after[version + 1 :] == next(
        row for row in before["match"] if row[0] == match_id
    )
    # Its next question takes the seated phone to the new match; a viewer has none to ask, and is shown the way.
    answer = phones[1].get(asks, headers=HTMX)
    assert answer.status_code == 200 and answer.headers["HX-Redirect"] == f"/matches/{ref(new_id)}"
    assert "HX-Redirect" not in viewer.get(asks, headers=HTMX).headers
    polled = viewer.get(f"/matches/{ref(match_id)}/live", headers=HTMX).get_data(as_text=True)
    assert [link.attrs["href"] for link in read(polled).one(cls="played-again").find_all("a")] == [
        f"/matches/{ref(new_id)}"
    ]
    assert "Your seat: Bob" in read_words(phones[1].get(f"/matches/{ref(new_id)}").get_data(as_text=True))


def test_a_phone_freed_from_its_seat_at_a_finished_match_stops_asking_whether_it_was_played_again(app, client):
    # The page of a finished match on a phone seated at it asked every second, for ever, whether it was played again.
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"], target="1")
    phones = seated_phones(app, client, match_id, [1])
    form = {"csrf_token": csrf_token(client), "number": "1", "used-0": ["9"], "used-1": ["2"]}
    assert client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX).status_code == 200
    asks = f"/matches/{ref(match_id)}/followed"
    # Seated, it asks on: a Play again would seat it at the new match.
    assert phones[1].get(asks, headers=HTMX).status_code == 200
    freed = client.post(f"/matches/{ref(match_id)}/seats/free",
                        data={"csrf_token": csrf_token(client), "seat": "1"}, headers=HTMX)  # fmt: skip
    assert freed.status_code == 200
    # Freed, no Play again can seat it any more: the answer is the poll's last, and takes it nowhere.
    answer = phones[1].get(asks, headers=HTMX)
    assert answer.status_code == 286 and "HX-Redirect" not in answer.headers
