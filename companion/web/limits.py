"""The limits per phone and per address: how often a phone may export, import or send a wrong code (docs/access.md).

Every count is kept in the limiter's store (Flask-Limiter, `LIMITS_STORAGE_URL`): each process's memory on
a laptop, Redis where several processes or servers serve, so that a limit means the same however many
of them answer. A phone is its session (every page gives one, with the CSRF token in it); a client that
keeps no cookie is counted as one phone per address. The address is the one the server sees, behind a
proxy the one that proxy names (`BEHIND_PROXY`), an IPv6 address by its /64 (a phone can have many).
"""

from __future__ import annotations

import fcntl
import hashlib
import ipaddress
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from flask import Response, current_app, request, session
from flask_limiter import RateLimitExceeded
from limits import RateLimitItem, parse

from ..extensions import limiter
from ..games.refusals import N_, Message
from .i18n import translated


def address() -> str:
    """The phone's address as this server knows it; an IPv6 one by its /64 network."""
    raw = request.remote_addr or ""
    try:
        found = ipaddress.ip_address(raw)
    except ValueError:
        return raw or "unknown"
    if found.version == 6 and found.ipv4_mapped is None:
        return f"{ipaddress.ip_network(f'{found}/64', strict=False).network_address}/64"
    return str(getattr(found, "ipv4_mapped", None) or found)


def phone() -> str:
    """This phone: a digest of its session's CSRF token (never the token itself), else its address."""
    token = session.get("csrf_token")
    if isinstance(token, str) and token:
        return "phone:" + hashlib.sha256(token.encode()).hexdigest()[:32]
    return "address:" + address()


@dataclass(frozen=True)
class Limit:
    """One kind of request limited twice: per phone and, looser, per address (a club's phones share one)."""

    name: str
    per_phone: str
    per_address: str
    # What the phone is told when it is over: by the phone's own count, and by its network's.
    phone_text: Message
    address_text: Message

    def items(self) -> tuple[tuple[RateLimitItem, Callable[[], str], Message], ...]:
        """Each limit with the key it counts by and what it says when it is reached."""
        return (
            (parse(self.per_phone), phone, self.phone_text),
            (parse(self.per_address), address, self.address_text),
        )


EXPORTS = Limit(
    "exports",
    per_phone="10 per minute",
    per_address="30 per minute",
    phone_text=N_("Too many exports from this phone: wait a minute, then download again."),
    address_text=N_("Too many exports from this network: wait a minute, then download again."),
)
IMPORTS = Limit(
    "imports",
    per_phone="5 per minute",
    per_address="10 per minute",
    phone_text=N_("Too many imports from this phone: wait a minute, then import again."),
    address_text=N_("Too many imports from this network: wait a minute, then import again."),
)
# Groups started on a private server: enough for a family's or a club's, not for a script filling the server.
GROUPS_STARTED = Limit(
    "groups",
    per_phone="5 per hour",
    per_address="20 per hour",
    phone_text=N_("Too many groups started from this phone: wait an hour, then start one again."),
    address_text=N_("Too many groups started from this network: wait an hour, then start one again."),
)
# Wrong secrets (pencil codes, host links, invite links): a person with a stale code gets several tries; a script
# guessing is made to wait. The right code is never refused for them (see `WrongCodes`).
WRONG_CODES = Limit(
    "wrong-codes",
    per_phone="10 per minute",
    per_address="30 per minute",
    phone_text=N_("Too many wrong codes from this phone: wait a minute, then scan the code again."),
    address_text=N_("Too many wrong codes from this network: wait a minute, then scan the code again."),
)


def seconds_to_wait(error: Exception) -> int | None:
    """For a refusal of one of the limits above, the seconds until its oldest count leaves its window."""
    if not isinstance(error, RateLimitExceeded) or limiter.current_limit is None:
        return None
    return max(1, int(limiter.current_limit.reset_at - time.time()) + 1)


def _kept(response: Response) -> bool:
    """Whether an answer counts against the limits: not a refusal for a limit, nor one that the server was busy."""
    return response.status_code not in (429, 503)


def limited(kind: Limit) -> Callable:
    """A view's decorator: `kind`'s two limits, checked as the view is called (a 429 with its text when over)."""

    def decorate(view: Callable) -> Callable:
        for item, key, text in reversed(kind.items()):
            view = limiter.shared_limit(
                str(item),
                scope=f"{kind.name}-{key.__name__}",
                key_func=key,
                error_message=lambda text=text: translated(text),
                deduct_when=_kept,
            )(view)
        return view

    return decorate


