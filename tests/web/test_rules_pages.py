"""Web tests of rules a real table would catch: Burraco pairs closing, corrections that end a match."""

from __future__ import annotations

import html as markup
import json
import re

from flask.testing import FlaskClient

from tests.conftest import save_round, start_match, stored_match

FOUR = ["Ann", "Bob", "Cy", "Di"]
PAIRS = {"burraco_mode": "pairs", "burraco_team1": "Noi", "burraco_team2": "Voi"}


def text_of(html: str) -> str:
    """The page's text with tags and runs of spaces removed."""
    return markup.unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def scored_by_cli(client: FlaskClient, runner, tmp_path, match_id: int) -> dict:
    """`flask score` of the match file the page exports."""
    path = tmp_path / f"match-{match_id}.json"
    path.write_bytes(client.get(f"/matches/{match_id}.json").data)
    result = runner.invoke(args=["score", str(path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- Burraco in pairs: the closer's partner may still hold cards -------------------------


def test_in_pairs_the_closing_pair_saves_a_hand_with_the_partners_cards(client, app, runner, tmp_path):
    match_id = start_match(client, "burraco", FOUR, **PAIRS)
    entry = text_of(client.get(f"/matches/{match_id}").get_data(as_text=True))
    assert "Left in hand (both partners)" in entry
    # Ann closes for Noi; her partner Cy still holds 25; the pair laid 230 with a clean burraco.
    fields = {"closed_by": "Noi", "table_1": "230", "hand_1": "25", "clean_1": "1", "table_2": "150", "hand_2": "40"}
    response = save_round(client, match_id, fields, 1)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert "Hand 1: Noi 505 (closed), Voi 110" in text_of(response.get_data(as_text=True))
    assert stored_match(app, match_id).rounds[0]["sides"]["Noi"]["hand"] == 25
    assert scored_by_cli(client, runner, tmp_path, match_id)["totals"] == {"Noi": 505, "Voi": 110}


def test_playing_alone_the_closer_with_cards_in_hand_is_still_refused(client, app):
    match_id = start_match(client, "burraco", FOUR)
    assert "Left in hand (both partners)" not in client.get(f"/matches/{match_id}").get_data(as_text=True)
    response = save_round(client, match_id, {"closed_by": "Ann", "table_1": "230", "hand_1": "25", "clean_1": "1"}, 1)
    assert response.status_code == 422
    assert "closed the hand but holds 25 points in hand" in text_of(response.get_data(as_text=True))
    assert stored_match(app, match_id).rounds == []
