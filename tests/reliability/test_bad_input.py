"""Hypothesis posts hostile forms to every POST endpoint: never a 5xx, a refusal changes nothing, text is escaped."""

from __future__ import annotations

import io
import json
import sys
from html.parser import HTMLParser
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from werkzeug.datastructures import MultiDict

from companion.extensions import db
from companion.games import REGISTRY
from companion.models import Match, Member, Player
from companion.services import matches as service
from companion.services import pencil as pencil_service
from tests.helpers import (
    begun_evening,
    csrf_token,
    dump,
    examples,
    generated,
    grant_host_rights,
    hold_pencil,
    invite_path,
    join_group,
    ref,
    start_group,
)

GAMES = sorted(REGISTRY)
# No shrinking: one example costs a request and two database dumps, and shrinking a failure
# took minutes; the assertion messages carry the whole failing form instead.
PHASES = (Phase.explicit, Phase.reuse, Phase.generate)
# Examples per endpoint and run: each category of NASTY reaches each field within a few, and a run's seed
# differs from the last (printed in the header), so the runs together try ever more. `make test-deep`
# sends ten times as many.
EXAMPLES_PER_ENDPOINT = generated(12)
# Every fuzz run: no deadline (a request's time varies), no example database kept between runs.
FUZZ = settings(
    max_examples=EXAMPLES_PER_ENDPOINT,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
    phases=PHASES,
)

# Markup that must never come back unescaped, in any page or fragment.
PAYLOADS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "<svg/onload=alert(1)>"]
RAW_MARKERS = ["<script>alert", "<img src=x", "<svg/onload"]

NUMBERS = st.sampled_from(
    [
        "",
        "0",
        "-1",
        "3.5",
        "1e309",
        "NaN",
        "abc",
        " 7 ",
        "-99999999999999999999999",
        "99999999999999999999999999",
        "9223372036854775808",
        "2147483648",
        "\u0663",
    ]
)
WORDS = st.sampled_from(
    [
        " ",
        "Nobody",
        "x" * 300,
        "Ünïcødé ✓ 名字 🂡",
        "\u202egnol",
        "a\x00b",
        "null",
        "[]",
        "{}",
        '{"losers": ["Nobody"]}',
        '{"winner": "Nobody"}',
        "add:",
        "up:99999999999999999999",
        "remove:-1",
        "game:nope",
        *PAYLOADS,
    ]
)
# Each category is drawn equally often, so numbers out of range and markup turn up in
# every field within a few examples, not once in a hundred.
NASTY = st.one_of(
    NUMBERS,
    WORDS,
    st.text(max_size=50),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
)


class FormFields(HTMLParser):
    """Every named field of a page's forms with the values the page offers for it."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, list[str]] = {}
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "select":
            self._select = found.get("name")
        name = found.get("name")
        if tag == "option" and self._select:
            self.fields.setdefault(self._select, []).append(found.get("value") or "")
        elif tag in ("input", "button", "textarea", "select") and name:
            values = self.fields.setdefault(name, [])
            if found.get("value") is not None:
                values.append(found["value"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None


def page_fields(client, path: str) -> dict[str, list[str]]:
    """The fields a page's forms would send, read from the page."""
    parser = FormFields()
    parser.feed(client.get(path).get_data(as_text=True))
    parser.fields.pop("csrf_token", None)
    return parser.fields


def seed_match(app: Flask, client, game: str, rounds: int = 2) -> int:
    """A match of `game` with the first rounds of its documented example; `client` holds its pencil."""
    example = examples()[game]["match file"]
    with app.app_context():
        match, token = service.create_match(game, example["players"], example.get("settings"))
        for data in example["rounds"][:rounds]:
            service.save_round(match, data)
        match_id = match.id
        db.session.remove()
    hold_pencil(client, match_id, token)
    return match_id


