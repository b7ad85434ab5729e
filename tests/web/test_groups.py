"""Groups: the open server unchanged, private groups with invite links, each group's data its own."""

from __future__ import annotations

import io
import json
import re

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.models import OPEN_GROUP_ID, Group, Match, Member, Player
from companion.web import poll_board
from tests.helpers import (
    HTMX,
    counted,
    csrf_token,
    entry_fields,
    grant_host_rights,
    invite_path,
    join_group,
    reaching_flask,
    ref,
    save_round,
    start_group,
    start_match,
)
from tests.pages import read

TOPIC_ROUND = {"several": "on", "losers": "Bob"}
FOLLOW_LINK = re.compile(r'href="https?://[^/"]+(/matches/[^"?]+\?follow=[^"]+)"')


def phone_path(member_id: int, action: str) -> str:
    """The address of a host's button on one of the group's phones ("remove", "host")."""
    return f"/groups/phones/{ref(member_id, 'member')}/{action}"


def test_the_open_server_needs_no_step_to_join(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    other = app.test_client()
    assert "Ann" in other.get("/").get_data(as_text=True)
    assert other.get(f"/matches/{ref(match_id)}").status_code == 200
    assert other.get("/history").status_code == 200
    # Nothing of private groups shows: no group to start, join or switch to.
    assert "Start a group" not in other.get("/").get_data(as_text=True)
    assert other.post("/groups", data={"csrf_token": csrf_token(other), "name": "X"}).status_code == 404
    with app.app_context():
        assert db.session.scalar(select(Match.group_id).where(Match.id == match_id)) == OPEN_GROUP_ID


def test_a_phone_in_no_group_sees_a_welcome_and_nothing_of_anyone(two_groups):
    app, phones, friday_match, _ = two_groups
    stranger = phones["stranger"]
    home = stranger.get("/").get_data(as_text=True)
    assert "Start a group" in home and "invite link" in home
    assert "Annabella" not in home and "Gialli kitchen" not in home
    for path in (
        "/history",
        "/players",
        "/history/export.json",
        "/history/export.csv",
        f"/matches/{ref(friday_match)}",
        f"/matches/{ref(friday_match)}/live",
        f"/matches/{ref(friday_match)}/chart",
        "/matches/new",
        "/players/ratings",
    ):
        assert stranger.get(path).status_code == 404, path


def test_each_group_sees_only_its_own(two_groups):
    app, phones, friday_match, club_match = two_groups
    for phone, own, other in (("ann", "Annabella", "Dorotea"), ("bob", "Annabella", "Dorotea"),
                              ("cy", "Dorotea", "Annabella"), ("di", "Dorotea", "Annabella")):  # fmt: skip
        client = phones[phone]
        for path in ("/", "/history", "/players", "/history/export.csv"):
            body = client.get(path).get_data(as_text=True)
            assert own in body and other not in body, (phone, path)
    assert phones["cy"].get(f"/matches/{ref(friday_match)}").status_code == 404
    assert phones["ann"].get(f"/matches/{ref(club_match)}").status_code == 404
    # A name may be in two groups' rosters: they are two players.
    start_match(phones["cy"], "topic", ["Annabella", "Ezechiele", "Filiberta"])
    with app.app_context():
        assert db.session.scalar(select(func.count()).where(Player.name == "Annabella")) == 2


def test_the_header_names_the_group_and_a_phone_switches_between_its_groups(two_groups):
    app, phones, _, _ = two_groups
    ann = phones["ann"]
    assert join_group(ann, invite_path(phones["cy"])).status_code == 302
    # Joining leads into the group joined.
    assert "Dorotea" in ann.get("/").get_data(as_text=True)
    assert read(ann.get("/").get_data(as_text=True)).find_all(cls="group-name")
    with app.app_context():
        friday = db.session.scalar(select(Group.id).where(Group.name == "Gialli kitchen"))
    switched = ann.post("/groups/switch", data={"csrf_token": csrf_token(ann, "/groups"), "group": str(friday)})
    assert switched.status_code == 302
    home = ann.get("/").get_data(as_text=True)
    assert "Gialli kitchen" in home and "Annabella" in home and "Dorotea" not in home
    # A group the phone is not in cannot be switched to.
    with app.app_context():
        other = start_group(phones["stranger"], "Somebody else")
        other_id = db.session.scalar(select(Group.id).where(Group.name == "Somebody else"))
    assert other
    refused = ann.post("/groups/switch", data={"csrf_token": csrf_token(ann, "/groups"), "group": str(other_id)})
    assert refused.status_code == 404


def test_a_renewed_invite_link_refuses_the_old_one(two_groups):
    app, phones, _, _ = two_groups
    ann = phones["ann"]
    old = invite_path(ann)
    renewed = ann.post("/groups/invite", data={"csrf_token": csrf_token(ann, "/groups")})
    assert renewed.status_code == 302
    new = invite_path(ann)
    assert new != old
    late = app.test_client()
    assert late.get(old).status_code == 404
    assert "no longer valid" in late.get(old).get_data(as_text=True)
    assert late.post(old, data={"csrf_token": csrf_token(late)}).status_code == 404
    assert late.get("/history").status_code == 404
    assert join_group(late, new).status_code == 302
    assert "Annabella" in late.get("/history").get_data(as_text=True)


def test_only_a_host_renews_the_invite_or_sees_the_phones(two_groups):
    _, phones, _, _ = two_groups
    bob = phones["bob"]
    page = bob.get("/groups").get_data(as_text=True)
    assert "/join/" not in page and "Make host" not in page
    assert bob.post("/groups/invite", data={"csrf_token": csrf_token(bob, "/groups")}).status_code == 403


def member_ids(app, group_name: str) -> dict[bool, list[int]]:
    """A group's phones' ids, the hosts under True."""
    with app.app_context():
        rows = db.session.execute(
            select(Member.id, Member.host)
            .join(Group, Group.id == Member.group_id)
            .where(Group.name == group_name)
            .order_by(Member.id)
        ).all()
        db.session.remove()
    return {True: [r.id for r in rows if r.host], False: [r.id for r in rows if not r.host]}


def test_a_removed_phone_loses_access_at_once_even_to_its_unchanged_polls(two_groups):
    app, phones, friday_match, _ = two_groups
    ann, bob = phones["ann"], phones["bob"]
    poll = bob.get(f"/matches/{ref(friday_match)}/live", headers=HTMX)
    assert poll.status_code == 200
    tag = poll.headers["ETag"]
    unchanged = bob.get(f"/matches/{ref(friday_match)}/live", headers={**HTMX, "If-None-Match": tag})
    assert unchanged.status_code == 304
    bob_id = member_ids(app, "Gialli kitchen")[False][0]
    page = ann.get("/groups").get_data(as_text=True)
    assert "Remove" in page
    removed = ann.post(phone_path(bob_id, "remove"), data={"csrf_token": csrf_token(ann, "/groups")})
    assert removed.status_code == 302
    assert bob.get(f"/matches/{ref(friday_match)}/live", headers={**HTMX, "If-None-Match": tag}).status_code == 404
    assert bob.get("/history").status_code == 404
    assert "Start a group" in bob.get("/").get_data(as_text=True)


def test_a_removed_phone_loses_the_pencils_it_held_of_the_groups_matches(two_groups):
    # The phone that started the match kept writing to it through its pencil (a cookie of its own): rounds, a new
    # match played again, the match deleted, the pencil taken back from the host who had taken it over.
    app, phones, friday_match, _ = two_groups
    ann, bob = phones["ann"], phones["bob"]
    path = f"/matches/{ref(friday_match)}"
    token = csrf_token(bob, path)
    bob_id = member_ids(app, "Gialli kitchen")[False][0]
    assert ann.post(phone_path(bob_id, "remove"), data={"csrf_token": csrf_token(ann, "/groups")}).status_code == 302
    # Its pencil cookie kept, and its phone's credential too or not (a new one made).
    for cleared in (False, True):
        if cleared:
            assert bob.get_cookie("phone") is not None
            bob.delete_cookie("phone")
        saved = save_round(bob, friday_match, {"several": "on", "losers": "Cyrillo"}, csrf=token)
        assert saved.status_code in (403, 404), cleared
        for write in ("again", "delete", "pencil/back"):
            assert bob.post(f"{path}/{write}", data={"csrf_token": token}).status_code in (403, 404), (write, cleared)
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Match)) == 2
        assert len(db.session.get(Match, friday_match).rounds) == 1
        db.session.remove()
    # The host takes the pencil over and the table scores on.
    assert ann.post(f"{path}/pencil/back", data={"csrf_token": csrf_token(ann, path)}).status_code == 302
    assert save_round(ann, friday_match, {"several": "on", "losers": "Cyrillo"}).status_code == 200


