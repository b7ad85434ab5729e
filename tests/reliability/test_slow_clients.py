"""48 connections that send half a request and then a header every 3 s do not hold up the other phones."""

from __future__ import annotations

import http.client
import socket
import time
from urllib.parse import urlsplit

import pytest

SLOW_CONNECTIONS = 48
DRIP_EVERY = 3.0
DRIPS = 3
ALLOWED_DELAY = 1.0


def open_slow_connections(port: int, count: int) -> list[socket.socket]:
    """Connections that have sent the request line and one header, and never the blank line that ends them."""
    slow = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=5)
        connection.sendall(b"GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        slow.append(connection)
    return slow


def drip(slow: list[socket.socket], number: int) -> None:
    """One more header line on each slow connection, as slowloris keeps them from timing out."""
    for connection in slow:
        try:
            connection.sendall(f"X-Slow-{number}: still here\r\n".encode())
        except OSError:  # the server may close them: that is its right
            pass


def timed_get(host: str, port: int, path: str) -> tuple[float, int | None]:
    """Seconds to get a whole answer on a new connection, and its status (None when there was none)."""
    began = time.perf_counter()
    try:
        connection = http.client.HTTPConnection(host, port, timeout=5)
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        connection.close()
        return time.perf_counter() - began, response.status
    except OSError:
        return time.perf_counter() - began, None


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["gunicorn", "waitress"])
def test_slow_clients_do_not_delay_the_other_phones(start_server, kind):
    server = start_server(kind)
    address = urlsplit(server.url)
    slow = open_slow_connections(address.port, SLOW_CONNECTIONS)
    try:
        time.sleep(0.5)  # long enough for a server that hands them to threads to have done so
        answers: list[tuple[float, int | None]] = []
        next_drip, drips = time.monotonic() + DRIP_EVERY, 0
        end = time.monotonic() + DRIP_EVERY * DRIPS
        while time.monotonic() < end:
            if time.monotonic() >= next_drip:
                drips += 1
                drip(slow, drips)
                next_drip += DRIP_EVERY
            answers.append(timed_get(address.hostname, address.port, "/" if len(answers) % 2 else "/ping"))
            time.sleep(0.2)
    finally:
        for connection in slow:
            connection.close()
    assert drips >= DRIPS - 1
    assert len(answers) >= 20, f"too few requests to tell: {answers}"
    statuses = {status for _, status in answers}
    assert statuses == {200}, f"other phones were refused or left unanswered: {statuses}"
    worst = max(seconds for seconds, _ in answers)
    assert worst < ALLOWED_DELAY, f"another phone waited {worst:.2f} s behind {SLOW_CONNECTIONS} slow connections"
