"""The club evening: the host sets it up and runs it, the table cards seat the phones, the other side confirms."""

from __future__ import annotations

import hmac
import json
from typing import Any

from flask import Blueprint, Response, abort, redirect, request, url_for
from flask_babel import gettext
from sqlalchemy import select

from ..extensions import db
from ..games import REGISTRY
from ..games.forms import first, index_in, typed_number, whole_number
from ..games.refusals import NotAllowed, Refusal, RuleError
from ..models import ID_MAX, Match
from ..models.club import COUNTED, ClubEvening, ClubTable
from ..pages.club import EveningPage, clock_view
from ..pages.match import MatchPage
from ..queries import club as read
from ..services import club as service
from ..services import club_clock, club_table, seats
from ..web import access, evening_form, hx, render
from ..web.cards import asked_theme, card_answer, podium_etag, podium_filename, podium_png
from ..web.fragments import status_of
from ..web.groups import (
    current_group,
    follow_evening,
    follow_match,
    give_phone_credential,
    phone_credential,
    phone_label,
    remember_seated,
    seated_as,
)
from ..web.i18n import error_text
from ..web.links import public_url, qr_svg
from ..web.live import PANEL_MATCH_VERSION, polled_read, tagged_answer
from ..web.pencil import entered, keep_pencil

bp = Blueprint("club", __name__, url_prefix="/evenings")

bp.add_app_template_global(clock_view, "evening_clock")

CARDS_SHOWN = 24
CARDS_MOST = 400


@bp.get("")
@access.member
def index():
    """The group's evenings, newest first; a host starts a new one from here."""
    evenings = db.session.scalars(select(ClubEvening).order_by(ClubEvening.id.desc())).all()
    return render("club/evenings.html", evenings=evenings, games=REGISTRY, page=EveningPage(None))


@bp.route("/new", methods=["GET", "POST"])
@access.host
def new():
    """The host's setup form: the game, turns × hands, the movements, the scale, the entrants."""
    form = request.form if request.method == "POST" else None
    if form is None or first(form, "action") == "redraw":
        return render("club/new.html", fragment="club/_setup_form.html", setup=evening_form.setup_view(form), errors={})
    try:
        plan, entrants = evening_form.raw_plan(form), evening_form.entrants(form)
        evening = service.create_evening(first(form, "name", "") or "", plan, entrants)
    except RuleError as error:
        errors = {evening_form.field_of(error.field): evening_form.said(error)}
        setup = evening_form.setup_view(form)
        return render("club/new.html", fragment="club/_setup_form.html", status=422, setup=setup, errors=errors)
    return hx.go(url_for("club.show", evening_id=evening.id))


@bp.get("/<evening:evening_id>")
@access.member
def show(evening_id: int):
    """The evening as the arbiter runs it: every table of the turn live, the standings, the host's decisions."""
    evening = db.get_or_404(ClubEvening, evening_id)
    return render("club/evening.html", page=EveningPage(evening))


@bp.get("/<evening:evening_id>/live")
@access.member
def live(evening_id: int):
    """The arbiter's page's live part, polled: unchanged (304) until the evening or a hand at a table moves."""
    evening = db.get_or_404(ClubEvening, evening_id)
    # The clock's state is in the tag: at time up the tables still playing are drawn late, with no write to tell.
    tag = f'"e{evening.version}-m{read.tables_version(evening)}-{read.clock_of(evening).state(read.now_ms())}"'
    return tagged_answer(tag, lambda: render("club/evening.html", fragment="club/_evening_live.html",
                                             page=EveningPage(evening)))  # fmt: skip


@bp.post("/<evening:evening_id>/decide")
@access.host
def decide(evening_id: int):
    """One decision of the arbiter (start, add, late, forfeit, withdraw, settle, confirm, close, the clock, a call
    answered), refused by its
    field with nothing stored, else the arbiter's page again."""
    evening = db.get_or_404(ClubEvening, evening_id)
    try:
        _decision(evening, request.form)
    except Refusal as refused:
        page = EveningPage(
            evening,
            errors={evening_form.field_of(getattr(refused, "field", None)): error_text(refused)},
            posted=request.form,
        )
        return render("club/evening.html", fragment="club/_evening_live.html", status=status_of(refused), page=page)
    page = EveningPage(evening, done=first(request.form, "action"))
    return render("club/evening.html", fragment="club/_evening_live.html", page=page)


def _decision(evening: ClubEvening, form: Any) -> None:
    """Carry out the decision the arbiter's form names (`action`)."""
    action = first(form, "action")
    note = (first(form, "note", "") or "").strip()
    entrant = whole_number(first(form, "entrant"), ID_MAX)
    turn, table = whole_number(first(form, "turn"), ID_MAX), whole_number(first(form, "table"), ID_MAX)
    if action == "start":
        service.start(evening)
    elif action == "add":
        service.add_entrant(evening, *(evening_form.entrants(form) or [([], None)])[0])
    elif action == "late":
        service.late(evening, turn, entrant, typed_number(first(form, "penalty")), note)
    elif action == "forfeit":
        service.forfeit(evening, turn, entrant, note)
    elif action == "withdraw":
        service.withdraw(evening, entrant)
    elif action == "settle":
        service.settle(evening, turn, table, evening_form.settled_points(form), note)
    elif action == "confirm":
        service.confirm_as_arbiter(evening, turn, table)
    elif action == "close":
        outcomes = evening_form.outcomes(evening, form)
        service.close_turn(evening, turn, outcomes, note)
    elif action == "clock":
        club_clock.run_clock(evening, *evening_form.clock_tap(form))
    elif action == "answered":
        club_clock.answer_call(evening, turn, table)
    else:
        abort(400)


