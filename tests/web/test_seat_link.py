"""The viewer link watches, the seat link seats: renewing the seat link, Free keeping a phone out, a seated outsider."""

from __future__ import annotations

import html
import re

from sqlalchemy import select

from companion.extensions import db
from companion.models import Match, SentRow
from tests.helpers import (
    HTMX,
    csrf_token,
    dump,
    join_group,
    read_words,
    ref,
    start_match,
    stored_match,
    take,
    unref,
)
from tests.pages import read

VIEWER_LINK = re.compile(r'href="https?://[^/"]+(/matches/[^"?]+\?follow=[^"]+)"')
SEAT_LINK = re.compile(r'href="https?://[^/"]+(/matches/[^"]+/seat[^"]*)"')


VIEWER_ONLY = "This link only follows the match: to take a seat, scan the seat link"
VIEWER_ONLY_IT = "Questo link serve solo a seguire la partita: per sederti, inquadra il link per prendere posto"


def link_on(share: str, pattern: re.Pattern) -> str:
    """A link the share page shows, as a path."""
    return html.unescape(pattern.search(share).group(1))


def share_page(phone, match_id: int) -> str:
    return phone.get(f"/matches/{ref(match_id)}/share").get_data(as_text=True)


def send(phone, match_id: int, position: int, chips: list[int], word: str = "", number: int = 1):
    """The phone sends the row of seat `position` of a Pazzaparola round, as a seated phone's entry does."""
    token = csrf_token(phone, f"/matches/{ref(match_id)}")
    fields = {"csrf_token": token, "number": str(number), f"word-{position}": word,
              f"used-{position}": [str(points) for points in chips]}  # fmt: skip
    return phone.post(f"/matches/{ref(match_id)}/rows", data=fields, headers=HTMX)


def tap(phone, match_id: int, path: str, **fields):
    """A tap on a Pazaak board (`board`) or hand picker (`hand`), as htmx sends it."""
    token = csrf_token(phone, f"/matches/{ref(match_id)}")
    return phone.post(f"/matches/{ref(match_id)}/{path}", data={"csrf_token": token, **fields}, headers=HTMX)


def seated(app, match_id: int) -> list[bool]:
    """Which seats a phone holds, as stored."""
    with app.app_context():
        found = [seat.phone is not None for seat in db.session.get(Match, match_id).seats]
        db.session.remove()
    return found


def test_phones_holding_only_the_viewer_link_take_no_seat_and_store_no_round(two_groups):
    app, phones, _, _ = two_groups
    bob = phones["bob"]
    match_id = start_match(bob, "pazzaparola", ["Annabella", "Bobbington"], save_when_rows_in="1")
    viewer_link = link_on(share_page(bob, match_id), VIEWER_LINK)
    viewers = [app.test_client(), app.test_client(), phones["di"]]
    viewers[1].set_cookie("lang", "it")
    before = dump(app)
    for position, viewer in enumerate(viewers):
        reason = VIEWER_ONLY_IT if viewer is viewers[1] else VIEWER_ONLY
        assert viewer.get(viewer_link).status_code == 200
        picker = viewer.get(f"/matches/{ref(match_id)}/seat")
        assert picker.status_code == 403 and reason in read_words(html.unescape(picker.get_data(as_text=True)))
        taken = take(viewer, match_id, position % 2, path=viewer_link)
        assert taken.status_code == 403 and reason in read_words(html.unescape(taken.get_data(as_text=True)))
        refused = send(viewer, match_id, position % 2, [5, 1], "RE")
        assert refused.status_code == 403 and reason in read_words(html.unescape(refused.get_data(as_text=True)))
    assert seated(app, match_id) == [False, False]
    assert stored_match(app, match_id).rounds == []
    assert dump(app) == before


def test_a_viewer_link_taps_no_pazaak_board_and_notes_no_hand(two_groups):
    app, phones, _, _ = two_groups
    bob = phones["bob"]
    match_id = start_match(bob, "pazaak", ["Annabella", "Bobbington"])
    viewer = app.test_client()
    assert viewer.get(link_on(share_page(bob, match_id), VIEWER_LINK)).status_code == 200
    before = dump(app)
    noted = tap(viewer, match_id, "hand", card="+5")
    played = tap(viewer, match_id, "board", move="draw:7", number="1")
    for refused in (noted, played):
        assert refused.status_code == 403
        assert VIEWER_ONLY in read_words(html.unescape(refused.get_data(as_text=True)))
    assert dump(app) == before


