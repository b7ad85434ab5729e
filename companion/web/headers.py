"""The headers every response carries: the Content-Security-Policy and its kin, no silent reuse; the server's time on
the clock's answers."""

from __future__ import annotations

from flask import Flask, Response, current_app, request
from werkzeug.datastructures import Headers

from ..queries.club import now_ms
from .access import declared, no_group_needed

# In seconds: how long a fingerprinted file is cached and a preference or host-rights cookie kept.
YEAR = 60 * 60 * 24 * 365

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "manifest-src 'self'",
        "worker-src 'self'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
    ]
)

# An image opened as a page of its own (the result card's PNG, shared or saved) is drawn by Chromium's image
# viewer, whose page styles itself by style attributes (the page, the image, its zoom-in and zoom-out cursor):
# the pages' policy refused them, with a console error each. An image's policy lets those four in by their
# hashes, and nothing else (a newer Chromium may change them: the card is still shown, a console error returns).
IMAGE_VIEWER_STYLES = (
    "sha256-M6Ysz0+Rk4NS0oJRgQlAcfTBnQYhP6Zx0KLoS2OqDb8=",
    "sha256-kZIsqHPSISIo2t1pH7cXKP7WqETBpurMjGw/57SZwqg=",
    "sha256-igERkzBGYTzviA32gI5nzf4iHFeHVLFHkbG1rP17wT8=",
    "sha256-Qq1azyZghvXgLgAyMgjlXaRf35q7WBBCbR04hRQoK8A=",
)
IMAGE_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'unsafe-hashes' " + " ".join(f"'{digest}'" for digest in IMAGE_VIEWER_STYLES),
        "img-src 'self' data:",
        "frame-ancestors 'none'",
        "object-src 'none'",
    ]
)

# The blueprints whose pages draw a club turn's clock, and whose polls keep it right: their answers, a 304 too, carry
# the server's time (`X-Server-Time`, ms since the epoch), by which static/js/clock.js shows the turn's clock on a phone
# whose own clock is off. Elsewhere it would be some 30 bytes on every file of a first load (`make bench`).
CLOCK_BLUEPRINTS = ("club", "hall")

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


# A page's stylesheets and scripts are not documents: the browser enforces the policy, the frame
# and the referrer rules of the page that loads them, never theirs (a worker's script does take its
# own, so /sw.js keeps them all). On a phone's slow line every file's headers come before its first
# byte, and these three are about 300 bytes a file of the first load (`make bench`).
SUBRESOURCE_TYPES = ("text/css", "text/javascript")
DOCUMENT_ONLY = ("Content-Security-Policy", "Referrer-Policy", "X-Frame-Options")


def stamp_server_time(headers: Headers) -> None:
    """The server's time on an answer of the clock's pages or polls (see CLOCK_BLUEPRINTS)."""
    headers["X-Server-Time"] = str(now_ms())


def add_standard_headers(headers: Headers, subresource: bool = False) -> Headers:
    """Keep scripts, frames and referrers in check; and unless a response says how long it keeps
    (the fingerprinted files: a year), the browser asks again before it reuses it.

    The one definition for Flask's responses and for those the live-poll middleware gives before
    Flask sees the request, so both carry the same headers. A `subresource` (a page's stylesheet
    or script) carries only what applies to it: no sniffing of its type.
    """
    for name, value in SECURITY_HEADERS.items():
        if not (subresource and name in DOCUMENT_ONLY):
            headers.setdefault(name, value)
    headers.setdefault("Cache-Control", "no-cache")
    return headers


PRIVATE_CACHE = "private, no-cache"


def _on_every_response(response: Response) -> Response:
    """The standard headers on whatever Flask answers, error pages included; anything but the shared files
    is private to the phone that asked, and differs by its cookies."""
    subresource = response.mimetype in SUBRESOURCE_TYPES and request.endpoint != "home.service_worker"
    if response.mimetype.startswith("image/") and response.mimetype != "image/svg+xml":
        response.headers.setdefault("Content-Security-Policy", IMAGE_POLICY)
    # Only what holds nothing of any group (its view `no_group_needed`: the files, the service worker, the checks)
    # may be kept by a cache shared by several phones (a proxy's, a school's); anything else may hold a group's
    # data or a phone's own part.
    if no_group_needed not in declared(current_app.view_functions.get(request.endpoint or "")):
        response.cache_control.public = False
        response.cache_control.private = True
        response.vary.add("Cookie")
    add_standard_headers(response.headers, subresource)
    if request.blueprint in CLOCK_BLUEPRINTS:
        stamp_server_time(response.headers)
    if not ({"no-cache", "no-store"} & set(response.cache_control)) and response.cache_control.max_age is None:
        response.cache_control.no_cache = True
    return response


def init_app(app: Flask) -> None:
    """Every response Flask gives carries the standard headers."""
    app.after_request(_on_every_response)
