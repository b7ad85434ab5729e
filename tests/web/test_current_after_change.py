"""Web tests: after a save, undo or redo everything drawn from the rounds is current (chart, legend, table view)."""

from __future__ import annotations

import re

from tests.helpers import HTMX, csrf_token, ref, save_round, start_match
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the pieces drawn from the rounds after a write: markup (the writes are tested on both)"

PLAYERS = ["Ann", "Bob", "Cy"]


def save_loser(client, match_id: int, number: int, loser: str):
    """One tap on the round's loser, as the entry form posts it."""
    return save_round(client, match_id, {"loser": loser}, number)


def legend(client, match_id: int) -> dict[str, int]:
    """The chart's legend as the match page fetches it again after a change."""
    response = client.get(f"/matches/{ref(match_id)}/chart", headers=HTMX)
    assert response.status_code == 200
    fragment = read(response.get_data(as_text=True))
    assert not fragment.find_all("html")
    items = [item.text.rsplit(" ", 1) for legend in fragment.find_all("ul", cls="chart-legend")
             for item in legend.by_role("listitem")]  # fmt: skip
    return {side: int(total) for side, total in items}


def chart_label(client, match_id: int) -> str:
    """What the chart says to a screen reader: its name as an image."""
    chart = read(client.get(f"/matches/{ref(match_id)}/chart", headers=HTMX).get_data(as_text=True))
    return next(image.name() for image in chart.by_role("img") if image.name().startswith("Totals after each of "))


def test_the_legend_follows_the_standings_through_saves_and_an_undo(client):
    match_id = start_match(client, "topic", PLAYERS)
    assert legend(client, match_id) == {}
    for number, loser in enumerate(["Bob", "Cy", "Bob", "Ann"], start=1):
        response = save_loser(client, match_id, number, loser)
        assert response.status_code == 200
        # The page's chart listens for this event and fetches itself again.
        assert response.headers["HX-Trigger"] == "rounds-changed"
    assert legend(client, match_id) == {"Ann": 1, "Bob": 2, "Cy": 1}
    assert chart_label(client, match_id) == "Totals after each of 4 rounds: Ann 1, Bob 2, Cy 1"

    token = csrf_token(client, f"/matches/{ref(match_id)}")
    undo = client.post(f"/matches/{ref(match_id)}/undo", data={"csrf_token": token}, headers=HTMX)
    assert undo.status_code == 200 and undo.headers["HX-Trigger"] == "rounds-changed"
    assert legend(client, match_id) == {"Ann": 0, "Bob": 2, "Cy": 1}
    assert chart_label(client, match_id) == "Totals after each of 3 rounds: Ann 0, Bob 2, Cy 1"

    redo = client.post(f"/matches/{ref(match_id)}/redo", data={"csrf_token": token}, headers=HTMX)
    assert redo.status_code == 200 and redo.headers["HX-Trigger"] == "rounds-changed"
    assert legend(client, match_id) == {"Ann": 1, "Bob": 2, "Cy": 1}


def test_the_match_page_refetches_its_chart_when_the_rounds_change(client):
    match_id = start_match(client, "topic", PLAYERS)
    html = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    chart = read(html).by_id("chart")
    assert (chart["hx-get"], chart["hx-trigger"]) == (f"/matches/{ref(match_id)}/chart", "rounds-changed from:body")


def test_the_chart_url_opened_directly_is_the_whole_match_page(client):
    match_id = start_match(client, "topic", PLAYERS)
    save_loser(client, match_id, 1, "Bob")
    html = client.get(f"/matches/{ref(match_id)}/chart").get_data(as_text=True)
    assert read(html).find_all("html") and "Totals after each round" in html


def test_a_following_phone_is_told_the_rounds_changed(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    viewer = app.test_client()
    page = viewer.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    tag = re.search(r"data-etag='([^']+)'", page).group(1)
    save_loser(client, match_id, 1, "Bob")
    poll = viewer.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": tag})
    assert poll.status_code == 200 and poll.headers["HX-Trigger"] == "rounds-changed"
    again = viewer.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": poll.headers["ETag"]})
    assert again.status_code == 304 and "HX-Trigger" not in again.headers


def test_the_table_view_names_the_round_being_played(client):
    match_id = start_match(client, "topic", PLAYERS)
    assert "Topic_ · Round 1" in client.get(f"/matches/{ref(match_id)}/table").get_data(as_text=True)
    for number, loser in enumerate(["Bob", "Cy", "Bob", "Ann"], start=1):
        save_loser(client, match_id, number, loser)
    assert "Topic_ · Round 5" in client.get(f"/matches/{ref(match_id)}/table").get_data(as_text=True)
    assert "Who lost round 5?" in client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)


def test_the_table_view_counts_as_the_game_does_and_names_every_winner_of_a_tie(client):
    # Burraco's board said "Round 2" of what its entry calls a hand, and a tie said "Winner:" above both names.
    burraco = start_match(client, "burraco", ["Ann", "Bob"])
    assert "Burraco PAROLE · Hand 1" in client.get(f"/matches/{ref(burraco)}/table").get_data(as_text=True)
    tied = start_match(client, "topic", PLAYERS, length="exact", deck="2")
    save_loser(client, tied, 1, "Cy")
    save_loser(client, tied, 2, "Cy")
    board = client.get(f"/matches/{ref(tied)}/table").get_data(as_text=True)
    assert "Topic_ · Final" in board and "Winners: Ann, Bob" in board
