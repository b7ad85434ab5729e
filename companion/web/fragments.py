"""Page or fragment: the one place that decides what an htmx request gets back, errors included."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import brotli
from flask import Flask, Response, current_app, render_template, request
from flask_wtf.csrf import CSRFError
from jinja2_fragments.flask import render_block
from werkzeug.exceptions import HTTPException, default_exceptions
from werkzeug.http import parse_accept_header

from ..games.refusals import N_, ChangedMeanwhile, Message, NotAllowed, Refusal
from . import hx
from .i18n import error_text, translated
from .limits import seconds_to_wait


def wants_fragment() -> bool:
    """True for an htmx request that swaps a piece of the page, not a boosted navigation."""
    hx = request.htmx
    return bool(hx) and not hx.boosted and not hx.history_restore_request


def render(whole: str, fragment: str | None = None, status: int = 200, **context: Any) -> Response:
    """Render the page's template `whole`, or for an htmx swap only its fragment, marking the response Vary:
    a block of `whole` by name (drawn alone by jinja2-fragments), or a template of its own (`….html`)."""
    if not (fragment and wants_fragment()):
        html = render_template(whole, **context)
    elif fragment.endswith(".html"):
        html = render_template(fragment, **context)
    else:
        html = render_block(whole, fragment, **context)
    response = current_app.make_response((html, status))
    response.vary.add(hx.REQUEST)
    return response


# Brotli's quality for a fragment. Flask-Compress's level is set for pages, whose bytes are the first
# load's time on a slow line; at that level brotli fills hash tables far larger than a fragment of a
# few KB, a good part of a save's CPU, and leaves the processor's caches cold for the next request.
# A fragment goes to a page already loaded, over the table's network, on every tap: a fast level
# costs a fraction of that for a few more bytes (docs/performance.md has the figures).
FRAGMENT_BROTLI_QUALITY = 2


@lru_cache(maxsize=64)
def _prefers_brotli(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header takes brotli at least as gladly as gzip (as Flask-Compress chooses);
    kept per header, as phones send a few distinct ones."""
    return parse_accept_header(accept_encoding).best_match(("br", "gzip")) == "br"


def _compressed_fragment(response: Response) -> Response:
    """An htmx fragment compressed at the fast level, as Flask-Compress would have (see above).

    Registered after Flask-Compress, so it runs first and Flask-Compress leaves the response
    alone once it carries a Content-Encoding; what this does not take (another coding, an
    error, a stream) Flask-Compress still compresses.
    """
    if (
        not 200 <= response.status_code < 300
        or response.is_streamed
        or "Content-Encoding" in response.headers
        or not _prefers_brotli(request.headers.get("Accept-Encoding", ""))
        or response.mimetype not in current_app.config["COMPRESS_MIMETYPES"]
        or not wants_fragment()
    ):
        return response
    data = response.get_data()
    if len(data) < current_app.config["COMPRESS_MIN_SIZE"]:
        return response
    response.set_data(brotli.compress(data, quality=FRAGMENT_BROTLI_QUALITY))
    response.headers["Content-Encoding"] = "br"
    response.vary.add("Accept-Encoding")
    # As Flask-Compress marks a strong tag: "v7-…" becomes "v7-…:br" (see live.shows_version).
    if "ETag" in response.headers:
        etag, weak = response.get_etag()
        if etag and not weak:
            response.set_etag(f"{etag}:br")
    if request.method in ("GET", "HEAD"):
        response.make_conditional(request)
    return response


# The status each kind of refusal is answered with; any other (a RuleError no form showed) is 422.
REFUSAL_STATUS: dict[type[Refusal], int] = {NotAllowed: 403, ChangedMeanwhile: 409}

# What the error page says when the code gave no message of its own (werkzeug's are English).
ERROR_TITLES = {
    400: N_("The request could not be read"),
    403: N_("Not allowed"),
    404: N_("Not found"),
    405: N_("Not allowed this way"),
    409: N_("Changed meanwhile"),
    413: N_("Too large"),
    422: N_("Not accepted"),
    429: N_("Too many tries"),
    500: N_("Something went wrong"),
    503: N_("Busy"),
}
ERROR_TEXTS = {
    400: N_("This request could not be read. Reload the page and try again."),
    403: N_("This is not something this phone may do."),
    404: N_("There is nothing at this address: the match or page may have been deleted."),
    405: N_("This address does not take this kind of request."),
    409: N_("This changed on another page or phone meanwhile. Reload the page to see it as it is."),
    413: N_("This is too large to be accepted."),
    422: N_("This could not be accepted as it was sent."),
    429: N_("Too many tries: wait a minute and try again."),
    500: N_("The server had a problem. What was stored before is safe; try again."),
    503: N_("The server is busy: try again in a few seconds."),
}
CSRF_TEXT = N_("This form's security token (CSRF) is missing or too old: reload the page and send it again.")


def status_of(refusal: Refusal) -> int:
    """The status a refusal of this kind is answered with."""
    for kind, status in REFUSAL_STATUS.items():
        if isinstance(refusal, kind):
            return status
    return 422


def _description(error: HTTPException, code: int) -> str:
    """The error's own message; werkzeug's English default replaced by the page's own, translated."""
    if isinstance(error, CSRFError):
        return translated(CSRF_TEXT)
    default = getattr(type(error), "description", None)
    if error.description and error.description != default:
        return error.description
    return translated(ERROR_TEXTS.get(code, ERROR_TEXTS[500 if code >= 500 else 400]))


def _error_page(error: HTTPException) -> Response:
    """A clear page, or for an htmx swap a message in the banner, instead of a bare error.

    The message goes to the banner rather than the request's target, so a refused
    undo or a lost pencil never wipes out a round being entered.
    """
    code = error.code or 500
    title: Message = ERROR_TITLES.get(code, ERROR_TITLES[500 if code >= 500 else 400])
    context = {"code": code, "title": translated(title), "description": _description(error, code)}
    if wants_fragment():
        response = current_app.make_response((render_block("error.html", "banner", **context), code))
        hx.reswap(hx.retarget(response, "#banner"), "innerHTML")
    else:
        response = current_app.make_response((render_template("error.html", **context), code))
    response.vary.add(hx.REQUEST)
    retry_after = getattr(error, "retry_after", None) or seconds_to_wait(error)
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


def _refusal_page(refusal: Refusal) -> Response:
    """A refusal of the rules or the services no view answered itself: its status, its message translated."""
    status = status_of(refusal)
    return _error_page(default_exceptions[status](error_text(refusal)))


def init_app(app: Flask) -> None:
    """Errors answer as pages or banner fragments, like everything else; fragments go out compressed fast.

    Flask-Compress must be bound to the app before this (see _compressed_fragment).
    """
    app.register_error_handler(HTTPException, _error_page)
    app.register_error_handler(Refusal, _refusal_page)
    app.after_request(_compressed_fragment)
