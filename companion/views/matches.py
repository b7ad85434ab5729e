"""Match pages: set up a match, show it, save its rounds, export it."""

from __future__ import annotations

import json
import re
import zlib
from datetime import UTC, datetime

from flask import Blueprint, abort, flash, get_flashed_messages, jsonify, make_response, redirect, request, url_for
from flask_babel import format_time, gettext
from werkzeug.datastructures import MultiDict

from ..games import REGISTRY, get_game
from ..games.base import ChangedMeanwhile, RuleError
from ..games.forms import BOARD_FIELD, KEPT_FIELD, whole_number
from ..models import PLAYING, Match
from ..queries import matches as queries
from ..queries.changes import sheet_changes
from ..queries.exchange import match_document
from ..queries.players import roster_entries
from ..queries.ratings import match_chances, table_chances
from ..services import matches as service
from ..services.ratings import bring_up_to_date
from ..web import access, hx, render, wants_fragment
from ..web.cards import THEMES, card_etag, card_filename, card_png
from ..web.display import show_sides_in_this_language
from ..web.groups import phone_credential
from ..web.i18n import error_text
from ..web.live import live_etag, shows_version
from ..web.pencil import is_owner, is_scorekeeper, pencil_token, set_pencil_cookie
from ..web.setup_form import Draft
from .host import is_host

bp = Blueprint("matches", __name__, url_prefix="/matches")

# The key a phone makes for each round save (static/js/offline.js): a UUID, lower case.
ROUND_KEY = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# The event a response names when the rounds changed: the chart, its legend and the duration
# listen for it and fetch themselves again (drawing the chart in the save would double its time).
ROUNDS_CHANGED = "rounds-changed"
# The header of a tap's answer that draws the entry alone: the version it drew, which the page compares with the
# entry it shows (static/js/app.js), as answers to quick taps come back in any order.
ENTRY_VERSION = "X-Entry-Version"
# The flash category that carries the number of a round just corrected to the match page.
CORRECTED = "corrected"
# The id of a finished match's replay, which its steps swap (HX-Target).
REPLAY = "replay"


def _setup_page(draft: Draft, status: int = 200, focus_name: bool = False):
    """The new-match page (or its form alone, for a tap on it); `focus_name` after Add."""
    roster = roster_entries()
    return render(
        "new_match.html",
        fragment="_new_match_form.html",
        status=status,
        focus_name=focus_name,
        draft=draft,
        games=REGISTRY,
        game=REGISTRY[draft.game],
        setup=draft.setup_view(),
        roster=roster,
        chances=_table_chances(draft, roster),
    )


@bp.get("/new")
@access.member
def new():
    """The empty new-match form, optionally with a game and players preselected."""
    draft = Draft.from_form(request.args)
    return _setup_page(draft)


@bp.post("/new")
@access.member
def setup():
    """A tap on the new-match form, or Start."""
    draft = Draft.from_form(request.form)
    action = request.form.get("action", "")
    if action != "start":
        draft.apply(action)
        return _setup_page(draft, 422 if draft.errors else 200, focus_name=action == "new")
    try:
        match, token = service.create_match(draft.game, draft.seats, draft.settings(gettext), draft.save_when_rows_in)
    except RuleError as error:
        draft.errors[error.field or "players"] = error_text(error)
        return _setup_page(draft, 422)
    return set_pencil_cookie(_go(url_for("matches.show", match_id=match.id)), match, token)


def _error(match: Match, error: Exception) -> str:
    """A refusal as the match page shows it: translated, naming the player or pair at fault."""
    game = get_game(match.game)
    return error_text(error, [*match.player_names, *game.sides(match.player_names, match.settings)])


def match_or_404(match_id: int) -> Match:
    """The match with this id, or a 404 page."""
    match = queries.find_match(match_id)
    if match is None:
        abort(404)
    return match


def may_play_again(match: Match) -> bool:
    """Whether this phone may start the match again, with the same players: its pencil, the host, or the phone
    that started it (a host who ends a match takes its pencil away, not its scorekeeper's place at the table)."""
    return is_scorekeeper(match) or is_host() or is_owner(match)


