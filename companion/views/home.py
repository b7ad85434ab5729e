"""Home page: matches in progress, a new match, the way to the history."""

import json
from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, make_response, redirect, request, send_from_directory, url_for

from ..games import REGISTRY
from ..games.checks import NAME_MAX
from ..games.refusals import N_
from ..queries.matches import in_progress
from ..web import access, asset, cookies, render
from ..web.cards import THEMES
from ..web.groups import is_member
from ..web.headers import YEAR
from ..web.pencil import is_scorekeeper

bp = Blueprint("home", __name__)
# The longest name a form field takes (its maxlength), the same the rules accept.
bp.add_app_template_global(NAME_MAX, "NAME_MAX")


@bp.get("/")
@access.open_to_all
def index():
    """The home page; on a private server, for a phone in no group, the welcome page (start a group)."""
    if not is_member():
        return render("welcome.html")
    playing = in_progress()
    # The matches whose pencil this phone holds: their links ask for the entry's scripts with the page.
    kept = {item.match.id for item in playing if is_scorekeeper(item.match)}
    return render("home.html", playing=playing, kept=kept, games=REGISTRY)


PREFERENCES = {"theme": THEMES, "lang": ("en", "it")}


@bp.route("/preferences", methods=["GET", "POST"])
@access.open_to_all
def preferences():
    """Theme and language for this phone, kept in cookies (empty: follow the system)."""
    if request.method == "GET":
        current = {key: cookies.get(key) or "" for key in PREFERENCES}
        came_from = request.htmx.current_url or request.referrer
        return render("preferences.html", back=_back_to(came_from), **current)
    # Translated where it is shown: in the language just chosen.
    flash(N_("Preferences saved.").text, "notice")
    response = make_response(redirect(_back_to(request.form.get("back"))))
    for key, allowed in PREFERENCES.items():
        value = request.form.get(key, "")
        if value in allowed:
            cookies.put(response, key, value, httponly=False)
        else:
            cookies.remove(response, key)
    return response


def _back_to(url: str | None) -> str:
    """Where saved preferences lead: the page of this app the phone came from, else the home page."""
    parts = urlsplit(url or "")
    if parts.netloc and parts.netloc != request.host:
        return url_for("home.index")
    path = parts.path
    if not path.startswith("/") or path.startswith("//") or path == url_for("home.preferences"):
        return url_for("home.index")
    return path + (f"?{parts.query}" if parts.query else "")


@bp.get("/ping")
@access.no_group_needed
def ping():
    """A fixed short answer: the floor of the stack, which the benchmark compares against."""
    return "pong", 200, {"Content-Type": "text/plain; charset=utf-8"}


@bp.get("/offline")
@access.open_to_all
def offline():
    """The page the service worker shows when the server cannot be reached."""
    return render("offline.html")


@bp.get("/manifest.webmanifest")
@access.no_group_needed
def manifest():
    """The web app manifest that makes the app installable on a phone's home screen."""
    data = {
        "name": "Table companion",
        "short_name": "Companion",
        "description": f"Scores for {', '.join(game.name for game in REGISTRY.values())} at the table.",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#0f172a",
        "theme_color": "#0f172a",
        "icons": [
            {"src": asset("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": asset("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {"src": asset("icons/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    response = make_response(json.dumps(data))
    response.mimetype = "application/manifest+json"
    return response


@bp.get("/favicon.ico")
@access.no_group_needed
def favicon():
    """The app's icon where a browser looks for it unasked: a page that names none (an image opened as a page,
    the result card) would otherwise log a 404 for it."""
    return send_from_directory(current_app.static_folder, "icons/icon-192.png", mimetype="image/png", max_age=YEAR)


@bp.get("/sw.js")
@access.no_group_needed
def service_worker():
    """The service worker, from the root so that it may look after every page."""
    response = send_from_directory(current_app.static_folder, "js/sw.js", max_age=0)
    response.headers["Service-Worker-Allowed"] = "/"
    response.headers["Cache-Control"] = "no-cache"
    return response
