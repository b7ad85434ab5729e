"""Web tests of the new-match form's friction: the focus after Add, names kept and told, the player limit."""

from __future__ import annotations

from tests.helpers import post_new_match
from tests.pages import Element, read

SAME_ON_EVERY_DATABASE = "the new-match form's markup"


def setup_tap(client, game: str, seats: list[str], **fields):
    """A tap on the new-match form (an htmx POST) with the game picked and these players seated."""
    return post_new_match(client, game, seats, htmx=True, **fields)


def name_field(html: str) -> Element:
    """The field a new player's name is typed in."""
    field = read(html).one_by_role("textbox", "New player name")
    assert field["type"] == "text"
    return field


def test_after_add_the_name_field_keeps_the_focus(client):
    html = setup_tap(client, "topic", ["Ann"], action="new", new_name="Bob").get_data(as_text=True)
    field = name_field(html)
    assert field["value"] == "" and field.has("autofocus") and not field.has("hx-preserve")


def test_a_name_typed_during_another_tap_is_kept(client):
    html = setup_tap(client, "topic", ["Ann"], action="game:pazaak", new_name="Bo").get_data(as_text=True)
    field = name_field(html)
    assert field.has("hx-preserve") and not field.has("autofocus")


def test_a_name_over_40_characters_is_told_not_cut(client):
    response = setup_tap(client, "topic", ["Ann"], action="new", new_name="x" * 41)
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and "A name has 1 to 40 characters." in html
    field = name_field(html)
    assert field.get("maxlength") is None and field["value"] == "x" * 41
    assert not [element for element in read(html).iter() if element.get("maxlength") == "40"]


def test_at_the_player_limit_add_is_disabled_and_says_why(client):
    html = setup_tap(client, "pazaak", ["Ann", "Bob"], action="game:pazaak").get_data(as_text=True)
    add = read(html).one_by_role("button", "Add")
    assert (add["type"], add["name"], add["value"], add.has("disabled")) == ("submit", "action", "new", True)
    assert "Pazaak seats at most 2 players: every seat is taken." in html
    refused = setup_tap(client, "pazaak", ["Ann", "Bob"], action="new", new_name="Cy")
    assert refused.status_code == 422
    assert "Pazaak seats at most 2 players: every seat is taken." in refused.get_data(as_text=True)
    assert "Cy" not in [seat["value"] for seat in read(refused.get_data(as_text=True)).find_all("input", name="seat")]


def test_a_game_this_server_does_not_have_is_said_beside_the_games_and_nothing_is_started(app, client):
    from companion.extensions import db
    from companion.models import Match

    started = post_new_match(client, "zzz", ["Ann", "Bob"])
    tapped = setup_tap(client, "topic", ["Ann", "Bob"], action="game:zzz")
    linked = client.get("/matches/new?game=zzz")
    for answer, status in ((started, 422), (tapped, 422), (linked, 400)):
        html = answer.get_data(as_text=True)
        assert answer.status_code == status and 'id="game-error"' in html
        assert "There is no such game here: pick one of these." in html
    with app.app_context():
        assert db.session.query(Match).count() == 0
    assert client.get("/matches/new?game=burraco").status_code == 200
