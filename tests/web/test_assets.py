"""The pages' stylesheets and scripts, Pico and htmx included, travel as one fingerprinted, compressed file each."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import brotli


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


def test_pages_name_their_bundles_in_a_preload_header_and_fragments_do_not(client):
    css, js = bundle_urls(client)
    for url in ("/", "/history", "/matches/new"):
        link = client.get(url).headers.get("Link", "")
        assert f"<{css}>; rel=preload; as=style" in link and f"<{js}>; rel=preload; as=script" in link, url
    assert "Link" not in client.get("/history", headers={"HX-Request": "true", "HX-Boosted": "true"}).headers
    assert "Link" not in client.get("/history?q=a", headers={"HX-Request": "true"}).headers
    assert "Link" not in client.get("/no-such-page").headers


def test_bundles_hold_every_game_and_are_cached_for_a_year(client, app):
    css, js = bundle_urls(client)
    response = client.get(css, headers={"Accept-Encoding": "br"})
    assert response.status_code == 200 and response.headers["Content-Encoding"] == "br"
    assert "immutable" in response.headers["Cache-Control"] and "max-age=31536000" in response.headers["Cache-Control"]
    text = brotli.decompress(response.data).decode()
    for name in ("pico.min.css", "app.css", "history.css", "burraco.css", "pazaak.css", "pazzaparola.css", "topic.css"):
        assert f"/* {name} */" in text
    assert text.index("pico.min.css") < text.index("app.css") < text.index("pazaak.css")
    # Pico as vendored, its licence notice included.
    pico = (Path(app.static_folder) / "vendor/pico/pico.min.css").read_text()
    assert pico in text and "Licensed under MIT" in text
    script = gzip.decompress(client.get(js, headers={"Accept-Encoding": "gzip"}).data).decode()
    for name in ("htmx.min.js", "app.js", "burraco.js", "pazzaparola.js", "topic.js"):
        assert f"/* {name} */" in script
    assert script.index("htmx.min.js") < script.index("app.js")
    assert (Path(app.static_folder) / "vendor/htmx/htmx.min.js").read_text() in script
    assert client.get(js).headers["Content-Type"].startswith("text/javascript")


def test_a_stale_or_unknown_bundle_is_not_found(client):
    assert client.get("/bundle/000000000000.css").status_code == 404
    assert client.get("/bundle/000000000000.exe").status_code == 404


def test_bundles_leave_the_sources_comments_and_spaces_behind(client, app):
    css, js = bundle_urls(client)
    static = Path(app.static_folder)
    for url, sources in ((css, ["css/app.css", "css/history.css"]), (js, ["js/app.js"])):
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