def entry_form(match: Match, form=None, my_seat=None) -> MultiDict:
    """The fields a game's entry tool works from: what the page sent, and under `kept` the state
    the server keeps for the next round (JSON, null when none), never what a page sent as it; where
    seated phones are boards, under BOARD_FIELD what this phone (seated at `my_seat`) may see of their hands."""
    fields = MultiDict(form or {})
    fields.poplist(KEPT_FIELD)
    fields.poplist(BOARD_FIELD)
    fields[KEPT_FIELD] = json.dumps(_kept_state(match), ensure_ascii=False)
    if get_game(match.game).entry.seat_boards:
        fields[BOARD_FIELD] = json.dumps(queries.seat_board(match, my_seat), ensure_ascii=False)
    return fields


def _kept_state(match: Match):
    """The state the entry tool keeps for the round being played (None when none)."""
    kept = match.round_in_progress
    return kept.get("state") if kept and kept.get("number") == len(match.rounds) + 1 else None


def entry_shows(
    status: str,
    scorekeeper: bool = False,
    elsewhere: bool = False,
    may_reclaim: bool = False,
    seat_round: int | str | None = None,
    pencil_round: int | None = None,
    board: str | None = None,
) -> str:
    """What a phone's entry shows, in a word its live poll sends back: when the pencil, the phone's seat, the
    round a seated phone enters its row of (or the scorekeeper's, where the seats' rows save rounds too), the
    boards' taps (`board`, where seated phones play their own turns), or the match's status moves, the answer
    to the poll draws the entry again (`live.live`)."""
    if status != PLAYING:
        return status
    if scorekeeper:
        word = "pencil" if pencil_round is None else f"pencil-{pencil_round}"
    elif elsewhere:
        word = "reclaim" if may_reclaim else "elsewhere"
    else:
        word = "viewer" if seat_round is None else f"seat-{seat_round}"
    return word if board is None else f"{word}-{board}"


def match_context(match: Match, form=None, standings=None, replay=None, shown=None, **extra):
    """Everything the match page and its partials need, built in one place.

    One replay of the rounds serves it all: the standings, `entry` (the state of the game's
    round-entry tool, worked out from the form the page sent back) and `game_view` (what the
    game's partials draw beyond the standings), both from the game's entry adapter. A write
    that has just replayed the rounds (a save, undo or redo) hands its replay in. A match no
    longer played has `step`, its replay after round `shown` (the last when None).
    """
    game = get_game(match.game)
    show_sides_in_this_language(match)
    if replay is None:
        replay = game.replay(match.player_names, match.settings, [r.data for r in match.rounds])
    if standings is None:
        standings = game.standings_of(replay)
    game_view = game.entry.match_view(replay)
    extra.setdefault("errors", {})
    scorekeeper = is_scorekeeper(match)
    if not scorekeeper:
        # A phone that held the pencil once keeps its token: it is told where the pencil went.
        token = pencil_token(match)
        extra.setdefault("pencil_elsewhere", token is not None)
        extra.setdefault("may_reclaim", token is not None and queries.is_owner(match, token))
    # The seat this phone took, whose own part its pages show (None where a page is the same for every phone).
    my_seat = extra.pop("my_seat") if "my_seat" in extra else queries.seat_of(match, phone_credential())
    # The rows the seated phones sent of the round being played: the scorekeeper's entry gathers them (where it
    # holds nothing of that row, or `replacing` names it), a seated phone's shows its own as it sent it. The
    # correction of a round already saved (`editing`) is no place for them.
    sent = queries.sent_rows(match) if scorekeeper or my_seat is not None else {}
    fields = entry_form(match, form, my_seat)
    my_row = None if my_seat is None else queries.row_of(match, my_seat)
    if scorekeeper and sent and "editing" not in extra:
        fields = form = game.entry.with_sent_rows(fields, sent, extra.pop("replacing", ()))
    elif my_row is not None and form is None and my_row in sent:
        fields = form = game.entry.with_sent_rows(fields, {my_row: sent[my_row]})
    extra.setdefault(
        "entry_shows",
        entry_shows(
            match.status,
            scorekeeper,
            extra.get("pencil_elsewhere", False),
            extra.get("may_reclaim", False),
            # A seated phone's entry is its row of the round being played: drawn again once that round is saved, or
            # once its partner's phone sent the pair's row (`partner_sent`).
            seat_round=None
            if my_seat is None
            else _seat_round(len(match.rounds) + 1, partner_sent(my_seat, my_row, sent)),
            # Where the last row sent saves the round, the scorekeeper's entry moves on to the next one with it.
            pencil_round=len(match.rounds) + 1 if match.save_when_rows_in else None,
            board=_board_taps(match, game, my_seat, scorekeeper),
        ),
    )
    return dict(
        match=match,
        game=game,
        standings=standings,
        scorekeeper=scorekeeper,
        my_seat=my_seat,
        my_row=my_row,
        partner_sent=partner_sent(my_seat, my_row, sent),
        host=is_host(),
        may_play_again=match.status != PLAYING and may_play_again(match),
        form=form or {},
        entry=game.entry.step(fields, replay),
        sent_rows=sent,
        rows_waiting=queries.rows_waiting(match, sent) if scorekeeper and game.entry.rows_from_seats else [],
        # What the scorekeeper's entry widget fills each row in with, as a poll brings it (its data-sent-rows).
        sent_fields={
            position: {
                "fields": game.entry.row_fields(row.data, position),
                "rev": row.revision,
                "by": row.label or gettext("a phone"),
            }
            for position, row in sent.items()
        }
        if scorekeeper
        else {},
        game_view=game_view,
        step=queries.replay_step(match, shown, standings, game_view),
        chances=_chances_as_the_table_sits_down(match),
        **extra,
    )


