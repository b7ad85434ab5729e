"""Seats at a match for the players' own phones: the seat link's page, taking and leaving a seat, freeing one."""

from __future__ import annotations

from functools import partial

from flask import Blueprint, Response, abort, redirect, render_template, request, url_for
from flask_babel import gettext

from ..games import get_game
from ..games.forms import index_in, whole_number
from ..games.refusals import N_, ChangedMeanwhile, Message, NotAllowed, Refusal, RuleError
from ..models import ID_MAX
from ..pages.match import MatchPage, entry_form, match_or_404
from ..queries.matches import hash_token, row_of, seat_of
from ..services import seats as service
from ..web import access, hx, render, wants_fragment
from ..web.fragments import status_of
from ..web.groups import (
    CURRENT,
    REPLACED,
    REPLACED_TEXT,
    current_member,
    give_phone_credential,
    is_member,
    phone_credential,
    phone_label,
    private,
    remember_seated,
    seat_key,
    seat_key_state,
    seated_as,
)
from ..web.i18n import error_text, translated
from ..web.links import qr_svg, seat_link
from ..web.live import ROUNDS_CHANGED, drawn_version, live_etag, unchanged_answer
from ..web.posted import posted_key

bp = Blueprint("seats", __name__, url_prefix="/matches")


# Why a phone that only follows the match (by its viewer link) may not sit down or play a seat's part.
VIEWER_ONLY = N_("This link only follows the match: to take a seat, scan the seat link the scorekeeper's Share page"
                 " shows.")  # fmt: skip


@bp.route("/<match:match_id>/seat", methods=["GET", "POST"])
@access.seat_link
def seat(match_id: int):
    """The page a scanned seat link opens: the phone picks its player's name and takes that seat.

    On a private server a phone outside the group needs the seat link's current key (a viewer link only
    watches: a 403 that says so); a phone freed from a seat is told why it may not take that one again.
    """
    match = match_or_404(match_id)
    key = _seat_key_or_refuse(match)
    if request.method == "GET":
        return render("seat.html", page=_seat_page(match, key))
    position = index_in(request.form.get("seat"), len(match.seats))
    try:
        credential = give_phone_credential()
        service.take_seat(match, position, credential, _what_this_phone_is_called(), seated_as())
        remember_seated(credential)
    except Refusal as refused:
        page = _seat_page(match, key, errors={"seat": error_text(refused)})
        return render("seat.html", status=status_of(refused), page=page)
    return redirect(url_for("matches.show", match_id=match.id))


def _seat_key_or_refuse(match) -> str | None:
    """The seat link's key this phone sits down with (None where it needs none: an open server, a member of
    the match's group); a 403 with the reason for a phone outside the group without the current one."""
    if not private() or is_member():
        return None
    key = seat_key(match)
    state = seat_key_state(match.uid, match.seat_link, key)
    if state == CURRENT:
        return key
    abort(403, translated(REPLACED_TEXT if state == REPLACED else VIEWER_ONLY))


def _seat_page(match, key: str | None, **extra) -> MatchPage:
    """The seat picker: the key its form sends back, and the seats this phone was freed from."""
    phone = phone_credential()
    phones = {*seated_as(), *([hash_token(phone)] if phone else [])}
    kept_out = [seat for seat in match.seats if phones & set(seat.kept_out or ())]
    return MatchPage(match, seat_key=key, kept_out=kept_out,
                         kept_out_notes=[translated(service.kept_out_message(seat.name), standing_alone=True)
                                         for seat in kept_out], **extra)  # fmt: skip


def _unseated(match, refusal: Message) -> Message:
    """Why this phone, which has no seat at the match, may not play a seat's part: it only follows the match by
    its viewer link, or (`refusal`) it no longer has the seat it took (the seat picker tells a freed phone more)."""
    if private() and not is_member() and seat_key_state(match.uid, match.seat_link, seat_key(match)) is None:
        return VIEWER_ONLY
    return refusal


