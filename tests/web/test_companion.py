"""Web tests of the table companion: live following, the pencil, undo/redo, corrections."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.models import Match, RoundChange
from companion.web.live import live_etag
from tests.helpers import HTMX, counted, csrf_token, entry_fields, ref, save_round, start_match, stored_match
from tests.pages import read

TOPIC_ROUNDS = [{"losers": ["Bob"]}, {"losers": ["Cy"], "penalties": ["Ann"]}, {"losers": ["Ann"]}]


@pytest.fixture
def match_id(client):
    """A Topic_ match of Ann, Bob and Cy started by `client`, which holds its pencil."""
    return start_match(client, "topic", ["Ann", "Bob", "Cy"])


def form_for(app, round_data, number, token):
    """The entry form a scorekeeper's page would send for this round, with its number and CSRF token."""
    form = entry_fields(app, 1, round_data)
    form.add("number", str(number))
    form.add("csrf_token", token)
    return form


def save(client, app, round_data, number):
    """Tap Save with the entry form filled in for this round of the match."""
    return save_round(client, 1, entry_fields(app, 1, round_data), number)


def test_save_answers_with_entry_and_out_of_band_standings(client, app, match_id):
    response = save(client, app, TOPIC_ROUNDS[0], 1)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert read(html).by_id("standings")["hx-swap-oob"] == "true"
    assert read(html).one_by_role("status").one_by_role("button", "Undo")
    assert [r["losers"] for r in stored_match(app, match_id).rounds] == [["Bob"]]


def test_double_tap_stores_the_round_once(client, app, match_id):
    first = save(client, app, TOPIC_ROUNDS[0], 1)
    second = save(client, app, TOPIC_ROUNDS[0], 1)
    assert first.status_code == 200 and second.status_code == 200
    assert len(stored_match(app, match_id).rounds) == 1


def test_a_different_round_on_a_stale_page_is_a_conflict(client, app, match_id):
    save(client, app, TOPIC_ROUNDS[0], 1)
    stale = save(client, app, {"losers": ["Cy"]}, 1)
    assert stale.status_code == 409
    assert "This round changed meanwhile" in stale.get_data(as_text=True)
    assert [r["losers"] for r in stored_match(app, match_id).rounds] == [["Bob"]]


def test_undo_and_redo_several_steps(client, app, match_id):
    for number, data in enumerate(TOPIC_ROUNDS, start=1):
        assert save(client, app, data, number).status_code == 200
    token = csrf_token(client, f"/matches/{ref(1)}")
    for _ in range(2):
        assert client.post(f"/matches/{ref(1)}/undo", headers={**HTMX, "X-CSRFToken": token}).status_code == 200
    assert [r["losers"] for r in stored_match(app, match_id).rounds] == [["Bob"]]
    assert client.post(f"/matches/{ref(1)}/redo", headers={**HTMX, "X-CSRFToken": token}).status_code == 200
    assert [r["losers"] for r in stored_match(app, match_id).rounds] == [["Bob"], ["Cy"]]
    assert stored_match(app, match_id).rounds[1]["penalties"] == ["Ann"]
    assert client.post(f"/matches/{ref(1)}/redo", headers={**HTMX, "X-CSRFToken": token}).status_code == 200
    assert len(stored_match(app, match_id).rounds) == 3
    nothing = client.post(f"/matches/{ref(1)}/redo", headers={**HTMX, "X-CSRFToken": token})
    assert nothing.status_code == 409 and "nothing to redo" in nothing.get_data(as_text=True)
    assert nothing.headers["HX-Retarget"] == "#banner"


def test_a_new_round_empties_the_redo_stack(client, app, match_id):
    save(client, app, TOPIC_ROUNDS[0], 1)
    token = csrf_token(client, f"/matches/{ref(1)}")
    client.post(f"/matches/{ref(1)}/undo", headers={**HTMX, "X-CSRFToken": token})
    save(client, app, {"losers": ["Cy"]}, 1)
    response = client.post(f"/matches/{ref(1)}/redo", headers={**HTMX, "X-CSRFToken": token})
    assert response.status_code == 409
    assert [r["losers"] for r in stored_match(app, match_id).rounds] == [["Cy"]]


