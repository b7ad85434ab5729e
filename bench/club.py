"""A club evening: T tables at once, each a scorekeeper saving every 20 s and 7 phones polling every 1 s.

The load is cheap on purpose (this machine's 2 cores are shared with the server): a few
processes, each an asyncio loop holding one keep-alive connection per phone, written and
read as raw HTTP/1.1. Latency is measured on the client, from writing the request to
reading the last byte of the response.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import random
import resource
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from .client import Client, create_match, pencil_cookie, round_fields

VIEWERS = 7
POLL_EVERY = 1.0
SAVE_EVERY = 20.0
TIMEOUT = 10.0
# Requests this process sent again on a new connection (see exchange): the figures say how many.
RESENT = [0]


@dataclass
class Table:
    """One match at the club: its id, the scorekeeper's cookies and token, the next round number."""

    match_id: str
    cookie: str
    csrf: str
    number: int = 1


def new_tables(port: int, count: int) -> list[Table]:
    """Start `count` long Topic_ matches, each as its own scorekeeper phone would."""
    client = Client(port)
    client.fetch_csrf()
    session = dict(client.cookies)
    tables = []
    for _ in range(count):
        match_id = create_match(client, length="long")
        name, pencil = pencil_cookie(client)
        client.cookies.pop(name)
        cookie = "; ".join([*(f"{k}={v}" for k, v in session.items()), f"{name}={pencil}"])
        tables.append(Table(match_id, cookie, client.csrf))
    client.close()
    return tables


