"""The shared interface of the games' rules: `Game`, what a replay makes of a match, and the seed data."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from .checks import items, mapping, validate_players
from .refusals import N_, RuleError
from .settings import PLAYER


def best(totals: Mapping[str, int], *, fewest: bool = False) -> list[str]:
    """The sides with the highest (or lowest) total, in seat order."""
    pick = min if fewest else max
    top = pick(totals.values())
    return [side for side, total in totals.items() if total == top]


@dataclass(frozen=True)
class Standings:
    """Where a match stands, derived from its rounds."""

    game: str
    over: bool
    winners: list[str]
    totals: dict[str, int]
    rounds: list[dict[str, Any]]
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The standings exactly as `flask score` prints them."""
        return {
            "game": self.game,
            "over": self.over,
            "winners": list(self.winners),
            "totals": dict(self.totals),
            "rounds": [dict(r) for r in self.rounds],
            **self.extra,
        }


@dataclass
class Tally:
    """The running count while a game's rounds are replayed; `state` holds game-specific counters.

    `rounds` holds the entry of every round scored into it, appended by `Game.play` alone:
    a rule that counts rounds (a hand limit) reads the same list however the tally
    was advanced.
    """

    totals: dict[str, int]
    rounds: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Replay:
    """A match replayed: its checked seat list, settings and rounds, the final tally, and the
    game's own counters after each round (`states`, oldest first: the cards left in a deck)."""

    players: list[str]
    settings: dict[str, Any]
    rounds: list[dict[str, Any]]
    tally: Tally
    over: bool
    states: list[dict[str, Any]]


class RecordSums(Protocol):
    """A player's kept sums over the finished matches of one game (models.PlayerRecord, kept by services/records.py)."""

    played: int
    won: int
    total: int
    score_sum: int
    score_count: int
    best_score: int | None
    best_label: str | None


