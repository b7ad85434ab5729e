"""Players' records per game and head to head, kept as running sums while matches are written."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, bindparam, case, delete, func, inspect, or_, select, true, update
from sqlalchemy.orm import aliased

from ..extensions import db
from ..models import FINISHED, Match, PlayerRecord, Rivalry, Seat
from ..queries.players import Best, Record
from .dialect import conflict_insert

SUMS = ("playing", "played", "won", "total", "score_sum", "score_count")
BEST_COLUMNS = ("best_score", "best_label", "best_started_at", "best_match_id")
RIVALRY_SUMS = ("together", "mine", "theirs", "partnered", "partnered_won")


def _share(game: str, status: str, won: bool, total, score_sum, score_count, best: Best | None) -> Record:
    """What one seat adds to its player's record of the game: an open match counts as one in
    progress, a finished one adds its figures."""
    if status != FINISHED:
        return Record(game, playing=1)
    share = Record(game, played=1, won=int(bool(won)), total=total or 0, score_sum=score_sum or 0,
                   score_count=score_count or 0)  # fmt: skip
    if best is not None:
        share.best_score, share.best_label = best.score, best.label
        share.best_started_at, share.best_match_id = best.started_at, best.match_id
    return share


@dataclass
class Stake:
    """What one match adds to the records and to the head to head."""

    shares: dict[int, Record] = field(default_factory=dict)
    # Who won, by player, once the match is finished: the head to head counts finished matches only.
    winners: dict[int, bool] | None = None
    # The team each player played for, if any: two players of one team are partners.
    teams: dict[int, str | None] = field(default_factory=dict)
    # Whose each seat is, as the database says: another writer (a roster merge) may have moved it.
    owners: dict[int, int] = field(default_factory=dict)

    def pairs(self) -> dict[tuple[int, int], tuple[int, ...]]:
        """Every two players who finished the match together, as seen by the first: (together, mine,
        theirs, partnered, partnered_won), see RIVALRY_SUMS."""
        if self.winners is None:
            return {}
        pairs = {}
        for player, won in self.winners.items():
            for other in self.winners:
                if other != player:
                    partners = self.teams.get(player) is not None and self.teams.get(player) == self.teams.get(other)
                    pairs[player, other] = (1, int(won), int(self.winners[other]), int(partners), int(partners and won))
        return pairs


def stored(match: Match) -> Stake | None:
    """What the match adds now, as the database holds it: read before a write changes it.

    Read from the database rather than from the objects, which may have been loaded before
    the writer took the match's lock. None for a match outside any session (the seed inserts
    its matches itself and rebuilds the records after); nothing for one not inserted yet.
    The seats' caches are set only after this is read (see rescore), so what it reads is the before.
    """
    state = inspect(match)
    if state.transient:
        return None
    if not state.has_identity:
        return Stake()
    rows = db.session.execute(
        select(Seat.id, Seat.player_id, Seat.won, Seat.total, Seat.score_sum, Seat.score_count, Seat.best_score,
               Seat.best_label, Seat.team, Match.status)
        .join(Match, Match.id == Seat.match_id)
        .where(Seat.match_id == match.id)
    ).all()  # fmt: skip
    stake = _stake(match, rows[0].status if rows else None, rows, {})
    stake.owners = {row.id: row.player_id for row in rows}
    return stake


def _stake(match: Match, status: str | None, seats: Iterable[Any], owners: dict[int, int]) -> Stake:
    """What the match adds with this status and these seats' figures (the rows `stored` read, or the objects just
    rescored), each seat's share its player's: as `owners` says (a seat whose player a merge moved), else its own.
    A match's start never changes once inserted: the objects' is the stored one."""
    stake = Stake(winners={} if status == FINISHED else None)
    for seat in seats:
        player = owners.get(seat.id, seat.player_id)
        best = None if seat.best_score is None else Best(seat.best_score, seat.best_label, match.started_at, match.id)
        figures = (seat.won, seat.total, seat.score_sum, seat.score_count, best)
        stake.shares[player] = _share(match.game, status, *figures)
        stake.teams[player] = seat.team
        if stake.winners is not None:
            stake.winners[player] = seat.won
    return stake


def follow(match: Match, before: Stake | None) -> None:
    """Bring the records in step with a match just rescored, given what it added before."""
    if before is None:
        return
    if match.id is None:
        # A new match: its id, and the ids of any player new to the roster, come with the insert.
        db.session.flush()
    _apply(match.game, match.id, before, _stake(match, match.status, match.seats, before.owners))


def withdraw(match: Match) -> None:
    """Take a match about to be deleted out of the records; the caller holds the match's lock,
    so what is taken out is what is stored when the match goes, not what a writer is changing."""
    before = stored(match)
    if before is not None:
        _apply(match.game, match.id, before, Stake())


def _apply(game: str, match_id: int, before: Stake, after: Stake) -> None:
    """Add the difference between what a match added before and after a write."""
    changed = []
    for player in sorted(before.shares.keys() | after.shares.keys()):
        nothing = Record(game)
        old, new = before.shares.get(player, nothing), after.shares.get(player, nothing)
        if old != new:
            changed.append((player, old, new))
    old_pairs, new_pairs = before.pairs(), after.pairs()
    if not changed and old_pairs == new_pairs:
        return
    # The match's own rows are written first, so every writer locks seats before records
    # (a roster merge too): two of them never wait for each other the other way round.
    db.session.flush()
    if changed:
        rows = [
            {"player_id": player, "game": game, **{name: getattr(new, name) - getattr(old, name) for name in SUMS}}
            for player, old, new in changed
        ]
        _add(PlayerRecord, ("player_id", "game"), SUMS, rows)
        candidates = {player: new.best for player, old, new in changed if old.best or new.best}
        if candidates:
            _keep_best(game, match_id, candidates)
    rows = []
    for pair in sorted(old_pairs.keys() | new_pairs.keys()):
        nothing = (0,) * len(RIVALRY_SUMS)
        old, new = old_pairs.get(pair, nothing), new_pairs.get(pair, nothing)
        delta = [b - a for a, b in zip(old, new, strict=True)]
        if any(delta):
            rows.append({"player_id": pair[0], "other_id": pair[1], **dict(zip(RIVALRY_SUMS, delta, strict=True))})
    if rows:
        _add(Rivalry, ("player_id", "other_id"), RIVALRY_SUMS, rows)


def add_new(matches: Collection[Match]) -> None:
    """Add matches just inserted together (a batch of an import) to the records.

    None of them added anything before, so what they add is summed in memory first, per player
    and game and per two players, and goes in with one upsert per table; a player's best is
    replaced only where one of these matches beats it. The cost is the batch's, whatever the
    players played before.
    """
    shares: dict[tuple[int, str], Record] = {}
    pairs: dict[tuple[int, int], list[int]] = {}
    for match in matches:
        stake = _stake(match, match.status, match.seats, {})
        for player, share in stake.shares.items():
            summed = shares.setdefault((player, match.game), Record(match.game))
            for name in SUMS:
                setattr(summed, name, getattr(summed, name) + getattr(share, name))
            if share.best is not None and share.best.beats(summed.best):
                for name in BEST_COLUMNS:
                    setattr(summed, name, getattr(share, name))
        for pair, figures in stake.pairs().items():
            summed_pair = pairs.setdefault(pair, [0] * len(RIVALRY_SUMS))
            summed_pair[:] = [a + b for a, b in zip(summed_pair, figures, strict=True)]
    if shares:
        rows = [{"player_id": player, "game": game, **{name: getattr(summed, name) for name in SUMS}}
                for (player, game), summed in sorted(shares.items())]  # fmt: skip
        _add(PlayerRecord, ("player_id", "game"), SUMS, rows)
        _raise_bests({key: summed.best for key, summed in shares.items() if summed.best is not None})
    if pairs:
        rows = [{"player_id": pair[0], "other_id": pair[1], **dict(zip(RIVALRY_SUMS, summed, strict=True))}
                for pair, summed in sorted(pairs.items())]  # fmt: skip
        _add(Rivalry, ("player_id", "other_id"), RIVALRY_SUMS, rows)


def _raise_bests(candidates: dict[tuple[int, str], Best]) -> None:
    """Keep each (player, game)'s candidate best where it beats the stored one (rows already locked by the sums)."""
    table = PlayerRecord.__table__
    stored = db.session.execute(
        select(table.c.player_id, table.c.game, table.c.best_score, table.c.best_label, table.c.best_started_at,
               table.c.best_match_id)
        .where(table.c.player_id.in_({player for player, _ in candidates}),
               table.c.game.in_({game for _, game in candidates}))
    ).all()  # fmt: skip
    current = {(row[0], row[1]): Best(*row[2:]) if row[2] is not None else None for row in stored}
    better = [
        {"p": player, "g": game, "new_best_score": best.score, "new_best_label": best.label,
         "new_best_started_at": best.started_at, "new_best_match_id": best.match_id}
        for (player, game), best in sorted(candidates.items())
        if best.beats(current.get((player, game)))
    ]  # fmt: skip
    if better:
        db.session.execute(
            update(table)
            .where(table.c.player_id == bindparam("p"), table.c.game == bindparam("g"))
            .values({name: bindparam(f"new_{name}") for name in BEST_COLUMNS}),
            better,
        )


