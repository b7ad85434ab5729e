"""What a phone posts that more than one view reads alike: the key it makes for a round or a row it sends."""

from __future__ import annotations

import re

from flask import abort, request

# The key a phone makes for each round save (static/js/offline.js) or row sent (seats.js): a UUID, lower case.
ROUND_KEY = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def posted_key(field: str, unreadable: str) -> str | None:
    """The key posted in `field` (None when none was), or a 400 that says `unreadable`."""
    key = request.form.get(field) or None
    if key is not None and not ROUND_KEY.fullmatch(key):
        abort(400, unreadable)
    return key
