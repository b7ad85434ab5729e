"""Host rights: the page the printed host link opens (web/groups.is_host tells whether this phone holds them)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for
from flask_babel import gettext

from ..games.refusals import N_
from ..services import host
from ..services.groups import claim_open_host
from ..web import access, render
from ..web.groups import give_phone_credential, is_host, phone_label
from ..web.limits import count_wrong_code, refused_answer

bp = Blueprint("host", __name__, url_prefix="/host")


@bp.get("")
@access.open_server_only
def landing():
    """What the host link opens: a button that gives this phone host rights (a link alone changes nothing)."""
    return render("host.html", token=request.args.get("token", ""), host=is_host())


@bp.post("")
@access.open_server_only
def claim():
    """Give this phone host rights, if it shows the token of the host link printed last.

    The right token is taken whatever the wrong ones sent before it; a wrong one is counted, and
    past this phone's or its network's limit answered with a 429. The link does not die of wrong
    tokens: it cannot be guessed, and a stranger could otherwise lock the host out until someone
    at the server prints a new one.
    """
    token = request.form.get("token", "")
    if not host.opens_host_link(token):
        refused = count_wrong_code()
        error = gettext("This host link is no longer valid: ask the host for the one the app shows now.")
        response = render(
            "host.html",
            status=403,
            token="",
            host=is_host(),
            error=refused.text if refused else error,
        )
        return refused_answer(response, refused)
    claim_open_host(give_phone_credential(), phone_label())
    flash(N_("This phone has host rights.").text, "notice")
    return redirect(url_for("home.index"))
