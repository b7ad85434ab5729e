"""Static files and the bundles, shared and per kind of page: fingerprinted, minified, compressed once, cached."""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from collections.abc import Callable
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from cachetools import TTLCache, cached
from flask import Flask, Response, abort, current_app, g, request, url_for
from flask_babel import get_locale
from markupsafe import Markup

from ..games import REGISTRY
from . import modules
from .access import no_group_needed
from .headers import YEAR
from .i18n import LANGUAGES, kept_texts, offline_texts

# The stylesheets and scripts of the pages, Pico and htmx first, in cascade and execution
# order. A phone on a slow line pays for every byte before the page is drawn, and a round trip
# and a set of headers per file: so every page loads the shared bundle of each kind, and a kind
# of page names the few bundles of its own (`page_bundles` in its template, see page_assets).
# A page reached by a boosted link, which swaps the body alone, gets them too: app.js adds those
# the document lacks and lets htmx draw the page once they have loaded (no unstyled moment).
# A script a page needs only once drawn (the history's calendar, the result card's sharing) is a bundle
# that page names in data-page-scripts, fetched once the page has loaded (app.js).
# The scripts are ES modules: a bundle of scripts names the modules it starts from, and holds them with
# those they import, but those the shared bundle holds (modules.py).
BUNDLES: dict[tuple[str, str], tuple[str, ...]] = {
    # A game's colour tags its matches on every page (css/games/<slug>.colour.css).
    ("", "css"): ("vendor/pico/pico.min.css", "css/app.css", "css/games/*.colour.css"),
    ("", "js"): ("vendor/htmx/htmx.min.js", "js/app.js"),
    # The offline sender: where a phone may enter rounds, or has rounds kept (app.js adds it then).
    ("offline", "js"): ("js/offline.js",),
    # The offline page's list of the rounds kept on the phone, beside the offline sender's words.
    ("kept", "js"): ("js/kept.js",),
    # The rows sent from the seated phones, filled into the scorekeeper's entry: where a phone may enter rounds.
    ("seats", "js"): ("js/seats.js",),
    ("history", "css"): ("css/history.css",),
    # The history's date fields, beside their calendar (Cally, a module of its own).
    ("calendar", "js"): ("js/history.js",),
    # A finished match's "Share the result".
    ("share", "js"): ("js/share.js",),
    ("table", "css"): ("css/table.css",),
    # A link's QR code, the seats it lets a phone take, a group's phones: where a page hands out a link.
    ("links", "css"): ("css/links.css",),
    ("setup", "css"): ("css/setup.css",),
    ("preferences", "css"): ("css/preferences.css",),
    # The chances to win: on match pages and the new-match form.
    ("match", "css"): ("css/match.css",),
    # What a match page says through an outage: the status line, the rounds kept on the phone, a viewer
    # reconnecting. On match pages alone.
    ("outage", "css"): ("css/outage.css",),
    # What a match no longer played draws (its replay, its result card): on the page of such a match,
    # or brought by the answer that draws them on a page that was following the match (needs_bundles).
    ("ended", "css"): ("css/ended.css",),
    # A club evening's pages, and its panel on a table's match page (brought by the panel's answer).
    ("club", "css"): ("css/club.css",),
    # The club's pages and a table's panel: a confirmation kept offline, polls held while editing, Print.
    ("club", "js"): ("js/club.js",),
    # The hall screen (a TV by the door): its big dark or light look, and its pager and wake lock.
    ("hall", "css"): ("css/hall.css",),
    ("hall", "js"): ("js/hall.js",),
}
# A game's own bundles, as a page names them: its pieces ("game-<slug>"), on the pages that draw
# them, and its entry widgets' script and styles ("entry-<slug>"), where its rounds or settings are
# entered (a viewer's phone draws no entry, so it is sent none of their styles). What a
# page names travels as one bundle per kind, so a script may come again in another page's bundle
# after a boosted link: each runs once (modules.py).
GAME_BUNDLES = {("game", "css"): "css/games/{}.css", ("entry", "css"): "css/games/{}.entry.css",
                ("entry", "js"): "js/games/{}.js"}
