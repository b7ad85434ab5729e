"""A round kept on a phone offline is said as the server's read-back says it: each game's describers, both languages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st
from playwright.sync_api import Page, Route
from werkzeug.datastructures import MultiDict

from companion.games import get_game
from companion.games.checks import clean_name, name_fits, name_key
from companion.games.pazaak.rules import HAND_CARDS
from companion.games.pazaak.table_rules import TABLE_SIZE
from companion.games.refusals import RuleError
from companion.web.assets import bundle_url
from companion.web.i18n import LANGUAGES, translated
from tests.helpers import generated

pytestmark = pytest.mark.e2e

# The four games with an offline describer (static/js/games/<slug>.js); the tests' fifth game has none.
GAMES = ("burraco", "pazaak", "pazzaparola", "topic")

# Names as a table types them, with what could trip a formatter: "%(n)s", brackets, a dotted capital I.
NAME = (
    st.text(alphabet="AbcdeÉèßøİıÜ '.-%()s", min_size=1, max_size=10)
    .map(clean_name)
    .filter(lambda name: bool(name) and name_fits(name))
)


def seated(low: int, high: int) -> st.SearchStrategy[list[str]]:
    """A seat list of distinct people (as names compare)."""
    return st.lists(NAME, min_size=low, max_size=high, unique_by=name_key)


# --- each game's matches and rounds, as the new-match form sets them up and the entry form posts them

Match = tuple[list[str], dict[str, Any]]
Fields = list[tuple[str, str]]


@st.composite
def topic_match(draw) -> Match:
    return draw(seated(2, 10)), {}


@st.composite
def topic_round(draw, match: Match) -> Fields:
    """One tap on a loser, or several ticked; penalty cards on anyone, any number of times."""
    players, _ = match
    if draw(st.booleans()):
        losers = draw(st.lists(st.sampled_from(players), min_size=1, unique=True))
        fields = [("several", "on"), *(("losers", name) for name in losers)]
    else:
        fields = [("loser", draw(st.sampled_from(players)))]
    return fields + [("penalty", name) for name in draw(st.lists(st.sampled_from(players), max_size=5))]


@st.composite
def pazzaparola_match(draw) -> Match:
    return draw(seated(2, 8)), {"cards": draw(st.integers(1, 20)), "target": draw(st.integers(1, 20))}


@st.composite
def pazzaparola_round(draw, match: Match) -> Fields:
    """Each row's chips (never more than the cards dealt, at least one chip in the round) and words."""
    players, raw = match
    fields: Fields = [("theme", draw(st.sampled_from(["", "Kitchen"])))]
    for seat in range(len(players)):
        for points in draw(st.lists(st.integers(0, 99), max_size=raw["cards"])):
            fields.append((f"used-{seat}", str(points)))
        fields.append((f"word-{seat}", draw(st.sampled_from(["", "GATTO", " casa "]))))
    if not any(name.startswith("used-") for name, _ in fields):
        fields.append(("used-0", str(draw(st.integers(0, 99)))))
    return fields


@st.composite
def burraco_match(draw) -> Match:
    """Alone (2 to 5), or four in two named pairs; any bonus values."""
    raw = {key: draw(st.integers(0, 300)) for key in ("clean", "dirty", "closing")}
    if draw(st.booleans()):
        players = draw(seated(4, 4))
        first, second = draw(st.lists(NAME, min_size=2, max_size=2, unique_by=name_key))
        raw["teams"] = {first: [players[0], players[2]], second: [players[1], players[3]]}
        return players, raw
    return draw(seated(2, 5)), raw


def keypad_sum(draw) -> str:
    """Points as typed on the keypad: blank, a number, or a sum ("25+10 +5")."""
    terms = draw(st.lists(st.integers(0, 999), max_size=4))
    return draw(st.sampled_from(["+", " + ", "+ "])).join(map(str, terms))


@st.composite
def burraco_round(draw, match: Match) -> Fields:
    """Each side's points laid and left in hand, its burraco, and who closed (with a burraco, alone holding nothing)."""
    players, raw = match
    sides = list(raw["teams"]) if "teams" in raw else players
    closer = draw(st.sampled_from(["", *sides]))
    fields: Fields = []
    for number, side in enumerate(sides, start=1):
        clean, dirty = draw(st.integers(0, 4)), draw(st.integers(0, 4))
        if side == closer and clean + dirty == 0:
            clean = 1
        held = "" if side == closer and "teams" not in raw else keypad_sum(draw)
        fields += [(f"table_{number}", keypad_sum(draw)), (f"hand_{number}", held)]
        clean_field = str(clean) if clean or draw(st.booleans()) else ""
        fields += [(f"clean_{number}", clean_field), (f"dirty_{number}", str(dirty))]
    return [*fields, ("closed_by", closer)]


@st.composite
def pazaak_match(draw) -> Match:
    return draw(seated(2, 2)), {}


@st.composite
def pazaak_card(draw) -> dict[str, Any]:
    """A card on a table: from the main deck, or a side card (the Tiebreaker among them)."""
    if draw(st.booleans()):
        value = draw(st.integers(1, 10))
        return {"label": str(value), "kind": "main", "face": value, "value": value, "hand": None}
    # The Tiebreaker often: whether one player, both or none played it decides a tied set.
    hand = draw(st.sampled_from((*HAND_CARDS, *["T\u00b11"] * 6)))
    value = draw(st.sampled_from([-1, 1])) if hand == "T\u00b11" else draw(st.integers(-6, 6))
    return {"label": hand, "kind": "side", "face": abs(value), "value": value, "hand": hand}


