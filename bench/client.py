"""A small keep-alive HTTP client on http.client, with cookies, and the app's setup steps."""

from __future__ import annotations

import gzip
import http.client
import re
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlencode

import brotli

ACCEPT = {"Accept-Encoding": "br, gzip", "Accept-Language": "en"}
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"|"X-CSRFToken": "([^"]+)"')
PLAYERS = ["Anna", "Bruno", "Carla", "Dario"]


def keep_cookies(jar: dict[str, str], set_cookies: Iterable[str]) -> None:
    """The cookies an answer sets, kept in a phone's jar as a browser keeps them (one set to expire, forgotten)."""
    for line in set_cookies:
        name, _, rest = line.partition("=")
        value = rest.split(";", 1)[0]
        if value and "max-age=0" not in line.lower():
            jar[name.strip()] = value
        else:
            jar.pop(name.strip(), None)


@dataclass
class Reply:
    """One response as it came over the wire: status, headers, the (compressed) body, the time."""

    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float

    @property
    def queries(self) -> int | None:
        """The server's count of SQL statements (COMPANION_COUNT_QUERIES=1), if it sent one."""
        value = self.headers.get("x-queries")
        return int(value) if value is not None else None

    def text(self) -> str:
        """The body decompressed and decoded."""
        encoding = self.headers.get("content-encoding", "")
        data = self.body
        if encoding == "br":
            data = brotli.decompress(data)
        elif encoding == "gzip":
            data = gzip.decompress(data)
        return data.decode("utf-8")


@dataclass
class Client:
    """One phone: a keep-alive connection and its cookies."""

    port: int
    cookies: dict[str, str] = field(default_factory=dict)
    csrf: str = ""

    def __post_init__(self) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def request(self, method: str, path: str, body: str | None = None, headers: dict | None = None) -> Reply:
        """Send one request and read the whole response; time from write to last byte."""
        sent = dict(ACCEPT)
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        sent.update(headers or {})
        began = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=sent)
            response = self.conn.getresponse()
            data = response.read()
        except (http.client.HTTPException, OSError):
            self.conn.close()
            raise
        seconds = time.perf_counter() - began
        keep_cookies(self.cookies, response.msg.get_all("Set-Cookie") or [])
        headers_out = {k.lower(): v for k, v in response.getheaders()}
        return Reply(response.status, headers_out, data, seconds)

    def get(self, path: str, headers: dict | None = None) -> Reply:
        """GET a path."""
        return self.request("GET", path, headers=headers)

    def post(self, path: str, fields: list[tuple[str, str]], headers: dict | None = None) -> Reply:
        """POST a form (with this phone's CSRF token)."""
        return self.request("POST", path, body=urlencode([("csrf_token", self.csrf), *fields]), headers=headers)

    def fetch_csrf(self) -> None:
        """Open the new-match page once, as a phone would, for the session and its CSRF token."""
        reply = self.get("/matches/new")
        found = CSRF.search(reply.text())
        assert found, "no CSRF token on /matches/new"
        self.csrf = found.group(1) or found.group(2)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


def create_match(client: Client, length: str = "medium", players: list[str] = PLAYERS, game: str = "topic") -> str:
    """Start a match (a Topic_ one unless `game` names another) from the new-match form; this phone gets the
    pencil. Returns its address text (`/matches/<text>`)."""
    if not client.csrf:
        client.fetch_csrf()
    fields = [("game", game), *[("seat", name) for name in players], ("length", length), ("action", "start")]
    reply = client.post("/matches/new", fields)
    location = reply.headers.get("location") or reply.headers.get("hx-location") or ""
    found = re.search(r"/matches/([0-9A-Za-z]+)$", location)
    assert reply.status in (302, 303, 200) and found, f"match not created: {reply.status} {location}"
    return found.group(1)


# The one cookie holding every pencil of the phone (`__Host-` prefixed over HTTPS); a base from before it set
# a cookie per match, `pencil_<id>`.
PENCIL_COOKIES = ("pencil", "__Host-pencil")


def pencil_cookie(client: Client) -> tuple[str, str]:
    """The name and value of the pencil cookie the phone was given with the match it started last, as the app
    set it (the one `pencil` cookie, or a base's `pencil_<id>`)."""
    names = [name for name in client.cookies if name in PENCIL_COOKIES or name.startswith("pencil_")]
    assert names, f"no pencil cookie among {sorted(client.cookies)}"
    return names[-1], client.cookies[names[-1]]


def round_fields(number: int, players: list[str] = PLAYERS) -> list[tuple[str, str]]:
    """The entry form of a Topic_ round (the next player in turn is the slowest), as the page posts it."""
    from companion.games import get_game

    loser = players[number % len(players)]
    form = get_game("topic").entry.form_from_round({"losers": [loser]}, players, {"length": "medium"})
    fields = [(key, value) for key, values in form.items() for value in values]
    return [*fields, ("number", str(number))]


HX = {"HX-Request": "true"}


def save_round(client: Client, match_id: str, number: int) -> Reply:
    """The scorekeeper's tap on Save: the htmx POST, answered with the saved-round fragment."""
    headers = {**HX, "HX-Target": "entry", "X-CSRFToken": client.csrf}
    return client.post(f"/matches/{match_id}/rounds", round_fields(number), headers=headers)


def seated_match(client: Client) -> str:
    """A Pazzaparola match this phone started and sits at, in the first seat, to send that seat's rows: its
    first round saved, as a save's match has rounds (the chances to win are drawn before the first alone)."""
    match_id = create_match(client, game="pazzaparola")
    reply = client.post(f"/matches/{match_id}/seat", [("seat", "0")])
    assert reply.status in (302, 303), f"seat not taken: {reply.status}"
    assert save_rows_round(client, match_id, 1).status == 200
    return match_id


def send_row(client: Client, match_id: str) -> Reply:
    """A seated phone's tap on Send: its row of round 2 (sent again and again, as a player changing it would),
    each send under a key of its own, answered with the phone's entry."""
    headers = {**HX, "HX-Target": "entry", "X-CSRFToken": client.csrf}
    fields = [("number", "2"), ("used-0", "3"), ("used-0", "4"), ("word-0", "GAS"), ("row_key", str(uuid.uuid4()))]
    return client.post(f"/matches/{match_id}/rows", fields, headers=headers)


def save_rows_round(client: Client, match_id: str, number: int) -> Reply:
    """The scorekeeper's Save of a Pazzaparola round of the seated match: Anna's word is the best."""
    fields = [("number", str(number)), ("used-0", "5"), *[(f"used-{seat}", "2") for seat in range(1, len(PLAYERS))]]
    return client.post(
        f"/matches/{match_id}/rounds", fields, headers={**HX, "HX-Target": "entry", "X-CSRFToken": client.csrf}
    )