# A script bundle whose words travel with it, in the page's language (its name says which, as
# "offline.it"), ahead of its script: the offline sender's, which no page without it needs, and the
# offline page's list of kept rounds. A page in another language brings them anew; the sender itself runs once.
SPEAKING = {"offline": offline_texts, "kept": kept_texts}
# The new-match form's name for every game's bundles: another game may be picked without a new page.
EVERY_GAME = "every-game"
BUNDLE_TYPES = {"css": "text/css", "js": "text/javascript"}
# A script bundle is a module: preloaded as one, into the module map its script tag then finds it in.
PRELOAD = {"css": "rel=preload; as=style", "js": "rel=modulepreload"}
# V8's explicit compile hint (Chrome 136 and later): every function of the script is
# compiled while it streams in, off the main thread, instead of on its first call. The
# page calls most of them on load (htmx's start-up, the app's set-up): compiled lazily,
# they keep a slow phone's main thread busy longer before the page answers (`make bench`'s
# first load). Other browsers read a comment.
JS_HINT = "//# allFunctionsCalledOnLoad\n"


def _static_file(path: str) -> Path:
    """Where a static file lies on disk."""
    return Path(current_app.static_folder or "") / path


@lru_cache(maxsize=256)
def _fingerprint(path: str, mtime: float) -> str:
    """A short content hash of a static file, so a changed file gets a new URL."""
    return hashlib.sha256(_static_file(path).read_bytes()).hexdigest()[:10]


def asset(path: str) -> str:
    """The fingerprinted URL of a static file, safe to cache for a year."""
    return url_for("static", filename=path, v=_fingerprint(path, _static_file(path).stat().st_mtime))


# --- the app's icon -----------------------------------------------------------------------
# One drawing, static/icons/icon.svg, is the header's logo (inline) and the tab's icon (a data: address):
# as a file the icon was a request and some 500 bytes of headers on every first load, on a slow line the
# time of the stylesheets and scripts; written twice in the page it costs a few bytes, the second copy
# compressed against the first.
ICON = "icons/icon.svg"
# Enough for a data: address inside a double-quoted attribute, and no more (the fewer, the better the
# second copy compresses against the first).
_ICON_ESCAPES = {"%": "%25", "#": "%23", "&": "%26", "<": "%3C", ">": "%3E", '"': "'"}


@lru_cache(maxsize=1)
def _icon_drawing() -> str:
    """The icon's SVG, on one line."""
    return " ".join(_static_file(ICON).read_text(encoding="utf-8").split())


def icon_logo() -> Markup:
    """The icon drawn inline, at the header's size, hidden from screen readers (its link is named)."""
    drawing = _icon_drawing().replace(
        'xmlns="http://www.w3.org/2000/svg" ', 'width="28" height="28" aria-hidden="true" focusable="false" ', 1
    )
    return Markup(drawing)


def icon_address() -> Markup:
    """The icon as a data: address for the page's <link rel="icon"> (no character in it an attribute must escape)."""
    drawing = _icon_drawing()
    for character, escaped in _ICON_ESCAPES.items():
        drawing = drawing.replace(character, escaped)
    return Markup("data:image/svg+xml," + drawing)


# --- compressed once ---------------------------------------------------------------------
# Why not Flask-Compress, which compresses every other response: it compresses at the one
# level set for pages drawn per request (brotli 5), and fingerprinted files are fetched once
# and kept a year, so they are worth the slowest, smallest compression: on a slow line every
# KB of the bundles is time of the first load, whose budget is checked by `make bench`.
# Its cache (COMPRESS_CACHE_BACKEND) would keep its level 5 and be asked for every
# page and fragment too; static files it compresses as streams, without a Content-Length.


def _best_compression(data: bytes, encoding: str) -> bytes:
    """Bytes compressed at the best ratio, for files compressed once and kept."""
    import brotli

    if encoding == "br":
        return brotli.compress(data, quality=11)
    return gzip.compress(data, compresslevel=9, mtime=0)


