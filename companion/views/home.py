"""Home page: matches in progress, a new match, the way to the history."""

from flask import Blueprint, make_response, redirect, request, url_for
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..games import REGISTRY
from ..models import Match, Seat
from ..web import render

bp = Blueprint("home", __name__)


@bp.get("/")
def index():
    """The home page."""
    playing = db.session.scalars(
        select(Match)
        .where(Match.status == "playing")
        .options(selectinload(Match.seats).joinedload(Seat.player))
        .order_by(Match.started_at.desc())
        .limit(20)
    ).all()
    return render("home.html", playing=playing, games=REGISTRY)


@bp.post("/language")
def language():
    """Remember the language chosen with the switch."""
    lang = request.form.get("lang", "en")
    response = make_response(redirect(request.referrer or url_for("home.index")))
    if lang in ("en", "it"):
        response.set_cookie("lang", lang, max_age=60 * 60 * 24 * 365, samesite="Lax")
    return response
