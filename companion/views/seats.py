"""Seats at a match for the players' own phones: the seat link's page, taking and leaving a seat, freeing one."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import gettext

from ..games.base import ChangedMeanwhile, NotAllowed, RuleError
from ..games.forms import index_in
from ..services import seats as service
from ..web import render, wants_fragment
from ..web.groups import current_member, give_phone_credential, phone_credential, phone_label
from ..web.i18n import error_text
from .host import is_host
from .live import qr_svg, seat_link
from .matches import is_scorekeeper, match_context, match_or_404

bp = Blueprint("seats", __name__, url_prefix="/matches")


@bp.route("/<id:match_id>/seat", methods=["GET", "POST"])
def seat(match_id: int):
    """The page a scanned seat link opens: the phone picks its player's name and takes that seat."""
    match = match_or_404(match_id)
    if request.method == "GET":
        return render("seat.html", **match_context(match))
    position = index_in(request.form.get("seat"), len(match.seats))
    try:
        service.take_seat(match, position, give_phone_credential(), _what_this_phone_is_called())
    except (RuleError, ChangedMeanwhile, NotAllowed) as refused:
        status = 409 if isinstance(refused, ChangedMeanwhile) else 403 if isinstance(refused, NotAllowed) else 422
        context = match_context(match, errors={"seat": error_text(refused)})
        return render("seat.html", status=status, **context)
    return redirect(url_for("matches.show", match_id=match.id))


@bp.post("/<id:match_id>/seat/leave")
def leave(match_id: int):
    """This phone gets up from its seat and follows the match as any viewer."""
    match = match_or_404(match_id)
    service.leave_seat(match, phone_credential())
    return redirect(url_for("matches.show", match_id=match.id))


@bp.get("/<id:match_id>/seats")
def panel(match_id: int):
    """The share page's list of seats, polled while the scorekeeper looks at it: a phone sitting down shows."""
    match = match_or_404(match_id)
    return render_template("_seats_panel.html", **_panel_context(match))


@bp.post("/<id:match_id>/seats/free")
def free(match_id: int):
    """The scorekeeper (or the host) frees a seat: the phone sitting there only follows the match now."""
    match = match_or_404(match_id)
    if not (is_scorekeeper(match) or is_host()):
        abort(403, gettext("Only the scorekeeper's phone can free a seat."))
    service.free_seat(match, index_in(request.form.get("seat"), len(match.seats)))
    if not wants_fragment():
        return redirect(url_for("live.share", match_id=match.id))
    return render_template("_seats_panel.html", **_panel_context(match))


def _what_this_phone_is_called() -> str:
    """The name this phone was given in its group ("Anna's phone"), else its browser and system."""
    member = current_member()
    return member.label if member is not None and member.label else phone_label()


def _panel_context(match) -> dict:
    """The match's context with its seat link and the link's QR code."""
    link = seat_link(match)
    return match_context(match, seat_url=link, seat_qr=qr_svg(link), may_free=is_scorekeeper(match) or is_host())
