"""The speed tricks of saving a round, in one place: pre-built statements and ORM state set by hand.

A save is on every table's critical path (its budget is checked by `make bench`). SQLAlchemy works
out a new statement object's cache key on every execution, and the unit of work spends far more
deciding what to flush than SQLite takes to run a small write: so the two statements of every save,
the lock (`lock`) and the new round (`insert_round`), are Core statements built once, and what they
read or wrote is recorded as the objects' committed state. Everything else a save does goes through
the ORM as usual.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from ..extensions import db
from ..models import Match, Round

_MATCHES, _ROUNDS = Match.__table__, Round.__table__
_LOCK = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("match_id"))
    .values(version=_MATCHES.c.version + 1)
    .returning(_MATCHES.c.version, _MATCHES.c.redo, _MATCHES.c.status)
)
# populate_existing: rounds this session loaded before the lock (the correction view reads the
# round it edits) are overwritten with what is stored now, not handed back as they were read;
# else a correction raced by another at the same revision saw the old revision and both won.
_ROUNDS_OF = (
    select(Round)
    .where(Round.match_id == bindparam("match_id"))
    .order_by(Round.number)
    .execution_options(populate_existing=True)
)
_INSERT_ROUND = insert(_ROUNDS).returning(_ROUNDS.c.id)


def lock(match: Match) -> None:
    """Take the match's write lock before reading its rounds, by bumping its version.

    The UPDATE makes SQLite take its write lock and PostgreSQL lock the row, so two
    writers of one match run one after the other and round numbers never collide.
    What another writer may have changed before we held the lock is read again: the redo
    stack and the status come back with the new version, then the rounds.
    """
    version, redo, status = db.session.connection().execute(_LOCK, {"match_id": match.id}).one()
    for name, value in (("version", version), ("redo", redo), ("status", status)):
        set_committed_value(match, name, value)
    rounds = db.session.execute(_ROUNDS_OF, {"match_id": match.id}).scalars().all()
    set_committed_value(match, "rounds", list(rounds))


def insert_round(match: Match, row: dict[str, Any]) -> Round:
    """Insert the next round of a stored match at once, and attach it to the match as stored."""
    row = dict(row, match_id=match.id)
    row["id"] = db.session.connection().execute(_INSERT_ROUND, row).scalar_one()
    stored = Round(**row)
    make_transient_to_detached(stored)
    db.session.add(stored)
    set_committed_value(match, "rounds", [*match.rounds, stored])
    return stored

