"""The ratings a request's write marked stale, rebuilt once its answer has gone (services/ratings.py)."""

from __future__ import annotations

from flask import Flask, Response, current_app

from ..extensions import db
from ..services.ratings import MARKED, rebuild_marked


def init_app(app: Flask) -> None:
    """Rebuild after each answer whose request marked books stale."""
    app.after_request(_rebuild_after_answer)


def _rebuild_after_answer(response: Response) -> Response:
    """The server closes the answer once it is sent: the rebuild (most of a second at 10,000 matches) then
    delays neither the write's answer nor another phone's read (only this connection's next request waits for
    it), and no page that reads the ratings writes them."""
    marked = db.session.info.pop(MARKED, None)
    if marked:
        app = current_app._get_current_object()

        def rebuild() -> None:
            """The books rebuilt in an app context of their own, every group seen (each book names its group). A
            failure is logged and left stale: the next write that finishes a match of the game, or the next
            start, rebuilds it."""
            with app.app_context():
                try:
                    rebuild_marked(marked)
                except Exception:
                    app.logger.exception("Rebuilding the ratings %s failed; the next write will try again", marked)

        response.call_on_close(rebuild)
    return response
