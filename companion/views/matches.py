"""Match pages: set up a match, show it, save its rounds, export it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Blueprint, abort, flash, get_flashed_messages, jsonify, redirect, request, url_for
from flask_babel import format_time, gettext
from werkzeug.datastructures import MultiDict

from ..games import REGISTRY, get_game
from ..games.forms import whole_number
from ..games.refusals import ChangedMeanwhile, RuleError
from ..models import PLAYING, Match, utcnow
from ..pages.match import MatchPage, entry_form, match_or_404, may_play_again
from ..queries import matches as queries
from ..queries.changes import sheet_changes
from ..queries.exchange import match_document
from ..queries.players import roster_entries
from ..queries.ratings import table_chances
from ..services import matches as service
from ..services.club_time_up import refuse_once_counted
from ..web import access, hx, render, wants_fragment
from ..web.cards import asked_theme, card_answer, card_etag, card_filename, card_png
from ..web.groups import give_phone_credential, is_host
from ..web.i18n import error_text
from ..web.live import ROUNDS_CHANGED, drawn_version
from ..web.pencil import is_scorekeeper, set_pencil_cookie
from ..web.posted import posted_key
from ..web.setup_form import Draft

bp = Blueprint("matches", __name__, url_prefix="/matches")

# The flash category that carries the number of a round just corrected to the match page.
CORRECTED = "corrected"
# The id of a finished match's replay, which its steps swap (HX-Target).
REPLAY = "replay"


def _setup_page(draft: Draft, status: int = 200, focus_name: bool = False):
    """The new-match page (or its form alone, for a tap on it); `focus_name` after Add."""
    roster = roster_entries()
    return render(
        "new_match.html",
        fragment="form",
        status=status,
        focus_name=focus_name,
        draft=draft,
        games=REGISTRY,
        game=REGISTRY[draft.game],
        setup=draft.setup_view(),
        roster=roster,
        # The chances to win of the table being set up, from the game's ratings as the writes keep them.
        chances=table_chances(draft.game, draft.sides(), roster),
    )


@bp.get("/new")
@access.member
def new():
    """The empty new-match form, optionally with a game and players preselected."""
    draft = Draft.from_form(request.args)
    return _setup_page(draft, 400 if draft.errors else 200)


@bp.post("/new")
@access.member
def setup():
    """A tap on the new-match form, or Start."""
    draft = Draft.from_form(request.form)
    action = request.form.get("action", "")
    if draft.errors:
        return _setup_page(draft, 422)
    if action != "start":
        draft.apply(action)
        return _setup_page(draft, 422 if draft.errors else 200, focus_name=action == "new")
    try:
        match, token = service.create_match(
            draft.game, draft.seats, draft.settings(gettext), draft.save_when_rows_in, give_phone_credential()
        )
    except RuleError as error:
        draft.errors[error.field or "players"] = error_text(error)
        return _setup_page(draft, 422)
    return set_pencil_cookie(hx.go(url_for("matches.show", match_id=match.id)), match, token)


def _error(match: Match, error: Exception) -> str:
    """A refusal as the match page shows it: translated, naming the player or pair at fault."""
    game = get_game(match.game)
    return error_text(error, [*match.player_names, *game.sides(match.player_names, match.settings)])


def _round_to_show(match: Match) -> int | None:
    """The round a match no longer played is replayed to, `?round=N` (None: not asked, its last); a match being
    played has no replay and reads none. A round the match does not have is a 400 that says which it has."""
    text = request.args.get("round")
    if text is None or match.status == PLAYING:
        return None
    count = len(match.rounds)
    number = whole_number(text)
    if number is None or not 1 <= number <= count:
        if not count:
            abort(400, gettext("This match has no rounds to replay."))
        abort(400, gettext("This match has no round “%(value)s” to replay: its rounds go from 1 to %(n)s.",
                           value=text[:20], n=count))  # fmt: skip
    return number


@bp.get("/<match:match_id>")
@access.viewer_link
def show(match_id: int):
    """The match page: seats, standings, and round entry for the scorekeeper; a match no longer played
    replayed to `?round=N`, which a step of its replay gets alone, the address pushed to the browser's."""
    match = match_or_404(match_id)
    # A step of a replay (its buttons, its slider) swaps the replay alone.
    stepping = wants_fragment() and request.htmx.target == REPLAY
    if stepping and match.status == PLAYING:
        # Played again since the page showed its replay (the last round undone): the page as it is now.
        return hx.go(url_for("matches.show", match_id=match.id))
    shown = _round_to_show(match)
    page = MatchPage(match, shown=shown)
    flashed = get_flashed_messages(category_filter=[CORRECTED])
    corrected = next((r for r in match.rounds if flashed and str(r.number) == flashed[-1]), None)
    if corrected is not None:
        page.corrected = service.Saved(corrected, page.standings)
    response = render("match.html", fragment="_replay.html" if stepping else None, stepping=stepping, page=page)
    response.vary.add(hx.TARGET)
    if stepping:
        hx.push_url(response, url_for("matches.show", match_id=match.id, round=page.step.shown))
    return response


