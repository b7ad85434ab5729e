"""Bad input answered with a message, never a 500: the reported cases, the caps on what is stored, names."""

from __future__ import annotations

import io
import json
import re

import pytest

from companion.extensions import db
from companion.games.checks import name_key, validate_players
from companion.games.refusals import RuleError
from companion.models import Match, Player
from companion.services import bounds
from companion.services import matches as service
from companion.web.bytecache import ByteBoundedCache, weight
from tests.helpers import HTMX, csrf_token, dump, examples, post_new_match, ref, save_round, start_match, stored_match


def example(game: str) -> dict:
    """A fresh copy of a game's documented match file, without its id."""
    document = json.loads(json.dumps(examples()[game]["match file"]))
    document.pop("id", None)
    return document


@pytest.mark.parametrize(
    "query",
    ["page=²", "player=²", "page=99999999999999999999999", "player=99999999999999999999", "page=-3",
     "player=\u0663", "q=" + "x" * 5000],
)  # fmt: skip
def test_history_filters_that_made_no_sense_answer_a_page(client, query):
    for headers in ({}, HTMX):
        response = client.get(f"/history?{query}", headers=headers)
        assert response.status_code == 200, query


@pytest.mark.parametrize(
    "query", ["to=9999-12-31", "from=0001-01-01", "to=" + "9" * 5000, "from=2026-12-01" + " " * 5000, "to=\u0663"]
)
def test_a_date_beyond_the_calendar_or_overlong_is_named_beside_its_field(client, query):
    field = query.split("=")[0]
    for headers in ({}, HTMX):
        response = client.get(f"/history?{query}", headers=headers)
        html = response.get_data(as_text=True)
        assert response.status_code == 400, query
        assert re.search(rf'id="history-{field}-error"[^>]*>Not a date', html), query


@pytest.mark.parametrize(
    ("game", "action"),
    [("topic", "up:²"), ("topic", "remove:²"), ("topic", "up:" + "9" * 5000), ("pazaak", "pazaak-drop:²:0"),
     ("pazaak", "pazaak-drop:0:²"), ("pazaak", "pazaak-for:²"), ("pazaak", "pazaak-for:" + "1" * 5000)],
)  # fmt: skip
def test_new_match_taps_with_odd_numbers_change_nothing(app, client, game, action):
    response = post_new_match(client, game, ["Ann", "Bob"], action=action, htmx=True)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    # The seats as they were; read from the seat fields, as a page's random CSRF token can spell a name.
    assert re.findall(r'name="seat" value="([^"]*)"', html) == ["Ann", "Bob"]


