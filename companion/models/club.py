"""The club evening's tables: an evening, its entrants, each turn's tables with their results, the arbiter's log."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..extensions import db
from ..games.checks import NAME_MAX
from . import InGroup, WithAddress, utcnow

if TYPE_CHECKING:
    from . import Match

# An evening being set up (entrants still added at the door), its turns being played, or over.
EVENING_SETUP, EVENING_PLAYING, EVENING_OVER = "setup", "playing", "over"

# A table's state in its turn: its match being played (once its hands are played, its result waits for the other
# side's confirmation); confirmed (counted); disputed (the arbiter looks); closed by the arbiter (a result
# given, counted); a bye (one entrant, no match: the host's tournament points).
TABLE_PLAYING, TABLE_CONFIRMED = "playing", "confirmed"
TABLE_DISPUTED, TABLE_CLOSED, TABLE_BYE = "disputed", "closed", "bye"
# The longest reason a table gives for calling the arbiter.
CALL_MAX = 80
# What an arbiter's log line keeps of a note typed with a decision.
NOTE_MAX = 200
# The states whose result counts in the standings.
COUNTED = (TABLE_CONFIRMED, TABLE_CLOSED, TABLE_BYE)
# Who wrote a log line, where no phone did (a phone's line names its credential's hash): the arbiter, the clock.
ARBITER, CLOCK = "arbiter", "clock"


class ClubEvening(WithAddress, InGroup, db.Model):
    """One evening of a club: its game, turns × hands, movement, scale and rules, and where it stands."""

    __tablename__ = "club_evening"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX), default="")
    game: Mapped[str] = mapped_column(String(20))
    # Burraco PAROLE in pairs (an entrant is a pair), else one player an entrant (1 v 1).
    pairs: Mapped[bool] = mapped_column(default=False)
    turns: Mapped[int]
    # A turn's hands (Burraco PAROLE) or the sets to win (Pazaak): its match plays exactly that.
    hands: Mapped[int]
    # The host's rules as the pure package reads them (companion/games/club): the movement of the first turn
    # and of those after, the scale, the bye's tournament points, the late penalty.
    rules: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(10), default=EVENING_SETUP)
    # The turns drawn so far: the current turn is this one (0 before the first).
    turn: Mapped[int] = mapped_column(default=0)
    # The current turn's clock (companion/games/club/clock.py): running to `clock_ends_at` (UTC), or paused with
    # `clock_left_ms` left; neither while off. Time up is worked out on reading, never stored.
    clock_ends_at: Mapped[datetime | None]
    clock_left_ms: Mapped[int | None]
    # Bumped on every write: the ETag of the phones' and the arbiter's polls.
    version: Mapped[int] = mapped_column(default=0)
    # The hall link's generation: its key is made from it (web/groups.hall_token), so renewing it ends the old one.
    hall_link: Mapped[int] = mapped_column(default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    entrants: Mapped[list[ClubEntrant]] = relationship(
        back_populates="evening", order_by="ClubEntrant.number", cascade="all, delete-orphan"
    )
    tables: Mapped[list[ClubTable]] = relationship(
        back_populates="evening", order_by="(ClubTable.turn, ClubTable.number)", cascade="all, delete-orphan"
    )


class ClubEntrant(db.Model):
    """A pair or a player entered in an evening: numbered in order of entry, with an optional club."""

    __tablename__ = "club_entrant"
    __table_args__ = (UniqueConstraint("evening_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("club_evening.id", ondelete="CASCADE"), index=True)
    number: Mapped[int]
    # The players as seated at the table's match (two for a pair, one alone), names of the group's roster.
    players: Mapped[list[str]] = mapped_column(JSON)
    club: Mapped[str | None] = mapped_column(String(NAME_MAX))
    # The first turn it plays (1, or later when added after the evening began), and the last turn it played
    # before it withdrew (None: still in).
    joined_turn: Mapped[int] = mapped_column(default=1)
    withdrawn_after: Mapped[int | None]

    evening: Mapped[ClubEvening] = relationship(back_populates="entrants")

    @property
    def name(self) -> str:
        """The entrant as the standings name it: "Rossi – Bianchi" for a pair."""
        return " – ".join(self.players)


class ClubTable(db.Model):
    """One table of one turn: its sides (entrants, N/S first), its match, and its result once sent."""

    __tablename__ = "club_table"
    __table_args__ = (UniqueConstraint("evening_id", "turn", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("club_evening.id", ondelete="CASCADE"), index=True)
    turn: Mapped[int]
    # The table's number (a bye is table 0: one entrant, no match).
    number: Mapped[int]
    # The entrants' numbers by side, N/S first: two sides today, a list so that tables of 3 to 6 fit later.
    sides: Mapped[list[int]] = mapped_column(JSON)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("match.id", ondelete="SET NULL"), index=True)
    state: Mapped[str] = mapped_column(String(10), default=TABLE_PLAYING)
    # Each side's points of the turn as sent (then confirmed, corrected or given by the arbiter), and the
    # hands they were played over; None until sent.
    points: Mapped[list[int] | None] = mapped_column(JSON)
    hands_played: Mapped[int | None]
    # What the arbiter gave a table closed without a result: "average", "zero", or each side's tournament points.
    given: Mapped[str | list[int] | None] = mapped_column(JSON)
    # The phone holding the table's pencil (sha256 of its credential): the first seated N/S by the table card,
    # or one of the same side taking it over by the card (its phone ran flat).
    pencil_phone: Mapped[str | None] = mapped_column(String(64))
    # Who counted the result (the confirming phone's hash, or "arbiter") and when.
    confirmed_by: Mapped[str | None] = mapped_column(String(64))
    confirmed_at: Mapped[datetime | None]
    # A phone of the table called the arbiter ("Arbiter, please"): its reason and when, until the arbiter answers.
    call: Mapped[str | None] = mapped_column(String(CALL_MAX))
    called_at: Mapped[datetime | None]

    evening: Mapped[ClubEvening] = relationship(back_populates="tables")
    # Read with its table where a page is about one table (queries/club.table_of_match), and kept by it: a row's
    # other objects alone are only weakly held by the session, and read again at their first use.
    match: Mapped[Match | None] = relationship(viewonly=True)


class ClubLog(db.Model):
    """The evening's log: every confirmation, dispute and decision of the arbiter, with the values before."""

    __tablename__ = "club_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("club_evening.id", ondelete="CASCADE"), index=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    # Who: a phone's hash, or "arbiter" for the host's decisions.
    by: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(20))
    turn: Mapped[int | None]
    table: Mapped[int | None]
    entrant: Mapped[int | None]
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    note: Mapped[str] = mapped_column(String(NOTE_MAX), default="")