def _editable(match_id: int) -> Match:
    """The match, if this device holds its pencil; a clear 403 page otherwise."""
    match = match_or_404(match_id)
    if not is_scorekeeper(match):
        if wants_fragment():
            # The page still shows the entry (or the tools) from when this phone held the pencil:
            # where the entry was, it now says who holds the pencil.
            page = MatchPage(match, pencil_elsewhere=True)
            abort(render("match.html", fragment="pencil_elsewhere", status=403, page=page))
        abort(403, gettext("Only the scorekeeper's phone can change this match. Ask them to give you the pencil."))
    return match


@bp.post("/<match:match_id>/rounds")
@access.pencil
def save_round(match_id: int):
    """Save the next round from the game's entry form."""
    match = _editable(match_id)
    game = get_game(match.game)
    number = request.form.get("number", type=_round_number)
    key = posted_key("round_key", gettext("This round's key cannot be read: reload the page and save again."))
    played = _played_at()
    # A kept round stored already (its answer lost, sent again) is answered as stored by the service, whatever came.
    kept = played is not None and not any(stored.client_key == key for stored in match.rounds)
    form = _with_rows_sent(match, request.form, kept=kept)
    try:
        data = game.entry.round_from_form(entry_form(match, form), match.player_names, match.settings)
        saved = service.save_round(match, data, number, key, played)
    except RuleError as error:
        page = MatchPage(match, form=request.form, errors={error.field or "round": _error(match, error)})
        return render("match.html", fragment="_round_entry.html", status=422, page=page)
    except ChangedMeanwhile as conflict:
        page = MatchPage(match, form=request.form, errors={"round": error_text(conflict)})
        return render("match.html", fragment="_round_entry.html", status=409, page=page)
    # The page that sent round `number` shows every earlier round: unless the save changed
    # more than the table (the first round, the end, an emptied redo), only the new row travels.
    appended = not (saved.repeated or saved.cleared_redo or match.is_over or saved.round.number == 1)
    return _after_change(match, saved=saved, appended=appended)


def _with_rows_sent(match: Match, form, kept: bool = False):
    """The scorekeeper's Save with the rows the seated phones sent; a 409 with the entry, those rows as sent, where
    the Save holds a row its phone sent again since the page showed it, or where it was `kept` on the phone without
    the network and any row came since (see _rows_sent_again)."""
    sent = queries.sent_rows(match)
    if not sent:
        return form
    overtaken = _rows_sent_again(match, form, sent, kept)
    if overtaken:
        game = get_game(match.game)
        if kept:  # told on the phone that kept it, beside the round it offers to enter again
            errors = {"round": gettext("Not saved: %(names)s sent a row after this round was kept on this phone. Enter "
                                       "the round again with the rows as sent.", names=", ".join(overtaken))}
        else:
            again = {name: gettext("%(name)s sent this row again meanwhile: here it is as sent. Check it and save "
                                   "again.", name=name) for name in overtaken}  # fmt: skip
            errors = {"round": gettext("Not saved: a row was sent again from its phone meanwhile."), **again}
        replacing = [game.sides(match.player_names, match.settings).index(name) for name in overtaken]
        page = MatchPage(match, form=form, errors=errors, replacing=replacing)
        abort(render("match.html", fragment="_round_entry.html", status=409, page=page))
    return get_game(match.game).entry.with_sent_rows(MultiDict(form), sent)


def _rows_sent_again(match: Match, form, sent, kept: bool) -> list[str]:
    """The players whose row the scorekeeper's Save holds, typed or changed here, while their phone sent it
    again since (a newer revision than the one the page showed): saving would overwrite it unseen. For a round
    `kept` on the phone without the network, every row sent since its page showed it, held or not: filled in
    unseen, it may be the next round's, sent from a phone still offered this one (the server had no round yet)."""
    game = get_game(match.game)
    sides = game.sides(match.player_names, match.settings)
    return [
        sides[position]
        for position, row in sent.items()
        if (kept or game.entry.has_row(form, position))
        and (whole_number(form.get(f"sent-rev-{position}")) or 0) < row.revision
    ]


