"""Pazaak on the players' own phones: each seated phone its board, its hand seen by no other phone."""

from __future__ import annotations

import html
import json
import re
from collections import Counter

from sqlalchemy import update

from companion.extensions import db
from companion.games import get_game
from companion.models import Match, RoundChange, Seat
from companion.pages.match import MatchPage
from companion.queries.matches import seat_of
from companion.services import seats
from companion.web.groups import signed_credential
from tests.helpers import HTMX, csrf_token, dump, give_pencil, phone_cookie, read_words, ref, start_match, take
from tests.pages import read

# Ann's hand: none of these labels is drawn anywhere on Bob's board but where Ann has played it.
ANN = ["+5", "−6", "±4", "Flip 3&6"]
BOB = ["+1", "+2", "−1", "T±1"]


def tap(phone, match_id: int, path: str, **fields):
    """A tap on this phone's board (`board`) or hand picker (`hand`), as htmx sends it."""
    token = csrf_token(phone, f"/matches/{ref(match_id)}")
    return phone.post(f"/matches/{ref(match_id)}/{path}", data={"csrf_token": token, **fields}, headers=HTMX)


def move(phone, match_id: int, played: str, number: int = 1):
    """This phone plays a move on its board in set `number` ("draw:7", "plus:5", "stand" ...)."""
    return tap(phone, match_id, "board", move=played, number=str(number))


def note(phone, match_id: int, cards: list[str]) -> None:
    """This phone notes its hand, card by card."""
    for card in cards:
        assert tap(phone, match_id, "hand", card=card).status_code == 200, card


def two_boards(app, client):
    """A Pazaak match started by Ann's phone (the scorekeeper), Ann and Bob each seated on their phone with
    their hand noted; returns the match and the two phones."""
    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    bob = app.test_client()
    assert take(client, match_id, 0).status_code == 302
    assert take(bob, match_id, 1).status_code == 302
    note(client, match_id, ANN)
    note(bob, match_id, BOB)
    return match_id, bob


def unplayed_in(text: str, cards: list[str]) -> list[str]:
    """The cards of `cards` that a page's text holds, decoded as a browser would read it (entities, JSON)."""
    decoded = html.unescape(text)
    decoded += json.dumps(decoded).encode().decode("unicode_escape")
    return [card for card in cards if card in decoded or card.replace("−", "\\u2212") in text]


def test_each_phone_notes_its_hand_and_sees_only_how_many_cards_the_other_holds(app, client):
    match_id, bob = two_boards(app, client)
    ann_page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    bob_page = bob.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "Your seat: Ann" in read_words(ann_page) and "Set 1 · your board" in html.unescape(ann_page)
    assert "4 cards in hand, on their own phone" in html.unescape(bob_page)
    assert unplayed_in(bob_page, ANN) == []
    assert unplayed_in(ann_page, BOB) == []
    # Each phone has its own hand in its board: what the two checks above look for is there to be found.
    assert unplayed_in(ann_page, ANN) == ANN and unplayed_in(bob_page, BOB) == BOB
    viewer = app.test_client().get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert unplayed_in(viewer, ANN + BOB) == []


