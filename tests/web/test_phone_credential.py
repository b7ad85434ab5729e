"""A phone's own credential: only the server makes one, it is kept across groups, and a removed phone stays out."""

from __future__ import annotations

import html

from sqlalchemy import select

from companion.extensions import db
from companion.models import Group, Member
from tests.helpers import csrf_token, invite_path, join_group, read_words, ref
from tests.pages import read


def members_of(app, name: str) -> int:
    """How many phones the group of that name has."""
    with app.app_context():
        found = db.session.scalars(select(Member).join(Group, Group.id == Member.group_id).where(Group.name == name))
        count = len(list(found))
        db.session.remove()
    return count


def test_a_removed_phone_cannot_rejoin_by_its_old_invite_link_even_with_its_cookies_cleared(two_groups):
    app, phones, friday_match, _ = two_groups
    ann = phones["ann"]
    old_invite = invite_path(ann)
    with app.app_context():
        group_id = db.session.scalar(select(Group.id).where(Group.name == "Gialli kitchen"))
        bob_id = db.session.scalar(select(Member.id).where(~Member.host, Member.group_id == group_id))
        db.session.remove()
    removed = ann.post(f"/groups/phones/{ref(bob_id)}/remove", data={"csrf_token": csrf_token(ann, "/groups")},
                       follow_redirects=True)  # fmt: skip
    page = read_words(html.unescape(removed.get_data(as_text=True)))
    assert "the invite link renewed: the one that phone had no longer lets it back in" in page
    new_invite = invite_path(ann)
    assert new_invite != old_invite
    assert read(removed.get_data(as_text=True)).one_by_role("img", "QR code of the invite link")
    # Bob's phone, its cookies cleared (no credential, no session: a new client), opens the link it had:
    # it is told the link is no longer valid.
    bob = app.test_client()
    opened = bob.get(old_invite)
    assert opened.status_code == 404 and "This invite link is no longer valid" in html.unescape(
        opened.get_data(as_text=True))
    assert join_group(bob, old_invite).status_code == 404
    assert members_of(app, "Gialli kitchen") == 1
    assert bob.get(f"/matches/{ref(friday_match)}").status_code == 404
    # The new link goes on letting in whom the host shows it to.
    assert join_group(app.test_client(), new_invite).status_code == 302
    assert members_of(app, "Gialli kitchen") == 2

