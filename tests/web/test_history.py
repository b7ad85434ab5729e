"""Web tests of the history: filters, pagination, fragments, exports, imports and query counts."""

from __future__ import annotations

import csv
import html
import io
import json
import re

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.models import Match, Player, Seat
from companion.queries.exchange import match_document
from companion.services import matches as service
from companion.services.seed import seed
from tests.helpers import (
    ADDRESS_KEY,
    HTMX,
    SAMPLES,
    counted,
    csrf_token,
    fresh_database,
    grant_host_rights,
    player_id,
    ref,
    unref,
)
from tests.pages import Element, hrefs, read


def history_items(html: str) -> list[Element]:
    """The history's rows: each a link to its match."""
    return read(html).find_all("a", cls="history-item")


def listed(html: str) -> list[str]:
    """The match ids of the history rows' links, in order."""
    return [str(unref(item["href"].removeprefix("/matches/"))) for item in history_items(html)]


def links(html: str) -> list[str]:
    """Where the page's links lead (those drawn as buttons, such as the pages' Older and Newer, too)."""
    return hrefs(read(html))


def test_history_is_newest_first_with_game_players_winners_totals_and_state(client, samples):
    html = client.get("/history").get_data(as_text=True)
    assert listed(html) == [str(samples[uid]) for uid in ("on", "pk", "to", "bu", "pz")]
    assert "5 matches" in html
    rows = {item["href"]: item.closest("li") for item in history_items(html)}
    burraco = rows[f"/matches/{ref(samples['bu'])}"]
    assert "Burraco PAROLE" in burraco.text and "10 May 2024" in burraco.text and "Ann, Bob" in burraco.text
    # Ann's total is marked as the winner's, Bob's is not.
    totals = [(total.text, "won" in total.classes) for total in burraco.find_all(cls="total")]
    assert totals == [("★ Ann 680", True), ("Bob 450", False)]
    assert burraco.one(aria_label="winner").text == "★"
    assert "Finished" in burraco.text
    assert "In progress" in rows[f"/matches/{ref(samples['on'])}"].text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("game=topic", ["on", "to"]),
        ("q=cy", ["on", "to"]),
        ("q=AN", ["pk", "to", "bu", "pz"]),
        ("q=nobody", []),
        ("from=2025-01-01", ["on", "pk", "to"]),
        ("to=2024-12-31", ["bu", "pz"]),
        ("from=2024-05-10&to=2025-01-15", ["to", "bu"]),
        ("game=topic&q=ann", ["to"]),
        ("game=pazaak&from=2025-01-01&q=bob", ["pk"]),
        ("game=chess", ["on", "pk", "to", "bu", "pz"]),
    ],
)
def test_filters_combine(client, samples, query, expected):
    html = client.get(f"/history?{query}").get_data(as_text=True)
    assert listed(html) == [str(samples[uid]) for uid in expected]


def test_player_filter_by_roster_entry(client, app, samples):
    html = client.get(f"/history?player={ref(player_id(app, 'Cy'), 'player')}&game=topic").get_data(as_text=True)
    assert listed(html) == [str(samples["on"]), str(samples["to"])]
    player = read(html).one_by_role("combobox", "Player")
    chosen = [(option["value"], option.text) for option in player.find_all("option") if option.has("selected")]
    assert chosen == [(ref(player_id(app, "Cy"), "player"), "Cy")]


def test_a_players_pages_list_and_count_exactly_their_matches(client, app):
    with app.app_context():
        seed(250, 8)
        service.create_match("topic", ["Ann", "Bob"], {})  # in progress: counted and listed too
        newest_first = (Match.started_at.desc(), Match.id.desc())
        wanted = {}
        for who in db.session.scalars(select(Player).where(Player.key.in_(["ann", "bob", "luca"]))):
            for game in ("", "topic", "burraco"):
                found = select(Match.id).where(Match.id.in_(select(Seat.match_id).where(Seat.player_id == who.id)))
                if game:
                    found = found.where(Match.game == game)
                wanted[who.id, game] = [str(match_id) for match_id in db.session.scalars(found.order_by(*newest_first))]
    for (who, game), expected in wanted.items():
        shown, page = [], 1
        while True:
            html = client.get(f"/history?player={ref(who, 'player')}&game={game}&page={page}").get_data(as_text=True)
            if page == 1:
                count = re.match(r"(\d+) match", "".join(p.text for p in read(html).find_all(cls="history-count")))
                assert (int(count.group(1)) if count else 0) == len(expected), (who, game)
            if not listed(html):
                break
            shown += listed(html)
            page += 1
        assert shown == expected, (who, game)
    assert max(len(expected) for expected in wanted.values()) > 20  # more than a page


