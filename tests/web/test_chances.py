"""The chances to win from the ratings: on the new-match form as players sit down, on a match until its first round."""

from __future__ import annotations

import html as entities
import re

from openskill.models import PlackettLuce

from companion.services import ratings
from companion.services.transaction import transaction
from tests.helpers import (
    HTMX,
    counted,
    entry_fields,
    played_match,
    post_new_match,
    predicted,
    read_words,
    ref,
    save_round,
    start_match,
)
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the chances drawn from the ratings (the ratings kept are tested on both)"

LIBRARY = PlackettLuce()
TITLE = "Chances to win"
WRITES = ("INSERT", "UPDATE", "DELETE")


def shown(html: str) -> list[str]:
    """Each side's line of the chances as a user reads it ("Ann 71%"), in order."""
    block = re.search(r'<section class="chances".*?</section>', html, re.S)
    if block is None:
        return []
    items = re.findall(r"<li>(.*?)</li>", read_words(block.group(0)), re.S)
    return [" ".join(entities.unescape(re.sub(r"<[^>]+>", " ", item)).split()) for item in items]


def test_the_form_shows_each_players_chance_once_two_are_seated_and_again_as_they_change(client, app):
    with app.app_context():
        # Ann won both Pazaak matches against Bob.
        played_match("pazaak", ["Ann", "Bob"], [0, 0])
        played_match("pazaak", ["Ann", "Bob"], [0, 0])
    alone = post_new_match(client, "pazaak", [], action="add:Ann", htmx=True).get_data(as_text=True)
    assert TITLE not in alone
    response = post_new_match(client, "pazaak", ["Ann"], action="add:Bob", htmx=True)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and not read(html).find_all("html")
    ann, bob = predicted(app, "pazaak", [["Ann"], ["Bob"]])
    assert ann > 50 > bob and ann + bob == 100
    assert shown(html) == [f"Ann {ann}%", f"Bob {bob}%"]
    assert "From the ratings at Pazaak." in html
    # Bob makes way for Zoe, new to the roster: she counts as a newcomer, and the line says so.
    swapped = post_new_match(client, "pazaak", ["Ann", "Bob"], action="remove:1", htmx=True)
    assert TITLE not in swapped.get_data(as_text=True)
    html = post_new_match(client, "pazaak", ["Ann"], action="new", new_name="Zoe", htmx=True).get_data(as_text=True)
    ann, zoe = predicted(app, "pazaak", [["Ann"], ["Zoe"]])
    assert shown(html) == [f"Ann {ann}%", f"Zoe {zoe}%"]
    assert "a player not rated yet counts as a newcomer" in html


def test_with_no_one_rated_the_form_says_so_instead_of_even_chances(client, app):
    with app.app_context():
        played_match("pazaak", ["Ann", "Bob"], [0, 0])
    # Ann and Bob are rated at Pazaak, not at Topic_.
    html = post_new_match(client, "topic", ["Ann", "Bob"], action="add:Cy", htmx=True).get_data(as_text=True)
    assert TITLE not in html and shown(html) == []
    assert "No one here is rated at Topic_ yet, so there are no chances to win to show." in html
    assert "33%" not in html and "34%" not in html


def test_burraco_in_pairs_shows_a_chance_per_pair(client, app):
    with app.app_context():
        # Noi (Ann and Cy) beat Voi (Bob and Di) in pairs.
        played_match("burraco", ["Ann", "Bob", "Cy", "Di"], [1])
    seats = ["Ann", "Bob", "Cy", "Di"]
    alone = post_new_match(client, "burraco", seats, action="mode", htmx=True, burraco_mode="alone")
    assert len(shown(alone.get_data(as_text=True))) == 4
    html = post_new_match(client, "burraco", seats, action="mode", htmx=True,
                          burraco_mode="pairs").get_data(as_text=True)  # fmt: skip
    ours, theirs = predicted(app, "burraco", [["Ann", "Cy"], ["Bob", "Di"]])
    assert ours > theirs
    assert shown(html) == [f"Ann & Cy {ours}%", f"Bob & Di {theirs}%"]
    # Moving Bob up swaps the partners: Ann and Bob now play together.
    moved = post_new_match(client, "burraco", seats, action="up:1", htmx=True, burraco_mode="pairs")
    first, second = predicted(app, "burraco", [["Bob", "Cy"], ["Ann", "Di"]])
    assert shown(moved.get_data(as_text=True)) == [f"Bob & Cy {first}%", f"Ann & Di {second}%"]


