"""A regional evening in one hall: T tables of Burraco PAROLE in pairs played through 3 turns, 4 phones seated at
each table polling as a seated phone does, the arbiter's phone and 3 hall screens; what every phone waited.

The evening is made through the services (not timed); the phones sit down by the table cards as real phones do,
then play at a table's pace compressed: the N/S phone holding the pencil saves a hand every 5-15 s, E/W's phone
confirms once its panel offers it, the server draws the next turn at the turn's last confirmation, and each phone
goes to its next table as the panel's form sends it there. The load is club.py's: a few processes, each an asyncio
loop of raw HTTP/1.1 keep-alive connections, latency measured on the client.

`python -m bench.hall --tables 100` runs one evening against servers it starts (`make run`'s, or with --apps 2
two of them on the DATABASE_URL given, as scripts/with-postgres.sh sets it, with Redis) and prints its figures as
JSON; run.py's part `hall` runs the evenings it reports.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import multiprocessing as mp
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import brotli

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.client import keep_cookies  # noqa: E402
from bench.club import RESENT, cpu_seconds, exchange  # noqa: E402
from bench.server import Server, free_port  # noqa: E402

TURNS, HANDS = 3, 2
PLAN = {"game": "burraco", "pairs": True, "turns": TURNS, "hands": HANDS, "first": "mitchell",
        "then": "danese_modificato"}  # fmt: skip
HAND_EVERY = (5.0, 15.0)  # seconds between two hands saved at a table: its pace, compressed
CONFIRM_AFTER = (1.0, 3.0)  # E/W reads the result before tapping Confirm
LIVE_EVERY = 1.0  # the match page's own poll (templates/match.html #live), where the panel's does not stand for it
PANEL_EVERY = 1.0  # the club panel's poll (templates/match.html #club-table)
SCREEN_EVERY = 2.0  # the arbiter's page (templates/club/evening.html) and the hall screens
HALL_SCREENS = 3
# The hall screen's polled part; until it is served (another helper builds it), the screens poll the arbiter's
# live part in its place, and the figures say so.
HALL_LIVE = "/evenings/{evening}/hall/live"
HALL_STAND_IN = "/evenings/{evening}/live"
TIMEOUT = 10.0
SEATING_TIMEOUT = 120.0  # seating is not measured: 400 phones scanning their cards wait as long as it takes
# The budgets of issue 46.
POLL_P95_MS, SAVE_P95_MS, TURN_CLOSE_MS = 50.0, 100.0, 2000.0

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"|"X-CSRFToken": "([^"]+)"')
MATCH = re.compile(r"/matches/([0-9A-Za-z]+)")
# The result a panel's Confirm names, sent with it (a tree before it had none: nothing sent then).
CONFIRMED = re.compile(r'name="result" value="([^"]*)"')


def confirm_fields(panel: str) -> list[tuple[str, str]]:
    """What a panel's Confirm posts beside its token: the action and the result the panel shows."""
    shown = CONFIRMED.search(panel)
    return [("action", "confirm"), *([("result", shown.group(1))] if shown else [])]
LIVE_TAG = re.compile(r"data-etag='([^']+)'")
PANEL_TRIGGER = re.compile(r'id="club-table"[^>]*hx-trigger="load, every (\d+)s')
# A live part asked for when the panel names a newer version of the match than it shows (static/js/club.js).
LIVE_ASKED = re.compile(r'id="live"[^>]*hx-trigger="live-check"')
LIVE_TAG_VERSION = re.compile(r'"v(\d+)-')
NEXT_SHOWN = re.compile(r'class="club-next">Turn (\d+): table')
MOVE_AFTER = re.compile(r'hx-trigger="load delay:(\d+)ms')  # the next table's form, sent by itself this much later
PENCIL_COOKIES = ("pencil", "__Host-pencil")


