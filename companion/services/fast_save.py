"""The speed tricks of saving a round, in one place: pre-built statements and ORM state set by hand.

A save is on every table's critical path (its budget is checked by `make bench`). SQLAlchemy works
out a new statement object's cache key on every execution, and the unit of work spends far more
deciding what to flush than SQLite takes to run a small write: so the lock, the new round and the
changed caches are Core statements built once, and what they read or wrote is recorded as the
objects' committed state, which leaves the commit nothing to flush. What each part of a save costs,
with and without these tricks: docs/performance.md and `bench/save_cost.py --parts`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy import Table, Update, bindparam, insert, inspect, select, update
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from ..extensions import db
from ..models import GROUP_CHECKED, Match, Round

_MATCHES, _ROUNDS = Match.__table__, Round.__table__
_LOCK = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("match_id"))
    .values(version=_MATCHES.c.version + 1)
    .returning(_MATCHES.c.version, _MATCHES.c.redo, _MATCHES.c.status)
)
# The rounds of a match found in its group (models.GROUP_CHECKED). populate_existing: rounds this
# session loaded before the lock (the correction view reads the round it edits) are overwritten with
# what is stored now, not handed back as they were read; else a correction raced by another at the
# same revision saw the old revision and both won.
_ROUNDS_OF = (
    select(Round)
    .where(Round.match_id == bindparam("match_id"))
    .order_by(Round.number)
    .execution_options(populate_existing=True, **{GROUP_CHECKED: True})
)
_INSERT_ROUND = insert(_ROUNDS).returning(_ROUNDS.c.id)


@lru_cache(maxsize=64)
def _cache_update(table: Table, columns: tuple[str, ...]) -> Update:
    """The UPDATE of some columns of one row of a table, by its id (built once per set of columns)."""
    return update(table).where(table.c.id == bindparam("row_id")).values({c: bindparam(f"new_{c}") for c in columns})


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


def assign(row: Any, values: dict[str, Any]) -> None:
    """Set the attributes whose value changes; a stored row gets them in one UPDATE, at once.

    What it wrote is recorded as the row's committed state, so the commit has nothing to
    flush. A row not yet stored is simply set, and inserted whole at the next flush.
    """
    changed = {name: value for name, value in values.items() if getattr(row, name) != value}
    if not changed:
        return
    state = inspect(row)
    if not state.persistent:
        for name, value in changed.items():
            setattr(row, name, value)
        return
    statement = _cache_update(state.mapper.local_table, tuple(changed))
    db.session.connection().execute(statement, {"row_id": row.id, **{f"new_{c}": v for c, v in changed.items()}})
    for name, value in changed.items():
        set_committed_value(row, name, value)