class Game:
    """One game's rules; subclasses fill in the hooks, the base replays the rounds.

    The object the registry holds is the rules with the game's other parts attached by its
    package: `entry`, the adapter between its web forms and its rounds (its kind of `Entry`, in
    games/entry.py, made here of these rules), and `seed`, how `flask seed` makes up matches of it.
    The rules themselves never call either.
    """

    slug: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    # The game's settings, each declared once (games.settings.Setting): the rules check them, the
    # new-match form reads, keeps and draws them from these declarations.
    declared: ClassVar[tuple[Any, ...]] = ()
    # The settings no kind of Setting fits (Burraco's pairs, Pazaak's hand cards), each with its default:
    # the game checks them in its own `normalise_settings`, after the declared ones, and reads them off its form.
    hand_written: ClassVar[dict[str, Any]] = {}
    # Every settings key with its default; a key not listed here is an error. Made from `declared`
    # and `hand_written` when the game declares its settings.
    defaults: ClassVar[dict[str, Any]] = {}
    # Whether the fewest total ranks first at the end (Topic_'s cards held) rather than the most.
    fewest_first: ClassVar[bool] = False

    def __init__(self, entry: Callable[[Game], Any], seed: Seeding | None = None):
        self.entry = entry(self)
        self.seed = seed

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Keep `play` the one way to advance a tally: a game scores a round in `score_round`."""
        super().__init_subclass__(**kwargs)
        if "declared" in cls.__dict__ or "hand_written" in cls.__dict__:
            cls.defaults = {**{setting.name: setting.default for setting in cls.declared}, **cls.hand_written}
        if "play" in cls.__dict__:
            # Overriding `play` would leave the game's rounds unrecorded in the tally for some
            # callers (the seed once did so): that mistake is refused when the class is made.
            raise TypeError(f"{cls.__name__} overrides Game.play: score a round in score_round instead")

    # --- the interface the web layer and CLI call -------------------------------------

    def check_players(self, players: Any) -> list[str]:
        """The seat list, checked for names and for this game's number of players."""
        names = validate_players(players)
        if not self.min_players <= len(names) <= self.max_players:
            if self.min_players == self.max_players:
                count = N_("exactly %(n)s players", n=self.min_players)
            else:
                count = N_("%(lo)s to %(hi)s players", lo=self.min_players, hi=self.max_players)
            raise RuleError(
                N_("%(game)s needs %(count)s, got %(n)s", game=self.name, count=count, n=len(names)), field="players"
            )
        return names

    def settings(self, raw: dict[str, Any] | None, players: list[str]) -> dict[str, Any]:
        """The complete settings: `raw` checked, unknown keys refused, defaults filled in."""
        given = {} if raw is None else mapping(raw, N_("the settings"), field="settings")
        for key in given:
            if key not in self.defaults:
                known = ", ".join(self.defaults) or "none"
                raise RuleError(N_("unknown setting (known settings: %(known)s)", known=known), field=str(key))
        merged = {**self.defaults, **given}
        return self.normalise_settings(merged, players)

    def sides(self, players: list[str], settings: dict[str, Any]) -> list[str]:
        """The scoring sides in seat order: the players, unless the game has teams."""
        return list(players)

    def check_round(self, players: list[str], settings: dict[str, Any], round: Any, number: int) -> dict[str, Any]:
        """One round checked and normalised; extra keys (a time, card details) pass through."""
        try:
            given = mapping(round, N_("a round"))
            return {**given, **self.normalise_round(players, settings, given)}
        except RuleError as error:
            raise error.in_round(number) from None

    def standings(self, players: Any, settings: dict[str, Any] | None, rounds: Any) -> Standings:
        """Where the match stands after these rounds; a pure function of its arguments."""
        return self.standings_of(self.replay(players, settings, rounds))

    def standings_of(self, replay: Replay) -> Standings:
        """The standings of a match already replayed."""
        tally = replay.tally
        return Standings(
            game=self.slug,
            over=replay.over,
            winners=self.winners(tally, replay.settings) if replay.over else [],
            totals=dict(tally.totals),
            rounds=list(tally.rounds),
            extra=self.extra(tally),
        )

    def replay(
        self, players: Any, settings: dict[str, Any] | None, rounds: Any, *, stop_at_end: bool = False
    ) -> Replay:
        """Check everything and score the rounds one by one; a round after the end is an error.

        Whoever needs several things of one match (its standings, who starts next, the deck
        after each round) asks them all of one replay: nothing is remembered between calls.
        With `stop_at_end` the rounds after the one that ends the game are left out unread.
        """
        players = self.check_players(players)
        settings = self.settings(settings, players)
        tally = self.begin(self.sides(players, settings), settings)
        checked: list[dict[str, Any]] = []
        states: list[dict[str, Any]] = []
        for number, raw in enumerate(items(rounds, "rounds", field="rounds"), start=1):
            if self.is_over(tally, settings):
                if stop_at_end:
                    break
                raise RuleError(N_("the game was already over after round %(n)s", n=number - 1), round=number)
            checked.append(self.check_round(players, settings, raw, number))
            try:
                self.play(tally, players, settings, checked[-1])
            except RuleError as error:
                raise error.in_round(number) from None
            states.append(dict(tally.state))
        return Replay(players, settings, checked, tally, self.is_over(tally, settings), states)

    def ending_round(self, players: Any, settings: dict[str, Any] | None, rounds: Any) -> int | None:
        """The number of the round that ends the game, or None while these rounds leave it open.

        Rounds after it are not read: a correction that ends a match earlier asks this to know
        which later rounds it would take back.
        """
        replay = self.replay(players, settings, rounds, stop_at_end=True)
        return len(replay.rounds) if replay.over else None

    def play(self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]) -> dict[str, Any]:
        """Score one checked round into the tally and record its entry there; returns the entry.

        The only way a tally moves on, used alike by `replay`, `tallies` and `flask seed`:
        advancing a tally round by round always ends where a full replay does.
        """
        entry = self.score_round(tally, players, settings, round)
        tally.rounds.append(entry)
        return entry

    def tallies(self, players: Any, settings: dict[str, Any] | None, rounds: Any) -> Iterator[Tally]:
        """The tally before the first round, then after each round: one replay for a whole history.

        The same tally object is yielded each time, updated: a caller copies what it keeps.
        """
        return self.tallies_of(self.replay(players, settings, rounds))

    def tallies_of(self, replay: Replay) -> Iterator[Tally]:
        """The tallies of `tallies` for a match already replayed (its rounds checked once)."""
        tally = self.begin(self.sides(replay.players, replay.settings), replay.settings)
        yield tally
        for checked in replay.rounds:
            self.play(tally, replay.players, replay.settings, checked)
            yield tally

    def round_scores(
        self, standings: Standings, rounds: list[dict[str, Any]], side: str
    ) -> list[tuple[int, str | None]]:
        """A side's score in each round, with what it scored with (a word), for its records.

        The default reads the per-round `scores` the standings carry; games whose rounds
        have no score of their own have none.
        """
        return [(entry["scores"][side], None) for entry in standings.rounds if side in entry.get("scores", {})]

    def side_of(self, settings: dict[str, Any], player: str) -> str:
        """The scoring side a seated player plays for: the player, unless the game has teams."""
        return player

    def starter(self, replay: Replay) -> str | None:
        """Who starts the round after a replayed match (None: the game is over or the table decides)."""
        return None

    def final_ranks(self, totals: Mapping[str, int]) -> dict[str, int]:
        """Each side's place in a finished match's final standings, 1 first: sides with equal totals
        share a place, and the next place counts them all (1, 1, 3)."""
        sign = 1 if self.fewest_first else -1
        values = list(totals.values())
        return {side: 1 + sum(sign * other < sign * total for other in values) for side, total in totals.items()}

    def record_figures(self, record: RecordSums) -> dict[str, Any]:
        """The game's own figures of a player's record, keyed by what they are (the page labels them)."""
        return {}

    # --- hooks for each game -------------------------------------------------------------

    def normalise_settings(self, settings: dict[str, Any], players: list[str]) -> dict[str, Any]:
        """Check every value of the merged settings; return them normalised (each declared setting checked).

        A game with `hand_written` settings checks those in its own override, after these.
        """
        if not self.declared:
            raise NotImplementedError
        return {setting.name: setting.check(settings[setting.name], players) for setting in self.declared}

    def settings_with_players_renamed(self, settings: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
        """The settings with the players they name renamed (`renamed`: a name as played to its roster entry's name
        now), as a Play again seats them. A game whose hand-written settings name players renames those too."""
        named = {setting.name for setting in self.declared if setting.kind == PLAYER}
        return {key: renamed.get(value, value) if key in named else value for key, value in settings.items()}

    def normalise_round(self, players: list[str], settings: dict[str, Any], round: dict[str, Any]) -> dict[str, Any]:
        """The keys of a round the scoring uses, checked (errors without a round number)."""
        raise NotImplementedError

    def begin(self, sides: list[str], settings: dict[str, Any]) -> Tally:
        """The tally before the first round."""
        return Tally(totals={side: 0 for side in sides})

    def score_round(
        self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """Add one checked round to the tally's totals and state; return its entry for `Standings.rounds`.

        Called by `play` alone, which records the entry in `tally.rounds` afterwards.
        """
        raise NotImplementedError

    def is_over(self, tally: Tally, settings: dict[str, Any]) -> bool:
        """Whether the game has ended under its rules."""
        raise NotImplementedError

    def winners(self, tally: Tally, settings: dict[str, Any]) -> list[str]:
        """The winning sides of a finished game: the best total(s), the fewest where the fewest come first."""
        return best(tally.totals, fewest=self.fewest_first)

    def extra(self, tally: Tally) -> dict[str, Any]:
        """Top-level keys the game adds to the standings."""
        return {}


class Seeding:
    """How `flask seed` makes up realistic matches of one game; `rng` is a `random.Random`."""

    # Weights of how many sit down to the game, and the minutes a round takes (low, high).
    seats: ClassVar[dict[int, int]] = {}
    minutes: ClassVar[tuple[float, float]] = (1, 5)

    @staticmethod
    def weighted(rng: random.Random, weights: dict[Any, int]) -> Any:
        """One key of `weights`, drawn in proportion to its weight."""
        return rng.choices(list(weights), weights=list(weights.values()))[0]

    def settings(self, rng: random.Random, players: list[str]) -> dict[str, Any]:
        """Settings as a scorekeeper would pick them: the defaults, unless the game says otherwise."""
        return {}

    def round(
        self, rng: random.Random, players: list[str], sides: list[str], settings: dict[str, Any]
    ) -> dict[str, Any]:
        """One made-up round, already in the checked form the rules' `play` takes."""
        raise NotImplementedError
