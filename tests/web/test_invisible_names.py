"""Names made to look like another by characters that draw nothing are refused wherever a name is typed."""

from __future__ import annotations

import pytest

from companion.extensions import db
from companion.models import Player
from tests.helpers import csrf_token, post_new_match, ref, start_match

SAME_ON_EVERY_DATABASE = "names refused by the rules before anything is stored"

# Each looks like "Ann" (or like nothing at all) on a phone.
FILLED = ["Ann\u3164", "Ann\u2800", "An\u034fn", "Ann\uffa0", "Ann\u115f", "\u3164", "\u2800\u2800"]


def players(app) -> list[str]:
    """The roster's names as stored."""
    with app.app_context():
        names = [player.name for player in db.session.query(Player)]
        db.session.remove()
    return names


def filler_code(name: str) -> str:
    """The code point the refusal names: the name's first character that is not a letter of "Ann"."""
    return next(f"U+{ord(character):04X}" for character in name if character not in "An")


@pytest.mark.parametrize("name", FILLED)
def test_a_name_with_an_invisible_filler_is_refused_beside_the_field(app, client, name):
    typed = post_new_match(client, "topic", ["Bob"], action="new", htmx=True, new_name=name)
    assert typed.status_code == 422
    html = typed.get_data(as_text=True)
    assert "A name may not hold invisible or control characters" in html and filler_code(name) in html
    started = post_new_match(client, "topic", ["Ann", name, "Bob"])
    assert started.status_code == 422
    assert "invisible or control characters" in started.get_data(as_text=True)
    assert players(app) == []


def test_six_fillers_after_ann_seat_no_one(app, client):
    seats = ["Ann", *(f"Ann{filler}" for filler in "\u3164\u2800\u034f\uffa0\u115f")]
    assert post_new_match(client, "pazzaparola", seats).status_code == 422
    assert players(app) == []


def test_a_rename_to_a_filled_name_is_refused_in_italian(app, host_client):
    start_match(host_client, "topic", ["Ann", "Bob"])
    with app.app_context():
        ann = db.session.query(Player).filter_by(name="Ann").one().id
        db.session.remove()
    host_client.set_cookie("lang", "it")
    token = csrf_token(host_client, f"/players/{ref(ann, 'player')}")
    response = host_client.post(
        f"/players/{ref(ann, 'player')}/rename", data={"csrf_token": token, "name": "Ann\u3164"}
    )
    assert response.status_code == 422
    assert "Un nome non può contenere caratteri invisibili" in response.get_data(as_text=True)
    assert sorted(players(app)) == ["Ann", "Bob"]