def test_a_host_makes_another_phone_a_host_and_a_last_host_cannot_leave_alone(two_groups):
    app, phones, _, _ = two_groups
    ann, bob = phones["ann"], phones["bob"]
    refused = ann.post("/groups/leave", data={"csrf_token": csrf_token(ann, "/groups")})
    assert refused.status_code == 422
    assert "Make another phone a host" in refused.get_data(as_text=True)
    bob_id = member_ids(app, "Gialli kitchen")[False][0]
    assert (
        ann.post(phone_path(bob_id, "host"), data={"csrf_token": csrf_token(ann, "/groups")}).status_code
        == 302
    )
    assert "/join/" in bob.get("/groups").get_data(as_text=True)
    assert ann.post("/groups/leave", data={"csrf_token": csrf_token(ann, "/groups")}).status_code == 302
    assert ann.get("/history").status_code == 404
    assert "Annabella" in bob.get("/history").get_data(as_text=True)


def test_a_host_phone_removes_another_only_in_its_own_group(two_groups):
    app, phones, _, _ = two_groups
    di_id = member_ids(app, "Chess club")[False][0]
    response = phones["ann"].post(phone_path(di_id, "remove"), data={"csrf_token": csrf_token(phones["ann"])})
    assert response.status_code == 404
    assert phones["di"].get("/history").status_code == 200


