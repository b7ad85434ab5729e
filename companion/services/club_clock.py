"""Writes of a club turn's clock (the host starts, pauses, resumes, extends, ends it) and of a table's call for the
arbiter (a phone at the table calls or withdraws it, the arbiter answers it); each under the evening's lock, logged."""

from __future__ import annotations

from ..games.checks import clean_note
from ..games.club.clock import EXTENSIONS, OFF, PAUSED, UP, Clock
from ..games.refusals import N_, NotAllowed, RuleError
from ..models import utcnow
from ..models.club import ARBITER, CALL_MAX, EVENING_OVER, EVENING_PLAYING, ClubEvening, ClubTable
from ..queries import club as read
from ..queries.matches import hash_token
from .club import _locked, _log, _table_of, answer
from .club_table import _seated_table


def run_clock(evening: ClubEvening, action: str, minutes: int | None = None) -> None:
    """The host's tap on the turn's clock: start it for the turn's minutes, pause it, resume it, extend it by one
    of `EXTENSIONS` minutes, or end it (time is up now). A tap that does not fit the clock's state is refused."""
    with _locked(evening):
        if evening.status != EVENING_PLAYING:
            raise NotAllowed(N_("the clock runs while a turn is played"))
        now = read.now_ms()
        clock = read.clock_of(evening)
        state = clock.state(now)
        if action == "start":
            if state != OFF:
                raise NotAllowed(N_("the clock of this turn is started already"))
            clock = clock.started(now, read.plan_of(evening).turn_minutes)
        elif action == "extend":
            if minutes not in EXTENSIONS:
                choices = " or ".join(map(str, EXTENSIONS))
                raise RuleError(N_("a turn is extended by %(choices)s minutes", choices=choices), field="minutes")
            if state == OFF:
                raise NotAllowed(N_("start the clock first"))
            clock = clock.extended(now, minutes)
        elif action == "pause":
            if state in (OFF, PAUSED, UP):
                raise NotAllowed(N_("the clock is not running"))
            clock = clock.paused(now)
        elif action == "resume":
            if state != PAUSED:
                raise NotAllowed(N_("the clock is not paused"))
            clock = clock.resumed(now)
        elif action == "end":
            if state in (OFF, UP):
                raise NotAllowed(N_("the clock is not running"))
            clock = Clock(ends_ms=now)
        else:
            raise RuleError(N_("unknown clock action"), field="action")
        evening.clock_ends_at = read.at_ms(clock.ends_ms) if clock.ends_ms is not None else None
        evening.clock_left_ms = clock.paused_left_ms
        _log(evening, ARBITER, "clock", turn=evening.turn, after={"action": action, "minutes": minutes})


def call_arbiter(evening: ClubEvening, table: ClubTable, credential: str | None, reason: str) -> None:
    """A phone seated at the table calls the arbiter to it with a short reason (a second call replaces the first)."""
    reason = clean_note(reason, CALL_MAX)
    if not reason:
        raise RuleError(N_("say why the arbiter is needed"), field="call")
    with _locked(evening):
        table = _seated_table(evening, table.turn, table.number, credential)
        if evening.status == EVENING_OVER:
            raise NotAllowed(N_("this evening is over"))
        if table.turn != evening.turn:
            raise NotAllowed(N_("this table's turn is over: call the arbiter from your table of this turn"))
        table.call, table.called_at = reason, utcnow()
        _log(evening, hash_token(credential or ""), "call", turn=table.turn, table=table.number, note=reason)


def withdraw_call(evening: ClubEvening, table: ClubTable, credential: str | None) -> None:
    """The table's phone takes its call back (the arbiter is no longer needed)."""
    with _locked(evening):
        table = _seated_table(evening, table.turn, table.number, credential)
        if table.call is not None:
            table.call = table.called_at = None
            _log(evening, hash_token(credential or ""), "uncall", turn=table.turn, table=table.number)


def answer_call(evening: ClubEvening, turn: int | None, number: int | None) -> None:
    """The arbiter answered a table's call: it leaves the arbiter's page."""
    with _locked(evening):
        answer(evening, _table_of(evening, turn, number))