# Each endpoint: the page whose forms it reads, the path it posts to, what it needs seeded.
# {m} is a fresh match of the endpoint's game (with two rounds), {p} one of its players.
ENDPOINTS: list[tuple[str, str | None, str, str]] = [
    *[(f"new-{g}", g, "/matches/new?game=" + g, "/matches/new") for g in GAMES],
    *[(f"rounds-{g}", g, "/matches/{m}", "/matches/{m}/rounds") for g in GAMES],
    *[(f"entry-{g}", g, "/matches/{m}", "/matches/{m}/entry") for g in GAMES],
    *[(f"correct-{g}", g, "/matches/{m}/rounds/1", "/matches/{m}/rounds/1") for g in GAMES],
    ("undo", "topic", "/matches/{m}", "/matches/{m}/undo"),
    ("redo", "topic", "/matches/{m}", "/matches/{m}/redo"),
    ("again", "pazaak", "/matches/{m}", "/matches/{m}/again"),
    ("delete", "pazaak", "/matches/{m}/delete", "/matches/{m}/delete"),
    ("pencil-offer", "pazaak", "/matches/{m}/share", "/matches/{m}/pencil/offer"),
    ("pencil-take", "pazaak", "/matches/{m}/pencil", "/matches/{m}/pencil"),
    ("pencil-back", "pazaak", "/matches/{m}/share", "/matches/{m}/pencil/back"),
    ("seat-take", "topic", "/matches/{m}/seat", "/matches/{m}/seat"),
    ("seat-leave", "topic", "/matches/{m}", "/matches/{m}/seat/leave"),
    ("seat-free", "topic", "/matches/{m}/share", "/matches/{m}/seats/free"),
    ("seat-let-in", "topic", "/matches/{m}/share", "/matches/{m}/seats/let-in"),
    ("seat-renew", "topic", "/matches/{m}/share", "/matches/{m}/seats/renew"),
    ("seat-row", "pazzaparola", "/matches/{m}", "/matches/{m}/rows"),
    ("seat-board", "pazaak", "/matches/{m}", "/matches/{m}/board"),
    ("seat-hand", "pazaak", "/matches/{m}", "/matches/{m}/hand"),
    ("preferences", None, "/preferences", "/preferences"),
    ("rename", "topic", "/players/{p}", "/players/{p}/rename"),
    ("merge", "topic", "/players/{p}", "/players/{p}/merge"),
    ("end", "topic", "/matches/{m}/end", "/matches/{m}/end"),
    ("host", None, "/host?token=x", "/host"),
    # A club evening begun ({e} its address, {k} the group's cards' key, {t} a table's match).
    ("club-new", None, "/evenings/new", "/evenings/new"),
    ("club-decide", "club", "/evenings/{e}", "/evenings/{e}/decide"),
    ("club-renew", "club", "/evenings/cards", "/evenings/cards/renew"),
    ("club-card", "club", "/evenings/card/{k}/1", "/evenings/card/{k}/1"),
    ("club-confirm", "club", "/evenings/table/{t}", "/evenings/table/{t}/confirm"),
    ("club-next", "club", "/evenings/table/{t}", "/evenings/table/{t}/next"),
    ("club-call", "club", "/evenings/table/{t}", "/evenings/table/{t}/call"),
    ("club-hall-renew", "club", "/evenings/{e}", "/evenings/{e}/hall/renew"),
]


def form_strategy(fields: dict[str, list[str]]) -> st.SearchStrategy[list[tuple[str, str]]]:
    """Form data shaped like the page's: each field missing, once or repeated, with the page's or a nasty value."""
    per_field = [
        st.lists(st.one_of(st.sampled_from(values or [""]), NASTY), max_size=3).map(
            lambda values, name=name: [(name, v) for v in values]
        )
        for name, values in sorted(fields.items())
    ]
    extra = st.lists(st.tuples(st.text(min_size=1, max_size=12), NASTY), max_size=3)
    return st.tuples(st.tuples(*per_field), extra).map(
        lambda parts: [p for group in parts[0] for p in group] + parts[1]
    )


def assert_escaped(body: str, where: str) -> None:
    """No payload comes back as live markup."""
    for marker in RAW_MARKERS:
        assert marker not in body, f"unescaped {marker!r} in {where}"


def assert_human_refusal(response, where: str) -> None:
    """A refusal says what is wrong in words, on a page or in the banner."""
    body = response.get_data(as_text=True)
    assert 'role="alert"' in body or "field-error" in body, (
        f"{where}: {response.status_code} without a message:\n{body[:800]}"
    )


def session_token(client) -> str:
    """The CSRF token of the client's session (valid for the session: no time limit is set)."""
    token = getattr(client, "csrf", None)
    if token is None:
        token = client.csrf = csrf_token(client, "/offline")
    return token


# How a browser sends a form: a plain submit, an hx-boost navigation, or an htmx fragment request.
HEADERS = {
    "page": {},
    "boosted": {"HX-Request": "true", "HX-Boosted": "true"},
    "fragment": {"HX-Request": "true"},
}


