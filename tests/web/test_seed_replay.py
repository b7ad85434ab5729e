"""`flask seed` plays every match by the one replay path: any seed works, stored matches equal their replay."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.games import REGISTRY, get_game
from companion.models import Match
from companion.services.seed import play_match

SAME_ON_EVERY_DATABASE = "the one replay path of 3,000 seeded matches: the rules (test_seed stores every game on both)"


@pytest.mark.parametrize("seed_value", [0, 1, 2, 14, 18, 42, 1234])
@pytest.mark.parametrize("slug", [slug for slug, game in REGISTRY.items() if game.seed is not None])
def test_every_generated_match_is_one_the_rules_accept_to_its_end(slug, seed_value):
    rng = random.Random(seed_value)
    for _ in range(250):
        players, settings, rounds = play_match(rng, slug)
        standings = get_game(slug).standings(players, settings, rounds)
        # Played to its end and not a round beyond: the last round is the one that ends it.
        assert standings.over
        assert not get_game(slug).replay(players, settings, rounds[:-1]).over


def test_seeding_3000_matches_with_seed_2_succeeds(runner, app):
    # The count and seed that once failed with "the game was already over after round 4".
    result = runner.invoke(args=["seed", "--matches", "3000", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "seeded 3000 matches" in result.output
    with app.app_context():
        assert db.session.scalar(select(func.count(Match.id))) == 3000
