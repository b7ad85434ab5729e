"""Refusals at the door: foreign Host names, cross-site POSTs, oversized bodies; Secure cookies over HTTPS."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, render_template, request
from flask_babel import gettext
from werkzeug.exceptions import Forbidden, HTTPException, RequestEntityTooLarge, SecurityError

from ..config import Settings
from .network import host_names, lan_addresses

MAX_UPLOAD_MB = 2
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def trusted_hosts(settings: Settings) -> list[str]:
    """The names and addresses this server answers to: loopback, its LAN addresses, its host names, COMPANION_HOSTS.

    A DNS-rebinding page gives the server a name of its own choosing, so a Host outside
    this list is refused rather than served (and built into the share page's links).
    """
    return list(dict.fromkeys(["localhost", "127.0.0.1", *lan_addresses(), *host_names(), *settings.extra_hosts]))


def config(settings: Settings) -> dict[str, Any]:
    """The configuration lines of the hardening (a test config may still change them).

    Over HTTPS (`make run HTTPS=1`, or a proxy's: BEHIND_PROXY=1) every cookie can be Secure.
    """
    return {
        "TRUSTED_HOSTS": trusted_hosts(settings),
        "MAX_CONTENT_LENGTH": MAX_UPLOAD_MB * 1024 * 1024,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": settings.secure_cookies,
        # Over HTTPS every cookie of the app is `__Host-` prefixed (web/cookies.py), the session's too.
        "SESSION_COOKIE_NAME": "__Host-session" if settings.secure_cookies else "session",
    }


class FileTooLarge(HTTPException):
    """A body over MAX_CONTENT_LENGTH, with a message the page can show (werkzeug's speaks of "data values")."""

    code = 413

    def __init__(self) -> None:
        super().__init__(gettext("This file is too large: at most %(size)s MB.", size=MAX_UPLOAD_MB))


def _refuse_foreign_host() -> Response | None:
    """A Host that is none of this server's names: a plain 400 page (no link: URLs cannot be built for it)."""
    if isinstance(request.routing_exception, SecurityError):
        page = render_template("host_refused.html")
        response = current_app.make_response((page, 400))
        response.headers["Cache-Control"] = "no-store"
        return response
    return None


def _refuse_oversized() -> None:
    """A declared body over the limit is refused before anything reads it."""
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if limit is not None and (request.content_length or 0) > limit:
        raise FileTooLarge()


def _refuse_cross_site() -> None:
    """A POST sent by a page of another site (its Origin names another host) is refused."""
    if request.method not in UNSAFE_METHODS:
        return
    origin = request.headers.get("Origin")
    if origin is None:  # old browsers, the command line: the CSRF token still guards them
        return
    sent_from = urlsplit(origin)
    if (sent_from.scheme, sent_from.netloc.lower()) != (request.scheme, request.host.lower()):
        raise Forbidden(gettext("This form was sent from another site (%(origin)s), so it was refused.", origin=origin))


def _as_file_too_large(_error: RequestEntityTooLarge) -> Any:
    """werkzeug's own 413 (a body that grew past the limit while read) with the page's message."""
    return current_app.handle_http_exception(FileTooLarge())


def _secure_cookies(response: Response) -> Response:
    """Over HTTPS, every cookie the app sets (pencil, language, theme...) is Secure, like the session's."""
    cookies = response.headers.getlist("Set-Cookie")
    if cookies and any("; secure" not in cookie.lower() for cookie in cookies):
        response.headers.remove("Set-Cookie")
        for cookie in cookies:
            response.headers.add("Set-Cookie", cookie if "; secure" in cookie.lower() else f"{cookie}; Secure")
    return response


def init_app(app: Flask) -> None:
    """Attach the refusals; called before the CSRF check, so a refused request is never read further."""
    app.before_request(_refuse_foreign_host)
    app.before_request(_refuse_oversized)
    app.before_request(_refuse_cross_site)
    app.register_error_handler(RequestEntityTooLarge, _as_file_too_large)
    if app.config["SESSION_COOKIE_SECURE"]:
        app.after_request(_secure_cookies)
