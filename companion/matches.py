"""The service layer: every write to the database goes through these functions."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Row, Table, Update, bindparam, func, insert, inspect, select, update
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from . import records
from .extensions import db
from .games import get_game
from .games.base import RuleError, Standings
from .models import FINISHED, PLAYING, Match, Player, Round, RoundChange, Seat, name_key, utcnow


class Conflict(Exception):
    """A write based on a state of the match that has changed meanwhile."""

    def __init__(self, message: str, current: Round | None = None):
        super().__init__(message)
        self.current = current


@dataclass
class Saved:
    """What a round save did: the round stored (or already stored) and the new standings."""

    round: Round
    standings: Standings
    repeated: bool = False
    # Whether saving it emptied the redo stack (a new round forgets the rounds undone).
    cleared_redo: bool = False


def hash_token(token: str) -> str:
    """The stored form of a scorekeeper token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _same_secret(token: str | None, stored: str | None) -> bool:
    """Whether a presented token hashes to a stored hash, compared in constant time."""
    if not token or not stored:
        return False
    return hmac.compare_digest(hash_token(token), stored)


def token_matches(match: Match, token: str | None) -> bool:
    """Whether a token is this match's scorekeeper token (the pencil)."""
    return _same_secret(token, match.scorekeeper_hash)


def is_owner(match: Match, token: str | None) -> bool:
    """Whether a token is the one of the phone that created the match."""
    return _same_secret(token, match.owner_hash)


def standings_of(match: Match) -> Standings:
    """The match's standings, derived from its rounds by the game's rules."""
    game = get_game(match.game)
    return game.standings(match.player_names, match.settings, [r.data for r in match.rounds])


def roster_players(names: list[str]) -> list[Player]:
    """The roster entries for these names, adding the new ones (matched ignoring case)."""
    keys = [name_key(n) for n in names]
    found = {p.key: p for p in db.session.scalars(select(Player).where(Player.key.in_(keys)))}
    players = []
    for name, key in zip(names, keys, strict=True):
        player = found.get(key)
        if player is None:
            player = Player(name=" ".join(name.split()), key=key)
            db.session.add(player)
            found[key] = player
        players.append(player)
    return players


def _new_match(game_slug: str, names: list[str], raw_settings: dict[str, Any] | None) -> Match:
    """A match object checked by the rules, not yet committed."""
    game = get_game(game_slug)
    names = game.check_players(names)
    settings = game.settings(raw_settings, names)
    match = Match(game=game.slug, settings=settings)
    for position, (name, player) in enumerate(zip(names, roster_players(names), strict=True)):
        match.seats.append(Seat(player=player, position=position, name=name))
    return match


def create_match(game_slug: str, names: list[str], settings: dict[str, Any] | None) -> tuple[Match, str]:
    """Start a match; returns it with the scorekeeper token for the creator's cookie."""
    match = _new_match(game_slug, names, settings)
    token = secrets.token_urlsafe(32)
    match.scorekeeper_hash = match.owner_hash = hash_token(token)
    db.session.add(match)
    rescore(match)
    db.session.commit()
    return match, token


# The statements of a save, built once: SQLAlchemy works out a statement's cache key on
# every execution of a new statement object, which costs more than running it on SQLite.
_MATCHES, _ROUNDS = Match.__table__, Round.__table__
_LOCK = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("match_id"))
    .values(version=_MATCHES.c.version + 1)
    .returning(_MATCHES.c.version, _MATCHES.c.redo, _MATCHES.c.status)
)
_INSERT_ROUND = insert(_ROUNDS).returning(_ROUNDS.c.id)


@lru_cache(maxsize=64)
def _cache_update(table: Table, columns: tuple[str, ...]) -> Update:
    """The UPDATE of some columns of one row of a table, by its id."""
    return update(table).where(table.c.id == bindparam("row_id")).values({c: bindparam(f"new_{c}") for c in columns})


_MATCH_BY_ID = select(Match).where(Match.id == bindparam("match_id"))
_LIVE_STATE = select(_MATCHES.c.version, _MATCHES.c.uid).where(_MATCHES.c.id == bindparam("match_id"))
_SEATS_OF = select(Seat).where(Seat.match_id == bindparam("match_id")).order_by(Seat.position)
_ROUNDS_OF = select(Round).where(Round.match_id == bindparam("match_id")).order_by(Round.number)