def test_the_seat_link_is_another_link_and_its_renewal_stops_the_old_one_at_once(two_groups):
    app, phones, _, _ = two_groups
    ann, bob = phones["ann"], phones["bob"]
    match_id = start_match(bob, "pazzaparola", ["Annabella", "Bobbington", "Cyrillo"])
    share = share_page(bob, match_id)
    seat_link, viewer_link = link_on(share, SEAT_LINK), link_on(share, VIEWER_LINK)
    assert "follow=" not in seat_link
    assert seat_link.split("=", 1)[1] not in viewer_link
    # A phone outside the group sits down by the seat link.
    first = app.test_client()
    assert first.get(seat_link).status_code == 200
    assert take(first, match_id, 0, path=seat_link).status_code == 302
    # The scorekeeper renews it: the share page shows another link, with its QR code.
    token = csrf_token(bob, f"/matches/{ref(match_id)}/share")
    renewed = bob.post(f"/matches/{ref(match_id)}/seats/renew", data={"csrf_token": token}, headers=HTMX)
    assert renewed.status_code == 200
    panel = renewed.get_data(as_text=True)
    new_link = link_on(panel, SEAT_LINK)
    assert new_link != seat_link and read(panel).one_by_role("img", "QR code of the seat link")
    assert "A new seat link: the old seat link no longer seats anyone" in read_words(html.unescape(panel))
    assert link_on(share_page(ann, match_id), SEAT_LINK) == new_link
    # The old link seats nobody, and says why; the seated phone keeps its seat and sends its row.
    late = app.test_client()
    opened = late.get(seat_link)
    assert opened.status_code == 403
    assert "This seat link was replaced by a newer one" in read_words(html.unescape(opened.get_data(as_text=True)))
    # A page of the picker opened before the renewal sends the old link's key: refused too.
    second = app.test_client()
    assert second.get(new_link).status_code == 200
    stale_key = seat_link.split("=", 1)[1]
    form = {"csrf_token": csrf_token(second, new_link), "seat": "1", "seat_key": stale_key}
    assert second.post(f"/matches/{ref(match_id)}/seat", data=form).status_code == 403
    assert seated(app, match_id) == [True, False, False]
    assert send(first, match_id, 0, [5, 1], "RE").status_code == 200
    # The new link seats a phone; the host renews it too; a phone neither scorekeeper nor host may not.
    assert take(second, match_id, 1, path=new_link).status_code == 302
    assert seated(app, match_id) == [True, True, False]
    token = csrf_token(ann, f"/matches/{ref(match_id)}/share")
    assert ann.post(f"/matches/{ref(match_id)}/seats/renew", data={"csrf_token": token}).status_code == 302
    eve = app.test_client()
    assert join_group(eve, f"/join/{_invite(app)}").status_code == 302
    token = csrf_token(eve, f"/matches/{ref(match_id)}/share")
    assert eve.post(f"/matches/{ref(match_id)}/seats/renew", data={"csrf_token": token}).status_code == 403
    token = csrf_token(first, f"/matches/{ref(match_id)}")
    assert first.post(f"/matches/{ref(match_id)}/seats/renew", data={"csrf_token": token}).status_code == 404


def _invite(app) -> str:
    """The Gialli kitchen's invite token, as its host's page shows it."""
    from companion.models import Group

    with app.app_context():
        token = db.session.query(Group).filter_by(name="Gialli kitchen").one().invite
        db.session.remove()
    return token


def free(phone, match_id: int, position: int, action: str = "free"):
    token = csrf_token(phone, f"/matches/{ref(match_id)}/share")
    return phone.post(f"/matches/{ref(match_id)}/seats/{action}", data={"csrf_token": token, "seat": str(position)},
                      headers=HTMX)  # fmt: skip


