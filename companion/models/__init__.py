"""Database models: the player roster, matches, their seats and their rounds."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

from sqlalchemy import JSON, Double, ForeignKey, Index, String, UniqueConstraint, event, false
from sqlalchemy.orm import (
    Mapped,
    ORMExecuteState,
    Session,
    declared_attr,
    mapped_column,
    relationship,
    with_loader_criteria,
)

from ..extensions import db
from ..games.checks import NAME_MAX

# The largest id an INTEGER column holds on every database (PostgreSQL's end; SQLite's is 2**63 - 1):
# a larger id in a URL or a form is no row, never a database error.
ID_MAX = 2**31 - 1

# A phone's key for one round save: a UUID in its 36-character text form.
ROUND_KEY_MAX = 36

# A row's address (`/matches/<public_id>`): letters and digits drawn at random by `secrets` when the row is
# made, kept with it, so that no address tells another or how many rows there are, and a printed QR code
# outlives a change of the secret key. 62**11 is some 5 * 10**19: guessing one of a server's addresses is
# hopeless, and two rows drawing the same one (the column is unique) never happens in practice.
PUBLIC_ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
PUBLIC_ID_LENGTH = 11


def new_public_id() -> str:
    """A new row's address text."""
    return "".join(secrets.choice(PUBLIC_ID_ALPHABET) for _ in range(PUBLIC_ID_LENGTH))


class WithAddress:
    """A table whose rows have an address in URLs: a random public id, never the row id."""

    @declared_attr
    def public_id(cls) -> Mapped[str]:  # noqa: N805 - a declared attribute is given the class
        return mapped_column(String(PUBLIC_ID_LENGTH), default=new_public_id, unique=True)


def utcnow() -> datetime:
    """The current time in UTC as a naive datetime: the columns hold naive UTC times."""
    return datetime.now(UTC).replace(tzinfo=None)


# --- groups: whose rows a request sees --------------------------------------------------------
# The group of an open server (the laptop at the table), which every phone reaching it is part of;
# a database from before groups became it.
OPEN_GROUP_ID = 1

# The group the current request (or command) works in, set once by web/groups.py; None: every group
# (the server administrator's commands, the start-up rebuilds).
_CURRENT_GROUP: ContextVar[int | None] = ContextVar("current_group", default=None)


def current_group() -> int | None:
    """The group whose rows the session reads now, or None for all of them."""
    return _CURRENT_GROUP.get()


@contextmanager
def within_group(group_id: int | None) -> Iterator[None]:
    """Read and write as that group (None: every group) until the block ends."""
    token = _CURRENT_GROUP.set(group_id)
    try:
        yield
    finally:
        _CURRENT_GROUP.reset(token)


def enter_group(group_id: int | None) -> Token[int | None]:
    """Read and write as that group until `leave_group` is given the token (a request's whole span)."""
    return _CURRENT_GROUP.set(group_id)


def leave_group(token: Token[int | None]) -> None:
    """Back to the group before `enter_group`."""
    _CURRENT_GROUP.reset(token)


def group_or_open() -> int:
    """The current group, else (outside a request) the open group: the one a row added now belongs to, and whose
    ratings a change made now concerns."""
    group = _CURRENT_GROUP.get()
    return OPEN_GROUP_ID if group is None else group


class Group(db.Model):
    """A family, a club, a set of friends: its own roster, matches and phones."""

    __tablename__ = "play_group"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The invite link's token, shown to the group's hosts whenever they want a friend to scan it:
    # a new link replaces it, and the old one stops working.
    invite: Mapped[str | None] = mapped_column(String(64), unique=True)
    # The key of the group's table cards (QR codes printed once, reused week after week: card N names table N
    # of the group's evening being played); a host renews it, and the cards printed before stop at once.
    cards_key: Mapped[str | None] = mapped_column(String(32), unique=True)