@bp.post("/<match:match_id>/rows")
@access.seated
def send_row(match_id: int):
    """A seated phone sends its own row of the round being played; the scorekeeper's sheet gathers it.

    Answered with this phone's entry: its row as sent, or the reason it was not (the round saved meanwhile,
    the seat freed) beside what stands now, never a row stored for another round or another seat.
    """
    match = match_or_404(match_id)
    game = get_game(match.game)
    try:
        seat = _sending_seat(match, game)
        side = row_of(match, seat)
        replay = game.replay(match.player_names, match.settings, [r.data for r in match.rounds])
        row = game.entry.row_from_form(request.form, replay, side)
        number = whole_number(request.form.get("number"), ID_MAX)
        key = posted_key("row_key", gettext("This row's key cannot be read: reload the page and send it again."))
        label = _what_this_phone_is_called(seat)
        sent = service.send_row(match, number, seat.position, side, row, phone_credential(), label, key)
    except RuleError as error:
        page = MatchPage(match, form=request.form, errors={error.field or "round": error_text(error)})
        return render("match.html", fragment="_round_entry.html", status=422, page=page)
    except (ChangedMeanwhile, NotAllowed) as refused:
        page = MatchPage(match, errors={"round": error_text(refused)})
        return render("match.html", fragment="_round_entry.html", status=status_of(refused), page=page)
    # The round saved with the row changed the match: its page is replayed again; otherwise the replay above holds.
    drawn = None if sent.saved_round else replay
    page = MatchPage(match, replay=drawn, row_sent=True, saved_with_row=number if sent.saved_round else None)
    return _entry_after_write(page, saved=sent.saved_round)


def _sending_seat(match, game):
    """This phone's seat, which sends its row: NotAllowed where it has none, a 404 where seats send no rows."""
    seat = seat_of(match, phone_credential())
    if seat is None:
        raise NotAllowed(_unseated(match, game.entry.seat_text("not_seated")))
    if not game.entry.rows_from_seats:
        abort(404)
    return seat


@bp.post("/<match:match_id>/board")
@access.seated
def board(match_id: int):
    """A tap on a seated phone's own board (Pazaak): its move, on its turn, from the hand it noted; the set
    saved by the tap that decides it. Answered with this phone's entry, the refusal's reason beside it."""
    match, seat = _board_seat(match_id)
    number = whole_number(request.form.get("number"), ID_MAX)
    fields = entry_form(match, request.form, seat)
    try:
        tap = service.play_on_board(match, number, seat.position, phone_credential(), fields)
    except (ChangedMeanwhile, NotAllowed, RuleError) as refused:
        page = MatchPage(match, errors={"round": error_text(refused)})
        return render("match.html", fragment="_round_entry.html", status=status_of(refused), page=page)
    if not tap.kept:  # refused by the rules, or changing nothing: the calculator as the tap left it
        page = MatchPage(match, request.form, replay=tap.replay, my_seat=seat, entry=tap.entry)
        return render("match.html", fragment="_round_entry.html", page=page)
    # Drawn from what the tap came to: its calculator and replay, or where it saved the set, the replay that saved
    # it, on which the next set's calculator is worked out.
    drawn = {"board_saved": number} if tap.saved else {"entry": tap.entry}
    return _entry_after_write(MatchPage(match, replay=tap.replay, my_seat=seat, **drawn), saved=tap.saved)


def _entry_after_write(page: MatchPage, saved: bool) -> Response:
    """A seated phone's entry after its write; where the write saved the round, the standings and rounds it
    changed too, out of band, marked as the version the page then shows: a poll sent before the write and
    answered after it is not drawn over them (app.js), nor is the next one fetched for nothing."""
    response = render("match.html", fragment="seat_write", saved_round=saved, page=page)
    if saved:
        hx.trigger_client_event(response, ROUNDS_CHANGED)
    return drawn_version(response, page.match, entry=True, live=saved)


@bp.post("/<match:match_id>/hand")
@access.seated
def hand(match_id: int):
    """A tap on a seated phone's hand picker: a side card it holds noted, or one taken out before play begins."""
    match, seat = _board_seat(match_id)
    game = get_game(match.game)
    try:
        hand_after = partial(game.entry.hand_from_form, request.form, seat.name, match.settings)
        service.note_hand(match, seat.position, phone_credential(), hand_after)
    except RuleError as error:
        page = MatchPage(match, errors={"hand": error_text(error)})
        return render("match.html", fragment="_round_entry.html", status=422, page=page)
    except NotAllowed as refused:
        page = MatchPage(match, errors={"round": error_text(refused)})
        return render("match.html", fragment="_round_entry.html", status=status_of(refused), page=page)
    response = render("match.html", fragment="_round_entry.html", page=MatchPage(match))
    # Quick taps are answered in any order: the page draws no answer older than the entry it shows (app.js).
    return drawn_version(response, match, entry=True)