ITALIAN = {"Accept-Language": "it-IT,it;q=0.9"}
ENGLISH = {"Accept-Language": "en-GB,en;q=0.9"}


def date_input(html: str, name: str) -> Element:
    """One of the history's date fields."""
    return read(html).one("input", name=name)


def field_message(html: str, name: str) -> str:
    """What the page says beside a date field ("" for nothing)."""
    return read(html).by_id(f"history-{name}-error").text


def test_a_bad_date_is_named_beside_its_field_with_a_4xx_and_ignored(client, samples):
    response = client.get("/history?from=yesterday")
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert field_message(html, "from") == "Not a date: write it as mm/dd/yyyy."
    field = date_input(html, "from")
    assert field.get("aria-invalid") == "true" and field["value"] == "yesterday"
    assert field["aria-describedby"] == "history-from-error"
    assert len(listed(html)) == 5


def test_a_bad_date_in_a_live_filter_change_is_named_beside_the_field_and_not_kept_as_the_address(client, samples):
    response = client.get("/history?from=31/02/2026", headers={**HTMX, **ITALIAN})
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and response.headers["HX-Push-Url"] == "false"
    # The results swap does not hold the form: the message reaches its field out of band.
    assert not read(html).find_all(cls="history-filters")
    assert read(html).by_id("history-from-error")["hx-swap-oob"] == "true"
    assert field_message(html, "from") == "Non è una data: scrivila come gg/mm/aaaa."
    assert field_message(html, "to") == "" and len(listed(html)) == 5


@pytest.mark.parametrize(
    ("headers", "typed", "placeholder"),
    [(ITALIAN, "10/05/2024", "gg/mm/aaaa"), (ENGLISH, "05/10/2024", "mm/dd/yyyy")],
)
def test_date_fields_read_and_write_days_as_the_pages_language_does(client, samples, headers, typed, placeholder):
    response = client.get(f"/history?from={typed}&to={typed}", headers=headers)
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert listed(html) == [str(samples["bu"])]  # started on 10 May 2024
    field = date_input(html, "from")
    assert field["value"] == typed and field["placeholder"] == placeholder
    # A link of the history carries the ISO day, which reads the same in every language.
    linked = client.get("/history?from=2024-05-10", headers=headers).get_data(as_text=True)
    assert date_input(linked, "from")["value"] == typed


def test_a_filter_change_keeps_the_address_with_iso_dates(client, samples):
    response = client.get("/history?q=&game=&player=&from=10.5.24&to=", headers={**HTMX, **ITALIAN})
    assert response.status_code == 200
    assert response.headers["HX-Push-Url"] == "/history?from=2024-05-10"
    page = client.get(response.headers["HX-Push-Url"], headers=ENGLISH).get_data(as_text=True)
    assert date_input(page, "from")["value"] == "05/10/2024" and len(listed(page)) == 4


def test_an_end_before_the_start_is_named_beside_the_end(client, samples):
    response = client.get("/history?from=2025-01-01&to=2024-01-01")
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert field_message(html, "to") == "This day comes before the “From” day."
    assert field_message(html, "from") == "" and len(listed(html)) == 3


def test_htmx_gets_the_results_alone_and_the_pushed_url_a_full_page(client, samples):
    fragment = client.get("/history?game=topic", headers=HTMX)
    text = fragment.get_data(as_text=True)
    assert not read(text).find_all("html") and history_items(text) and not read(text).find_all(cls="history-filters")
    assert "HX-Request" in fragment.headers["Vary"]
    page = client.get("/history?game=topic").get_data(as_text=True)
    assert "<!doctype html>" in page.lower() and read(page).one("form", cls="history-filters")
    restored = client.get("/history?game=topic", headers={**HTMX, "HX-History-Restore-Request": "true"})
    assert "<!doctype html>" in restored.get_data(as_text=True).lower()


def test_filter_form_updates_as_you_type_and_works_without_js(client):
    html = client.get("/history").get_data(as_text=True)
    form = read(html).one("form", cls="history-filters")
    assert (form["method"], form["action"]) == ("get", "/history")
    assert (form["hx-get"], form["hx-push-url"], form["hx-target"]) == ("/history", "true", "#history-results")
    assert "input changed delay:250ms" in form["hx-trigger"] and form.has("hx-indicator")