async def exchange(port: int, conn: list, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send one request on the phone's connection (opened if needed); read the whole response: its status,
    headers (the cookies it sets under "set-cookie", one a line) and body as sent."""
    reused = conn[0] is not None
    if not reused:
        conn[0] = await asyncio.open_connection("127.0.0.1", port)
    reader, writer = conn[0]
    try:
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError) as error:
        # A kept-alive connection the server closed meanwhile (gunicorn closes one idle for 30 s), nothing of
        # the answer read: a browser sends the request again on a new connection, once; so does a phone here.
        if not reused or getattr(error, "partial", b""):
            raise
        writer.close()
        conn[0] = None
        RESENT[0] += 1
        return await exchange(port, conn, request)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            kept = headers.get(name) if name == "set-cookie" else None
            headers[name] = f"{kept}\n{value.strip()}" if kept else value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    if headers.get("connection", "").lower() == "close":
        writer.close()
        conn[0] = None
    return status, headers, body


class Load:
    """The phones of some tables, on one event loop, recording what happened inside the window."""

    def __init__(self, port: int, window: tuple[float, float]):
        self.port = port
        self.window = window
        self.polls: list[tuple[float, int, int]] = []  # (seconds, status, bytes)
        self.saves: list[tuple[float, int, int]] = []
        self.errors = 0
        self.skipped = 0
        self.host = f"Host: 127.0.0.1:{port}\r\n".encode()

    def _inside(self, moment: float) -> bool:
        return self.window[0] <= moment < self.window[1]

    async def viewer(self, table: Table, end: float) -> None:
        """A phone on the match page: every second, unless the last poll is still out, ask for changes."""
        conn: list = [None]
        etag = '"none"'
        path = f"/matches/{table.match_id}/live"
        tick = time.time() + random.random() * POLL_EVERY
        while tick < end:
            await asyncio.sleep(max(0.0, tick - time.time()))
            request = (
                f"GET {path} HTTP/1.1\r\n".encode()
                + self.host
                + b"Accept-Encoding: br, gzip\r\nHX-Request: true\r\nHX-Trigger: live\r\nHX-Target: live\r\n"
                + f"If-None-Match: {etag}\r\n\r\n".encode()
            )
            began = time.time()
            try:
                status, headers, body = await asyncio.wait_for(exchange(self.port, conn, request), TIMEOUT)
                etag = headers.get("etag", etag)
                if self._inside(began):
                    self.polls.append((time.time() - began, status, len(body)))
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
                conn[0] = None
                if self._inside(began):
                    self.errors += 1
            tick += POLL_EVERY
            while tick < time.time():  # a request still out when the timer fires is not sent again
                tick += POLL_EVERY
                if self._inside(tick):
                    self.skipped += 1
        if conn[0] is not None:
            conn[0][1].close()

    async def scorekeeper(self, table: Table, end: float) -> None:
        """The scorekeeper's phone: a round saved every 20 s, as the htmx form posts it."""
        conn: list = [None]
        tick = time.time() + random.random() * SAVE_EVERY
        while tick < end:
            await asyncio.sleep(max(0.0, tick - time.time()))
            body = urlencode([("csrf_token", table.csrf), *round_fields(table.number)]).encode()
            request = (
                f"POST /matches/{table.match_id}/rounds HTTP/1.1\r\n".encode()
                + self.host
                + b"Accept-Encoding: br, gzip\r\nHX-Request: true\r\nHX-Target: entry\r\n"
                + f"Cookie: {table.cookie}\r\nX-CSRFToken: {table.csrf}\r\n".encode()
                + b"Content-Type: application/x-www-form-urlencoded\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            began = time.time()
            try:
                status, _, body = await asyncio.wait_for(exchange(self.port, conn, request), TIMEOUT)
                if status == 200:
                    table.number += 1
                if self._inside(began):
                    self.saves.append((time.time() - began, status, len(body)))
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
                conn[0] = None
                if self._inside(began):
                    self.errors += 1
            tick += SAVE_EVERY
        if conn[0] is not None:
            conn[0][1].close()

    async def run(self, tables: list[Table], end: float) -> None:
        """Every phone of these tables at once."""
        jobs = [self.scorekeeper(table, end) for table in tables]
        jobs += [self.viewer(table, end) for table in tables for _ in range(VIEWERS)]
        await asyncio.gather(*jobs)


def _worker(port: int, tables: list[Table], window: tuple[float, float], end: float, queue: Any) -> None:
    """A load process: its share of the tables until `end`."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        load = Load(port, window)
        asyncio.run(load.run(tables, end))
        queue.put((load.polls, load.saves, load.errors, load.skipped, {t.match_id: t.number for t in tables}))
    except Exception as error:  # the parent reports it
        queue.put(error)


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a server has used so far, with its worker processes (if any)."""
    pids = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(_stat(int(entry))[1]) == pid:
                    pids.append(int(entry))
            except (OSError, IndexError):
                continue
    total = 0.0
    for one in pids:
        try:
            fields = _stat(one)
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
        if one == pid:
            # A worker that died (and that gunicorn replaced) left its CPU time to the server's count of its
            # reaped children: without it, an evening that lost a worker looked cheaper than one that did not.
            total += int(fields[13]) + int(fields[14])
    return total / os.sysconf("SC_CLK_TCK")


def step(port: int, tables: list[Table], warm: float, seconds: float, processes: int, server_pid: int) -> dict:
    """Run one step of the evening with these tables; the figures of its measured window."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    start = time.time() + 0.5
    window = (start + warm, start + warm + seconds)
    shares = [tables[i::processes] for i in range(processes)]
    workers = [ctx.Process(target=_worker, args=(port, share, window, window[1], queue)) for share in shares if share]
    for worker in workers:
        worker.start()
    polls, saves, errors, skipped, numbers = [], [], 0, 0, {}
    time.sleep(max(0.0, window[0] - time.time()))
    cpu_before = cpu_seconds(server_pid)
    time.sleep(max(0.0, window[1] - time.time()))
    cpu_after = cpu_seconds(server_pid)
    for _ in workers:
        got = queue.get(timeout=warm + seconds + 120)
        if isinstance(got, Exception):
            raise got
        polls += got[0]
        saves += got[1]
        errors += got[2]
        skipped += got[3]
        numbers.update(got[4])
    for worker in workers:
        worker.join()
    for table in tables:  # the next step goes on with the same matches
        table.number = numbers.get(table.match_id, table.number)
    return {
        "polls": polls,
        "saves": saves,
        "errors": errors,
        "skipped": skipped,
        "server_cpu": (cpu_after - cpu_before) / seconds,
    }
