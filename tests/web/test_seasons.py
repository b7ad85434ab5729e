"""A game's season: the matches finished in a period, per player, with the game's figure and the rating's change."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from openskill.models import PlackettLuce

from companion.extensions import db
from companion.models import Match
from companion.queries import seasons
from companion.queries.history import DayForm
from companion.queries.ratings import friendly
from companion.services import ratings
from tests.helpers import counted, played_match
from tests.pages import hrefs, read, rows

LIBRARY = PlackettLuce()


def finished(seats: list[str], winner_first: bool, at: datetime) -> None:
    """A Pazaak match of two sets, both won by the first seat (or the second), finished at `at`."""
    match = played_match("pazaak", seats, [0, 0] if winner_first else [1, 1])
    assert match.status == "finished"
    db.session.get(Match, match.id).finished_at = at


@pytest.fixture
def season_2025(app):
    """Four Pazaak matches of 2025 and one still played: the ratings rebuilt in the order they finished.

    10 Jan Ann beats Bob, 5 Feb Bob beats Ann, 20 Feb Ann beats Cy (his first), 15 Mar Cy beats Bob;
    Ann and Bob began another on 10 Feb, one set played.
    """
    with app.app_context():
        finished(["Ann", "Bob"], True, datetime(2025, 1, 10, 21))
        finished(["Ann", "Bob"], False, datetime(2025, 2, 5, 0, 0, 1))
        finished(["Ann", "Cy"], True, datetime(2025, 2, 20, 22))
        finished(["Cy", "Bob"], True, datetime(2025, 3, 15, 23, 59, 59))
        playing = played_match("pazaak", ["Ann", "Bob"], [0])
        db.session.get(Match, playing.id).started_at = datetime(2025, 2, 10, 20)
        db.session.commit()
        ratings.redo(["pazaak"])
        db.session.commit()
        db.session.remove()


def after(*results: tuple[str, str]) -> dict[str, list[int]]:
    """Each player's friendly rating after each of these matches (winner, loser), as the library rates them."""
    now: dict[str, object] = {}
    line: dict[str, list[int]] = {}
    for winner, loser in results:
        rated = LIBRARY.rate([[now.get(winner, LIBRARY.rating())], [now.get(loser, LIBRARY.rating())]], ranks=[1, 2])
        now[winner], now[loser] = rated[0][0], rated[1][0]
        for name in (winner, loser):
            line.setdefault(name, []).append(friendly(now[name].ordinal()))
    return line


# Each player's rating after each of their matches of 2025, in the order they finished.
LINE = after(("Ann", "Bob"), ("Bob", "Ann"), ("Ann", "Cy"), ("Cy", "Bob"))


def signed(change: int) -> str:
    """A change as the table writes it."""
    return "=" if not change else f"{change:+d}".replace("-", "−")


def test_a_period_of_two_days_counts_the_matches_finished_in_it(client, season_2025):
    response = client.get("/players/seasons/pazaak?from=2025-02-01&to=2025-02-28")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    # Bob won his one February match; Ann won one of two (her sets: 0 against Bob, 2 against Cy); Cy lost his first.
    # The unfinished match of 10 February and the matches of January and March do not count.
    assert rows(html) == [
        ["Bob", "1", "1", "2", signed(LINE["Bob"][1] - LINE["Bob"][0])],
        ["Ann", "2", "1", "2", signed(LINE["Ann"][2] - LINE["Ann"][0])],
        ["Cy", "1", "0", "0", signed(LINE["Cy"][0] - 1000)],
    ]
    assert "Sets won" in html and "Rating\u00a0±" in html  # the sign kept on its word's line
    assert "1 Feb 2025 – 28 Feb 2025" in html
    assert "http://localhost/players/seasons/pazaak?from=2025-02-01&to=2025-02-28" in hrefs(read(html))


def test_the_days_a_period_begins_and_ends_are_whole(client, season_2025):
    # 5 Feb finished a second after midnight, 15 Mar a second before it.
    first = rows(client.get("/players/seasons/pazaak?from=2025-02-05&to=2025-02-05").get_data(as_text=True))
    assert [row[:3] for row in first] == [["Bob", "1", "1"], ["Ann", "1", "0"]]
    last = rows(client.get("/players/seasons/pazaak?from=2025-03-15&to=").get_data(as_text=True))
    assert [row[:3] for row in last] == [["Cy", "1", "1"], ["Bob", "1", "0"]]
    assert [row[4] for row in last] == [signed(LINE["Cy"][1] - LINE["Cy"][0]), signed(LINE["Bob"][2] - LINE["Bob"][1])]


