"""Host rights: the secret host link printed by `make run`, and the cookie of the phones that opened it.

Kept in the instance folder (`host_rights.json`, mode 600), beside the secret key:

- `link`: the sha256 of the link's token. Each start of the server (and `flask host-token`)
  draws a new token and prints it, so a link seen in an old terminal no longer works; the
  token itself is never stored.
- `generation`: a random value the host phones' cookie is derived from (an HMAC of it under
  the secret key). Phones keep their rights across restarts; `flask host-token --new` draws
  a new generation, and every phone's host cookie stops counting.

The running server re-reads the file when it changes, so a link made by the command line
works at once, and `--new` revokes at once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
from pathlib import Path

from flask import Flask, current_app

from ..queries.matches import same_secret

HOST_COOKIE = "host"
HOST_FILE = "host_rights.json"

# The file as last read, per instance folder (one in a server; a few in the test suite).
_READ: dict[Path, tuple[tuple[int, int, int], dict[str, str]]] = {}
_READ_LOCK = threading.Lock()
_READ_MAX = 16


def _path(app: Flask | None = None) -> Path:
    """Where the host rights of this app's instance are kept."""
    return Path((app or current_app).instance_path) / HOST_FILE


def _stored(app: Flask | None = None) -> dict[str, str]:
    """The stored hashes, re-read only when the file has changed; empty when there is none yet."""
    path = _path(app)
    try:
        status = path.stat()
    except OSError:
        return {}
    # A replaced file is a new inode: two writes within one clock tick still read as a change.
    changed = (status.st_ino, status.st_mtime_ns, status.st_size)
    with _READ_LOCK:
        cached = _READ.get(path)
        if cached is not None and cached[0] == changed:
            return cached[1]
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    found = found if isinstance(found, dict) else {}
    with _READ_LOCK:
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        _READ[path] = (changed, found)
    return found


def _write(app: Flask, values: dict[str, str]) -> None:
    """Replace the file in one step (a reader sees the old one or the new one), readable by the owner only."""
    path = _path(app)
    temporary = path.with_name(f".{HOST_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
        handle.write(json.dumps(values))
    os.replace(temporary, path)


def new_link_token(app: Flask, revoke: bool = False) -> str:
    """A fresh host-link token (the previous link stops working); `revoke` also takes the rights of every phone."""
    stored = _stored(app)
    generation = stored.get("generation")
    if revoke or not generation:
        generation = secrets.token_hex(32)
    token = secrets.token_urlsafe(32)
    _write(app, {"link": hashlib.sha256(token.encode()).hexdigest(), "generation": generation})
    return token


def opens_host_link(token: str | None) -> bool:
    """Whether a token is the one of the host link printed last."""
    return same_secret(token, _stored().get("link"))


def phone_cookie() -> str:
    """What a host phone keeps in its cookie: derived from the generation, so `--new` revokes it."""
    generation = _stored().get("generation", "")
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, f"host-rights:{generation}".encode(), hashlib.sha256).hexdigest()


def has_host_rights(cookie: str | None) -> bool:
    """Whether a phone's host cookie is valid for the current generation."""
    if not cookie or not _stored().get("generation"):
        return False
    # compare_digest takes text of ASCII only: a cookie a stranger set to anything else is simply wrong.
    return hmac.compare_digest(cookie.encode(), phone_cookie().encode())


def link_path(token: str) -> str:
    """The path of the host link for a token, to put after the server's address."""
    return f"/host?token={token}"