def hand_fields(number: int) -> list[tuple[str, str]]:
    """A hand of a pairs table as the entry form posts it: both sides lay some points, nobody closes."""
    from companion.games import get_game

    hand = {"sides": {"N/S": {"table": 100 + 5 * number, "hand": 0}, "E/W": {"table": 90, "hand": 0}},
            "closed_by": None}  # fmt: skip
    settings = {"target": None, "hands": HANDS, "teams": {"N/S": ["A", "B"], "E/W": ["C", "D"]}}
    form = get_game("burraco").entry.form_from_round(hand, ["A", "C", "B", "D"], settings)
    return [*((key, value) for key, values in form.items() for value in values), ("number", str(number))]


# --- the evening, made through the services ---------------------------------------------------------------------


def made_evening(tables: int) -> dict:
    """In the app's context: the evening of `tables` tables created and started; its address, the table cards' key,
    who sits where at turn 1 and the hall link's key."""
    from sqlalchemy import text

    from companion.extensions import db
    from companion.models import Group, Match
    from companion.models.club import ClubTable
    from companion.services import club, club_clock
    from companion.web.groups import hall_token

    pairs = [([f"Giocatore {n:03d}A", f"Giocatore {n:03d}B"], None) for n in range(1, 2 * tables + 1)]
    evening = club.create_evening(f"Regionale {tables}", PLAN, pairs)
    club.start(evening)
    # Turn 1 is played against its clock, as the host starts it (the later turns' clocks are not started: the
    # bench's arbiter only watches); every panel and screen draws it, running.
    club_clock.run_clock(evening, "start")
    seats = []
    for table in db.session.scalars(db.select(ClubTable).filter_by(evening_id=evening.id, turn=1)):
        if table.match_id is not None:
            for seat in db.session.get(Match, table.match_id).seats:
                seats.append((table.number, seat.position, seat.name))
    # The hall link's key, as the arbiter's page shows it: the hall screens open it.
    hall_key = hall_token(evening.public_id, evening.hall_link)
    if db.engine.dialect.name == "postgresql":
        # A real turn lasts 25-50 minutes, and PostgreSQL's autovacuum (a minute apart) has analyzed the evening's
        # new rows long before it closes. This evening's turns last a minute: its first close would find the
        # planner's statistics of an empty database (a phone's panel read its table by scanning every match then,
        # 2.3 ms rather than 0.7), so the rows are analyzed here, as autovacuum would have in the turn's first minute.
        db.session.commit()
        db.session.execute(text("ANALYZE"))
        db.session.commit()
    return {"evening": evening.public_id, "cards_key": db.session.get(Group, evening.group_id).cards_key,
            "seats": seats, "hall_key": hall_key}  # fmt: skip


def _prepare(env: dict[str, str], tables: int, out: Any) -> None:
    """In a fresh process with the server's environment: the evening made (`made_evening`)."""
    os.environ.clear()
    os.environ.update(env)
    from companion import create_app

    app = create_app()
    with app.app_context():
        out.put(made_evening(tables))


def prepare(env: dict[str, str], tables: int) -> dict:
    """The evening made in the server's database (a process of its own: the app reads its settings once)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    maker = ctx.Process(target=_prepare, args=(env, tables, out))
    maker.start()
    made = out.get(timeout=300)
    maker.join()
    return made


# --- the phones -------------------------------------------------------------------------------------------------


@dataclass
class Phone:
    """One player's phone: its connections, cookies and where it sits."""

    name: str
    table: int
    seat: int
    port: int
    cookies: dict[str, str] = field(default_factory=dict)
    csrf: str = ""
    match: str = ""
    turn: int = 1
    pencil: bool = False
    panel_every: float = PANEL_EVERY
    live_asked: bool = False  # its live part asked for by the panel's answers, not polled
    match_version: int = -1  # as the panel's last answer named it
    live_tag: str = '"none"'
    panel_tag: str = ""
    polls: list = field(default_factory=lambda: [None])
    writes: list = field(default_factory=lambda: [None])
    tasks: list = field(default_factory=list)  # its hands being saved, its move to the next table

    @property
    def confirms(self) -> bool:
        """The pair's first player taps Confirm for E/W (its partner's phone sees the button too, and waits)."""
        return self.name.endswith("A")


