"""Web tests of the new-match form's friction: the focus after Add, names kept and told, the player limit."""

from __future__ import annotations

import re

from tests.helpers import post_new_match


def setup_tap(client, game: str, seats: list[str], **fields):
    """A tap on the new-match form (an htmx POST) with the game picked and these players seated."""
    return post_new_match(client, game, seats, htmx=True, **fields)


def test_after_add_the_name_field_keeps_the_focus(client):
    html = setup_tap(client, "topic", ["Ann"], action="new", new_name="Bob").get_data(as_text=True)
    field = re.search(r'<input type="text" id="new-name"[^>]*>', html).group(0)
    assert 'value=""' in field and "autofocus" in field and "hx-preserve" not in field


def test_a_name_typed_during_another_tap_is_kept(client):
    html = setup_tap(client, "topic", ["Ann"], action="game:pazaak", new_name="Bo").get_data(as_text=True)
    field = re.search(r'<input type="text" id="new-name"[^>]*>', html).group(0)
    assert "hx-preserve" in field and "autofocus" not in field


def test_a_name_over_40_characters_is_told_not_cut(client):
    response = setup_tap(client, "topic", ["Ann"], action="new", new_name="x" * 41)
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and "A name has 1 to 40 characters." in html
    assert 'maxlength="40"' not in html and 'value="' + "x" * 41 + '"' in html


def test_at_the_player_limit_add_is_disabled_and_says_why(client):
    html = setup_tap(client, "pazaak", ["Ann", "Bob"], action="game:pazaak").get_data(as_text=True)
    assert re.search(r'<button type="submit" name="action" value="new" disabled>Add</button>', html)
    assert "Pazaak seats at most 2 players: every seat is taken." in html
    refused = setup_tap(client, "pazaak", ["Ann", "Bob"], action="new", new_name="Cy")
    assert refused.status_code == 422
    assert "Pazaak seats at most 2 players: every seat is taken." in refused.get_data(as_text=True)
    assert 'name="seat" value="Cy"' not in refused.get_data(as_text=True)
