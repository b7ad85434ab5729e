"""Following a match live: the polled standings, the table view, sharing and the pencil."""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

import segno
from flask import Blueprint, Flask, Response, abort, current_app, redirect, render_template, request, url_for
from flask_babel import get_locale, gettext
from markupsafe import Markup
from werkzeug.http import parse_etags

from .. import matches as service
from ..extensions import db
from ..models import Match
from ..network import lan_address
from ..web import QUERIES_BEFORE_FLASK, SECURITY_HEADERS, render
from .matches import PENCIL_COOKIE, _match_or_404, _pencil_cookie, is_scorekeeper, match_context

bp = Blueprint("live", __name__, url_prefix="/matches")


@lru_cache(maxsize=1024)
def _identity(uid: str) -> str:
    """A short, header-safe digest of a match's uid (an imported match's uid is any text)."""
    return hashlib.blake2s(uid.encode(), digest_size=4).hexdigest()


def etag_of(version: int, uid: str) -> str:
    """The entity tag of a match at a version: every write changes it.

    It names the match too: SQLite gives a new match the id of the newest one if that was
    deleted, and a phone still following the deleted match must not be told "unchanged"
    when the new one reaches the same version.
    """
    return f'"v{version}-{_identity(uid)}"'


def live_etag(match: Match) -> str:
    """The tag of the version a page shows, which its live block sends back when it polls."""
    return etag_of(match.version, match.uid)


def shows_version(version: int, uid: str, if_none_match: str | None) -> bool:
    """Whether the viewer already shows this version of this match.

    Its If-None-Match carries the tag as the page set it ("v7-…") or as the last response
    sent it: Flask-Compress turns a strong ETag into "v7-…:br" or "v7-…:gzip" when it
    compresses, so the suffix of the content coding is ignored here.
    """
    if not if_none_match:
        return False
    tag = etag_of(version, uid).strip('"')
    return any(seen.split(":", 1)[0] == tag for seen in parse_etags(if_none_match).as_set(include_weak=True))


LIVE_PATH = re.compile(r"/matches/(\d+)/live")
# Where the middleware leaves the state it read for the view, which then need not read it again.
LIVE_STATE_KEY = "companion.live_state"
WsgiApp = Callable[[dict[str, Any], Callable], Iterable[bytes]]


class UnchangedPolls:
    """WSGI middleware for the hot path of a club evening: an unchanged live poll.

    Every phone following a match asks once a second; nearly always nothing changed. That
    answer needs one indexed query, so it is given here, before Flask builds a request
    context, opens the session cookie and runs the view and the after-request hooks (about
    3× the work). Anything else, including a changed match, goes on to Flask and to `live`
    below, which gives the same 304 on its own when this middleware is not installed.
    """

    def __init__(self, app: Flask):
        self.next: WsgiApp = app.wsgi_app
        with app.app_context():
            self.engine = db.engine
        self.counting = os.environ.get("COMPANION_COUNT_QUERIES") == "1"

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if_none_match = environ.get("HTTP_IF_NONE_MATCH")
        if if_none_match and environ.get("REQUEST_METHOD") == "GET":
            found = LIVE_PATH.fullmatch(environ.get("PATH_INFO", ""))
            if found:
                with self.engine.connect() as connection:
                    state = service.live_state(int(found.group(1)), connection)
                environ[LIVE_STATE_KEY] = state
                if self.counting:
                    environ[QUERIES_BEFORE_FLASK] = 1
                if state is not None and shows_version(state.version, state.uid, if_none_match):
                    tag = etag_of(state.version, state.uid)
                    headers = [("ETag", tag), ("Cache-Control", "no-cache"), ("Vary", "Accept-Encoding")]
                    headers += list(SECURITY_HEADERS.items())
                    if self.counting:
                        headers.append(("X-Queries", "1"))
                    start_response("304 NOT MODIFIED", headers)
                    return []
        return self.next(environ, start_response)


def init_app(app: Flask) -> None:
    """Answer unchanged live polls before Flask does (see UnchangedPolls)."""
    app.wsgi_app = UnchangedPolls(app)  # type: ignore[method-assign]
    app.add_template_global(live_etag)


def public_url(endpoint: str, **values) -> str:
    """An absolute URL that other phones at the table can open (not 'localhost')."""
    url = url_for(endpoint, _external=True, **values)
    host = request.host.split(":")[0]
    if host in ("localhost", "127.0.0.1", "::1"):
        url = url.replace(f"//{host}", f"//{lan_address()}", 1)
    return url


def qr_svg(text: str) -> Markup:
    """A QR code of `text` as inline SVG, drawn in the text colour so it reads in every theme."""
    svg = segno.make(text, error="m").svg_inline(scale=5, border=2, dark="#000", light="#fff")
    return Markup(svg)


