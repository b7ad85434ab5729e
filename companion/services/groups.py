"""Groups and their phones: start a group, invite, join, leave, hosts, deletion, a previous credential moved."""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import String, cast, delete, func, select, update

from ..extensions import db
from ..games.checks import checked_name
from ..games.refusals import N_, RuleError
from ..models import OPEN_GROUP_ID, Group, Match, Member, MovedPhone, Player, Seat, SentRow, utcnow
from ..models.club import ClubEvening, ClubTable
from ..queries.groups import membership
from ..queries.matches import hash_token
from .dialect import conflict_insert
from .transaction import transaction

# A phone's "last seen" is written at most this often: a request reads it, it does not write it.
SEEN_EVERY = timedelta(minutes=5)
# How long the previous version's credential of a phone, once moved, still opens its new one: a page's requests
# sent at once (its page, its bundles' fragments, a poll) all carry the old cookie until the first answer sets
# the new one, and a slow phone's may arrive seconds apart. Long enough for those, too short to carry the old
# value to another phone and plant it there: after it the old value is one the server never issued.
MOVED_PHONE_GRACE = timedelta(seconds=15)


def new_phone_credential() -> str:
    """A phone's own credential, kept in its cookie: its rights in each of its groups hang on it alone."""
    return secrets.token_urlsafe(32)


def move_phone(old: str, new: str) -> None:
    """Move every right a phone's credential holds (memberships and host rights, seats, the seats it is kept out
    of, the rows it sent) to a new credential, at once, and note the old one's hash and when (`MovedPhone`).

    The same move again (the phone's requests sent together) moves nothing more and keeps the first time. Moves
    noted longer ago than `MOVED_PHONE_GRACE` are forgotten: their old credential, held by nothing, is refused
    as any value the server never issued."""
    old_hash, new_hash = hash_token(old), hash_token(new)
    now = utcnow()
    with transaction():
        db.session.execute(delete(MovedPhone).where(MovedPhone.moved_at < now - MOVED_PHONE_GRACE))
        noted = conflict_insert(MovedPhone).values(old_hash=old_hash, moved_at=now)
        db.session.execute(noted.on_conflict_do_nothing(index_elements=["old_hash"]))
        for model in (Member, Seat, SentRow):
            db.session.execute(update(model).where(model.phone == old_hash).values(phone=new_hash))
        for holder in (Match.scorekeeper_phone, Match.owner_phone):
            db.session.execute(update(Match).where(holder == old_hash).values({holder: new_hash}))
        # A seat's list of the phones kept out of it is JSON: the few lists that name the old hash (hex digits,
        # so no pattern character) are found by their text and rewritten.
        kept_out = select(Seat).where(cast(Seat.kept_out, String).contains(old_hash))
        for seat in db.session.scalars(kept_out):
            seat.kept_out = [new_hash if phone == old_hash else phone for phone in seat.kept_out or ()]


def start_group(raw_name: str, phone: str, label: str = "") -> tuple[Group, str]:
    """A new group with this phone as its host; returns it and its invite link's token."""
    name = checked_name(raw_name or "")
    token = secrets.token_urlsafe(24)
    with transaction():
        group = Group(name=name, invite=token)
        db.session.add(group)
        db.session.flush()
        db.session.add(Member(group_id=group.id, phone=hash_token(phone), host=True, label=label[:80]))
    return group, token


def name_phone(member: Member, raw_label: str) -> None:
    """Give this phone the name its group's list of phones shows ("Anna's phone"), checked as a player's
    name is: its browser and system alone do not tell two phones of one table apart."""
    label = checked_name(raw_label or "", "label")
    with transaction():
        db.session.execute(update(Member).where(Member.id == member.id).values(label=label))


def new_invite(group: Group) -> str:
    """A new invite link for the group: the one before it stops working at once."""
    token = secrets.token_urlsafe(24)
    with transaction():
        group.invite = token
    return token


def join(group: Group, phone: str, label: str = "") -> Member:
    """Make the phone a member of the group (a phone already in it stays as it is)."""
    with transaction():
        member = membership(group.id, phone)
        if member is None:
            member = Member(group_id=group.id, phone=hash_token(phone), label=label[:80])
            db.session.add(member)
    return member


