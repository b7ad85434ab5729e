"""What a club table's match still takes: no write once its result counts; a hand saved once the turn's clock is up
is the last, the match ended with the hands played."""

from __future__ import annotations

from datetime import datetime

from ..extensions import db
from ..games.base import Standings
from ..games.refusals import N_, NotAllowed
from ..models import Match
from ..models.club import CLOCK, COUNTED, ClubLog, ClubTable
from ..queries import club as read


def table_of(match: Match) -> ClubTable | None:
    """The club table whose match this is (None: a match of no evening), read once under the match's lock: the
    write's check and its clock's ask it (the lock's version names it)."""
    kept = db.session.info.setdefault("club_table_of", {})
    key = (match.id, match.version)
    if key not in kept:
        kept.clear()
        kept[key] = read.table_of_match(match.id)
    return kept[key]


def refuse_once_counted(match: Match) -> None:
    """Refuse a write to a club table's match whose result counts (confirmed, settled, closed by the arbiter): the
    standings hold its points, and only the arbiter changes them (read under the match's lock)."""
    table = table_of(match)
    if table is not None and table.state in COUNTED:
        raise NotAllowed(N_("this table's result is counted: only the arbiter may change it now"))


def cut_short(match: Match, standings: Standings, played: datetime) -> bool:
    """After a hand saved at `match` (under its lock, rescored into `standings`), `played` when it was (a hand kept
    on a phone offline was played before it reached the server): where it is a club table's of the current turn and
    time was up then, the match is made to end here, and each side takes the penalty the host set for a table still
    playing when time is up (its last hand too). True when it was cut (the caller rescores: its status follows)."""
    table = table_of(match)
    if table is None or table.evening.turn != table.turn:
        return False
    clock, now = read.clock_of(table.evening), read.now_ms()
    if not clock.is_up(read.ms_of(played)):
        if clock.is_up(now) and not standings.over:
            # Time is up, and the phone says it kept this hand from before: not the last, on the phone's word (its
            # own clock's), which the arbiter reads in the log, with how long it waited there.
            waited = (now - read.ms_of(played)) // 60_000
            kept = {"hand": len(match.rounds), "minutes": waited}
            db.session.add(ClubLog(evening_id=table.evening.id, by=CLOCK, action="kept", turn=table.turn,
                                   table=table.number, after=kept))  # fmt: skip
        return False
    cut = not standings.over
    if cut:
        settings = dict(match.settings)
        if match.game == "burraco":
            settings["hands"] = len(match.rounds)
        else:
            # Pazaak: the sets won so far decide; level, the next set does (and the penalty waits for it).
            best = max(standings.totals.values(), default=0)
            if best == 0 or list(standings.totals.values()).count(best) > 1:
                return False
            settings["sets"] = best
        match.settings = settings
    evening = table.evening
    penalty = read.plan_of(evening).clock_penalty
    for entrant in table.sides if penalty else ():
        db.session.add(ClubLog(evening_id=evening.id, by=CLOCK, action="late", turn=table.turn, table=table.number,
                               entrant=entrant, after={"penalty": penalty}))  # fmt: skip
    if cut:
        db.session.add(ClubLog(evening_id=evening.id, by=CLOCK, action="cut", turn=table.turn, table=table.number,
                               after={"hands": len(match.rounds)}))  # fmt: skip
    return cut
