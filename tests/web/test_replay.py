"""Web tests: a finished match replayed round by round (`?round=N`) shows the engine's standings after round N,
its chart and rounds up to it; a round the match does not have is a clear 400; a match being played is unchanged."""

from __future__ import annotations

import re

import pytest

from companion.extensions import db
from companion.games import get_game
from companion.queries.matches import find_match
from tests.helpers import (
    CSRF_PATTERN,
    HTMX,
    csrf_token,
    entry_fields,
    finished_match,
    read_words,
    ref,
    save_round,
    start_match,
)
from tests.pages import Element, hrefs, read

SAME_ON_EVERY_DATABASE = "the replay's steps: the rules' standings after each round, drawn"

GAMES = ["pazzaparola", "burraco", "topic", "pazaak"]
ITALIAN = {"Accept-Language": "it-IT,it;q=0.9"}
# What a step of the replay sends: htmx swapping the replay alone.
STEP = {**HTMX, "HX-Target": "replay"}
# The chart's name for a screen reader: how many rounds it draws and the totals it ends on.
CHART_LABEL = re.compile(r"Totals after (?:each of )?(\d+) (?:round|hand|set)s?: (.*)")


def section(html: str, start: str) -> str:
    """The page's section that opens with `start`, up to its first closing tag; a form's CSRF token, signed
    with the second it was made, read as one token whatever the second."""
    begin = html.index(start)
    return CSRF_PATTERN.sub("csrf", html[begin : html.index("</section>", begin)])


def standings_shown(html: str, sides: list[str]) -> dict[str, int]:
    """Each side's total as the standings show it: each big number, read as the side named last before it."""
    found, named = {}, None
    for part in read(html).by_id("standings").iter():
        if part.get("title") in sides:
            named = part["title"]
        if "big-num" in part.classes:
            # Its leading figure: a Pazaak side's sets are drawn as "1/3", won of needed.
            found[named] = int(re.match(r"-?\d+", part.text).group())
    assert None not in found, "a total drawn before any side's name"
    return found


def rounds_shown(html: str) -> int:
    """How many rounds the rounds table holds: each is headed by a row (or row group) header."""
    return len([part for part in read(html).by_id("rounds").iter() if part.get("scope") in ("row", "rowgroup")])


@pytest.mark.parametrize("slug", GAMES)
def test_each_round_of_the_replay_shows_the_engines_standings_after_it(client, app, slug):
    match_id, players, settings, rounds = finished_match(app, slug)
    game = get_game(slug)
    sides = game.sides(players, settings)
    assert len(rounds) >= 3
    for number in range(1, len(rounds) + 1):
        response = client.get(f"/matches/{ref(match_id)}?round={number}")
        assert response.status_code == 200
        html = response.get_data(as_text=True)
        expected = game.standings(players, settings, rounds[:number])
        assert standings_shown(html, sides) == expected.totals, f"after round {number}"
        # The chart goes up to that round, and ends on the same totals.
        [chart] = [image.name() for image in read(html).by_role("img") if CHART_LABEL.fullmatch(image.name())]
        drawn, totals = CHART_LABEL.fullmatch(chart).groups()
        assert int(drawn) == number
        assert totals == ", ".join(f"{side} {expected.totals[side]}" for side in sides)
        assert rounds_shown(html) == number
        # Only the last round is the result; before it, nobody has won yet.
        assert bool(read(html).find_all(cls="result")) == (number == len(rounds)) == expected.over


@pytest.mark.parametrize("slug", GAMES)
def test_the_last_round_of_the_replay_is_the_final_result_as_the_page_shows_it(client, app, slug):
    match_id, players, settings, rounds = finished_match(app, slug)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    last = client.get(f"/matches/{ref(match_id)}?round={len(rounds)}").get_data(as_text=True)
    for html in (page, last):
        assert section(html, 'id="standings"') == section(page, 'id="standings"')
        assert section(html, 'id="rounds"') == section(page, 'id="rounds"')
        assert standings_shown(html, get_game(slug).sides(players, settings)) == (
            get_game(slug).standings(players, settings, rounds).totals
        )
    assert read(page).find_all(cls="result") and read(page).find_all(id="replay")


def test_the_steps_are_plain_links_and_a_form_that_work_without_scripts(client, app):
    match_id, _, _, rounds = finished_match(app, "topic")
    html = client.get(f"/matches/{ref(match_id)}?round=3").get_data(as_text=True)
    nav = read(html).one("nav", cls="replay-steps")
    assert {f"/matches/{ref(match_id)}?round=2", f"/matches/{ref(match_id)}?round=4"} <= set(hrefs(nav))
    jump = nav.one("form")
    step = jump.one("input", name="round")
    assert (jump["action"], step["value"], step["max"]) == (f"/matches/{ref(match_id)}", "3", str(len(rounds)))
    assert "After round 3 of" in html
    # At either end, the step beyond is shown but leads nowhere.
    first = client.get(f"/matches/{ref(match_id)}?round=1").get_data(as_text=True)
    assert "?round=0" not in first and f"/matches/{ref(match_id)}?round=2" in hrefs(read(first))
    last = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert f"?round={len(rounds) + 1}" not in last
    assert f"/matches/{ref(match_id)}?round={len(rounds) - 1}" in hrefs(read(last))