def post_and_check(app: Flask, client, path: str, form: list[tuple[str, str]], htmx: str, files=None) -> int:
    """Post one generated form and check the properties; returns the status."""
    token = session_token(client)
    before = dump(app)
    data: Any = MultiDict([("csrf_token", token), *form])
    headers = HEADERS[htmx]
    if files is not None:
        data = {"csrf_token": token, "file": files}
    response = client.post(
        path, data=data, headers=headers, content_type=None if files is None else "multipart/form-data"
    )
    where = f"POST {path} {form!r}"
    assert response.status_code < 500, f"{where}: {response.status_code}\n{response.get_data(as_text=True)[:2000]}"
    if response.mimetype == "text/html":
        assert_escaped(response.get_data(as_text=True), where)
    if response.status_code >= 400:
        assert dump(app) == before, f"{where}: refused with {response.status_code} but the database changed"
        assert_human_refusal(response, where)
    elif any("<" in str(value) for _, value in form) or files is not None:
        # Whatever markup was accepted is shown escaped wherever stored text appears.
        for page in ("/history", "/players"):
            assert_escaped(client.get(page).get_data(as_text=True), f"{page} after {where}")
    return response.status_code


TRIED: dict[str, int] = {}
# Endpoints only a phone with host rights reaches past the 403 (a stranger's 403 is checked in test_access).
HOST_ONLY = {"rename", "merge", "end", "delete", "club-new", "club-decide", "club-renew", "club-hall-renew"}


@pytest.mark.slow
@pytest.mark.parametrize("key,game,page,target", ENDPOINTS, ids=[e[0] for e in ENDPOINTS])
def test_generated_forms_never_break_anything(app, client, key, game, page, target):
    if key in HOST_ONLY:
        grant_host_rights(client)
    fields_cache: dict[str, dict[str, list[str]]] = {}

    @FUZZ
    @given(data=st.data(), htmx=st.sampled_from(sorted(HEADERS)))
    def run(data, htmx):
        values: dict[str, Any] = {}
        if game == "club":
            evening = begun_evening(app)
            values = {"e": evening["evening"], "k": evening["cards_key"], "t": evening["table"]}
        elif game is not None:
            values["m"] = seed_match(app, client, game)
            with app.app_context():
                values["p"] = db.session.get(Match, values["m"]).seats[0].player_id
                if key == "pencil-take":
                    # Sometimes the real single-use code is among the values tried.
                    values["code"] = pencil_service.offer_pencil(db.session.get(Match, values["m"]))
                db.session.remove()
        if key == "redo":
            client.post(f"/matches/{ref(values['m'])}/undo", headers={"X-CSRFToken": session_token(client)})
        if key in ("seat-row", "seat-board", "seat-hand"):
            # Seated, so its rows reach the game's reader (the scorekeeper's own phone may sit at the table too).
            client.post(f"/matches/{ref(values['m'])}/seat", data={"seat": "0"},
                        headers={"X-CSRFToken": session_token(client)})  # fmt: skip
        # The match and the player as their addresses write them.
        in_paths = {**values, **{name: ref(values[name]) for name in ("m", "p") if name in values}}
        if key not in fields_cache:
            fields_cache[key] = page_fields(client, page.format(**in_paths))
            if key == "pencil-take":
                fields_cache[key]["code"] = []
        fields = dict(fields_cache[key])
        if "code" in values:
            fields["code"] = [values["code"]]
        form = data.draw(form_strategy(fields))
        post_and_check(app, client, target.format(**in_paths), form, htmx)
        TRIED[key] = TRIED.get(key, 0) + 1

    run()


# A private server's group pages: the page whose form each reads, and where it posts. {member} is another
# phone of the group, {invite} the path of its invite link; the poster is the group's host.
GROUP_ENDPOINTS = [
    ("group-start", "/", "/groups"),
    ("group-switch", "/groups", "/groups/switch"),
    ("group-invite", "/groups", "/groups/invite"),
    ("group-leave", "/groups", "/groups/leave"),
    ("group-phone-name", "/groups", "/groups/this-phone"),
    ("group-remove", "/groups", "/groups/phones/{member}/remove"),
    ("group-host", "/groups", "/groups/phones/{member}/host"),
    ("group-join", "{invite}", "{invite}"),
]


