"""Serving behind a proxy on a server: the health check, the proxy's headers, one log line per request, who answered."""

from __future__ import annotations

import ipaddress
import logging
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, request
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from ..config import Settings
from ..extensions import csrf, db
from .access import no_group_needed

bp = Blueprint("deploy", __name__)


def served_by(settings: Settings) -> str:
    """This server's name in the X-Served-By header: SERVED_BY, else the host (a container's id)."""
    return settings.served_by or socket.gethostname()


@bp.get("/healthz")
@no_group_needed
def health() -> tuple[str, int, dict[str, str]]:
    """200 when the database answers, 503 when it does not: the container's HEALTHCHECK and the proxy ask here."""
    try:
        db.session.execute(text("SELECT 1"))
    except SQLAlchemyError:
        db.session.rollback()
        return "database unreachable\n", 503, {"Cache-Control": "no-store"}
    return "ok\n", 200, {"Cache-Control": "no-store"}


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


class TrustedProxies:
    """WSGI middleware: the client's address and scheme as the proxies named by TRUSTED_PROXIES forwarded them.

    Werkzeug's ProxyFix believes whoever connects: a phone reaching the app's port itself could write any
    X-Forwarded-For, and be counted by the limits as a new address at each request. Here the headers count
    only from a trusted address; their addresses are read from the nearest back, the first untrusted one
    being the client (what the client wrote itself, further left, is never believed).
    """

    def __init__(self, app: Callable, networks: Iterable[str]):
        self.app = app
        self.networks: tuple[Network, ...] = tuple(ipaddress.ip_network(n, strict=False) for n in networks)

    def trusted(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
        if address is None:
            return False
        if address.version == 6 and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address.version == network.version and address in network for network in self.networks)

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if self.trusted(_address(environ.get("REMOTE_ADDR", ""))):
            client = None
            for hop in reversed(environ.get("HTTP_X_FORWARDED_FOR", "").split(",")):
                client = _address(hop)
                if not self.trusted(client):
                    break
            if client is not None:
                environ["REMOTE_ADDR"] = str(client)
            proto = environ.get("HTTP_X_FORWARDED_PROTO", "").split(",")[-1].strip().lower()
            if proto in ("http", "https"):
                environ["wsgi.url_scheme"] = proto
        return self.app(environ, start_response)


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
    """BEHIND_PROXY=1: believe the X-Forwarded-For/-Proto of the proxies TRUSTED_PROXIES names (its HTTPS makes
    cookies Secure).

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
        app.wsgi_app = TrustedProxies(app.wsgi_app, settings.trusted_proxies)  # type: ignore[method-assign]
    if settings.access_log:
        app.config["ACCESS_LOG"] = True
        app.logger.setLevel(logging.INFO)  # the migrations' line too (companion/database.py)
