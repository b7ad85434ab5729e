"""For the benchmark: with COMPANION_COUNT_QUERIES=1 each response says how many SQL statements it ran."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, g, has_request_context, request
from sqlalchemy import event

from ..extensions import db

# Where middleware in front of Flask (the live-poll one) notes the statements it ran.
QUERIES_BEFORE_FLASK = "companion.queries_before_flask"


def counting(app: Flask) -> bool:
    """Whether the benchmark asked for the count (it costs a hook on every statement)."""
    return app.config["SETTINGS"].count_queries


def _counted(*_args: Any) -> None:
    """One more statement for the request being served."""
    if has_request_context():
        g.queries = g.get("queries", 0) + 1


# The files (static/, the bundles) run no statement: they go without the header, which a first load's bytes would
# count on each of them (`make bench`), though no phone is ever sent it.
FILES = ("static", "bundle")


def _header(response: Response) -> Response:
    """The count, as the X-Queries response header."""
    if request.endpoint in FILES:
        return response
    before = request.environ.get(QUERIES_BEFORE_FLASK, 0)
    response.headers["X-Queries"] = str(g.get("queries", 0) + before)
    return response


def init_app(app: Flask) -> None:
    """Count each request's statements when the benchmark asks (see counting)."""
    if not counting(app):
        return
    with app.app_context():
        for engine in db.engines.values():
            event.listen(engine, "before_cursor_execute", _counted)
    app.after_request(_header)
