"""Following a match live: the polled standings, the table view and sharing (the pencil: pencil.py)."""

from __future__ import annotations

import segno
from flask import Blueprint, Response, abort, current_app, render_template, request, url_for
from flask_babel import get_locale
from jinja2_fragments.flask import render_block
from markupsafe import Markup

from ..models import PLAYING
from ..pages.match import MatchPage, entry_shows
from ..queries import matches as queries
from ..web import access, hx, render
from ..web.groups import SEAT_KEY, follow_token, phone_credential, place, private, seat_token
from ..web.live import (
    LIVE_STATE_KEY,
    LIVE_VARY,
    draw_for_viewers,
    drawn_for_viewers,
    etag_of,
    shows_version,
    unchanged_headers,
)
from ..web.network import lan_address
from ..web.pencil import holds_a_token_of, is_owner, is_scorekeeper
from .host import is_host
from .matches import ROUNDS_CHANGED, match_or_404

bp = Blueprint("live", __name__, url_prefix="/matches")


def public_url(endpoint: str, **values) -> str:
    """An absolute URL that other phones at the table can open (not 'localhost')."""
    url = url_for(endpoint, _external=True, **values)
    host = request.host.split(":")[0]
    if host in ("localhost", "127.0.0.1", "::1"):
        url = url.replace(f"//{host}", f"//{lan_address()}", 1)
    return url


def qr_svg(text: str) -> Markup:
    """A QR code of `text` as inline SVG, black on white in every theme, as phone cameras read it best.

    With a viewBox and no fixed size, the drawing fills the box the page sizes it to, centred.
    """
    svg = segno.make(text, error="m").svg_inline(scale=5, border=2, dark="#000", light="#fff", omitsize=True)
    return Markup(svg)


# The word for what a page's entry shows (pages.match.entry_shows), which its live poll sends.
ENTRY_SHOWS = "X-Entry-Shows"


def _match_link(endpoint: str, match) -> str:
    """A link to one of the match's pages that a phone outside the group may open: on a private server it
    carries what lets that phone follow this one match (never making it a member of the group)."""
    follow = {"follow": follow_token(match.uid)} if private() else {}
    return public_url(endpoint, match_id=match.id, **follow)


def seat_link(match) -> str:
    """The address the seat QR code carries: the seat picker. On a private server it carries the seat link's
    own key (never the viewer link's), which lets a phone outside the group follow this one match and take a
    seat at it, until the link is renewed; on an open server every phone may sit down, and it carries nothing."""
    key = {SEAT_KEY: seat_token(match.uid, match.seat_link)} if private() else {}
    return public_url("seats.seat", match_id=match.id, **key)


