"""The ratings leaderboard of each game: reached from the players page, ranked, marked provisional, in two languages."""

from __future__ import annotations

import re

from openskill.models import PlackettLuce
from sqlalchemy import select

from companion.extensions import db
from companion.models import Player
from companion.queries.ratings import friendly
from tests.helpers import played_match, ref
from tests.pages import hrefs, read, rows

LIBRARY = PlackettLuce()


def test_the_players_page_of_a_game_links_to_its_ratings(client):
    html = client.get("/players?game=topic").get_data(as_text=True)
    assert "/players/ratings/topic" in hrefs(read(html))
    page = client.get("/players/ratings/topic").get_data(as_text=True)
    assert "No one is rated at Topic_ yet" in page
    assert client.get("/players/ratings/chess").status_code == 404


def test_the_board_ranks_by_rating_with_matches_wins_and_trend(client, app):
    with app.app_context():
        # Topic_: Ann takes both cards twice; Bob and Cy share first place twice.
        played_match("topic", ["Ann", "Bob", "Cy"], [0, 0])
        played_match("topic", ["Ann", "Bob", "Cy"], [0, 0])
    response = client.get("/players/ratings/topic")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    first = LIBRARY.rate([[LIBRARY.rating()] for _ in range(3)], ranks=[3, 1, 1])
    second = LIBRARY.rate(first, ranks=[3, 1, 1])
    bob = friendly(second[1][0].ordinal())
    ann = friendly(second[0][0].ordinal())
    found = rows(html)
    # Bob and Cy share first place; names tie-break alphabetically; Ann is third.
    # Two matches each, Bob and Cy won both, and the trend is the change since before the first.
    assert found == [
        ["1", "Bob 2 played · 2 won · provisional", str(bob), f"+{bob - 1000}"],
        ["1", "Cy 2 played · 2 won · provisional", str(bob), f"+{bob - 1000}"],
        ["3", "Ann 2 played · 0 won · provisional", str(ann), f"−{1000 - ann}"],
    ]
    assert "Rating = 1000 + 40 × (skill − 3 × uncertainty)" in html


def test_a_player_is_no_longer_provisional_from_the_fifth_match(client, app):
    with app.app_context():
        for _ in range(5):
            played_match("pazaak", ["Ann", "Bob"], [0, 0])
    found = rows(client.get("/players/ratings/pazaak").get_data(as_text=True))
    assert [row[1] for row in found] == ["Ann 5 played · 5 won", "Bob 5 played · 0 won"]


def test_the_board_in_italian(client, app):
    with app.app_context():
        played_match("pazaak", ["Ann", "Bob"], [0, 0])
    client.set_cookie("lang", "it")
    html = client.get("/players/ratings/pazaak", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert "Valutazioni" in html and "Valutazione = 1000 + 40" in html
    names = [row[1] for row in rows(html)]
    assert names == ["Ann 1 giocata · 1 vinta · provvisoria", "Bob 1 giocata · 0 vinte · provvisoria"]


def test_a_players_page_charts_their_rating_of_each_game_over_time(client, app):
    with app.app_context():
        played_match("pazaak", ["Ann", "Bob"], [0, 0])
        played_match("pazaak", ["Ann", "Bob"], [1, 1])
        played_match("topic", ["Ann", "Bob", "Cy"], [1, 1])
        ann = db.session.scalar(select(Player.id).where(Player.name == "Ann"))
    html = client.get(f"/players/{ref(ann, 'player')}").get_data(as_text=True)
    board = {row[1].split()[0]: row[2] for row in rows(client.get("/players/ratings/pazaak").get_data(as_text=True))}
    topic = {row[1].split()[0]: row[2] for row in rows(client.get("/players/ratings/topic").get_data(as_text=True))}
    assert "Rating over time" in html
    label = f"Rating after each rated match of each game, now: Topic_ {topic['Ann']}, Pazaak {board['Ann']}"
    assert read(html).one_by_role("img", label).tag == "svg"
    # A line a game, each named in the legend with the rating now and linked to the game's board.
    section = html.split('id="ratings-title"', 1)[1].split("</section>", 1)[0]
    legend = re.findall(r'<a href="/players/ratings/(\w+)">[^<]+</a> <b>(\d+)</b>', section)
    assert legend == [("topic", topic["Ann"]), ("pazaak", board["Ann"])]


def test_a_player_without_a_finished_match_has_no_rating_chart(client, app):
    with app.app_context():
        played_match("pazaak", ["Ann", "Bob"], [0])
        ann = db.session.scalar(select(Player.id).where(Player.name == "Ann"))
    assert "Rating over time" not in client.get(f"/players/{ref(ann, 'player')}").get_data(as_text=True)


def test_a_long_rating_line_is_drawn_at_an_even_spread_of_its_matches_ending_with_the_last(client, app):
    from companion.queries.ratings import rating_lines
    from companion.queries.sampling import CHART_POINTS

    with app.app_context():
        for n in range(CHART_POINTS + 10):
            played_match("pazaak", ["Ann", "Bob"], [n % 2, n % 2])
        played_match("topic", ["Ann", "Bob", "Cy"], [1, 1])
        ann = db.session.scalar(select(Player.id).where(Player.name == "Ann"))
        lines = rating_lines(ann)
    pazaak, topic = lines.games["pazaak"], lines.games["topic"]
    # Every match counted, at most a chart's worth drawn, from the first rated match to the last.
    assert pazaak.matches == CHART_POINTS + 10 and len(lines.steps) == len(pazaak.line) == CHART_POINTS
    assert lines.steps[0] == 1 and lines.steps[-1] == CHART_POINTS + 10
    assert list(lines.steps) == sorted(set(lines.steps))
    # The line ends at the rating the board shows now; the one-match game has its one point.
    board = {row[1].split()[0]: row[2] for row in rows(client.get("/players/ratings/pazaak").get_data(as_text=True))}
    assert pazaak.line[-1] == pazaak.now == int(board["Ann"])
    assert topic.line == (topic.now,) and not pazaak.provisional and topic.provisional
    html = client.get(f"/players/{ref(ann, 'player')}").get_data(as_text=True)
    assert f"Pazaak {board['Ann']}" in html
