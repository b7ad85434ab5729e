"""A fifth game made of its own files only (tests/fifth_game), registered at test time, played through every page."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from companion import create_app
from companion.extensions import db
from companion.games import REGISTRY, unregister
from companion.models import Match, Player
from tests.fifth_game import game as fives
from tests.fifth_game import registered
from tests.helpers import (
    ADDRESS_KEY,
    HTMX,
    csrf_token,
    fresh_database,
    grant_host_rights,
    ref,
    save_round,
    start_match,
    unref,
)
from tests.pages import definitions, read, table_rows

PLAYERS = ["Ann", "Bob"]


@pytest.fixture(autouse=True)
def fives_registered() -> Iterator[None]:
    """Fives in the registry for one test, and out of it again afterwards."""
    with registered():
        yield


def start(client, target: str = "10") -> int:
    """Pick Fives on the new-match page, seat Ann and Bob and start; the new match's id."""
    token = csrf_token(client, "/matches/new")
    picked = client.post("/matches/new", data={"csrf_token": token, "action": "game:fives"}, headers=HTMX)
    assert picked.status_code == 200 and "Points to reach" in picked.get_data(as_text=True)
    return start_match(client, "fives", PLAYERS, csrf=token, **{"fives-target": target})


def save(client, match_id: int, number: int, ann: int, bob: int):
    """Enter one round on the match page, as its Save button posts it."""
    return save_round(client, match_id, {"points-0": ann, "points-1": bob}, number)


def fives_buttons(html: str) -> list[str]:
    """What the new-match page's buttons named Fives post: the game they pick."""
    return [button["value"] for button in read(html).by_role("button", "Fives")]


def fives_tags(html: str) -> list[str]:
    """The game tags in Fives' colour a page shows, by their text."""
    return [tag.text for tag in read(html).find_all(cls="game-fives") if "game-tag" in tag.classes]


def points_to_reach(html: str) -> str:
    """The value of the new-match form's Points to reach field."""
    return read(html).one_by_role("textbox", "Points to reach")["value"]


def stored(app, match_id: int) -> Match:
    """The match as stored, with its rounds."""
    with app.app_context():
        match = db.session.get(Match, match_id)
        match.rounds  # noqa: B018 - loaded while the session is open
        db.session.expunge(match)
        return match


def test_the_new_match_page_offers_the_registered_game_and_forgets_it_after(client):
    assert fives_buttons(client.get("/matches/new").get_data(as_text=True)) == ["game:fives"]
    assert fives.name in client.get("/manifest.webmanifest").get_json()["description"]
    unregister(fives.slug)
    assert "fives" not in REGISTRY
    assert fives_buttons(client.get("/matches/new").get_data(as_text=True)) == []


def test_a_fifth_game_is_started_scored_undone_and_finished(client, app):
    match_id = start(client)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "Points of Ann" in page and "Points of Bob" in page
    assert "Fives" in fives_tags(page)
    assert stored(app, match_id).settings == {"target": 10}

    first = save(client, match_id, 1, 5, 3)
    html = first.get_data(as_text=True)
    assert first.status_code == 200
    assert "Fives round 1 saved: Ann 5, Bob 3" in html
    assert "needs 5" in html and "needs 7" in html

    token = csrf_token(client, f"/matches/{ref(match_id)}")
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"csrf_token": token}, headers=HTMX)
    assert undone.status_code == 200 and "Round 1 taken back." in undone.get_data(as_text=True)
    assert stored(app, match_id).rounds == []

    assert save(client, match_id, 1, 5, 3).status_code == 200
    appended = save(client, match_id, 2, 2, 2).get_data(as_text=True)
    # Only the new row travels, drawn by the game's own row partial.
    added = read(appended).one(hx_swap_oob="beforeend:#round-rows")
    assert added.find_all(cls="fives-round")
    refused = save(client, match_id, 3, 6, 0)
    assert refused.status_code == 422 and "points must be a whole number from 0 to 5, got 6" in refused.get_data(
        as_text=True
    )
    assert save(client, match_id, 3, 5, 0).status_code == 200
    match = stored(app, match_id)
    assert match.status == "finished" and match.summary["totals"] == {"Ann": 12, "Bob": 5}
    assert match.summary["winners"] == ["Ann"]


