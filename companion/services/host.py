"""Host rights on an open server: the secret host link printed by `make run` makes the phone opening it a host.

The link's hash is kept in the instance folder (`host_rights.json`, mode 600), beside the secret key.
Each start of the server (and `flask host-token`) draws a new token and prints it, so a link seen in
an old terminal no longer works; the token itself is never stored. The running server re-reads the
file when it changes, so a link made by the command line works at once.

The rights themselves are each host phone's own (a `Member` of the open group with `host` set, found by
the phone's credential): a host removes one phone's rights alone, and `flask host-token --new` takes
them from every phone at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
from pathlib import Path

from flask import Flask, current_app

from ..queries.matches import same_secret
from .groups import revoke_open_hosts

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
    if revoke:
        revoke_open_hosts()
    token = secrets.token_urlsafe(32)
    _write(app, {"link": hashlib.sha256(token.encode()).hexdigest()})
    return token


def opens_host_link(token: str | None) -> bool:
    """Whether a token is the one of the host link printed last."""
    return same_secret(token, _stored().get("link"))


def link_path(token: str) -> str:
    """The path of the host link for a token, to put after the server's address."""
    return f"/host?token={token}"