@bp.get("/<match:match_id>/live")
@access.viewer_link
def live(match_id: int):
    """The standings and rounds for a polling phone; 304 with no body when nothing changed, and 286 (htmx's
    last answer to a poll) once nothing can change the match any more (`settled`: queries.matches._SETTLED).

    After a save the table's seven viewers all ask for the new version: a phone without
    the match's pencil gets the fragment drawn for the first of them without the match
    being read again (its seats and rounds are two more queries and most of the work).
    When the phone's entry shows what is no longer so (the pencil moved, the match ended),
    the entry and the tools travel too, out of band.
    """
    if LIVE_STATE_KEY in request.environ:
        state = request.environ[LIVE_STATE_KEY]
    else:
        state = queries.live_state(match_id)
    if state is None or state.group_id != place().group_id:
        abort(404)
    tag = etag_of(state.version, state.uid, str(get_locale()))
    if shows_version(tag, request.headers.get("If-None-Match")):
        if state.settled:
            # Untagged, as app.js draws no answer of the version it shows, and htmx ends a poll only on one drawn.
            return hx.stop_polling(hx.reswap(Response(""), "none"))
        return Response(status=304, headers=unchanged_headers(tag))
    if request.args.get("view") == "pencil":
        return _pencil_panel(match_id, tag)
    template = "_table_live.html" if request.args.get("view") == "table" else "_live.html"
    shows = request.headers.get(ENTRY_SHOWS) if template == "_live.html" else None
    viewer = not holds_a_token_of(state.uid)
    if viewer and shows not in (None, entry_shows(state.status)):
        viewer = False
    if viewer and (drawn := drawn_for_viewers(state.uid, state.version, template)) is not None:
        response = current_app.make_response(drawn)
    else:
        match = match_or_404(match_id)
        page = MatchPage(match) if template == "_live.html" else MatchPage(match, my_seat=None)
        if page.scorekeeper or page.my_seat:
            # Drawn for this phone alone: what a seated phone sees of its own seat is not the viewers'.
            html = render_template(template, page=page)
        else:
            html = draw_for_viewers(match, template, lambda: render_template(template, page=page))
        if shows is not None and shows != page.entry_shows:
            html += render_block("match.html", "entry_changed", shown_before=shows, page=page)
        response = current_app.make_response(html)
    if shows is not None:
        response.vary.add(ENTRY_SHOWS)
    response.headers["ETag"] = tag
    response.vary.update(LIVE_VARY)
    if template == "_live.html":
        hx.trigger_client_event(response, ROUNDS_CHANGED)
    # Nothing can change a settled match any more: this drawing of it is the poll's last.
    return hx.stop_polling(response) if state.settled else response


@bp.get("/<match:match_id>/followed")
@access.viewer_link
def followed(match_id: int):
    """Asked by the page of a match no longer played, on a phone seated at it: where Play again started it anew
    with this phone at its seat, the answer takes the page there (on a private server with what lets a phone
    outside the group follow it, as the seat link did); an empty answer while no such match is there, and the
    poll's last (286) once this phone has no seat at it: Play again seats only the phones seated at the match,
    and no phone sits down at a match no longer played."""
    match = match_or_404(match_id)
    if match.status == PLAYING:
        return Response("")
    credential = phone_credential()
    new_match = queries.played_again_at(match, credential)
    if new_match is None:
        return Response("") if queries.seat_of(match, credential) else hx.stop_polling(Response(""))
    follow = {"follow": follow_token(new_match.uid)} if private() else {}
    return hx.client_redirect(url_for("matches.show", match_id=new_match.id, **follow))


def _pencil_panel(match_id: int, tag: str) -> Response:
    """The giver's share page, polling while its pencil code is shown: once the code is used, the
    panel says where the pencil went instead of showing a spent code; once it was withdrawn (too many
    guesses at it), it says so and offers a new one; nothing while it waits."""
    match = match_or_404(match_id)
    withdrawn = is_scorekeeper(match)
    if withdrawn and match.handover_hash:
        return Response(status=204, headers={"ETag": tag})
    owner = is_owner(match)
    given = match.status == PLAYING and not withdrawn
    page = MatchPage(match, owner=owner, given=given, withdrawn=withdrawn)
    return current_app.make_response((render_template("_pencil_panel.html", page=page), 200, {"ETag": tag}))


@bp.get("/<match:match_id>/table")
@access.viewer_link
def table(match_id: int):
    """The big, dark scoreboard for a phone or tablet lying in the middle of the table."""
    match = match_or_404(match_id)
    return render("table.html", page=MatchPage(match, my_seat=None))


@bp.get("/<match:match_id>/share")
@access.member
def share(match_id: int):
    """The viewer link with its QR code, and the pencil handover for the scorekeeper."""
    match = match_or_404(match_id)
    viewer = _match_link("matches.show", match)
    owner = is_owner(match)
    seats = seat_link(match)
    page = MatchPage(
        match,
        viewer_url=viewer,
        viewer_qr=qr_svg(viewer),
        seat_url=seats,
        seat_qr=qr_svg(seats),
        may_free=is_scorekeeper(match) or is_host(),
        may_renew=private(),
        owner=owner,
    )
    return render("share.html", page=page)