def _accepted_encoding() -> str:
    """The better content coding this request accepts, "" for none."""
    accepted = request.accept_encodings
    return "br" if accepted["br"] else "gzip" if accepted["gzip"] else ""


def _mark_encoding(response: Response, encoding: str) -> Response:
    """Say which coding the bytes are in, and that another client may get another."""
    if encoding:
        response.headers["Content-Encoding"] = encoding
    response.vary.add("Accept-Encoding")
    return response


@lru_cache(maxsize=128)
def _packed_static(path: str, mtime: float, encoding: str) -> bytes:
    """A static file compressed once, kept while the file is unchanged."""
    return _best_compression(_static_file(path).read_bytes(), encoding)


def _compressed_static(response: Response) -> Response:
    """Static files go out compressed once at the best ratio (see above), conditional on their ETag.

    Registered after Flask-Compress, so it runs first and Flask-Compress leaves the
    response alone once it carries a Content-Encoding.
    """
    if request.endpoint != "static" or response.status_code != 200 or "Content-Encoding" in response.headers:
        return response
    if response.mimetype not in current_app.config["COMPRESS_MIMETYPES"]:
        return response
    encoding = _accepted_encoding()
    path = (request.view_args or {}).get("filename", "")
    full = _static_file(path)
    if not encoding or not full.is_file():
        return response
    response.direct_passthrough = False
    response.set_data(_packed_static(path, full.stat().st_mtime, encoding))
    _mark_encoding(response, encoding)
    etag, weak = response.get_etag()
    if etag:
        response.set_etag(f"{etag}:{encoding}", weak=weak)
    return response.make_conditional(request)


# --- the bundles -------------------------------------------------------------------------


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


def _part_patterns(part: str, kind: str) -> tuple[str, ...]:
    """Where the files of one named part of a bundle lie, as glob patterns; none for a name that does not exist."""
    prefix, _, slug = part.partition("-")
    if (prefix, kind) in GAME_BUNDLES and slug in REGISTRY:
        return (GAME_BUNDLES[prefix, kind].format(slug),)
    base, _, language = part.partition(".")
    if language and (base not in SPEAKING or language not in LANGUAGES or kind != "js"):
        return ()
    return BUNDLES.get((base, kind), ())


# A match page asks for its bundles' addresses some 20 times (its own, each link's, its fragments'): 21 searches of
# static/ and 62 file times a page, 9 % of its drawing (400 of them at a hall's turn close). The files a bundle holds
# and their times are looked up once a second at most: a file changed shows from the next page drawn after that.
_LOOKED_UP: TTLCache = TTLCache(maxsize=1024, ttl=1.0)
_LOOKED_UP_LOCK = threading.Lock()


def _looked_up_once_a_second(function: Callable[..., Any]) -> Callable[..., Any]:
    def key(*args: str) -> tuple:
        return function.__name__, current_app.static_folder, *args

    return cached(_LOOKED_UP, key=key, lock=_LOOKED_UP_LOCK)(function)


@_looked_up_once_a_second
def _part_files(part: str, kind: str) -> tuple[Path, ...]:
    """The files of one named part of a bundle, in order."""
    static = Path(current_app.static_folder or "")
    return tuple(path for pattern in _part_patterns(part, kind) for path in sorted(static.glob(pattern)))


def _bundle_files(name: str, kind: str) -> list[Path]:
    """The files of a bundle, in order: of each of its parts (a page's own bundle joins them with "+")."""
    found = [_part_files(part, kind) for part in name.split("+")]
    return [path for files in found for path in files] if all(found) else []


def _stylesheet(name: str) -> bytes:
    """A stylesheet bundle's text: its files one after another, in cascade order."""
    parts = [f"/* {path.name} */\n{_minify('css', path.name, path.read_text(encoding='utf-8'))}"
             for part in name.split("+") for path in _part_files(part, "css")]  # fmt: skip
    return "\n".join(parts).encode()


