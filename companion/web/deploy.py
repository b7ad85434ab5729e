"""Serving behind a proxy on a server: the health check, the proxy's headers, one log line per request, who answered."""

from __future__ import annotations

import logging
import socket
import time

from flask import Blueprint, Flask, Response, current_app, g, request
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.middleware.proxy_fix import ProxyFix

from ..config import Settings
from ..extensions import csrf, db

bp = Blueprint("deploy", __name__)


def served_by(settings: Settings) -> str:
    """This server's name in the X-Served-By header: SERVED_BY, else the host (a container's id)."""
    return settings.served_by or socket.gethostname()


@bp.get("/healthz")
def health() -> tuple[str, int, dict[str, str]]:
    """200 when the database answers, 503 when it does not: the container's HEALTHCHECK and the proxy ask here."""
    try:
        db.session.execute(text("SELECT 1"))
    except SQLAlchemyError:
        db.session.rollback()
        return "database unreachable\n", 503, {"Cache-Control": "no-store"}
    return "ok\n", 200, {"Cache-Control": "no-store"}


def _started() -> None:
    g.deploy_started = time.perf_counter()


def _answered(response: Response) -> Response:
    """Name the server that answered (on a server); with ACCESS_LOG=1, write the request's line to standard output."""
    if current_app.config.get("SERVED_BY"):
        response.headers["X-Served-By"] = current_app.config["SERVED_BY"]
    if current_app.config.get("ACCESS_LOG"):
        took = (time.perf_counter() - g.get("deploy_started", time.perf_counter())) * 1000
        print(f'{time.strftime("%Y-%m-%dT%H:%M:%S")} {request.remote_addr} "{request.method} '
              f'{request.full_path.rstrip("?")}" {response.status_code} {response.content_length or "-"} '
              f"{took:.0f}ms", flush=True)  # fmt: skip
    return response


def init_app(app: Flask) -> None:
    """BEHIND_PROXY=1: trust the proxy's X-Forwarded-For/-Proto (its HTTPS makes cookies Secure).

    ACCESS_LOG=1: a line per request on standard output, and the app's own information lines.
    """
    csrf.exempt(bp)
    app.register_blueprint(bp)
    app.before_request(_started)
    app.after_request(_answered)
    settings: Settings = app.config["SETTINGS"]
    if settings.behind_proxy or settings.served_by:  # a laptop's answers do not name it
        app.config["SERVED_BY"] = served_by(settings)
    if settings.behind_proxy:  # its cookies are Secure too (hardening.config)
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1)  # type: ignore[method-assign]
    if settings.access_log:
        app.config["ACCESS_LOG"] = True
        app.logger.setLevel(logging.INFO)  # the migrations' line too (companion/database.py)
