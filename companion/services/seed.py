"""`flask seed`: fill the database with realistic generated matches of every game that has seed data, fast."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from datetime import time as dtime
from typing import Any
from uuid import UUID

import click
from flask.cli import with_appcontext

from ..games import REGISTRY, get_game
from ..models import FINISHED, PLAYING, Match, Round, Seat, utcnow
from . import imports
from . import matches as service

ROSTER = [
    "Alessandra", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Giulia", "Hugo",
    "Irene", "Jacopo", "Kiara", "Luca", "Marta", "Nico", "Olivia", "Paolo",
    "Quinto", "Rita", "Sandro", "Teresa", "Umberto", "Valeria", "Walter", "Ximena",
    "Yuri", "Zoe", "Ann", "Bob", "Cy", "Di", "Emma", "Filippo",
    "Greta", "Ivo", "Lia", "Matteo", "Nadia", "Ottavio", "Pia", "Renzo",
]  # fmt: skip
# Clubs meet in groups; a match mostly seats one group, with the odd guest.
GROUP_SIZE = 8

YEARS = 3


def _players(rng: random.Random, count: int) -> list[str]:
    """A table of `count` players, mostly from one group of friends."""
    start = rng.randrange(0, len(ROSTER), GROUP_SIZE)
    group = ROSTER[start : start + GROUP_SIZE]
    guests = rng.sample([name for name in ROSTER if name not in group], 3)
    return rng.sample(group + guests, count)


def play_match(rng: random.Random, game_slug: str) -> tuple[list[str], dict[str, Any], list[dict[str, Any]]]:
    """A whole match played to its end by the game's own scoring: players, settings and rounds."""
    game = get_game(game_slug)
    seeding = game.seed
    players = game.check_players(_players(rng, seeding.weighted(rng, seeding.seats)))
    settings = game.settings(seeding.settings(rng, players), players)
    sides = game.sides(players, settings)
    # The game's own tally, advanced round by round with `play` (which records each round,
    # as a replay does): replaying the whole match after each new round would make a long
    # match cost quadratic time. The makers write rounds in the checked form already; the
    # standings computed when the match is stored check every round once more.
    tally = game.begin(sides, settings)
    rounds: list[dict[str, Any]] = []
    while not game.is_over(tally, settings):
        rounds.append(seeding.round(rng, players, sides, settings))
        game.play(tally, players, settings, rounds[-1])
    return players, settings, rounds


def _generate(rng: random.Random, now: datetime, playing: bool, player_ids: dict[str, int]) -> Match:
    """One match as unsaved objects, its caches filled in by the service's own refresh."""
    game_slug = rng.choice([slug for slug, game in REGISTRY.items() if game.seed is not None])
    players, settings, rounds = play_match(rng, game_slug)
    if playing:
        # Every round but the last leaves the game open, so a cut-short match is still on.
        rounds = rounds[: rng.randrange(0, len(rounds))]
    low, high = get_game(game_slug).seed.minutes
    steps = [timedelta(minutes=rng.uniform(low, high)) for _ in rounds]
    length = sum(steps, timedelta())
    if playing:
        started = now - length - timedelta(minutes=rng.uniform(1, 10))
    else:
        # Club evenings start in the evening, on a day from two days to three years ago.
        day = (now - timedelta(days=rng.randint(2, 365 * YEARS))).date()
        started = datetime.combine(day, dtime(rng.randint(18, 22), rng.randint(0, 59)))
    match = Match(game=game_slug, settings=settings, status=PLAYING, started_at=started)
    match.uid = UUID(int=rng.getrandbits(128), version=4).hex
    match.seats = [
        Seat(position=position, name=name, player_id=player_ids[name]) for position, name in enumerate(players)
    ]
    moment = started
    for number, (data, step) in enumerate(zip(rounds, steps, strict=True), start=1):
        moment += step
        match.rounds.append(Round(number=number, data=data, created_at=moment, updated_at=moment))
    service.rescore(match)
    if match.status == FINISHED:
        match.finished_at = moment
    return match


def seed(count: int, seed_value: int | None = None, batch_size: int = 1000) -> int:
    """Add `count` generated matches (about 1 in 100 still in progress) in one transaction."""
    rng = random.Random(seed_value)
    now = utcnow()
    playing_every = 100

    def generate(player_ids: dict[str, int]) -> Iterator[Match]:
        for index in range(count):
            yield _generate(rng, now, index % playing_every == playing_every - 1, player_ids)

    return imports.store_generated(ROSTER, generate, batch_size)


@click.command("seed")
@click.option(
    "--matches", "count", type=click.IntRange(min=1), default=1000, show_default=True, help="How many matches to add."
)
@click.option("--seed", "seed_value", type=int, default=None, help="A fixed random seed, for the same data every time.")
@with_appcontext
def seed_command(count: int, seed_value: int | None) -> None:
    """Fill the database with generated matches of every game over the last three years."""
    began = time.perf_counter()
    seed(count, seed_value)
    click.echo(f"seeded {count} matches in {time.perf_counter() - began:.1f} s")
