"""Slow clients: connections that send half a request, then a header every 3 s, while the other phones ask on.

Loopback only and bounded in time: the slow connections are closed after their last header.
Used by `make bench` and by tests/reliability/test_slow_clients.py.
"""

from __future__ import annotations

import http.client
import socket
import time
from dataclasses import dataclass, field

CONNECTIONS = 48
DRIP_EVERY = 3.0
DRIPS = 3
ASK_EVERY = 0.2


@dataclass
class SlowResult:
    """What the other phones saw while the slow connections were held open."""

    connections: int
    drips: int
    seconds: list[float] = field(default_factory=list)
    statuses: list[int | None] = field(default_factory=list)

    @property
    def worst(self) -> float:
        """The longest any other phone waited for a whole answer, in seconds."""
        return max(self.seconds, default=float("inf"))


def open_slow_connections(port: int, count: int) -> list[socket.socket]:
    """Connections that have sent the request line and one header, never the blank line that ends them."""
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


def timed_get(port: int, path: str) -> tuple[float, int | None]:
    """Seconds to get a whole answer on a new connection, and its status (None when there was none)."""
    began = time.perf_counter()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        connection.close()
        return time.perf_counter() - began, response.status
    except OSError:
        return time.perf_counter() - began, None


def run(port: int, connections: int = CONNECTIONS, drips: int = DRIPS) -> SlowResult:
    """Hold `connections` slowloris connections for `drips` × 3 s; time the other phones' requests meanwhile."""
    slow = open_slow_connections(port, connections)
    result = SlowResult(connections, 0)
    try:
        time.sleep(0.5)  # long enough for a server that hands them to threads to have done so
        next_drip = time.monotonic() + DRIP_EVERY
        end = time.monotonic() + DRIP_EVERY * drips
        while time.monotonic() < end:
            if time.monotonic() >= next_drip:
                result.drips += 1
                drip(slow, result.drips)
                next_drip += DRIP_EVERY
            # The home page through the whole stack, and the floor, in turns.
            seconds, status = timed_get(port, "/" if len(result.seconds) % 2 else "/ping")
            result.seconds.append(seconds)
            result.statuses.append(status)
            time.sleep(ASK_EVERY)
    finally:
        for connection in slow:
            connection.close()
    return result
