"""`flask seed`: fill the database with realistic generated matches of all four games, fast."""

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

from .games import get_game
from .models import FINISHED, PLAYING, Match, Round, Seat, utcnow
from .services import matches as service

ROSTER = [
    "Alessandra", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Giulia", "Hugo",
    "Irene", "Jacopo", "Kiara", "Luca", "Marta", "Nico", "Olivia", "Paolo",
    "Quinto", "Rita", "Sandro", "Teresa", "Umberto", "Valeria", "Walter", "Ximena",
    "Yuri", "Zoe", "Ann", "Bob", "Cy", "Di", "Emma", "Filippo",
    "Greta", "Ivo", "Lia", "Matteo", "Nadia", "Ottavio", "Pia", "Renzo",
]  # fmt: skip
# Clubs meet in groups; a match mostly seats one group, with the odd guest.
GROUP_SIZE = 8

LETTER_POINTS = {
    "A": 1, "B": 5, "C": 2, "D": 5, "E": 1, "F": 5, "G": 8, "H": 8, "I": 1, "L": 3, "M": 3,
    "N": 3, "O": 1, "P": 5, "Q": 10, "R": 2, "S": 2, "T": 2, "U": 3, "V": 5, "Z": 8,
}  # fmt: skip
WORDS = (
    "CASA GATTO MARE SOLE LUNA PIZZA TAVOLO CARTA PAROLA GIOCO AMICO FIORE LIBRO SCUOLA TRENO "
    "STRADA QUADRO BOSCO NEVE VENTO FUOCO ACQUA TERRA CIELO NOTTE GIORNO SERA ESTATE INVERNO PANE "
    "VINO ZANZARA ZUCCA QUIZ LIMONE CAVALLO TOPO ORSO LUPO VOLPE RANA PESCE FARFALLA MONTE PONTE"
).split()
THEMES = ["Animali", "Cibo", "Viaggi", "Casa", "Natura", "Sport", "Mestieri", "Città"]

# Weights of how many sit down to each game, and minutes a round takes.
SEATS = {
    "pazzaparola": {2: 2, 3: 4, 4: 5, 5: 3, 6: 2, 7: 1, 8: 1},
    "burraco": {2: 3, 3: 2, 4: 6, 5: 1},
    "topic": {2: 1, 3: 3, 4: 5, 5: 4, 6: 3, 7: 2, 8: 1, 9: 1, 10: 1},
    "pazaak": {2: 1},
}
MINUTES = {"pazzaparola": (3, 8), "burraco": (12, 25), "topic": (1, 3), "pazaak": (2, 5)}
YEARS = 3


def _weighted(rng: random.Random, weights: dict[Any, int]) -> Any:
    """One key of `weights`, drawn in proportion to its weight."""
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _players(rng: random.Random, count: int) -> list[str]:
    """A table of `count` players, mostly from one group of friends."""
    start = rng.randrange(0, len(ROSTER), GROUP_SIZE)
    group = ROSTER[start : start + GROUP_SIZE]
    guests = rng.sample([name for name in ROSTER if name not in group], 3)
    return rng.sample(group + guests, count)


def _settings(rng: random.Random, game: str, players: list[str]) -> dict[str, Any]:
    """Settings as a scorekeeper would pick them: mostly the defaults."""
    if game == "burraco" and len(players) == 4 and rng.random() < 0.7:
        return {"teams": {"Noi": [players[0], players[2]], "Voi": [players[1], players[3]]}}
    if game == "topic":
        return {"length": _weighted(rng, {"short": 2, "medium": 5, "long": 1})}
    return {}


def _pazzaparola_round(rng: random.Random, players: list[str], sides: list[str], settings: dict) -> dict:
    """Every player's word laid out as letter cards; now and then someone finds none."""
    rows = {}
    for name in players:
        if rng.random() < 0.08:
            rows[name] = {"word": None, "used": [], "unused": settings["cards"]}
            continue
        word = rng.choice([w for w in WORDS if len(w) <= settings["cards"]])
        used = [LETTER_POINTS[letter] for letter in word]
        rows[name] = {"word": word, "used": used, "unused": settings["cards"] - len(used)}
    return {"theme": rng.choice(THEMES), "rows": rows}