_RENDERED: OrderedDict[tuple, str] = OrderedDict()
_RENDERED_LOCK = threading.Lock()
_RENDERED_MAX = 512


def _viewer_key(uid: str, version: int, template: str) -> tuple:
    """What a viewer's live fragment depends on: the match (by uid, not id: SQLite may give
    a deleted match's id to the next new match), its version, the fragment and the language."""
    return (uid, version, template, str(get_locale()))


def _drawn_for_viewers(key: tuple) -> str | None:
    """The viewer fragment already drawn for this key, if any."""
    with _RENDERED_LOCK:
        return _RENDERED.get(key)


def _viewer_html(match: Match, template: str) -> str:
    """A viewer's live fragment, drawn once per match version and language for all viewers.

    Seven phones follow each table: when a round is saved they all ask within a second
    for the same fragment, which holds nothing personal (no form, no token), so it is
    drawn for the first and copied for the others.
    """
    key = _viewer_key(match.uid, match.version, template)
    html = _drawn_for_viewers(key)
    if html is None:
        html = render_template(template, **match_context(match))
        with _RENDERED_LOCK:
            _RENDERED[key] = html
            while len(_RENDERED) > _RENDERED_MAX:
                _RENDERED.popitem(last=False)
    return html


@bp.get("/<int:match_id>/live")
def live(match_id: int):
    """The standings and rounds for a polling viewer; 304 with no body when nothing changed.

    After a save the table's seven viewers all ask for the new version: a phone without
    the match's pencil gets the fragment drawn for the first of them without the match
    being read again (its seats and rounds are two more queries and most of the work).
    """
    if LIVE_STATE_KEY in request.environ:
        state = request.environ[LIVE_STATE_KEY]
    else:
        state = service.live_state(match_id)
    if state is None:
        abort(404)
    version, uid = state
    tag = etag_of(version, uid)
    template = "_table_live.html" if request.args.get("view") == "table" else "_live.html"
    viewer = request.cookies.get(PENCIL_COOKIE.format(match_id)) is None
    if shows_version(version, uid, request.headers.get("If-None-Match")):
        response = Response(status=304)
    elif viewer and (drawn := _drawn_for_viewers(_viewer_key(uid, version, template))) is not None:
        response = current_app.make_response(drawn)
        response.vary.add("HX-Request")
    else:
        match = _match_or_404(match_id)
        if is_scorekeeper(match):
            response = render(template, **match_context(match))
        else:
            response = current_app.make_response(_viewer_html(match, template))
            response.vary.add("HX-Request")
    response.headers["ETag"] = tag
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/<int:match_id>/table")
def table(match_id: int):
    """The big, dark scoreboard for a phone or tablet lying in the middle of the table."""
    match = _match_or_404(match_id)
    return render("table.html", **match_context(match))


@bp.get("/<int:match_id>/share")
def share(match_id: int):
    """The viewer link with its QR code, and the pencil handover for the scorekeeper."""
    match = _match_or_404(match_id)
    viewer = public_url("matches.show", match_id=match.id)
    owner = service.is_owner(match, request.cookies.get(PENCIL_COOKIE.format(match.id)))
    return render(
        "share.html", **match_context(match, viewer_url=viewer, viewer_qr=qr_svg(viewer), owner=owner)
    )


@bp.post("/<int:match_id>/pencil/offer")
def offer_pencil(match_id: int):
    """Show a single-use QR code with which another phone takes the pencil."""
    match = _match_or_404(match_id)
    if not is_scorekeeper(match):
        abort(403, gettext("Only the scorekeeper's phone can give the pencil."))
    code = service.offer_pencil(match)
    link = public_url("live.pencil", match_id=match.id, code=code)
    context = match_context(match, pencil_url=link, pencil_qr=qr_svg(link))
    return render("share.html", fragment="_pencil_offer.html", **context)


@bp.route("/<int:match_id>/pencil", methods=["GET", "POST"])
def pencil(match_id: int):
    """The page a scanned pencil code opens, and its Take the pencil button."""
    match = _match_or_404(match_id)
    code = request.values.get("code", "")
    if request.method == "GET":
        return render("pencil.html", **match_context(match, code=code))
    try:
        token = service.take_pencil(match, code)
    except service.Conflict as conflict:
        return render("pencil.html", status=409, **match_context(match, code="", errors={"pencil": str(conflict)}))
    return _pencil_cookie(redirect(url_for("matches.show", match_id=match.id)), match, token)


@bp.post("/<int:match_id>/pencil/back")
def reclaim(match_id: int):
    """The phone that started the match takes the pencil back."""
    match = _match_or_404(match_id)
    try:
        service.reclaim_pencil(match, request.cookies.get(PENCIL_COOKIE.format(match.id)))
    except service.Conflict as conflict:
        abort(403, str(conflict))
    return redirect(url_for("matches.show", match_id=match.id))
