"""A row's address: its random public id in URLs (`<match:…>`, `<player:…>`, `<member:…>`), the old sqids text
of the rows from before public ids answered by a redirect, and never the row id."""

from __future__ import annotations

import hashlib
import hmac
import random
import re
from functools import lru_cache
from typing import Any

from flask import Flask, abort, g, has_app_context, has_request_context, redirect, request, url_for
from sqids import Sqids
from sqids.constants import DEFAULT_ALPHABET
from sqlalchemy import select
from werkzeug.routing import BaseConverter, ValidationError

from ..extensions import db
from ..models import (
    ID_MAX,
    PUBLIC_ID_ALPHABET,
    PUBLIC_ID_LENGTH,
    Match,
    Member,
    OldAddresses,
    Player,
    current_group,
)
from ..models.club import ClubEvening
from .groups import place

# A public id; an old address was eight characters of sqids' alphabet (letters and digits), which this
# pattern takes too, so that the converter itself tells them apart.
TEXT = "[0-9A-Za-z]{1,16}"
PUBLIC = re.compile(f"[{PUBLIC_ID_ALPHABET}]{{{PUBLIC_ID_LENGTH}}}")
# Where a WSGI middleware in front of Flask (the live poll's) leaves the rows it found by address, so that
# the converter need not look them up again: {(table, public id): row id}.
KNOWN_ADDRESSES = "companion.addresses"

MODELS = {"match": Match, "player": Player, "member": Member, "evening": ClubEvening}


# --- the old addresses: sqids of the id under the secret key ---------------------------------
OLD_MIN_LENGTH = 8
_OLD_TEXT = re.compile(f"[0-9A-Za-z]{{1,{OLD_MIN_LENGTH * 2}}}")


class RowIds:
    """The addresses before public ids: the row id as sqids with an alphabet the secret key shuffled. Kept
    only to read the old address of a row from before (a printed QR code, a bookmark) and send it on."""

    def __init__(self, secret_key: str | bytes):
        key = secret_key.encode() if isinstance(secret_key, str) else secret_key
        seed = hmac.new(key, b"row ids", hashlib.sha256).digest()
        alphabet = list(DEFAULT_ALPHABET)
        random.Random(seed).shuffle(alphabet)
        self.alphabet = "".join(alphabet)
        self._sqids = Sqids(alphabet=self.alphabet, min_length=OLD_MIN_LENGTH)
        # The old address text of a row id, and back.
        self.encode = lru_cache(maxsize=1024)(lambda row_id: self._sqids.encode([row_id]))
        self.decode = lru_cache(maxsize=1024)(self._decode)

    def _decode(self, text: str) -> int | None:
        """The row id of an old address text; None for any text `encode` does not give for an id up to ID_MAX."""
        if not _OLD_TEXT.fullmatch(text):
            return None
        numbers = self._sqids.decode(text)
        if len(numbers) != 1 or numbers[0] > ID_MAX or self.encode(numbers[0]) != text:
            return None
        return numbers[0]


class OldAddress(int):
    """A row id read from an old address: the request is sent on to the row's address, if its group sees it."""


# --- what a request has learnt of addresses ----------------------------------------------------


def _known() -> dict[tuple[str, Any], Any]:
    """The addresses looked up during this request (both ways), so a page linking a row ten times asks once."""
    return g.setdefault("addresses", {}) if has_app_context() else {}


def _remember(table: str, row_id: int, public_id: str) -> None:
    known = _known()
    known[(table, row_id)] = public_id
    known[(table, public_id)] = row_id


def address_of(table: str, row_id: int) -> str | None:
    """The address text of a row of `table` ("match", "player", "member"), or None when there is no such row.

    Read from a row the session holds loaded, else from the database (one indexed read, then kept for the
    request): it is the row's for good, as a row's id is.
    """
    known = _known()
    found = known.get((table, row_id))
    if found is not None:
        return found
    model = MODELS[table]
    loaded = db.session.identity_map.get((model, (row_id,), None))
    found = loaded.__dict__.get("public_id") if loaded is not None else None
    if found is None and table == "player" and current_group() is not None:
        # A page lists players (a leaderboard, a season, the rivals): the group's roster at once.
        for player_id, public_id in db.session.execute(
            select(Player.id, Player.public_id).where(Player.group_id == current_group())
        ):
            _remember("player", player_id, public_id)
        found = known.get((table, row_id))
    if found is None:
        columns = model.__table__.c
        found = db.session.execute(select(columns.public_id).where(columns.id == row_id)).scalar()
    if found is not None:
        _remember(table, row_id, found)
    return found


