"""Web tests of the players: records and figures against hand-computed values, rename and merge."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.models import Match, Player, Seat
from tests.helpers import csrf_token, player_id, read_words, ref
from tests.pages import read, table_rows


def card(html: str, game_name: str) -> str:
    """The record card of one game on a player's page, as text without tags."""
    start = html.index(f">{game_name}</span></h3>") + 1
    text = html[start : html.index("</article>", start)]
    return " ".join(re.sub(r"<[^>]+>", " ", text).split())


def test_player_records_per_game_match_the_hand_computed_figures(client, app, samples):
    html = client.get(f"/players/{ref(player_id(app, 'Ann'), 'player')}").get_data(as_text=True)
    assert "4 matches, 4 won (100%)" in html
    # ZANZARA 18, OCA −2, QUIZ 14: best 18, average 30 / 3.
    assert card(html, "Pazzaparola") == (
        "Pazzaparola Played 1 Won 1 Win rate 100% Best word ZANZARA (18) Average word 10.0"
    )
    # Hands of 600 and 80.
    assert card(html, "Burraco PAROLE") == "Burraco PAROLE Played 1 Won 1 Win rate 100% Average hand 340"
    assert card(html, "Topic_") == "Topic_ Played 1 Won 1 Win rate 100% Cards per game 0.0"
    assert card(html, "Pazaak") == "Pazaak Played 1 Won 1 Win rate 100% Sets won 2"


def test_a_loser_and_a_match_in_progress(client, app, samples):
    bob = client.get(f"/players/{ref(player_id(app, 'Bob'), 'player')}").get_data(as_text=True)
    assert "4 matches, 0 won (0%)" in bob
    # RE −2, GATTO 28, no word −6.
    assert card(bob, "Pazzaparola").endswith("Best word GATTO (28) Average word 6.7")
    assert card(bob, "Burraco PAROLE").endswith("Average hand 225")
    assert card(bob, "Topic_").endswith("Cards per game 2.0")
    assert card(bob, "Pazaak").endswith("Sets won 1")
    di = client.get(f"/players/{ref(player_id(app, 'Di'), 'player')}").get_data(as_text=True)
    assert "0 matches, 0 won" in di and "1 in progress" in di and "No finished match yet." in di


def recent_form(html: str) -> list[tuple[str, str]]:
    """The recent-form chips of a player's page: won or lost, as each chip is named, and the match it links."""
    strip = read(html).one("section", aria_labelledby="form-title")
    return [(chip.name().split(":")[0], chip["href"]) for chip in strip.by_role("link")]


def field_error(html: str, role: str, name: str | re.Pattern) -> str:
    """The error text a form field is described by, on a page that refused what it sent."""
    page = read(html)
    return page.by_id(page.one_by_role(role, name)["aria-describedby"]).text


def test_head_to_head_and_recent_form(client, app, samples):
    html = read_words(client.get(f"/players/{ref(player_id(app, 'Ann'), 'player')}").get_data(as_text=True))
    rivals = read(html).one("section", aria_labelledby="rivals-title").one("table")
    rows = [tuple(row.values()) for row in table_rows(rivals)]
    assert rows == [("Bob", "4", "4", "0"), ("Cy", "1", "1", "0")]
    assert [list(row) for row in table_rows(rivals)][0] == ["Against", "Together", "Ann won", "They won"]
    rivals_links = [header.one_by_role("link")["href"] for header in rivals.by_role("rowheader")]
    assert len(rivals_links) == 2 and all(re.fullmatch(r"/players/[0-9A-Za-z]{11}", href) for href in rivals_links)
    assert recent_form(html) == [("Won", f"/matches/{ref(samples[uid])}") for uid in ("pk", "to", "bu", "pz")]
    cy = client.get(f"/players/{ref(player_id(app, 'Cy'), 'player')}").get_data(as_text=True)
    assert [won for won, _ in recent_form(cy)] == ["Lost"]


def cells(html: str, name: str) -> list[str]:
    """The cells of a player's row in a records table."""
    html = read_words(html)
    start = html.index(f">{name}</a></th>")
    return re.findall(r'<td class="num">([^<]*)</td>', html[start : html.index("</tr>", start)])


def test_roster_leaderboards(client, app, samples):
    html = client.get("/players").get_data(as_text=True)
    assert cells(html, "Ann") == ["4", "4", "100%"]
    assert cells(html, "Di") == ["0", "0", "—"]
    topic = client.get("/players?game=topic").get_data(as_text=True)
    assert "Cards per game" in topic
    assert cells(topic, "Cy") == ["1", "0", "0%", "1.0"]
    burraco = client.get("/players?game=burraco").get_data(as_text=True)
    assert cells(burraco, "Bob") == ["1", "0", "0%", "225"]