def test_a_set_played_on_two_boards_is_saved_by_the_tap_that_decides_it(app, client):
    match_id, bob = two_boards(app, client)
    # Not Bob's turn: refused with its reason, nothing kept.
    before = dump(app)
    refused = html.unescape(move(bob, match_id, "draw:3").get_data(as_text=True))
    assert "Refused:" in refused and dump(app) == before
    assert "Waiting for Ann to play." in read_words(bob.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    for phone, played in ((client, "draw:10"), (client, "plus:5"), (client, "stand"), (bob, "draw:9")):
        answer = move(phone, match_id, played)
        assert answer.status_code == 200 and "Refused" not in html.unescape(answer.get_data(as_text=True)), played
        assert not read(answer.get_data(as_text=True)).find_all(id="live")
    # Ann played her +5: Bob now sees it on her table, and her hand's three other cards as a count.
    bob_page = html.unescape(bob.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "3 cards in hand, on their own phone" in bob_page
    assert unplayed_in(bob_page, ANN[1:]) == []
    saved = move(bob, match_id, "stand")
    assert "Set 1 is decided and saved." in html.unescape(saved.get_data(as_text=True))
    # The answer brings Bob's standings too, as the version his page then shows (no poll drawn over them).
    answer = html.unescape(saved.get_data(as_text=True))
    standings = read(answer).by_id("live")
    assert (standings.tag, standings["hx-swap-oob"]) == ("div", "innerHTML") and "1 set played, 0 tied" in answer
    assert saved.headers["X-Live-ETag"] == bob.get(f"/matches/{ref(match_id)}/live", headers=HTMX).headers["ETag"]
    with app.app_context():
        match = db.session.get(Match, match_id)
        assert match.rounds[0].data["cards"] == {"Ann": ["10", "+5"], "Bob": ["9"]}
        assert match.round_in_progress is None
        db.session.remove()


def test_a_phone_plays_only_its_own_hand_on_its_own_turn_and_takes_back_only_its_own_tap(app, client):
    match_id, bob = two_boards(app, client)
    assert move(client, match_id, "draw:4").status_code == 200
    # Ann's phone sends Bob's card as if it were hers: it is not in her hand, which is all she may play.
    answer = html.unescape(move(client, match_id, "plus:1").get_data(as_text=True))
    assert "Refused: +1 is not in Ann's hand" in answer
    # Bob's phone cannot take back Ann's tap.
    answer = html.unescape(move(bob, match_id, "undo").get_data(as_text=True))
    assert "Refused: The last tap was not yours" in answer
    assert "Refused" not in html.unescape(move(client, match_id, "undo").get_data(as_text=True))


def test_a_hand_is_fixed_once_play_begins_and_a_fifth_card_is_refused(app, client):
    match_id, bob = two_boards(app, client)
    refused = tap(client, match_id, "hand", card="+3")
    assert refused.status_code == 422 and "A hand holds 4 side cards" in html.unescape(refused.get_data(as_text=True))
    # Said once, beside the hand picker.
    assert html.unescape(refused.get_data(as_text=True)).count("A hand holds 4 side cards") == 1
    assert tap(client, match_id, "hand", drop="0").status_code == 200
    assert move(client, match_id, "draw:4").status_code == 200
    before = dump(app)
    refused = tap(client, match_id, "hand", drop="0")
    assert refused.status_code == 422 and "Your hand is fixed once the first set has begun" in html.unescape(
        refused.get_data(as_text=True)
    )
    not_a_card = tap(client, match_id, "hand", card="+9")
    assert not_a_card.status_code == 422
    assert '"+9" is not a side card' in html.unescape(not_a_card.get_data(as_text=True))
    assert dump(app) == before


def test_the_hands_never_reach_the_history_the_change_log_or_the_match_file_and_go_at_the_end(app, client):
    match_id, bob = two_boards(app, client)
    for number in (1, 2, 3):
        for phone, played in _set_won_by_ann(match_id, client, bob):
            answer = move(phone, match_id, played, number)
            assert answer.status_code == 200 and "Refused" not in html.unescape(answer.get_data(as_text=True)), played
    with app.app_context():
        match = db.session.get(Match, match_id)
        assert match.status == "finished"
        assert [seat.hand for seat in match.seats] == [None, None]
        changes = [json.dumps(c.after) + json.dumps(c.before) for c in db.session.query(RoundChange).all()]
        db.session.remove()
    for text in [
        client.get(f"/matches/{ref(match_id)}.json").get_data(as_text=True),
        client.get(f"/matches/{ref(match_id)}/changes").get_data(as_text=True),
        client.get("/history").get_data(as_text=True),
        client.get("/history.csv").get_data(as_text=True),
        client.get(f"/matches/{ref(match_id)}").get_data(as_text=True),
        *changes,
    ]:
        assert unplayed_in(text, ANN + BOB) == []


def _set_won_by_ann(match_id: int, ann, bob):
    """The taps of a set Ann wins 10 to 9, beginning with whoever starts it."""
    page = read_words(ann.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    if "Ann to play" in page:
        return [(ann, "draw:10"), (ann, "stand"), (bob, "draw:9"), (bob, "stand")]
    return [(bob, "draw:9"), (bob, "stand"), (ann, "draw:10"), (ann, "stand")]


def test_a_scorekeeper_not_seated_sees_both_boards_but_neither_hand(app, client):
    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    ann, bob = app.test_client(), app.test_client()
    assert take(ann, match_id, 0).status_code == 302 and take(bob, match_id, 1).status_code == 302
    note(ann, match_id, ANN)
    note(bob, match_id, BOB)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert unplayed_in(page, ANN + BOB) == []
    assert "Ann plays their side cards on their own phone." in read_words(page)
    # The scorekeeper's calculator draws for Ann; her side cards are hers to play, from her phone.
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    entry = f"/matches/{ref(match_id)}/entry"
    assert client.post(entry, data={"csrf_token": token, "move": "draw:6"}, headers=HTMX).status_code == 200
    answer = html.unescape(
        client.post(entry, data={"csrf_token": token, "move": "plus:5"}, headers=HTMX).get_data(as_text=True)
    )
    assert "Refused: Ann plays their side cards on their own phone" in answer
    # Her phone plays it, and the scorekeeper's calculator shows it at its next poll (the entry drawn again).
    assert move(ann, match_id, "plus:5").status_code == 200
    shows = re.search(r'data-entry-shows="([^"]+)"', page).group(1)
    live = client.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "X-Entry-Shows": shows})
    assert re.search(r"pazaak-card pazaak-plus[^>]*>\+5", live.get_data(as_text=True))


def test_a_seated_phone_that_gave_the_pencil_away_still_follows_the_other_board(app, client):
    match_id, bob = two_boards(app, client)
    give_pencil(client, app.test_client(), match_id)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "Set 1 · your board" in html.unescape(page)
    shows = re.search(r'data-entry-shows="([^"]+)"', page).group(1)
    assert move(client, match_id, "draw:10").status_code == 200 and move(client, match_id, "stand").status_code == 200
    assert move(bob, match_id, "draw:4").status_code == 200
    # Bob's tap is news to Ann's board: her poll's answer draws her entry again, with his card on his table.
    live = client.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "X-Entry-Shows": shows})
    assert read(live.get_data(as_text=True)).by_id("entry")
    assert re.search(r"pazaak-card pazaak-main[^>]*>4<", live.get_data(as_text=True))


