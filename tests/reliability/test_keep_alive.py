"""A phone following a match keeps its one connection: an unchanged poll's 304 does not close it."""

from __future__ import annotations

from urllib.parse import urlsplit

from bench.client import Client, create_match
from bench.micro import poll_headers

SAME_ON_EVERY_DATABASE = "the server's connections, not its SQL"


def test_unchanged_polls_keep_the_connection(start_server):
    port = urlsplit(start_server(workers=2).url).port
    match_id = create_match(Client(port))
    viewer = Client(port)
    tag = viewer.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, '"none"')).headers["etag"]
    first = viewer.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, tag))
    connection = viewer.conn.sock
    second = viewer.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, tag))
    assert (first.status, second.status) == (304, 304)
    assert first.headers.get("connection", "").lower() != "close"
    assert connection is not None and viewer.conn.sock is connection
    viewer.close()


def test_a_phone_that_asks_to_close_is_still_let_go(start_server):
    port = urlsplit(start_server(workers=2).url).port
    match_id = create_match(Client(port))
    viewer = Client(port)
    tag = viewer.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, '"none"')).headers["etag"]
    reply = viewer.get(f"/matches/{match_id}/live", headers={**poll_headers(match_id, tag), "Connection": "close"})
    assert reply.status == 304
    assert reply.headers.get("connection", "").lower() == "close"
    viewer.close()