def test_pagination_keeps_the_filters(client, app):
    with app.app_context():
        seed(45, 7)
        total = db.session.scalar(select(func.count(Match.id)).where(Match.game == "topic"))
    first = client.get("/history").get_data(as_text=True)
    assert len(listed(first)) == 20 and "page 1 of 3" in first
    assert "/history?page=2" in links(first)
    last = client.get("/history?page=3").get_data(as_text=True)
    assert len(listed(last)) == 5 and "/history?page=2" in links(last)
    assert not set(listed(first)) & set(listed(last))
    filtered = client.get("/history?game=topic&page=1").get_data(as_text=True)
    assert len(listed(filtered)) == min(total, 20)
    if total > 20:
        assert "/history?game=topic&page=2" in links(filtered)
    beyond = client.get("/history?page=99").get_data(as_text=True)
    assert listed(beyond) == [] and "Back to the first page" in beyond


def test_json_export_is_every_match_file(client, app, samples):
    response = client.get("/history/export.json")
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    exported = json.loads(response.get_data(as_text=True))
    with app.app_context():
        stored = [match_document(m) for m in db.session.scalars(select(Match).order_by(Match.id))]
    assert exported == json.loads(json.dumps(stored))
    assert [d["id"] for d in exported] == ["pz", "bu", "to", "pk", "on"]


def test_csv_export_one_line_per_round_per_side(client, samples):
    response = client.get("/history/export.csv")
    assert response.mimetype == "text/csv"
    lines = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert lines[0] == [
        "match",
        "game",
        "date",
        "round",
        "side",
        "round score",
        "running total",
        "points",
        "scored with",
    ]
    burraco = [line for line in lines[1:] if line[0] == ref(samples["bu"])]
    assert burraco == [
        [ref(samples["bu"]), "burraco", "2024-05-10", "1", "Ann", "600", "600", "600", ""],
        [ref(samples["bu"]), "burraco", "2024-05-10", "1", "Bob", "50", "50", "50", ""],
        [ref(samples["bu"]), "burraco", "2024-05-10", "2", "Ann", "80", "680", "80", ""],
        [ref(samples["bu"]), "burraco", "2024-05-10", "2", "Bob", "400", "450", "400", ""],
    ]
    pazaak = [line[3:] for line in lines[1:] if line[0] == ref(samples["pk"])]
    assert pazaak[-2:] == [["4", "Ann", "1", "2", "", ""], ["4", "Bob", "0", "1", "", ""]]
    # 3 + 2 + 3 + 4 + 1 rounds, one line per side each.
    assert len(lines) - 1 == 3 * 2 + 2 * 2 + 3 * 3 + 4 * 2 + 1 * 2


def test_csv_export_has_each_word_and_its_score(client, samples):
    lines = list(csv.reader(io.StringIO(client.get("/history/export.csv").get_data(as_text=True))))
    words = [(line[3], line[4], line[7], line[8]) for line in lines[1:] if line[0] == ref(samples["pz"])]
    # The word scores by the rulebook: the upper row's points minus one per unused card.
    assert words == [
        ("1", "Ann", "18", "ZANZARA"),
        ("1", "Bob", "-2", "RE"),
        ("2", "Ann", "-2", "OCA"),
        ("2", "Bob", "28", "GATTO"),
        ("3", "Ann", "14", "QUIZ"),
        ("3", "Bob", "-6", ""),
    ]


def _upload(client, content: bytes, name="history.json"):
    token = csrf_token(client, "/history")
    return client.post(
        "/history/import",
        data={"csrf_token": token, "file": (io.BytesIO(content), name)},
        content_type="multipart/form-data",
    )


def _count(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count(Match.id)))


def test_import_stores_a_file_once(host_client, app):
    content = json.dumps(SAMPLES).encode()
    first = _upload(host_client, content)
    assert first.status_code == 302
    assert "Imported 5 match(es); 0 already stored." in host_client.get("/history").get_data(as_text=True)
    again = _upload(host_client, content)
    assert again.status_code == 302
    assert "Imported 0 match(es); 5 already stored." in host_client.get("/history").get_data(as_text=True)
    assert _count(app) == 5


