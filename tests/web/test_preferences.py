"""Web tests of the preferences page: the choice shown is the one in force."""

from __future__ import annotations

import re

import pytest

from tests.helpers import csrf_token

SAME_ON_EVERY_DATABASE = "the preferences page: cookies and markup"


def checked(html: str, name: str) -> list[str]:
    """The values of the radio buttons of group `name` that the page shows ticked."""
    radios = re.findall(rf'<input type="radio" name="{name}" value="([^"]*)"\s*(checked)?', html)
    return [value for value, tick in radios if tick]


def test_first_visit_ticks_follow_the_system_and_the_browsers_language(client):
    page = client.get("/preferences").get_data(as_text=True)
    assert checked(page, "theme") == [""]
    assert checked(page, "lang") == [""]


@pytest.mark.parametrize("theme", ["light", "dark", "black"])
def test_a_saved_theme_is_the_one_ticked(client, theme):
    client.post("/preferences", data={"csrf_token": csrf_token(client, "/preferences"), "theme": theme, "lang": "it"})
    page = client.get("/preferences").get_data(as_text=True)
    assert checked(page, "theme") == [theme]
    assert checked(page, "lang") == ["it"]