def _board_seat(match_id: int):
    """The match and this phone's seat at it, for a tap on its board: where this phone has no seat (freed
    meanwhile), its entry as it is now with the reason, a 403; a 404 where a seated phone is no board."""
    match = match_or_404(match_id)
    seat = seat_of(match, phone_credential())
    if seat is None:
        refused = NotAllowed(_unseated(match, service.NOT_SEATED))
        page = MatchPage(match, errors={"round": error_text(refused)})
        abort(render("match.html", fragment="_round_entry.html", status=403, page=page))
    if not get_game(match.game).entry.seat_boards:
        abort(404)
    return match, seat


@bp.post("/<match:match_id>/seat/leave")
@access.seated
def leave(match_id: int):
    """This phone gets up from its seat and follows the match as any viewer."""
    match = match_or_404(match_id)
    service.leave_seat(match, phone_credential())
    return redirect(url_for("matches.show", match_id=match.id))


@bp.get("/<match:match_id>/seats")
@access.member
def panel(match_id: int):
    """The share page's list of seats, polled while the scorekeeper looks at it: a phone sitting down shows."""
    match = match_or_404(match_id)
    tag = live_etag(match)
    if (unchanged := unchanged_answer(tag)) is not None:
        return unchanged
    return Response(render_template("_seats_panel.html", page=_panel_page(match)), headers={"ETag": tag})


@bp.post("/<match:match_id>/seats/free")
@access.pencil
@access.host
def free(match_id: int):
    """The scorekeeper (or the host) frees a seat: the phone sitting there only follows the match now, and may
    not sit there again until it is let back in."""
    match = _seats_freed(match_id, gettext("Only the scorekeeper's phone can free a seat."))
    service.free_seat(match, index_in(request.form.get("seat"), len(match.seats)))
    return _panel_after_write(match)


@bp.post("/<match:match_id>/seats/let-in")
@access.pencil
@access.host
def let_in(match_id: int):
    """The scorekeeper (or the host) lets the phones freed from a seat take it again."""
    match = _seats_freed(match_id, gettext("Only the scorekeeper's phone or a host can let a phone back in."))
    service.let_back_in(match, index_in(request.form.get("seat"), len(match.seats)))
    return _panel_after_write(match)


@bp.post("/<match:match_id>/seats/renew")
@access.pencil
@access.host
def renew(match_id: int):
    """The scorekeeper (or a host) renews the seat link: the old one seats nobody from now on, the phones
    seated keep their seats. The answer to a phone that should not be at the table (a private server's)."""
    match = _seats_managed(match_id, gettext("Only the scorekeeper's phone or a host can renew the seat link."))
    if not private():
        abort(404)
    service.renew_seat_link(match)
    return _panel_after_write(match, renewed=True)


def _seats_managed(match_id: int, refusal: str):
    """The match whose seats this phone manages (it holds the pencil, or it is a host), else a 403."""
    match = match_or_404(match_id)
    if not MatchPage(match).manages_seats:
        abort(403, refusal)
    return match


def _seats_freed(match_id: int, refusal: str):
    """The match whose seats this phone frees and lets back in (`MatchPage.may_free`), else a 403."""
    match = _seats_managed(match_id, refusal)
    if not MatchPage(match).may_free:
        abort(403, gettext("At a club evening's table, only the arbiter frees a seat or lets a phone back in."))
    return match


def _panel_after_write(match, renewed: bool = False) -> Response:
    """The share page's seats as they are now (a whole share page for a form sent without htmx)."""
    if not wants_fragment():
        return redirect(url_for("live.share", match_id=match.id))
    return Response(render_template("_seats_panel.html", page=_panel_page(match, renewed=renewed)))


def _what_this_phone_is_called(seat=None) -> str:
    """The name this phone was given in its group ("Anna's phone"), else its browser and system; a row sent from
    a `seat` names that seat beside them, since the phones of a table are often alike ("Chrome · Android (Ann)")."""
    member = current_member()
    machine = phone_label()
    # A phone joins a group under its browser and system: only a name changed since is one it was given.
    if member is not None and member.label and member.label != machine:
        return member.label
    if seat is None:
        return machine
    return f"{machine} ({seat.name})" if machine else seat.name


def _panel_page(match, **extra) -> MatchPage:
    """The match's page with its seat link and the link's QR code."""
    link = seat_link(match)
    return MatchPage(match, seat_url=link, seat_qr=qr_svg(link), may_renew=private(), **extra)
