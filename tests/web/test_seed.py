"""Web tests of `flask seed`: valid matches of every game, caches equal to the engine's verdict."""

from __future__ import annotations

import random

from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from companion.extensions import db
from companion.games import get_game
from companion.models import Match, Player
from companion.queries.matches import standings_of
from companion.services import matches as service
from companion.services.seed import ROSTER, play_match


def seat_figures(seat) -> tuple:
    """The figures the service caches on a seat."""
    return (seat.total, seat.won, seat.score_sum, seat.score_count, seat.best_score, seat.best_label)


def test_seed_fills_the_database_with_matches_whose_caches_match_the_rules(runner, app):
    result = runner.invoke(args=["seed", "--matches", "120", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert "seeded 120 matches" in result.output
    with app.app_context():
        matches = db.session.scalars(select(Match).options(selectinload(Match.seats), selectinload(Match.rounds))).all()
        assert len(matches) == 120
        assert {m.game for m in matches} == {"pazzaparola", "burraco", "topic", "pazaak"}
        assert sum(m.status == "playing" for m in matches) == 1
        assert db.session.scalar(select(func.count(Player.id))) == len(ROSTER)
        for match in matches:
            standings = standings_of(match)
            game = get_game(match.game)
            summary = {"totals": standings.totals, "winners": standings.winners, "rounds": len(match.rounds)}
            assert match.summary == summary
            assert match.status == ("finished" if standings.over else "playing")
            sides = [get_game(match.game).side_of(match.settings, seat.name) for seat in match.seats]
            assert [seat.total for seat in match.seats] == [standings.totals[side] for side in sides]
            assert [seat.won for seat in match.seats] == [side in standings.winners for side in sides]
            for stored in match.rounds:
                # Stored in the form the rules check it into, as a saved round would be.
                assert game.check_round(match.player_names, match.settings, stored.data, stored.number) == stored.data
                assert match.started_at <= stored.created_at
            if match.is_over:
                assert match.finished_at == match.rounds[-1].created_at
            # Every cache the service keeps (seat figures too) is what it would write itself.
            assert match.cache_version == service.CACHE_VERSION
            cached = [seat_figures(s) for s in match.seats]
            service.rescore(match)
            assert cached == [seat_figures(s) for s in match.seats]
        db.session.rollback()


def test_seed_is_repeatable_and_adds_to_what_is_there(runner, app):
    assert play_match(random.Random(9), "topic") == play_match(random.Random(9), "topic")
    runner.invoke(args=["seed", "--matches", "3", "--seed", "1"])
    runner.invoke(args=["seed", "--matches", "4", "--seed", "2"])
    with app.app_context():
        assert db.session.scalar(select(func.count(Match.id))) == 7
        assert db.session.scalar(select(func.count(Player.id))) == len(ROSTER)
