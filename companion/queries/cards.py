"""A finished match's result card: what it tells, read from one replay of the match."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..games import get_game
from ..games.refusals import Message
from ..models import Match


@dataclass(frozen=True)
class CardSide:
    """One side's line of the card: its name, a pair's players, its final total, its place (1 first)."""

    name: str
    members: tuple[str, ...]
    total: int
    place: int
    won: bool


@dataclass(frozen=True)
class ResultCard:
    """Everything a result card shows, untranslated: the sides best first, and the game's own highlight."""

    game: str
    game_name: str
    finished_at: datetime
    sides: tuple[CardSide, ...]
    winners: tuple[str, ...]
    total_word: Message
    highlight: Message | None


def result_card(match: Match) -> ResultCard | None:
    """The card of a finished match, or None: a match being played, or ended by the host before its game's
    rules ended it, has no result to tell."""
    if not match.is_over:
        return None
    game = get_game(match.game)
    replay = game.replay(match.player_names, match.settings, [stored.data for stored in match.rounds])
    standings = game.standings_of(replay)
    places = game.final_ranks(standings.totals)
    members = {side: [] for side in standings.totals}
    for player in replay.players:
        side = game.side_of(replay.settings, player)
        if side != player:
            members[side].append(player)
    sides = [
        CardSide(side, tuple(members[side]), total, places[side], side in standings.winners)
        for side, total in standings.totals.items()
    ]
    finished = match.finished_at or (match.rounds[-1].created_at if match.rounds else match.started_at)
    return ResultCard(
        game=match.game,
        game_name=game.name,
        finished_at=finished,
        # Best first; sides that share a place keep their seat order.
        sides=tuple(sorted(sides, key=lambda side: side.place)),
        winners=tuple(standings.winners),
        total_word=game.entry.total_word,
        highlight=game.entry.highlight(replay),
    )
