"""The hall screen through its routes: the host opens it, a hall link opens it and nothing else of the group (on a
private server too), a renewed link stops the old one at once, its polled part follows the tables (304 meanwhile)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from companion.extensions import db
from companion.models import Group, Match, utcnow, within_group
from companion.models.club import ClubEvening, ClubLog, ClubTable
from companion.services import club, club_clock, matches
from tests.helpers import HTMX, csrf_token, grant_host_rights, read_words, ref, start_group
from tests.web.test_groups import FOLLOW_LINK

PAIRS = [
    (["Rossi", "Bianchi"], None),
    (["Verdi", "Neri"], None),
    (["Gallo", "Conti"], None),
    (["Greco", "Bruno"], None),
]
PLAN = {"game": "burraco", "pairs": True, "turns": 2, "hands": 2, "first": "danese", "then": "danese"}
HALL_LINK = re.compile(r'href="https?://[^/"]+(/evenings/\w+/hall\?hall_key=[0-9a-f]{32})"')


def begin(app, group_name: str | None = None, name: str = "Friday") -> str:
    """An evening of four pairs begun (in the named group, else the open one); its address."""
    with app.app_context():
        group = db.session.scalar(select(Group.id).where(Group.name == group_name)) if group_name else None
        with within_group(group):
            evening = club.create_evening(name, PLAN, PAIRS)
            club.start(evening)
            address = evening.public_id
        db.session.remove()
    return address


def age_the_draw(app, minutes: int = 10) -> None:
    """The turns were drawn `minutes` ago: the hall shows the tables and the standings, no longer the seating."""
    with app.app_context(), within_group(None):
        db.session.execute(
            update(ClubLog).where(ClubLog.action == "draw").values(at=utcnow() - timedelta(minutes=minutes))
        )
        db.session.commit()


def hall_link(host, address: str) -> str:
    """The hall link the arbiter's page shows its host."""
    return HALL_LINK.search(host.get(f"/evenings/{address}").get_data(as_text=True))[1]


def renew(host, address: str) -> None:
    token = csrf_token(host, f"/evenings/{address}")
    assert host.post(f"/evenings/{address}/hall/renew", data={"csrf_token": token}).status_code == 302


def confirm_table_1(app, address: str) -> None:
    """Table 1's two hands saved and the arbiter confirms them."""
    hand = {"sides": {"N/S": {"table": 120, "hand": 0}, "E/W": {"table": 90, "hand": 0}}, "closed_by": None}
    with app.app_context(), within_group(None):
        evening = db.session.scalar(select(ClubEvening).where(ClubEvening.public_id == address))
        table = db.session.scalar(select(ClubTable).filter_by(evening_id=evening.id, turn=1, number=1))
        with within_group(evening.group_id):
            match = db.session.get(Match, table.match_id)
            for _ in range(2):
                matches.save_round(match, hand)
            club.confirm_as_arbiter(evening, 1, 1)
        db.session.remove()


@pytest.fixture
def private_hall(private_app):
    """A private server: Ann's group with an evening begun, Ann its host; a stranger, and a member who is no host."""
    ann, member, stranger = (private_app.test_client() for _ in range(3))
    invite = start_group(ann, "Gialli")
    member.post(invite, data={"csrf_token": csrf_token(member, invite)})
    address = begin(private_app, "Gialli")
    age_the_draw(private_app)
    return ann, member, stranger, address


def test_a_hall_link_opens_the_hall_and_nothing_else_of_the_group(private_app, private_hall):
    ann, member, stranger, address = private_hall
    link = hall_link(ann, address)
    live = link.replace("/hall?", "/hall/live?")
    page = stranger.get(link)
    assert page.status_code == 200
    text = read_words(page.get_data(as_text=True))
    assert "Turn 1 of 2" in text and "Rossi – Bianchi" in text and "playing · hand 1 of 2" in text
    assert stranger.get(live, headers=HTMX).status_code == 200
    # Nothing else of the group: the arbiter's page, its live part, the standings, the evenings, a match.
    for path in (f"/evenings/{address}", f"/evenings/{address}/live", f"/evenings/{address}/standings",
                 "/evenings", "/history", f"/evenings/{address}/standings?" + link.split("?")[1]):  # fmt: skip
        assert stranger.get(path).status_code == 404, path
    assert (
        stranger.post(f"/evenings/{address}/hall/renew", data={"csrf_token": csrf_token(stranger, link)}).status_code
        == 404
    )
    # Without the key, no phone but a host opens it: not a stranger, not a member.
    assert stranger.get(f"/evenings/{address}/hall").status_code == 404
    assert member.get(f"/evenings/{address}/hall").status_code == 404
    assert member.get(link).status_code == 200
    assert ann.get(f"/evenings/{address}/hall").status_code == 200


def test_a_renewed_hall_link_stops_the_old_one_at_once(private_app, private_hall):
    ann, _, stranger, address = private_hall
    old = hall_link(ann, address)
    assert stranger.get(old).status_code == 200
    renew(ann, address)
    new = hall_link(ann, address)
    assert new != old
    for path in (old, old.replace("/hall?", "/hall/live?")):
        refused = stranger.get(path, headers=HTMX)
        assert refused.status_code == 404
        assert "This hall link was replaced" in refused.get_data(as_text=True)
    assert stranger.get(new).status_code == 200


def test_another_evenings_hall_key_is_refused(private_app, private_hall):
    ann, _, stranger, address = private_hall
    other = begin(private_app, "Gialli", "Saturday")
    key = hall_link(ann, address).split("?")[1]
    assert stranger.get(f"/evenings/{other}/hall?{key}").status_code == 404
    assert ann.get(f"/evenings/{other}/hall?{key}").status_code == 200  # the host needs no key
    assert stranger.get(f"/evenings/{other}/hall/live?{key}", headers=HTMX).status_code == 404