def leave(member: Member, needs_a_host: bool = True) -> None:
    """The phone leaves its group; a private group's last host cannot leave while other phones are in it
    (`needs_a_host`: an open server's host link makes a new host whenever wanted)."""
    with transaction():
        if needs_a_host and member.host and _hosts(member.group_id) == 1 and _phones(member.group_id) > 1:
            raise RuleError(N_("Make another phone a host before you leave: a group needs a host."), field="leave")
        db.session.delete(member)


def remove_phone(group_id: int, member_id: int) -> str | None:
    """A host takes a phone out of the group: it loses access at once, and the group's invite link is renewed
    with it, so the link that phone had lets it back in no more, even once it has cleared its cookies (a new
    credential). The pencils it holds of the group's matches, and its right to take back those it started, go
    with it: a pencil lets its phone into that one match whatever its group, and is a cookie of its own. Returns
    the new invite link's token (None for the open group, which has no invite link)."""
    token = None
    with transaction():
        phone = db.session.scalar(select(Member.phone).where(Member.group_id == group_id, Member.id == member_id))
        db.session.execute(delete(Member).where(Member.group_id == group_id, Member.id == member_id))
        if phone is not None:
            _revoke_pencils(group_id, phone)
        group = db.session.get(Group, group_id)
        if group is not None and group.invite is not None:
            token = group.invite = secrets.token_urlsafe(24)
    return token


def _revoke_pencils(group_id: int, phone: str) -> None:
    """The pencils the phone whose credential hashes to `phone` holds of the group's matches, and the right to take
    back those it started, held by nobody from now on (a host takes a pencil over); each match a new version, so
    that its pages hear it."""
    in_group = Match.group_id == group_id
    for held, holder in ((Match.scorekeeper_hash, Match.scorekeeper_phone), (Match.owner_hash, Match.owner_phone)):
        db.session.execute(
            update(Match).where(in_group, holder == phone)
            .values({held: "", holder: None, Match.version: Match.version + 1})
            .execution_options(synchronize_session=False)
        )  # fmt: skip
    # A club table's pencil is its N/S phone's: the next phone seated there takes it, not the removed one again.
    evenings = select(ClubEvening.id).where(ClubEvening.group_id == group_id)
    db.session.execute(
        update(ClubTable).where(ClubTable.evening_id.in_(evenings), ClubTable.pencil_phone == phone)
        .values(pencil_phone=None).execution_options(synchronize_session=False)
    )  # fmt: skip


def make_host(group_id: int, member_id: int) -> None:
    """A host gives another phone of the group host rights."""
    with transaction():
        db.session.execute(update(Member).where(Member.group_id == group_id, Member.id == member_id).values(host=True))


def seen(member: Member) -> None:
    """Note that the phone was seen now, unless that was noted a little while ago."""
    now = utcnow()
    if now - member.last_seen < SEEN_EVERY:
        return
    with transaction():
        db.session.execute(update(Member).where(Member.id == member.id).values(last_seen=now))


def claim_open_host(phone: str, label: str = "") -> None:
    """The phone that opened the host link of an open server becomes a host of its one group."""
    with transaction():
        member = membership(OPEN_GROUP_ID, phone)
        if member is None:
            db.session.add(Member(group_id=OPEN_GROUP_ID, phone=hash_token(phone), host=True, label=label[:80]))
        else:
            member.host = True


def revoke_open_hosts() -> int:
    """Take host rights from every phone of the open group (`host-token --new`); returns how many had them."""
    with transaction():
        result = db.session.execute(delete(Member).where(Member.group_id == OPEN_GROUP_ID, Member.host))
    return result.rowcount or 0


def delete_group(group_id: int) -> bool:
    """Delete a group with all its data (the administrator's command); False when there is no such group."""
    if group_id == OPEN_GROUP_ID:
        raise RuleError(N_("The open group cannot be deleted."), field="group")
    with transaction():
        if db.session.get(Group, group_id) is None:
            return False
        # The matches first: a seat holds its player.
        db.session.execute(delete(Match).where(Match.group_id == group_id))
        db.session.execute(delete(Player).where(Player.group_id == group_id))
        db.session.execute(delete(Group).where(Group.id == group_id))
    return True


def _hosts(group_id: int) -> int:
    """How many host phones the group has."""
    return db.session.scalar(select(func.count()).where(Member.group_id == group_id, Member.host)) or 0


def _phones(group_id: int) -> int:
    """How many phones the group has."""
    return db.session.scalar(select(func.count()).where(Member.group_id == group_id)) or 0
