"""Request plumbing shared by every view: fragment or page, headers, errors, assets."""

from __future__ import annotations

import gzip
import hashlib
import os
from contextvars import ContextVar
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, current_app, g, has_request_context, render_template, request, url_for
from flask_babel import format_date, get_locale, get_translations, gettext
from jinja2 import pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

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


@lru_cache(maxsize=256)
def _fingerprint(path: str, mtime: float) -> str:
    """A short content hash of a static file, so a changed file gets a new URL."""
    data = (Path(current_app.static_folder or "") / path).read_bytes()
    return hashlib.sha256(data).hexdigest()[:10]


def asset(path: str) -> str:
    """The fingerprinted URL of a static file, safe to cache for a year."""
    full = Path(current_app.static_folder or "") / path
    return url_for("static", filename=path, v=_fingerprint(path, full.stat().st_mtime))


def game_players(game) -> str:
    """How many play a game, as a person would say it."""
    if game.min_players == game.max_players:
        return gettext("%(n)s players", n=game.min_players)
    return gettext("%(min)s–%(max)s players", min=game.min_players, max=game.max_players)


# Every stylesheet and script of the pages, Pico and htmx first, in cascade and execution
# order. A phone on a slow line pays a round trip and a set of headers per file, so they
# travel as one file of each kind; and all of them load on every page, since a boosted
# navigation swaps only the body.
BUNDLES = {
    "css": ("vendor/pico/pico.min.css", "css/app.css", "css/history.css", "css/games/*.css"),
    "js": ("vendor/htmx/htmx.min.js", "js/app.js", "js/games/*.js"),
}
BUNDLE_TYPES = {"css": "text/css", "js": "text/javascript"}
# V8's explicit compile hint (Chrome 136 and later): every function of the script is
# compiled while it streams in, off the main thread, instead of on its first call. The
# page calls most of them on load (htmx's start-up, the app's set-up): compiled lazily,
# they kept the main thread of a 4x slower phone busy some 90 ms longer before the page
# answered (`make bench`'s first load, traced). Other browsers read a comment.
JS_HINT = "//# allFunctionsCalledOnLoad\n"


def _minify(kind: str, name: str, text: str) -> str:
    """A file's text without the comments and spaces the browser has no use for.

    The sources keep their comments for whoever reads them; a phone would download and
    parse them on every first load (about a fifth of each bundle, brotli-compressed).
    The vendored files come minified already.
    """
    if name.endswith(f".min.{kind}"):
        return text
    if kind == "css":
        import rcssmin

        return rcssmin.cssmin(text)
    import rjsmin

    return rjsmin.jsmin(text)


def _bundle_files(kind: str) -> list[Path]:
    """The files of a bundle, in order."""
    static = Path(current_app.static_folder or "")
    return [path for pattern in BUNDLES[kind] for path in sorted(static.glob(pattern))]


@lru_cache(maxsize=8)
def _bundle(kind: str, stamp: tuple[float, ...]) -> tuple[str, dict[str, bytes]]:
    """A bundle's digest and its bytes plain, brotli and gzip: built once per change of its files."""
    import brotli

    files = _bundle_files(kind)
    parts = [f"/* {path.name} */\n{_minify(kind, path.name, path.read_text(encoding='utf-8'))}" for path in files]
    data = ((JS_HINT if kind == "js" else "") + "\n".join(parts)).encode()
    packed = {"": data, "br": brotli.compress(data, quality=11), "gzip": gzip.compress(data, 9, mtime=0)}
    return hashlib.sha256(data).hexdigest()[:12], packed


def _current_bundle(kind: str) -> tuple[str, dict[str, bytes]]:
    """The bundle as its files are now."""
    return _bundle(kind, tuple(path.stat().st_mtime for path in _bundle_files(kind)))


def bundle_url(kind: str) -> str:
    """The fingerprinted URL of the app's stylesheet or script bundle."""
    digest, _ = _current_bundle(kind)
    return url_for("bundle", digest=digest, kind=kind)


def _serve_bundle(digest: str, kind: str) -> Response:
    """A bundle, compressed once at the best ratio and cached by the phone for a year."""
    if kind not in BUNDLES:
        abort(404)
    current, packed = _current_bundle(kind)
    if digest != current:
        abort(404)
    accepted = request.accept_encodings
    encoding = "br" if accepted["br"] else "gzip" if accepted["gzip"] else ""
    response = current_app.response_class(packed[encoding], mimetype=BUNDLE_TYPES[kind])
    if encoding:
        response.headers["Content-Encoding"] = encoding
    response.vary.add("Accept-Encoding")
    response.cache_control.public = True
    response.cache_control.max_age = 60 * 60 * 24 * 365
    response.cache_control.immutable = True
    return response


SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def _security_headers(response: Response) -> Response:
    """Headers that keep scripts, frames and referrers in check on every response."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if request.endpoint not in ("static", "bundle"):
        response.headers.setdefault("Cache-Control", "no-cache")
    return response


def _preload_bundles(response: Response) -> Response:
    """A page names its stylesheet and script bundles in a Link header, ahead of its markup.

    On a slow line the browser can ask for both as soon as the headers are in rather than
    once it has taken in the page and parsed its head (`make bench`, first load). htmx
    requests, boosted navigations included, keep the bundles they already run with.
    """
    page = request.method == "GET" and response.status_code == 200 and response.mimetype == "text/html"
    if page and not request.htmx:
        response.headers["Link"] = (
            f"<{bundle_url('css')}>; rel=preload; as=style, <{bundle_url('js')}>; rel=preload; as=script"
        )
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


@lru_cache(maxsize=128)
def _packed(path: str, mtime: float, encoding: str) -> bytes:
    """A static file compressed once at the best ratio, kept while the file is unchanged."""
    import brotli

    data = (Path(current_app.static_folder or "") / path).read_bytes()
    if encoding == "br":
        return brotli.compress(data, quality=11)
    return gzip.compress(data, compresslevel=9, mtime=0)


def _compressed_static(response: Response) -> Response:
    """Static files go out compressed at the best ratio, compressed once rather than per request.

    Flask-Compress would compress them too, on every request and at its fast level for
    dynamic pages; the fingerprinted URLs are cached for a year, so the bytes a phone
    downloads once are worth the slowest, smallest compression.
    """
    if request.endpoint != "static" or response.status_code != 200 or "Content-Encoding" in response.headers:
        return response
    if response.mimetype not in current_app.config["COMPRESS_MIMETYPES"]:
        return response
    accepted = request.accept_encodings
    encoding = "br" if accepted["br"] else "gzip" if accepted["gzip"] else None
    path = (request.view_args or {}).get("filename", "")
    full = Path(current_app.static_folder or "") / path
    if encoding is None or not full.is_file():
        return response
    response.direct_passthrough = False
    response.set_data(_packed(path, full.stat().st_mtime, encoding))
    response.headers["Content-Encoding"] = encoding
    response.vary.add("Accept-Encoding")
    etag, weak = response.get_etag()
    if etag:
        response.set_etag(f"{etag}:{encoding}", weak=weak)
    return response.make_conditional(request)


# Where middleware in front of Flask (the live-poll one) notes the statements it ran.
QUERIES_BEFORE_FLASK = "companion.queries_before_flask"


def _count_queries(app: Flask) -> None:
    """With COMPANION_COUNT_QUERIES=1, every response says how many SQL statements it ran (X-Queries)."""
    from sqlalchemy import event

    from .extensions import db

    def counted(*_args: Any) -> None:
        """One more statement for the request being served."""
        if has_request_context():
            g.queries = g.get("queries", 0) + 1

    def header(response: Response) -> Response:
        """The count, as a response header for the benchmark."""
        before = request.environ.get(QUERIES_BEFORE_FLASK, 0)
        response.headers["X-Queries"] = str(g.get("queries", 0) + before)
        return response

    with app.app_context():
        for engine in db.engines.values():
            event.listen(engine, "before_cursor_execute", counted)
    app.after_request(header)


# The request being served and its translations, per thread (a ContextVar, like Flask's own
# request context); a new request object means the visitor may have changed.
_TRANSLATIONS: ContextVar[tuple[Any, Any] | None] = ContextVar("translations", default=None)


def _request_translations() -> Any:
    """The visitor's translations, looked up once per request.

    Flask-Babel finds them anew on every call (about 18 µs), and even reading them back from
    `g` goes through two context proxies; a save's fragment asks for dozens of strings.
    """
    if not has_request_context():
        return get_translations()
    current = request._get_current_object()  # type: ignore[attr-defined]
    cached = _TRANSLATIONS.get()
    if cached is not None and cached[0] is current:
        return cached[1]
    translations = get_translations()
    _TRANSLATIONS.set((current, translations))
    return translations


def _formatted(eval_context: EvalContext, translated: str, variables: dict[str, Any]) -> str:
    """A translated string as Jinja's new style gives it: marked safe when autoescaping, so that
    only the variables are escaped, and always %-formatted."""
    if eval_context.autoescape:
        translated = Markup(translated)
    return translated % variables


@pass_eval_context
def _template_gettext(eval_context: EvalContext, string: str, **variables: Any) -> str:
    """`_()` in a template."""
    return _formatted(eval_context, _request_translations().ugettext(string), variables)


@pass_eval_context
def _template_ngettext(eval_context: EvalContext, singular: str, plural: str, num: int, **variables: Any) -> str:
    """`ngettext()` in a template, with `num` among the variables."""
    variables.setdefault("num", num)
    return _formatted(eval_context, _request_translations().ungettext(singular, plural, num), variables)


def day(moment: date) -> str:
    """A day as the visitor's language writes it short: "3 Jun 2026", "3 giu 2026"."""
    return format_date(moment, "d MMM y")


def init_app(app: Flask) -> None:
    """Attach the shared plumbing to the app."""
    app.jinja_env.install_gettext_callables(
        lambda text: _request_translations().ugettext(text),
        lambda singular, plural, n: _request_translations().ungettext(singular, plural, n),
        newstyle=True,
    )
    # The same "new style" calls without their three layers of context lookups: a save's
    # fragment makes a few dozen of them.
    app.jinja_env.globals.update(_=_template_gettext, gettext=_template_gettext, ngettext=_template_ngettext)
    app.after_request(_security_headers)
    app.after_request(_preload_bundles)
    app.after_request(_compressed_static)
    if os.environ.get("COMPANION_COUNT_QUERIES") == "1":
        _count_queries(app)
    app.register_error_handler(HTTPException, _error_page)
    app.add_url_rule("/bundle/<digest>.<kind>", "bundle", _serve_bundle)
    app.jinja_env.globals.update(asset=asset, bundle_url=bundle_url, game_players=game_players, get_locale=get_locale)
    app.jinja_env.filters["day"] = day
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