def test_a_step_swaps_the_replay_alone_and_pushes_its_address(client, app):
    match_id, players, settings, rounds = finished_match(app, "pazaak")
    response = client.get(f"/matches/{ref(match_id)}?round=2", headers=STEP)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    fragment = read(html)
    assert [part.tag for part in fragment.children if isinstance(part, Element)][0] == "section"
    assert not fragment.find_all("html") and fragment.find_all(id="replay")
    assert response.headers["HX-Push-Url"] == f"/matches/{ref(match_id)}?round=2"
    assert "After set 2 of" in html
    expected = get_game("pazaak").standings(players, settings, rounds[:2]).totals
    assert standings_shown(html, players) == expected
    assert "HX-Target" in response.headers["Vary"]
    # A boosted link, a reload and Back get the whole page at that round.
    for headers in ({**HTMX, "HX-Boosted": "true"}, {}, {**HTMX, "HX-History-Restore-Request": "true"}):
        page = client.get(f"/matches/{ref(match_id)}?round=2", headers=headers).get_data(as_text=True)
        assert read(page).find_all("html") and standings_shown(page, players) == expected


def test_the_replay_speaks_italian_and_the_games_words(client, app):
    match_id, _, _, rounds = finished_match(app, "burraco")
    html = client.get(f"/matches/{ref(match_id)}?round=2", headers=ITALIAN).get_data(as_text=True)
    assert f"Dopo la mano 2 di {len(rounds)}" in html and "Rivedi la partita" in html
    steps = [step.text for step in read(html).one("nav", cls="replay-steps").find_all("a")]
    assert "◀ Indietro" in steps and [step for step in steps if step.startswith("Avanti ")]
    english = client.get(f"/matches/{ref(match_id)}?round=2").get_data(as_text=True)
    assert f"After hand 2 of {len(rounds)}" in english


@pytest.mark.parametrize("value", ["0", "-1", "99", "abc", "", "2.5", "1e3", "99999999999999999999", "²"])
def test_a_round_the_match_does_not_have_is_a_clear_400(client, app, value):
    match_id, _, _, rounds = finished_match(app, "topic")
    assert len(rounds) < 99
    response = client.get(f"/matches/{ref(match_id)}", query_string={"round": value})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert f"to replay: its rounds go from 1 to {len(rounds)}." in html
    italian = client.get(f"/matches/{ref(match_id)}", query_string={"round": value}, headers=ITALIAN)
    assert italian.status_code == 400
    assert f"da rivedere: i suoi turni vanno da 1 a {len(rounds)}." in italian.get_data(as_text=True)


def test_a_bad_round_asked_by_a_step_says_so_in_the_banner(client, app):
    match_id, _, _, _ = finished_match(app, "topic")
    response = client.get(f"/matches/{ref(match_id)}?round=0", headers=STEP)
    assert response.status_code == 400 and response.headers["HX-Retarget"] == "#banner"
    assert "its rounds go from 1 to" in response.get_data(as_text=True)


def test_a_match_ended_before_its_first_round_has_nothing_to_replay(host_client, app):
    match_id = start_match(host_client, "topic", ["Ann", "Bob", "Cy"])
    token = csrf_token(host_client, f"/matches/{ref(match_id)}/end")
    assert host_client.post(f"/matches/{ref(match_id)}/end", data={"csrf_token": token}).status_code == 302
    page = host_client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert not read(page).find_all(id="replay")
    response = host_client.get(f"/matches/{ref(match_id)}?round=1")
    assert response.status_code == 400 and "This match has no rounds to replay." in response.get_data(as_text=True)


def test_a_match_ended_by_the_host_is_replayed_too(host_client, app):
    match_id = start_match(host_client, "topic", ["Ann", "Bob", "Cy"])
    for loser in ("Bob", "Cy", "Bob"):
        save_round(host_client, match_id, entry_fields(app, match_id, {"losers": [loser]}))
    token = csrf_token(host_client, f"/matches/{ref(match_id)}/end")
    host_client.post(f"/matches/{ref(match_id)}/end", data={"csrf_token": token})
    html = host_client.get(f"/matches/{ref(match_id)}?round=2").get_data(as_text=True)
    assert standings_shown(html, ["Ann", "Bob", "Cy"]) == {"Ann": 0, "Bob": 1, "Cy": 1}
    assert "After round 2 of 3" in html


