"""The import: match files checked whole in memory, then stored in short batches; and the seed's generated matches,
stored in bulk."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import uuid4

from sqlalchemy import insert, select

from ..extensions import db
from ..games import get_game, score_match
from ..games.refusals import N_, RuleError
from ..models import FINISHED, PLAYING, UNFINISHED, Match, Round, Seat, utcnow
from . import ratings, records
from .bounds import bounded_match_file, stored_time
from .dialect import conflict_insert
from .matches import rescore, unsaved_match
from .roster import enroll_seats, roster_players
from .transaction import transaction


def _parse_time(text: Any, what: str) -> datetime | None:
    """A match file's ISO 8601 time as a naive UTC datetime, or None when absent.

    One that is no date (9999-99-99) or cannot be kept (the year 1, or beyond 9998) is a RuleError:
    the current time in its place would file the match under a day it was never played.
    """
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise RuleError(
            N_("%(value)s is not a date and time (2025-03-01T20:30:00Z)", value=text[:40]), field=what
        ) from None
    return stored_time(moment, what)


# An import writes its new matches a batch per transaction, so that a save waits at most for one
# batch: a batch closes at this many matches, or at this many rounds (a match may hold a thousand).
IMPORT_BATCH_MATCHES = 200
IMPORT_BATCH_ROUNDS = 2000
# SQLite wakes no waiting writer when the lock is freed: each polls on a timer of up to 100 ms
# (50 ms in its first quarter second of waiting). An import that took the lock again at once
# would leave a waiting save only the moments between two batches; this pause lets it in.
SQLITE_PAUSE = 0.05
# The server's workers are gevent loops: a file's checks hand the loop back this often, and its batches between
# them, so the worker's other phones are answered while a long import runs. Handed back by a timer of LOOP_TURN:
# gevent may return from a sleep of 0 before its loop polls the phones' sockets (gevent.sleep says so), and a
# PostgreSQL poll waited 2.4 s behind an import's batches that way.
CHECKS_BETWEEN_YIELDS = 20
LOOP_TURN = 0.001
# How many ids one read looks up (well under either database's limit of bound values).
READ_CHUNK = 500


@dataclass
class Imported:
    """One match of an imported file: its id, and whether this import stored it (else it was stored already)."""

    id: int
    created: bool


def _checked_file(document: Any, stored: dict[str, int], seen: set[str]) -> tuple[str, Match | None]:
    """A match file checked by the rules: its id, and the match to store (None: stored already, or
    earlier in the same file). Writes nothing; the match is made with its caches, rescored in memory.
    """
    score_match(bounded_match_file(document))
    uid = document.get("id")
    if uid is not None:
        if not _well_formed_id(uid):
            raise RuleError(
                N_("the match id must be text of 1 to 80 characters, with no NUL character"), field="id"
            )
        if uid in stored or uid in seen:
            return uid, None
    match = unsaved_match(document["game"], document["players"], document.get("settings"))
    match.uid = uid if uid is not None else uuid4().hex
    now = utcnow()
    match.started_at = _parse_time(document.get("started"), "started") or now
    game = get_game(match.game)
    for number, data in enumerate(document["rounds"], start=1):
        checked = game.check_round(match.player_names, match.settings, data, number)
        at = _parse_time(data.get("at"), f"round {number}{ROUND_TIME}") or match.started_at
        match.rounds.append(Round(number=number, data=checked, created_at=at, updated_at=now))
    rescore(match)
    finished = _parse_time(document.get("finished"), "finished")
    if finished and match.status == PLAYING:
        # Its rounds leave it open but its file says when it stopped: the host ended it. It stays unfinished, as
        # it was, not among the matches being played.
        match.status, match.scorekeeper_hash = UNFINISHED, ""
    if finished:
        match.finished_at = finished
    return match.uid, match


# The fields of a match file that hold a time: a refusal of one names the match, whose file may hold many.
TIMES = ("started", "finished")
ROUND_TIME = ": at"


def _named(document: Any) -> str | None:
    """How a refusal names a match of a file: its id, else its players."""
    if not isinstance(document, dict):
        return None
    if isinstance(document.get("id"), str):
        return document["id"][:80]
    players = document.get("players")
    if isinstance(players, list) and all(isinstance(name, str) for name in players):
        return ", ".join(players)[:80]
    return None


def _well_formed_id(uid: Any) -> bool:
    """Whether a match file's id is one a match may keep: 1 to 80 characters, no NUL among them (PostgreSQL refuses
    one even in a query)."""
    return isinstance(uid, str) and 1 <= len(uid) <= 80 and "\x00" not in uid


def _stored_ids(uids: Iterable[str]) -> dict[str, int]:
    """The ids of the stored matches with these match-file ids."""
    wanted = sorted(set(uids))
    found: dict[str, int] = {}
    for start in range(0, len(wanted), READ_CHUNK):
        chunk = wanted[start : start + READ_CHUNK]
        found.update(db.session.execute(select(Match.uid, Match.id).where(Match.uid.in_(chunk))).tuples().all())
    return found


def _batches(matches: list[Match]) -> Iterator[list[Match]]:
    """The matches in batches of at most IMPORT_BATCH_MATCHES matches and (but for a longer match alone)
    IMPORT_BATCH_ROUNDS rounds."""
    batch: list[Match] = []
    rounds = 0
    for match in matches:
        if batch and (len(batch) == IMPORT_BATCH_MATCHES or rounds + len(match.rounds) > IMPORT_BATCH_ROUNDS):
            yield batch
            batch, rounds = [], 0
        batch.append(match)
        rounds += len(match.rounds)
    if batch:
        yield batch


def _store_batch(batch: list[Match]) -> None:
    """Store a batch of checked matches with their players and records (the caller commits)."""
    enroll_seats(batch)
    stored = _insert_batch(batch, new_only=True)
    records.add_new(stored)
    # An imported match finished whenever its file says: its game's ratings are rated again.
    ratings.mark_stale(match.game for match in stored if match.status == FINISHED)


def import_matches(documents: list[Any]) -> list[Imported]:
    """Import match files: every one is checked first, then the new ones are stored a batch at a time.

    A file with an error anywhere stores nothing: the RuleError names the match (when the file
    holds several) and the round. A match whose id is stored already, or came earlier in the file,
    is not stored again, so a second import of a file stores nothing new, and one after an import
    cut short stores what the first did not get to.

    Each batch is one short transaction with its matches' records: a save waits at most for one
    batch, and whatever has been stored at any moment is whole and counted. So the import as a
    whole is not one transaction: another phone may see part of it stored while it runs.
    """
    with transaction():
        # Read (and the transaction ended) before the checks: no lock is held while they run.
        stored = _stored_ids(d["id"] for d in documents if isinstance(d, dict) and _well_formed_id(d.get("id")))
    plan: list[tuple[str, Match | None]] = []
    seen: set[str] = set()
    for index, document in enumerate(documents, start=1):
        if index % CHECKS_BETWEEN_YIELDS == 0:
            time.sleep(LOOP_TURN)
        try:
            uid, match = _checked_file(document, stored, seen)
        except RuleError as error:
            named = _named(document)
            if named and (error.field in TIMES or str(error.field).endswith(ROUND_TIME)):
                raise RuleError(N_("match %(name)s: %(error)s", name=named, error=error.located())) from error
            if len(documents) > 1:
                raise RuleError(N_("match %(n)s: %(error)s", n=index, error=error.located())) from error
            raise
        seen.add(uid)
        plan.append((uid, match))
    new = [match for _, match in plan if match is not None]
    if len(new) > IMPORT_BATCH_MATCHES:
        # The checks of a large file leave many objects behind: a full collection now, outside any
        # transaction, rather than one the interpreter would start in a batch, holding its lock.
        gc.collect()
    # On PostgreSQL no writer waits on a timer: the pause only lets the worker's loop answer its phones.
    pause = SQLITE_PAUSE if db.session.get_bind().dialect.name == "sqlite" else LOOP_TURN
    for number, batch in enumerate(_batches(new)):
        if number:
            time.sleep(pause)
        with transaction():
            _store_batch(batch)
    ratings.rebuild_stale({match.game for match in new if match.status == FINISHED})
    created = {match.uid: match.id for match in new if match.id is not None}
    # Matches another import stored while this one ran are found like those stored before it.
    ids = stored | created | _stored_ids(uid for uid, _ in plan if uid not in stored and uid not in created)
    return [Imported(ids[uid], match is not None and match.id is not None) for uid, match in plan]


def store_generated(
    names: list[str], generate: Callable[[dict[str, int]], Iterable[Match]], batch_size: int = 1000
) -> int:
    """Store generated matches (the seed's) in one transaction; returns how many.

    `generate` is given the roster ids of `names` (added when new) and yields matches as
    unsaved objects, already rescored; they are inserted a batch at a time with three bulk
    statements each, and the records are recounted once at the end, since bulk inserts
    pass by the running sums that every other write keeps.
    """
    stored = 0
    with transaction():
        # The roster may already spell a name otherwise; seats keep the generated spelling.
        roster = roster_players(names)
        db.session.flush()
        batch: list[Match] = []
        for match in generate({name: player.id for name, player in zip(names, roster, strict=True)}):
            batch.append(match)
            if len(batch) == batch_size:
                _insert_batch(batch)
                stored, batch = stored + len(batch), []
        if batch:
            _insert_batch(batch)
            stored += len(batch)
        records.rebuild()
        ratings.redo(_games_stored())
    return stored


def _games_stored() -> list[str]:
    """The games of which a finished match is stored."""
    return list(db.session.scalars(select(Match.game).where(Match.status == FINISHED).distinct()))


SEAT_COLUMNS = ("player_id", "position", "name", "total", "won", "score_sum", "score_count", "best_score",
                "best_label", "team")  # fmt: skip
ROUND_COLUMNS = ("number", "data", "created_at", "updated_at")


def _insert_batch(batch: list[Match], new_only: bool = False) -> list[Match]:
    """Insert a batch of unsaved matches with three bulk statements, not one per object; returns those inserted.

    With `new_only`, a match whose id (uid) is stored already, by another import since this one
    read them, is left out rather than refused.
    """
    columns = ("game", "settings", "status", "started_at", "finished_at", "uid", "summary", "cache_version")
    match_rows = [{column: getattr(m, column) for column in columns} | {"version": len(m.rounds)} for m in batch]
    # Core inserts on the session's connection: the ORM's bulk path costs twice as much here.
    connection = db.session.connection()
    if new_only:
        adding = conflict_insert(Match.__table__).on_conflict_do_nothing(index_elements=["group_id", "uid"])
        ids = dict(connection.execute(adding.returning(Match.uid, Match.id), match_rows).tuples().all())
        batch = [match for match in batch if match.uid in ids]
        for match in batch:
            match.id = ids[match.uid]
    else:
        returning = insert(Match.__table__).returning(Match.id, sort_by_parameter_order=True)
        for match_id, match in zip(connection.execute(returning, match_rows).scalars(), batch, strict=True):
            match.id = match_id
    seat_rows = [{"match_id": m.id} | {c: getattr(seat, c) for c in SEAT_COLUMNS} for m in batch for seat in m.seats]
    round_rows = [{"match_id": m.id} | {c: getattr(rnd, c) for c in ROUND_COLUMNS} for m in batch for rnd in m.rounds]
    connection.execute(insert(Seat.__table__), seat_rows)
    if round_rows:
        connection.execute(insert(Round.__table__), round_rows)
    return batch
