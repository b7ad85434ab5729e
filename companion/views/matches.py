"""Match pages: set up a match, show it, save its rounds, export it."""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, redirect, request, url_for
from htmx_flask import make_response
from sqlalchemy import select

from .. import matches as service
from ..exchange import match_document
from ..extensions import db
from ..games import REGISTRY, get_game
from ..games.base import RuleError
from ..models import Match, Player
from ..setup_form import Draft
from ..web import render, wants_fragment

bp = Blueprint("matches", __name__, url_prefix="/matches")

PENCIL_COOKIE = "pencil_{}"


def _roster() -> list[Player]:
    """Everyone in the roster, by name, to pick from when seating a match."""
    return list(db.session.scalars(select(Player).order_by(Player.key)))


def _setup_page(draft: Draft, status: int = 200):
    """The new-match page (or its form alone, for a tap on it)."""
    return render(
        "new_match.html",
        fragment="_new_match_form.html",
        status=status,
        draft=draft,
        games=REGISTRY,
        game=REGISTRY[draft.game],
        roster=_roster(),
    )


@bp.get("/new")
def new():
    """The empty new-match form, optionally with a game and players preselected."""
    draft = Draft.from_form(request.args)
    return _setup_page(draft)


@bp.post("/new")
def setup():
    """A tap on the new-match form, or Start."""
    draft = Draft.from_form(request.form)
    action = request.form.get("action", "")
    if action != "start":
        draft.apply(action)
        return _setup_page(draft, 422 if draft.errors else 200)
    try:
        match, token = service.create_match(draft.game, draft.seats, draft.settings())
    except RuleError as error:
        draft.errors[error.field or "players"] = error.reason
        return _setup_page(draft, 422)
    target = url_for("matches.show", match_id=match.id)
    response = make_response(redirect(target)) if not request.htmx else make_response("", location=target)
    response.set_cookie(
        PENCIL_COOKIE.format(match.id), token, max_age=60 * 60 * 24 * 365, httponly=True, samesite="Lax"
    )
    return response


def _match_or_404(match_id: int) -> Match:
    """The match with this id, or a 404 page."""
    return db.get_or_404(Match, match_id)


def is_scorekeeper(match: Match) -> bool:
    """Whether this device holds the match's pencil."""
    return service.token_matches(match, request.cookies.get(PENCIL_COOKIE.format(match.id)))


def match_context(match: Match, form=None, **extra):
    """Everything the match page and its partials need, built in one place.

    `entry` is the state of the game's round-entry tool (the Pazaak set calculator keeps
    its table there), worked out by the game from the form the page sent back.
    """
    game = get_game(match.game)
    standings = service.standings_of(match)
    step = getattr(game, "entry_step", None)
    extra.setdefault("errors", {})
    entry = step(form or {}, match.player_names, match.settings, [r.data for r in match.rounds]) if step else {}
    return dict(
        match=match,
        game=game,
        standings=standings,
        scorekeeper=is_scorekeeper(match),
        form=form or {},
        entry=entry,
        **extra,
    )


@bp.get("/<int:match_id>")
def show(match_id: int):
    """The match page: seats, standings, and round entry for the scorekeeper."""
    match = _match_or_404(match_id)
    return render("match.html", **match_context(match))


@bp.post("/<int:match_id>/rounds")
def save_round(match_id: int):
    """Save the next round from the game's entry form."""
    match = _match_or_404(match_id)
    if not is_scorekeeper(match):
        abort(403, "Only the scorekeeper's phone can change this match.")
    game = get_game(match.game)
    number = request.form.get("number", type=int)
    try:
        data = game.round_from_form(request.form, match.player_names, match.settings)
        saved = service.save_round(match, data, number)
    except RuleError as error:
        context = match_context(match, form=request.form, errors={error.field or "round": error.reason})
        return render("match.html", fragment="_round_entry.html", status=422, **context)
    except service.Conflict as conflict:
        context = match_context(match, form=request.form, errors={"round": str(conflict)})
        return render("match.html", fragment="_round_entry.html", status=409, **context)
    context = match_context(match, saved=saved)
    if not wants_fragment():
        return redirect(url_for("matches.show", match_id=match.id))
    return render("match.html", fragment="_round_saved.html", **context)


@bp.post("/<int:match_id>/entry")
def entry_step(match_id: int):
    """A tap on a server-side entry tool: the entry is drawn again, nothing is stored."""
    match = _match_or_404(match_id)
    if not is_scorekeeper(match):
        abort(403, "Only the scorekeeper's phone can change this match.")
    context = match_context(match, form=request.form)
    return render("match.html", fragment="_round_entry.html", **context)


@bp.get("/<int:match_id>.json")
def export(match_id: int):
    """The match as a match file."""
    match = _match_or_404(match_id)
    response = jsonify(match_document(match))
    response.headers["Content-Disposition"] = f"attachment; filename=match-{match.id}.json"
    return response