def test_correction_rescores_and_keeps_the_old_values(client, app, match_id):
    for number, data in enumerate(TOPIC_ROUNDS, start=1):
        save(client, app, data, number)
    page = client.get(f"/matches/{ref(1)}/rounds/1")
    assert page.status_code == 200
    token = csrf_token(client, f"/matches/{ref(1)}/rounds/1")
    form = form_for(app, {"losers": ["Cy"]}, 1, token)
    form.add("revision", "0")
    response = client.post(f"/matches/{ref(1)}/rounds/1", data=form)
    assert response.status_code in (200, 302)
    assert stored_match(app, match_id).rounds[0]["losers"] == ["Cy"]
    with app.app_context():
        change = db.session.scalar(select(RoundChange))
        assert change.action == "correct" and change.before["losers"] == ["Bob"]
        assert change.after["losers"] == ["Cy"]
        match = db.session.get(Match, 1)
        assert match.summary["totals"] == {"Ann": 2, "Bob": 0, "Cy": 2}
    log = client.get(f"/matches/{ref(1)}/changes").get_data(as_text=True)
    text = " ".join(re.sub(r"<[^>]+>", " ", log).split())
    assert re.search(r"Round 1 · \d\d:\d\d · corrected · Bob 1 → 0, Cy 0 → 1", text)


def test_two_editors_of_one_round_the_second_is_refused(client, app, match_id):
    save(client, app, TOPIC_ROUNDS[0], 1)
    token = csrf_token(client, f"/matches/{ref(1)}/rounds/1")
    first = form_for(app, {"losers": ["Cy"]}, 1, token)
    first.add("revision", "0")
    second = form_for(app, {"losers": ["Ann"]}, 1, token)
    second.add("revision", "0")
    assert client.post(f"/matches/{ref(1)}/rounds/1", data=first).status_code in (200, 302)
    refused = client.post(f"/matches/{ref(1)}/rounds/1", data=second)
    assert refused.status_code == 409
    assert "This round changed meanwhile" in refused.get_data(as_text=True)
    assert stored_match(app, match_id).rounds[0]["losers"] == ["Cy"]


def test_an_edit_of_a_round_taken_back_and_saved_again_is_refused(client, app, match_id):
    # The edit page of round 2, opened before it was taken back and another round 2 saved (its revision 0 again),
    # overwrote the new round unseen.
    for number, data in enumerate(TOPIC_ROUNDS[:2], start=1):
        save(client, app, data, number)
    page = client.get(f"/matches/{ref(1)}/rounds/2").get_data(as_text=True)
    shown = dict(re.findall(r'name="(revision|saved_at)" value="([^"]*)"', page))
    token = csrf_token(client, f"/matches/{ref(1)}")
    undone = client.post(f"/matches/{ref(1)}/undo", data={"shown": "2"}, headers={**HTMX, "X-CSRFToken": token})
    assert undone.status_code == 200
    save(client, app, {"losers": ["Ann"]}, 2)
    stale = form_for(app, {"losers": ["Cy"]}, 2, csrf_token(client, f"/matches/{ref(1)}/rounds/2"))
    for name, value in shown.items():
        stale.add(name, value)
    refused = client.post(f"/matches/{ref(1)}/rounds/2", data=stale)
    assert refused.status_code == 409 and "This round changed meanwhile" in refused.get_data(as_text=True)
    assert stored_match(app, match_id).rounds[1]["losers"] == ["Ann"]


def test_viewer_cannot_write_and_gets_a_clear_403(client, app, match_id):
    viewer = app.test_client()
    token = csrf_token(viewer, f"/matches/{ref(1)}")
    page = viewer.get(f"/matches/{ref(1)}").get_data(as_text=True)
    assert "Only the scorekeeper" in page and "data-live" in page
    for path in (
        f"/matches/{ref(1)}/rounds",
        f"/matches/{ref(1)}/undo",
        f"/matches/{ref(1)}/redo",
        f"/matches/{ref(1)}/entry",
        f"/matches/{ref(1)}/delete",
    ):
        response = viewer.post(path, data=form_for(app, TOPIC_ROUNDS[0], 1, token))
        assert response.status_code == 403, path
        assert "scorekeeper" in response.get_data(as_text=True)
    assert stored_match(app, match_id).rounds == []


