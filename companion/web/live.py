"""Live polling: the match's entity tags, the unchanged-poll middleware, the polled reads and the viewers' fragments."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from flask import Flask, Response, abort, current_app, g, request
from flask_babel import get_locale
from sqlalchemy import Engine
from werkzeug.datastructures import Headers
from werkzeug.exceptions import SecurityError
from werkzeug.http import parse_cookie, parse_etags
from werkzeug.wsgi import get_host

from ..extensions import db
from ..models import Match
from ..queries import club as club_queries
from ..queries import groups as group_queries
from ..queries import matches as queries
from . import cookies, hx
from .assets import needs_bundles
from .bytecache import ByteBoundedCache
from .groups import PHONE_COOKIE, place, signed_credential
from .headers import PRIVATE_CACHE, add_standard_headers, stamp_server_time
from .i18n import DEFAULT_LANGUAGE, language_of_environ
from .poll_board import CommitCount, PollBoard
from .queries import QUERIES_BEFORE_FLASK, counting
from .row_ids import KNOWN_ADDRESSES, PUBLIC


# At most 1024 uids of at most 80 characters: some 200 KB.
@lru_cache(maxsize=1024)
def _identity(uid: str) -> str:
    """A short, header-safe digest of a match's uid (an imported match's uid is any text)."""
    return hashlib.blake2s(uid.encode(), digest_size=4).hexdigest()


def etag_of(version: int, uid: str, language: str) -> str:
    """The entity tag of a match at a version, in a language: every write changes it.

    It names the match too: SQLite gives a new match the id of the newest one if that was
    deleted, and a phone still following the deleted match must not be told "unchanged"
    when the new one reaches the same version. And the language: the same version is
    another body in Italian, which a cache must not give to an English phone.
    """
    return f'"v{version}-{_identity(uid)}-{language}"'


def in_language(tag: str, language: str) -> str:
    """A polled part's tag in a language: the same version is another body in Italian, which a phone that switched
    language must be sent, not told unchanged."""
    return f'{tag[:-1]}-{language}"'


def live_etag(match: Match) -> str:
    """The tag of the version a page shows, which its live block sends back when it polls."""
    return etag_of(match.version, match.uid, str(get_locale() or DEFAULT_LANGUAGE))


def shows_version(tag: str, if_none_match: str | None) -> bool:
    """Whether the viewer already shows the version this tag names.

    Its If-None-Match carries the tag as the page set it ("v7-…") or as the last response
    sent it: Flask-Compress turns a strong ETag into "v7-…:br" or "v7-…:gzip" when it
    compresses, so the suffix of the content coding is ignored here.
    """
    if not if_none_match:
        return False
    tag = tag.strip('"')
    # An empty tag sent (`""`) is parsed as None: it names no version.
    seen_tags = parse_etags(if_none_match).as_set(include_weak=True)
    return any(seen is not None and seen.split(":", 1)[0] == tag for seen in seen_tags)


# The word for what a page's entry shows (pages.match.entry_shows), which its live poll sends.
ENTRY_SHOWS = "X-Entry-Shows"
# The header of a tap's answer that draws the entry alone: the version it drew, which the page compares with the
# entry it shows (static/js/app.js), as answers to quick taps come back in any order.
ENTRY_VERSION = "X-Entry-Version"
# The header of a write's answer that draws the standings and rounds: the version it drew, which the page's live
# poll then need not fetch again (app.js).
LIVE_VERSION = "X-Live-ETag"
# The header of a club table panel's answer, a 304 too: its match's version, which the page compares with the version
# its live block shows, asking for that block only when the match moved on (static/js/club.js), so at a club table
# the panel's poll is the page's only one.
PANEL_MATCH_VERSION = "X-Match-Version"
# The event a response names when the rounds changed: the chart, its legend and the duration
# listen for it and fetch themselves again (drawing the chart in the save would double its time).
ROUNDS_CHANGED = "rounds-changed"

# What a live fragment's body depends on besides its URL: the language (the `lang` cookie or
# Accept-Language), the pencil cookie, whether htmx asks, and the compression.
LIVE_VARY = ("Cookie", "Accept-Language", hx.REQUEST, "Accept-Encoding")


def unchanged_headers(tag: str) -> Headers:
    """The headers of a 304 to a live poll, wherever it is given: Flask's view or the middleware."""
    headers = Headers([("ETag", tag), ("Vary", ", ".join(LIVE_VARY)), ("Cache-Control", PRIVATE_CACHE)])
    return add_standard_headers(headers)