def test_a_viewer_link_opens_one_match_and_nothing_else(two_groups):
    app, phones, friday_match, _ = two_groups
    bob = phones["bob"]
    share = bob.get(f"/matches/{ref(friday_match)}/share").get_data(as_text=True)
    link = FOLLOW_LINK.search(share).group(1).replace("&amp;", "&")
    second = start_match(bob, "topic", ["Annabella", "Bobbington", "Zoraide"])
    viewer = app.test_client()
    page = viewer.get(link)
    assert page.status_code == 200 and "Annabella" in page.get_data(as_text=True)
    # It goes on following: the polls, the table view, the chart.
    assert viewer.get(f"/matches/{ref(friday_match)}/live", headers=HTMX).status_code == 200
    assert viewer.get(f"/matches/{ref(friday_match)}/table").status_code == 200
    # Not the giver's pencil panel of the share page (it told a phone of no pencil where the pencil went).
    assert viewer.get(f"/matches/{ref(friday_match)}/live?view=pencil", headers=HTMX).status_code == 404
    # Nothing else of the group, and nothing to change.
    for path in (f"/matches/{ref(second)}", "/history", "/players", f"/matches/{ref(friday_match)}/share",
                 "/history/export.json"):  # fmt: skip
        assert viewer.get(path).status_code == 404, path
    assert viewer.post(f"/matches/{ref(friday_match)}/undo", data={"csrf_token": csrf_token(viewer)}).status_code == 404
    # What the phone keeps of it is readable (a signed cookie is not a sealed one), and names no row's number: it
    # would tell how many matches the server holds.
    kept = session_of(app, viewer)
    assert kept["following"] and friday_match not in kept["following"]
    assert not re.search(rf"\b{friday_match}\b", json.dumps(kept))
    # A phone that followed it before the session kept digests still follows it.
    older = app.test_client()
    with older.session_transaction() as session:
        session["following"] = [friday_match]
    assert older.get(f"/matches/{ref(friday_match)}/live", headers=HTMX).status_code == 200
    assert older.get(f"/matches/{ref(second)}/live", headers=HTMX).status_code == 404
    # A link with a made-up token opens nothing.
    stranger = app.test_client()
    assert stranger.get(f"/matches/{ref(friday_match)}?follow={'0' * 32}").status_code == 404
    assert stranger.get(f"/matches/{ref(second)}?follow={link.rsplit('=', 1)[1]}").status_code == 404


def session_of(app, client) -> dict:
    """What a phone's session cookie holds, as anyone holding the cookie can read it."""
    cookie = client.get_cookie(app.config.get("SESSION_COOKIE_NAME") or "session")
    return app.session_interface.get_signing_serializer(app).loads(cookie.value)


def has_host_rights(client) -> bool:
    """Whether this phone's groups page lists the host phones, as it does for a host alone."""
    return "Phones with host rights" in client.get("/groups").get_data(as_text=True)


