"""Reads of groups and their phones: which groups a phone is in, a group's phones, the server's groups."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, bindparam, func, select

from ..extensions import db
from ..models import Group, Match, Member, MovedPhone, Player
from .matches import hash_token

# The poll board's read of the polling phones' groups (web/poll_board.py).
_GROUPS_OF_PHONES = select(Member.phone, Member.group_id).where(Member.phone.in_(bindparam("phones", expanding=True)))


def groups_of_phones(credentials: list[str], connection: Connection) -> dict[str, frozenset[int]]:
    """The groups each of these phones (by credential) is a member of, for those a member of any, in one statement."""
    by_hash = {hash_token(credential): credential for credential in credentials}
    groups: dict[str, set[int]] = {}
    for phone, group_id in connection.execute(_GROUPS_OF_PHONES, {"phones": list(by_hash)}):
        groups.setdefault(by_hash[phone], set()).add(group_id)
    return {credential: frozenset(ids) for credential, ids in groups.items()}


def membership(group_id: int | None, phone: str | None) -> Member | None:
    """The phone's place in the group (phone: its credential, as its cookie holds it), if it has one."""
    if group_id is None or not phone:
        return None
    return db.session.scalar(select(Member).where(Member.group_id == group_id, Member.phone == hash_token(phone)))


def moved_at(phone: str) -> datetime | None:
    """When this credential (the previous version's, unsigned) was moved to a new one, if it was lately
    (services.groups.move_phone)."""
    return db.session.scalar(select(MovedPhone.moved_at).where(MovedPhone.old_hash == hash_token(phone)))


def first_membership(phone: str | None) -> Member | None:
    """The phone's place in the first group it joined, if it is in any."""
    if not phone:
        return None
    statement = select(Member).where(Member.phone == hash_token(phone)).order_by(Member.joined_at, Member.id)
    return db.session.scalars(statement.limit(1)).first()


def groups_of(phone: str | None) -> list[Group]:
    """The groups a phone is in, the first joined first."""
    if not phone:
        return []
    statement = select(Group).join(Member, Member.group_id == Group.id).where(Member.phone == hash_token(phone))
    return list(db.session.scalars(statement.order_by(Member.joined_at, Member.id)))


def group_of_invite(token: str | None) -> Group | None:
    """The group whose current invite link carries this token."""
    if not token:
        return None
    return db.session.scalar(select(Group).where(Group.invite == token))


def phones_of(group_id: int) -> list[Member]:
    """A group's phones, hosts first, then by when they joined."""
    statement = select(Member).where(Member.group_id == group_id)
    return list(db.session.scalars(statement.order_by(Member.host.desc(), Member.joined_at, Member.id)))


@dataclass(frozen=True)
class GroupOverview:
    """What the server's administrator is told of a group: no name of a player, no score."""

    id: int
    name: str
    created_at: datetime
    phones: int
    matches: int
    players: int
    last_activity: datetime | None


def overview() -> list[GroupOverview]:
    """Every group of the server with its counts and its last activity (a match started, a phone seen)."""
    phones = select(Member.group_id, func.count().label("n"), func.max(Member.last_seen).label("seen"))
    phones = phones.group_by(Member.group_id).subquery()
    matches = select(Match.group_id, func.count().label("n"), func.max(Match.started_at).label("started"))
    matches = matches.group_by(Match.group_id).subquery()
    players = select(Player.group_id, func.count().label("n")).group_by(Player.group_id).subquery()
    rows = db.session.execute(
        select(Group, phones.c.n, phones.c.seen, matches.c.n, matches.c.started, players.c.n)
        .outerjoin(phones, phones.c.group_id == Group.id)
        .outerjoin(matches, matches.c.group_id == Group.id)
        .outerjoin(players, players.c.group_id == Group.id)
        .order_by(Group.id)
    ).all()
    return [
        GroupOverview(group.id, group.name, group.created_at, n_phones or 0, n_matches or 0, n_players or 0,
                      max((at for at in (seen, started) if at is not None), default=None))
        for group, n_phones, seen, n_matches, started, n_players in rows
    ]  # fmt: skip