@pytest.mark.slow
@pytest.mark.parametrize("key,page,target", GROUP_ENDPOINTS, ids=[e[0] for e in GROUP_ENDPOINTS])
def test_generated_group_forms_never_break_anything(private_app, key, page, target):
    app = private_app
    host, joiner = app.test_client(), app.test_client()
    start_group(host, "Nasty forms")
    # The joiner posts to the invite; the host to everything else, about the joiner's phone.
    poster = joiner if key == "group-join" else host
    fields_cache: dict[str, dict[str, list[str]]] = {}

    @FUZZ
    @given(data=st.data(), htmx=st.sampled_from(sorted(HEADERS)))
    def run(data, htmx):
        other = app.test_client()
        join_group(other, invite_path(host))
        with app.app_context():
            member = db.session.scalars(select(Member.id).order_by(Member.id.desc())).first()
            db.session.remove()
        values = {"member": ref(member, "member"), "invite": invite_path(host)}
        if key not in fields_cache:
            fields_cache[key] = page_fields(poster, page.format(**values))
        form = data.draw(form_strategy(fields_cache[key]))
        post_and_check(app, poster, target.format(**values), form, htmx)
        TRIED[key] = TRIED.get(key, 0) + 1

    run()


# Every name a page reads from its query string, and some it does not.
QUERY_NAMES = ["game", "player", "q", "from", "to", "page", "view", "code", "token", "seat", "action", "length",
               "deck", "sets", "new_name"]  # fmt: skip
QUERY_VALUES = st.one_of(
    NASTY,
    st.sampled_from(["²", "\u0663", "99999999999999999999999", "9999-12-31", "0001-01-01", "2024-02-30", "9" * 5000,
                     "table", "topic", "pazaak", "-1", "0"]),
)  # fmt: skip
QUERY_STRINGS = st.lists(
    st.tuples(st.one_of(st.sampled_from(QUERY_NAMES), st.text(min_size=1, max_size=8)), QUERY_VALUES), max_size=5
)


def get_routes(app: Flask) -> list[str]:
    """Every GET rule whose arguments are ids (a match, a round, a player): all but static files and bundles."""
    found = []
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.endpoint == "static":
            continue
        rest = rule.rule
        for argument in ("<match:match_id>", "<int:number>", "<player:player_id>", "<evening:evening_id>"):
            rest = rest.replace(argument, "")
        if "<" not in rest:
            found.append(rule.rule)
    return sorted(found)


@pytest.mark.slow
def test_generated_query_strings_never_break_anything(app, client):
    from urllib.parse import urlencode

    match_id = seed_match(app, client, "pazaak")
    with app.app_context():
        player_id = db.session.get(Match, match_id).seats[0].player_id
        db.session.remove()
    grant_host_rights(client)
    evening = begun_evening(app)
    routes = get_routes(app)
    assert len(routes) >= 20, routes

    def fuzz(rule: str) -> None:
        @FUZZ
        @given(query=QUERY_STRINGS, htmx=st.sampled_from(sorted(HEADERS)))
        def run(query, htmx):
            path = rule.replace("<match:match_id>", ref(match_id)).replace("<int:number>", "1")
            path = path.replace("<player:player_id>", ref(player_id, "player"))
            path = path.replace("<evening:evening_id>", evening["evening"])
            url = f"{path}?{urlencode(query)}"
            before = dump(app)
            response = client.get(url, headers=HEADERS[htmx])
            response.get_data()
            response.close()
            assert response.status_code < 500, f"GET {url[:300]}: {response.status_code}"
            if response.mimetype == "text/html":
                assert_escaped(response.get_data(as_text=True), url[:300])
            assert dump(app) == before, f"GET {url[:300]} changed the database"
            TRIED[f"GET {rule}"] = TRIED.get(f"GET {rule}", 0) + 1

        run()

    # One run per route, so each gets its share of examples.
    for rule in routes:
        fuzz(rule)