def test_each_host_phone_has_its_own_rights_revoked_alone(app, runner):
    first, second, third = (grant_host_rights(app.test_client()) for _ in range(3))
    # A host finds the host phones from the preferences (the menu's ⚙); another phone does not.
    assert 'href="/groups">Host phones<' in first.get("/preferences").get_data(as_text=True)
    assert "Host phones" not in app.test_client().get("/preferences").get_data(as_text=True)
    page = first.get("/groups").get_data(as_text=True)
    # The host sees the other two host phones, each with its own Remove.
    assert page.count(">Remove<") == 2
    second_id = member_ids(app, "")[True][1]
    removed = first.post(phone_path(second_id, "remove"), data={"csrf_token": csrf_token(first, "/groups")})
    assert removed.status_code == 302
    assert not has_host_rights(second)
    assert has_host_rights(first) and has_host_rights(third)
    token = csrf_token(second, "/players")
    assert second.post("/history/import", data={"csrf_token": token}).status_code == 403
    # `host-token --new` takes them from every phone.
    result = runner.invoke(args=["host-token", "--new"])
    assert result.exit_code == 0 and "revoked" in result.output
    assert not has_host_rights(first) and not has_host_rights(third)


def test_the_administrator_lists_the_groups_without_scores_and_deletes_one(two_groups):
    app, phones, _, club_match = two_groups
    runner = app.test_cli_runner()
    listed = runner.invoke(args=["groups"])
    assert listed.exit_code == 0
    assert "Gialli kitchen" in listed.output and "Chess club" in listed.output
    assert "Annabella" not in listed.output and "Dorotea" not in listed.output
    with app.app_context():
        club = db.session.scalar(select(Group.id).where(Group.name == "Chess club"))
    deleted = runner.invoke(args=["groups", "delete", str(club), "--yes"])
    assert deleted.exit_code == 0, deleted.output
    with app.app_context():
        assert db.session.get(Match, club_match) is None
        assert db.session.scalar(select(func.count()).where(Player.name == "Dorotea")) == 0
        assert db.session.scalar(select(func.count()).select_from(Member).where(Member.group_id == club)) == 0
    assert phones["di"].get("/history").status_code == 404
    assert "Annabella" in phones["bob"].get("/history").get_data(as_text=True)
    assert runner.invoke(args=["groups", "delete", str(OPEN_GROUP_ID), "--yes"]).exit_code != 0
    # The host link belongs to open servers only.
    assert runner.invoke(args=["host-token"]).exit_code != 0


def test_a_command_works_within_the_group_it_names(two_groups):
    app, _, _, _ = two_groups
    with app.app_context():
        club = db.session.scalar(select(Group.id).where(Group.name == "Chess club"))
    exported = app.test_cli_runner().invoke(args=["export", "--group", str(club)])
    assert exported.exit_code == 0, exported.output
    assert "Dorotea" in exported.output and "Annabella" not in exported.output
    assert app.test_cli_runner().invoke(args=["export", "--group", "999"]).exit_code != 0


def test_a_group_name_is_checked_next_to_its_field(private_app):
    client = private_app.test_client()
    response = client.post("/groups", data={"csrf_token": csrf_token(client), "name": "   "})
    assert response.status_code == 422
    # The name field is described by its error.
    page = read(response.get_data(as_text=True))
    assert page.by_id(page.one("input", name="name")["aria-describedby"]) is page.by_id("group-name-error")
    with private_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Group)) == 1  # the open group alone


def test_guessing_invite_links_is_made_to_wait_but_the_right_link_still_joins(private_app):
    app = private_app
    host = app.test_client()
    invite = start_group(host, "Gialli kitchen")
    guesser = app.test_client()
    answers = [guesser.get(f"/join/guess-{n}").status_code for n in range(12)]
    # A person with a stale link gets several tries; then the phone is made to wait.
    assert answers[:10] == [404] * 10 and answers[-1] == 429
    refused = guesser.get("/join/guess-99")
    assert "Too many wrong codes" in refused.get_data(as_text=True) and refused.headers["Retry-After"]
    # The right link is taken whatever was guessed before it.
    assert join_group(guesser, invite).status_code == 302
    assert "Gialli kitchen" in guesser.get("/").get_data(as_text=True)