def partner_sent(my_seat, my_row, sent: dict):
    """The row another phone of this seat's side sent (a Burraco partner's), or None: this phone is told of it."""
    row = sent.get(my_row) if my_seat is not None and my_row is not None else None
    return row if row is not None and row.sender and row.sender != my_seat.name else None


def _seat_round(number: int, partners) -> int | str:
    """The round a seated phone enters, marked with the revision of the row its partner sent."""
    return number if partners is None else f"{number}-{partners.revision}"


def _board_taps(match: Match, game, my_seat, scorekeeper: bool) -> str | None:
    """Where seated phones play their own turns, a word for the taps made so far in the round being played (and
    the hands noted): a tap on one board draws the other board and the scorekeeper's calculator again."""
    if not game.entry.seat_boards or not (scorekeeper or my_seat is not None):
        return None
    if not any(seat.phone for seat in match.seats):
        return None
    seen = [_kept_state(match), [len(seat.hand or ()) for seat in match.seats]]
    return format(zlib.crc32(json.dumps(seen, sort_keys=True).encode()), "x")


def _table_chances(draft: Draft, roster):
    """The chances to win of the table being set up, from the game's ratings brought up to date."""
    bring_up_to_date([draft.game])
    return table_chances(draft.game, draft.sides(), roster)


def _chances_as_the_table_sits_down(match: Match):
    """The match's chances to win before its first round (None after it), from the ratings brought up to date."""
    if match.rounds or match.status != PLAYING:
        return None
    bring_up_to_date([match.game])
    return match_chances(match)


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


def _stepping() -> bool:
    """Whether this request is a step of a replay (its buttons, its slider), which swaps the replay alone."""
    return wants_fragment() and request.htmx.target == REPLAY


@bp.get("/<match:match_id>")
@access.viewer_link
def show(match_id: int):
    """The match page: seats, standings, and round entry for the scorekeeper; a match no longer played
    replayed to `?round=N`, which a step of its replay gets alone, the address pushed to the browser's."""
    match = match_or_404(match_id)
    stepping = _stepping()
    if stepping and match.status == PLAYING:
        # Played again since the page showed its replay (the last round undone): the page as it is now.
        return _go(url_for("matches.show", match_id=match.id))
    shown = _round_to_show(match)
    context = match_context(match, shown=shown)
    flashed = get_flashed_messages(category_filter=[CORRECTED])
    corrected = next((r for r in match.rounds if flashed and str(r.number) == flashed[-1]), None)
    if corrected is not None:
        context["corrected"] = service.Saved(corrected, context["standings"])
    response = render("match.html", fragment="_replay.html" if stepping else None, stepping=stepping, **context)
    response.vary.add(hx.TARGET)
    if stepping:
        hx.push_url(response, url_for("matches.show", match_id=match.id, round=context["step"].shown))
    return response


def _editable(match_id: int) -> Match:
    """The match, if this device holds its pencil; a clear 403 page otherwise."""
    match = match_or_404(match_id)
    if not is_scorekeeper(match):
        if wants_fragment():
            # The page still shows the entry (or the tools) from when this phone held the pencil:
            # where the entry was, it now says who holds the pencil.
            context = match_context(match, pencil_elsewhere=True)
            abort(render("match.html", fragment="_pencil_elsewhere.html", status=403, **context))
        abort(403, gettext("Only the scorekeeper's phone can change this match. Ask them to give you the pencil."))
    return match