def polled_state(match_id: int):
    """The live state of the polled match, as the middleware read it (then not read again) or read now; a 404
    where there is none in the request's group."""
    if LIVE_STATE_KEY in request.environ:
        state = request.environ[LIVE_STATE_KEY]
    else:
        state = queries.live_state(match_id)
    if state is None or state.group_id != place().group_id:
        abort(404)
    return state


def unchanged_answer(tag: str, settled: bool = False) -> Response | None:
    """The answer to a poll from a page that shows the version `tag` names already: a 304 with no body, or, once
    nothing can change the match any more (`settled`), htmx's last answer to a poll (286); None otherwise."""
    if not shows_version(tag, request.headers.get("If-None-Match")):
        return None
    if settled:
        # Untagged, as app.js draws no answer of the version it shows, and htmx ends a poll only on one drawn.
        return hx.stop_polling(hx.reswap(Response(""), "none"))
    return Response(status=304, headers=unchanged_headers(tag))


def tagged_answer(tag: str, draw: Callable[[], Response]) -> Response:
    """A polled part's answer: a 304 where the page shows the version `tag` names already in the phone's language,
    else `draw`'s, tagged."""
    tag = in_language(tag, str(get_locale() or DEFAULT_LANGUAGE))
    unchanged = unchanged_answer(tag)
    if unchanged is not None:
        return unchanged
    response = draw()
    response.headers["ETag"] = tag
    return response


def poll_answer(response: Response, tag: str, settled: bool, shows: str | None, rounds: bool) -> Response:
    """A poll's answer that draws the match at the version `tag` names: varied on what the phone said its entry
    shows (`shows`), naming ROUNDS_CHANGED where it draws the `rounds`, and, the match `settled`, the poll's last."""
    if shows is not None:
        response.vary.add(ENTRY_SHOWS)
    response.headers["ETag"] = tag
    response.vary.update(LIVE_VARY)
    if rounds:
        hx.trigger_client_event(response, ROUNDS_CHANGED)
    # Nothing can change a settled match any more: this drawing of it is the poll's last.
    return hx.stop_polling(response) if settled else response


def drawn_version(response: Response, match: Match, entry: bool = False, live: bool = False) -> Response:
    """A write's answer marked with the version of the match it drew: of the `entry` drawn alone, and of the
    standings and rounds drawn `live` (see ENTRY_VERSION and LIVE_VERSION)."""
    tag = live_etag(match)
    if entry:
        response.headers[ENTRY_VERSION] = tag
    if live:
        response.headers[LIVE_VERSION] = tag
    return response


# A match's address, as the `match` converter reads it: any other text (an old address among them) goes on
# to Flask rather than into a query.
LIVE_PATH = re.compile(rf"/matches/({PUBLIC.pattern})/live")
# A club table's panel, polled by its phones as often (views.club.table_panel).
PANEL_PATH = re.compile(rf"/evenings/table/({PUBLIC.pattern})")
# Where the middleware leaves the state it read for the view, which then need not read it again.
LIVE_STATE_KEY = "companion.live_state"
# Where it leaves a panel's state it answers for.
PANEL_STATE_KEY = "companion.panel_state"
WsgiApp = Callable[[dict[str, Any], Callable], Iterable[bytes]]