def test_the_seating_comes_first_for_the_first_minutes_of_a_turn(private_app, private_hall):
    ann, _, stranger, address = private_hall
    link = hall_link(ann, address)
    age_the_draw(private_app, 1)
    text = read_words(stranger.get(link).get_data(as_text=True))
    assert "Turn 1: your table" in text and "Greco – Bruno:" in text and "Tables" not in text
    # Alphabetical, each with its table and side.
    seating = re.findall(r"([A-Z]\w+ – \w+):</span> <strong>(table \d, [NE]/[SW])", text)
    assert [name for name, _ in seating] == sorted(name for name, _ in seating) and len(seating) == 4
    tag = stranger.get(link.replace("/hall?", "/hall/live?"), headers=HTMX).headers["ETag"]
    age_the_draw(private_app, 6)
    # Time alone moves it on: the next poll draws the tables and the standings.
    later = stranger.get(link.replace("/hall?", "/hall/live?"), headers={**HTMX, "If-None-Match": tag})
    assert later.status_code == 200 and "Tables" in later.get_data(as_text=True)


def test_the_polled_part_is_unchanged_until_a_table_moves(private_app, private_hall):
    ann, _, stranger, address = private_hall
    live = hall_link(ann, address).replace("/hall?", "/hall/live?")
    first = stranger.get(live, headers=HTMX)
    tag = first.headers["ETag"]
    unchanged = stranger.get(live, headers={**HTMX, "If-None-Match": tag})
    assert unchanged.status_code == 304 and unchanged.get_data() == b""
    confirm_table_1(private_app, address)
    moved = stranger.get(live, headers={**HTMX, "If-None-Match": tag})
    assert moved.status_code == 200 and moved.headers["ETag"] != tag
    text = read_words(moved.get_data(as_text=True))
    assert "confirmed" in text and "1 of 2 tables counted" in text
    # The fragment alone: no second page head, no second poller.
    assert "<html" not in moved.get_data(as_text=True) and 'id="hall-live"' not in moved.get_data(as_text=True)


def test_bad_query_values_are_refused_not_failed(private_app, private_hall):
    ann, _, stranger, address = private_hall
    link = hall_link(ann, address)
    for query in ("hall_key=%C3%A9", "hall_key=" + "f" * 32, "hall_key=" + "x" * 5000, "hall_key=a&hall_key=b"):
        assert stranger.get(f"/evenings/{address}/hall?{query}").status_code == 404, query
    for room in ("purple", "", "%00", "Light", "x" * 5000):
        assert stranger.get(f"{link}&room={room}").status_code == 400, room
        assert ann.get(f"/evenings/{address}/hall/live?room={room}", headers=HTMX).status_code == 400, room
    page = stranger.get(link + "&room=light").get_data(as_text=True)
    assert 'class="hall room-light"' in page and 'data-theme="light"' in page
    assert 'data-theme="dark"' in stranger.get(link).get_data(as_text=True)


def test_on_an_open_server_the_hall_link_opens_it_for_any_phone(app, client):
    address = begin(app)
    host = grant_host_rights(app.test_client())
    link = hall_link(host, address)
    assert client.get(f"/evenings/{address}/hall").status_code == 404
    assert client.get(link).status_code == 200
    renew(host, address)
    assert client.get(link).status_code == 404


def test_a_table_calling_the_arbiter_shows_its_number_not_its_reason_and_time_up_marks_the_tables_late(
    private_app, private_hall
):
    ann, _, stranger, address = private_hall
    live = hall_link(ann, address).replace("/hall?", "/hall/live?")
    tag = stranger.get(live, headers=HTMX).headers["ETag"]
    with private_app.app_context(), within_group(None):
        evening = db.session.scalar(select(ClubEvening).where(ClubEvening.public_id == address))
        table = db.session.scalar(select(ClubTable).filter_by(evening_id=evening.id, turn=1, number=2))
        with within_group(evening.group_id):
            table.call, table.called_at = "a card fell under the table", utcnow()
            evening.version += 1
            db.session.commit()
            club_clock.run_clock(evening, "start")
            club_clock.run_clock(evening, "end")
        db.session.remove()
    # Time up moved the tag with nothing else written since the call: the late marks come without a write.
    moved = stranger.get(live, headers={**HTMX, "If-None-Match": tag})
    assert moved.status_code == 200
    cells = re.findall(
        r'class="hall-cell state-(\w+)"><strong>(\d+)</strong> <span>([^<]*)</span>', moved.get_data(as_text=True)
    )
    assert cells == [("late", "1", "late · hand 1 of 2"), ("called", "2", "calls the arbiter")], cells
    assert "a card fell under the table" not in moved.get_data(as_text=True)


def test_a_viewer_links_table_panel_offers_no_standings_it_may_not_open(private_app, private_hall):
    ann, member, stranger, address = private_hall
    with private_app.app_context(), within_group(None):
        evening = db.session.scalar(select(ClubEvening.id).where(ClubEvening.public_id == address))
        match_id = db.session.scalar(select(ClubTable.match_id).filter_by(evening_id=evening, turn=1, number=1))
    share = ann.get(f"/matches/{ref(match_id)}/share").get_data(as_text=True)
    link = FOLLOW_LINK.search(share)[1].replace("&amp;", "&")
    assert stranger.get(link).status_code == 200
    panel, standings = f"/evenings/table/{ref(match_id)}", f"/evenings/{address}/standings"
    assert stranger.get(standings).status_code == 404
    assert standings not in stranger.get(panel, headers=HTMX).get_data(as_text=True)
    # A member reads them from the same panel.
    assert standings in member.get(panel, headers=HTMX).get_data(as_text=True)