def test_a_5000_digit_card_count_is_refused_with_a_message(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    form = {"theme": "x", "used-0": "9" * 5000, "used-1": "1", "active": "²"}
    response = save_round(client, match_id, form)
    assert response.status_code == 422
    assert "must have at most 6 digits" in response.get_data(as_text=True)
    assert stored_match(app, match_id).rounds == []
    entry = client.post(f"/matches/{ref(match_id)}/entry", data={**form, "csrf_token": csrf_token(client, "/")},
                        headers=HTMX)  # fmt: skip
    assert entry.status_code == 200


def upload(client, content: bytes):
    token = csrf_token(client, "/history")
    return client.post("/history/import", data={"csrf_token": token, "file": (io.BytesIO(content), "m.json")},
                       content_type="multipart/form-data")  # fmt: skip


def spoilt(game: str, change) -> bytes:
    document = example(game)
    change(document)
    return json.dumps(document).encode()


IMPORTS = {
    "100,000 nested brackets": (b"[" * 100_000 + b"]" * 100_000, "nests deeper"),
    "a 5000-digit integer": (b"9" * 5000, "digits is far larger"),
    "a 5000-digit integer in a round": (
        spoilt("topic", lambda d: d["rounds"][0].update(extra=10**30)).replace(b"1" + b"0" * 30, b"9" * 5000),
        "digits is far larger",
    ),
    "a Burraco table of 1e20": (
        spoilt("burraco", lambda d: d["rounds"][0]["sides"]["Noi"].update(table=1e20)),
        "at most 1,000,000",
    ),
    "a Burraco table of 10**20": (
        spoilt("burraco", lambda d: d["rounds"][0]["sides"]["Noi"].update(table=10**20)),
        "far larger",
    ),
    "a start in the year 1, east of UTC": (
        spoilt("topic", lambda d: d.update(started="0001-01-01T00:00:00+14:00")),
        "outside the calendar",
    ),
    "a finish in 9999": (spoilt("topic", lambda d: d.update(finished="9999-12-31T23:59:59")), "9999"),
    "NaN": (spoilt("topic", lambda d: d["rounds"][0].update(extra=0)).replace(b'"extra": 0', b'"extra": NaN'), "NaN"),
    "a theme of 201 characters": (
        spoilt("pazzaparola", lambda d: d["rounds"][0].update(theme="x" * 201)),
        "at most 200 characters",
    ),
    "an extra key of 41 characters": (
        spoilt("topic", lambda d: d["rounds"][0].update({"k" * 41: 1})),
        "a key has at most 40 characters",
    ),
    "a round nested 8 deep": (
        spoilt("topic", lambda d: d["rounds"][0].update(note=[[[[[[[1]]]]]]])),
        "nests more than",
    ),
    "1001 rounds": (spoilt("topic", lambda d: d.update(rounds=[{"losers": ["Bob"]}] * 1001)), "at most 1000 rounds"),
    "a name with a zero-width space": (
        spoilt("topic", lambda d: d.update(players=["Ann\u200b", "Bob", "Cy"])),
        "invisible or control",
    ),
}


@pytest.mark.parametrize("case", sorted(IMPORTS))
def test_an_import_that_cannot_be_kept_is_refused_with_the_reason(app, host_client, case):
    content, reason = IMPORTS[case]
    before = dump(app)
    response = upload(host_client, content)
    assert response.status_code == 422, case
    html = response.get_data(as_text=True)
    assert 'id="import-error"' in html and reason in html, (case, html[html.find("import-error") :][:300])
    assert dump(app) == before


def test_a_match_takes_no_round_past_the_cap(app, client, monkeypatch):
    monkeypatch.setattr(bounds, "MAX_ROUNDS", 2)
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"], length="exact", deck="40")
    for _ in range(2):
        assert save_round(client, match_id, {"loser": "Bob"}).status_code == 200
    refused = save_round(client, match_id, {"loser": "Bob"})
    assert refused.status_code == 422 and "at most 2 rounds" in refused.get_data(as_text=True)
    assert len(stored_match(app, match_id).rounds) == 2


def test_a_theme_over_200_characters_is_refused_from_the_form(app, client):
    match_id = start_match(client, "pazzaparola", ["Ann", "Bob"])
    with app.app_context():
        match = db.session.get(Match, match_id)
        data = {"theme": "x" * 201, "rows": {"Ann": {"used": [9, 9], "unused": 6}, "Bob": {"used": [1], "unused": 7}}}
        with pytest.raises(RuleError, match="at most 200 characters"):
            service.save_round(match, data)
        db.session.remove()
    assert stored_match(app, match_id).rounds == []


@pytest.mark.parametrize(
    "name",
    ["Ann\x00", "Ann\x1b[31m", "\u202eAnn", "Ann\u200b", "A\u200dnn", "An\u2028n", "An\u2029n", "\ufeffAnn", "An\tn"],
)
def test_names_with_control_or_invisible_characters_are_refused(app, client, name):
    with pytest.raises(RuleError, match="invisible or control"):
        validate_players([name, "Bob"])
    response = post_new_match(client, "topic", ["Bob"], action="new", htmx=True, new_name=name)
    assert response.status_code == 422
    assert "invisible or control characters" in response.get_data(as_text=True)
    started = post_new_match(client, "topic", [name, "Bob"])
    assert started.status_code == 422
    with app.app_context():
        assert db.session.query(Player).count() == 0
        db.session.remove()


def test_names_equal_after_nfc_and_case_folding_are_one_player(app, client):
    composed, decomposed = "Zo\u00eb", "ZOE\u0308"
    assert name_key(composed) == name_key(decomposed)
    with pytest.raises(RuleError, match="seated twice"):
        validate_players([composed, decomposed])
    assert validate_players([decomposed, "Bob"])[0] == "ZO\u00cb"  # kept in NFC
    first = start_match(client, "topic", [composed, "Bob"])
    second = start_match(client, "topic", [decomposed, "Bob"])
    with app.app_context():
        players = {seat.player_id for m in (first, second) for seat in db.session.get(Match, m).seats}
        assert len(players) == 2
        db.session.remove()


def test_a_rename_to_a_name_with_an_rtl_override_is_refused(app, host_client):
    start_match(host_client, "topic", ["Ann", "Bob"])
    with app.app_context():
        ann = db.session.query(Player).filter_by(name="Ann").one().id
        db.session.remove()
    token = csrf_token(host_client, f"/players/{ref(ann, 'player')}")
    response = host_client.post(
        f"/players/{ref(ann, 'player')}/rename", data={"csrf_token": token, "name": "\u202ennA"}
    )
    assert response.status_code == 422
    assert "invisible or control characters" in response.get_data(as_text=True)


def test_byte_bounded_caches_keep_under_their_budget():
    cache = ByteBoundedCache(100_000)
    for number in range(200):
        cache.put(("match", number), "x" * 2_000)
    assert cache.held <= 100_000 and 0 < len(cache) < 200
    assert cache.get(("match", 199)) == "x" * 2_000 and cache.get(("match", 0)) is None
    cache.put("huge", "x" * 50_000)  # over a quarter of the budget: never kept
    assert cache.get("huge") is None
    assert weight(("a", (1, 2))) > weight("a")


def test_the_viewers_fragments_and_the_charts_are_bounded_by_bytes():
    from companion.web import charts, live

    assert isinstance(live._DRAWN, ByteBoundedCache) and live._DRAWN.max_bytes <= 16 * 1024 * 1024
    assert charts._chart.cache.max_bytes <= 16 * 1024 * 1024
