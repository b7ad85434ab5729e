"""The hall screen: a club evening on a TV or a laptop by the door, for the host or whoever holds its hall link.

A blueprint of its own (under /evenings, beside the club's): the "views apart" contract keeps views/club.py from
importing it, and its three routes, their access (the hall link) and their refusal are this module's alone."""

from __future__ import annotations

from flask import Blueprint, abort, request, url_for

from ..extensions import db
from ..models.club import ClubEvening
from ..pages.hall import ROOMS, HallPage
from ..services import club as service
from ..web import access, hx, render
from ..web.access import HALL_KEY
from ..web.groups import CURRENT, hall_key_state, is_host
from ..web.live import tagged_answer

bp = Blueprint("hall", __name__, url_prefix="/evenings")


def _hall_page(evening_id: int) -> HallPage:
    """The hall screen's presenter for the host or a phone holding the evening's current hall link; a 404 for any
    other (a renewed link's screen among them: it says so)."""
    evening = db.get_or_404(ClubEvening, evening_id)
    by_link = hall_key_state(evening) == CURRENT
    if not (by_link or is_host()):
        abort(404)
    room = request.args.get("room", ROOMS[0])
    if room not in ROOMS:
        abort(400)
    return HallPage(evening, room=room, hall_key=request.args.get(HALL_KEY) if by_link else None)


@bp.get("/<evening:evening_id>/hall")
@access.host
@access.hall_link
def show(evening_id: int):
    """The hall screen: the turn's tables in colour and words, the standings paged by themselves, the clock, and
    for the first minutes of a turn everyone's table; it follows the evening by itself."""
    return render("club/hall.html", page=_hall_page(evening_id))


@bp.get("/<evening:evening_id>/hall/live")
@access.host
@access.hall_link
def live(evening_id: int):
    """The hall screen's polled part: unchanged (304) until the evening, a hand at a table, or the time the
    seating is shown first moves on."""
    page = _hall_page(evening_id)
    return tagged_answer(page.live_tag, lambda: render("club/hall.html", fragment="hall_live", page=page))


@bp.post("/<evening:evening_id>/hall/renew")
@access.host
def renew(evening_id: int):
    """A new hall link: the screens opened with the old one stop at their next poll; the arbiter's page again."""
    evening = db.get_or_404(ClubEvening, evening_id)
    service.renew_hall_link(evening)
    return hx.go(url_for("club.show", evening_id=evening.id))