def test_the_chances_in_italian(client, app):
    with app.app_context():
        played_match("pazaak", ["Ann", "Bob"], [0, 0])
    client.set_cookie("lang", "it")
    html = post_new_match(client, "pazaak", ["Ann"], action="add:Bob", htmx=True).get_data(as_text=True)
    assert "Probabilità di vittoria" in html and "Dalle valutazioni a Pazaak." in html
    unrated = post_new_match(client, "topic", ["Ann"], action="add:Bob", htmx=True).get_data(as_text=True)
    assert "Nessuno qui ha ancora una valutazione a Topic_" in unrated


def test_the_match_page_shows_the_chances_until_the_first_round_is_in(client, app):
    with app.app_context():
        played_match("topic", ["Ann", "Bob", "Cy"], [0, 0])
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    percents = predicted(app, "topic", [["Ann"], ["Bob"], ["Cy"]])
    expected = [f"{name} {percent}%" for name, percent in zip(["Ann", "Bob", "Cy"], percents, strict=True)]
    viewer = app.test_client()
    # The scorekeeper and a phone that follows see them alike, on the page and in its live poll.
    for phone in (client, viewer):
        assert shown(phone.get(f"/matches/{ref(match_id)}").get_data(as_text=True)) == expected
        assert shown(phone.get(f"/matches/{ref(match_id)}/live", headers=HTMX).get_data(as_text=True)) == expected
    saved = save_round(client, match_id, entry_fields(app, match_id, {"losers": ["Ann"]}))
    assert saved.status_code == 200 and TITLE not in saved.get_data(as_text=True)
    for phone in (client, viewer):
        assert TITLE not in phone.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
        assert TITLE not in phone.get(f"/matches/{ref(match_id)}/live", headers=HTMX).get_data(as_text=True)


def test_a_burraco_match_in_pairs_shows_each_teams_chance_under_its_name(client, app):
    with app.app_context():
        played_match("burraco", ["Ann", "Bob", "Cy", "Di"], [1])
    match_id = start_match(client, "burraco", ["Ann", "Bob", "Cy", "Di"], burraco_mode="pairs",
                           burraco_team1="Us", burraco_team2="Them")  # fmt: skip
    ours, theirs = predicted(app, "burraco", [["Ann", "Cy"], ["Bob", "Di"]])
    html = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert shown(html) == [f"Us Ann & Cy {ours}%", f"Them Bob & Di {theirs}%"]


def test_a_match_of_newcomers_only_says_no_one_is_rated(client):
    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    html = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "No one here is rated at Pazaak yet" in html and "50%" not in html


def test_reading_the_chances_writes_nothing_while_the_ratings_wait_for_their_rebuild(client, app):
    with app.app_context():
        played_match("topic", ["Ann", "Bob", "Cy"], [0, 0])
        # As a change to a finished match leaves them until its request has answered (test_ratings.py).
        with transaction():
            ratings.mark_stale(["topic"])
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    with counted(app) as statements:
        for path in ("/matches/new?game=topic&seat=Ann&seat=Bob", f"/matches/{ref(match_id)}"):
            assert TITLE in client.get(path).get_data(as_text=True)
            assert TITLE in app.test_client().get(path).get_data(as_text=True)
        assert TITLE in client.get(f"/matches/{ref(match_id)}/live", headers=HTMX).get_data(as_text=True)
        tapped = post_new_match(client, "topic", ["Ann"], action="add:Bob", htmx=True)
        assert TITLE in tapped.get_data(as_text=True)
    assert [s for s in statements if s.lstrip().split(None, 1)[0].upper() in WRITES] == []