def version_of(tag: str) -> int:
    """The match's version a live part's tag names (-1 for none)."""
    found = LIVE_TAG_VERSION.search(tag)
    return int(found.group(1)) if found else -1


def shows_newer(phone: Phone, tag: str | None) -> None:
    """The phone's live part shows the version `tag` names where it is newer than what it shows (app.js: answers
    come back in any order)."""
    if tag and version_of(tag) > version_of(phone.live_tag):
        phone.live_tag = tag


def _body(headers: dict[str, str], body: bytes) -> str:
    encoding = headers.get("content-encoding", "")
    if encoding == "br":
        body = brotli.decompress(body)
    elif encoding == "gzip":
        body = gzip.decompress(body)
    return body.decode("utf-8", "replace")


class Hall:
    """The phones and screens of some tables, on one event loop, recording every answer."""

    def __init__(self) -> None:
        self.timeout = SEATING_TIMEOUT
        self.samples: list[tuple[str, float, int, float]] = []  # (kind, seconds, status, sent at)
        self.errors: list[str] = []
        self.confirmed: list[tuple[int, float]] = []  # (turn, when its answer came)
        # (turn, when the phone was shown its next table, when it reached it: None if it did not, an error)
        self.shown: list[tuple[int, float, float | None]] = []
        self.over = 0

    async def ask(self, phone: Phone, conn: list, kind: str, method: str, path: str, headers: str = "",
                  form: list | None = None) -> tuple[int, dict[str, str], str] | None:  # fmt: skip
        """One request of a phone as its browser sends it (its cookies, htmx's headers); None when it failed."""
        body = urlencode(form).encode() if form is not None else b""
        cookie = "; ".join(f"{k}={v}" for k, v in phone.cookies.items())
        request = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{phone.port}\r\nAccept-Encoding: br, gzip\r\n"
            f"Accept-Language: en\r\n{headers}" + (f"Cookie: {cookie}\r\n" if cookie else "")
            + (f"X-CSRFToken: {phone.csrf}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
               f"Content-Length: {len(body)}\r\n" if form is not None else "")
            + "\r\n"
        ).encode() + body  # fmt: skip
        began = time.time()
        try:
            status, got, raw = await asyncio.wait_for(exchange(phone.port, conn, request), self.timeout)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as error:
            if conn[0] is not None:
                conn[0][1].close()
            conn[0] = None
            self.errors.append(f"{kind} {path}: {type(error).__name__}")
            return None
        self.samples.append((kind, time.time() - began, status, began))
        if status >= 400:
            self.errors.append(f"{kind} {path}: {status}")
        keep_cookies(phone.cookies, filter(None, got.get("set-cookie", "").split("\n")))
        return status, got, _body(got, raw) if status == 200 else ""

    async def sit(self, phone: Phone, cards_key: str) -> None:
        """The phone scans its table's card, takes its player's seat and opens the match (the first N/S phone
        seated is given the pencil)."""
        card = f"/evenings/card/{cards_key}/{phone.table}"
        got = await self.ask(phone, phone.writes, "sit", "GET", card)
        found = CSRF.search(got[2]) if got else None
        if not found:
            raise RuntimeError(f"no table card for {phone.name}: {got and got[0]}")
        phone.csrf = found.group(1) or found.group(2)
        got = await self.ask(phone, phone.writes, "sit", "POST", card, form=[("csrf_token", phone.csrf),
                             ("seat", str(phone.seat)), ("action", "sit")])  # fmt: skip
        if await self.reach(phone, got, "location"):
            await self.panel(phone, float("inf"))

    async def reach(self, phone: Phone, got: tuple | None, header: str) -> bool:
        """The phone follows a seat's answer to its match page, or is drawn its next table's page by the answer
        itself (its address in `header`, HX-Push-Url); whether it got there. (The page's table panel then loads
        at once, its hx-trigger's `load`: the caller's `panel`.)"""
        if got is None or not MATCH.search(got[1].get(header, "")):
            self.errors.append(f"{phone.name}: not sent to a match ({got and got[0]})")
            return False
        phone.pencil = any(f"{name}=" in got[1].get("set-cookie", "") for name in PENCIL_COOKIES)
        phone.match = MATCH.search(got[1][header]).group(1)
        drawn = header == "hx-push-url" and got[0] == 200
        page = got if drawn else await self.ask(phone, phone.writes, "page", "GET", f"/matches/{phone.match}")
        tag = LIVE_TAG.search(page[2]) if page else None
        phone.live_tag = tag.group(1) if tag else '"none"'
        every = PANEL_TRIGGER.search(page[2]) if page else None
        phone.panel_tag, phone.panel_every = "", float(every.group(1)) if every else PANEL_EVERY
        phone.live_asked, phone.match_version = bool(page and LIVE_ASKED.search(page[2])), -1
        return page is not None and page[0] == 200

    async def play(self, phone: Phone, end: float) -> None:
        """The phone at its tables until the evening is over: the match page's poll every second, the panel's as
        the page says; the hands saved by the pencil."""
        if phone.pencil:
            phone.tasks.append(asyncio.create_task(self.save_hands(phone, end)))
        tick = time.time() + random.random() * LIVE_EVERY
        beat = 0
        while tick < end:
            await asyncio.sleep(max(0.0, tick - time.time()))
            if await self.poll(phone, end, beat % max(1, round(phone.panel_every / LIVE_EVERY)) == 0) == "over":
                break
            beat += 1
            tick += LIVE_EVERY
            while tick < time.time():  # a poll still out when the timer fires is not sent again
                tick += LIVE_EVERY
        while phone.tasks:
            await phone.tasks.pop()

    async def poll(self, phone: Phone, end: float, panel: bool = True) -> str | None:
        """A beat of the match page's polls: the table panel's (`panel`), and its live part's, with the tag of what
        it shows, each beat or, where the page asks for it so, once the panel names a newer version of the match
        than it shows; "over" when the evening is."""
        said = await self.panel(phone, end) if panel else None
        if said is None and (not phone.live_asked or phone.match_version > version_of(phone.live_tag)):
            live = f"If-None-Match: {phone.live_tag}\r\nHX-Request: true\r\nHX-Trigger: live\r\nHX-Target: live\r\n"
            got = await self.ask(phone, phone.polls, "live", "GET", f"/matches/{phone.match}/live", live)
            shows_newer(phone, got and got[1].get("etag"))
        return said

    async def panel(self, phone: Phone, end: float, conn: list | None = None) -> str | None:
        """The table panel's poll (on the phone's polling connection, or `conn`) and what the phone does with it:
        Confirm for E/W, its next table (the move a task of its own, as the page goes on polling until its form
        is sent); "over" when the evening is."""
        tag = f"If-None-Match: {phone.panel_tag}\r\n" if phone.panel_tag else ""
        path = f"/evenings/table/{phone.match}"
        got = await self.ask(phone, conn or phone.polls, "panel", "GET", path, f"{tag}HX-Request: true\r\n")
        if got and "x-match-version" in got[1]:  # a 304's too
            phone.match_version = int(got[1]["x-match-version"])
        if not got or got[0] != 200:
            return None
        phone.panel_tag = got[1].get("etag", "")
        text = got[2]
        shown = NEXT_SHOWN.search(text)
        if shown and int(shown.group(1)) > phone.turn:
            phone.turn = int(shown.group(1))
            after = MOVE_AFTER.search(text)
            wait = int(after.group(1)) / 1000 if after else 0.0
            phone.tasks.append(asyncio.create_task(self.move(phone, path, time.time(), wait, end)))
            return None
        if "The evening is over." in text:
            self.over += 1
            return "over"
        if 'value="confirm"' in text and phone.confirms:
            await asyncio.sleep(random.uniform(*CONFIRM_AFTER))
            got = await self.ask(phone, phone.writes, "confirm", "POST", f"{path}/confirm", "HX-Request: true\r\n",
                                 [("csrf_token", phone.csrf), *confirm_fields(text)])  # fmt: skip
            if got and got[0] == 200:
                self.confirmed.append((phone.turn, time.time()))
        return None

    async def move(self, phone: Phone, path: str, seen: float, after: float, end: float) -> None:
        """The next table's form sent as the panel sends it, `after` seconds after it was `seen`: the phone drawn
        its new table's page, where it goes on (the pencil's phone saving the turn's hands)."""
        await asyncio.sleep(after)
        answer = await self.ask(phone, phone.writes, "next", "POST", f"{path}/next", "HX-Request: true\r\n",
                                [("csrf_token", phone.csrf)])  # fmt: skip
        reached = await self.reach(phone, answer, "hx-push-url")
        self.shown.append((phone.turn, seen, time.time() if reached else None))
        if reached:  # its panel loads at once, beside the page's polls
            await self.panel(phone, end, phone.writes)
        if reached and phone.pencil:
            phone.tasks.append(asyncio.create_task(self.save_hands(phone, end)))

    async def save_hands(self, phone: Phone, end: float) -> None:
        """The pencil's phone saves the turn's hands, one every 5-15 s, as the htmx form posts them."""
        match = phone.match
        for number in range(1, HANDS + 1):
            await asyncio.sleep(random.uniform(*HAND_EVERY))
            if time.time() >= end or phone.match != match:
                return
            headers = "HX-Request: true\r\nHX-Target: entry\r\n"
            got = await self.ask(phone, phone.writes, "save", "POST", f"/matches/{match}/rounds", headers,
                                 [("csrf_token", phone.csrf), *hand_fields(number)])  # fmt: skip
            # The save drew the standings of the version it made: the page's live part need not ask for them.
            shows_newer(phone, got and got[1].get("x-live-etag"))

    async def screen(self, port: int, kind: str, path: str, end: float, done: asyncio.Event) -> None:
        """A screen that follows the evening (the arbiter's page or a hall screen), polled every two seconds with
        the tag of what it shows."""
        screen = Phone(kind, 0, 0, port)
        tag = '"none"'
        tick = time.time() + random.random() * SCREEN_EVERY
        while tick < end and not done.is_set():
            await asyncio.sleep(max(0.0, tick - time.time()))
            asked = f"If-None-Match: {tag}\r\nHX-Request: true\r\n"
            got = await self.ask(screen, screen.polls, kind, "GET", path, asked)
            if got and got[1].get("etag"):
                tag = got[1]["etag"]
            tick += SCREEN_EVERY