def find_match(match_id: int) -> Match | None:
    """The match with this id and its seats (every match page names its players), or None.

    Read with statements built once rather than by the ORM's get and lazy load, which build
    theirs anew on every call; a save and a viewer's poll start here.
    """
    match = db.session.execute(_MATCH_BY_ID, {"match_id": match_id}).scalar_one_or_none()
    if match is not None and "seats" not in inspect(match).dict:
        seats = db.session.execute(_SEATS_OF, {"match_id": match_id}).scalars().all()
        set_committed_value(match, "seats", list(seats))
    return match


def live_state(match_id: int, connection: Connection | None = None) -> Row | None:
    """A match's version and uid, or None: all a live poll needs to know whether it changed.

    On `connection` when given: the live-poll middleware asks before Flask opens a session.
    """
    return (connection or db.session).execute(_LIVE_STATE, {"match_id": match_id}).one_or_none()


def _lock(match: Match) -> None:
    """Take the match's write lock before reading its rounds, by bumping its version.

    The UPDATE makes SQLite take its write lock and PostgreSQL lock the row, so two
    writers of one match run one after the other and round numbers never collide.
    What another writer may have changed before we held the lock is read again: the redo
    stack and the status come back with the new version, then the rounds.
    """
    version, redo, status = db.session.connection().execute(_LOCK, {"match_id": match.id}).one()
    for name, value in (("version", version), ("redo", redo), ("status", status)):
        set_committed_value(match, name, value)
    rounds = db.session.execute(_ROUNDS_OF, {"match_id": match.id}).scalars().all()
    set_committed_value(match, "rounds", list(rounds))


def side_of(match: Match, player: str) -> str:
    """The scoring side a player belongs to, as the game says: their team when it has teams."""
    return get_game(match.game).side_of(match.settings, player)


@contextmanager
def _writing(match: Match) -> Iterator[None]:
    """One write to a match: under its lock, committed whole, or rolled back whole."""
    try:
        _lock(match)
        yield
        db.session.commit()
    except BaseException:
        db.session.rollback()
        raise


def _append(match: Match, data: dict[str, Any]) -> Saved:
    """Add the next round, checked by the rules, and re-score the match."""
    game = get_game(match.game)
    number = len(match.rounds) + 1
    checked = game.check_round(match.player_names, match.settings, data, number)
    now = utcnow()
    row = {"match_id": match.id, "number": number, "data": checked, "created_at": now, "updated_at": now, "revision": 0}
    row["id"] = db.session.connection().execute(_INSERT_ROUND, row).scalar_one()
    # Written at once and attached as stored, like the caches `rescore` writes (see _assign).
    stored = Round(**row)
    make_transient_to_detached(stored)
    db.session.add(stored)
    set_committed_value(match, "rounds", [*match.rounds, stored])
    return Saved(stored, rescore(match))


# Bump when a cache kept by `rescore` changes meaning or gains a column: matches stored
# before are rescored on the next start (see refresh_stale_caches).
CACHE_VERSION = 1


def rescore(match: Match) -> Standings:
    """Recompute the standings and keep the list-page caches, the status and the records in step."""
    game = get_game(match.game)
    rounds = [r.data for r in match.rounds]
    standings = game.standings(match.player_names, match.settings, rounds)
    # A stored match that was being played and still is counts as one in progress for each
    # of its players, before as after: its records have nothing to follow, nor to read.
    stays_open = inspect(match).has_identity and match.status != FINISHED and not standings.over
    before = None if stays_open else records.stored(match)
    summary = {"totals": standings.totals, "winners": standings.winners, "rounds": len(match.rounds)}
    status = {"summary": summary, "cache_version": CACHE_VERSION}
    if standings.over and match.status != FINISHED:
        status.update(status=FINISHED, finished_at=utcnow())
    elif not standings.over and match.status == FINISHED:
        status.update(status=PLAYING, finished_at=None)
    _assign(match, **status)
    for seat in match.seats:
        side = game.side_of(match.settings, seat.name)
        scores = game.round_scores(standings, rounds, side)
        best = max(scores, key=lambda scored: scored[0]) if scores else (None, None)
        _assign(
            seat,
            total=standings.totals.get(side),
            won=side in standings.winners,
            score_sum=sum(score for score, _ in scores) if scores else None,
            score_count=len(scores) if scores else None,
            best_score=best[0],
            best_label=(best[1] or None) and best[1][:80],
        )
    records.follow(match, before)
    return standings