def _script(name: str) -> bytes:
    """A script bundle's text: its modules linked into one (modules.py), its words first where it speaks."""
    static = Path(current_app.static_folder or "")
    words: dict[str, str] = {}
    entries = []
    # The games whose entry scripts the bundle holds: their describers' words travel with the sender's; in a bundle
    # of none (the page of a game with no script of its own, the offline page), every game's.
    games = [part.partition("-")[2] for part in name.split("+") if part.startswith("entry-")] or list(REGISTRY)
    for part in name.split("+"):
        base, _, language = part.partition(".")
        if language:
            # Its words, as a module of their own that hands them to app.js: named by its games too, so that the
            # bundle of another game's page, a boosted link away, adds that game's words.
            said = json.dumps(SPEAKING[base](language, games), ensure_ascii=False, separators=(",", ":"))
            module = ".".join([f"js/{base}.words.{language}", *games, "js"])
            words[module] = f'import {{ addTexts }} from "./app.js";\naddTexts({said});\n'
        entries += [path.relative_to(static).as_posix() for path in _part_files(part, "js")]

    def read(module: str) -> modules.Module:
        source = words[module] if module in words else (static / module).read_text(encoding="utf-8")
        return modules.read_module(module, source)

    shared = [path.relative_to(static).as_posix() for path in _part_files("", "js")]
    if not name:
        return modules.link(modules.in_order(shared, read, frozenset()), partial(_minify, "js")).encode()
    provided = frozenset(module.name for module in modules.in_order(shared, read, frozenset()))
    linked = modules.in_order([*words, *entries], read, provided)
    # The shared bundle's address, from this one's (/bundle/<name>/<digest>.js).
    return modules.link(linked, partial(_minify, "js"), shared=f"../{_current_bundle('', 'js')[0]}.js").encode()


@lru_cache(maxsize=32)
def _bundle(name: str, kind: str, stamp: tuple[float, ...]) -> tuple[str, dict[str, bytes]]:
    """A bundle's digest and its bytes plain, brotli and gzip: built once per change of its files."""
    data = (JS_HINT.encode() + _script(name)) if kind == "js" else _stylesheet(name)
    packed = {"": data, **{encoding: _best_compression(data, encoding) for encoding in ("br", "gzip")}}
    return hashlib.sha256(data).hexdigest()[:12], packed


@lru_cache(maxsize=4)
def _scripts(static: str) -> tuple[Path, ...]:
    """Every script a bundle may hold: the app's and the libraries'. Looked for once per process, as a page asks
    for a bundle's address many times (each match listed names the bundles of its page)."""
    folder = Path(static)
    return (*sorted(folder.glob("js/**/*.js")), *(folder / library for library in modules.LIBRARIES))


@_looked_up_once_a_second
def _stamp(name: str, kind: str) -> tuple[float, ...]:
    """What says a bundle's files changed: their times. A script bundle's are every script's, as what it holds
    follows the imports, and its text names the shared bundle's digest."""
    files = _scripts(current_app.static_folder or "") if kind == "js" else _bundle_files(name, kind)
    return tuple(path.stat().st_mtime for path in files)


def _current_bundle(name: str, kind: str) -> tuple[str, dict[str, bytes]]:
    """The bundle as its files are now."""
    return _bundle(name, kind, _stamp(name, kind))


def bundle_url(kind: str, name: str = "") -> str:
    """The fingerprinted URL of a stylesheet or script bundle: the shared one, or a kind of page's."""
    digest, _ = _current_bundle(name, kind)
    return url_for("bundle", digest=digest, kind=kind, name=name or None)


def bundle_urls(kind: str, *names: str) -> list[str]:
    """The URL of the bundle of one kind ("css", "js") that holds what these names have, as a list: empty if nothing.

    A page's own files of a kind travel as one bundle, a round trip and a set of headers fewer on a
    slow line than one per name. A name without files of that kind (a game with no script of its
    own) adds nothing.
    """
    parts = []
    for name in names:
        if name == EVERY_GAME:
            parts += [f"{prefix}-{slug}" for slug in REGISTRY for prefix, _ in GAME_BUNDLES]
        else:
            parts.append(f"{name}.{get_locale()}" if name in SPEAKING and kind == "js" else name)
    found = [part for part in dict.fromkeys(parts) if _part_files(part, kind)]
    return [bundle_url(kind, "+".join(found))] if found else []


