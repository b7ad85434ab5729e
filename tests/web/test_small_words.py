"""The small words of the match pages: plurals, a sentence ending in a name, an ended match, the chart's axis."""

from __future__ import annotations

import re

from tests.helpers import csrf_token, entry_fields, player_id, ref, save_round, start_match, store_samples
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the pages' small words"


def text_of(html: str) -> str:
    """A page's text without its tags, whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_one_set_and_one_round_are_said_in_the_singular(host_client, app):
    match_id = start_match(host_client, "pazaak", ["Ann", "Bob"])
    assert save_round(host_client, match_id, entry_fields(app, match_id, {"winner": "Ann"})).status_code == 200
    page = text_of(host_client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "1 set played, 0 tied." in page and "1 sets" not in page
    end = text_of(host_client.get(f"/matches/{ref(match_id)}/end").get_data(as_text=True))
    assert "· 1 round" in end and "1 rounds" not in end


def test_a_rename_to_a_name_ending_in_a_dot_says_one_dot(host_client, app):
    store_samples(app)
    ann = player_id(app, "Ann")
    url = f"/players/{ref(ann, 'player')}"
    token = csrf_token(host_client, url)
    host_client.post(f"{url}/rename", data={"csrf_token": token, "name": "Benedetta C."})
    page = host_client.get(url).get_data(as_text=True)
    assert "Renamed to Benedetta C." in page and "Benedetta C.." not in page


def test_a_match_the_host_ended_names_no_next_round(host_client, app):
    match_id = start_match(host_client, "pazzaparola", ["Ann", "Bob", "Cy"])
    round_data = {"rows": {"Ann": {"used": [5, 3]}, "Bob": {"used": [2]}, "Cy": {"used": [1]}}}
    assert save_round(host_client, match_id, entry_fields(app, match_id, round_data)).status_code == 200
    before = text_of(host_client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "announces first" in before
    token = csrf_token(host_client, f"/matches/{ref(match_id)}/end")
    assert host_client.post(f"/matches/{ref(match_id)}/end", data={"csrf_token": token}).status_code in (200, 302, 303)
    after = text_of(host_client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "announces first" not in after and "Round 2" not in after


def test_the_chart_names_its_axis_with_the_games_own_round(host_client, app):
    words = {"burraco": "Hand", "pazaak": "Set", "topic": "Round"}
    # One round of each, as its entry form posts it.
    forms = {"burraco": {"closed_by": "", "table_1": "100", "table_2": "50"}, "pazaak": {"winner": "0"},
             "topic": {"loser": "Bob"}}  # fmt: skip
    for game, word in words.items():
        match_id = start_match(host_client, game, ["Ann", "Bob"])
        assert save_round(host_client, match_id, forms[game]).status_code == 200
        page = host_client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
        [chart] = read(page).find_all("svg", cls="totals-chart")
        axis = [label.text for label in chart.find_all("text")]
        assert word in axis, (game, axis)
        if word != "Round":
            assert "Round" not in axis, game
