"""A hand saved at a club table once the turn's clock is up is the last: the match ends with the hands played."""

from __future__ import annotations

from ..extensions import db
from ..games.base import Standings
from ..models import Match
from ..models.club import ClubLog
from ..queries import club as read

# Who the log names for what the clock did.
CLOCK = "clock"


def cut_short(match: Match, standings: Standings) -> bool:
    """After a hand saved at `match` (under its lock, rescored into `standings`): where it is a club table's of the
    current turn and time is up, the match is made to end here, and each side takes the penalty the host set for
    a table still playing when time is up. True when it was cut (the caller rescores: its status follows)."""
    if standings.over:
        return False
    table = read.current_table_of_match(match.id)
    if table is None or not read.clock_of(table.evening).is_up(read.now_ms()):
        return False
    settings = dict(match.settings)
    if match.game == "burraco":
        settings["hands"] = len(match.rounds)
    else:
        # Pazaak: the sets won so far decide; level, the next set does.
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
    db.session.add(ClubLog(evening_id=evening.id, by=CLOCK, action="cut", turn=table.turn, table=table.number,
                           after={"hands": len(match.rounds)}))  # fmt: skip
    return True