def test_a_fifth_game_shows_in_the_history_the_player_page_and_the_table_view(client, app):
    match_id = start(client, target="5")
    save(client, match_id, 1, 5, 4)
    history = client.get("/history").get_data(as_text=True)
    assert "Fives" in fives_tags(history) and "Ann, Bob" in history
    filtered = read(client.get("/history?game=fives").get_data(as_text=True))
    assert [link for link in filtered.by_role("link") if link["href"] == f"/matches/{ref(match_id)}"]
    game = filtered.one_by_role("combobox", "Game")
    assert [(option["value"], option.text) for option in game.find_all("option") if option.has("selected")] == [
        ("fives", "Fives")
    ]

    with app.app_context():
        ann = db.session.scalar(select(Player.id).where(Player.key == "ann"))
    profile = client.get(f"/players/{ref(ann, 'player')}").get_data(as_text=True)
    assert "Fives" in fives_tags(profile)
    assert ("Best round", "5") in definitions(read(profile))
    board = read(client.get("/players?game=fives").get_data(as_text=True))
    assert {row["Player"]: row["Best round"] for row in table_rows(board.one("table"))}["Ann"] == "5"

    table = client.get(f"/matches/{ref(match_id)}/table").get_data(as_text=True)
    assert "Fives · Final" in table and "Winner: Ann" in table


def test_a_fifth_game_has_its_result_card_with_the_words_every_game_has(client, app):
    from companion.pages.match import MatchPage
    from companion.queries.matches import find_match
    from companion.web.cards import NEUTRAL

    match_id = start(client, target="5")
    save(client, match_id, 1, 5, 4)
    with app.test_request_context():
        text = MatchPage(find_match(match_id)).result_card()
        db.session.remove()
    # No highlight nor colour of its own: the card says what every game's says, in the neutral ink.
    assert text.highlight is None and text.colour == NEUTRAL
    assert text.lines() == ["Fives", text.date, "Player Total", "1 Ann 5", "2 Bob 4", "Winner: Ann", "Table companion"]
    response = client.get(f"/matches/{ref(match_id)}/card.png?theme=dark")
    assert response.status_code == 200 and response.mimetype == "image/png"
    assert "Share the result" in client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)


def test_a_fifth_game_is_exported_and_imported(client, app, tmp_path):
    match_id = start(client, target="5")
    save(client, match_id, 1, 5, 1)
    document = client.get(f"/matches/{ref(match_id)}.json").get_json()
    assert document["game"] == "fives" and document["settings"] == {"target": 5}
    assert [{k: v for k, v in r.items() if k != "at"} for r in document["rounds"]] == [{"points": {"Ann": 5, "Bob": 1}}]
    exported = client.get("/history/export.json").get_data()
    assert json.loads(exported)[0]["id"] == document["id"]

    # Another, empty database: a fresh one on the PostgreSQL server too, never the server's shared one.
    with fresh_database() as url:
        config = {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": url or f"sqlite:///{tmp_path / 'other.sqlite'}",
            "SECRET_KEY": ADDRESS_KEY,
        }
        import_into_another_app(create_app(config, instance_path=str(tmp_path / "other")), exported)


def import_into_another_app(other, exported: bytes) -> None:
    """The export imported through another app's page, which then exports the same."""
    try:
        other_client = grant_host_rights(other.test_client())
        token = csrf_token(other_client, "/history")
        upload = other_client.post(
            "/history/import",
            data={"csrf_token": token, "file": (io.BytesIO(exported), "fives.json")},
            content_type="multipart/form-data",
        )
        assert upload.status_code == 302
        assert "Imported 1 match(es); 0 already stored." in other_client.get("/history").get_data(as_text=True)
        assert json.loads(other_client.get("/history/export.json").get_data()) == json.loads(exported)
    finally:
        with other.app_context():
            db.session.remove()
            db.engine.dispose()


def test_a_declared_setting_is_drawn_stepped_and_kept_by_the_new_match_form(client, app):
    token = csrf_token(client, "/matches/new")
    data = {"csrf_token": token, "game": "fives", "seat": PLAYERS, "fives-target": "7"}
    stepped = client.post("/matches/new", data={**data, "action": "setting:target:1"}, headers=HTMX)
    assert stepped.status_code == 200
    page = stepped.get_data(as_text=True)
    assert points_to_reach(page) == "8" and "Points to reach: one more" in page
    kept = client.post("/matches/new", data={**data, "fives-target": "8", "action": "add:Cy"}, headers=HTMX)
    assert points_to_reach(kept.get_data(as_text=True)) == "8"
    refused = client.post("/matches/new", data={**data, "fives-target": "0", "action": "start"})
    assert refused.status_code == 422 and "Points to reach must be a whole number from 1 to 100" in refused.get_data(
        as_text=True
    )
    started = client.post("/matches/new", data={**data, "fives-target": "8", "action": "start"})
    match_id = unref(started.headers["Location"].rsplit("/", 1)[1])
    assert stored(app, match_id).settings == {"target": 8}


def test_a_setting_of_the_game_picked_before_does_not_become_a_fives_setting(client):
    token = csrf_token(client, "/matches/new")
    data = {"csrf_token": token, "game": "pazzaparola", "target": "3", "cards": "8", "action": "game:fives"}
    picked = client.post("/matches/new", data=data, headers=HTMX).get_data(as_text=True)
    assert points_to_reach(picked) == "10"
