"""Groups on a private server: start one, its invite link, join, switch, leave, and a host's phones page."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, request, url_for
from flask_babel import gettext
from werkzeug.exceptions import TooManyRequests

from ..extensions import db
from ..games.forms import whole_number
from ..games.refusals import N_, RuleError
from ..models import ID_MAX, Group, Member
from ..queries.groups import group_of_invite, groups_of, membership, phones_of
from ..services import groups as service
from ..web import access, render
from ..web.groups import (
    choose_group,
    current_group,
    current_member,
    forget_group,
    give_phone_credential,
    phone_credential,
    phone_label,
    private,
)
from ..web.i18n import error_text
from ..web.limits import GROUPS_STARTED, count_wrong_code, limited
from ..web.links import public_url, qr_svg

bp = Blueprint("groups", __name__)


def _page(status: int = 200, **context):
    """The groups page: this phone's groups, the one it works in (its invite link and phones for a host), a new one."""
    group, member = current_group(), current_member()
    invite = None
    if private() and group is not None and member is not None and member.host and group.invite:
        link = public_url("groups.invited", token=group.invite)
        invite = {"url": link, "qr": qr_svg(link)}
    phones = phones_of(group.id) if group is not None and member is not None and member.host else []
    if not private():
        phones = [phone for phone in phones if phone.host]
    return render(
        "groups.html",
        status=status,
        group=group,
        member=member,
        mine=groups_of(phone_credential()) if private() else [],
        invite=invite,
        phones=phones,
        **context,
    )


@bp.get("/groups")
@access.open_to_all
def index():
    """This phone's groups and the one it works in."""
    return _page()


@bp.post("/groups")
@access.open_to_all
@access.private_server_only
@limited(GROUPS_STARTED)
def start():
    """Start a group: this phone becomes its host, and works in it; its invite link is shown at once."""
    try:
        group, _token = service.start_group(request.form.get("name", ""), give_phone_credential(), phone_label())
    except RuleError as error:
        return _page(422, errors={"name": error_text(error)}, name=request.form.get("name", ""))
    flash(N_("Your group is ready: show its invite link to the others at the table.").text, "notice")
    return choose_group(redirect(url_for("groups.index")), group.id)


def _invited_to(token: str) -> Group:
    """The group of a current invite link; else a 404 that says so, counted as a wrong code (a 429 past the
    limits: an invite link cannot be guessed, and a script trying is made to wait)."""
    group = group_of_invite(token)
    if group is not None:
        return group
    refused = count_wrong_code()
    if refused is not None:
        raise TooManyRequests(refused.text, retry_after=refused.retry_after)
    abort(404, gettext("This invite link is no longer valid: ask the group's host for the one it shows now."))


@bp.get("/join/<token>")
@access.open_to_all
@access.private_server_only
def invited(token: str):
    """What an invite link opens: the group's name and a Join button (a link alone changes nothing)."""
    group = _invited_to(token)
    already = membership(group.id, phone_credential()) is not None
    return render("join.html", group=group, token=token, already=already)


@bp.post("/join/<token>")
@access.open_to_all
@access.private_server_only
def join(token: str):
    """Join the group of the invite link: this phone starts, scores and reads its matches from now on."""
    group = _invited_to(token)
    service.join(group, give_phone_credential(), phone_label())
    flash(N_("You are in the group.").text, "notice")
    return choose_group(redirect(url_for("home.index")), group.id)


@bp.post("/groups/switch")
@access.member
@access.private_server_only
def switch():
    """Work in another of this phone's groups."""
    member = membership(whole_number(request.form.get("group"), ID_MAX), phone_credential())
    if member is None:
        abort(404)
    return choose_group(redirect(url_for("home.index")), member.group_id)


@bp.post("/groups/invite")
@access.host
@access.private_server_only
def renew_invite():
    """A host makes a new invite link; the old one stops working at once."""
    service.new_invite(current_group())
    flash(N_("A new invite link: the old one no longer works.").text, "notice")
    return redirect(url_for("groups.index"))


def _phone_of_group(member_id: int) -> Member:
    """A phone of the request's group, for a host's action on it."""
    found = db.session.get(Member, member_id)
    group = current_group()
    if found is None or group is None or found.group_id != group.id:
        abort(404)
    return found


@bp.post("/groups/phones/<member:member_id>/remove")
@access.host
def remove_phone(member_id: int):
    """A host takes a phone out of the group (on an open server: takes its host rights)."""
    phone = _phone_of_group(member_id)
    renewed = service.remove_phone(phone.group_id, phone.id)
    if renewed is None:
        flash(N_("The phone was removed.").text, "notice")
    else:
        flash(N_("The phone was removed, and the invite link renewed: the one that phone had no longer lets it"
                 " back in. Show the new one below to whoever joins next.").text, "notice")  # fmt: skip
    return redirect(url_for("groups.index"))


@bp.post("/groups/phones/<member:member_id>/host")
@access.host
@access.private_server_only
def make_host(member_id: int):
    """A host makes another phone of the group a host."""
    phone = _phone_of_group(member_id)
    service.make_host(phone.group_id, phone.id)
    return redirect(url_for("groups.index"))


def _this_phone() -> Member:
    """This phone's membership of the group it works in (on an open server: its host rights); a 404 without."""
    member = current_member()
    if member is None:
        abort(404)
    return member


@bp.post("/groups/this-phone")
@access.member
@access.private_server_only
def name_this_phone():
    """This phone's name in its group's list of phones."""
    try:
        service.name_phone(_this_phone(), request.form.get("label", ""))
    except RuleError as error:
        return _page(422, errors={"label": error_text(error)}, label=request.form.get("label", ""))
    flash(N_("This phone's name is saved.").text, "notice")
    return redirect(url_for("groups.index"))


@bp.post("/groups/leave")
@access.member
def leave():
    """This phone leaves the group it works in (on an open server: gives up its host rights)."""
    try:
        service.leave(_this_phone(), needs_a_host=private())
    except RuleError as error:
        return _page(422, errors={"leave": error_text(error)})
    flash(N_("This phone left the group.").text, "notice")
    return forget_group(redirect(url_for("home.index")))
