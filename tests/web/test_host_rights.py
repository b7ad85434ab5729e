"""Host rights: the host link, what only the host may do, revoking, and ending a stuck match."""

from __future__ import annotations

import io
import json

import pytest
from sqlalchemy import select

from companion.extensions import db
from companion.models import Match, Player
from companion.services import host
from tests.helpers import (
    HTMX,
    PHONE_CREDENTIAL,
    csrf_token,
    dump,
    examples,
    grant_host_rights,
    ref,
    save_round,
    start_match,
)
from tests.pages import read

TOPIC_ROUND = {"several": "on", "losers": "Bob"}


def player_id(app, name: str) -> int:
    with app.app_context():
        found = db.session.scalar(select(Player.id).where(Player.name == name))
        db.session.remove()
    return found


def save_topic_round(client, match_id: int, number: int):
    """Save round `number` of a Topic_ match: the same loser every time."""
    return save_round(client, match_id, TOPIC_ROUND, number)


def upload_example(client, token: str):
    """Import the documented Topic_ match file through the history's form."""
    content = json.dumps(examples()["topic"]["match file"]).encode()
    return client.post(
        "/history/import",
        data={"csrf_token": token, "file": (io.BytesIO(content), "m.json")},
        content_type="multipart/form-data",
    )


@pytest.fixture
def table(app, client):
    """A Topic_ match of Ann, Bob and Cy with one round, scored by `client`; another phone, a stranger."""
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    assert save_topic_round(client, match_id, 1).status_code == 200
    return match_id, app.test_client()


def test_the_host_takes_a_finished_matchs_pencil_to_correct_it_once_its_scorekeepers_phone_is_gone(app, client):
    # A finished match whose scorekeeper's phone was lost (or an imported one) could be corrected by no one: the
    # host's take-over was refused as "over".
    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    for number in (1, 2, 3):
        assert save_round(client, match_id, {"winner": "0"}, number).status_code == 200
    host_phone = app.test_client()
    grant_host_rights(host_phone)
    share = host_phone.get(f"/matches/{ref(match_id)}/share").get_data(as_text=True)
    assert "Take the pencil (host)" in share
    token = csrf_token(host_phone, f"/matches/{ref(match_id)}/share")
    assert host_phone.post(f"/matches/{ref(match_id)}/pencil/back", data={"csrf_token": token}).status_code == 302
    assert host_phone.get(f"/matches/{ref(match_id)}/rounds/1").status_code == 200
    assert client.get(f"/matches/{ref(match_id)}/rounds/1").status_code == 403


def test_the_host_link_gives_this_phone_host_rights_in_an_httponly_cookie(app, client):
    with app.app_context():
        token = host.new_link_token(app)
    landing = client.get(f"/host?token={token}")
    assert landing.status_code == 200 and "Take host rights" in landing.get_data(as_text=True)
    # Opening the link alone gives nothing: a preview or a prefetch must not make a host.
    assert client.get_cookie(PHONE_CREDENTIAL) is None
    claimed = client.post("/host", data={"csrf_token": csrf_token(client, f"/host?token={token}"), "token": token})
    assert claimed.status_code == 302
    # The rights hang on the phone's own credential, kept in an HttpOnly cookie.
    cookie = next(line for line in claimed.headers.getlist("Set-Cookie") if line.startswith(f"{PHONE_CREDENTIAL}="))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "This phone has host rights." in client.get("/host").get_data(as_text=True)
    # The token itself is never stored: only its hash.
    with open(f"{app.instance_path}/{host.HOST_FILE}") as kept:
        assert token not in kept.read()


def test_a_wrong_or_old_host_link_gives_nothing(app, client):
    with app.app_context():
        old = host.new_link_token(app)
        host.new_link_token(app)
    for token in ("", "guess", old):
        response = client.post("/host", data={"csrf_token": csrf_token(client, "/host"), "token": token})
        assert response.status_code == 403
        assert "no longer valid" in response.get_data(as_text=True)
        assert client.get_cookie(PHONE_CREDENTIAL) is None


@pytest.mark.parametrize("forged", ["0" * 64, "é" * 64])
def test_a_forged_host_cookie_gives_nothing(app, client, table, forged):
    match_id, stranger = table
    with app.app_context():
        host.new_link_token(app)
    stranger.set_cookie(PHONE_CREDENTIAL, forged)
    token = csrf_token(stranger, "/players")
    response = stranger.post(
        f"/players/{ref(player_id(app, 'Ann'), 'player')}/rename", data={"csrf_token": token, "name": "Zed"}
    )
    assert response.status_code == 403


def host_writes(app, match_id: int) -> list[tuple[str, str, dict]]:
    """Every write only the host may make: (what, path, form)."""
    ann, bob = player_id(app, "Ann"), player_id(app, "Bob")
    return [
        ("rename", f"/players/{ref(ann, 'player')}/rename", {"name": "Annie"}),
        ("merge", f"/players/{ref(ann, 'player')}/merge", {"other": ref(bob, "player")}),
        ("end", f"/matches/{ref(match_id)}/end", {}),
        ("delete", f"/matches/{ref(match_id)}/delete", {}),
        ("take the pencil", f"/matches/{ref(match_id)}/pencil/back", {}),
        ("play again", f"/matches/{ref(match_id)}/again", {}),
    ]