@bp.post("/<match:match_id>/entry")
@access.pencil
def entry_step(match_id: int):
    """A tap on a server-side entry tool: the entry drawn again, and its state kept if the tool keeps one."""
    match = _editable(match_id)
    page = MatchPage(match, form=request.form)
    keep = page.entry.get("keep")
    kept = False
    if keep is not None:
        try:
            number = request.form.get("number", type=int) or len(match.rounds) + 1
            service.keep_round_in_progress(match, number, keep["state"], keep["based_on"])
            kept = True
        except ChangedMeanwhile:
            # Another page moved the round on: the entry drawn again shows it as it stands.
            page = MatchPage(match, form=request.form)
    response = render("match.html", fragment="_round_entry.html", page=page)
    if kept:
        # Keeping the tool's state made a new version, which the page's live poll need not fetch; a tap's
        # answer that comes back after the next one's is not drawn over it (app.js).
        drawn_version(response, match, entry=True, live=True)
    return response


@bp.get("/<match:match_id>.json")
@access.member
def export(match_id: int):
    """The match as a match file."""
    match = match_or_404(match_id)
    response = jsonify(match_document(match))
    response.headers["Content-Disposition"] = f"attachment; filename=match-{match.public_id}.json"
    return response


def _after_change(match: Match, saved=None, undone=None, replay=None, appended=False, form=None, reopened=False):
    """The answer to a save, undo or redo: the entry again (filled with `form`), standings and banner out of band."""
    if not wants_fragment():
        return redirect(url_for("matches.show", match_id=match.id))
    standings = None
    if saved is not None:
        standings, replay = saved.standings, saved.replay
    page = MatchPage(
        match, form=form, standings=standings, replay=replay, saved=saved, undone=undone, appended=appended,
        reopened=reopened,
    )  # fmt: skip
    response = hx.trigger_client_event(render("match.html", fragment="round_saved", page=page), ROUNDS_CHANGED)
    return drawn_version(response, match, live=True)


@bp.get("/<match:match_id>/chart")
@access.viewer_link
def chart(match_id: int):
    """The totals chart with its legend and the duration, as the rounds stand now."""
    match = match_or_404(match_id)
    return render("match.html", fragment="chart", page=MatchPage(match))


@bp.get("/<match:match_id>/card.png")
@access.viewer_link
def card(match_id: int):
    """A finished match's result card, a PNG in the page's language and the theme `?theme=` names (light when
    it names none), for the phone's share sheet or to download."""
    theme = asked_theme()
    match = match_or_404(match_id)
    if not match.is_over:
        abort(404, gettext("Only a finished match has a result card: this match is not finished."))
    words = MatchPage(match).result_card
    return card_answer(card_etag(match, theme), card_filename(match), lambda: card_png(match, words, theme))


def _played_at() -> datetime | None:
    """When a round kept on the phone was played, or None. Sent with the time it was sent, both by the phone's clock
    (milliseconds since 1970), it is that long before now by the server's, however wrong the phone's clock is: at a
    club table, the turn's clock rules a hand's lateness by it. Alone (a phone's page of an older version), it is
    the phone's time."""
    played, sent = (_millis(request.form.get(name, "")) for name in ("played_at", "sent_at"))
    if played is None:
        return None
    if sent is not None and played <= sent:
        return utcnow() - timedelta(milliseconds=sent - played)
    try:
        return datetime.fromtimestamp(played / 1000, UTC).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return None


