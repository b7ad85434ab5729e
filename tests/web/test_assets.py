"""The pages' stylesheets and scripts travel as a few fingerprinted, compressed bundles: shared, per kind of page."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import brotli

from companion.games import REGISTRY
from tests.helpers import HTMX, entry_fields, finished_match, ref, save_round, start_match
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the bundles each page links: markup and files, no SQL of their own"

# The files a bundle holds, in order: a stylesheet's as comments, a script bundle's as its modules (modules.py); the
# words a script bundle carries are not a file.
FILE_MARK = re.compile(r'/\* ([\w.-]+) \*/|define\("(?:[\w/]+/)?([\w-]+(?:\.min)?\.js)"')


SCRIPT_TAG = r'<script type="module" src="(/bundle/[^"]+)"'


def files_in(bundle: str) -> list[str]:
    """The names of the files a bundle holds, in order."""
    return [css or js for css, js in FILE_MARK.findall(bundle)]


def bundle_urls(client):
    html = client.get("/").get_data(as_text=True)
    css = re.search(r'href="(/bundle/[0-9a-f]+\.css)"', html).group(1)
    js = re.search(r'src="(/bundle/[0-9a-f]+\.js)"', html).group(1)
    return css, js


def test_one_stylesheet_and_one_script_per_page(client):
    html = client.get("/").get_data(as_text=True)
    assert len(re.findall(r'<link rel="stylesheet"', html)) == 1
    assert len(re.findall(r"<script ", html)) == 1
    assert "/static/css/" not in html and "/static/js/" not in html and "/static/vendor/" not in html


def test_pages_name_their_bundles_in_their_head_alone_not_again_in_a_header(client):
    css, js = bundle_urls(client)
    for url in ("/", "/history", "/matches/new", "/offline"):
        answer = client.get(url)
        html = answer.get_data(as_text=True)
        assert f'href="{css}"' in html and f'src="{js}"' in html and "Link" not in answer.headers, url
    assert "Link" not in client.get("/history", headers={"HX-Request": "true", "HX-Boosted": "true"}).headers
    assert "Link" not in client.get("/history?q=a", headers={"HX-Request": "true"}).headers
    assert "Link" not in client.get("/no-such-page").headers


def test_the_shared_bundles_hold_pico_htmx_and_every_games_colour_and_are_cached_for_a_year(client, app):
    css, js = bundle_urls(client)
    response = client.get(css, headers={"Accept-Encoding": "br"})
    assert response.status_code == 200 and response.headers["Content-Encoding"] == "br"
    assert "immutable" in response.headers["Cache-Control"] and "max-age=31536000" in response.headers["Cache-Control"]
    text = brotli.decompress(response.data).decode()
    for name in ("pico.min.css", "app.css", *(f"{slug}.colour.css" for slug in REGISTRY)):
        assert f"/* {name} */" in text
    assert text.index("pico.min.css") < text.index("app.css") < text.index("pazaak.colour.css")
    # Pico as vendored, its licence notice included.
    pico = (Path(app.static_folder) / "vendor/pico/pico.min.css").read_text()
    assert pico in text and "Licensed under MIT" in text
    script = gzip.decompress(client.get(js, headers={"Accept-Encoding": "gzip"}).data).decode()
    assert files_in(script) == ["htmx.min.js", "app.js"]
    assert (Path(app.static_folder) / "vendor/htmx/htmx.min.js").read_text() in script
    assert client.get(js).headers["Content-Type"].startswith("text/javascript")


def page_bundles(client, url, kind):
    """The bundles of one kind a page loads, in order, each as the names of the files it holds."""
    html = client.get(url).get_data(as_text=True)
    tag = r'<link rel="stylesheet" href="(/bundle/[^"]+)"' if kind == "css" else SCRIPT_TAG
    return [files_in(client.get(src).get_data(as_text=True)) for src in re.findall(tag, html)]


def page_files(client, url, kind):
    """Every file of one kind a page loads, as one set of names."""
    return {name for bundle in page_bundles(client, url, kind) for name in bundle}


SHARED_JS = ["htmx.min.js", "app.js"]
GAME_SCRIPTS = {f"{slug}.js" for slug in ("burraco", "pazaak", "pazzaparola", "topic")}


def test_only_the_pages_that_enter_rounds_load_the_offline_sender_and_a_games_entry_widgets(client, app):
    for url in ("/", "/history", "/players", "/preferences"):
        assert page_bundles(client, url, "js") == [SHARED_JS], url
    match = start_match(client, "topic", ["Anna", "Ben", "Carla"])
    # The sender brings what it imports beyond the shared bundle: the focus kept where a save redraws it, the games'
    # offers, what every write needs.
    sender = ["focus.js", "entries.js", "outbox.js", "offline.js"]
    assert page_bundles(client, f"/matches/{ref(match)}", "js") == [SHARED_JS, [*sender, "topic.js"]]
    assert save_round(client, match, entry_fields(app, match, {"losers": ["Ben"]})).status_code == 200
    assert page_bundles(client, f"/matches/{ref(match)}/rounds/1", "js") == [SHARED_JS, ["entries.js", "topic.js"]]
    # Another game may be picked on the new-match form without a new page: every game's widgets.
    assert page_files(client, "/matches/new", "js") == {*SHARED_JS, "entries.js", *GAME_SCRIPTS}
    assert page_bundles(client, "/offline", "js") == [SHARED_JS, [*sender, "kept.js"]]
    # A phone that follows the match loads neither, but is told where they are, for rounds it kept.
    viewer = app.test_client()
    assert page_bundles(viewer, f"/matches/{ref(match)}", "js") == [SHARED_JS]
    html = viewer.get(f"/matches/{ref(match)}").get_data(as_text=True)
    later = re.search(r'data-offline-scripts="([^"]+)"', html).group(1).split()
    assert [files_in(viewer.get(url).get_data(as_text=True)) for url in later] == [[*sender, "topic.js"]]
    assert "data-offline-scripts" not in client.get(f"/matches/{ref(match)}").get_data(as_text=True)
    # A game whose seats send their rows: the scorekeeper's page fills them in (seats.js), a seated phone's too.
    words = start_match(client, "pazzaparola", ["Anna", "Ben"])
    scripts = [*sender, "seats.js", "pazzaparola.js"]
    assert page_bundles(client, f"/matches/{ref(words)}", "js") == [SHARED_JS, scripts]


def page_styles(client, url):
    """Every rule of the stylesheets a page loads, as one text."""
    html = client.get(url).get_data(as_text=True)
    hrefs = re.findall(r'<link rel="stylesheet" href="(/bundle/[^"]+)"', html)
    return "".join(client.get(href).get_data(as_text=True) for href in hrefs)


def test_a_games_pieces_are_styled_only_on_the_pages_that_draw_them_and_its_colour_everywhere(client, app):
    pieces = {"topic": ".topic-standings", "burraco": ".burraco-hands", "pazaak": ".pazaak-standings"}
    pieces["pazzaparola"] = ".pz-standings"
    for url in ("/", "/history", "/players"):
        styles = page_styles(client, url)
        assert all(f"--game-{slug}:" in styles for slug in pieces), url
        assert not [rule for rule in pieces.values() if rule in styles], url
    match = start_match(client, "topic", ["Anna", "Ben", "Carla"])
    assert save_round(client, match, entry_fields(app, match, {"losers": ["Ben"]})).status_code == 200
    for url in (f"/matches/{ref(match)}", f"/matches/{ref(match)}/table", f"/matches/{ref(match)}/rounds/1"):
        styles = page_styles(client, url)
        assert pieces["topic"] in styles and pieces["burraco"] not in styles and pieces["pazaak"] not in styles, url
    assert all(rule in page_styles(client, "/matches/new") for rule in pieces.values())


def test_a_games_entry_widgets_are_styled_only_where_rounds_or_settings_are_entered(client, app):
    widgets = {"topic": ".topic-entry", "burraco": ".burraco-keypad", "pazzaparola": ".pz-tray"}
    match = start_match(client, "topic", ["Anna", "Ben", "Carla"])
    assert save_round(client, match, entry_fields(app, match, {"losers": ["Ben"]})).status_code == 200
    # The scorekeeper's match page and a correction draw the entry; the new-match form every game's settings.
    for url in (f"/matches/{ref(match)}", f"/matches/{ref(match)}/rounds/1"):
        styles = page_styles(client, url)
        assert widgets["topic"] in styles and ".topic-penalties" in styles, url
    assert all(rule in page_styles(client, "/matches/new") for rule in widgets.values())
    # A phone that follows the match, and the table view, draw no entry: they are sent none of its styles,
    # but the game's pieces they do draw.
    viewer = app.test_client()
    for url in (f"/matches/{ref(match)}", f"/matches/{ref(match)}/table"):
        styles = page_styles(viewer, url)
        assert ".topic-standings" in styles and not [rule for rule in widgets.values() if rule in styles], url


def test_the_outage_notes_are_styled_on_match_pages_alone(client, app):
    match = start_match(client, "topic", ["Anna", "Ben", "Carla"])
    viewer = app.test_client()
    for phone in (client, viewer):
        styles = page_styles(phone, f"/matches/{ref(match)}")
        assert ".offline-status" in styles and "#live.reconnecting" in styles
    for url in ("/", "/history", "/players", "/matches/new"):
        assert ".offline-status" not in page_styles(client, url), url


def test_the_history_the_table_view_and_the_new_match_form_bring_their_own_styles(client, app):
    match = start_match(client, "topic", ["Anna", "Ben", "Carla"])
    history, players = page_styles(client, "/history"), page_styles(client, "/players")
    assert ".history-filters" in history and ".record-card" in players
    assert ".table-scores" in page_styles(client, f"/matches/{ref(match)}/table")
    assert ".segmented" in page_styles(client, "/matches/new")
    others = (".history-filters", ".record-card", ".table-scores", ".segmented")
    for url in ("/", f"/matches/{ref(match)}"):
        styles = page_styles(client, url)
        assert not [rule for rule in others if rule in styles], url
        # What any page may show stays in the shared stylesheet: a notice, a field's error, the totals chart.
        assert ".notice" in styles and ".totals-chart" in styles and ".field-error" in styles


def test_the_chances_are_styled_on_match_pages_and_the_new_match_form_only(client, app):
    match = start_match(client, "topic", ["Anna", "Ben", "Carla"])
    for url in (f"/matches/{ref(match)}", "/matches/new"):
        assert ".chances-list" in page_styles(client, url), url
    for url in ("/", "/history", "/players"):
        assert ".chances-list" not in page_styles(client, url), url


def test_a_replay_is_styled_where_it_is_drawn_and_a_match_being_played_goes_without(client, app):
    playing = start_match(client, "topic", ["Anna", "Ben", "Carla"])
    finished, _, _, _ = finished_match(app, "topic")
    assert ".replay-steps" not in page_styles(client, f"/matches/{ref(playing)}")
    assert ".replay-steps" in page_styles(client, f"/matches/{ref(finished)}")
    # A page that followed the match as it ended is drawn its replay by a live poll: the answer names the
    # replay's styles (app.js adds them before drawing it), for the first viewer and for those served after.
    for viewer in (app.test_client(), app.test_client()):
        answer = viewer.get(f"/matches/{ref(finished)}/live", headers=HTMX)
        assert read(answer.get_data(as_text=True)).find_all(id="replay")
        named = re.findall(r"<(/bundle/[^>]+\.css)>; rel=preload; as=style", answer.headers.get("Link", ""))
        assert named and ".replay-steps" in "".join(viewer.get(url).get_data(as_text=True) for url in named)
    assert "Link" not in client.get(f"/matches/{ref(playing)}/live", headers=HTMX).headers


def test_the_offline_senders_words_travel_in_its_bundle_in_the_pages_language(client, app):
    def texts(html):
        return json.loads(re.search(r"data-texts='([^']*)'", html).group(1).replace("&#34;", '"'))

    match = start_match(client, "topic", ["Anna", "Ben", "Carla"])
    for url in ("/", f"/matches/{ref(match)}", "/offline"):
        assert set(texts(client.get(url).get_data(as_text=True))) == {"needs_server", "server_failed"}, url
    for language, kept in (("en", "rounds kept on this phone"), ("it", "turni tenuti su questo telefono")):
        page = client.get(f"/matches/{ref(match)}", headers={"Accept-Language": language})
        sender = re.search(r'<script type="module" src="(/bundle/offline\.([a-z]+)\S*\.js)"', 
                           page.get_data(as_text=True))
        assert sender and sender.group(2) == language
        assert kept in client.get(sender.group(1)).get_data(as_text=True)
    # A Burraco phone's sender counts hands, as the table does, in either language.
    burraco = start_match(client, "burraco", ["Anna", "Ben"])
    for language, kept in (("en", "hands kept on this phone"), ("it", "mani tenute su questo telefono")):
        page = client.get(f"/matches/{ref(burraco)}", headers={"Accept-Language": language}).get_data(as_text=True)
        sender = re.search(r'<script type="module" src="(/bundle/offline\.[a-z]+\S*\.js)"', page)
        assert kept in client.get(sender.group(1)).get_data(as_text=True)
    assert client.get("/bundle/offline.xx/000000000000.js").status_code == 404
    assert client.get("/bundle/history.it/000000000000.css").status_code == 404
    assert client.get("/bundle/game-nosuchgame/000000000000.css").status_code == 404


def test_a_stale_or_unknown_bundle_is_not_found(client):
    assert client.get("/bundle/000000000000.css").status_code == 404
    assert client.get("/bundle/000000000000.exe").status_code == 404


def test_bundles_leave_the_sources_comments_and_spaces_behind(client, app):
    css, js = bundle_urls(client)
    static = Path(app.static_folder)
    history = re.search(r'href="(/bundle/history/\w+\.css)"', client.get("/history").get_data(as_text=True)).group(1)
    bundles = ((css, ["css/app.css"]), (history, ["css/history.css"]), (js, ["js/app.js"]))
    for url, sources in bundles:
        text = brotli.decompress(client.get(url, headers={"Accept-Encoding": "br"}).data).decode()
        for source in sources:
            comment = re.search(r"/\* ([^*]{12,}?) \*/|// (.{12,})", (static / source).read_text()).group(0)
            assert comment not in text, (source, comment)
        assert "\n  " not in text


def test_the_script_bundle_asks_to_be_compiled_as_it_streams_in(client):
    _, js = bundle_urls(client)
    script = client.get(js).get_data(as_text=True)
    assert script.startswith("//# allFunctionsCalledOnLoad\n")


def test_pages_are_compressed_smaller_than_brotli_4_would(client):
    response = client.get("/", headers={"Accept-Encoding": "br"})
    assert response.headers["Content-Encoding"] == "br"
    assert len(response.data) < len(brotli.compress(brotli.decompress(response.data), quality=4))


def test_the_home_pages_link_to_a_match_names_the_bundles_its_page_will(client, app):
    match = start_match(client, "topic", ["Anna", "Ben", "Carla"])

    def named(phone, url):
        html = phone.get(url).get_data(as_text=True)
        return re.findall(r'<(?:link rel="stylesheet" href|script type="module" src)="(/bundle/[^"]+)"', html)

    def linked(phone):
        html = phone.get("/").get_data(as_text=True)
        return re.search(rf'href="/matches/{ref(match)}" data-bundles="([^"]*)"', html).group(1).split()

    # The match page's own bundles (past the two shared ones): the scorekeeper's with the entry's scripts.
    viewer = app.test_client()
    for phone, count in ((client, 2), (viewer, 1)):
        own = [url for url in named(phone, f"/matches/{ref(match)}") if re.search(r"/bundle/[^/]+/", url)]
        assert sorted(linked(phone)) == sorted(own) and len(own) == count


def test_the_apps_icon_comes_with_the_page_drawn_from_its_one_file(client):
    # As a file the tab's icon was one more request on every first load; now the page carries it, and the
    # header's logo, both from static/icons/icon.svg.
    page = client.get("/").get_data(as_text=True)
    address = re.search(r'<link rel="icon" href="data:image/svg\+xml,([^"]+)" type="image/svg\+xml">', page)
    assert address is not None and "/static/icons/icon.svg" not in page
    drawing = " ".join((Path("static/icons/icon.svg").read_text(encoding="utf-8")).split())
    decoded = address.group(1)
    for escaped, character in (("%3C", "<"), ("%3E", ">"), ("%23", "#"), ("%26", "&"), ("%25", "%")):
        decoded = decoded.replace(escaped, character)
    assert decoded == drawing.replace('"', "'")
    logo = re.search(r'class="brand"[^>]*>(<svg [^>]*>)', page).group(1)
    assert 'aria-hidden="true"' in logo and 'viewBox="0 0 512 512"' in logo and "20</text>" in page
