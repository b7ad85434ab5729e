"""Security headers on pages, fragments, errors and static files, and no markup the CSP would block."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.helpers import HTMX, begun_evening, check_headers, csrf_token, finished_evening, finished_match, ref, unref

SAME_ON_EVERY_DATABASE = "the security headers and the markup the policy allows"

STATIC = Path(__file__).resolve().parents[2] / "static"


class InlineCode(HTMLParser):
    """Collects what a strict CSP refuses: inline scripts, on… handlers, style attributes, eval-needing htmx."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.htmx_config = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if (
            tag == "script"
            and not found.get("src")
            and found.get("type") not in ("application/json", "application/ld+json")
        ):
            self.problems.append("an inline <script>")
        if tag == "meta" and found.get("name") == "htmx-config":
            # htmx configured from its meta tag, with its eval-based features off.
            self.htmx_config = json.loads(found.get("content") or "{}").get("allowEval") is False
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=…>")
            if name == "style":
                self.problems.append(f"<{tag} style=…>")
            # htmx evaluates these with Function(), which a CSP without 'unsafe-eval' forbids.
            if name.startswith(("hx-on", "data-hx-on")) or name in ("hx-vars", "data-hx-vars"):
                self.problems.append(f"<{tag} {name}=…> needs eval")
            if name in ("hx-vals", "hx-headers") and (value or "").lstrip().startswith("js:"):
                self.problems.append(f"<{tag} {name}='js:…'> needs eval")
            if name in ("hx-trigger", "data-hx-trigger") and "[" in (value or ""):
                self.problems.append(f"<{tag} {name}='…[filter]'> needs eval")


def check_markup(response, what: str, page: bool) -> None:
    """No markup the CSP would block; a full page configures htmx through its meta tag."""
    parser = InlineCode()
    parser.feed(response.get_data(as_text=True))
    assert not parser.problems, f"{what}: {sorted(set(parser.problems))}"
    if page:
        assert parser.htmx_config, f"{what}: no <meta name=htmx-config>"


@pytest.fixture
def scorekeeper(app, client):
    """A Topic_ match with two rounds, a correction and a pending pencil offer; `client` keeps its score."""
    token = csrf_token(client, "/matches/new")
    start = client.post(
        "/matches/new", data={"csrf_token": token, "game": "topic", "seat": ["Ann", "Bob", "Cy"], "action": "start"}
    )
    match_id = unref(start.headers["Location"].rsplit("/", 1)[1])
    for number, loser in ((1, "Bob"), (2, "Cy")):
        form = {"csrf_token": token, "number": str(number), "several": "on", "losers": loser}
        assert client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX).status_code == 200
    fix = {"csrf_token": token, "revision": "0", "several": "on", "losers": "Ann"}
    assert client.post(f"/matches/{ref(match_id)}/rounds/1", data=fix).status_code in (200, 302)
    return match_id, token


# The routes only a finished match answers (a match being played has no result card), and a finished evening.
FINISHED_ONLY = {"matches.card"}
EVENING_OVER_ONLY = {"club.podium"}


# The routes only a club evening's table answers (its panel on the match page).
CLUB_TABLE_ONLY = {"club.table_panel"}


def get_paths(app, match_id: int, player_id: int, finished_id: int, club: dict[str, str] | None = None) -> list[str]:
    """Every GET route of the app, with its arguments filled in (`finished_id`: a finished match, for those
    only such a match answers; `club`: a club evening's, for its routes)."""
    club = club or {**begun_evening(app), "over": finished_evening(app)}
    paths = []
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.endpoint == "static":
            continue
        match = finished_id if rule.endpoint in FINISHED_ONLY else match_id
        path = rule.rule.replace("<match:match_id>", club["table"] if rule.endpoint in CLUB_TABLE_ONLY else ref(match))
        path = path.replace("<int:number>", "1").replace("<player:player_id>", ref(player_id, "player"))
        evening = club["over"] if rule.endpoint in EVENING_OVER_ONLY else club["evening"]
        path = path.replace("<evening:evening_id>", evening).replace("<cards_key>", club["cards_key"])
        path = path.replace("<any(csv, json):kind>", "csv")
        # Other arguments (an asset bundle's digest) are checked through the pages that link them.
        if "<" not in path:
            paths.append(path)
    return sorted(paths)