def test_export_then_import_into_an_empty_database_round_trips(host_client, app, samples, tmp_path):
    from companion import create_app

    exported = host_client.get("/history/export.json").get_data()
    # An empty database: a fresh one on the PostgreSQL server too, never the server's shared one.
    with fresh_database() as url:
        config = {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": url or f"sqlite:///{tmp_path / 'other.sqlite'}",
            "SECRET_KEY": ADDRESS_KEY,
        }
        other = create_app(config, instance_path=str(tmp_path / "other"))
        other_client = grant_host_rights(other.test_client())
        assert _upload(other_client, exported).status_code == 302
        assert json.loads(other_client.get("/history/export.json").get_data()) == json.loads(exported)
        with other.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{not json", "The file is not valid JSON: line 1, column 2"),
        (b'[{"game": "caf\xe9"}]', "The file is not valid JSON: it is not UTF-8 text"),
        (json.dumps([SAMPLES[0], {**SAMPLES[1], "id": "x", "game": "chess"}]).encode(), "Match 2: game: unknown game"),
        (json.dumps({**SAMPLES[2], "rounds": [{"losers": ["Zed"]}]}).encode(), "Round 1: losers"),
        (b"[]", "The file holds no match"),
    ],
)
def test_a_bad_file_is_refused_with_the_reason_and_nothing_stored(host_client, app, content, reason):
    response = _upload(host_client, content)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert reason in html
    # The refusal is the description of the file field.
    assert [element for element in read(html).iter() if element.get("aria-describedby") == "import-error"]
    assert read(html).by_id("import-error")
    assert _count(app) == 0


def test_an_import_refusal_reads_in_the_pages_language(host_client, app):
    host_client.set_cookie("lang", "it")
    bad = json.dumps([SAMPLES[0], {**SAMPLES[2], "id": "y", "rounds": [{"losers": ["Zed"]}]}]).encode()
    html = _upload(host_client, bad).get_data(as_text=True)
    assert read(html).by_id("import-error").text.startswith("Partita 2: turno 1: losers: ")
    assert _count(app) == 0


def test_a_match_file_saved_with_a_byte_order_mark_is_imported(host_client, app):
    # As Windows' Notepad saves UTF-8: JSON lets a reader ignore the mark.
    assert _upload(host_client, "\ufeff".encode() + json.dumps(SAMPLES[0]).encode()).status_code == 302
    assert _count(app) == 1


def test_an_unreadable_file_is_told_where_in_the_pages_language(host_client, app):
    host_client.set_cookie("lang", "it")
    html = _upload(host_client, b'[{"game": "topic",}]').get_data(as_text=True)
    assert read(html).by_id("import-error").text == "Il file non è un JSON valido: riga 1, colonna 19"
    assert _count(app) == 0


@pytest.mark.parametrize(
    ("query", "field"), [("from=garbage", "from"), ("from=2026-01-01&to=2025-01-01", "to"), ("to=" + "9" * 300, "to")]
)
@pytest.mark.parametrize("kind", ["json", "csv"])
def test_an_export_whose_dates_are_not_dates_is_refused_beside_the_field_not_widened(
    host_client, samples, query, field, kind
):
    # Its file held every match (a date dropped): the history page says which date, as for its own filters.
    response = host_client.get(f"/history/export.{kind}?{query}")
    assert response.status_code == 400
    assert "attachment" not in response.headers.get("Content-Disposition", "")
    assert read(response.get_data(as_text=True)).by_id(f"history-{field}-error")


def test_an_import_refused_redraws_the_history_as_it_was_filtered(host_client, app, samples):
    page = host_client.get("/history?game=topic").get_data(as_text=True)
    action = html.unescape(re.search(r'action="(/history/import[^"]*)"', page).group(1))
    token = csrf_token(host_client, "/history")
    refused = host_client.post(action, data={"csrf_token": token, "file": (io.BytesIO(b"{"), "bad.json")},
                               content_type="multipart/form-data")  # fmt: skip
    drawn = refused.get_data(as_text=True)
    assert refused.status_code == 422 and read(drawn).by_id("import-error")
    assert '<option value="topic" selected>' in drawn
    assert {game for game in re.findall(r'class="game-tag game-(\w+)"', drawn)} == {"topic"}


def test_the_import_says_how_large_a_file_it_takes_and_a_larger_one_is_refused(host_client, app):
    assert "(.json, one match or a list, up to 2 MB)" in host_client.get("/history").get_data(as_text=True)
    refused = _upload(host_client, b" " * (2 * 1024 * 1024 + 1))
    assert refused.status_code == 413 and "at most 2 MB" in refused.get_data(as_text=True)
    assert _count(app) == 0


def test_import_without_a_file_is_refused(host_client, app):
    token = csrf_token(host_client, "/history")
    response = host_client.post("/history/import", data={"csrf_token": token}, content_type="multipart/form-data")
    assert response.status_code == 422 and "Choose a match file" in response.get_data(as_text=True)


