"""The pencil handed from phone to phone: its one-off code offered, taken with that code, taken back or over."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, request, url_for
from flask_babel import gettext

from ..games.refusals import ChangedMeanwhile
from ..pages.match import MatchPage, match_or_404
from ..queries import matches as queries
from ..services import pencil
from ..web import access, render
from ..web.groups import give_phone_credential, is_host
from ..web.i18n import error_text
from ..web.limits import count_wrong_code, guessed, refused_answer
from ..web.links import public_url, qr_svg
from ..web.pencil import is_scorekeeper, pencil_token, set_pencil_cookie

bp = Blueprint("pencil", __name__, url_prefix="/matches")


@bp.post("/<match:match_id>/pencil/offer")
@access.pencil
def offer(match_id: int):
    """Show a single-use QR code with which another phone takes the pencil."""
    match = match_or_404(match_id)
    if not is_scorekeeper(match):
        abort(403, gettext("Only the scorekeeper's phone can give the pencil."))
    code = pencil.offer_pencil(match)
    link = public_url("pencil.take", match_id=match.id, code=code)
    page = MatchPage(match, pencil_url=link, pencil_qr=qr_svg(link))
    return render("share.html", fragment="pencil_offer", page=page)


@bp.route("/<match:match_id>/pencil", methods=["GET", "POST"])
@access.member
def take(match_id: int):
    """The page a scanned pencil code opens, and its Take the pencil button.

    The right code is taken whatever the wrong ones sent before it. A wrong one is counted against
    this phone and its address (past either limit the answer is a 429), and one that this server
    never made is a guess at the code on offer, which is withdrawn after a few (`GUESSES_PER_CODE`).
    """
    match = match_or_404(match_id)
    code = request.values.get("code", "")
    if request.method == "GET":
        return render("pencil.html", page=MatchPage(match, code=code))
    offered = match.handover_hash
    try:
        token = pencil.take_pencil(match, code, give_phone_credential())
    except ChangedMeanwhile as conflict:
        if offered and not pencil.issued_pencil_code(code) and guessed("pencil", offered):
            pencil.withdraw_pencil_code(match, offered)
        refused = count_wrong_code()
        message = refused.text if refused else error_text(conflict)
        page = MatchPage(match, code="", errors={"pencil": message})
        return refused_answer(render("pencil.html", status=409, page=page), refused)
    return set_pencil_cookie(redirect(url_for("matches.show", match_id=match.id)), match, token)


@bp.post("/<match:match_id>/pencil/back")
@access.pencil
@access.host
def back(match_id: int):
    """The phone that started the match takes the pencil back; the host's phone may take any match's pencil."""
    match = match_or_404(match_id)
    owner_token = pencil_token(match)
    if is_host() and not queries.is_owner(match, owner_token):
        token = pencil.take_over_pencil(match, give_phone_credential())
        return set_pencil_cookie(redirect(url_for("matches.show", match_id=match.id)), match, token)
    pencil.reclaim_pencil(match, owner_token)
    return redirect(url_for("matches.show", match_id=match.id))
