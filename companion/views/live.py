"""Following a match live: the polled standings, the table view and sharing (the pencil: pencil.py)."""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for
from flask_babel import get_locale
from jinja2_fragments.flask import render_block

from ..models import PLAYING
from ..pages.match import MatchPage, entry_shows, match_or_404
from ..queries import matches as queries
from ..web import access, hx, render
from ..web.groups import follow_token, phone_credential, private
from ..web.links import match_link, qr_svg, seat_link
from ..web.live import (
    ENTRY_SHOWS,
    draw_for_viewers,
    drawn_for_viewers,
    etag_of,
    poll_answer,
    polled_read,
    polled_state,
    unchanged_answer,
)
from ..web.pencil import holds_a_token_of, is_owner, is_scorekeeper

bp = Blueprint("live", __name__, url_prefix="/matches")


@bp.get("/<match:match_id>/live")
@access.viewer_link
@polled_read
def live(match_id: int):
    """The standings and rounds for a polling phone; 304 with no body when nothing changed, and 286 (htmx's
    last answer to a poll) once nothing can change the match any more (`settled`: queries.matches._SETTLED).

    After a save the table's seven viewers all ask for the new version: a phone without
    the match's pencil gets the fragment drawn for the first of them without the match
    being read again (its seats and rounds are two more queries and most of the work).
    """
    state = polled_state(match_id)
    tag = etag_of(state.version, state.uid, str(get_locale()))
    unchanged = unchanged_answer(tag, state.settled)
    if unchanged is not None:
        return unchanged
    if request.args.get("view") == "pencil":
        # The giver's alone: a phone that never held the pencil has no code on offer to follow.
        if not holds_a_token_of(state.uid):
            abort(404)
        return _pencil_panel(match_id, tag)
    template = TABLE_VIEW if request.args.get("view") == "table" else "_live.html"
    shows = request.headers.get(ENTRY_SHOWS) if template == "_live.html" else None
    viewer = not holds_a_token_of(state.uid) and shows in (None, entry_shows(state.status))
    html = drawn_for_viewers(state.uid, state.version, template) if viewer else None
    if html is None:
        html = _live_fragment(match_id, template, shows)
    response = current_app.make_response(html)
    return poll_answer(response, tag, state.settled, shows, rounds=template == "_live.html")


# The table view's polled part: a block of its page.
TABLE_VIEW = "table.html"


def _draw(template: str, page: MatchPage) -> str:
    """A polled part drawn: the match page's (`_live.html`, which its page and answers include) or the table view's."""
    return render_block(template, "live", page=page) if template == TABLE_VIEW else render_template(template, page=page)


def _live_fragment(match_id: int, template: str, shows: str | None) -> str:
    """The live fragment drawn now: for this phone alone where it holds the pencil or a seat, else the viewers'
    one, kept for the others. When the phone's entry `shows` what is no longer so (the pencil moved, the match
    ended), the entry and the tools travel too, out of band."""
    match = match_or_404(match_id)
    page = MatchPage(match) if template == "_live.html" else MatchPage(match, my_seat=None)
    if page.scorekeeper or page.my_seat:
        # Drawn for this phone alone: what a seated phone sees of its own seat is not the viewers'.
        html = _draw(template, page)
    else:
        html = draw_for_viewers(match, template, lambda: _draw(template, page))
    if shows is not None and shows != page.entry_shows:
        html += render_block("match.html", "entry_changed", shown_before=shows, page=page)
    return html


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
    return current_app.make_response((render_block("share.html", "pencil_panel", page=page), 200, {"ETag": tag}))


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
    viewer = match_link("matches.show", match)
    owner = is_owner(match)
    seats = seat_link(match)
    page = MatchPage(
        match,
        viewer_url=viewer,
        viewer_qr=qr_svg(viewer),
        seat_url=seats,
        seat_qr=qr_svg(seats),
        may_renew=private(),
        owner=owner,
    )
    return render("share.html", page=page)