def test_live_poll_is_304_when_nothing_changed(client, app, match_id):
    viewer = app.test_client()
    first = viewer.get(f"/matches/{ref(1)}/live", headers=HTMX)
    tag = first.headers["ETag"]
    assert first.status_code == 200 and read(first.get_data(as_text=True)).by_id("standings")
    unchanged = viewer.get(f"/matches/{ref(1)}/live", headers={**HTMX, "If-None-Match": tag})
    assert unchanged.status_code == 304 and unchanged.data == b""
    save(client, app, TOPIC_ROUNDS[0], 1)
    changed = viewer.get(f"/matches/{ref(1)}/live", headers={**HTMX, "If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag


def test_pencil_is_handed_over_and_taken_back(client, app, match_id):
    token = csrf_token(client, f"/matches/{ref(1)}/share")
    offer = client.post(f"/matches/{ref(1)}/pencil/offer", headers={**HTMX, "X-CSRFToken": token})
    html = offer.get_data(as_text=True)
    assert offer.status_code == 200 and "<svg" in html
    link = html.split('id="pencil-link"')[0].rsplit('href="', 1)[1].split('"')[0]
    code = link.split("code=")[1]

    other = app.test_client()
    other_token = csrf_token(other, f"/matches/{ref(1)}/pencil?code={code}")
    taken = other.post(f"/matches/{ref(1)}/pencil", data={"csrf_token": other_token, "code": code})
    assert taken.status_code == 302
    assert save(other, app, TOPIC_ROUNDS[0], 1).status_code == 200
    assert save(client, app, TOPIC_ROUNDS[1], 2).status_code == 403
    reused = app.test_client()
    reused_token = csrf_token(reused, f"/matches/{ref(1)}")
    assert reused.post(f"/matches/{ref(1)}/pencil", data={"csrf_token": reused_token, "code": code}).status_code == 409

    back = client.post(
        f"/matches/{ref(1)}/pencil/back", data={"csrf_token": csrf_token(client, f"/matches/{ref(1)}/share")}
    )
    assert back.status_code == 302
    assert save(client, app, TOPIC_ROUNDS[1], 2).status_code == 200
    assert save(other, app, TOPIC_ROUNDS[2], 3).status_code == 403
    assert len(stored_match(app, match_id).rounds) == 2


def test_share_page_has_the_viewer_qr(client, match_id):
    html = client.get(f"/matches/{ref(1)}/share").get_data(as_text=True)
    assert "<svg" in html and f"/matches/{ref(1)}" in html


def test_delete_after_confirmation(client, app, match_id):
    assert "Delete this match?" in client.get(f"/matches/{ref(1)}/delete").get_data(as_text=True)
    response = client.post(
        f"/matches/{ref(1)}/delete", data={"csrf_token": csrf_token(client, f"/matches/{ref(1)}/delete")}
    )
    assert response.status_code == 302
    with app.app_context():
        assert db.session.scalar(select(func.count(Match.id))) == 0


def test_play_again_seats_the_same_players_once_however_often_it_is_sent(client, app, match_id):
    token = csrf_token(client, f"/matches/{ref(1)}")
    response = client.post(f"/matches/{ref(1)}/again", data={"csrf_token": token})
    assert response.status_code == 302
    with app.app_context():
        again = db.session.get(Match, 2)
        assert again.player_names == ["Ann", "Bob", "Cy"] and again.settings == db.session.get(Match, 1).settings
    # Sent again (a double tap): the match that follows is shown, no second one made, its pencil still this phone's.
    twice = client.post(f"/matches/{ref(1)}/again", data={"csrf_token": token})
    assert twice.status_code == 302 and twice.headers["Location"] == response.headers["Location"]
    with app.app_context():
        assert db.session.scalar(select(func.count(Match.id))) == 2
    assert save_round(client, 2, entry_fields(app, 2, {"losers": ["Bob"]}), 1).status_code == 200
    # Once the new match has its first round, a Play again of the first match starts another.
    later = client.post(f"/matches/{ref(1)}/again", data={"csrf_token": token})
    assert later.status_code == 302 and later.headers["Location"] != response.headers["Location"]
    with app.app_context():
        assert db.session.scalar(select(func.count(Match.id))) == 3


@pytest.mark.parametrize(
    ("game", "players", "settings", "then"),
    [
        ("pazzaparola", ["Ann", "Bob", "Cy"], {"eldest": "Ann"}, {"eldest": "Annie"}),
        ("burraco", ["Ann", "Bob", "Cy", "Dee"], {"teams": {"Us": ["Ann", "Cy"], "Them": ["Bob", "Dee"]}},
         {"teams": {"Us": ["Annie", "Cy"], "Them": ["Robert", "Dee"]}}),
        ("pazaak", ["Ann", "Bob"], {"hands": {"Ann": ["+1", "-2"], "Bob": ["+3"]}},
         {"hands": {"Annie": ["+1", "\u22122"], "Robert": ["+3"]}}),  # the minus as the rules write it
    ],
)
def test_play_again_after_a_rename_or_a_merge_seats_the_roster_entries_as_named_now(app, game, players, settings, then):
    # Play again seated the names as played: a renamed player came back as a new roster entry beside the renamed one,
    # their records, head-to-head and rating split in two.
    from companion.models import Player
    from companion.services import matches, roster

    with app.app_context():
        first, _ = matches.create_match(game, players, settings)
        ann, bob = (db.session.scalar(select(Player).filter_by(name=name)) for name in ("Ann", "Bob"))
        robert = roster.roster_players(["Robert"])[0]
        roster.rename_player(ann, "Annie")
        roster.merge_players(robert, bob.id)  # Bob's entry merged into Robert's
        db.session.expire_all()  # as the next request reads it
        again, _ = matches.play_again(db.session.get(Match, first.id))
        now = {"Ann": "Annie", "Bob": "Robert"}
        assert again.player_names == [now.get(name, name) for name in players]
        assert {key: again.settings[key] for key in then} == then
        assert [seat.player_id for seat in again.seats][:2] == [ann.id, robert.id]
        assert db.session.scalar(select(func.count(Player.id)).where(Player.name.in_(["Ann", "Bob"]))) == 0
        db.session.remove()


def test_manifest_and_service_worker_are_served(client):
    manifest = client.get("/manifest.webmanifest")
    assert manifest.status_code == 200 and manifest.mimetype == "application/manifest+json"
    icons = manifest.get_json()["icons"]
    assert {"192x192", "512x512"} <= {icon["sizes"] for icon in icons}
    for icon in icons:
        assert client.get(icon["src"]).status_code == 200
    worker = client.get("/sw.js")
    assert worker.status_code == 200 and worker.headers["Service-Worker-Allowed"] == "/"
    assert "caches.open" in worker.get_data(as_text=True)
    assert "No connection" in client.get("/offline").get_data(as_text=True)


def test_theme_preference_sets_the_page_theme(client):
    token = csrf_token(client, "/preferences")
    client.post("/preferences", data={"csrf_token": token, "theme": "black", "lang": ""})
    html = client.get("/").get_data(as_text=True)
    root = read(html).one("html")
    assert root["data-theme"] == "dark" and "theme-black" in root.classes
    client.post("/preferences", data={"csrf_token": token, "theme": "", "lang": ""})
    assert not read(client.get("/").get_data(as_text=True)).one("html").has("data-theme")


def test_viewers_share_one_drawing_of_the_live_fragment_without_tokens(client, app, match_id):
    save(client, app, TOPIC_ROUNDS[0], 1)
    first, second = app.test_client(), app.test_client()
    one = first.get(f"/matches/{ref(1)}/live", headers=HTMX).get_data(as_text=True)
    two = second.get(f"/matches/{ref(1)}/live", headers=HTMX).get_data(as_text=True)
    assert one == two and "csrf" not in one.lower() and "pencil" not in one.lower()
    save(client, app, TOPIC_ROUNDS[1], 2)
    three = first.get(f"/matches/{ref(1)}/live", headers=HTMX).get_data(as_text=True)
    assert three != one
    italian = app.test_client().get(f"/matches/{ref(1)}/live", headers={**HTMX, "Accept-Language": "it"})
    assert italian.status_code == 200


def test_after_a_save_the_other_viewers_get_the_new_standings_from_one_query(client, app, match_id):
    save(client, app, TOPIC_ROUNDS[0], 1)
    first = app.test_client().get(f"/matches/{ref(1)}/live", headers={**HTMX, "If-None-Match": '"v0"'})
    with counted(app) as statements:
        second = app.test_client().get(f"/matches/{ref(1)}/live", headers={**HTMX, "If-None-Match": '"v0"'})
    assert second.status_code == 200 and second.get_data() == first.get_data()
    # The tag is the page's language's: a request context, as when the page drew it.
    with app.test_request_context():
        stored = db.session.get(Match, 1)
        assert stored.version > 0 and second.headers["ETag"] == first.headers["ETag"] == live_etag(stored)
    assert len(statements) == 1
    # The scorekeeper's phone still gets its own fragment, drawn for it.
    keeper = client.get(f"/matches/{ref(1)}/live", headers=HTMX).get_data(as_text=True)
    assert keeper != first.get_data(as_text=True)
