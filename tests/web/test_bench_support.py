"""What the benchmark (bench/run.py) relies on: the floor route, the query counter, compression,
the unchanged-poll fast path and small htmx fragments."""

from __future__ import annotations

import pytest

from companion import create_app
from tests.helpers import ADDRESS_KEY, HTMX, csrf_token, entry_fields, ref, save_round, start_match
from tests.pages import read

SAME_ON_EVERY_DATABASE = "what the benchmark relies on in the app, measured on the embedded database it serves"

COMPRESSED = {"Accept-Encoding": "br, gzip"}
PLAYERS = ["Ann", "Bob", "Cy", "Di"]


def save(client, match_id: int, number: int):
    """The htmx Save of round `number`, the next player in turn the slowest, asking for a compressed answer."""
    fields = entry_fields(client.application, match_id, {"losers": [PLAYERS[number % 4]]})
    return save_round(client, match_id, fields, number, headers=COMPRESSED)


def test_ping_is_a_fixed_short_text(client):
    response = client.get("/ping")
    assert response.status_code == 200
    assert response.get_data(as_text=True) == "pong"
    assert response.mimetype == "text/plain"


def test_no_query_count_unless_asked(client):
    assert "X-Queries" not in client.get("/ping").headers


@pytest.fixture
def counting_client(tmp_path, database_url, monkeypatch):
    """A client of an app built with COMPANION_COUNT_QUERIES=1."""
    monkeypatch.setenv("COMPANION_COUNT_QUERIES", "1")
    app = create_app(
        {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY},
        instance_path=str(tmp_path / "instance"),
    )
    return app.test_client()


def test_query_count_header_when_asked(counting_client):
    assert counting_client.get("/ping").headers["X-Queries"] == "0"
    match_id = start_match(counting_client, "topic", PLAYERS)
    live = counting_client.get(f"/matches/{ref(match_id)}/live", headers=HTMX)
    assert int(live.headers["X-Queries"]) >= 2
    unchanged = counting_client.get(
        f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": live.headers["ETag"]}
    )
    assert unchanged.status_code == 304
    assert unchanged.headers["X-Queries"] == "1"
    # A viewer's changed poll answered from the drawn fragment runs only the middleware's statement.
    stale = {**HTMX, "If-None-Match": '"v-old"'}
    counting_client.application.test_client().get(f"/matches/{ref(match_id)}/live", headers=stale)
    changed = counting_client.application.test_client().get(f"/matches/{ref(match_id)}/live", headers=stale)
    assert changed.status_code == 200 and changed.headers["X-Queries"] == "1"


def test_unchanged_poll_is_304_also_for_the_compressed_tag(client):
    """Flask-Compress sends the tag as "v3:br"; a browser sends that back, and it must still be a 304."""
    match_id = start_match(client, "topic", PLAYERS)
    for number in (1, 2, 3):
        assert save(client, match_id, number).status_code == 200
    viewer = client.application.test_client()
    first = viewer.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, **COMPRESSED})
    assert first.status_code == 200 and first.headers["Content-Encoding"] == "br"
    sent_back = first.headers["ETag"]
    assert sent_back.endswith(':br"')
    plain = sent_back.replace(":br", "")
    assert plain.startswith('"v3-')
    for tag in (sent_back, plain, f"W/{plain}"):
        again = viewer.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, **COMPRESSED, "If-None-Match": tag})
        assert again.status_code == 304, tag
        assert again.data == b""
        assert again.headers["ETag"] == plain
        assert again.headers["Content-Security-Policy"]
    assert save(client, match_id, 4).status_code == 200
    changed = viewer.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "If-None-Match": plain})
    assert changed.status_code == 200 and changed.headers["ETag"].startswith('"v4-')