@bp.get("/<evening:evening_id>/standings")
@access.member
@access.table_card
def standings(evening_id: int):
    """The evening's standings with each entrant's path, printable; a phone that scanned a table card reads it."""
    evening = db.get_or_404(ClubEvening, evening_id)
    return render("club/standings.html", page=EveningPage(evening))


@bp.get("/<evening:evening_id>/standings.<any(csv, json):kind>")
@access.member
@access.table_card
def standings_file(evening_id: int, kind: str):
    """The standings with every entrant's path, as CSV (a line per entrant and turn) or JSON."""
    evening = db.get_or_404(ClubEvening, evening_id)
    rows = EveningPage(evening).standings_rows
    if kind == "json":
        document = {"evening": evening.name, "game": evening.game, "standings": rows}
        response = Response(json.dumps(document, ensure_ascii=False, indent=1), mimetype="application/json")
    else:
        response = Response(evening_form.standings_csv(rows), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="evening-{evening.public_id}.{kind}"'
    return response


@bp.get("/<evening:evening_id>/podium.png")
@access.member
@access.table_card
def podium(evening_id: int):
    """The evening's podium card, once it is over: a PNG in the page's language and the theme `?theme=` names,
    for the phone's share sheet or to download. Before, none: a card shared from a turn still to be played would
    be taken for the result."""
    theme = asked_theme()
    evening = db.get_or_404(ClubEvening, evening_id)
    page = EveningPage(evening)
    if not page.over:
        abort(404, gettext("The podium card is drawn once the evening is over: until then, the standings say "
                           "where it stands."))  # fmt: skip
    return card_answer(podium_etag(evening, theme), podium_filename(evening),
                       lambda: podium_png(evening, page.podium_card, theme))  # fmt: skip


@bp.get("/cards")
@access.host
def cards():
    """The group's table cards, A4 pages of numbered cards each with its QR code: printed once, reused."""
    group = current_group()
    if group is None:
        abort(404)
    count = min(whole_number(request.args.get("tables")) or CARDS_SHOWN, CARDS_MOST)
    # The cards' key is made with the group's first evening (a page never writes): none yet, no cards yet.
    keyed = range(1, count + 1) if group.cards_key else ()
    links = [public_url("club.card", cards_key=group.cards_key, number=n) for n in keyed]
    return render("club/cards.html", cards=[(n, link, qr_svg(link)) for n, link in enumerate(links, 1)], count=count,
                  page=EveningPage(None))  # fmt: skip


@bp.post("/cards/renew")
@access.host
def renew_cards():
    """New keys for the group's table cards: those printed before stop at once."""
    group = current_group()
    if group is None:
        abort(404)
    service.renew_cards(group)
    return hx.go(url_for("club.cards"))


@bp.route("/card/<cards_key>/<int:number>", methods=["GET", "POST"])
@access.table_card
def card(cards_key: str, number: int):
    """A scanned table card: who sits at table `number` this turn of the group's evening being played; the
    phone taps its player and takes that seat (the first at N/S holds the pencil), then goes to the match."""
    group = current_group()
    if group is None or group.cards_key is None or not hmac.compare_digest(group.cards_key, cards_key):
        abort(404, gettext("This table card was replaced by a newer one: ask the host for the cards of tonight."))
    evening = read.playing_evening()
    table = read.table_at(evening, evening.turn, number) if evening else None
    if evening is not None:
        follow_evening(evening.id)
    if table is None or table.match_id is None:
        return render("club/card.html", status=404, evening=evening, number=number, page=EveningPage(evening))
    page = EveningPage(evening, table_row=table)
    if request.method == "POST":
        return _sit(page)
    return render("club/card.html", evening=evening, number=number, page=page)


def _sit(page: EveningPage) -> Response:
    """The card's tap: this phone takes the seat it picked and, at N/S, the table's pencil if no phone holds it;
    or ("pencil") a phone of N/S takes the pencil over from one that ran flat."""
    credential = give_phone_credential()
    match, table = page.match, page.table_row
    take_over = first(request.form, "action") == "pencil"
    try:
        if not take_over:
            position = index_in(request.form.get("seat"), len(match.seats))
            # A result waiting for its other side: E/W's phone, often out only now, sits to confirm it.
            waiting = table.state not in COUNTED
            seats.take_seat(match, position, credential, phone_label(), seated_as(), to_confirm=waiting)
            remember_seated(credential)
    except Refusal as refused:
        return render("club/card.html", status=status_of(refused), evening=page.evening, number=table.number,
                      page=page, errors={"seat": error_text(refused)})  # fmt: skip
    follow_match(match.id)
    _give_pencil(page, table, take_over)
    return hx.go(url_for("matches.show", match_id=match.id))


def _give_pencil(page: EveningPage, table: ClubTable, take_over: bool = False) -> None:
    """The table's pencil, where this phone is the one to hold it: the answer carries it."""
    credential = phone_credential()
    token = club_table.take_pencil(page.evening, table, credential, take_over=take_over) if credential else None
    if token:
        keep_pencil(db.session.get(Match, table.match_id), token)


@bp.get("/table/<match:match_id>")
@access.viewer_link
@access.member
@polled_read
def table_panel(match_id: int):
    """The club's panel on a table's match page, polled: where the turn stands, the other side's Confirm, and
    once the next turn is drawn, this phone's next table (its form takes the phone there by itself: `next_table`).
    A read: it writes nothing. An unchanged poll is told so by the middleware in one statement; here, from the
    one that reads the table, its evening and its match, which the panel is then drawn from."""
    page = _panel_page(match_id)
    answer = tagged_answer(page.panel_tag, lambda: render("club/_table_panel.html", page=page))
    # An unchanged panel's answer too: a hand saved leaves the panel as it was, and the page's live block is asked
    # for when this moved on (the browser keeps a 304's headers with the answer it kept).
    answer.headers[PANEL_MATCH_VERSION] = str(page.match.version)
    return answer


@bp.post("/table/<match:match_id>/next")
@access.viewer_link
@access.member
def next_table(match_id: int):
    """This phone goes to its table of the turn drawn since (the panel's form sends it once it shows it): the phone
    may follow that match from now on, and at N/S it holds the pencil there if no phone of its side does. The
    answer is that match's page, drawn in place of this one at its address: a redirect and the page it asks for
    were two requests of each of a hall's 400 phones at a turn's close."""
    page = _panel_page(match_id)
    moved = page.next_table
    if moved is None:
        return render("club/_table_panel.html", page=page)
    follow_match(moved.row.match_id)
    _give_pencil(page, moved.row)
    address = url_for("matches.show", match_id=moved.row.match_id)
    if not request.htmx:
        return redirect(address, 303)
    # Its match and evening came with the phone's seating there (read.seated_table): neither is read again.
    drawn = render("match.html", page=MatchPage(moved.row.match, club_table=moved.row))
    return hx.push_url(hx.reswap(hx.retarget(drawn, "body"), "innerHTML show:window:top"), address)


def _panel_page(match_id: int, **given: Any) -> EveningPage:
    """The presenter of a table's panel: its evening, its table and its match; a 404 for a match of no evening."""
    table = read.table_of_match(match_id, seats=True)
    if table is None:
        abort(404)
    return EveningPage(table.evening, table_row=table, **given)


# What the panel's buttons send: a confirmation (none named: the button's value left out), the entering phone's
# confirmation handed to the other side, a call for the arbiter that disputes the result.
CONFIRM_ACTIONS = (None, "", "confirm", "handed", "dispute")


@bp.post("/table/<match:match_id>/confirm")
@access.viewer_link
@access.member
def confirm(match_id: int):
    """The other side confirms the table's result (or, handed the phone, on the entering phone), or calls the
    arbiter with a reason; a refusal is drawn in the panel with its reason, nothing counted."""
    page = _panel_page(match_id)
    evening, table, action = page.evening, page.table_row, first(request.form, "action")
    if action not in CONFIRM_ACTIONS:
        abort(400)
    try:
        if action == "dispute":
            club_table.dispute(evening, table.turn, table.number, phone_credential(), first(request.form, "note") or "")
        else:
            shown, handed = evening_form.confirmed_result(request.form), action == "handed"
            club_table.confirm(evening, table.turn, table.number, phone_credential(), shown, for_other_side=handed,
                               entered=entered(page.match))  # fmt: skip
    except Refusal as refused:
        page = _panel_page(match_id, errors={"confirm": error_text(refused)})
        return render("club/_table_panel.html", status=status_of(refused), page=page)
    return render("club/_table_panel.html", page=_panel_page(match_id, done=action))


@bp.post("/table/<match:match_id>/call")
@access.viewer_link
@access.member
def call(match_id: int):
    """A phone seated at the table calls the arbiter with a reason (picked, or its own words), or withdraws its
    call; refused to any other phone, with the reason drawn in the panel and nothing stored."""
    page = _panel_page(match_id)
    form = request.form
    try:
        if first(form, "action") == "uncall":
            club_clock.withdraw_call(page.evening, page.table_row, phone_credential())
        else:
            reason = (first(form, "note") or "").strip() or first(form, "reason") or ""
            club_clock.call_arbiter(page.evening, page.table_row, phone_credential(), reason)
    except (NotAllowed, RuleError) as refused:
        page = _panel_page(match_id, errors={"call": error_text(refused)})
        return render("club/_table_panel.html", status=status_of(refused), page=page)
    return render("club/_table_panel.html", page=_panel_page(match_id))
