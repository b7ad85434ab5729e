"""Roster writes: the entries of a new match's players, a rename, a merge of two entries of one person."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from ..extensions import db
from ..games.checks import checked_name, clean_name, name_key
from ..games.refusals import N_, RuleError
from ..models import FINISHED, Match, Player, Seat
from . import ratings, records
from .dialect import conflict_insert
from .transaction import transaction


class RosterError(RuleError):
    """A roster change refused, with the form field it concerns and an untranslated message."""


def roster_players(names: list[str]) -> list[Player]:
    """The roster entries for these names in their order, adding the new ones (matched ignoring case).

    Phones starting matches at the same moment may bring the same new name: each adds it
    with "on conflict do nothing" and then reads the entry, whichever phone's it is, rather
    than failing on the unique key (SQLite and PostgreSQL both speak this insert).
    """
    keys = [name_key(name) for name in names]
    found = _by_key(keys)
    new = {key: clean_name(name) for name, key in zip(names, keys, strict=True) if key not in found}
    if new:
        adding = conflict_insert(Player).on_conflict_do_nothing(index_elements=["group_id", "key"])
        db.session.execute(adding, [{"name": name, "key": key} for key, name in new.items()])
        found = _by_key(keys)
    return [found[key] for key in keys]


def enroll_seats(matches: Sequence[Match]) -> None:
    """Give each seat of these unsaved matches its roster entry's id, reading the roster once for all of them.

    A new player takes the spelling of the first match that brings them, as when started one by one; new names are
    added in the order of their keys, so two writers bringing the same ones add them in one order."""
    spelled: dict[str, str] = {}
    for match in matches:
        for seat in match.seats:
            spelled.setdefault(name_key(seat.name), seat.name)
    keys = sorted(spelled)
    ids = {key: player.id for key, player in zip(keys, roster_players([spelled[key] for key in keys]), strict=True)}
    for match in matches:
        for seat in match.seats:
            seat.player_id = ids[name_key(seat.name)]


def _by_key(keys: list[str]) -> dict[str, Player]:
    """The roster entries with these keys."""
    return {player.key: player for player in db.session.scalars(select(Player).where(Player.key.in_(keys)))}


def _other_with_key(key: str, player_id: int) -> Player | None:
    """Another roster entry whose name is the same ignoring case and spaces."""
    return db.session.scalar(select(Player).where(Player.key == key, Player.id != player_id))


def _name_taken(name: str) -> RosterError:
    """The refusal of a name another roster entry already has."""
    return RosterError(
        N_("%(name)s is already in the roster (names are compared ignoring case).", name=name), field="name"
    )


def rename_player(player: Player, raw_name: str) -> Player:
    """Give a roster entry a new name; the seats keep the names the matches were played with."""
    try:
        name = checked_name(raw_name or "")
    except RuleError as error:
        raise RosterError(error.message, field="name") from None
    key = name_key(name)
    if _other_with_key(key, player.id) is not None:
        raise _name_taken(name)
    try:
        with transaction():
            player.name, player.key = name, key
    except IntegrityError:
        # Someone took the name between the check and the write.
        raise _name_taken(name) from None
    return player


def merge_refusal(keep: Player, other: Player | None, named: bool = False) -> RosterError | None:
    """Why this merge cannot be done, or None: no other entry picked (or the one `named` is gone, a merge sent
    twice), or both sat at one match.

    One person cannot have held two seats of a match. Asked before the merge is confirmed too.
    """
    if other is None and named:
        return RosterError(N_("That entry is no longer on the roster: merged or removed already."), field="other")
    if other is None or other.id == keep.id:
        return RosterError(N_("Pick another roster entry to merge into this one."), field="other")
    both = (
        select(func.count())
        .select_from(Seat)
        .where(Seat.player_id == keep.id, Seat.match_id.in_(select(Seat.match_id).where(Seat.player_id == other.id)))
    )
    shared = db.session.scalar(both) or 0
    if shared:
        return RosterError(
            N_(
                "%(keep)s and %(other)s played %(n)s match(es) together, so they are two people.",
                keep=keep.name,
                other=other.name,
                n=shared,
            ),
            field="other",
        )
    return None


def merge_players(keep: Player, other_id: int | None, named: bool = False) -> Player:
    """Move every seat of another entry of the same person to `keep`, then drop that entry."""
    other = db.session.get(Player, other_id) if other_id is not None else None
    if (refusal := merge_refusal(keep, other, named or other_id is not None)) is not None:
        raise refusal
    with transaction():
        db.session.execute(update(Seat).where(Seat.player_id == other.id).values(player_id=keep.id))
        records.rebuild([keep.id, other.id])
        played = select(Match.game).join(Seat, Seat.match_id == Match.id)
        played = played.where(Seat.player_id == keep.id, Match.status == FINISHED).distinct()
        ratings.mark_stale(db.session.scalars(played).all())
        db.session.delete(other)
    return keep