def row_of(table: str, text: str) -> int | None:
    """The id of the row of `table` whose address is `text` (any group's: the views see their group's alone),
    or None."""
    if not PUBLIC.fullmatch(text):
        return None
    known = _known()
    found = known.get((table, text))
    if found is None and has_request_context():
        found = request.environ.get(KNOWN_ADDRESSES, {}).get((table, text))
    if found is None and table == "player":
        found = _roster_of(text)
    elif found is None:
        columns = MODELS[table].__table__.c
        found = db.session.execute(select(columns.id).where(columns.public_id == text)).scalar()
    if found is not None:
        _remember(table, found, text)
    return found


def _roster_of(text: str) -> int | None:
    """The id of the player at this address, whose group's whole roster is loaded in the same statement: a
    player's page links the players met and partnered, and reads the player again by id (both then free).

    Read before the request's group is decided, so any group's: `_keep_to_the_group` then puts out of the
    session every row of another group, which the views' reads by id would otherwise find in it.
    """
    group = select(Player.group_id).where(Player.public_id == text).scalar_subquery()
    found = None
    roster = db.session.scalars(select(Player).where(Player.group_id == group)).all()
    for player in roster:
        _remember("player", player.id, player.public_id)
        if player.public_id == text:
            found = player.id
    if has_app_context():
        # The session holds its rows weakly: kept for the request, they are there when the view asks.
        g.address_rows = roster
    return found


def _keep_to_the_group() -> None:
    """No row of another group stays in the session after the group is decided (see `_roster_of`)."""
    group = place().group_id
    session = db.session
    kept = g.pop("address_rows", None)
    if kept is None:
        return
    g.address_rows = [row for row in kept if row.__dict__.get("group_id") == group]
    for row in kept:
        if row.__dict__.get("group_id") != group and row in session:
            session.expunge(row)


def _old_largest(table: str) -> int:
    """The largest id of `table` that had an address before public ids (0: none, a database made since)."""
    known = _known()
    if ("old", table) not in known:
        columns = OldAddresses.__table__.c
        if f"{table}_max" not in columns:  # a table made since public ids (a club evening's)
            return 0
        found = db.session.execute(select(columns[f"{table}_max"]).where(columns.id == 1)).scalar()
        known[("old", table)] = found or 0
    return known[("old", table)]


class AddressConverter(BaseConverter):
    """A URL part naming a row of one table by its address: the row id in the view (anything else a 404).

    `url_for` takes the row's id, the row itself or its address (a query's row that carries `public_id`, so
    that a list of rows costs no read of each one's address)."""

    regex = TEXT
    table = ""
    old: RowIds

    @classmethod
    def of(cls, table: str, secret_key: str | bytes) -> type[AddressConverter]:
        """The converter of `table`'s addresses in the app whose secret key this is."""
        return type(f"{table.title()}Address", (cls,), {"table": table, "old": RowIds(secret_key)})

    def to_python(self, value: str) -> Any:
        row_id = row_of(self.table, value)
        if row_id is not None:
            return row_id
        old = self.old.decode(value)
        # Only the rows from before public ids had an old address: a newer row has none, and no
        # one can reach it by the sqids text of its id.
        if old is not None and 0 < old <= _old_largest(self.table):
            return OldAddress(old)
        raise ValidationError()

    def to_url(self, value: Any) -> str:
        if isinstance(value, str) and PUBLIC.fullmatch(value):
            return value
        found = getattr(value, "public_id", None) or address_of(self.table, int(value))
        if found is None:
            raise LookupError(f"no {self.table} {value!r} to address")
        return found


def _send_old_addresses_on() -> Any:
    """A request by an old address goes on to the row's address (308: a form's post too), if the request's
    group sees the row; another group's old address is a 404 as any address of another group is."""
    _keep_to_the_group()
    args = request.view_args or {}
    old = {name: value for name, value in args.items() if isinstance(value, OldAddress)}
    if not old:
        return None
    group = place().group_id
    for name, value in old.items():
        table = {"match_id": "match", "player_id": "player", "member_id": "member"}[name]
        columns = MODELS[table].__table__.c
        seen = db.session.execute(
            select(columns.public_id).where(columns.id == int(value), columns.group_id == group)
        ).scalar()
        if seen is None:
            abort(404)
        _remember(table, int(value), seen)
    target = url_for(request.endpoint or "", **{k: int(v) if isinstance(v, int) else v for k, v in args.items()},
                     **request.args.to_dict(flat=True))  # fmt: skip
    return redirect(target, code=308)


def init_app(app: Flask) -> None:
    """Addresses in URLs (the converters are the factory's, see `converters`); old addresses sent on, once
    the request's group is decided (web/groups.py runs first)."""
    app.before_request(_send_old_addresses_on)


def converters(secret_key: str | bytes) -> dict[str, type[AddressConverter]]:
    """The URL converters of the tables whose rows have addresses."""
    return {table: AddressConverter.of(table, secret_key) for table in MODELS}


__all__ = ["KNOWN_ADDRESSES", "OldAddress", "RowIds", "address_of", "converters", "row_of"]