def _millis(text: str) -> int | None:
    """A phone's time in milliseconds since 1970, or None for what is not one."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 15 else None


def _rounds_shown() -> int | None:
    """How many rounds the page showed when Undo or Redo was tapped (none from an older page)."""
    return request.form.get("shown", type=_round_number)


def _round_number(text: str) -> int:
    """A posted round number; ValueError (read as none) when it is not a small whole number."""
    number = whole_number(text)
    if number is None:
        raise ValueError(text)
    return number


@bp.post("/<match:match_id>/undo")
@access.pencil
def undo(match_id: int):
    """Take back the last round: the one the button was drawn for, so a double tap takes back one."""
    match = _editable(match_id)
    # The last round of a finished match taken back: the page showed its replay, and shows the match played again.
    reopened = match.status != PLAYING
    undone, replay = service.undo_last_round(match, _rounds_shown())
    # Like an eraser on paper: the round's values go back into the entry, to correct one and save again.
    form = get_game(match.game).entry.form_after_undo(undone.data, match.player_names, match.settings)
    return _after_change(match, undone=undone, replay=replay, form=form, reopened=reopened)


@bp.post("/<match:match_id>/redo")
@access.pencil
def redo(match_id: int):
    """Put back the round undone last."""
    match = _editable(match_id)
    try:
        saved = service.redo_round(match, _rounds_shown())
    except RuleError as error:  # the round put back no longer fits the match as it stands
        raise ChangedMeanwhile(error.message) from error
    return _after_change(match, saved=saved)


@bp.route("/<match:match_id>/rounds/<int:number>", methods=["GET", "POST"])
@access.pencil
def correct(match_id: int, number: int):
    """Correct a past round: the form prefilled with it, then the re-scored match."""
    match = _editable(match_id)
    stored = next((r for r in match.rounds if r.number == number), None)
    if stored is None:
        abort(404, gettext("This match has no round %(n)s.", n=number))
    game = get_game(match.game)
    if request.method == "GET":
        refuse_once_counted(match)  # no form to fill in that the save would then refuse
        form = game.entry.form_from_round(stored.data, match.player_names, match.settings)
        return render("correct.html", page=MatchPage(match, form=form, editing=stored))
    revision = request.form.get("revision", type=_round_number)
    try:
        data = game.entry.round_from_form(request.form, match.player_names, match.settings)
        ends_at = request.form.get("ends_at", type=int)
        service.correct_round(match, number, data, -1 if revision is None else revision, ends_at=ends_at,
                              saved_at=request.form.get("saved_at"))  # fmt: skip
    except (RuleError, service.EndsEarlier, ChangedMeanwhile) as refused:
        return _correction_refused(match, stored, refused)
    # The match page then says what was saved, like a round's read-back (a late penalty is a correction).
    flash(str(number), CORRECTED)
    return hx.go(url_for("matches.show", match_id=match.id))


def _correction_refused(match: Match, stored, refused: RuleError | service.EndsEarlier | ChangedMeanwhile):
    """The correction's page again, for a correction not stored: why, or (`EndsEarlier`) what it means."""
    if isinstance(refused, RuleError):
        errors = {refused.field or "round": _error(match, refused)}
        return render("correct.html", status=422, page=MatchPage(match, request.form, editing=stored, errors=errors))
    if isinstance(refused, service.EndsEarlier):
        # Nothing is stored yet: the page says what the change means and saves it with one more tap.
        return render("correct.html", page=MatchPage(match, form=request.form, editing=stored, ends_earlier=refused))
    if refused.current is None:  # the match itself refused the write (the host ended it)
        raise refused
    current = get_game(match.game).entry.form_from_round(refused.current.data, match.player_names, match.settings)
    page = MatchPage(match, form=current, editing=refused.current, errors={"round": error_text(refused)})
    return render("correct.html", status=409, page=page)


@bp.get("/<match:match_id>/changes")
@access.viewer_link
def changes(match_id: int):
    """The change log: corrections, undos and redos with each side's values before and after, in the page's clock."""
    match = match_or_404(match_id)
    return render("changes.html", page=MatchPage(match, log=sheet_changes(match), format_time=format_time))


@bp.post("/<match:match_id>/again")
@access.pencil
@access.host
def again(match_id: int):
    """Start a new match with the same players, seats and settings: the match's pencil or the host's rights."""
    match = match_or_404(match_id)
    if not may_play_again(match):
        abort(403, gettext("Only the phone that started this match, its scorekeeper's or the host can start it again."))
    new_match, token = service.play_again(match, give_phone_credential())
    going = hx.go(url_for("matches.show", match_id=new_match.id))
    return set_pencil_cookie(going, new_match, token) if token else going


@bp.route("/<match:match_id>/delete", methods=["GET", "POST"])
@access.pencil
@access.host
def delete(match_id: int):
    """Delete a match, after a confirmation page: its pencil may, and the host may delete any match."""
    match = match_or_404(match_id)
    if not (is_scorekeeper(match) or is_host()):
        abort(
            403,
            gettext(
                "Only the scorekeeper's phone or the host can delete this match. Ask the host, "
                "who can scan the host link shown where the app runs."
            ),
        )
    if request.method == "GET":
        return render("delete.html", page=MatchPage(match))
    service.delete_match(match)
    return hx.go(url_for("home.index"))


@bp.route("/<match:match_id>/end", methods=["GET", "POST"])
@access.host
def end(match_id: int):
    """End a match whose scorekeeper's phone is gone (host rights), after a confirmation page."""
    match = match_or_404(match_id)
    if request.method == "GET":
        return render("end.html", page=MatchPage(match))
    service.end_match(match)
    return hx.go(url_for("matches.show", match_id=match.id))
