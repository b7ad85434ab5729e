"""The INSERT that can skip or add to a row already stored (ON CONFLICT), in the database's own dialect."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects import postgresql, sqlite

from ..extensions import db


def conflict_insert(table: Any) -> Any:
    """An INSERT into `table` (a model or a table) that takes `.on_conflict_do_nothing` and `_do_update`.

    SQLite and PostgreSQL both speak it, each with its own statement class.
    """
    dialect = postgresql if db.session.get_bind().dialect.name == "postgresql" else sqlite
    return dialect.insert(table)