def _load(phones: list[Phone], screens: list[tuple[int, str, str]], cards_key: str, evening: str, limit: float,
          ready: Any, settle: Any, go: Any, out: Any) -> None:  # fmt: skip
    """A load process: its phones seated; once every process's are (the parent's word), each phone's page caught
    up with the others' seats, as its polls kept it while they sat down; then (at the parent's next word) the
    evening played, for `limit` s at most."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    hall = Hall()
    try:

        async def seat_all() -> None:
            for chunk in range(0, len(phones), 20):  # not all at once: seating is not what is measured
                await asyncio.gather(*(hall.sit(phone, cards_key) for phone in phones[chunk : chunk + 20]))
            hang_up(phones)

        async def catch_up() -> None:
            for chunk in range(0, len(phones), 20):
                await asyncio.gather(*(hall.poll(phone, float("inf")) for phone in phones[chunk : chunk + 20]))
            hang_up(phones)

        asyncio.run(seat_all())
        seating = len(hall.errors)
        ready.put(seating)
        settle.wait()
        asyncio.run(catch_up())
        hall.samples.clear()
        RESENT[0] = 0
        hall.timeout = TIMEOUT
        ready.put(len(hall.errors) - seating)
        go.wait()
        end = time.time() + limit

        async def evening_played() -> None:
            done = asyncio.Event()
            jobs = [asyncio.create_task(hall.screen(port, kind, path, end, done)) for port, kind, path in screens]
            await asyncio.gather(*(hall.play(phone, end) for phone in phones))
            done.set()
            await asyncio.gather(*jobs)

        asyncio.run(evening_played())
        out.put({"samples": hall.samples, "errors": hall.errors, "confirmed": hall.confirmed, "shown": hall.shown,
                 "over": hall.over, "phones": len(phones), "resent": RESENT[0]})  # fmt: skip
    except Exception as error:  # the parent reports it
        ready.put(error)
        out.put(error)


def hang_up(phones: list[Phone]) -> None:
    """The phones' connections closed: a connection belongs to its event loop, and the next opens its own."""
    for phone in phones:
        for conn in (phone.polls, phone.writes):
            if conn[0] is not None:
                conn[0][1].close()
            conn[0] = None


