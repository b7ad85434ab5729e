"""Players: the roster with each one's record, a player's page, renaming and merging entries."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, request, url_for
from flask_babel import gettext

from ..extensions import db
from ..games import REGISTRY
from ..models import Player
from ..queries import ratings as rating_reads
from ..queries.players import leaderboard, matches_of, profile, roster_entries
from ..queries.seasons import Period, season
from ..services.roster import RosterError, merge_players, merge_refusal, rename_player
from ..web import access, render
from ..web.display import one_full_stop
from ..web.groups import is_host
from ..web.i18n import date_field, sentence
from ..web.row_ids import row_of

bp = Blueprint("players", __name__, url_prefix="/players")


@bp.get("")
@access.member
def index():
    """Everyone in the roster with their record, of all games or of the game picked."""
    game = request.args.get("game", "")
    game = game if game in REGISTRY else ""
    return render("players.html", rows=leaderboard(game or None), game=game, games=REGISTRY)


@bp.get("/ratings/<game>")
@access.member
def ratings_board(game: str):
    """A game's leaderboard by rating: place, player, rating, matches, wins and trend."""
    if game not in REGISTRY:
        abort(404)
    board = rating_reads.rated(game)
    places = rating_reads.places(board)
    return render("ratings.html", board=board, places=places, scale=rating_reads.SCALE, game=game, games=REGISTRY)


@bp.get("/seasons/<game>")
@access.member
def seasons(game: str):
    """A game's season: each player's matches finished in the period of the link, their wins, the game's
    figure and their rating's change; a date that is not one, or a "to" before the "from", is named beside
    its field (400) and no table is drawn.

    Days typed as the page's language writes them ("01/02/2025") are sent on to the address with ISO days,
    which every language reads the same: the address kept, and shared, is that one.
    """
    if game not in REGISTRY:
        abort(404)
    field = date_field()
    period = Period.from_args(request.args, field.form)
    if period.written_otherwise(request.args):
        return redirect(url_for("players.seasons", game=game, **period.args()))
    return render(
        "seasons.html",
        status=400 if period.errors else 200,
        rows=[] if period.errors else season(game, period),
        period=period,
        date_field=field,
        game=game,
        games=REGISTRY,
    )


def _player_page(player: Player, status: int = 200, errors: dict[str, str] | None = None, form=None):
    """A player's page, built in one place for the page and for a refused form."""
    return render(
        "player.html",
        status=status,
        player=player,
        profile=profile(player),
        ratings=rating_reads.rating_lines(player.id),
        roster=roster_entries(),
        games=REGISTRY,
        errors=errors or {},
        form=form or {},
        host=is_host(),
    )


@bp.get("/<player:player_id>")
@access.member
def show(player_id: int):
    """A player's records per game, head to head and recent form."""
    return _player_page(db.get_or_404(Player, player_id))


@bp.post("/<player:player_id>/rename")
@access.host
def rename(player_id: int):
    """Rename a roster entry (host rights); a bad or taken name is refused next to the field."""
    player = db.get_or_404(Player, player_id)
    try:
        rename_player(player, request.form.get("name", ""))
    except RosterError as error:
        db.session.refresh(player)
        return _player_page(player, 422, {error.field: sentence(error.message)}, request.form)
    flash(one_full_stop(gettext("Renamed to %(name)s.", name=player.name)))
    return redirect(url_for("players.show", player_id=player.id))


def _row_id(text: str) -> int:
    """A posted player's address (as the merge form names a roster entry); ValueError (read as no choice) otherwise."""
    value = row_of("player", text)
    if not value:
        raise ValueError(text)
    return value


@bp.post("/<player:player_id>/merge")
@access.host
def merge(player_id: int):
    """Merge another roster entry of the same person into this one (host rights), once confirmed.

    The form's first tap answers with a page that names both entries and what the merge does,
    whose button sends the same choice again with `confirmed`: a merge cannot be taken back.
    """
    player = db.get_or_404(Player, player_id)
    other_id = request.form.get("other", type=_row_id)
    other = db.session.get(Player, other_id) if other_id else None
    named = bool(request.form.get("other"))
    if request.form.get("confirmed") != "yes":
        if (refusal := merge_refusal(player, other, named)) is not None:
            return _player_page(player, 422, {refusal.field: sentence(refusal.message)}, request.form)
        return render("player_merge.html", player=player, other=other, moved=matches_of(other.id))
    # Read before the merge: the other entry is gone afterwards.
    other_name = other.name if other else ""
    try:
        merge_players(player, other_id, named)
    except RosterError as error:
        return _player_page(player, 422, {error.field: sentence(error.message)}, request.form)
    flash(gettext("Merged %(other)s into %(name)s.", other=other_name, name=player.name))
    return redirect(url_for("players.show", player_id=player.id))