def test_a_stranger_gets_a_clear_403_and_nothing_changes(app, client, table):
    match_id, stranger = table
    token = csrf_token(stranger, f"/matches/{ref(match_id)}")
    before = dump(app)
    for what, path, form in host_writes(app, match_id):
        for headers in ({}, HTMX):
            response = stranger.post(path, data={"csrf_token": token, **form}, headers=headers)
            assert response.status_code == 403, what
            body = response.get_data(as_text=True)
            assert "host" in body or "started the match" in body, what
    upload = upload_example(stranger, token)
    assert upload.status_code == 403
    assert "Ask the host" in upload.get_data(as_text=True) and "host link" in upload.get_data(as_text=True)
    assert dump(app) == before


def test_everyone_keeps_what_they_had_without_host_rights(app, client, table):
    match_id, stranger = table
    # Follow, read the history and the players, start a match and keep its score.
    for path in (f"/matches/{ref(match_id)}", f"/matches/{ref(match_id)}/live", "/history", "/players", "/"):
        assert stranger.get(path).status_code == 200, path
    own = start_match(stranger, "topic", ["Di", "Ed"])
    token = csrf_token(stranger, f"/matches/{ref(own)}")
    saved = stranger.post(f"/matches/{ref(own)}/rounds", data={"csrf_token": token, "number": "1", "loser": "Di"},
                          headers=HTMX)  # fmt: skip
    assert saved.status_code == 200
    # The scorekeeper deletes their own match without host rights.
    assert stranger.post(f"/matches/{ref(own)}/delete", data={"csrf_token": token}).status_code == 302


def test_the_host_may_do_each_of_them(app, client, table):
    match_id, stranger = table
    grant_host_rights(stranger)
    token = csrf_token(stranger, "/players")
    ann = player_id(app, "Ann")
    assert (
        stranger.post(f"/players/{ref(ann, 'player')}/rename", data={"csrf_token": token, "name": "Annie"}).status_code
        == 302
    )
    # Taking any match's pencil: the host's phone then keeps its score, the old phone no longer.
    assert stranger.post(f"/matches/{ref(match_id)}/pencil/back", data={"csrf_token": token}).status_code == 302
    assert save_topic_round(stranger, match_id, 2).status_code == 200
    assert save_topic_round(client, match_id, 3).status_code == 403
    imported = upload_example(stranger, token)
    assert imported.status_code == 302
    with app.app_context():
        ids = sorted(db.session.scalars(select(Match.id)))
        db.session.remove()
    for other in ids:
        assert stranger.post(f"/matches/{ref(other)}/delete", data={"csrf_token": token}).status_code == 302
    with app.app_context():
        assert db.session.scalars(select(Match)).all() == []
        db.session.remove()


def test_host_token_new_revokes_every_phone_and_a_new_link_works(app, runner, table):
    match_id, stranger = table
    grant_host_rights(stranger)
    assert "End as unfinished" in stranger.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    # A fresh link (without --new) lets one more phone in; the phones that have the rights keep them.
    fresh = runner.invoke(args=["host-token"])
    assert fresh.exit_code == 0 and "/host?token=" in fresh.stdout
    assert "End as unfinished" in stranger.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    revoked = runner.invoke(args=["host-token", "--new"])
    assert revoked.exit_code == 0 and "revoked" in revoked.stdout
    page = stranger.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "End as unfinished" not in page
    token = csrf_token(stranger, f"/matches/{ref(match_id)}/end")
    assert stranger.post(f"/matches/{ref(match_id)}/end", data={"csrf_token": token}).status_code == 403
    new_token = revoked.stdout.split("/host?token=")[1].split()[0]
    claimed = stranger.post("/host", data={"csrf_token": token, "token": new_token})
    assert claimed.status_code == 302
    assert stranger.post(f"/matches/{ref(match_id)}/end", data={"csrf_token": token}).status_code == 302


def test_a_stuck_match_ended_by_the_host_is_kept_as_unfinished(app, client, table):
    match_id, stranger = table
    assert "last round" in client.get("/").get_data(as_text=True)
    grant_host_rights(stranger)
    token = csrf_token(stranger, f"/matches/{ref(match_id)}/end")
    assert "End this match as unfinished?" in stranger.get(f"/matches/{ref(match_id)}/end").get_data(as_text=True)
    assert stranger.post(f"/matches/{ref(match_id)}/end", data={"csrf_token": token}).status_code == 302
    home = client.get("/").get_data(as_text=True)
    assert f'/matches/{ref(match_id)}"' not in home and "No match in progress" in home
    history = client.get("/history").get_data(as_text=True)
    assert "Unfinished" in history
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert "ended this match as unfinished" in page and not read(page).find_all(name="number")
    before = dump(app)
    # Its old scorekeeper can no longer write to it, nor take the pencil back; ending it twice is refused.
    assert save_topic_round(client, match_id, 2).status_code == 403
    owner_token = csrf_token(client, f"/matches/{ref(match_id)}")
    assert client.post(f"/matches/{ref(match_id)}/pencil/back", data={"csrf_token": owner_token}).status_code == 403
    assert stranger.post(f"/matches/{ref(match_id)}/end", data={"csrf_token": token}).status_code == 409
    assert dump(app) == before
    # Still the host's to delete.
    assert stranger.post(f"/matches/{ref(match_id)}/delete", data={"csrf_token": token}).status_code == 302


def test_the_home_page_shows_when_each_match_in_progress_had_its_last_round(app, client, table):
    match_id, _ = table
    fresh = start_match(client, "topic", ["Di", "Ed"])
    home = client.get("/").get_data(as_text=True)
    items = {link["href"]: link.closest("li") for link in read(home).by_role("link")}
    assert "last round" in items[f"/matches/{ref(match_id)}"].text
    assert "no round yet" in items[f"/matches/{ref(fresh)}"].text
