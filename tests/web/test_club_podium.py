"""A club evening's podium card: its first three in the standings' order (a tie shown as one), in the phone's
language, once the evening is over; reached as its standings are, by the group's phones and its table cards."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from companion.extensions import db
from companion.models import Group, within_group
from companion.models.club import EVENING_OVER, ClubEvening
from companion.pages.club import EveningPage
from companion.queries import club as read
from tests.helpers import play_turns, start_group, started_evening
from tests.pages import read as read_page

ITALIAN = {"Accept-Language": "it-IT,it;q=0.9"}
# Names of 40 characters, the longest a phone may type: the card wraps or shrinks them, never cuts them.
LONG = [f"{first} Della Valle Bonaventura Squarcialupi"[:40] for first in ("Maddalena", "Gianfranco", "Circolo")]
PAIRS = [(LONG[:2], LONG[2]), (["Verdi", "Neri"], None), (["Gallo", "Conti"], "Arona"), (["Greco", "Bruno"], None)]
PLAN = {"game": "burraco", "pairs": True, "turns": 2, "hands": 2, "first": "mitchell", "then": "danese_modificato"}


def evening_of(app, name: str = "Friday") -> str:
    """An evening of four pairs, started; its address."""
    return started_evening(app, name, PLAN, PAIRS)


def card_lines(app, address: str, headers: dict | None = None) -> list[str]:
    """The podium card's words as the phone's language draws them, top to bottom."""
    with app.test_request_context(headers=headers or {}), within_group(None):
        evening = db.session.scalars(db.select(ClubEvening).filter_by(public_id=address)).one()
        lines = EveningPage(evening).podium_card().lines()
        db.session.remove()
    return lines


def podium_of(app, address: str) -> list[tuple[int, str, str | None, int, int]]:
    """The standings' first three as the stored evening recomputes them: place, name, club, TP, difference."""
    with app.app_context():
        evening = db.session.scalars(db.select(ClubEvening).filter_by(public_id=address)).one()
        assert evening.status == EVENING_OVER
        entrants = {entrant.number: entrant for entrant in evening.entrants}
        found = [(line.place, entrants[line.entrant].name, entrants[line.entrant].club, line.tournament_points,
                  line.difference) for line in read.standings(evening)[:3]]  # fmt: skip
        db.session.remove()
    return found


def test_a_finished_evenings_card_names_its_podium_in_the_standings_order(app, client):
    address = evening_of(app, "Venerdì del circolo di Arona")
    play_turns(app, address, 2)
    podium = podium_of(app, address)
    lines = card_lines(app, address)
    assert lines[0] == "Venerdì del circolo di Arona"
    assert lines[2] == "Burraco PAROLE · in pairs · 2 turns × 2 hands"
    assert lines[3] == "Pair Tournament points"
    expected = []
    for place, name, club, points, difference in podium:
        said = f"points difference {difference:+,d}"
        expected.append(f"{place} {name} {f'{club} · {said}' if club else said} {points}")
    assert lines[4:7] == expected and len(lines) == 9
    assert lines[7] == f"Winner: {podium[0][1]}"
    italian = card_lines(app, address, ITALIAN)
    assert italian[2] == "Burraco PAROLE · a coppie · 2 turni × 2 mani"
    assert italian[3] == "Coppia Punti torneo" and italian[7] == f"Vince {podium[0][1]}"
    # The PNG itself, and its links from the standings and the arbiter's page.
    answer = client.get(f"/evenings/{address}/podium.png?theme=dark")
    assert answer.status_code == 200 and answer.mimetype == "image/png"
    assert Image.open(io.BytesIO(answer.get_data())).size[0] == 1080
    assert f'filename="burraco-evening-{address}.png"' in answer.headers["Content-Disposition"]
    card = f"/evenings/{address}/podium.png"
    assert client.get(f"{card}?theme=dark", headers={"If-None-Match": answer.headers["ETag"]}).status_code == 304
    assert client.get(card, headers=ITALIAN).get_data() != client.get(card).get_data()
    for page in (f"/evenings/{address}/standings", f"/evenings/{address}"):
        link = read_page(client.get(page).get_data(as_text=True)).one("a", cls="share-result")
        assert link.text == "Share the podium" and link["href"].startswith(f"/evenings/{address}/podium.png?theme=")


def test_entrants_tied_on_everything_but_the_seeding_share_their_place_on_the_card(app):
    address = evening_of(app)
    play_turns(app, address, 2, even=True)
    lines = card_lines(app, address)
    # Every hand even: the four took the same points from one another; the standings' order, each first.
    names = [name for _place, name, *_ in podium_of(app, address)]
    assert [line.split(" ")[0] for line in lines[4:8]] == ["1", "1", "1", "1"]
    assert [line[2:].startswith(name) for line, name in zip(lines[4:7], names, strict=True)] == [True] * 3
    assert lines[8].startswith("Winners: " + ", ".join(names))


def test_an_evening_not_over_has_no_podium_card_yet_and_says_so(app, client):
    address = evening_of(app)
    play_turns(app, address, 1)
    answer = client.get(f"/evenings/{address}/podium.png")
    assert answer.status_code == 404
    assert "The podium card is drawn once the evening is over" in answer.get_data(as_text=True)
    assert "Share the podium" not in client.get(f"/evenings/{address}/standings").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/evenings/AAAAAAAAAAA/podium.png", "/evenings/12/podium.png"])
def test_an_unknown_evening_has_no_card(client, path):
    assert client.get(path).status_code == 404


def test_a_theme_of_no_card_is_refused(app, client):
    address = evening_of(app)
    play_turns(app, address, 2)
    assert client.get(f"/evenings/{address}/podium.png?theme=pink").status_code == 400


def test_a_table_card_reaches_the_card_and_another_groups_phone_does_not(private_app):
    host, other = private_app.test_client(), private_app.test_client()
    start_group(host, "Circolo")
    start_group(other, "Altro circolo")
    with private_app.app_context():
        group_id = db.session.scalars(db.select(Group.id).filter_by(name="Circolo")).one()
    with within_group(group_id):
        address = evening_of(private_app)
    # A phone outside the group that scanned a table card while the evening was played reads its standings: its
    # podium card too.
    card = re.search(
        r'href="https?://[^/"]+(/evenings/card/[^/"]+/1)"', host.get("/evenings/cards").get_data(as_text=True)
    )
    scanned = private_app.test_client()
    assert scanned.get(card[1]).status_code == 200
    play_turns(private_app, address, 2)
    assert host.get(f"/evenings/{address}/podium.png").status_code == 200
    assert scanned.get(f"/evenings/{address}/podium.png").status_code == 200
    assert other.get(f"/evenings/{address}/podium.png").status_code == 404
    assert private_app.test_client().get(f"/evenings/{address}/podium.png").status_code == 404