def test_free_keeps_the_freed_phone_out_of_that_seat_until_it_is_let_back_in(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    bob, other = app.test_client(), app.test_client()
    bob.set_cookie("lang", "it")
    assert take(bob, match_id, 1).status_code == 302
    freed = free(client, match_id, 1)
    assert freed.status_code == 200
    panel = read(freed.get_data(as_text=True))
    assert panel.one_by_role("button", "Let the freed phone back into the seat of Bob").text == "Let back in"
    # The freed phone, back at the seat link, is told why it may not sit there, in its language.
    before = dump(app)
    opened = bob.get(f"/matches/{ref(match_id)}/seat")
    assert opened.status_code == 200
    assert "Il segnapunti ha liberato il posto di Bob da questo telefono" in read_words(opened.get_data(as_text=True))
    again = take(bob, match_id, 1)
    assert again.status_code == 403
    assert "Il segnapunti ha liberato il posto di Bob da questo telefono" in read_words(
        html.unescape(again.get_data(as_text=True)))
    assert dump(app) == before
    # Its phone cookie dropped for a new credential, the session that keeps the seat link kept: still kept out.
    assert bob.get_cookie("phone") is not None
    bob.delete_cookie("phone")
    assert take(bob, match_id, 1).status_code == 403 and dump(app) == before
    # Another phone may sit there; the freed one may take another seat.
    assert take(other, match_id, 1).status_code == 302
    assert take(bob, match_id, 0).status_code == 302
    assert free(client, match_id, 1).status_code == 200
    # Let back in: both freed phones may sit there again (only the scorekeeper's phone or a host lets them).
    assert free(bob, match_id, 1, "let-in").status_code == 403
    let_in = free(client, match_id, 1, "let-in")
    assert let_in.status_code == 200
    assert read(let_in.get_data(as_text=True)).by_role("button", re.compile("Let the freed phone")) == []
    assert take(bob, match_id, 1).status_code == 302
    assert seated(app, match_id) == [False, True]


def test_a_non_member_seated_at_pazaak_notes_its_hand_and_plays_its_board(two_groups):
    app, phones, club_friday, _ = two_groups
    bob = phones["bob"]
    match_id = start_match(bob, "pazaak", ["Annabella", "Bobbington"])
    seat_link = link_on(share_page(bob, match_id), SEAT_LINK)
    outsider = app.test_client()
    assert outsider.get(seat_link).status_code == 200
    assert take(outsider, match_id, 0, path=seat_link).status_code == 302
    for card in ("+5", "−6"):
        assert tap(outsider, match_id, "hand", card=card).status_code == 200, card
    played = tap(outsider, match_id, "board", move="draw:7", number="1")
    assert played.status_code == 200
    with app.app_context():
        match = db.session.get(Match, match_id)
        assert match.seats[0].hand == ["+5", "−6"]
        assert match.round_in_progress["state"]["moves"]
        db.session.remove()
    page = read_words(html.unescape(outsider.get(f"/matches/{ref(match_id)}").get_data(as_text=True)))
    assert "Your seat: Annabella" in page and "+5" in page
    # Still nothing else of the group.
    for path in ("/history", "/players", f"/matches/{ref(club_friday)}", f"/matches/{ref(match_id)}/share"):
        assert outsider.get(path).status_code == 404, path


def test_a_non_member_seated_by_the_seat_link_follows_play_again_to_its_seat_and_sees_nothing_else(two_groups):
    app, phones, club_friday, club_match = two_groups
    bob = phones["bob"]
    match_id = start_match(bob, "pazzaparola", ["Annabella", "Bobbington"], target="1", save_when_rows_in="1")
    share = share_page(bob, match_id)
    seat_link = link_on(share, SEAT_LINK)
    outsider, watcher = app.test_client(), app.test_client()
    assert outsider.get(seat_link).status_code == 200
    assert take(outsider, match_id, 1, path=seat_link).status_code == 302
    assert watcher.get(link_on(share, VIEWER_LINK)).status_code == 200
    token = csrf_token(bob, f"/matches/{ref(match_id)}")
    form = {"csrf_token": token, "number": "1", "used-0": ["9"], "used-1": ["2"]}
    assert bob.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX).status_code == 200
    assert stored_match(app, match_id).status == "finished"
    # The finished match's page on the outsider's phone asks whether it was played again: not yet.
    asks = f"/matches/{ref(match_id)}/followed"
    assert asks in outsider.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "HX-Redirect" not in outsider.get(asks, headers=HTMX).headers
    again = bob.post(f"/matches/{ref(match_id)}/again", data={"csrf_token": csrf_token(bob)})
    new_id = unref(again.headers["Location"].rsplit("/", 1)[1])
    assert seated(app, new_id) == [False, True]
    # Its next question takes it to the new match, at its seat, where it sends its own row as before.
    answer = outsider.get(asks, headers=HTMX)
    assert answer.status_code == 200
    new_page = answer.headers["HX-Redirect"]
    assert new_page.startswith(f"/matches/{ref(new_id)}")
    opened = outsider.get(new_page)
    assert opened.status_code == 200
    assert "Your seat: Bobbington" in read_words(html.unescape(opened.get_data(as_text=True)))
    assert send(outsider, new_id, 1, [5, 1], "RE").status_code == 200
    with app.app_context():
        sent = db.session.scalars(select(SentRow.position).where(SentRow.match_id == new_id)).all()
        db.session.remove()
    assert sent == [1]
    # A phone that follows the finished match by its viewer link is shown the way to the new one, which it may follow.
    polled = read(watcher.get(f"/matches/{ref(match_id)}/live", headers=HTMX).get_data(as_text=True))
    [way] = [link.attrs["href"] for link in polled.one(cls="played-again").find_all("a")]
    assert way.startswith(f"/matches/{ref(new_id)}?follow=") and watcher.get(way).status_code == 200
    assert watcher.get(f"/matches/{ref(new_id)}/live", headers=HTMX).status_code == 200
    # Still nothing else of the group (nor of the other one).
    for path in ("/history", "/players", "/matches/new", f"/matches/{ref(club_friday)}",
                 f"/matches/{ref(club_match)}", f"/matches/{ref(new_id)}/share",
                 f"/matches/{ref(new_id)}/rounds/1"):  # fmt: skip
        assert outsider.get(path).status_code == 404, path