def test_starting_groups_is_limited_per_phone(private_app):
    client = private_app.test_client()
    for n in range(5):
        response = client.post("/groups", data={"csrf_token": csrf_token(client, "/groups"), "name": f"Group {n}"})
        assert response.status_code == 302
    refused = client.post("/groups", data={"csrf_token": csrf_token(client, "/groups"), "name": "One more"})
    assert refused.status_code == 429
    assert "Too many groups started from this phone" in refused.get_data(as_text=True)
    with private_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Group).where(Group.name == "One more")) == 0


def test_a_member_of_another_group_follows_a_viewer_link_and_keeps_its_own_group(two_groups):
    app, phones, friday_match, _ = two_groups
    share = phones["bob"].get(f"/matches/{ref(friday_match)}/share").get_data(as_text=True)
    link = FOLLOW_LINK.search(share).group(1).replace("&amp;", "&")
    di = phones["di"]
    assert di.get(f"/matches/{ref(friday_match)}").status_code == 404
    followed = di.get(link)
    assert followed.status_code == 200 and "Annabella" in followed.get_data(as_text=True)
    assert di.get(f"/matches/{ref(friday_match)}/live", headers=HTMX).status_code == 200
    # Its own group is as it was, and the other group's pages stay closed to it.
    home = di.get("/history").get_data(as_text=True)
    assert "Dorotea" in home and "Annabella" not in home
    assert di.get(f"/matches/{ref(friday_match)}/share").status_code == 404


def finish_pazaak(client, app, players: list[str]) -> int:
    """A Pazaak match of these two, won 3-0 by the first, scored by `client`."""
    match_id = start_match(client, "pazaak", players)
    for _ in range(3):
        fields = entry_fields(app, match_id, {"winner": players[0]})
        assert save_round(client, match_id, fields).status_code == 200
    return match_id


def test_ratings_seasons_and_cards_are_each_groups_own(two_groups):
    app, phones, _, _ = two_groups
    gialli = finish_pazaak(phones["bob"], app, ["Annabella", "Bobbington"])
    finish_pazaak(phones["di"], app, ["Dorotea", "Ezechiele"])
    for phone, own, other in (("ann", "Annabella", "Dorotea"), ("cy", "Dorotea", "Annabella")):
        for path in ("/players/ratings/pazaak", "/players/seasons/pazaak"):
            body = phones[phone].get(path).get_data(as_text=True)
            assert own in body and other not in body, (phone, path)
    assert phones["ann"].get(f"/matches/{ref(gialli)}/card.png").status_code == 200
    assert phones["cy"].get(f"/matches/{ref(gialli)}/card.png").status_code == 404
    # The command line, by the group's name or id: the group's players alone, as the library rates them.
    runner = app.test_cli_runner()
    by_name = runner.invoke(args=["ratings", "pazaak", "--json", "--group", "Chess club"])
    assert by_name.exit_code == 0, by_name.output
    assert {row["player"] for row in json.loads(by_name.output)} == {"Dorotea", "Ezechiele"}
    assert runner.invoke(args=["ratings", "pazaak", "--group", "No such group"]).exit_code != 0


def test_a_groups_export_imported_into_another_group_is_a_copy_of_its_own(two_groups):
    app, phones, friday_match, _ = two_groups
    exported = phones["ann"].get("/history/export.json").get_data()
    cy = phones["cy"]
    token = csrf_token(cy, "/history")
    upload = {"csrf_token": token, "file": (io.BytesIO(exported), "gialli.json")}
    assert cy.post("/history/import", data=upload, content_type="multipart/form-data").status_code == 302
    assert "Annabella" in cy.get("/history").get_data(as_text=True)
    # The same match ids (uids) are two matches now, one in each group; the first group's is untouched.
    with app.app_context():
        uids = db.session.scalars(select(Match.uid).where(Match.id == friday_match)).all()
        copies = db.session.scalar(select(func.count()).select_from(Match).where(Match.uid.in_(uids)))
    assert copies == 2
    assert "Dorotea" not in phones["ann"].get("/history").get_data(as_text=True)
    # Importing it again stores nothing new in either.
    again = {"csrf_token": token, "file": (io.BytesIO(exported), "gialli.json")}
    cy.post("/history/import", data=again, content_type="multipart/form-data")
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Match).where(Match.uid.in_(uids))) == 2