def _add(model: Any, keys: tuple[str, ...], sums: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    """Add each row's figures to the stored ones, inserting the rows not there yet.

    An upsert that adds in the database, so writers of two matches of one player never
    overwrite each other's counts; rows come sorted by key, so they lock in one order.
    """
    table = model.__table__
    insert = conflict_insert(table)
    adding = insert.on_conflict_do_update(
        index_elements=list(keys), set_={name: table.c[name] + insert.excluded[name] for name in sums}
    )
    db.session.execute(adding, rows)


def _best_elsewhere(player_id: int, game: str, match_id: int) -> Best | None:
    """The player's best round of the game in a finished match other than this one."""
    row = db.session.execute(
        select(Seat.best_score, Seat.best_label, Match.started_at, Match.id)
        .join(Match, Match.id == Seat.match_id)
        .where(Seat.player_id == player_id, Match.game == game, Match.status == FINISHED, Match.id != match_id)
        .where(Seat.best_score.is_not(None))
        .order_by(Seat.best_score.desc(), Match.started_at, Match.id)
        .limit(1)
    ).first()
    return Best(*row) if row else None


def _keep_best(game: str, match_id: int, candidates: dict[int, Best | None]) -> None:
    """Set each player's best after a match changed: its new best if better, or looked for again.

    Only when the stored best came from this very match is it looked for among the other
    matches; the rows are already locked by the sums just added.
    """
    table = PlayerRecord.__table__
    rows = db.session.execute(
        select(table.c.player_id, table.c.best_score, table.c.best_label, table.c.best_started_at,
               table.c.best_match_id)
        .where(table.c.player_id.in_(candidates), table.c.game == game)
        .order_by(table.c.player_id)
    ).all()  # fmt: skip
    for player, score, label, started_at, best_match in rows:
        current = Best(score, label, started_at, best_match) if score is not None else None
        kept = current
        if current is not None and current.match_id == match_id:
            kept = _best_elsewhere(player, game, match_id)
        candidate = candidates[player]
        best = candidate if candidate is not None and candidate.beats(kept) else kept
        if best != current:
            values = (best.score, best.label, best.started_at, best.match_id) if best else (None,) * 4
            db.session.execute(
                update(table)
                .where(table.c.player_id == player, table.c.game == game)
                .values(dict(zip(BEST_COLUMNS, values, strict=True)))
            )


def rebuild(player_ids: Collection[int] | None = None) -> None:
    """Recount the records and the head to head from the seats: everyone's, or some players' only.

    For what the running sums cannot follow: the seed's bulk inserts and a roster merge.
    """
    ids = list(player_ids) if player_ids is not None else None
    records, rivalries = PlayerRecord.__table__, Rivalry.__table__
    db.session.execute(delete(records).where(records.c.player_id.in_(ids) if ids is not None else true()))
    db.session.execute(
        delete(rivalries).where(
            or_(rivalries.c.player_id.in_(ids), rivalries.c.other_id.in_(ids)) if ids is not None else true()
        )
    )
    mine = Seat.player_id.in_(ids) if ids is not None else true()
    finished = Match.status == FINISHED
    figures = (Seat.total, Seat.score_sum, Seat.score_count)
    sums = db.session.execute(
        select(Seat.player_id, Match.game, func.sum(case((finished, 0), else_=1)),
               func.sum(case((finished, 1), else_=0)), func.sum(case((and_(finished, Seat.won), 1), else_=0)),
               *[func.coalesce(func.sum(case((finished, column))), 0) for column in figures])
        .join(Match, Match.id == Seat.match_id)
        .where(mine)
        .group_by(Seat.player_id, Match.game)
    ).all()  # fmt: skip
    # The best round of each player and game: the first of each group, by the order Best.beats uses.
    ranked = (
        select(Seat.player_id, Match.game, Seat.best_score, Seat.best_label, Match.started_at,
               Match.id.label("match_id"),
               func.row_number().over(partition_by=(Seat.player_id, Match.game),
                                      order_by=(Seat.best_score.desc(), Match.started_at, Match.id)).label("rank"))
        .join(Match, Match.id == Seat.match_id)
        .where(mine, finished, Seat.best_score.is_not(None))
        .subquery()
    )  # fmt: skip
    bests = {
        (row.player_id, row.game): (row.best_score, row.best_label, row.started_at, row.match_id)
        for row in db.session.execute(select(ranked).where(ranked.c.rank == 1))
    }
    rows = [
        dict(zip(("player_id", "game", *SUMS, *BEST_COLUMNS), (*row, *bests.get((row[0], row[1]), (None,) * 4)),
                 strict=True))
        for row in sums
    ]  # fmt: skip
    if rows:
        db.session.execute(records.insert(), rows)
    other = aliased(Seat)
    # Two seats of one team (NULL, no team, equals nothing) are partners.
    partners = Seat.team == other.team
    pairs = (
        select(Seat.player_id, other.player_id, func.count(), func.sum(case((Seat.won, 1), else_=0)),
               func.sum(case((other.won, 1), else_=0)), func.sum(case((partners, 1), else_=0)),
               func.sum(case((and_(partners, Seat.won), 1), else_=0)))
        .join(other, and_(other.match_id == Seat.match_id, other.player_id != Seat.player_id))
        .join(Match, Match.id == Seat.match_id)
        .where(finished)
        .group_by(Seat.player_id, other.player_id)
    )  # fmt: skip
    if ids is not None:
        pairs = pairs.where(or_(Seat.player_id.in_(ids), other.player_id.in_(ids)))
    db.session.execute(rivalries.insert().from_select(["player_id", "other_id", *RIVALRY_SUMS], pairs))
