"""The headers every response carries: the Content-Security-Policy and its companions, and no silent reuse."""

from __future__ import annotations

from flask import Flask, Response
from werkzeug.datastructures import Headers

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

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def add_standard_headers(headers: Headers) -> Headers:
    """Keep scripts, frames and referrers in check; and unless a response says how long it keeps
    (the fingerprinted files: a year), the browser asks again before it reuses it.

    The one definition for Flask's responses and for those the live-poll middleware gives before
    Flask sees the request, so both carry the same headers.
    """
    for name, value in SECURITY_HEADERS.items():
        headers.setdefault(name, value)
    headers.setdefault("Cache-Control", "no-cache")
    return headers


def _on_every_response(response: Response) -> Response:
    """The standard headers on whatever Flask answers, error pages included."""
    add_standard_headers(response.headers)
    return response


def init_app(app: Flask) -> None:
    """Every response Flask gives carries the standard headers."""
    app.after_request(_on_every_response)