class Assets(HTMLParser):
    """The scripts, stylesheets and icons a page links to on this site."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        url = found.get("src") if tag == "script" else found.get("href") if tag == "link" else None
        if url and url.startswith("/"):
            self.urls.add(url)


def test_every_page_and_fragment(app, host_client, scorekeeper):
    match_id, _ = scorekeeper
    finished_id, *_ = finished_match(app, "topic")
    paths = get_paths(app, match_id, 1, finished_id)
    assert f"/matches/{ref(finished_id)}/card.png" in paths
    assert len(paths) >= 15 and any(path.startswith("/evenings/card/") for path in paths)
    for path in paths:
        for headers in ({}, HTMX):
            response = host_client.get(path, headers=headers)
            response.get_data()  # a streamed export runs to its end, and closes its context
            response.close()
            what = f"GET {path} {headers}"
            assert response.status_code == 200, what
            check_headers(response, what)
            if response.mimetype == "text/html":
                check_markup(
                    response,
                    what,
                    page=not headers and response.get_data(as_text=True).lstrip().lower().startswith("<!doctype"),
                )


# What holds nothing of any group: the files and the checks, which a shared cache may keep.
NO_GROUP_ROUTES = {"/healthz", "/ping", "/sw.js", "/manifest.webmanifest", "/favicon.ico"}


def test_every_answer_that_may_hold_a_groups_data_is_private_and_varies_by_cookie(app, host_client, scorekeeper):
    match_id, _ = scorekeeper
    finished_id, *_ = finished_match(app, "topic")
    paths = [path for path in get_paths(app, match_id, 1, finished_id) if path not in NO_GROUP_ROUTES]
    assert f"/matches/{ref(match_id)}.json" in paths
    for path in [*paths, f"/matches/{ref(999999)}", "/no/such/page"]:
        for headers in ({}, HTMX):
            response = host_client.get(path, headers=headers)
            response.get_data()
            response.close()
            what = f"GET {path} {headers}"
            assert "private" in response.cache_control, (what, response.headers.get("Cache-Control"))
            assert "cookie" in {value.lower() for value in response.vary}, (what, response.headers.get("Vary"))
    # The live poll the middleware answers before Flask runs too.
    live = host_client.get(f"/matches/{ref(match_id)}/live", headers=HTMX)
    again = {**HTMX, "If-None-Match": live.headers["ETag"]}
    unchanged = host_client.get(f"/matches/{ref(match_id)}/live", headers=again)
    assert unchanged.status_code == 304 and "private" in unchanged.cache_control
    assert "cookie" in {value.lower() for value in unchanged.vary}


def test_write_answers_and_fragments(app, client, scorekeeper):
    match_id, token = scorekeeper
    answers = {
        "save": client.post(
            f"/matches/{ref(match_id)}/rounds",
            data={"csrf_token": token, "number": "3", "several": "on", "losers": "Ann"},
            headers=HTMX,
        ),
        "refused save": client.post(
            f"/matches/{ref(match_id)}/rounds", data={"csrf_token": token, "number": "3"}, headers=HTMX
        ),
        "undo": client.post(f"/matches/{ref(match_id)}/undo", headers={**HTMX, "X-CSRFToken": token}),
        "entry": client.post(f"/matches/{ref(match_id)}/entry", data={"csrf_token": token}, headers=HTMX),
        "pencil offer": client.post(f"/matches/{ref(match_id)}/pencil/offer", data={"csrf_token": token}, headers=HTMX),
        "setup tap": client.post(
            "/matches/new", data={"csrf_token": token, "game": "topic", "action": "new", "new_name": "Di"}, headers=HTMX
        ),
        "preferences": client.post("/preferences", data={"csrf_token": token, "theme": "dark"}),
    }
    for what, response in answers.items():
        assert response.status_code < 500, what
        check_headers(response, what)
        if response.mimetype == "text/html":
            check_markup(response, what, page=False)


def test_error_pages_and_fragments(app, client, scorekeeper):
    match_id, _ = scorekeeper
    viewer = app.test_client()
    viewer_token = csrf_token(viewer, f"/matches/{ref(match_id)}")
    errors = {
        "404": lambda h: client.get("/no/such/page", headers=h),
        "404 match": lambda h: client.get(f"/matches/{ref(999999)}", headers=h),
        "405": lambda h: client.put("/", headers=h),
        "400 csrf": lambda h: client.post(f"/matches/{ref(match_id)}/undo", headers=h),
        "403 viewer": lambda h: viewer.post(
            f"/matches/{ref(match_id)}/undo", headers={**h, "X-CSRFToken": viewer_token}
        ),
        "409": lambda h: viewer.post(
            f"/matches/{ref(match_id)}/pencil", data={"csrf_token": viewer_token, "code": "wrong"}, headers=h
        ),
    }
    for what, call in errors.items():
        for headers in ({}, HTMX):
            response = call(headers)
            label = f"{what} {headers}"
            assert 400 <= response.status_code < 500, label
            check_headers(response, label)
            check_markup(response, label, page=not headers)


def check_subresource_headers(response, what: str) -> None:
    """A page's stylesheet or script: its type never sniffed, and none of the headers only a document
    obeys (the browser applies the policy of the page that loads it), which a slow line pays for."""
    assert response.headers.get("X-Content-Type-Options") == "nosniff", what
    for name in ("Content-Security-Policy", "Referrer-Policy", "X-Frame-Options"):
        assert name not in response.headers, f"{what}: {name}"


def test_static_files(app, client):
    files = [p for p in STATIC.rglob("*") if p.is_file() and p.suffix in (".css", ".js", ".svg", ".png")]
    assert len(files) >= 5
    for path in files:
        response = client.get("/static/" + path.relative_to(STATIC).as_posix())
        assert response.status_code == 200, path
        if path.suffix in (".css", ".js"):
            check_subresource_headers(response, str(path))
        else:
            check_headers(response, str(path))  # an image opened alone is a document (an SVG may hold script)
        response.close()
    # The service worker is a script that runs under its own response's policy: it keeps them all.
    for path in ("/sw.js", "/manifest.webmanifest"):
        check_headers(client.get(path), path)
    # Whatever the pages really load (fingerprinted files, bundles) is held to the same.
    assets = Assets()
    assets.feed(client.get("/").get_data(as_text=True))
    assert len(assets.urls) >= 3, assets.urls
    for url in sorted(assets.urls):
        response = client.get(url)
        assert response.status_code == 200, url
        if response.mimetype in ("text/css", "text/javascript"):
            check_subresource_headers(response, url)
        else:
            check_headers(response, url)
        response.close()


def test_an_unchanged_poll_answered_before_flask_has_the_headers_flask_gives_it(app, client, scorekeeper):
    """The live-poll middleware answers most requests of a club evening: the same headers as the view's own 304."""
    from werkzeug.test import Client
    from werkzeug.wrappers import Response

    match_id, _ = scorekeeper
    viewer = app.test_client()
    tag = viewer.get(f"/matches/{ref(match_id)}/live", headers=HTMX).headers["ETag"]
    poll = {**HTMX, "If-None-Match": tag, "Accept-Encoding": "br, gzip"}
    before_flask = viewer.get(f"/matches/{ref(match_id)}/live", headers=poll)
    # The app behind the middleware, as it answers when the middleware is not installed.
    by_flask = Client(app.wsgi_app.flask, Response).get(f"/matches/{ref(match_id)}/live", headers=poll)
    assert before_flask.status_code == by_flask.status_code == 304
    check_headers(before_flask, "304 before Flask")
    assert sorted(before_flask.headers.items()) == sorted(by_flask.headers.items())


def test_the_answers_a_shared_cache_may_keep_are_those_that_hold_no_groups_data(client):
    # The views declared `no_group_needed` (tests/web/test_access_declared.py names them): one declaration
    # decides both that no group is asked for and that the answer is not private.
    assert "private" not in client.get("/healthz").headers["Cache-Control"]
    assert "private" not in client.get("/ping").headers["Cache-Control"]
    assert "private" in client.get("/offline").headers["Cache-Control"]