def test_a_members_unchanged_poll_is_answered_before_flask_from_the_boards_reads_and_nobody_elses(
    two_groups, monkeypatch
):
    monkeypatch.setattr(poll_board.time, "monotonic", lambda: 1000.0)  # the boards' reads stand (FRESH_FOR)
    app, phones, friday_match, _ = two_groups
    path = f"/matches/{ref(friday_match)}/live"
    tag = phones["bob"].get(path, headers=HTMX).headers["ETag"]
    with reaching_flask(app) as reached_flask:
        # The polled matches and the polling phones' groups, each read in one statement...
        with counted(app) as statements:
            unchanged = phones["bob"].get(path, headers={**HTMX, "If-None-Match": tag})
        assert unchanged.status_code == 304 and reached_flask == [] and len(statements) == 2
        # ... which stand for the next polls while nothing is written.
        with counted(app) as statements:
            again = phones["bob"].get(path, headers={**HTMX, "If-None-Match": tag})
        assert again.status_code == 304 and reached_flask == [] and statements == []
        # Another group's member, or a stranger, with the same tag: never told "unchanged", Flask says 404.
        for outsider in (phones["cy"], phones["stranger"]):
            assert outsider.get(path, headers={**HTMX, "If-None-Match": tag}).status_code == 404
        assert len(reached_flask) == 2


def test_files_and_the_ping_of_a_private_server_ask_the_database_nothing(two_groups):
    app, phones, _, _ = two_groups
    for path in ("/ping", "/sw.js", "/manifest.webmanifest"):
        with counted(app) as statements:
            assert phones["ann"].get(path).status_code == 200
        assert statements == [], path


@pytest.mark.parametrize("chosen", ["²", "9" * 30, "-1", "x"])
def test_a_group_chosen_by_a_strange_value_is_no_group_never_an_error(two_groups, chosen):
    _, phones, _, _ = two_groups
    ann = phones["ann"]
    refused = ann.post("/groups/switch", data={"csrf_token": csrf_token(ann, "/groups"), "group": chosen})
    assert refused.status_code == 404
    # A cookie set to it: the phone works in the first group it joined, as with no choice at all.
    ann.set_cookie("group", chosen)
    assert "Annabella" in ann.get("/history").get_data(as_text=True)


def phone_names(app, group_name: str) -> list[str]:
    """The names a group's list of phones shows, in the order they joined."""
    with app.app_context():
        names = db.session.scalars(
            select(Member.label).join(Group, Group.id == Member.group_id).where(Group.name == group_name)
            .order_by(Member.id)
        ).all()
        db.session.remove()
    return list(names)


def test_a_phone_names_itself_and_its_host_sees_that_name(two_groups):
    app, phones, _, _ = two_groups
    ann, bob = phones["ann"], phones["bob"]
    # Every phone of a table may be "Chrome · Android": the host could not tell which to remove.
    saved = bob.post("/groups/this-phone", data={"csrf_token": csrf_token(bob, "/groups"), "label": " Bob’s phone "})
    assert saved.status_code == 302
    assert "This phone's name is saved." in bob.get("/groups").get_data(as_text=True)
    host_page = ann.get("/groups").get_data(as_text=True)
    assert "Bob’s phone" in host_page
    assert phone_names(app, "Gialli kitchen")[1] == "Bob’s phone"
    # Bob's own page offers the name it has, to change it again.
    assert read(bob.get("/groups").get_data(as_text=True)).one("input", name="label")["value"] == "Bob’s phone"


@pytest.mark.parametrize("label", ["", "   ", "x" * 41])
def test_a_phone_name_that_is_no_name_is_refused_beside_its_field(two_groups, label):
    app, phones, _, _ = two_groups
    bob = phones["bob"]
    before = phone_names(app, "Gialli kitchen")
    response = bob.post("/groups/this-phone", data={"csrf_token": csrf_token(bob, "/groups"), "label": label})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "a name has 1 to 40 characters" in read(html).by_id("phone-label-error").text.lower()
    assert phone_names(app, "Gialli kitchen") == before


def test_a_phone_in_no_group_has_no_name_to_give(two_groups):
    app, phones, _, _ = two_groups
    stranger = phones["stranger"]
    response = stranger.post("/groups/this-phone", data={"csrf_token": csrf_token(stranger), "label": "Mine"})
    assert response.status_code == 404
    assert "Mine" not in phone_names(app, "Gialli kitchen") + phone_names(app, "Chess club")