def _burraco_round(rng: random.Random, players: list[str], sides: list[str], settings: dict) -> dict:
    """Each side's cards laid and in hand, its burraco, and usually someone closing."""
    entries = {
        side: {
            "table": 5 * rng.randint(6, 80),
            "hand": 5 * rng.randint(0, 30),
            "clean": _weighted(rng, {0: 5, 1: 4, 2: 1}),
            "dirty": _weighted(rng, {0: 4, 1: 4, 2: 2}),
        }
        for side in sides
    }
    closer = rng.choice(sides) if rng.random() < 0.8 else None
    if closer is not None:
        # The rules let only a side with a burraco and an empty hand close.
        entries[closer]["hand"] = 0
        entries[closer]["clean"] = max(entries[closer]["clean"], 1)
    return {"sides": entries, "closed_by": closer}


def _topic_round(rng: random.Random, players: list[str], sides: list[str], settings: dict) -> dict:
    """The slowest player loses, sometimes two tie for last, now and then a penalty."""
    losers = rng.sample(players, 2 if rng.random() < 0.15 else 1)
    penalties = [rng.choice(players)] if rng.random() < 0.1 else []
    return {"losers": losers, "penalties": penalties}


def _pazaak_round(rng: random.Random, players: list[str], sides: list[str], settings: dict) -> dict:
    """A set as its outcome alone, or as the table totals the engine decides."""
    if rng.random() < 0.5:
        return {"winner": rng.choice(players) if rng.random() < 0.95 else None}
    totals = {name: rng.randint(12, 20) for name in players}
    if rng.random() < 0.2:
        totals[rng.choice(players)] = rng.randint(21, 26)
    filled = [rng.choice(players)] if rng.random() < 0.03 and max(totals.values()) <= 20 else []
    tied = len(set(totals.values())) == 1
    tiebreaker = rng.choice(players) if tied and rng.random() < 0.3 else None
    return {"totals": totals, "filled": filled, "tiebreaker": tiebreaker}


ROUND_MAKERS = {
    "pazzaparola": _pazzaparola_round,
    "burraco": _burraco_round,
    "topic": _topic_round,
    "pazaak": _pazaak_round,
}


def play_match(rng: random.Random, game_slug: str) -> tuple[list[str], dict[str, Any], list[dict[str, Any]]]:
    """A whole match played to its end by the game's own scoring: players, settings and rounds."""
    game = get_game(game_slug)
    players = game.check_players(_players(rng, _weighted(rng, SEATS[game_slug])))
    settings = game.settings(_settings(rng, game_slug, players), players)
    sides = game.sides(players, settings)
    # The game's own tally, advanced round by round: replaying the whole match after
    # each new round would make a long Topic_ match cost quadratic time. The makers
    # write rounds in the checked form already; the standings computed when the match
    # is stored check every round once more, and refuse the match if one is wrong.
    tally = game.begin(sides, settings)
    rounds: list[dict[str, Any]] = []
    while not game.is_over(tally, settings):
        rounds.append(ROUND_MAKERS[game_slug](rng, players, sides, settings))
        game.play(tally, players, settings, rounds[-1])
    return players, settings, rounds


def _generate(rng: random.Random, now: datetime, playing: bool, player_ids: dict[str, int]) -> Match:
    """One match as unsaved objects, its caches filled in by the service's own refresh."""
    game_slug = rng.choice(list(ROUND_MAKERS))
    players, settings, rounds = play_match(rng, game_slug)
    if playing:
        # Every round but the last leaves the game open, so a cut-short match is still on.
        rounds = rounds[: rng.randrange(0, len(rounds))]
    low, high = MINUTES[game_slug]
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

    return service.store_generated(ROSTER, generate, batch_size)


@click.command("seed")
@click.option(
    "--matches", "count", type=click.IntRange(min=1), default=1000, show_default=True, help="How many matches to add."
)
@click.option("--seed", "seed_value", type=int, default=None, help="A fixed random seed, for the same data every time.")
@with_appcontext
def seed_command(count: int, seed_value: int | None) -> None:
    """Fill the database with generated matches of all four games over the last three years."""
    began = time.perf_counter()
    seed(count, seed_value)
    click.echo(f"seeded {count} matches in {time.perf_counter() - began:.1f} s")