def match_bundles(game: str, scorekeeper: bool, over: bool = False) -> list[str]:
    """The bundles a match page names: its game's pieces, the chances, its outage notes, what a match no longer
    played draws (its replay, its result card), and the scorekeeper's offline sender, rows from the seats and entry
    widgets.

    Asked by the page's template, and by the links that ask for them with the page (app.js).
    """
    ended = ["ended"] if over else []
    # The rows sent from the seats, where the game's seats send rows.
    seats = ["seats"] if game in REGISTRY and REGISTRY[game].entry.rows_from_seats else []
    return [f"game-{game}", "match", "outage", *ended, *(["offline", *seats, f"entry-{game}"] if scorekeeper else [])]


def needs_bundles(*names: str) -> str:
    """Said by a partial that needs these bundles: an htmx answer that draws it names them in its Link header, and
    app.js adds those the page lacks before the answer is drawn (the page it lands on may never have loaded
    them). A whole page names its own in its head. Returns nothing to print."""
    g.fragment_bundles = [*g.get("fragment_bundles", []), *names]
    return ""


def linked_bundles(*names: str) -> str:
    """The bundles these names have, of every kind, as a link names them for the page it brings (data-bundles)."""
    return " ".join(url for kind in BUNDLE_TYPES for url in bundle_urls(kind, *names))


def page_assets(*names: str) -> dict[str, list[str]]:
    """The URLs of the shared bundles and of those a page names, per kind, in cascade and execution order."""
    return {kind: [bundle_url(kind), *bundle_urls(kind, *names)] for kind in BUNDLE_TYPES}


@no_group_needed
def _serve_static(filename: str) -> Response:
    """A file of static/, as Flask serves it: its view, with its access declared."""
    return current_app.send_static_file(filename)


@no_group_needed
def _serve_bundle(digest: str, kind: str, name: str = "") -> Response:
    """A bundle, compressed once (see above) and cached by the phone for a year."""
    if kind not in BUNDLE_TYPES or not _bundle_files(name, kind):
        abort(404)
    current, packed = _current_bundle(name, kind)
    if digest != current:
        abort(404)
    encoding = _accepted_encoding()
    response = _mark_encoding(current_app.response_class(packed[encoding], mimetype=BUNDLE_TYPES[kind]), encoding)
    response.cache_control.public = True
    response.cache_control.max_age = YEAR
    response.cache_control.immutable = True
    return response


def _preload_bundles(response: Response) -> Response:
    """An htmx answer that draws a partial which needs_bundles names them in a Link header: app.js adds those the
    page lacks before the answer is drawn.

    A whole page names its bundles in its head alone: it comes in one piece, its head in the first bytes of its
    body, where the browser finds them as soon as it would in a header (a preload header was some 300 bytes of
    every first load, `make bench`).
    """
    if not (request.htmx and g.get("fragment_bundles") and response.mimetype == "text/html"):
        return response
    links = [f"<{url}>; {PRELOAD[kind]}" for kind in BUNDLE_TYPES for url in bundle_urls(kind, *g.fragment_bundles)]
    response.headers["Link"] = ", ".join(links)
    return response


def init_app(app: Flask) -> None:
    """The static files' and the bundles' routes, the fragments' preload header and the static files' compression.

    Flask-Compress must be bound to the app before this (see _compressed_static).
    """
    app.view_functions["static"] = _serve_static
    app.add_url_rule("/bundle/<digest>.<kind>", "bundle", _serve_bundle, defaults={"name": ""})
    app.add_url_rule("/bundle/<name>/<digest>.<kind>", "bundle", _serve_bundle)
    app.after_request(_preload_bundles)
    app.after_request(_compressed_static)