class Memory(threading.Thread):
    """The servers' resident memory (their processes and workers), sampled until stopped; the peak kept."""

    def __init__(self, pids: list[int]):
        super().__init__(daemon=True)
        self.pids, self.peak, self.stopped = pids, 0, threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.5):
            self.peak = max(self.peak, sum(_rss(pid) for pid in _family(self.pids)))


def _family(pids: list[int]) -> list[int]:
    """These processes and their children."""
    found = list(pids)
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError, IndexError):
            with open(f"/proc/{entry}/stat") as stat:
                if int(stat.read().rsplit(")", 1)[1].split()[1]) in pids:
                    found.append(int(entry))
    return found


def _rss(pid: int) -> int:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def screen_path(port: int, evening: str, hall_key: str | None) -> str:
    """The hall screen's live part (with the hall link's key) if this server answers it, else its stand-in."""
    import urllib.error
    import urllib.request

    path = HALL_LIVE.format(evening=evening) + (f"?{urlencode({'hall_key': hall_key})}" if hall_key else "")
    with contextlib.suppress(urllib.error.URLError, OSError):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10):
            return path
    return HALL_STAND_IN.format(evening=evening)


def play_evening(ports: list[int], pids: list[int], made: dict, processes: int = 2, limit: float = 240.0) -> dict:
    """The evening `made` played through on these servers (phones spread over them as Caddy spreads its
    connections); its raw figures."""
    evening, seats = made["evening"], made["seats"]
    phones = [Phone(name, table, seat, ports[i % len(ports)]) for i, (table, seat, name) in enumerate(seats)]
    hall_path = screen_path(ports[0], evening, made.get("hall_key"))
    screens = [(ports[0], "arbiter", HALL_STAND_IN.format(evening=evening))]
    screens += [(ports[(i + 1) % len(ports)], "hall", hall_path) for i in range(HALL_SCREENS)]
    ctx = mp.get_context("fork")
    ready, settle, go, out = ctx.Queue(), ctx.Event(), ctx.Event(), ctx.Queue()
    shares = [phones[i::processes] for i in range(processes)]
    workers = []
    for number, share in enumerate(shares):
        mine = screens if number == 0 else []
        worker = ctx.Process(target=_load, args=(share, mine, made["cards_key"], evening, limit, ready, settle, go,
                                                  out))  # fmt: skip
        workers.append(worker)
        worker.start()
    seating = []
    for step in (None, settle):  # seated, then caught up: a process that failed says so instead
        if step is not None:
            step.set()
        seating += [ready.get(timeout=300) for _ in workers]
        for got in seating:
            if isinstance(got, Exception):
                raise got
    memory = Memory(pids)
    memory.start()
    cpu_before, began = sum(cpu_seconds(pid) for pid in pids), time.time()
    go.set()
    results = [out.get(timeout=limit + 120) for _ in workers]
    seconds, cpu = time.time() - began, sum(cpu_seconds(pid) for pid in pids) - cpu_before
    memory.stopped.set()
    for worker in workers:
        worker.join()
    for got in results:
        if isinstance(got, Exception):
            raise got
    return {"results": results, "seconds": seconds, "cpu_seconds": cpu, "peak_rss": memory.peak,
            "seating_errors": sum(seating), "screen_path": hall_path}  # fmt: skip