class UnchangedPolls:
    """WSGI middleware for the hot path of a club evening: an unchanged live poll, or table panel's poll.

    Every phone following a match asks once a second; nearly always nothing changed. That
    answer needs the match's (or panel's) state, read with every other polled one a few times a
    second (poll_board.py), so it is given here, before Flask builds a request
    context, opens the session cookie and runs the view and the after-request hooks, a
    several times longer way; at a club evening these polls are most of the requests.
    Anything else, including a changed match, goes on to Flask and to the `live` view (or the
    panel's), which gives the same 304, with the same headers, on its own when this middleware
    is not installed. A hall of 100 tables asks 400 panels a second: 2.5 ms of CPU each through
    Flask, 0.3 ms here.
    """

    def __init__(self, app: Flask):
        self.flask: WsgiApp = app.wsgi_app
        with app.app_context():
            self.engine = db.engine
        commits = CommitCount(self.engine)
        reads = outside_a_transaction(self.engine)
        self.matches = PollBoard(reads, commits, queries.live_states_at)
        self.panels = PollBoard(reads, commits, club_queries.panel_states_at)
        # On a private server, the polling phones' groups: a phone removed from one is no longer told "unchanged"
        # once its removal is committed (at once on this app server, within FRESH_FOR on another).
        self.memberships = PollBoard(reads, commits, group_queries.groups_of_phones)
        self.counting = counting(app)
        self.trusted_hosts = app.config.get("TRUSTED_HOSTS")
        # On a private server only a member of the match's group is answered here; any other phone
        # (one following by a viewer link, a stranger) goes on to Flask, which decides (web/groups.py).
        self.private = app.config["SETTINGS"].private_groups
        self.phone_cookie = cookies.name(PHONE_COOKIE, app)
        self.language_cookie = cookies.name("lang", app)
        self.app = app

    def trusted(self, environ: dict[str, Any]) -> bool:
        """Whether the Host is one of this server's names; Flask refuses any other with its 400 page."""
        if not self.trusted_hosts:
            return True
        try:
            get_host(environ, self.trusted_hosts)
        except SecurityError:
            return False
        return True

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if_none_match = environ.get("HTTP_IF_NONE_MATCH")
        if if_none_match and environ.get("REQUEST_METHOD") == "GET" and self.trusted(environ):
            path = environ.get("PATH_INFO", "")
            for pattern, answer in ((LIVE_PATH, self.live), (PANEL_PATH, self.panel)):
                found = pattern.fullmatch(path)
                if found is not None:
                    # Only a credential this server signed is answered here; any other cookie goes on to Flask.
                    phone = self.private and signed_credential(parse_cookie(environ).get(self.phone_cookie), self.app)
                    if phone or not self.private:
                        tag = answer(environ, found.group(1), phone or None)
                        if tag and shows_version(tag, if_none_match):
                            return self.unchanged(environ, start_response, tag)
                    break
        return self.flask(environ, start_response)

    def live(self, environ: dict[str, Any], address: str, phone: str | None) -> str | None:
        """The tag of the match's live block at this address, if the poll may be answered here."""
        state, statements = self.matches.state(address)
        if not self.may_know(environ, address, state and state.id, state and state.group_id, phone, statements):
            return None
        if statements:
            # Read just now, so the view need not read it again; one kept on the board may be FRESH_FOR old.
            environ[LIVE_STATE_KEY] = state
        # A settled match's poll goes on to Flask, whose answer ends it (views.live): a 304 would not.
        if state is None or state.settled:
            return None
        return etag_of(state.version, state.uid, language_of_environ(environ, self.language_cookie))

    def panel(self, environ: dict[str, Any], address: str, phone: str | None) -> str | None:
        """The tag of the club panel of the table whose match is at this address (views.club.table_panel's)."""
        state, statements = self.panels.state(address)
        if state is None:
            return None
        if not self.may_know(environ, address, state.match_id, state.group_id, phone, statements):
            return None
        environ[PANEL_STATE_KEY] = state
        return in_language(state.tag, language_of_environ(environ, self.language_cookie))

    def may_know(self, environ: dict[str, Any], address: str, match_id: int | None, group_id: int | None,
                 phone: str | None, statements: int) -> bool:  # fmt: skip
        """Whether the phone may be told here that its copy is unchanged: on a private server, a member of the
        match's group. The statements asked are counted (tests read X-Queries); the match's id, if found, is
        given to Flask's converter, which then need not ask the database again."""
        member = True
        if self.private and match_id is not None:
            groups, asked = self.memberships.state(phone) if phone else (None, 0)
            member = group_id in (groups or ())
            statements += asked
        if self.counting:
            environ[QUERIES_BEFORE_FLASK] = statements
        if match_id is not None:
            environ[KNOWN_ADDRESSES] = {("match", address): match_id}
        return member

    def unchanged(self, environ: dict[str, Any], start_response: Callable, tag: str) -> Iterable[bytes]:
        """The 304 the view would give; a panel's with the server's time (it draws the clock) and its match's
        version."""
        headers = unchanged_headers(tag)
        panel = environ.get(PANEL_STATE_KEY)
        if panel is not None:
            stamp_server_time(headers)
            headers[PANEL_MATCH_VERSION] = str(panel.match_version)
        if self.counting:
            headers["X-Queries"] = str(environ[QUERIES_BEFORE_FLASK])
        start_response("304 NOT MODIFIED", headers.to_wsgi_list())
        return []


