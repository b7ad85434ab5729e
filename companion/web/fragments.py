"""Page or fragment: the one place that decides what an htmx request gets back, errors included."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, render_template, request
from werkzeug.exceptions import HTTPException


def wants_fragment() -> bool:
    """True for an htmx request that swaps a piece of the page, not a boosted navigation."""
    hx = request.htmx
    return bool(hx) and not hx.boosted and not hx.history_restore_request


def render(page: str, fragment: str | None = None, status: int = 200, **context: Any) -> Response:
    """Render the page, or only its partial for an htmx swap, marking the response Vary."""
    template = fragment if fragment and wants_fragment() else page
    response = current_app.make_response((render_template(template, **context), status))
    response.vary.add("HX-Request")
    return response


def _error_page(error: HTTPException) -> Response:
    """A clear page, or for an htmx swap a message in the banner, instead of a bare error.

    The message goes to the banner rather than the request's target, so a refused
    undo or a lost pencil never wipes out a round being entered.
    """
    code = error.code or 500
    if wants_fragment():
        response = current_app.make_response((render_template("_error.html", error=error), code))
        response.headers["HX-Retarget"] = "#banner"
        response.headers["HX-Reswap"] = "innerHTML"
    else:
        response = current_app.make_response((render_template("error.html", code=code, error=error), code))
    response.vary.add("HX-Request")
    return response


def init_app(app: Flask) -> None:
    """Errors answer as pages or banner fragments, like everything else."""
    app.register_error_handler(HTTPException, _error_page)