# --- the figures --------------------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of some values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


POLLS = ("live", "panel", "arbiter", "hall")


def started(samples: list) -> float:
    """When the evening's first timed request was sent."""
    return min((sample[3] for sample in samples), default=0.0)


def timeline(samples: list, window: float = 5.0) -> list[int]:
    """The polls' p95 (ms) in each `window` seconds from the evening's start."""
    first = started(samples)
    windows: dict[int, list[float]] = {}
    for kind, seconds, _status, sent in samples:
        if kind in POLLS:
            windows.setdefault(int((sent - first) // window), []).append(seconds * 1000)
    return [round(pct(windows.get(n, []), 95)) if windows.get(n) else 0 for n in range(max(windows, default=-1) + 1)]


def figures(played: dict, tables: int) -> dict:
    """What the evening's phones waited, against the budgets: polls, saves, each turn's close to every phone."""
    results = played["results"]
    samples = [sample for got in results for sample in got["samples"]]
    phones = sum(got["phones"] for got in results)

    def ms(kinds: tuple[str, ...]) -> list[float]:
        return [seconds * 1000 for kind, seconds, *_ in samples if kind in kinds]

    polls, saves = ms(POLLS), ms(("save",))
    confirmed = [c for got in results for c in got["confirmed"]]
    shown = [s for got in results for s in got["shown"]]
    close_ms, reach_ms, missing = [], [], 0
    for turn in range(2, TURNS + 1):
        closes = [when for done, when in confirmed if done == turn - 1]
        arrivals = [(seen, reached) for moved, seen, reached in shown if moved == turn]
        missing += phones - len(arrivals)
        if closes and arrivals:
            close_ms += [(seen - max(closes)) * 1000 for seen, _ in arrivals]
            reach_ms += [(reached - max(closes)) * 1000 for _, reached in arrivals if reached is not None]
    confirmations = len({(turn, when) for turn, when in confirmed})
    errors = [e for got in results for e in got["errors"]]
    unconfirmed = TURNS * tables - confirmations
    row = {
        "tables": tables,
        "phones": phones,
        "screens": 1 + HALL_SCREENS,
        "seconds": played["seconds"],
        "requests": len(samples),
        "rps": len(samples) / played["seconds"],
        "poll_p50_ms": pct(polls, 50),
        "poll_p95_ms": pct(polls, 95),
        **{f"{kind}_p95_ms": pct(ms((kind,)), 95) for kind in POLLS},
        "save_p95_ms": pct(saves, 95),
        "saves": len(saves),
        "confirm_p95_ms": pct(ms(("confirm",)), 95),
        "next_page_p95_ms": pct(ms(("next", "page")), 95),
        "turn_close_p50_ms": pct(close_ms, 50),
        "turn_close_max_ms": max(close_ms, default=float("nan")),
        "at_next_table_max_ms": max(reach_ms, default=float("nan")),
        "errors": len(errors) + missing + max(0, unconfirmed) + played["seating_errors"],
        # What failed, by request and way (a timeout, a closed connection, a status): where to look first.
        "resent_on_a_new_connection": sum(got["resent"] for got in results),
        "error_kinds": dict(Counter(f"{e.split(' ', 1)[0]} {e.rsplit(': ', 1)[-1]}" for e in errors).most_common(8)),
        "error_samples": errors[:5]
        + ([f"{missing} phones never shown their next table"] if missing else [])
        + ([f"{unconfirmed} tables not confirmed"] if unconfirmed > 0 else []),
        "cpu_seconds_per_table": played["cpu_seconds"] / tables,
        # What the server spends on a request of the evening's mix, and how many a table asks: the cores a larger
        # evening needs, however busy the machine measured (its latencies are not).
        "cpu_ms_per_request": played["cpu_seconds"] * 1000 / max(1, len(samples)),
        "requests_per_table_second": len(samples) / played["seconds"] / tables,
        "server_cpu": played["cpu_seconds"] / played["seconds"],
        "peak_rss_mb": played["peak_rss"] / 2**20,
        "peak_rss_mb_per_table": played["peak_rss"] / 2**20 / tables,
        "screen_path": played["screen_path"],
        "hall_screen_stand_in": "/hall/" not in played["screen_path"],
        "load_average": os.getloadavg()[0],
        # Where the slow polls are: their p95 in each 5 seconds of the evening, and when each turn closed.
        "poll_p95_ms_by_5_s": timeline(samples),
        "turns_closed_at_s": [round(max(w for t, w in confirmed if t == turn) - started(samples), 1)
                              for turn in sorted({t for t, _ in confirmed})],  # fmt: skip
    }
    row["budgets"] = {
        f"poll p95 <= {POLL_P95_MS:.0f} ms": row["poll_p95_ms"] <= POLL_P95_MS,
        f"save p95 <= {SAVE_P95_MS:.0f} ms": row["save_p95_ms"] <= SAVE_P95_MS,
        f"turn close to every phone <= {TURN_CLOSE_MS / 1000:.0f} s": row["turn_close_max_ms"] <= TURN_CLOSE_MS,
        "0 errors": row["errors"] == 0,
    }
    row["held"] = all(row["budgets"].values())
    return row


# --- one evening against servers of its own -----------------------------------------------------------------------


@contextlib.contextmanager
def redis_server():
    """A throw-away Redis for the limits' counts the app processes share (as deploy/ runs it); None without one."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = free_port()
    process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                                "no"], stdout=subprocess.DEVNULL)  # fmt: skip
    time.sleep(0.3)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(10)


def evening(tables: int, workers: int = 2, apps: int = 1, processes: int = 2, limit: float = 240.0,
            database_url: str = "") -> dict:  # fmt: skip
    """One evening of `tables` tables on `apps` servers of `workers` workers each (`python app.py`, as make run
    serves), on SQLite or the PostgreSQL of `database_url`; its figures."""
    with tempfile.TemporaryDirectory(prefix="companion-hall-") as folder, redis_server() as redis:
        instance = Path(folder) / "instance"
        instance.mkdir()
        env = {"WORKERS": str(workers), "PYTHONFAULTHANDLER": "1"}
        if database_url:
            env["DATABASE_URL"] = database_url
        if apps > 1 and redis:
            env["LIMITS_STORAGE_URL"] = redis
        made = prepare({**os.environ, "COMPANION_INSTANCE": str(instance), **env}, tables)
        with contextlib.ExitStack() as stack:
            servers = [stack.enter_context(Server(instance, Path(folder) / "server.log", ROOT, **env))
                       for _ in range(apps)]  # fmt: skip
            played = play_evening([s.port for s in servers], [s.process.pid for s in servers], made, processes, limit)
        row = figures(played, tables)
        # A worker that died mid-evening (gunicorn names the signal) cuts its phones' connections: say so.
        log = (Path(folder) / "server.log").read_text(errors="replace")
        died = re.findall(r".*Worker \(pid:\d+\) (?:was sent|exited).*", log)
        row["workers_died"], row["worker_deaths"] = len(died), died[:5]
        # Where the first died, as PYTHONFAULTHANDLER=1 (set for the servers) writes it.
        fault = log.find("Current thread", log.find("Fatal Python error"))
        row["worker_fault"] = log[fault : fault + 3000].splitlines()[:30] if fault >= 0 else []
    database = "PostgreSQL" if database_url.startswith("postgres") else "SQLite"
    return row | {"database": database, "apps": apps, "workers": workers,
                  "redis": bool(redis and apps > 1)}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers of each app server (WORKERS)")
    parser.add_argument("--apps", type=int, default=1, help="app servers, the phones spread over them")
    parser.add_argument("--processes", type=int, default=2, help="processes playing the phones")
    parser.add_argument("--limit", type=float, default=240.0, help="seconds the evening may take at most")
    args = parser.parse_args()
    row = evening(args.tables, args.workers, args.apps, args.processes, args.limit, os.environ.get("DATABASE_URL", ""))
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