def match_file_strategy() -> st.SearchStrategy[bytes]:
    """Match files from the documented examples with hostile values put in, or not JSON at all."""
    docs = [examples()[g]["match file"] for g in GAMES]

    def spoil(doc: dict, key: str, value: Any) -> bytes:
        spoilt = json.loads(json.dumps(doc))
        if key == "players" and isinstance(value, str):
            spoilt["players"] = [value, *spoilt["players"][1:]]
        elif key == "round":
            spoilt["rounds"] = [*spoilt["rounds"][:1], value]
        else:
            spoilt[key] = value
        spoilt.pop("id", None)
        return json.dumps(spoilt).encode()

    junk = st.one_of(
        NASTY, st.integers(), st.none(), st.lists(NASTY, max_size=3), st.dictionaries(NASTY, NASTY, max_size=3)
    )
    keys = st.sampled_from(["players", "round", "game", "format", "settings", "rounds", "id", "started"])
    return st.one_of(
        st.builds(spoil, st.sampled_from(docs), keys, junk),
        NASTY.map(str.encode),
        st.binary(max_size=64),
    )


@pytest.mark.slow
@pytest.mark.usefixtures("without_limits")
def test_generated_match_files_for_import(app, host_client):
    client = host_client
    @settings(FUZZ, max_examples=EXAMPLES_PER_ENDPOINT * 2)
    # The import form is a boosted form, never an htmx fragment request.
    @given(content=match_file_strategy(), htmx=st.sampled_from(["page", "boosted"]))
    def run(content, htmx):
        status = post_and_check(app, client, "/history/import", [], htmx, files=(io.BytesIO(content), "match.json"))
        TRIED["import"] = TRIED.get("import", 0) + 1
        assert status in (200, 302, 400, 409, 413, 422)

    run()


def test_a_script_as_a_name_is_shown_as_text(app, client):
    name = "<script>alert(1)</script>"
    token = csrf_token(client, "/matches/new")
    form = {"csrf_token": token, "game": "topic", "seat": [name, "Bob"], "action": "start"}
    response = client.post("/matches/new", data=form)
    assert response.status_code == 302
    match_path = response.headers["Location"]
    with app.app_context():
        player = db.session.scalar(select(Player).where(Player.name == name))
        assert player is not None
        player_id = player.id
        db.session.remove()
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    for path in (
        match_path,
        "/history",
        "/players",
        f"/players/{ref(player_id, 'player')}",
        match_path + "/table",
        match_path + "/live",
    ):
        body = client.get(path).get_data(as_text=True)
        assert escaped in body, path
        assert_escaped(body, path)


@pytest.fixture(scope="module", autouse=True)
def report_inputs_tried():
    """After the module's tests: how many generated inputs each endpoint was sent (`pytest -s` shows it)."""
    yield
    print(f"\ngenerated inputs tried: {sum(TRIED.values())} over {len(TRIED)} endpoints")
    for endpoint, count in sorted(TRIED.items()):
        print(f"  {endpoint}: {count}")


@pytest.mark.parametrize("number", ["0", "2147483648", "9223372036854775808", "99999999999999999999999999"])
def test_out_of_range_ids_in_urls_are_404(app, client, number):
    token = session_token(client)
    # A row's part is tried as the number written out and as the address text of that number (where
    # sqids can write it: up to 2**63 - 1).
    texts = [number, *([ref(int(number))] if int(number) <= sys.maxsize else [])]
    for rule in app.url_map.iter_rules():
        if not any(kind in rule.rule for kind in ("<int:", "<match:", "<player:", "<member:")):
            continue
        for text in texts:
            path = rule.rule.replace("<int:number>", number)
            for part in ("<match:match_id>", "<player:player_id>", "<member:member_id>"):
                path = path.replace(part, text)
            for method in sorted((rule.methods or set()) & {"GET", "POST"}):
                response = client.open(path, method=method, data={"csrf_token": token})
                assert response.status_code == 404, f"{method} {path}: {response.status_code}"


def test_every_post_route_is_fuzzed(app):
    fuzzed = {
        target.split("?")[0]
        .replace("{m}", "<match:match_id>")
        .replace("{p}", "<player:player_id>")
        .replace("/rounds/1", "/rounds/<int:number>")
        .replace("{e}", "<evening:evening_id>")
        .replace("{k}/1", "<cards_key>/<int:number>")
        .replace("{t}", "<match:match_id>")
        for _, _, _, target in ENDPOINTS
    }
    fuzzed.add("/history/import")
    fuzzed |= {target.replace("{member}", "<member:member_id>").replace("{invite}", "/join/<token>")
               for _, _, target in GROUP_ENDPOINTS}  # fmt: skip
    posts = {rule.rule for rule in app.url_map.iter_rules() if "POST" in (rule.methods or ())}
    assert posts <= fuzzed, f"POST routes no generated input reaches: {sorted(posts - fuzzed)}"