def _go(target: str):
    """Send the browser to another page: HX-Location for htmx, a redirect otherwise."""
    return hx.location(target) if request.htmx else redirect(target)


@bp.post("/<match:match_id>/rounds")
@access.pencil
def save_round(match_id: int):
    """Save the next round from the game's entry form."""
    match = _editable(match_id)
    game = get_game(match.game)
    number = request.form.get("number", type=_round_number)
    key = request.form.get("round_key") or None
    if key is not None and not ROUND_KEY.fullmatch(key):
        abort(400, gettext("This round's key cannot be read: reload the page and save again."))
    form = request.form
    sent = queries.sent_rows(match)
    if sent:
        overtaken = _rows_sent_again(match, form, sent)
        if overtaken:
            again = {name: gettext("%(name)s sent this row again meanwhile: here it is as sent. Check it and save "
                                   "again.", name=name) for name in overtaken}  # fmt: skip
            errors = {"round": gettext("Not saved: a row was sent again from its phone meanwhile."), **again}
            replacing = [game.sides(match.player_names, match.settings).index(name) for name in overtaken]
            context = match_context(match, form=form, errors=errors, replacing=replacing)
            return render("match.html", fragment="_round_entry.html", status=409, **context)
        form = game.entry.with_sent_rows(MultiDict(form), sent)
    try:
        data = game.entry.round_from_form(entry_form(match, form), match.player_names, match.settings)
        saved = service.save_round(match, data, number, key, _played_at())
    except RuleError as error:
        context = match_context(match, form=request.form, errors={error.field or "round": _error(match, error)})
        return render("match.html", fragment="_round_entry.html", status=422, **context)
    except ChangedMeanwhile as conflict:
        context = match_context(match, form=request.form, errors={"round": error_text(conflict)})
        return render("match.html", fragment="_round_entry.html", status=409, **context)
    # The page that sent round `number` shows every earlier round: unless the save changed
    # more than the table (the first round, the end, an emptied redo), only the new row travels.
    appended = not (saved.repeated or saved.cleared_redo or match.is_over or saved.round.number == 1)
    return _after_change(match, saved=saved, appended=appended)


def _rows_sent_again(match: Match, form, sent) -> list[str]:
    """The players whose row the scorekeeper's Save holds, typed or changed here, while their phone sent it
    again since (a newer revision than the one the page showed): saving would overwrite it unseen."""
    game = get_game(match.game)
    sides = game.sides(match.player_names, match.settings)
    return [
        sides[position]
        for position, row in sent.items()
        if game.entry.has_row(form, position) and (whole_number(form.get(f"sent-rev-{position}")) or 0) < row.revision
    ]


@bp.post("/<match:match_id>/entry")
@access.pencil
def entry_step(match_id: int):
    """A tap on a server-side entry tool: the entry drawn again, and its state kept if the tool keeps one."""
    match = _editable(match_id)
    context = match_context(match, form=request.form)
    keep = context["entry"].get("keep")
    kept = False
    if keep is not None:
        try:
            number = request.form.get("number", type=int) or len(match.rounds) + 1
            service.keep_round_in_progress(match, number, keep["state"], keep["based_on"])
            kept = True
        except ChangedMeanwhile:
            # Another page moved the round on: the entry drawn again shows it as it stands.
            context = match_context(match, form=request.form)
    response = render("match.html", fragment="_round_entry.html", **context)
    if kept:
        # Keeping the tool's state made a new version, which the page's live poll need not fetch; a tap's
        # answer that comes back after the next one's is not drawn over it (app.js).
        response.headers["X-Live-ETag"] = response.headers[ENTRY_VERSION] = live_etag(match)
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
    context = match_context(
        match, form=form, standings=standings, replay=replay, saved=saved, undone=undone, appended=appended,
        reopened=reopened,
    )  # fmt: skip
    response = hx.trigger_client_event(render("match.html", fragment="_round_saved.html", **context), ROUNDS_CHANGED)
    # The version this answer shows, which the page's live poll then need not fetch again (app.js).
    response.headers["X-Live-ETag"] = live_etag(match)
    return response