def test_open_days_reach_the_first_and_the_last_match(client, season_2025):
    html = client.get("/players/seasons/pazaak?from=&to=").get_data(as_text=True)
    assert "Every finished match" in html
    assert [row[:4] for row in rows(html)] == [["Ann", "3", "2", "4"], ["Cy", "2", "1", "2"], ["Bob", "3", "1", "2"]]
    until = rows(client.get("/players/seasons/pazaak?to=2025-01-31").get_data(as_text=True))
    assert until == [
        ["Ann", "1", "1", "2", signed(LINE["Ann"][0] - 1000)],
        ["Bob", "1", "0", "0", signed(LINE["Bob"][0] - 1000)],
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("", "Feb", id="this month by default"),
        pytest.param("?period=month", "Feb", id="this month"),
        pytest.param("?period=week", "Feb", id="an unknown period is this month"),
        pytest.param("?period=year", "year", id="this year"),
    ],
)
def test_this_month_and_this_year(client, season_2025, monkeypatch, query, expected):
    monkeypatch.setattr(seasons, "utcnow", lambda: datetime(2025, 2, 14, 23, 30))
    html = client.get(f"/players/seasons/pazaak{query}").get_data(as_text=True)
    if expected == "Feb":
        assert "1 Feb 2025 – 28 Feb 2025" in html
        assert [row[:3] for row in rows(html)] == [["Bob", "1", "1"], ["Ann", "2", "1"], ["Cy", "1", "0"]]
    else:
        assert "1 Jan 2025 – 31 Dec 2025" in html
        assert rows(html) == [
            ["Ann", "3", "2", "4", signed(LINE["Ann"][2] - 1000)],
            ["Cy", "2", "1", "2", signed(LINE["Cy"][1] - 1000)],
            ["Bob", "3", "1", "2", signed(LINE["Bob"][2] - 1000)],
        ]


def test_a_period_with_no_match_says_so(client, season_2025):
    html = client.get("/players/seasons/pazaak?from=2024-01-01&to=2024-12-31").get_data(as_text=True)
    assert "No match of Pazaak finished in this period." in html
    assert not read(html).find_all("table")


def test_the_months_and_years_end_where_the_calendar_says():
    form = DayForm()
    cases = {date(2024, 2, 10): (date(2024, 2, 1), date(2024, 2, 29)),
             date(2025, 12, 31): (date(2025, 12, 1), date(2025, 12, 31))}  # fmt: skip
    for today, (first, last) in cases.items():
        month = seasons.Period.from_args({}, form, today)
        assert (month.start, month.end) == (first, last)
    year = seasons.Period.from_args({"period": "year"}, form, date(2025, 12, 31))
    assert (year.start, year.end) == (date(2025, 1, 1), date(2025, 12, 31))


@pytest.mark.parametrize(
    ("query", "message"),
    [
        pytest.param("from=2025-02-30", "Not a date: write it as mm/dd/yyyy.", id="no such day"),
        pytest.param("from=yesterday&to=2025-02-01", "Not a date: write it as mm/dd/yyyy.", id="not a date"),
        pytest.param("to=" + "9" * 300, "Not a date: write it as mm/dd/yyyy.", id="overlong"),
        pytest.param("from=9999-12-31", "Not a date: write it as mm/dd/yyyy.", id="past the calendar"),
        pytest.param("from=2025-03-01&to=2025-02-01", "This day comes before the “From” day.", id="to before from"),
    ],
)
def test_a_wrong_day_is_named_beside_its_field_and_no_table_is_drawn(client, season_2025, query, message):
    response = client.get(f"/players/seasons/pazaak?{query}")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert message in html
    assert [field for field in read(html).find_all("input") if field.get("aria-invalid") == "true"]
    assert "Correct the days above to see the season." in html
    assert not read(html).find_all("table")


def test_a_wrong_day_in_italian(client, season_2025):
    client.set_cookie("lang", "it")
    response = client.get("/players/seasons/pazaak?from=01/03/2025&to=01/02/2025", headers={"Accept-Language": "it"})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "Questo giorno viene prima di quello in “Dal”." in html
    assert "Stagione di Pazaak" in html


def test_italian_days_and_texts(client, season_2025):
    client.set_cookie("lang", "it")
    # Days typed the Italian way are sent on to the address with ISO days, the one to keep and share.
    response = client.get("/players/seasons/pazaak?from=01/02/2025&to=28/02/2025", follow_redirects=True)
    assert response.request.full_path == "/players/seasons/pazaak?from=2025-02-01&to=2025-02-28"
    html = response.get_data(as_text=True)
    assert [row[:4] for row in rows(html)] == [["Bob", "1", "1", "2"], ["Ann", "2", "1", "2"], ["Cy", "1", "0", "0"]]
    italian = ("Stagione di Pazaak", "Questo mese", "Quest’anno", "Set vinti", "Valut.\u00a0±", "Link da condividere")
    for text in italian:
        assert text in html
    assert "http://localhost/players/seasons/pazaak?from=2025-02-01&to=2025-02-28" in hrefs(read(html))


def test_an_unknown_game_has_no_season(client):
    assert client.get("/players/seasons/chess").status_code == 404


def test_the_ratings_board_and_the_players_board_link_to_the_season(client):
    for page in ("/players/ratings/topic", "/players?game=topic"):
        html = client.get(page).get_data(as_text=True)
        assert "/players/seasons/topic" in hrefs(read(html)) and "Season of Topic_" in html


def test_the_season_runs_the_same_queries_however_many_players(app, client, season_2025):
    url = "/players/seasons/pazaak?from=2025-01-01&to=2025-12-31"

    def statements() -> int:
        client.get(url)
        with counted(app) as run:
            assert client.get(url).status_code == 200
        return len(run)

    few = statements()
    with app.app_context():
        for index in range(12):
            finished([f"P{index}", f"Q{index}"], index % 2 == 0, datetime(2025, 6, 1, 12, index))
        db.session.commit()
        ratings.redo(["pazaak"])
        db.session.commit()
        db.session.remove()
    assert len(rows(client.get(url).get_data(as_text=True))) == 27
    assert statements() == few
