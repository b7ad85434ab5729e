"""A player's page: in progress, partners apart from opponents, host-only forms, a merge's confirmation."""

from __future__ import annotations

import re

from sqlalchemy import select

from companion.extensions import db
from companion.models import Player, Seat
from companion.services import imports
from companion.services import matches as service
from tests.helpers import csrf_token, grant_host_rights, pairs_match, player_id, ref, start_match
from tests.pages import read


def test_a_match_the_host_ended_is_not_in_progress(app, host_client):
    kept = start_match(host_client, "topic", ["Ann", "Bob", "Cy"])
    ended = start_match(host_client, "topic", ["Ann", "Bob", "Di"])
    assert kept != ended
    token = csrf_token(host_client, f"/matches/{ref(ended)}")
    assert host_client.post(f"/matches/{ref(ended)}/end", data={"csrf_token": token}).status_code in (302, 303)
    page = host_client.get(f"/players/{ref(player_id(app, 'Ann'), 'player')}").get_data(as_text=True)
    assert "1 in progress" in page and "2 in progress" not in page
    di = host_client.get(f"/players/{ref(player_id(app, 'Di'), 'player')}").get_data(as_text=True)
    assert "in progress" not in di
    # The history still finds both of Ann's matches.
    assert "2 matches" in host_client.get(f"/history?player={ref(player_id(app, 'Ann'), 'player')}").get_data(
        as_text=True
    )


def test_a_phone_without_host_rights_sees_no_rename_or_merge_form(app, client):
    start_match(client, "topic", ["Ann", "Bob", "Cy"])
    page = client.get(f"/players/{ref(player_id(app, 'Ann'), 'player')}").get_data(as_text=True)
    assert "Rename" not in page and "Merge" not in page
    grant_host_rights(client)
    page = client.get(f"/players/{ref(player_id(app, 'Ann'), 'player')}").get_data(as_text=True)
    assert "Rename" in page and "Merge" in page


def test_a_refused_rename_speaks_italian_on_the_italian_ui(app, client):
    start_match(client, "topic", ["Ann", "Bob", "Cy"])
    client.set_cookie("lang", "it")
    ann = player_id(app, "Ann")
    token = csrf_token(client, f"/players/{ref(ann, 'player')}")
    response = client.post(f"/players/{ref(ann, 'player')}/rename", data={"csrf_token": token, "name": "Zed"})
    html = response.get_data(as_text=True)
    assert response.status_code == 403
    assert "Forbidden" not in html and "Non consentito" in html
    missing = client.get(f"/players/{ref(424242, 'player')}").get_data(as_text=True)
    assert "Not Found" not in missing and "Non trovato" in missing and "requested URL" not in missing


def test_a_merge_asks_first_naming_both_and_what_happens(app, host_client):
    start_match(host_client, "topic", ["Ann", "Bob", "Cy"])
    start_match(host_client, "topic", ["Annie", "Bob", "Di"])
    ann, annie = player_id(app, "Ann"), player_id(app, "Annie")
    token = csrf_token(host_client, f"/players/{ref(ann, 'player')}")
    asked = host_client.post(
        f"/players/{ref(ann, 'player')}/merge", data={"csrf_token": token, "other": ref(annie, "player")}
    )
    html = asked.get_data(as_text=True)
    assert asked.status_code == 200
    assert "Merge Annie into Ann?" in html
    assert "The 1 match of Annie moves to Ann, and the roster entry Annie is removed." in html
    assert "This cannot be undone." in html
    with app.app_context():
        assert db.session.get(Player, annie) is not None
        db.session.remove()
    token = csrf_token(host_client, f"/players/{ref(ann, 'player')}")
    done = host_client.post(
        f"/players/{ref(ann, 'player')}/merge",
        data={"csrf_token": token, "other": ref(annie, "player"), "confirmed": "yes"},
    )
    assert done.status_code == 302
    with app.app_context():
        assert db.session.get(Player, annie) is None
        assert len(db.session.scalars(select(Seat).where(Seat.player_id == ann)).all()) == 2
        db.session.remove()


# Ann and Cy against Bob and Di in two finished Burraco matches of one hand; Noi win the first, Voi the second.
def section(html: str, title_id: str) -> str:
    """The text of the table after a heading, without tags."""
    start = html.index(f'id="{title_id}"')
    return " ".join(re.sub(r"<[^>]+>", " ", html[start : html.index("</table>", start)]).split())


def test_burraco_partners_are_listed_with_the_player_not_against(app, client):
    with app.app_context():
        imports.import_matches([pairs_match("p1", "Noi", "2025-03-01T20:00:00Z"),
                                pairs_match("p2", "Voi", "2025-03-02T20:00:00Z")])  # fmt: skip
        db.session.remove()
    html = client.get(f"/players/{ref(player_id(app, 'Ann'), 'player')}").get_data(as_text=True)
    # With Cy: two matches, one won together; against Bob and Di: two each, one won by each side.
    assert section(html, "partners-title").endswith("Partner Together Won together Cy 2 1")
    against = section(html, "against-title")
    assert "Bob 2 1 1" in against and "Di 2 1 1" in against and "Cy" not in against


def test_a_players_page_charts_the_share_of_matches_won_over_time(app, client):
    with app.app_context():
        imports.import_matches([pairs_match("p1", "Noi", "2025-03-01T20:00:00Z"),
                                pairs_match("p2", "Voi", "2025-03-02T20:00:00Z"),
                                pairs_match("p3", "Noi", "2025-03-03T20:00:00Z")])  # fmt: skip
        db.session.remove()
    html = client.get(f"/players/{ref(player_id(app, 'Ann'), 'player')}").get_data(as_text=True)
    assert "Results over time" in html
    label = "Share of matches won after each of 3 finished matches: 67% in the end"
    assert read(html).one_by_role("img", label).tag == "svg"
    chart = read(html).by_id("results-title").closest("section")
    # One line, through 100 %, 50 %, 67 % (Ann won, lost, won), named in the legend with its share now.
    assert [line for line in chart.iter() if line.get("class", "").startswith("line")] and chart.find_all("svg")
    assert "Burraco PAROLE 67%" in [item.text for item in chart.one("ul", cls="chart-legend").by_role("listitem")]
    client.set_cookie("lang", "it")
    italian = client.get(f"/players/{ref(player_id(app, 'Ann'), 'player')}").get_data(as_text=True)
    assert "Risultati nel tempo" in italian and "67% alla fine" in italian
    # Someone with no finished match has no chart.
    with app.app_context():
        service.create_match("topic", ["Zed", "Bob", "Cy"], {})
        db.session.remove()
    assert "Results over time" not in client.get(f"/players/{ref(player_id(app, 'Zed'), 'player')}").get_data(
        as_text=True
    )


def test_the_share_won_follows_each_result_of_each_game(app):
    from companion.queries.ratings import rating_lines

    with app.app_context():
        imports.import_matches([pairs_match("p1", "Noi", "2025-03-01T20:00:00Z"),
                                pairs_match("p2", "Voi", "2025-03-02T20:00:00Z"),
                                pairs_match("p3", "Noi", "2025-03-03T20:00:00Z"),
                                pairs_match("p4", "Noi", "2025-03-04T20:00:00Z")])  # fmt: skip
        lines = rating_lines(player_id(app, "Ann"))
    # Ann won, lost, won, won: her share after each match.
    assert lines.steps == (1, 2, 3, 4)
    burraco = lines.games["burraco"]
    assert burraco.won_share == (100, 50, 67, 75) and (burraco.matches, burraco.wins, burraco.win_rate) == (4, 3, 75)