@pytest.mark.parametrize("value", ["1", "0", "abc"])
def test_a_match_being_played_ignores_the_round_asked(client, app, value):
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    for loser in ("Bob", "Cy", "Bob"):
        save_round(client, match_id, entry_fields(app, match_id, {"losers": [loser]}))
    plain = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    asked = client.get(f"/matches/{ref(match_id)}", query_string={"round": value})
    assert asked.status_code == 200
    html = asked.get_data(as_text=True)
    assert not read(html).find_all(id="replay") and not read(html).find_all(cls="replay-steps")
    assert standings_shown(html, ["Ann", "Bob", "Cy"]) == {"Ann": 0, "Bob": 2, "Cy": 1}
    assert section(html, 'id="standings"') == section(plain, 'id="standings"')
    assert section(html, 'id="rounds"') == section(plain, 'id="rounds"')
    # Its chart stays where it was, fetched again after every change.
    assert 'id="chart"' in html and '<section class="chart"' in html[html.index('id="chart"') :]


def test_a_match_of_one_round_has_nothing_to_step_through(client, app):
    match_id = start_match(client, "pazaak", ["Ann", "Bob"], sets="1")
    save_round(client, match_id, entry_fields(app, match_id, {"winner": "Ann"}))
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert read(page).find_all(cls="result") and not read(page).find_all(id="replay")
    assert "totals-chart" in client.get(f"/matches/{ref(match_id)}/chart", headers=HTMX).get_data(as_text=True)
    assert client.get(f"/matches/{ref(match_id)}?round=1").status_code == 200
    assert client.get(f"/matches/{ref(match_id)}?round=2").status_code == 400


def test_a_step_of_a_replay_whose_match_is_played_again_opens_the_match(client, app):
    match_id = start_match(client, "pazaak", ["Ann", "Bob"], sets="2")
    for _ in range(2):
        save_round(client, match_id, entry_fields(app, match_id, {"winner": "Ann"}))
    assert read(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)).find_all(id="replay")
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    client.post(f"/matches/{ref(match_id)}/undo", data={"csrf_token": token}, headers=HTMX)
    response = client.get(f"/matches/{ref(match_id)}?round=1", headers=STEP)
    assert response.status_code == 200 and response.headers["HX-Location"] == f"/matches/{ref(match_id)}"


def test_the_save_that_ends_a_match_draws_its_replay_and_undo_takes_it_away(client, app):
    match_id = start_match(client, "pazaak", ["Ann", "Bob"], sets="2")
    save_round(client, match_id, entry_fields(app, match_id, {"winner": "Ann"}))
    ended = save_round(client, match_id, entry_fields(app, match_id, {"winner": "Ann"})).get_data(as_text=True)
    live = ended[ended.index('<div id="live" hx-swap-oob="innerHTML">') :]
    assert read(live).find_all(id="replay") and "After set 2 of 2" in live and read(live).find_all(cls="result")
    assert read(live).find_all("section", cls="chart")
    # The chart below the tools gives its place to the replay's.
    chart = client.get(f"/matches/{ref(match_id)}/chart", headers=HTMX).get_data(as_text=True)
    assert "totals-chart" not in chart

    token = csrf_token(client, f"/matches/{ref(match_id)}")
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"csrf_token": token}, headers=HTMX)
    html = undone.get_data(as_text=True)
    live = html[html.index('<div id="live" hx-swap-oob="innerHTML">') :]
    assert not read(live).find_all(id="replay") and read(live).by_id("standings") and read(live).by_id("rounds")
    assert "totals-chart" in client.get(f"/matches/{ref(match_id)}/chart", headers=HTMX).get_data(as_text=True)


def test_a_following_phone_sees_the_replay_once_the_match_ends(client, app):
    match_id = start_match(client, "pazaak", ["Ann", "Bob"], sets="2")
    save_round(client, match_id, entry_fields(app, match_id, {"winner": "Bob"}))
    viewer = app.test_client()
    tag = re.search(r"data-etag='([^']+)'", viewer.get(f"/matches/{ref(match_id)}").get_data(as_text=True)).group(1)
    save_round(client, match_id, entry_fields(app, match_id, {"winner": "Bob"}))
    poll = viewer.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": tag})
    assert poll.status_code == 200
    html = poll.get_data(as_text=True)
    assert read(html).find_all(id="replay") and "After set 2 of 2" in html and "Bob wins!" in read_words(html)


def test_replaying_reads_but_never_writes(client, app):
    match_id, _, _, rounds = finished_match(app, "pazzaparola")
    with app.app_context():
        before = find_match(match_id).version
        db.session.remove()
    for number in (1, 2, len(rounds)):
        client.get(f"/matches/{ref(match_id)}?round={number}", headers=STEP)
    with app.app_context():
        assert find_match(match_id).version == before
        db.session.remove()