def test_two_quick_taps_on_the_hand_picker_both_count(app, client):
    """A tap read this phone's seat before the other tap, answered meanwhile, noted its card: under the lock the
    hand is read again, so the second card joins the first instead of writing over it (a card lost on CI)."""
    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    assert take(client, match_id, 0).status_code == 302
    credential = signed_credential(phone_cookie(client).value, app)
    with app.app_context():
        match = db.session.get(Match, match_id)
        seat = seat_of(match, credential)
        assert seat is not None and not seat.hand
        with db.engine.begin() as other_tap:
            other_tap.execute(update(Seat).where(Seat.id == seat.id).values(hand=["+5"]))
        noted = seats.note_hand(match, 0, credential, lambda hand, _begun: [*hand, "−6"])
    assert noted == ["+5", "−6"]
    with app.app_context():
        assert db.session.get(Seat, seat.id).hand == ["+5", "−6"]


def test_a_tap_on_a_board_is_applied_once_and_its_page_drawn_once(app, client, monkeypatch):
    """The service applies the tap and the answer is drawn from what it came to: one page and one replay of the
    rounds per tap, where the rules refuse it as where it is kept; the tap that decides the set is saved with one
    more replay, the save's, from which the next set is drawn."""
    match_id, bob = two_boards(app, client)
    runs = Counter()
    pazaak = type(get_game("pazaak"))
    for owner, name in ((MatchPage, "__init__"), (pazaak, "replay")):
        monkeypatch.setattr(owner, name, _counted(getattr(owner, name), runs, name))

    def counted_tap(phone, played: str) -> tuple[Counter, str]:
        """The page built and the replays run by this tap alone, and its answer's text."""
        token = csrf_token(phone, f"/matches/{ref(match_id)}")
        runs.clear()
        answer = phone.post(f"/matches/{ref(match_id)}/board", data={"csrf_token": token, "move": played,
                                                                    "number": "1"}, headers=HTMX)  # fmt: skip
        assert answer.status_code == 200, played
        return Counter(runs), html.unescape(answer.get_data(as_text=True))

    once = {"__init__": 1, "replay": 1}
    runs_of_refused, refused = counted_tap(bob, "draw:3")  # not Bob's turn: refused by the rules, nothing kept
    assert "Refused:" in refused and runs_of_refused == once
    for phone, played in ((client, "draw:10"), (client, "stand"), (bob, "draw:9")):
        runs_of_kept, kept = counted_tap(phone, played)
        assert "Refused" not in kept and runs_of_kept == once, played
    runs_of_saved, saved = counted_tap(bob, "stand")
    assert "Set 1 is decided and saved." in saved and runs_of_saved == {"__init__": 1, "replay": 2}


def _counted(function, runs: Counter, name: str):
    """`function`, counting its calls in `runs` under `name`."""

    def counting(*args, **kwargs):
        runs[name] += 1
        return function(*args, **kwargs)

    return counting