# --- the viewers' fragment, drawn once ------------------------------------------------------
# Seven phones follow each table: when a round is saved they all ask within a second for the
# same fragment, which holds nothing personal (no form, no token), so it is drawn for the
# first and copied for the others, which then cost only the one statement of the middleware.
# Bounded by bytes, not by count: a fragment is 2-5 KB, that of a match of a thousand rounds
# some 300 KB; 8 MB is a few fragments of every table of a club evening.
_DRAWN = ByteBoundedCache(8 * 1024 * 1024)


def _viewer_key(uid: str, version: int, template: str) -> tuple:
    """What a viewer's live fragment depends on: the match (by uid, not id: SQLite may give
    a deleted match's id to the next new match), its version, the fragment and the language."""
    return (uid, version, template, str(get_locale()))


def _drawn(key: tuple) -> str | None:
    """The fragment kept under this key, if any; the bundles its partials need are needed again."""
    found = _DRAWN.get(key)
    if found is None:
        return None
    html, bundles = found
    needs_bundles(*bundles)
    return html


def drawn_for_viewers(uid: str, version: int, template: str) -> str | None:
    """The viewers' fragment of this version of the match, if one of them asked for it already."""
    return _drawn(_viewer_key(uid, version, template))


def draw_for_viewers(match: Match, template: str, draw: Callable[[], str]) -> str:
    """The viewers' fragment of the match as it is: drawn by `draw` once, then kept for the others."""
    key = _viewer_key(match.uid, match.version, template)
    html = _drawn(key)
    if html is None:
        html = draw()
        _DRAWN.put(key, (html, tuple(g.get("fragment_bundles", ()))))
    return html


# --- the polled reads, outside a transaction --------------------------------------------------
# A view that writes nothing and is polled once a second by every phone of a hall (`@polled_read`) reads outside a
# transaction on PostgreSQL, as the poll board does: no BEGIN before its statements and no ROLLBACK after them, two
# of a panel's six round trips to the database. Under gevent each round trip holds the worker's every other request
# until PostgreSQL answers: in a hall of 100 tables the workers spent some 40 % of their time in such waits, 12 % in
# pings, BEGINs and ROLLBACKs (docs/performance.md). PostgreSQL's READ COMMITTED gives each statement of a
# transaction its own snapshot anyway, so the statements see what they saw inside one. SQLite's driver sends no
# BEGIN before a read.
POLLED_READ = "polled_read"


def polled_read(view: Callable) -> Callable:
    """Declare that the view writes nothing: it may read outside a transaction."""
    setattr(view, POLLED_READ, True)
    return view


def outside_a_transaction(engine: Engine) -> Engine:
    """The engine whose connections read outside a transaction, on PostgreSQL (sharing the engine's pool)."""
    return engine.execution_options(isolation_level="AUTOCOMMIT") if engine.dialect.name == "postgresql" else engine


def _polled_read_outside_a_transaction() -> None:
    """Before a polled read's first statement (the address a converter read may have begun one: then as before)."""
    if getattr(current_app.view_functions.get(request.endpoint or ""), POLLED_READ, False):
        if not db.session().in_transaction():
            db.session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})


def init_app(app: Flask) -> None:
    """Answer unchanged live polls before Flask does (see UnchangedPolls); polled reads outside a transaction."""
    app.wsgi_app = UnchangedPolls(app)  # type: ignore[method-assign]
    with app.app_context():
        postgresql = db.engine.dialect.name == "postgresql"
    if postgresql:
        # First, before any other hook reads for the request (a private server's membership).
        app.before_request_funcs.setdefault(None, []).insert(0, _polled_read_outside_a_transaction)
