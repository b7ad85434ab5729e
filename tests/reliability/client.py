"""A phone-like HTTP load client (standard library only) and the bookkeeping of what was acknowledged."""

from __future__ import annotations

import http.client
import random
import re
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from companion.games import get_game
from tests.helpers import HTMX, ref, unref

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"|"X-CSRFToken": "([^"]+)"')
NEXT_NUMBER = re.compile(r'name="number" value="(\d+)"')

# Pazzaparola with 8 seats and 5 victory points to win: the winner of round n is seat
# (n - 1) % 8, so a match lasts 8 * 4 + 1 = 33 rounds, a long evening's match (every save
# re-renders all rounds, so much longer matches would measure the templates, not the locks).
# Its free-text theme carries a tag unique to each save, so every acknowledged save can be
# found again in the database, and two clients never send identical rounds (which the
# server would rightly answer as a double tap).
LOAD_GAME = "pazzaparola"
LOAD_PLAYERS = [f"P{seat}" for seat in range(1, 9)]
LOAD_SETTINGS = {"cards": 8, "target": 5}


@dataclass
class Response:
    """What came back: status, headers (lower-case names) and the body as text."""

    status: int
    headers: dict[str, str]
    cookies: list[str]
    text: str


class Client:
    """One phone: a kept-alive connection, its cookies, and the CSRF token of the last page."""

    def __init__(self, base_url: str, timeout: float = 15):
        parts = urllib.parse.urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self.cookies: dict[str, str] = {}
        self.csrf: str | None = None
        self._connection: http.client.HTTPConnection | None = None

    def close(self) -> None:
        """Drop the connection (the next request opens a new one)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def request(self, method: str, path: str, fields: Any = None, headers: dict[str, str] | None = None) -> Response:
        """Send one request; raises OSError (or http.client errors) when the server is gone."""
        body = urllib.parse.urlencode(fields, doseq=True) if fields is not None else None
        sent = {"Connection": "keep-alive", **(headers or {})}
        if body is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if self._connection is None:
            self._connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            self._connection.request(method, path, body=body, headers=sent)
            raw = self._connection.getresponse()
            data = raw.read()
        except BaseException:
            self.close()
            raise
        set_cookies = raw.headers.get_all("Set-Cookie") or []
        for line in set_cookies:
            self._keep_cookie(line)
        if raw.getheader("Connection", "").lower() == "close":
            self.close()
        text = data.decode("utf-8", "replace")
        found = CSRF.search(text)
        if found:
            self.csrf = found.group(1) or found.group(2)
        headers_ = {k.lower(): v for k, v in raw.getheaders()}
        return Response(raw.status, headers_, set_cookies, text)

    def _keep_cookie(self, line: str) -> None:
        """Store or delete a cookie from a Set-Cookie header, as a browser would."""
        pair, *attributes = [part.strip() for part in line.split(";")]
        name, _, value = pair.partition("=")
        expired = any(
            a.lower() in ("max-age=0",) or a.lower().startswith("expires=thu, 01 jan 1970") for a in attributes
        )
        if expired:
            self.cookies.pop(name, None)
        else:
            self.cookies[name] = value

    def get(self, path: str, headers: dict[str, str] | None = None) -> Response:
        """GET a path."""
        return self.request("GET", path, headers=headers)

    def post(self, path: str, fields: Any, headers: dict[str, str] | None = None) -> Response:
        """POST a form, adding the CSRF token of the last page seen."""
        pairs = list(fields.items()) if isinstance(fields, dict) else list(fields)
        if self.csrf and not any(key == "csrf_token" for key, _ in pairs):
            pairs.append(("csrf_token", self.csrf))
        return self.request("POST", path, pairs, headers)


def load_round(number: int, tag: str) -> dict[str, Any]:
    """The Pazzaparola round a load client saves as round `number`: seat (n-1) % 8 wins it."""
    winner = LOAD_PLAYERS[(number - 1) % len(LOAD_PLAYERS)]
    rows = {
        name: {"used": [9, 9] if name == winner else [1], "unused": 6 if name == winner else 7} for name in LOAD_PLAYERS
    }
    return {"theme": tag, "rows": rows}


def round_form(number: int, tag: str) -> list[tuple[str, str]]:
    """The entry form the scorekeeper's page sends for that round, built by the game itself."""
    fields = get_game(LOAD_GAME).entry.form_from_round(load_round(number, tag), LOAD_PLAYERS, LOAD_SETTINGS)
    pairs: list[tuple[str, str]] = []
    for key, values in fields.items():
        pairs += [(key, str(v)) for v in values] if isinstance(values, list) else [(key, str(values))]
    return pairs + [("number", str(number))]


@dataclass
class LoadMatch:
    """A match the load writes into, with the scorekeeper cookie every load client shares."""

    id: int
    cookie_name: str
    cookie_value: str


def start_match(base_url: str, game: str = LOAD_GAME, players: list[str] = LOAD_PLAYERS,
                settings: dict[str, Any] = LOAD_SETTINGS) -> LoadMatch:  # fmt: skip
    """Start a match through the new-match form, as the scorekeeper's phone does (by default the load's)."""
    client = Client(base_url)
    client.get("/matches/new")
    fields = [("game", game), ("action", "start")]
    fields += [(key, str(value)) for key, value in settings.items()]
    fields += [("seat", name) for name in players]
    response = client.post("/matches/new", fields)
    assert response.status == 302, (response.status, response.text[:500])
    match_id = unref(response.headers["location"].rstrip("/").rsplit("/", 1)[1])
    name = "pencil"  # the one cookie of every pencil the phone holds (web/pencil.py): this match's alone here
    client.close()
    return LoadMatch(match_id, name, client.cookies[name])


def save_round(client: Client, match_id: int, fields: list[tuple[str, str]]) -> Response:
    """Tap Save on a match's round entry (an htmx POST) with this entry form, its round number included."""
    return client.post(f"/matches/{ref(match_id)}/rounds", fields, HTMX)


@dataclass
class Ack:
    """A save the server acknowledged with a 2xx: which match, which round, which tag."""

    match_id: int
    number: int
    tag: str
    at: float


@dataclass
class LoadResult:
    """Everything the load saw, shared by its client threads."""

    acks: list[Ack] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    connection_errors: int = 0
    clients: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def acked_before(self, moment: float) -> list[Ack]:
        """The saves acknowledged before a moment (time.monotonic())."""
        with self.lock:
            return [ack for ack in self.acks if ack.at < moment]


class Load:
    """Client threads saving rounds into the matches until stopped or out of time.

    `tables` holds one list of matches per table: the table's clients write into its first
    match until that one is over, then into the next, as a table plays match after match.
    """

    def __init__(self, base_url: str, tables: list[list[LoadMatch]], clients: int = 20, seconds: float = 8):
        self.base_url = base_url
        self.tables = tables
        self.clients = clients
        self.seconds = seconds
        self.result = LoadResult(clients=clients)
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._client, args=(i,), daemon=True) for i in range(clients)]

    def start(self) -> Load:
        """Start every client thread."""
        self.deadline = time.monotonic() + self.seconds
        for thread in self.threads:
            thread.start()
        return self

    def join(self) -> LoadResult:
        """Wait for the clients to finish (at the deadline, or after stop())."""
        for thread in self.threads:
            thread.join(self.seconds + 60)
        return self.result

    def run(self) -> LoadResult:
        """Start, and wait for the end."""
        return self.start().join()

    def _running(self) -> bool:
        return not self.stop.is_set() and time.monotonic() < self.deadline

    def _client(self, index: int) -> None:
        """One phone: picks a table at random, saves the round it believes is next, learns from the answer."""
        rng = random.Random(index)
        client = Client(self.base_url)
        # Every match's pencil, in the one cookie of every pencil a phone holds (web/pencil.py).
        matches = [m for table in self.tables for m in table]
        for name in {match.cookie_name for match in matches}:
            client.cookies[name] = ".".join(match.cookie_value for match in matches if match.cookie_name == name)
        # The next round number this phone believes each match is at; a first guess of 1 is
        # corrected by the server's 409, which answers with the entry form of the round due.
        believed: dict[int, int] = {match.id: 1 for table in self.tables for match in table}
        playing = {table: 0 for table in range(len(self.tables))}
        sequence = 0
        while self._running() and playing:
            table = rng.choice(list(playing))
            match = self.tables[table][playing[table]]
            try:
                if client.csrf is None:
                    # A small page, for the session cookie and its CSRF token.
                    self._count(client.get("/offline"), "GET")
                    continue
                if match.id not in believed:
                    page = client.get(f"/matches/{ref(match.id)}")
                    self._count(page, "GET")
                    found = NEXT_NUMBER.search(page.text)
                    if found:
                        believed[match.id] = int(found.group(1))
                    elif page.status == 200:
                        # Over: its page has no entry form any more; the table starts its next match.
                        playing[table] += 1
                        if playing[table] == len(self.tables[table]):
                            del playing[table]
                    continue
                number = believed[match.id]
                sequence += 1
                tag = f"c{index:02d}-{sequence:05d}"
                response = save_round(client, match.id, round_form(number, tag))
            except (OSError, http.client.HTTPException):
                # The server is gone (killed, or restarting): count it and try again shortly.
                with self.result.lock:
                    self.result.connection_errors += 1
                client.csrf = None
                self.stop.wait(0.05)
                continue
            self._count(response, "POST")
            if 200 <= response.status < 300:
                with self.result.lock:
                    self.result.acks.append(Ack(match.id, number, tag, time.monotonic()))
            found = NEXT_NUMBER.search(response.text)
            if found:
                believed[match.id] = int(found.group(1))
            else:
                believed.pop(match.id, None)
                # No entry form in the answer (the match is over, or the page was refused):
                # look at the match page before the next save.
            if response.status == 400:
                client.csrf = None
        client.close()

    def _count(self, response: Response, method: str) -> None:
        """Tally a status; keep the first lines of every 5xx."""
        with self.result.lock:
            self.result.statuses[response.status] += 1
            if response.status >= 500:
                self.result.server_errors.append(f"{method} {response.status}: {response.text[:300]}")