def test_unknown_player_is_a_404(client):
    assert client.get(f"/players/{ref(999, 'player')}").status_code == 404


def _post(client, app, who, action, **data):
    url = f"/players/{ref(player_id(app, who), 'player')}"
    token = csrf_token(client, url)
    return client.post(f"{url}/{action}", data={"csrf_token": token, **data})


def test_rename_keeps_the_names_matches_were_played_with(host_client, app, samples):
    ann = player_id(app, "Ann")
    response = _post(host_client, app, "Ann", "rename", name="  Anna   Maria ")
    assert response.status_code == 302
    page = read_words(host_client.get(f"/players/{ref(ann, 'player')}").get_data(as_text=True))
    assert [(heading.text, heading.get("title")) for heading in read(page).find_all("h1")] == [("Anna Maria",) * 2]
    assert "Renamed to Anna Maria." in page
    with app.app_context():
        assert db.session.get(Player, ann).key == "anna maria"
        assert set(db.session.scalars(select(Seat.name).where(Seat.player_id == ann))) == {"Ann"}
    # The history still finds her matches by her new name.
    assert "4 matches" in host_client.get("/history?q=maria").get_data(as_text=True)
    assert _post(host_client, app, "Anna Maria", "rename", name="ANNA MARIA").status_code == 302


@pytest.mark.parametrize(
    ("name", "message"),
    [("   ", "A name has 1 to 40 characters."), ("x" * 41, "A name has 1 to 40 characters."),
     ("bob", "bob is already in the roster")],
)  # fmt: skip
def test_bad_rename_is_refused_next_to_the_field(host_client, app, samples, name, message):
    response = _post(host_client, app, "Ann", "rename", name=name)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert field_error(html, "textbox", "Name").startswith(message)
    with app.app_context():
        assert db.session.get(Player, player_id(app, "Ann")).name == "Ann"


def test_merge_moves_the_seats_and_drops_the_entry(host_client, app, samples):
    with app.app_context():
        from companion.services import matches as service

        service.create_match("topic", ["ann ", "Zed"], {})  # seated as "ann": one roster entry, Ann
        service.create_match("pazaak", ["Annie", "Zed"], {})
    annie = player_id(app, "Annie")
    # The first tap asks for a confirmation, which names both entries; only the confirmed post merges.
    asked = _post(host_client, app, "Ann", "merge", other=ref(annie, "player"))
    assert asked.status_code == 200 and "Merge Annie into Ann?" in asked.get_data(as_text=True)
    response = _post(host_client, app, "Ann", "merge", other=ref(annie, "player"), confirmed="yes")
    assert response.status_code == 302
    assert "Merged Annie into Ann." in host_client.get(f"/players/{ref(player_id(app, 'Ann'), 'player')}").get_data(
        as_text=True
    )
    with app.app_context():
        assert db.session.get(Player, annie) is None
        seats = db.session.scalars(select(Seat).where(Seat.player_id == player_id(app, "Ann")))
        assert sorted(s.name for s in seats) == ["Ann", "Ann", "Ann", "Ann", "Annie", "ann"]
    # Sent again (a second tap, a reload): the entry is gone, and the refusal says so rather than "pick another".
    again = _post(host_client, app, "Ann", "merge", other=ref(annie, "player"), confirmed="yes")
    assert again.status_code == 422
    assert field_error(again.get_data(as_text=True), "combobox", re.compile("^Merge another entry")).startswith(
        "That entry is no longer on the roster"
    )


@pytest.mark.parametrize(
    ("other", "message"),
    [("Bob", "Ann and Bob played 4 match(es) together, so they are two people."),
     ("Ann", "Pick another roster entry"), (None, "Pick another roster entry")],
)  # fmt: skip
def test_bad_merge_is_refused_and_nothing_changes(host_client, app, samples, other, message):
    before = _seat_owners(app)
    response = _post(host_client, app, "Ann", "merge", other=ref(player_id(app, other), "player") if other else "")
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert field_error(html, "combobox", re.compile("^Merge another entry of the same person")).startswith(message)
    assert _seat_owners(app) == before


def _seat_owners(app):
    with app.app_context():
        return (
            sorted(db.session.execute(select(Seat.id, Seat.player_id)).all()),
            db.session.scalar(select(func.count(Player.id))),
            db.session.scalar(select(func.count(Match.id))),
        )