@bp.get("/<match:match_id>/chart")
@access.viewer_link
def chart(match_id: int):
    """The totals chart with its legend and the duration, as the rounds stand now."""
    match = match_or_404(match_id)
    return render("match.html", fragment="_chart.html", **match_context(match))


@bp.get("/<match:match_id>/card.png")
@access.viewer_link
def card(match_id: int):
    """A finished match's result card, a PNG in the page's language and the theme `?theme=` names (light when
    it names none), for the phone's share sheet or to download."""
    theme = request.args.get("theme", "light")
    if theme not in THEMES:
        abort(400, gettext("A result card is drawn light, dark or black, not “%(value)s”.", value=theme[:20]))
    match = match_or_404(match_id)
    if not match.is_over:
        abort(404, gettext("Only a finished match has a result card: this match is not finished."))
    tag = card_etag(match, theme)
    if shows_version(tag, request.headers.get("If-None-Match")):
        response = make_response("", 304)
    else:
        response = make_response(card_png(match, theme))
        response.mimetype = "image/png"
        response.headers["Content-Disposition"] = f'inline; filename="{card_filename(match)}"'
    response.headers["ETag"] = tag
    # A finished match can still be corrected, or played again once its last round is undone: the phone asks
    # each time, and an unchanged card is a 304 without a drawing.
    response.headers["Cache-Control"] = "no-cache"
    response.vary.update(("Cookie", "Accept-Language"))
    return response


def _played_at() -> datetime | None:
    """When a round kept on the phone was played (milliseconds since 1970, its clock), or None."""
    text = request.form.get("played_at", "")
    if not (text.isascii() and text.isdigit() and len(text) <= 15):
        return None
    try:
        return datetime.fromtimestamp(int(text) / 1000, UTC).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return None


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
        form = game.entry.form_from_round(stored.data, match.player_names, match.settings)
        return render("correct.html", **match_context(match, form=form, editing=stored))
    revision = request.form.get("revision", type=_round_number)
    try:
        data = game.entry.round_from_form(request.form, match.player_names, match.settings)
        ends_at = request.form.get("ends_at", type=int)
        service.correct_round(match, number, data, -1 if revision is None else revision, ends_at=ends_at)
    except RuleError as error:
        context = match_context(
            match, form=request.form, editing=stored, errors={error.field or "round": _error(match, error)}
        )
        return render("correct.html", status=422, **context)
    except service.EndsEarlier as early:
        # Nothing is stored yet: the page says what the change means and saves it with one more tap.
        context = match_context(match, form=request.form, editing=stored, ends_earlier=early)
        return render("correct.html", **context)
    except ChangedMeanwhile as conflict:
        if conflict.current is None:  # the match itself refused the write (the host ended it)
            raise
        current = game.entry.form_from_round(conflict.current.data, match.player_names, match.settings)
        context = match_context(match, form=current, editing=conflict.current, errors={"round": error_text(conflict)})
        return render("correct.html", status=409, **context)
    # The match page then says what was saved, like a round's read-back (a late penalty is a correction).
    flash(str(number), CORRECTED)
    return _go(url_for("matches.show", match_id=match.id))


@bp.get("/<match:match_id>/changes")
@access.viewer_link
def changes(match_id: int):
    """The change log: corrections, undos and redos with each side's values before and after, in the page's clock."""
    match = match_or_404(match_id)
    return render("changes.html", **match_context(match, log=sheet_changes(match), format_time=format_time))


@bp.post("/<match:match_id>/again")
@access.pencil
@access.host
def again(match_id: int):
    """Start a new match with the same players, seats and settings: the match's pencil or the host's rights."""
    match = match_or_404(match_id)
    if not may_play_again(match):
        abort(403, gettext("Only the phone that started this match, its scorekeeper's or the host can start it again."))
    new_match, token = service.play_again(match)
    return set_pencil_cookie(_go(url_for("matches.show", match_id=new_match.id)), new_match, token)


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
        return render("delete.html", **match_context(match))
    service.delete_match(match)
    return _go(url_for("home.index"))


@bp.route("/<match:match_id>/end", methods=["GET", "POST"])
@access.host
def end(match_id: int):
    """End a match whose scorekeeper's phone is gone (host rights), after a confirmation page."""
    match = match_or_404(match_id)
    if request.method == "GET":
        return render("end.html", **match_context(match))
    service.end_match(match)
    return _go(url_for("matches.show", match_id=match.id))
