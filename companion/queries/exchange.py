"""The match file (companion-match/1): a stored match written out as a document."""

from __future__ import annotations

from typing import Any

from ..games import FORMAT
from ..models import Match


def _time(value) -> str | None:
    """A stored time as ISO 8601 UTC text."""
    return value.isoformat(timespec="seconds") + "Z" if value else None


def match_document(match: Match) -> dict[str, Any]:
    """The match in the match-file format, with its id and times as extra keys."""
    document: dict[str, Any] = {
        "format": FORMAT,
        "id": match.uid,
        "game": match.game,
        "players": match.player_names,
        "settings": match.settings,
        "started": _time(match.started_at),
        "finished": _time(match.finished_at),
        "rounds": [dict(r.data, at=r.data.get("at") or _time(r.created_at)) for r in match.rounds],
    }
    return document
