"""Writes of matches: create, save, correct, undo, redo, delete, play again (import: imports.py; pencil: pencil.py)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import inspect, select, update

from ..extensions import db
from ..games import get_game
from ..games.base import Replay, Standings
from ..games.refusals import N_, ChangedMeanwhile, Message, NotAllowed, RuleError
from ..models import FINISHED, PLAYING, UNFINISHED, Match, Round, RoundChange, Seat, utcnow
from ..queries.matches import hash_token, standings_of
from . import club_time_up, ratings, records
from .bounds import bounded, check_round_count
from .fast_save import assign, insert_round
from .roster import enroll_seats, roster_players
from .transaction import transaction


class EndsEarlier(Exception):
    """A correction after which the match ends before its last round: it waits for a confirmation."""

    def __init__(self, end: int, last: int):
        super().__init__(f"with this change the match ends at round {end}")
        self.end = end
        self.last = last


@dataclass
class Saved:
    """What a round save did: the round stored (or already stored) and the new standings."""

    round: Round
    standings: Standings
    # The replay the standings came from, when the save rescored the match: the answer's
    # page is drawn from it rather than from a second replay of every round.
    replay: Replay | None = None
    repeated: bool = False
    # Whether saving it emptied the redo stack (a new round forgets the rounds undone).
    cleared_redo: bool = False


def unsaved_match(game_slug: Any, names: Any, raw_settings: Any) -> Match:
    """A match object checked by the rules, its seats not yet given their roster entries; nothing is written."""
    game = get_game(game_slug)
    names = game.check_players(names)
    settings = bounded(game.settings(raw_settings, names), "the settings")
    match = Match(game=game.slug, settings=settings, status=PLAYING)
    match.seats = [Seat(position=position, name=name) for position, name in enumerate(names)]
    return match


def create_match(
    game_slug: str,
    names: list[str],
    settings: dict[str, Any] | None,
    save_when_rows_in: bool = False,
    phone: str | None = None,
) -> tuple[Match, str]:
    """Start a match; returns it with the scorekeeper token for the creator's cookie, that of `phone` (its
    credential). `save_when_rows_in`: the table chose to have each round saved once every side's row is sent from
    its seat (if the game's rows make a whole round)."""
    with transaction():
        return _started(game_slug, names, settings, save_when_rows_in, phone)


def _started(
    game_slug: str, names: list[str], settings: dict[str, Any] | None, save_when_rows_in: bool, phone: str | None
) -> tuple[Match, str]:
    """A match started in the transaction under way, with the scorekeeper token for the creator's cookie (`phone`'s
    credential): checked by the rules, its players in the roster."""
    match = unsaved_match(game_slug, names, settings)
    for seat, player in zip(match.seats, roster_players(match.player_names), strict=True):
        seat.player = player
    match.save_when_rows_in = save_when_rows_in and get_game(game_slug).entry.round_from_rows_alone
    token = secrets.token_urlsafe(32)
    match.scorekeeper_hash = match.owner_hash = hash_token(token)
    match.scorekeeper_phone = match.owner_phone = hash_token(phone) if phone else None
    db.session.add(match)
    rescore(match)
    return match, token


def started_together(
    game_slug: str, tables: Sequence[tuple[list[str], dict[str, Any]]], phones: Mapping[str, tuple[str, str]]
) -> list[Match]:
    """The matches of a club turn's tables (each its players and settings) started in the transaction under way, each
    player's phone (by name: the phone and its label) seated at the player's seat.

    Inserted together and added to the records together: a few statements for a hall of a hundred tables rather than
    some five a table, which held the worker the last confirmation's answer waits on for a second on PostgreSQL.
    Nobody holds their scorekeeper tokens: a table's pencil goes with its table card."""
    made = [unsaved_match(game_slug, names, settings) for names, settings in tables]
    enroll_seats(made)
    for match in made:
        for seat in match.seats:
            if seat.name in phones:
                seat.phone, seat.phone_label = phones[seat.name]
        match.scorekeeper_hash = match.owner_hash = hash_token(secrets.token_urlsafe(32))
        rescore(match)
    db.session.add_all(made)
    db.session.flush()
    records.add_new(made)
    return made


def play_again(match: Match, phone: str | None = None) -> tuple[Match, str | None]:
    """A new match with the same game, players, seats and settings, its rounds saved the same way, and the same
    table, its pencil for `phone` (the credential of the phone that asked): each phone seated at this match sits
    at its seat of the new one, which names this one as the match it follows. This match is left as it was but for
    its version (its followers drawn the way there, `MatchPage.played_again`); its seated phones' pages ask whether
    it is followed and go there (views.live.followed): a table that sends its own rows goes on without scanning.

    A Play again sent twice (a double tap, a resend) makes one match: while the match that follows this one has no
    round yet, it is returned, without a token (the phone that started it holds its pencil). Once it has rounds, or
    is over, a Play again here starts another."""
    with transaction():
        # The match's row held (its write lock) while this looks for the match that follows it: of two Play agains at
        # once, the second finds the first's. A finished one's version moves on, its followers drawn the way there.
        db.session.execute(
            update(Match).where(Match.id == match.id).values(version=Match.version + int(match.status != PLAYING))
            .execution_options(synchronize_session=False)
        )  # fmt: skip
        followers = select(Match).where(Match.follows_id == match.id, Match.status == PLAYING)
        following = db.session.scalar(followers.order_by(Match.id.desc()).limit(1))
        if following is not None and not following.rounds:
            return following, None
        # The roster's names now: a player renamed or merged since is seated as the roster names them, not added anew.
        renamed = {seat.name: seat.player.name for seat in match.seats if seat.player and seat.player.name != seat.name}
        names = [renamed.get(name, name) for name in match.player_names]
        settings = get_game(match.game).settings_with_players_renamed(match.settings, renamed)
        new_match, token = _started(match.game, names, settings, match.save_when_rows_in, phone)
        new_match.follows_id = match.id
        seated = {seat.position: seat for seat in match.seats if seat.phone}
        for seat in new_match.seats:
            if seat.position in seated:
                seat.phone, seat.phone_label = seated[seat.position].phone, seated[seat.position].phone_label
    return new_match, token


# Bump when a cache kept by `rescore` changes meaning or gains a column: matches stored
# before are rescored on the next start (see refresh_stale_caches).
CACHE_VERSION = 2


def rescore(match: Match) -> Replay:
    """Replay the rounds and keep the list-page caches, the status and the records in step.

    Returns the replay: the page drawn after a write reads its standings and its view from it.
    """
    game = get_game(match.game)
    rounds = [r.data for r in match.rounds]
    replay = game.replay(match.player_names, match.settings, rounds)
    standings = game.standings_of(replay)
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
    assign(match, status)
    for seat in match.seats:
        side = game.side_of(match.settings, seat.name)
        scores = game.round_scores(standings, rounds, side)
        best = max(scores, key=lambda scored: scored[0]) if scores else (None, None)
        caches = {
            "total": standings.totals.get(side),
            "won": side in standings.winners,
            "score_sum": sum(score for score, _ in scores) if scores else None,
            "score_count": len(scores) if scores else None,
            "best_score": best[0],
            "best_label": (best[1] or None) and best[1][:80],
            "team": side if side != seat.name else None,
        }
        if standings.over:
            # The cards a seated phone noted and never played stay private for ever: gone with the match's end.
            caches["hand"] = None
        assign(seat, caches)
    records.follow(match, before)
    ratings.follow(match, before)
    return replay


def refresh_stale_caches(batch: int = 500) -> int:
    """Rescore the matches whose caches predate this release; returns how many there were."""
    refreshed = 0
    while True:
        with transaction():
            stale = db.session.scalars(
                select(Match).where(Match.cache_version < CACHE_VERSION).order_by(Match.id).limit(batch)
            ).all()
            for match in stale:
                try:
                    rescore(match)
                except RuleError:
                    # A match the rules no longer accept keeps its rounds; it is marked so it
                    # is not read again on every start, and its page will say what is wrong.
                    match.cache_version = CACHE_VERSION
        if not stale:
            return refreshed
        refreshed += len(stale)


# --- Rounds ----------------------------------------------------------------------------------


# How far ahead of the server's clock a phone's clock may run and its played-at time still count.
PLAYED_AT_SKEW = timedelta(minutes=2)


def _played_at(match: Match, played_at: datetime | None, now: datetime) -> datetime:
    """When the round was played: the phone's time for a round it kept offline and sent later, if it falls
    between the last round's (the match's start) and now (with a little clock skew); the server's time otherwise."""
    since = match.rounds[-1].created_at if match.rounds else match.started_at
    return min(played_at, now) if played_at is not None and since <= played_at <= now + PLAYED_AT_SKEW else now


def _append(match: Match, data: dict[str, Any], key: str | None = None, played_at: datetime | None = None) -> Saved:
    """Add the next round, checked by the rules, and re-score the match."""
    game = get_game(match.game)
    number = len(match.rounds) + 1
    check_round_count(number)
    checked = bounded(game.check_round(match.player_names, match.settings, data, number), f"round {number}")
    now = utcnow()
    at = _played_at(match, played_at, now)
    row = {"number": number, "data": checked, "created_at": at, "updated_at": now, "revision": 0, "client_key": key}
    stored = insert_round(match, row)
    _forget_round_in_progress(match)
    saved = _saved(match, stored)
    # At a club table whose turn's time was up when it was played, this hand was the last: the match ends with it.
    return _saved(match, stored) if club_time_up.cut_short(match, saved.standings, at) else saved


def _saved(match: Match, stored: Round) -> Saved:
    """A round written: the match rescored, with the standings and the replay they came from."""
    replay = rescore(match)
    return Saved(stored, get_game(match.game).standings_of(replay), replay)


def _still_played(match: Match) -> None:
    """Refuse a round write to a match the host ended, or to a club table's whose result counts (read under the
    lock: the status is fresh)."""
    if match.status == UNFINISHED:
        raise ChangedMeanwhile(N_("the host ended this match; it is kept as unfinished and takes no more rounds"))
    club_time_up.refuse_once_counted(match)


def save_round(
    match: Match,
    data: dict[str, Any],
    number: int | None = None,
    key: str | None = None,
    played_at: datetime | None = None,
) -> Saved:
    """Store the next round, checked by the rules; a repeated save is stored once.

    `key` is the one the scorekeeper's phone made for this save: a round already stored
    under it is answered as already saved, whatever came since (a retry after a lost
    answer, a round kept offline and sent again), and one taken back since is refused.
    `number` is the round number the page was entering. If the match has moved on since, an
    identical repeat of the last round is answered as already saved (a double tap), and
    anything else is refused as a conflict.
    `played_at` is when the phone kept the round, for one sent after an outage (see `_played_at`).
    """
    with transaction(locking=match):
        if key is not None:
            stored = next((r for r in match.rounds if r.client_key == key), None)
            if stored is not None:
                return Saved(stored, standings_of(match), repeated=True)
            if _taken_back(match, key):
                raise ChangedMeanwhile(N_("this round was saved, then taken back: it is not saved again"),
                                       match.rounds[-1] if match.rounds else None)  # fmt: skip
        _still_played(match)
        next_number = len(match.rounds) + 1
        if number is not None and number != next_number:
            last = match.rounds[-1] if match.rounds else None
            if last is not None and number == last.number and _same_round(match, last.data, data):
                return Saved(last, standings_of(match), repeated=True)
            raise ChangedMeanwhile(N_("this round changed meanwhile"), last)
        return save_round_held(match, data, key, played_at)


def _taken_back(match: Match, key: str) -> bool:
    """Whether the round saved under `key` was taken back since (an undo logged it): a save sent again after its
    answer was lost, and the round undone meanwhile, is not stored a second time."""
    undone = select(RoundChange.id).where(RoundChange.match_id == match.id, RoundChange.client_key == key).limit(1)
    return db.session.scalar(undone) is not None


def save_round_held(
    match: Match, data: dict[str, Any], key: str | None = None, played_at: datetime | None = None
) -> Saved:
    """Store the next round for a writer that holds the match's lock already: a save, or the last row of a
    round sent from a seat when the table chose to have such rounds saved by themselves."""
    saved = _append(match, data, key, played_at)
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


def _as_shown(match: Match, shown: int | None, what: Message) -> None:
    """Refuse an undo or redo tapped on a page that showed another number of rounds (a double tap)."""
    if shown is not None and shown != len(match.rounds):
        raise ChangedMeanwhile(
            N_(
                "%(what)s: the match has %(now)s rounds now, not the %(shown)s this page showed",
                what=what,
                now=len(match.rounds),
                shown=shown,
            )
        )


def _take_back_last(match: Match) -> Round:
    """Take the last round off the match onto the redo stack, logged as an undo (no rescore)."""
    last = match.rounds[-1]
    match.redo = [*match.redo, last.data]
    undo = RoundChange(
        match_id=match.id, number=last.number, action="undo", before=last.data, client_key=last.client_key
    )
    db.session.add(undo)
    match.rounds.remove(last)
    db.session.delete(last)
    _forget_round_in_progress(match)
    db.session.flush()
    return last


def undo_last_round(match: Match, shown: int | None = None) -> tuple[Round, Replay]:
    """Take back the last round; it goes on the redo stack and into the change log.

    `shown` is how many rounds the phone's page showed: when that changed already (the
    second tap of a double tap, another phone's undo) nothing more is taken back.
    """
    with transaction(locking=match):
        _still_played(match)
        if not match.rounds:
            raise ChangedMeanwhile(N_("there is no round to undo"))
        _as_shown(match, shown, N_("already taken back"))
        last = _take_back_last(match)
        return last, rescore(match)


def _undo_ending_correction(match: Match) -> None:
    """Give the round whose correction ended the match the values it had before it: round 2 corrected so that the
    match ends at round 3 (rounds 4 and 5 taken back), round 2 is given back its values, not only a last round.

    Redo on a match that such a correction ended puts back the rounds it took back: the
    correction has to go first, or the match would still be over before them. The one given back is the newest
    correction the round still holds without which the match is no longer over.
    """
    game = get_game(match.game)
    corrections = select(RoundChange).where(RoundChange.match_id == match.id, RoundChange.action == "correct")
    for change in db.session.scalars(corrections.order_by(RoundChange.id.desc())):
        stored = next((r for r in match.rounds if r.number == change.number), None)
        if stored is None or change.before is None or change.after != stored.data:
            continue
        before = [change.before if r is stored else r.data for r in match.rounds]
        if game.ending_round(match.player_names, match.settings, before) is None:
            db.session.add(RoundChange(match_id=match.id, number=stored.number, action="correct",
                                       before=stored.data, after=change.before))  # fmt: skip
            stored.data, stored.revision, stored.updated_at = change.before, stored.revision + 1, utcnow()
            return


def redo_round(match: Match, shown: int | None = None) -> Saved:
    """Put back the round undone most recently (on a match a correction ended, undoing that correction).

    `shown` is how many rounds the phone's page showed: when that changed already (the
    second tap of a double tap, another phone's redo) nothing more is put back.
    """
    with transaction(locking=match):
        _still_played(match)
        if not match.redo:
            raise ChangedMeanwhile(N_("there is nothing to redo"))
        _as_shown(match, shown, N_("already put back"))
        if match.is_over:
            _undo_ending_correction(match)
        saved = _append(match, match.redo[-1])
        match.redo = match.redo[:-1]
        db.session.add(RoundChange(match_id=match.id, number=saved.round.number, action="redo", after=saved.round.data))
        return saved


def keep_round_in_progress(match: Match, number: int, state: Any, based_on: Any) -> None:
    """Keep the entry tool's state for round `number` (a set calculator's taps so far; None: nothing).

    `based_on` is the state the tap started from: if another tab or phone has changed it, or
    saved the round, meanwhile, the tap is refused rather than overwriting theirs.
    """
    with transaction(locking=match):
        keep_round_in_progress_held(match, number, state, based_on)


def keep_round_in_progress_held(match: Match, number: int, state: Any, based_on: Any) -> None:
    """`keep_round_in_progress` for a writer that holds the match's lock already (a seated phone's board)."""
    # The lock re-reads the rounds; what another writer kept is read again here.
    db.session.refresh(match, attribute_names=["round_in_progress"])
    if number != len(match.rounds) + 1:
        raise ChangedMeanwhile(N_("this round was saved or taken back meanwhile"))
    kept = match.round_in_progress
    if (kept["state"] if kept and kept.get("number") == number else None) != based_on:
        raise ChangedMeanwhile(N_("this round changed on another page or phone meanwhile"))
    match.round_in_progress = None if state is None else {"number": number, "state": state}


def _forget_round_in_progress(match: Match) -> None:
    """Empty the entry tool's kept state: the round it was for is saved, or the one before taken back."""
    if match.round_in_progress is not None:
        match.round_in_progress = None


def correct_round(
    match: Match,
    number: int,
    data: dict[str, Any],
    revision: int,
    *,
    ends_at: int | None = None,
    saved_at: str | None = None,
) -> Saved:
    """Replace a past round; every later round is re-scored, the old values are logged.

    `revision` is the round's revision the editing page started from, `saved_at` when the round it showed was
    saved (its `created_at`, in ISO form): if another phone corrected the round meanwhile, or took it back and
    saved another as that number (its revision 0 again), the correction is refused rather than overwriting it.
    A correction after which the match ends before its last round raises EndsEarlier,
    unless `ends_at` confirms that round: the later rounds are then taken back as Undo
    takes them (onto the redo stack and into the change log), so Redo puts them back.
    """
    with transaction(locking=match):
        _still_played(match)
        # match.rounds was read again under the lock (see fast_save.lock): the revision is the stored one.
        stored = next((r for r in match.rounds if r.number == number), None)
        if stored is None:
            raise RuleError(N_("there is no round %(n)s", n=number), field="round")
        if stored.revision != revision or saved_at not in (None, stored.created_at.isoformat()):
            raise ChangedMeanwhile(N_("this round changed meanwhile"), stored)
        game = get_game(match.game)
        checked = bounded(game.check_round(match.player_names, match.settings, data, number), f"round {number}")
        corrected = [checked if r.number == number else r.data for r in match.rounds]
        end = game.ending_round(match.player_names, match.settings, corrected)
        last = len(match.rounds)
        if end is not None and end < last:
            if ends_at != end:
                raise EndsEarlier(end, last)
            while len(match.rounds) > end:
                _take_back_last(match)
        change = RoundChange(match_id=match.id, number=number, action="correct", before=stored.data, after=checked)
        db.session.add(change)
        stored.data, stored.revision, stored.updated_at = checked, stored.revision + 1, utcnow()
        return _saved(match, stored)


def delete_match(match: Match) -> None:
    """Remove a match with its rounds and change log, under its lock like every write to it."""
    with transaction(locking=match):
        if club_time_up.table_of(match) is not None:
            raise NotAllowed(N_("a club evening's match stays with its evening"))
        records.withdraw(match)
        finished = match.status == FINISHED
        db.session.delete(match)
        if finished:
            # Rated again without it, once the request that deleted it has answered (web/ratings.py).
            ratings.mark_stale([match.game], match.group_id)


def end_match(match: Match) -> None:
    """End a match whose scorekeeper's phone is gone: kept in the history as unfinished.

    Its records stay those of a match not finished (no winner, no figures); its pencil and
    any pending hand-off no longer count.
    """
    with transaction(locking=match):
        if match.status != PLAYING:
            raise ChangedMeanwhile(N_("this match is over already"))
        match.status, match.finished_at = UNFINISHED, utcnow()
        match.scorekeeper_hash, match.handover_hash = "", None
        for seat in match.seats:
            seat.hand = None
