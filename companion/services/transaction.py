"""The one transaction helper: a write committed whole or rolled back whole, under a match's lock if asked."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..extensions import db
from ..models import Match
from .fast_save import lock


@contextmanager
def transaction(locking: Match | None = None) -> Iterator[None]:
    """Commit what the block wrote when it ends, or roll all of it back when it raises.

    With `locking`, the match's write lock is taken first (see fast_save.lock): two writers of
    one match then run one after the other, each on the state the other left.
    """
    try:
        if locking is not None:
            lock(locking)
        yield
        db.session.commit()
    except BaseException:
        db.session.rollback()
        raise