# --- Wrong codes -------------------------------------------------------------------------------

# Guesses at one code, from everyone together, that withdraw it (the last of them does); its giver then
# offers a new one. Spreading guesses over many phones or addresses gains nothing.
GUESSES_PER_CODE = 10
_CODE_GUESSES = parse(f"{GUESSES_PER_CODE - 1} per hour")


@dataclass(frozen=True)
class Refused:
    """A wrong code the phone sent while over a limit: what it is told, and when it may try again."""

    text: str
    retry_after: int


def count_wrong_code() -> Refused | None:
    """Count one wrong code (of any match, or the host link) from this phone and its address; a `Refused`
    when either is over its limit.

    Called only once a code has been found wrong: the right one is accepted before any count is read,
    so other phones' mistakes behind the same address never refuse it.
    """
    over = None
    for item, key, text in WRONG_CODES.items():
        keys = (WRONG_CODES.name, key())
        if not _hit(item, *keys) and over is None:
            over = Refused(translated(text), _seconds_to_wait(item, *keys))
    return over


def refused_answer(response: Response, refused: Refused | None) -> Response:
    """The page that names a wrong code, as a 429 with its Retry-After when the phone was over a limit."""
    if refused is not None:
        response.status_code = 429
        response.headers["Retry-After"] = str(refused.retry_after)
    return response


def guessed(door: str, code_id: str) -> bool:
    """Count one guess at the code `code_id` of `door`; True when it was the last one the code takes."""
    return not _hit(_CODE_GUESSES, "code-guesses", door, code_id)


def _hit(item: RateLimitItem, *keys: str) -> bool:
    """One more in a count of the store; True while under the limit (and when the store cannot be reached)."""
    try:
        return limiter.limiter.hit(item, *keys)
    except Exception:  # noqa: BLE001 - a store that is down lets the request through, as Flask-Limiter's own do
        current_app.logger.exception("the limits' store could not be reached")
        return True


def _seconds_to_wait(item: RateLimitItem, *keys: str) -> int:
    """Until the oldest count of this limit leaves its window."""
    try:
        reset = limiter.limiter.get_window_stats(item, *keys).reset_time
    except Exception:  # noqa: BLE001 - the store is down: a minute is what every limit here counts
        return 60
    return max(1, int(reset - time.time()) + 1)


# --- Long answers at once ----------------------------------------------------------------------

# Exports of the whole history take seconds of a core each. This many at once for all the processes that
# share the instance folder (a laptop's, or both containers') leaves the other cores and threads to the
# phones' polls and saves; another export asked meanwhile is told to come back.
EXPORTS_AT_ONCE = 1
# A slot not given back after this long (a stream neither finished nor closed) is taken back by its process.
STALE_AFTER = 15 * 60
BUSY_RETRY_AFTER = 5
BUSY_TEXT = N_("Other exports are being written right now: try again in a few seconds.")


class Gate:
    """At most `size` long answers at once among the processes of one instance folder: a slot is a lock on
    a file there (flock), which the system gives back by itself if its process dies."""

    def __init__(self, folder: Path, size: int) -> None:
        self.paths = [folder / f"export-{slot}.lock" for slot in range(size)]
        self._lock = threading.Lock()
        self._held: dict[int, tuple[IO[bytes], float]] = {}
        self._numbers = itertools.count()

    def enter(self) -> Callable[[], None] | None:
        """A slot, and the function that frees it; None when every slot is taken."""
        with self._lock:
            now = time.monotonic()
            for number, (_, began) in list(self._held.items()):
                if now - began > STALE_AFTER:
                    self._free(number)
            for path in self.paths:
                handle = path.open("ab")
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    handle.close()
                    continue
                number = next(self._numbers)
                self._held[number] = (handle, now)
                return lambda: self.leave(number)
        return None

    def leave(self, number: int) -> None:
        """Free a slot (again: a stream both finished and closed frees it twice)."""
        with self._lock:
            self._free(number)

    def _free(self, number: int) -> None:
        held = self._held.pop(number, None)
        if held is not None:
            fcntl.flock(held[0], fcntl.LOCK_UN)
            held[0].close()


def export_gate() -> Gate:
    """This app's gate for exports, on its instance folder (one per app: the tests' apps stay apart)."""
    return current_app.extensions.setdefault("export_gate", Gate(Path(current_app.instance_path), EXPORTS_AT_ONCE))