def test_match_page_has_the_chart(client, app, samples):
    html = client.get(f"/matches/{ref(samples['bu'])}").get_data(as_text=True)
    chart = read(html).one("section", cls="chart")
    image = chart.one_by_role("img")
    assert image.tag == "svg" and "totals-chart" in image.classes
    # Burraco's rounds are hands, in the heading, the axis and the name a screen reader hears.
    assert chart.one_by_role("heading").text == "Totals after each hand"
    assert "Hand" in [label.text for label in image.find_all("text")]
    assert image.name() == "Totals after each of 2 hands: Ann 680, Bob 450"
    # The CSP allows no inline script or style: the SVG must carry neither.
    assert not chart.find_all("script") and not chart.find_all("style")
    assert not [element for element in chart.iter() if element.has("style")]


@pytest.mark.parametrize(
    ("uid", "heading", "label"),
    [
        ("bu", "Totali dopo ogni mano", "Totali dopo ognuna delle 2 mani: Ann 680, Bob 450"),
        ("pk", "Totali dopo ogni set", "Totali dopo ognuno dei 4 set: Ann 2, Bob 1"),
        ("to", "Totali dopo ogni turno", "Totali dopo ognuno dei 3 turni: Ann 0, Bob 2, Cy 1"),
        ("on", "Totali dopo ogni turno", "Totali dopo 1 turno: Cy 0, Di 1"),
    ],
)
def test_the_chart_speaks_the_pages_language_and_the_games_words(client, samples, uid, heading, label):
    html = client.get(f"/matches/{ref(samples[uid])}", headers=ITALIAN).get_data(as_text=True)
    chart = read(html).one("section", cls="chart")
    assert chart.one_by_role("heading").text == heading and chart.one_by_role("img").name() == label


def test_the_chart_is_drawn_once_per_state_of_the_match_and_slim(client, app, samples, monkeypatch):
    from companion.web import charts

    drawn = []
    line = charts.pygal.Line
    monkeypatch.setattr(charts.pygal, "Line", lambda *args, **kwargs: drawn.append(1) or line(*args, **kwargs))
    charts._chart.cache_clear()

    def chart() -> str:
        html = client.get(f"/matches/{ref(samples['on'])}").get_data(as_text=True)
        chart = html[html.index("<svg xmlns") :]
        return chart[: chart.index("</svg>")]

    first = chart()
    assert chart() == first and len(drawn) == 1
    assert "Totals after 1 round: Cy 0, Di 1" in first
    # Two decimals at most, no wrapper group per dot, only the classes the page reads.
    assert not re.search(r"\d\.\d{3}", first) and first.count("<circle") == 4
    assert set(re.findall(r'class="([^"]+)"', first)) == {"totals-chart", "series", "line"}
    with app.app_context():
        service.save_round(db.session.get(Match, samples["on"]), {"losers": ["Cy"]})
    assert "Totals after each of 2 rounds: Cy 1, Di 1" in chart() and len(drawn) == 2


def test_match_duration_reads_like_a_person(app):
    from datetime import datetime

    from companion.web.display import match_duration

    with app.app_context():
        match = Match(game="topic", started_at=datetime(2025, 1, 1, 20, 0), finished_at=datetime(2025, 1, 1, 21, 5))
        assert match_duration(match) == "1 h 05 min"
        match.finished_at = datetime(2025, 1, 1, 20, 42)
        assert match_duration(match) == "42 min"
        match.finished_at = None
        assert match_duration(match) is None


# --- Query counts ---------------------------------------------------------------------


def _queries_per_page(app, client) -> dict[str, int]:
    """The statements each history and player page runs."""
    with app.app_context():
        # The newest match's game and first player, so that every filtered page has rows.
        newest = db.session.scalars(select(Match).order_by(Match.started_at.desc())).first()
        who, game = newest.seats[0].player, newest.game
    address = ref(who.id, "player")
    pages = {"history": "/history", "filtered": f"/history?game={game}&player={address}&from=2020-01-01",
             "search": f"/history?q={who.name[:3]}", "player": f"/players/{address}", "players": "/players",
             "board": f"/players?game={game}"}  # fmt: skip
    found = {}
    for kind, url in pages.items():
        client.get(url)  # warm: the first request of an app may load more (the session, the roster)
        with counted(app) as statements:
            assert client.get(url).status_code == 200
        found[kind] = len(statements)
    return found


def test_pages_run_the_same_queries_with_10_and_with_500_matches(app, client):
    with app.app_context():
        seed(10, 1)
    few = _queries_per_page(app, client)
    with app.app_context():
        seed(490, 2)
        assert db.session.scalar(select(func.count(Match.id))) == 500
    many = _queries_per_page(app, client)
    assert few == many
    assert max(many.values()) <= 8