def test_a_tag_of_another_match_at_the_same_version_is_not_unchanged(client):
    """SQLite gives a new match a deleted match's id: a phone still showing the old one must get the new one."""
    first_id = start_match(client, "topic", PLAYERS)
    second_id = start_match(client, "topic", PLAYERS)
    viewer = client.application.test_client()
    first_tag = viewer.get(f"/matches/{ref(first_id)}/live", headers=HTMX).headers["ETag"]
    second = viewer.get(f"/matches/{ref(second_id)}/live", headers={**HTMX, "If-None-Match": first_tag})
    assert second.status_code == 200 and read(second.get_data(as_text=True)).by_id("standings")
    # The same version, another match.
    assert second.headers["ETag"].split("-")[0] == first_tag.split("-")[0] and second.headers["ETag"] != first_tag


def test_unknown_match_poll_is_404_even_with_a_tag(client):
    assert client.get(f"/matches/{ref(999)}/live", headers={**HTMX, "If-None-Match": '"v0"'}).status_code == 404


@pytest.mark.parametrize("path", ["vendor/htmx/htmx.min.js", "vendor/pico/pico.min.css", "css/app.css", "js/app.js"])
def test_static_files_go_out_compressed_and_cached_for_a_year(client, path):
    response = client.get(f"/static/{path}?v=1", headers=COMPRESSED)
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] in ("br", "gzip")
    assert int(response.headers["Content-Length"]) == len(response.data)
    assert "max-age=31536000" in response.headers["Cache-Control"]
    assert "Accept-Encoding" in response.headers["Vary"]


def test_main_htmx_fragments_are_under_4_kb_compressed(client):
    match_id = start_match(client, "topic", PLAYERS)
    token = csrf_token(client)
    sizes = {}
    for number in range(1, 13):
        saved = save(client, match_id, number)
        assert saved.status_code == 200
    sizes["save"] = len(saved.data)
    csrf = {"X-CSRFToken": token}
    sizes["undo"] = len(client.post(f"/matches/{ref(match_id)}/undo", headers={**HTMX, **COMPRESSED, **csrf}).data)
    sizes["redo"] = len(client.post(f"/matches/{ref(match_id)}/redo", headers={**HTMX, **COMPRESSED, **csrf}).data)
    viewer = client.application.test_client()
    sizes["live"] = len(viewer.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, **COMPRESSED}).data)
    sizes["table"] = len(viewer.get(f"/matches/{ref(match_id)}/live?view=table", headers={**HTMX, **COMPRESSED}).data)
    sizes["history"] = len(viewer.get("/history?game=topic", headers={**HTMX, **COMPRESSED}).data)
    for name, size in sizes.items():
        assert 0 < size < 4 * 1024, (name, size)


def test_a_fragment_goes_out_compressed_fast_and_reads_the_same(client):
    """An htmx fragment is brotli at the fragments' own level, and says what the uncompressed one says."""
    import brotli

    from companion.web.fragments import FRAGMENT_BROTLI_QUALITY

    match_id = start_match(client, "topic", PLAYERS)
    for number in (1, 2, 3):
        assert save(client, match_id, number).status_code == 200
    viewer = client.application.test_client()
    plain = viewer.get(f"/matches/{ref(match_id)}/live", headers=HTMX)
    packed = viewer.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, **COMPRESSED})
    assert "Content-Encoding" not in plain.headers and packed.headers["Content-Encoding"] == "br"
    assert brotli.decompress(packed.data) == plain.data
    assert packed.data == brotli.compress(plain.data, quality=FRAGMENT_BROTLI_QUALITY)
    assert int(packed.headers["Content-Length"]) == len(packed.data)
    assert "Accept-Encoding" in packed.headers["Vary"] and "HX-Request" in packed.headers["Vary"]
    # A phone without brotli, or preferring gzip, still gets it compressed, as gzip.
    for accepted in ("gzip", "gzip;q=1.0, br;q=0.5"):
        zipped = viewer.get(f"/matches/{ref(match_id)}/live", headers={**HTMX, "Accept-Encoding": accepted})
        assert zipped.headers["Content-Encoding"] == "gzip", accepted
    saved = save(client, match_id, 4)
    assert saved.headers["Content-Encoding"] == "br"
    assert "Who lost round 5?" in brotli.decompress(saved.data).decode()
