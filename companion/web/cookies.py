"""The app's cookies by name: `__Host-` prefixed where the phones reach the app over HTTPS, and those of the
previous version (unprefixed, a pencil per match) moved to their new names on a phone's first request."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, g, request
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature

from .headers import YEAR

# Over HTTPS a cookie so named is only ever set by this host itself, over HTTPS, for every path: a page of a
# sibling subdomain, or of a plain-HTTP address on the way, cannot plant one (RFC 6265bis, "cookie prefixes").
PREFIX = "__Host-"
# The cookies whose previous, unprefixed name is moved as it is (the phone's credential and its pencils are
# moved by web/groups.py and web/pencil.py, which check them first).
MOVED_AS_THEY_ARE = {"group": True, "lang": False, "theme": False}  # the name: whether it is HttpOnly
SESSION = "session"


def secure(app: Flask | None = None) -> bool:
    """Whether the phones reach the app over HTTPS (its own, or the proxy's), so its cookies are prefixed."""
    return bool((app or current_app).config.get("SESSION_COOKIE_SECURE"))


def name(base: str, app: Flask | None = None) -> str:
    """The name a cookie of the app has on this server."""
    return PREFIX + base if secure(app) else base


def get(base: str) -> str | None:
    """The cookie's value, under its name, else (over HTTPS) under the previous version's name, then moved."""
    value = request.cookies.get(name(base))
    if value is None and secure() and base in MOVED_AS_THEY_ARE:
        value = request.cookies.get(base)
        if value is not None:
            g.setdefault("cookies_moved", {})[base] = value
    return value


def previous(base: str) -> str | None:
    """The cookie the previous version set under this name (unprefixed), when this server now prefixes it."""
    return request.cookies.get(base) if secure() and name(base) not in request.cookies else None


def put(response: Response, base: str, value: str, httponly: bool = True) -> Response:
    """Set one of the app's cookies for a year; over HTTPS `__Host-` prefixed (Secure, Path=/, no Domain)."""
    response.set_cookie(name(base), value, max_age=YEAR, httponly=httponly, samesite="Lax", secure=secure(), path="/")
    return response


def remove(response: Response, base: str) -> Response:
    """Delete one of the app's cookies (a `__Host-` one is deleted only with the attributes it was set with)."""
    response.delete_cookie(name(base), secure=secure(), path="/", samesite="Lax", httponly=True)
    return response


def forget_previous(response: Response, base: str) -> Response:
    """Delete the previous version's cookie of that name, once its value lives under the new name."""
    response.delete_cookie(base, path="/")
    return response


def _move(response: Response) -> Response:
    """The previous version's cookies read during the request, set under their new names and deleted."""
    for base, value in g.pop("cookies_moved", {}).items():
        if not any(cookie.startswith(f"{name(base)}=") for cookie in response.headers.getlist("Set-Cookie")):
            put(response, base, value, httponly=MOVED_AS_THEY_ARE[base])
        forget_previous(response, base)
    if secure() and SESSION in request.cookies and g.pop("session_moved", False):
        forget_previous(response, SESSION)
    return response


class MovedSession(SecureCookieSessionInterface):
    """Flask's signed session cookie, read under the previous version's name when the new one is absent: the
    viewer links a phone follows and the seat links it opened (web/groups.py) stay with it across the upgrade."""

    def open_session(self, app: Flask, request: Any) -> Any:
        new_name = self.get_cookie_name(app)
        if new_name == SESSION or new_name in request.cookies or SESSION not in request.cookies:
            return super().open_session(app, request)
        serializer = self.get_signing_serializer(app)
        if serializer is None:
            return None
        try:
            lifetime = int(app.permanent_session_lifetime.total_seconds())
            data = serializer.loads(request.cookies[SESSION], max_age=lifetime)
        except BadSignature:
            return self.session_class()
        session = self.session_class(data)
        session.modified = True
        g.session_moved = True
        return session


def init_app(app: Flask) -> None:
    """Move the previous version's cookies as each phone comes back."""
    app.session_interface = MovedSession()
    app.after_request(_move)
