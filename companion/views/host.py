"""Host rights: the page the printed host link opens, and the check every host-only write makes."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, make_response, redirect, request, url_for
from flask_babel import gettext
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from ..games.base import N_
from ..services import host
from ..web import render
from ..web.headers import YEAR

bp = Blueprint("host", __name__, url_prefix="/host")

# Wrong secrets (pencil codes, host links) a phone may send before it is made to wait: a
# person mistyping gets several tries, a script guessing gets ten a minute.
WRONG_SECRETS = parse("10/minute")


def _wrong_secrets() -> MovingWindowRateLimiter:
    """The app's own count of wrong secrets per phone, in memory (one per app: the tests' apps stay apart)."""
    return current_app.extensions.setdefault("wrong_secrets", MovingWindowRateLimiter(MemoryStorage()))


def refuse_guessing(door: str) -> None:
    """A 429 page when this phone sent too many wrong secrets to this door (a match's pencil, the host link) lately."""
    if not _wrong_secrets().test(WRONG_SECRETS, request.remote_addr or "", door):
        abort(429, gettext("Too many wrong codes from this phone: wait a minute, then scan the code again."))


def count_wrong_secret(door: str) -> None:
    """Count one wrong secret from this phone at this door."""
    _wrong_secrets().hit(WRONG_SECRETS, request.remote_addr or "", door)


def is_host() -> bool:
    """Whether this phone holds host rights (it opened the host link since the last `host-token --new`)."""
    return host.has_host_rights(request.cookies.get(host.HOST_COOKIE))


bp.add_app_template_global(is_host, "is_host")


def require_host() -> None:
    """A 403 page that says what to ask for, unless this phone holds host rights."""
    if not is_host():
        abort(
            403,
            gettext(
                "This needs host rights. Ask the host (whoever started the app on the laptop) to let "
                "this phone scan the host link shown where the app runs; it gives this phone the rights."
            ),
        )


@bp.get("")
def landing():
    """What the host link opens: a button that gives this phone host rights (a link alone changes nothing)."""
    return render("host.html", token=request.args.get("token", ""), host=is_host())


@bp.post("")
def claim():
    """Give this phone host rights, if it shows the token of the host link printed last."""
    refuse_guessing("host")
    token = request.form.get("token", "")
    if not host.opens_host_link(token):
        count_wrong_secret("host")
        return render(
            "host.html",
            status=403,
            token="",
            host=is_host(),
            error=gettext("This host link is no longer valid: ask the host for the one the app shows now."),
        )
    flash(N_("This phone has host rights.").text, "notice")
    response = make_response(redirect(url_for("home.index")))
    response.set_cookie(host.HOST_COOKIE, host.phone_cookie(), max_age=YEAR, httponly=True, samesite="Lax")
    return response