@st.composite
def pazaak_round(draw, match: Match) -> Fields:
    """A quick result's tap, or the calculator's finished set saved (its state in the `table` field)."""
    players, _ = match
    if draw(st.booleans()):
        return [("winner", draw(st.sampled_from(["0", "1", "tie"])))]
    tables = [
        {"cards": draw(st.lists(pazaak_card(), min_size=1, max_size=TABLE_SIZE - 1)), "stood": draw(st.booleans())}
        for _ in players
    ]
    # Often the second table's last card evens the totals: the sets the tiebreaker or nobody wins.
    gap = sum(card["value"] for card in tables[0]["cards"]) - sum(card["value"] for card in tables[1]["cards"])
    if draw(st.booleans()) and gap != 0:
        tables[1]["cards"].append({"label": f"{gap:+d}", "kind": "side", "face": abs(gap), "value": gap, "hand": None})
    starter = draw(st.integers(0, 1))
    state = {"players": players, "starter": starter, "turn": starter, "drawn": True, "side_played": False,
             "over": True, "tables": tables}  # fmt: skip
    return [("source", "table"), ("table", json.dumps(state, ensure_ascii=False)), ("moves", "[]")]


STRATEGIES = {
    "topic": (topic_match, topic_round),
    "pazzaparola": (pazzaparola_match, pazzaparola_round),
    "burraco": (burraco_match, burraco_round),
    "pazaak": (pazaak_match, pazaak_round),
}


@st.composite
def examples(draw, slug: str) -> tuple[Match, list[tuple[int, Fields]]]:
    """A match of the game and a batch of its rounds, each with its number and the fields every save carries."""
    make_match, make_round = STRATEGIES[slug]
    match = draw(make_match())
    rounds = draw(st.lists(make_round(match), min_size=1, max_size=25))
    numbered = []
    for fields in rounds:
        number = draw(st.integers(1, 60))
        numbered.append((number, [("csrf_token", "x"), ("number", str(number)), *fields, ("round_key", "k")]))
    return match, numbered


# --- the two describers


# Where the page is served from: the app's test client, through the browser's request routing (no server).
ORIGIN = "http://companion.test"


def load_describers(page: Page, app: Flask, slug: str, language: str) -> None:
    """A page holding nothing but the app's own bundles: the shared script, and the offline sender's words in
    `language` with the game's entry script, as a match page in that language loads them."""
    client = app.test_client()
    with app.test_request_context():
        urls = [bundle_url("js"), bundle_url("js", f"offline.{language}+entry-{slug}")]
    scripts = "".join(f'<script type="module" src="{url}"></script>' for url in urls)

    def serve(route: Route) -> None:
        path = route.request.url.removeprefix(ORIGIN)
        if path == "/":
            page_text = f"<!doctype html><html><head>{scripts}</head><body></body></html>"
            route.fulfill(content_type="text/html", body=page_text)
            return
        answer = client.get(path)
        route.fulfill(status=answer.status_code, content_type=answer.content_type, body=answer.get_data())

    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/")
    # The modules the bundles ran, from the registry the shared bundle exports (companion/web/modules.py).
    page.evaluate("async (shared) => { window.linked = (await import(shared)).modules; }", urls[0])
    page.wait_for_function("(slug) => window.linked.get('js/entries.js').describers[slug]", arg=slug)


def said_offline(page: Page, slug: str, context: dict[str, Any], batch: list[tuple[int, Fields]]) -> list[str]:
    """What the phone says of each round kept offline, as offline.js heads its read-back: the game's label, then
    what its describer says was entered."""
    return page.evaluate(
        """([slug, context, batch]) => batch.map(([number, pairs]) =>
            linked.get("js/offline.js").labelOf(slug, number) + " "
            + linked.get("js/offline.js").summaryOf(slug, pairs, context))""",
        [slug, context, batch],
    )


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", GAMES)
def test_a_round_kept_offline_is_said_as_the_server_reads_it_back(page: Page, app: Flask, slug: str, language: str):
    game = get_game(slug)
    load_describers(page, app, slug, language)
    counts = {"made": 0, "described": 0}

    # Many rounds per example, one browser call for each batch.
    @settings(max_examples=generated(50), deadline=None)
    @given(examples(slug))
    def same_words(example):
        (raw_players, raw_settings), batch = example
        players = game.check_players(raw_players)
        match_settings = game.settings(raw_settings, players)
        server, described = [], []
        with app.test_request_context(headers={"Cookie": f"lang={language}"}):
            for number, fields in batch:
                try:
                    round = game.entry.round_from_form(MultiDict(fields), players, match_settings)
                    round = game.check_round(players, match_settings, round, number)
                except RuleError:
                    continue  # a set the calculator could never have finished (both players bust)
                server.append(game.entry.entered_line(number, round, players, match_settings, translated))
                described.append((number, fields))
        counts["made"] += len(batch)
        counts["described"] += len(described)
        context = game.entry.describe_context(players, match_settings)
        assert said_offline(page, slug, context, described) == server

    same_words()
    # The strategies make rounds the rules take: a few of the calculator's made-up sets at most are refused.
    assert counts["described"] >= 0.8 * counts["made"]