class OldAddresses(db.Model):
    """The largest row ids that had an address before public ids (migration 0a1d…): only those rows still
    answer to the old address, a sqids text of the id under the secret key (web/row_ids.py), by a redirect.
    One row, written by the migration; none on a database made after it."""

    __tablename__ = "old_addresses"

    id: Mapped[int] = mapped_column(primary_key=True)
    match_max: Mapped[int] = mapped_column(default=0)
    player_max: Mapped[int] = mapped_column(default=0)
    member_max: Mapped[int] = mapped_column(default=0)


class Member(WithAddress, db.Model):
    """A phone in a group: it reads and scores the group's matches; a host phone also runs the group."""

    __table_args__ = (UniqueConstraint("group_id", "phone"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("play_group.id", ondelete="CASCADE"))
    # sha256 of the phone's own credential (its cookie): each phone's rights are its own, revoked alone.
    phone: Mapped[str] = mapped_column(String(64), index=True)
    host: Mapped[bool] = mapped_column(default=False)
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Written at most once every few minutes (web/groups.py), not on every request.
    last_seen: Mapped[datetime] = mapped_column(default=utcnow)
    # What the phone says it is, for the group's list of phones ("Firefox on Android").
    label: Mapped[str] = mapped_column(String(80), default="")


class MovedPhone(db.Model):
    """A credential of the previous version (an unsigned `phone` cookie) moved to a new one on its first request:
    its hash and when, nothing else. For a short while the same old value (that phone's other requests, sent
    at once) is given the same new credential, which is derived again from it and never stored; then refused."""

    __tablename__ = "moved_phone"

    old_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    moved_at: Mapped[datetime] = mapped_column(default=utcnow)


class InGroup:
    """A table whose rows belong to one group: a request sees those of its group alone (see `_only_the_group`)."""

    @declared_attr
    def group_id(cls) -> Mapped[int]:  # noqa: N805 - a declared attribute is given the class
        return mapped_column(ForeignKey("play_group.id", ondelete="CASCADE"), default=group_or_open, index=True)


# The execution option of a statement that names its group itself, or reads the rows of a match already
# found in its group (its seats, its rounds): the hook below leaves it as it is. The save's and the poll's
# statements carry it, since the added criteria double what SQLAlchemy spends on a statement (its cache key
# worked out anew on every execution).
GROUP_CHECKED = "group_checked"


@event.listens_for(Session, "do_orm_execute")
def _only_the_group(state: ORMExecuteState) -> None:
    """Every ORM read of players and matches, however it is written, sees the current group's rows alone.

    The one place a group's privacy is kept for reads: a query, a lookup by id or a join written
    without thinking of groups still cannot reach another group's rows. A Core statement (of tables,
    not of models) is not the ORM's to filter: the few there are check the group themselves.
    """
    group = _CURRENT_GROUP.get()
    if (
        group is None
        or not state.is_select
        or not state.is_orm_statement
        or state.is_column_load
        or state.is_relationship_load
        or state.execution_options.get(GROUP_CHECKED)
    ):
        return
    state.statement = state.statement.options(
        with_loader_criteria(InGroup, lambda cls: cls.group_id == group, include_aliases=True)
    )


class Player(WithAddress, InGroup, db.Model):
    """A person in a group's roster, reused across its matches."""

    # Uniqueness ignoring case and surrounding spaces, within a group, is enforced by the database.
    __table_args__ = (UniqueConstraint("group_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX))
    key: Mapped[str] = mapped_column(String(NAME_MAX))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    seats: Mapped[list[Seat]] = relationship(back_populates="player")


# A match's status: being played, over under its game's rules, or ended by the host before
# that (its scorekeeper's phone was gone): kept in the history as unfinished, no longer written.
PLAYING, FINISHED, UNFINISHED = "playing", "finished", "unfinished"


class Match(WithAddress, InGroup, db.Model):
    """One match of one game; its standings are always derived from its rounds."""

    __table_args__ = (UniqueConstraint("group_id", "uid"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game: Mapped[str] = mapped_column(String(20), index=True)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(10), default=PLAYING, index=True)
    started_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    finished_at: Mapped[datetime | None]
    # Bumped on every write: the ETag of the live views and the guard against lost updates.
    version: Mapped[int] = mapped_column(default=0)
    # sha256 of the scorekeeper's secret; the secret itself lives only in their cookie.
    scorekeeper_hash: Mapped[str] = mapped_column(String(64), default="")
    # The creator's phone may always take the pencil back; a handover code is single-use.
    owner_hash: Mapped[str] = mapped_column(String(64), default="")
    # sha256 of the credentials of the phones holding those two secrets (none for a club table's match made by the
    # draw): a phone a host takes out of the group loses them with it (services/groups.remove_phone).
    scorekeeper_phone: Mapped[str | None] = mapped_column(String(64))
    owner_phone: Mapped[str | None] = mapped_column(String(64))
    handover_hash: Mapped[str | None] = mapped_column(String(64))
    # The match's id in match files: kept across export and import, so a re-import is a no-op.
    uid: Mapped[str] = mapped_column(String(80), default=lambda: uuid4().hex)
    # A cache of the engine's verdict for list pages; rebuilt by the service on every write.
    summary: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # Which generation of the caches (summary, seat totals and figures) this match holds;
    # matches from before a new cache was added are rescored on start.
    cache_version: Mapped[int] = mapped_column(default=0, index=True)
    # Rounds taken back by undo, newest last, for redo; a new round empties it.
    redo: Mapped[list[Any]] = mapped_column(JSON, default=list)
    # The round-entry tool's state between taps, for the round numbered "number" (a set
    # calculator's taps: {"number": 3, "state": {"starter": 0, "moves": [...]}}), so a reload, another
    # tab or the next phone to take the pencil carries on with it; emptied when a round is saved or undone.
    round_in_progress: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # The table chose, when starting the match, to have each round saved as soon as every seated phone sent
    # its row (a game whose rows make a whole round); otherwise the scorekeeper's Save saves it.
    save_when_rows_in: Mapped[bool] = mapped_column(default=False, server_default=false())
    # Which seat link is current (its key is made from the uid and this number under the secret key): the
    # scorekeeper or a host renews it, and the keys of every earlier one stop seating anyone at once.
    seat_link: Mapped[int] = mapped_column(default=0, server_default="0")
    # The match this one was started from by Play again: the phones seated there follow to this one (views.live).
    follows_id: Mapped[int | None] = mapped_column(ForeignKey("match.id", ondelete="SET NULL"), index=True)

    seats: Mapped[list[Seat]] = relationship(
        back_populates="match", order_by="Seat.position", cascade="all, delete-orphan"
    )
    rounds: Mapped[list[Round]] = relationship(
        back_populates="match", order_by="Round.number", cascade="all, delete-orphan"
    )

    @property
    def player_names(self) -> list[str]:
        """The players' names in seat order, clockwise."""
        return [seat.name for seat in self.seats]

    @property
    def is_over(self) -> bool:
        """Whether the match has ended under its game's rules."""
        return self.status == FINISHED

    @property
    def is_unfinished(self) -> bool:
        """Whether the host ended the match before its game's rules did."""
        return self.status == UNFINISHED


class Seat(db.Model):
    """A player's place at a match's table; the rules depend on the seat order."""

    __table_args__ = (
        UniqueConstraint("match_id", "position"),
        UniqueConstraint("match_id", "player_id"),
        # One seat per phone in a match: a phone that takes another seat leaves the one it had.
        UniqueConstraint("match_id", "phone"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("match.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    position: Mapped[int]
    # The name as seated: the rounds refer to it, so renaming the roster entry later
    # (or merging two entries) never breaks a match that was already played.
    name: Mapped[str] = mapped_column(String(NAME_MAX), default="")
    # Caches of the engine's verdict, kept by the service, so records are SQL aggregates.
    total: Mapped[int | None]
    won: Mapped[bool] = mapped_column(default=False)
    # The seat's per-round scores summed and counted, and its best round with what it was
    # scored with (a word): the records' averages and bests without reading rounds.
    score_sum: Mapped[int | None]
    score_count: Mapped[int | None]
    best_score: Mapped[int | None]
    best_label: Mapped[str | None] = mapped_column(String(80))
    # The team the seat plays for (a Burraco pair), or None alone: partners are not opponents.
    team: Mapped[str | None] = mapped_column(String(NAME_MAX))
    # The phone sitting here (sha256 of its own credential, the `phone` cookie), which follows the match and
    # sees its own part; None while the seat is free. What the phone calls itself, for the scorekeeper.
    phone: Mapped[str | None] = mapped_column(String(64))
    phone_label: Mapped[str] = mapped_column(String(80), default="", server_default="")
    # The side cards the phone sitting here noted (Pazaak), seen by that phone alone: never exported, and
    # emptied when the seat is freed or the match ends, so a card never played stays private for ever.
    hand: Mapped[list[str] | None] = mapped_column(JSON)
    # The phones the scorekeeper freed from this seat (sha256 of their credentials), newest last: none of them
    # takes it again until the scorekeeper or a host lets them back in (None: nobody kept out).
    kept_out: Mapped[list[str] | None] = mapped_column(JSON)

    match: Mapped[Match] = relationship(back_populates="seats")
    player: Mapped[Player] = relationship(back_populates="seats")


class Round(db.Model):
    """One round (a hand, a set) of a match, as the game's match-file round object."""

    __table_args__ = (UniqueConstraint("match_id", "number"), UniqueConstraint("match_id", "client_key"))

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("match.id", ondelete="CASCADE"))
    number: Mapped[int]
    # The key the scorekeeper's phone made for this save: a retry of it (an answer lost, a
    # round kept offline and sent again) is recognised and stored once. None for rounds
    # saved without one (imports, redo, pages without the script).
    client_key: Mapped[str | None] = mapped_column(String(ROUND_KEY_MAX), default=None)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Bumped on each correction, so two phones editing one round cannot overwrite each other.
    revision: Mapped[int] = mapped_column(default=0)

    match: Mapped[Match] = relationship(back_populates="rounds")


class SentRow(db.Model):
    """A seated phone's own row of a round being played, sent before the scorekeeper saves the round, which
    gathers it; kept after the round is saved (an Undo puts the round back in the entry as it was saved)."""

    __table_args__ = (UniqueConstraint("match_id", "number", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("match.id", ondelete="CASCADE"))
    # The round it is part of, and the side it is the row of (its place among the match's sides: a player's
    # seat, or a pair's place in Burraco PAROLE in pairs).
    number: Mapped[int]
    position: Mapped[int]
    # The row as the game's `Entry.row_from_form` read it.
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    # The phone that sent it (sha256 of its credential) and its name, which the scorekeeper's sheet shows.
    phone: Mapped[str] = mapped_column(String(64))
    phone_label: Mapped[str] = mapped_column(String(80), default="")
    sent_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Bumped on each send: a Save based on an older one is refused rather than overwriting it unseen.
    revision: Mapped[int] = mapped_column(default=1)
    # The key the phone made for this send (as a round save's `Round.client_key`): the same send again, after
    # a lost answer or from the phone's queue of rows kept offline, is answered as stored, never stored twice.
    client_key: Mapped[str | None] = mapped_column(String(36))


class PlayerRecord(db.Model):
    """One player's matches of one game, summed as they are written (see services/records.py).

    A player's page reads these few rows instead of aggregating every seat the player
    ever had; `rebuild` recounts them from the seats.
    """

    player_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(20), primary_key=True)
    playing: Mapped[int] = mapped_column(default=0)
    # The finished matches: how many, how many won, and the sums of their seats' caches.
    played: Mapped[int] = mapped_column(default=0)
    won: Mapped[int] = mapped_column(default=0)
    total: Mapped[int] = mapped_column(default=0)
    score_sum: Mapped[int] = mapped_column(default=0)
    score_count: Mapped[int] = mapped_column(default=0)
    # The best round of a finished match, the earliest one on a tie; which match it was
    # tells a later change of that match that the best must be looked for again.
    best_score: Mapped[int | None]
    best_label: Mapped[str | None] = mapped_column(String(80))
    best_started_at: Mapped[datetime | None]
    best_match_id: Mapped[int | None]


class Rivalry(db.Model):
    """Two players' finished matches together and the wins of each, summed as they are written."""

    player_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"), primary_key=True)
    other_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"), primary_key=True)
    together: Mapped[int] = mapped_column(default=0)
    mine: Mapped[int] = mapped_column(default=0)
    theirs: Mapped[int] = mapped_column(default=0)
    # Of `together`, the matches they played on one team, and how many of those the team won
    # (both won or both lost): the rest, and the rest of the wins, were played against each other.
    partnered: Mapped[int] = mapped_column(default=0, server_default="0")
    partnered_won: Mapped[int] = mapped_column(default=0, server_default="0")


class RoundChange(db.Model):
    """The change log of a match: every correction, undo and redo with the values before."""

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("match.id", ondelete="CASCADE"), index=True)
    number: Mapped[int]
    action: Mapped[str] = mapped_column(String(10))
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    # An undo's round's key (Round.client_key): that save sent again is not stored again.
    client_key: Mapped[str | None] = mapped_column(String(ROUND_KEY_MAX))


# A request reads one group's matches (`_only_the_group`): its group first, so the newest matches of a
# small group, or of a status or game in it, are found without walking every other group's.
Index("ix_match_group_started", Match.group_id, Match.started_at)
Index("ix_match_group_status_started", Match.group_id, Match.status, Match.started_at)
Index("ix_match_group_game_started", Match.group_id, Match.game, Match.started_at)
# A player's seats by match, read from the index alone: the history's player filter and
# every aggregate of a player's page start here.
Index("ix_seat_player_match", Seat.player_id, Seat.match_id)


class RatingBook(db.Model):
    """Where one group's ratings of one game stand: the last match rated, or to be rebuilt from scratch (stale).

    The ratings are derived from the finished matches in the order they finished: a match that
    finishes after the last one rated is rated on its own; any other change (a correction, an undo,
    a deletion, an import, a merge) marks the book stale, and the next read rebuilds it whole.
    """

    group_id: Mapped[int] = mapped_column(ForeignKey("play_group.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(20), primary_key=True)
    stale: Mapped[bool] = mapped_column(default=True)
    rated: Mapped[int] = mapped_column(default=0)
    last_finished_at: Mapped[datetime | None]
    last_match_id: Mapped[int | None]


class Rating(db.Model):
    """One player's rating of one game after every finished match they played (see services/ratings.py)."""

    player_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(20), primary_key=True)
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    matches: Mapped[int] = mapped_column(default=0)
    wins: Mapped[int] = mapped_column(default=0, server_default="0")
    # The conservative figure (mu - 3 sigma) before and after each of the last matches, oldest first: the trend.
    recent: Mapped[list[float]] = mapped_column(JSON, default=list)


class RatingStep(db.Model):
    """A player's rating of one game right after one match: the rating over time."""

    id: Mapped[int] = mapped_column(primary_key=True)
    game: Mapped[str] = mapped_column(String(20))
    # The match's place among the game's rated matches, 1 first.
    seq: Mapped[int]
    match_id: Mapped[int]
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"))
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    # The player's rated matches of the game so far, this one included, and how many of them they won:
    # a page reads a player's line at a few of these steps, not every one of them.
    n: Mapped[int] = mapped_column(default=0, server_default="0")
    wins: Mapped[int] = mapped_column(default=0, server_default="0")


Index("ix_rating_step_player_game_n", RatingStep.player_id, RatingStep.game, RatingStep.n)
Index("ix_rating_step_game", RatingStep.game)



# The club evening's tables, in a module of their own: they build on the classes above, and are named here so
# that `companion.models` holds every table.
from .club import ClubEntrant, ClubEvening, ClubLog, ClubTable  # noqa: E402, F401