def _assign(row: Any, **values: Any) -> None:
    """Set the attributes whose value changes; a stored row gets them in one UPDATE, at once.

    A save is on every table's critical path, and the ORM's unit of work spends far more
    deciding what to flush than the few small UPDATEs take: so the caches of a stored row
    are written with a Core statement and recorded as committed state, which the session
    then has nothing left to flush for. A row not yet stored is simply set, and inserted
    whole at the next flush.
    """
    changed = {name: value for name, value in values.items() if getattr(row, name) != value}
    if not changed:
        return
    state = inspect(row)
    if not state.persistent:
        for name, value in changed.items():
            setattr(row, name, value)
        return
    statement = _cache_update(state.mapper.local_table, tuple(changed))
    db.session.connection().execute(statement, {"row_id": row.id, **{f"new_{c}": v for c, v in changed.items()}})
    for name, value in changed.items():
        set_committed_value(row, name, value)


def refresh_stale_caches(batch: int = 500) -> int:
    """Rescore the matches whose caches predate this release; returns how many there were."""
    refreshed = 0
    while True:
        stale = db.session.scalars(
            select(Match).where(Match.cache_version < CACHE_VERSION).order_by(Match.id).limit(batch)
        ).all()
        if not stale:
            return refreshed
        for match in stale:
            try:
                rescore(match)
            except RuleError:
                # A match the rules no longer accept keeps its rounds; it is marked so it
                # is not read again on every start, and its page will say what is wrong.
                match.cache_version = CACHE_VERSION
        db.session.commit()
        refreshed += len(stale)


def save_round(match: Match, data: dict[str, Any], number: int | None = None) -> Saved:
    """Store the next round, checked by the rules; a repeated identical save is stored once.

    `number` is the round number the scorekeeper's page was entering. If the match has
    moved on since, an identical repeat of the last round is answered as already saved
    (a double tap), and anything else is refused as a conflict.
    """
    with _writing(match):
        next_number = len(match.rounds) + 1
        if number is not None and number != next_number:
            last = match.rounds[-1] if match.rounds else None
            if last is not None and number == last.number and _same_round(match, last.data, data):
                return Saved(last, standings_of(match), repeated=True)
            raise Conflict("this round changed meanwhile", last)
        saved = _append(match, data)
        if match.redo:
            match.redo, saved.cleared_redo = [], True
        return saved


def _same_round(match: Match, stored: dict, data: dict) -> bool:
    """Whether a submitted round is the last one stored (compared after checking)."""
    try:
        game = get_game(match.game)
        return game.check_round(match.player_names, match.settings, data, len(match.rounds)) == stored
    except RuleError:
        return False


def count_matches() -> int:
    """How many matches the database holds."""
    return db.session.scalar(select(func.count(Match.id))) or 0


def _parse_time(text: Any):
    """A match file's ISO 8601 time as a naive UTC datetime, or None when absent or unreadable."""
    from datetime import datetime

    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def import_match(document: dict[str, Any]) -> tuple[Match, bool]:
    """Store a match file checked by the rules; a match id already stored is not stored again.

    Returns the match and whether it was newly created. Commits nothing: the caller
    commits once, so that importing many matches is all or nothing.
    """
    from .games import score_match

    score_match(document)
    uid = document.get("id")
    if uid is not None:
        if not isinstance(uid, str) or not 1 <= len(uid) <= 80:
            raise RuleError("the match id must be text of 1 to 80 characters", field="id")
        existing = db.session.scalar(select(Match).where(Match.uid == uid))
        if existing is not None:
            return existing, False
    match = _new_match(document["game"], document["players"], document.get("settings"))
    if uid is not None:
        match.uid = uid
    match.started_at = _parse_time(document.get("started")) or utcnow()
    game = get_game(match.game)
    for number, data in enumerate(document["rounds"], start=1):
        checked = game.check_round(match.player_names, match.settings, data, number)
        at = _parse_time(data.get("at"))
        match.rounds.append(Round(number=number, data=checked, created_at=at or match.started_at))
    db.session.add(match)
    rescore(match)
    finished = _parse_time(document.get("finished"))
    if match.status == FINISHED and finished:
        match.finished_at = finished
    db.session.flush()
    return match, True


def import_matches(documents: list[dict[str, Any]]) -> list[tuple[Match, bool]]:
    """Import several match files in one transaction: all of them, or none on an error."""
    try:
        results = []
        for index, document in enumerate(documents, start=1):
            try:
                results.append(import_match(document))
            except RuleError as error:
                if len(documents) > 1:
                    raise RuleError(f"match {index}: {error}") from error
                raise
        db.session.commit()
        return results
    except BaseException:
        db.session.rollback()
        raise


def undo_last_round(match: Match) -> tuple[Round, Standings]:
    """Take back the last round; it goes on the redo stack and into the change log."""
    with _writing(match):
        if not match.rounds:
            raise Conflict("there is no round to undo")
        last = match.rounds[-1]
        match.redo = [*match.redo, last.data]
        db.session.add(RoundChange(match_id=match.id, number=last.number, action="undo", before=last.data))
        match.rounds.remove(last)
        db.session.delete(last)
        db.session.flush()
        return last, rescore(match)


def redo_round(match: Match) -> Saved:
    """Put back the round undone most recently."""
    with _writing(match):
        if not match.redo:
            raise Conflict("there is nothing to redo")
        saved = _append(match, match.redo[-1])
        match.redo = match.redo[:-1]
        db.session.add(RoundChange(match_id=match.id, number=saved.round.number, action="redo", after=saved.round.data))
        return saved


def correct_round(match: Match, number: int, data: dict[str, Any], revision: int) -> Saved:
    """Replace a past round; every later round is re-scored, the old values are logged.

    `revision` is the round's revision the editing page started from: if another phone
    corrected the round meanwhile, the correction is refused rather than overwriting it.
    """
    with _writing(match):
        stored = next((r for r in match.rounds if r.number == number), None)
        if stored is None:
            raise RuleError(f"there is no round {number}", field="round")
        if stored.revision != revision:
            raise Conflict("this round changed meanwhile", stored)
        game = get_game(match.game)
        checked = game.check_round(match.player_names, match.settings, data, number)
        change = RoundChange(match_id=match.id, number=number, action="correct", before=stored.data, after=checked)
        db.session.add(change)
        stored.data, stored.revision, stored.updated_at = checked, stored.revision + 1, utcnow()
        return Saved(stored, rescore(match))


def delete_match(match: Match) -> None:
    """Remove a match with its rounds and change log, under its lock like every write to it."""
    with _writing(match):
        records.withdraw(match)
        db.session.delete(match)


def change_log(match: Match) -> list[RoundChange]:
    """The match's corrections, undos and redos, newest first."""
    return list(
        db.session.scalars(
            select(RoundChange).where(RoundChange.match_id == match.id).order_by(RoundChange.id.desc())
        )
    )


def offer_pencil(match: Match) -> str:
    """A single-use code with which another phone can take the pencil."""
    code = secrets.token_urlsafe(32)
    match.handover_hash = hash_token(code)
    db.session.commit()
    return code


def take_pencil(match: Match, code: str | None) -> str:
    """Hand the pencil to the phone that shows the offered code; returns its new token."""
    if not _same_secret(code, match.handover_hash):
        raise Conflict("this pencil code is no longer valid: ask for a new one")
    token = secrets.token_urlsafe(32)
    match.scorekeeper_hash, match.handover_hash = hash_token(token), None
    db.session.commit()
    return token


def reclaim_pencil(match: Match, owner_token: str | None) -> None:
    """The creator's phone takes the pencil back from whoever holds it."""
    if not is_owner(match, owner_token):
        raise Conflict("only the phone that started the match can take the pencil back")
    match.scorekeeper_hash, match.handover_hash = match.owner_hash, None
    db.session.commit()


def play_again(match: Match) -> tuple[Match, str]:
    """A new match with the same game, players, seats and settings."""
    return create_match(match.game, match.player_names, match.settings)
