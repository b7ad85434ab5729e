"""The shared interface of the games: rules, entry adapters and seed data; the errors and validators."""

from __future__ import annotations

import json
import random
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, Protocol

NAME_MAX = 40


@dataclass(frozen=True)
class Message:
    """A text for a person, kept untranslated: the page translates `text` and then fills in `params`.

    A parameter may be a Message itself (a field's description), translated the same way;
    anything else (a player's name, a number, a value as typed) is shown as it is.
    """

    text: str
    params: Mapping[str, Any] = field(default_factory=dict)
    # The text for a count other than one, when the message has one: `params["num"]` is the count.
    plural: str | None = None

    def __str__(self) -> str:
        """The English text, as `flask score` prints it."""
        text = self.plural if self.plural is not None and self.params.get("num") != 1 else self.text
        if not self.params:
            return text
        return text % {key: str(value) for key, value in self.params.items()}


def N_(text: str, **params: Any) -> Message:  # noqa: N802 - named like gettext's extraction marker
    """A message for a person; `make translations` extracts `text`, the page translates it."""
    return Message(text, params)


def Np_(singular: str, plural: str, **params: Any) -> Message:  # noqa: N802 - named like gettext's markers
    """A message that counts something (`num`, the count, among `params`): its singular and plural, as N_."""
    return Message(singular, params, plural)


class Refusal(Exception):
    """Something the app refuses, with what to tell the person: `message`, untranslated (see Message).

    The rules and the services raise one of its kinds and never translate; the web layer alone
    translates the message and answers each kind with its status (companion/web/fragments.py):
    RuleError is input refused (422, or shown next to its field), NotAllowed is not this phone's
    to do (403), ChangedMeanwhile was based on a state of the match that has changed since (409).
    """

    def __init__(self, message: str | Message, *, field: str | None = None):
        self.message = message if isinstance(message, Message) else Message(message)
        self.field = field
        super().__init__(str(self.message))


class NotAllowed(Refusal):
    """Not this phone's to do (a pencil it does not hold, a match that is no longer its own)."""


class ChangedMeanwhile(Refusal):
    """A write based on a state of the match that has changed meanwhile; `current` is the round as it is now, if any."""

    def __init__(self, message: str | Message, current: Any = None):
        super().__init__(message)
        self.current = current


class RuleError(Refusal, ValueError):
    """Input the rules refuse; `str()` is one human line: "round 2: Bob: what is wrong".

    `message` is what is wrong, untranslated (see Message); `reason` is its English text.
    """

    def __init__(self, reason: str | Message, *, field: str | None = None, round: int | None = None):
        super().__init__(reason, field=field)
        self.reason = str(self.message)
        self.round = round
        self.args = (str(self),)

    def __str__(self) -> str:
        parts = [f"round {self.round}"] if self.round is not None else []
        if self.field:
            parts.append(self.field)
        return ": ".join([*parts, self.reason])

    def located(self, beside: str | None = None) -> Message:
        """The whole line as one message, as `str()` reads it: the round and the field, then what is wrong.

        The field is left out when it is `beside`, the field the message is shown next to.
        """
        message = self.message
        if self.field and self.field != beside:
            message = N_("%(field)s: %(reason)s", field=self.field, reason=message)
        if self.round is not None:
            message = N_("round %(n)s: %(reason)s", n=self.round, reason=message)
        return message

    def in_round(self, number: int) -> RuleError:
        """The same error placed in a round (kept as is when it already names one)."""
        if self.round is not None:
            return self
        return RuleError(self.message, field=self.field, round=number)


def show(value: Any) -> str:
    """A value as the JSON a person typed, so `true` and `"3"` read as such in messages."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


# Characters a name may not hold: controls (NUL, ESC, tab), format characters (RTL override,
# zero-width space and joiner) and line or paragraph separators. They are invisible or
# reorder what is around them, so "Ann\u200b" would sit beside "Ann" as another person.
REFUSED_IN_NAMES = frozenset({"Cc", "Cf", "Zl", "Zp"})
# Letters and marks that draw nothing although their category is a visible one: the Hangul
# fillers, the blank Braille pattern, the combining grapheme joiner and Khmer's inherent
# vowels. "Ann" followed by one of them looks like "Ann" and would be another person.
INVISIBLE_FILLERS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")


# Kept for the names seen lately: every replay resolves each name of each round against the seats.
@lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """The form under which two spellings of a name are the same person: NFC, spaces made one, case folded."""
    return unicodedata.normalize("NFC", " ".join(unicodedata.normalize("NFC", name).split()).casefold())


def name_problem(name: str) -> Message | None:
    """What makes a name unusable as typed (a control or invisible character inside it), or None.

    Spaces, tabs and line ends around the name are trimmed as always, not refused.
    """
    for character in name.strip():
        if unicodedata.category(character) in REFUSED_IN_NAMES or character in INVISIBLE_FILLERS:
            code = f"U+{ord(character):04X}"
            label = unicodedata.name(character, "a control character")
            return N_(
                "a name may not hold invisible or control characters (%(code)s %(label)s)", code=code, label=label
            )
    return None


def name_fits(name: str) -> bool:
    """Whether a cleaned name has 1 to NAME_MAX characters, as typed and as compared.

    Case folding lengthens some letters ("ß" is "ss"), and the roster keeps the folded form
    in a column of NAME_MAX characters too.
    """
    return 1 <= len(name) <= NAME_MAX and len(name_key(name)) <= NAME_MAX


def clean_name(raw: str) -> str:
    """A name as it is kept: NFC, with surrounding spaces trimmed and inner runs made one space."""
    return " ".join(unicodedata.normalize("NFC", raw).split())


def checked_name(raw: str) -> str:
    """A typed name as it is kept (see clean_name), or a RuleError saying what makes it unusable.

    The one check of a name, wherever one is typed: a seat, the new-match form, a rename.
    """
    if (problem := name_problem(raw)) is not None:
        raise RuleError(problem, field="name")
    name = clean_name(raw)
    if not name_fits(name):
        raise RuleError(N_("a name has 1 to %(max)s characters", max=NAME_MAX), field="name")
    return name


def as_sentence(text: str) -> str:
    """A rule's message standing alone beside a field: a capital first letter and a full stop."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def whole(
    value: Any, what: str | Message, *, lo: int | None = None, hi: int | None = None, field: str | None = None
) -> int:
    """`value` as a whole number in [lo, hi]; JSON true or 2.5 or 3.0 are refused, not coerced."""
    if lo is not None and hi is not None:
        wanted = N_("a whole number from %(lo)s to %(hi)s", lo=lo, hi=hi)
    elif lo is not None:
        wanted = N_("a whole number of at least %(lo)s", lo=lo)
    else:
        wanted = N_("a whole number")
    # bool is a subclass of int, and a JSON `true` must not count as 1.
    ok = isinstance(value, int) and not isinstance(value, bool)
    if not ok or (lo is not None and value < lo) or (hi is not None and value > hi):
        raise RuleError(
            N_("%(what)s must be %(wanted)s, got %(value)s", what=what, wanted=wanted, value=show(value)), field=field
        )
    return value


def optional_text(value: Any, what: str | Message, *, field: str | None = None) -> str | None:
    """Free text that may be absent (null)."""
    if value is not None and not isinstance(value, str):
        raise RuleError(N_("%(what)s must be text, got %(value)s", what=what, value=show(value)), field=field)
    return value


def mapping(value: Any, what: str | Message, *, field: str | None = None) -> dict[str, Any]:
    """`value` as a JSON object."""
    if not isinstance(value, dict):
        raise RuleError(N_("%(what)s must be an object, got %(value)s", what=what, value=show(value)), field=field)
    return value


def items(value: Any, what: str | Message, *, field: str | None = None) -> list[Any]:
    """`value` as a JSON list."""
    if not isinstance(value, list):
        raise RuleError(N_("%(what)s must be a list, got %(value)s", what=what, value=show(value)), field=field)
    return value


def validate_players(names: Any) -> list[str]:
    """The seat list with each name trimmed (inner runs of spaces made one) and in NFC, checked unique.

    Names with control or format characters are refused; two names equal once normalised
    and case folded are one person, seated twice.
    """
    names = items(names, N_("the players"), field="players")
    clean: list[str] = []
    seen: set[str] = set()
    for position, raw in enumerate(names, start=1):
        if not isinstance(raw, str):
            raise RuleError(
                N_("seat %(seat)s: a name must be text, got %(value)s", seat=position, value=show(raw)), field="players"
            )
        try:
            name = checked_name(raw)
        except RuleError as error:
            problem = N_("seat %(seat)s: %(problem)s", seat=position, problem=error.message)
            raise RuleError(problem, field="players") from None
        if name_key(name) in seen:
            raise RuleError(
                N_("%(name)s is seated twice (names are compared ignoring case)", name=name), field="players"
            )
        seen.add(name_key(name))
        clean.append(name)
    return clean


def resolve(value: Any, names: Iterable[str], field: str) -> str:
    """The canonical spelling of one of `names`, matched ignoring case and extra spaces.

    Rounds may spell a name as the file's author typed it, while the seat list may
    come back from the roster with the roster's spelling.
    """
    names = list(names)
    if isinstance(value, str):
        wanted = name_key(value)
        for name in names:
            if name_key(name) == wanted:
                return name
    raise RuleError(N_("%(value)s is not one of %(names)s", value=show(value), names=", ".join(names)), field=field)


def name_list(value: Any, names: list[str], what: str, *, distinct: bool = False, nonempty: bool = False) -> list[str]:
    """A list of names from `names`, in the order given."""
    if not isinstance(value, list):
        raise RuleError(N_("must be a list of names, got %(value)s", value=show(value)), field=what)
    found = [resolve(v, names, what) for v in value]
    if nonempty and not found:
        raise RuleError(N_("names no one; at least one is needed"), field=what)
    if distinct:
        for position, name in enumerate(found):
            if name in found[:position]:
                raise RuleError(N_("%(name)s is listed twice", name=name), field=what)
    return found


def per_name(value: Any, names: list[str], what: str, kind: str | Message | None = None) -> dict[str, Any]:
    """An object with exactly one entry per name, keyed by the canonical names in seat order."""
    kind = N_("player") if kind is None else kind
    given = mapping(value, what, field=what)
    found: dict[str, Any] = {}
    for key, entry in given.items():
        name = resolve(key, names, what)
        if name in found:
            raise RuleError(N_("two entries in %(what)s for the same %(kind)s", what=what, kind=kind), field=name)
        found[name] = entry
    for name in names:
        if name not in found:
            raise RuleError(N_("no entry in %(what)s, but every %(kind)s needs one", what=what, kind=kind), field=name)
    return {name: found[name] for name in names}


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
    package: `entry`, the adapter between its web forms and its rounds, and `seed`, how
    `flask seed` makes up matches of it. The rules themselves never call either.
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

    def __init__(self, entry: type[Entry] | None = None, seed: Seeding | None = None):
        self.entry = (entry or Entry)(self)
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
        """The winning sides of a finished game."""
        return best(tally.totals)

    def extra(self, tally: Tally) -> dict[str, Any]:
        """Top-level keys the game adds to the standings."""
        return {}


@dataclass(frozen=True)
class Partial:
    """One template a game keeps in its folder: what it draws, and the only names it may read.

    `receives` are the names of the page's context the partial may read (besides the template
    helpers every page has, `_`, `ngettext`, `url_for` and the filters); `macros` are the macros
    a macro file must define, `optional_macros` those it may define.
    """

    name: str
    draws: str
    receives: tuple[str, ...] = ()
    required: bool = True
    macros: tuple[str, ...] = ()
    optional_macros: tuple[str, ...] = ()


# What the match page's partials receive: the match, the game, its standings, `game_view`
# (Entry.match_view), whether this phone holds the pencil, and the seat this phone took (its
# `name`; None on a page drawn the same for every phone: a viewer's, the table view). A finished
# match's replay gives them the match as it stood after a round (its first rounds only) with the
# standings and view of then.
MATCH = ("match", "game", "standings", "game_view", "scorekeeper", "my_seat")

# The partials every game provides in templates/games/<slug>/ (or its Entry.template_folder), and
# the context each receives: the one statement of the interface between the pages and a game's
# templates. A game may keep more templates of its own, included by these with what they need.
PARTIALS: tuple[Partial, ...] = (
    Partial("_settings.html", "its fields of the new-match form", ("draft", "game", "setup")),
    Partial(
        "_entry.html",
        "the round entry (and the correction form, with `correcting` and `editing` set; on a seated phone of a"
        " game whose seats send rows, with `sending` set to its seat: that seat's row alone; on a seated phone"
        " of a game whose seats are boards, `board_saved`: the number of the round its tap just saved)",
        (*MATCH, "entry", "errors", "form", "saved", "correcting", "editing", "sending", "board_saved"),
    ),
    Partial("_standings.html", "where the match stands", MATCH),
    Partial("_rounds.html", "the rounds played, with an element `#round-rows` holding one row per round", MATCH),
    Partial("_round_row.html", "round `number` as a row", (*MATCH, "number")),
    Partial(
        "_round_appended.html",
        "round `number` added to `#round-rows` out of band after a save (by default its row at the end), the"
        " out-of-band element marked `data-live-etag` with the version drawn (`live_etag(match)`): a page whose"
        " poll drew that version already does not add the row again",
        (*MATCH, "number"),
        required=False,
    ),
    Partial(
        "_table_figure.html",
        "the game's own figure under the totals of the table view (Topic_'s deck)",
        MATCH,
        required=False,
    ),
    Partial(
        "_records.html",
        "a player's record figures: `label(key)` of the board's column, `figures(found)` on a player's page,"
        " and optionally `board_note()` under the players' board",
        macros=("label", "figures"),
        optional_macros=("board_note",),
    ),
)


@dataclass(frozen=True)
class SentRow:
    """A row a seated phone sent of the round being played: what it holds, its revision, its phone's name."""

    data: dict[str, Any]
    revision: int
    label: str
    # The seat of the phone that sent it, while that phone sits there: in pairs, the partner told who sent the
    # pair's row.
    sender: str = ""


class Entry:
    """A game's entry adapter: its web forms read into rounds and settings and back, the state
    of its round-entry tool, and the data its templates draw, worked out before they render.

    Everything here reads what a page sent without raising anything but RuleError; the
    texts, CSS classes and labels of a game's pages belong here or in its templates, never
    in its rules.
    """

    # The folder of the game's templates when they are not the app's templates/games/<slug>/
    # (a game defined outside the app, like the tests' fifth game).
    template_folder: ClassVar[str | None] = None
    # The record figure the players' board shows in a column of its own, if any.
    board_figure: ClassVar[str | None] = None
    # What the table calls one round of the game (a hand, a set), as the chart's axis names it.
    round_word: ClassVar[Message] = N_("Round")
    # The heading of the match's chart, in the same words.
    chart_title: ClassVar[Message] = N_("Totals after each round")
    # What a side's total is, as the result card heads its column (victory points, cards held...).
    total_word: ClassVar[Message] = N_("Total")
    # The names the new-match form offers the sides, untranslated (Burraco's pairs: "Us" and "Them"): a side still
    # so named is stored by the untranslated name and shown in each phone's own language (web/display.words).
    default_side_names: ClassVar[tuple[Message, ...]] = ()
    # The label of the replay's slider, in the same words.
    shown_word: ClassVar[Message] = N_("Round shown")
    # What the seated phones are told of the row they send and its round (a hand in Burraco), and what the
    # scorekeeper's count of the rows in says: `texts_for_seats` fills in their parameters.
    seat_texts: ClassVar[dict[str, Message]] = {
        "yours": N_("Send your row of each round from here; the scorekeeper's phone saves the round."),
        "sent": N_("Row sent: the scorekeeper's sheet has it. Change it and send again until the round is saved."),
        "rows_in": N_("Rows in: %(n)s of %(count)s"),
        "not_played": N_("this match is no longer played: your row was not sent"),
        "not_seated": N_("this phone no longer has a seat at the match: your row was not sent"),
        "too_late": N_("round %(n)s was saved before your row arrived: it was not sent"),
    }

    # The words of a round's read-back, each one catalogue entry: the server's line (`readback`) and the
    # offline describer of static/js/games/<slug>.js (a round kept on the phone) say them alike, the script
    # receiving them translated as `<slug>.<key>` (web/i18n.offline_texts). `label` heads the line.
    round_texts: ClassVar[dict[str, Message]] = {"label": N_("Round %(n)s:")}

    # The settings the offline describer reads, all it is given of them: the page carries them to every phone.
    described_settings: ClassVar[tuple[str, ...]] = ()

    def settings_with_sides_renamed(self, settings: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
        """The new-match settings with the sides they name renamed (`renamed`: old name to new); none here."""
        return settings

    def row_summary(self, row: dict[str, Any], settings: dict[str, Any]) -> str:
        """A sent row in a few signs, as its side's other phone is told of it ("+500"); '' where none says more."""
        return ""

    def seat_text(self, key: str, **params: Any) -> Message:
        """One of `seat_texts` with its parameters filled in."""
        return Message(self.seat_texts[key].text, params)

    def said(self, key: str, **params: Any) -> Message:
        """One of `round_texts` with its parameters filled in, for `say` to translate."""
        text = self.round_texts[key]
        return Message(text.text, params, text.plural)

    def describe_round(
        self, round: dict[str, Any], players: list[str], settings: dict[str, Any], say: Callable[[Message], str]
    ) -> str:
        """What was entered in a checked round ("Bob +1 · Cy +1"), in the words `say` translates: a function of
        the round, the players and the settings alone, as the game's offline describer (its `describers` entry in
        static/js/games/<slug>.js) knows no more; tests/e2e/test_readback_parity.py holds the two to it."""
        raise NotImplementedError

    def describe_after(
        self, number: int, round: dict[str, Any], standings: Standings, say: Callable[[Message], str]
    ) -> str:
        """What the read-back adds once the round is scored into the match ("· 33 cards left"), from the
        standings the phone cannot know offline; with its own leading separator, or "" (the default)."""
        return ""

    def describe_context(self, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """What the offline describer knows of the match beside a round's fields (the entry's `data-describe`):
        the players and the scoring sides in seat order, and the `described_settings`."""
        shown = {key: settings[key] for key in self.described_settings}
        return {"players": list(players), "sides": self.rules.sides(players, settings), "settings": shown}

    def readback(
        self,
        number: int,
        round: dict[str, Any],
        standings: Standings,
        players: list[str],
        settings: dict[str, Any],
        say: Callable[[Message], str],
    ) -> str:
        """The line confirming round `number` just stored: what was entered in it (`entered_line`), what it did."""
        entered = self.entered_line(number, round, players, settings, say)
        return entered + self.describe_after(number, round, standings, say)

    def entered_line(
        self,
        number: int,
        round: dict[str, Any],
        players: list[str],
        settings: dict[str, Any],
        say: Callable[[Message], str],
    ) -> str:
        """Round `number`'s label and what was entered in it, "Round 3: Bob +1", as a phone that kept it says it."""
        return f"{say(self.said('label', n=number))} {self.describe_round(round, players, settings, say)}"

    def undone_line(self, number: int) -> Message:
        """The line after Undo, naming what was taken back as the table calls it (a round, a hand, a set)."""
        return N_("Round %(n)s taken back.", n=number)

    def chart_label(self, rounds: int, totals: str) -> Message:
        """The chart's name for a screen reader: how many rounds it draws and the totals it ends on."""
        return Np_("Totals after %(num)s round: %(totals)s", "Totals after each of %(num)s rounds: %(totals)s",
                   num=rounds, totals=totals)  # fmt: skip

    def replay_line(self, number: int, count: int) -> Message:
        """Where a finished match's replay stands: after round `number` of its `count`, as the table calls them."""
        return N_("After round %(n)s of %(count)s", n=number, count=count)

    def highlight(self, replay: Replay) -> Message | None:
        """The line a finished match's result card tells under the scores: the moment of the match the table
        will talk about (the best word, the hand that closed it), or None for a game that names none."""
        return None

    def __init__(self, rules: Game):
        self.rules = rules

    @property
    def setting_fields(self) -> tuple[str, ...]:
        """The settings the new-match form edits, so their errors show next to their own fields: all of them."""
        return tuple(self.rules.defaults)

    def settings_from_form(self, form: Any, players: list[str]) -> dict[str, Any]:
        """The raw settings the game's own new-match fields posted, for `settings()` to check.

        By default every declared setting (see `read_settings`).
        """
        if not self.rules.declared:
            raise NotImplementedError
        return self.read_settings(form)

    def sides_from_form(self, form: Any, players: list[str]) -> list[list[str]]:
        """The sides the seated players will make up, as the new-match form stands: each player alone by
        default. Never refused: the form's other fields may be half typed."""
        return [[player] for player in players]

    def read_settings(self, form: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
        """The declared settings (but those in `skip`) the form carries, not blank, as posted."""
        raw: dict[str, Any] = {}
        for setting in self.rules.declared:
            if setting.name not in skip:
                carried, value = setting.read(form, self.rules.slug)
                if carried:
                    raw[setting.name] = value
        return raw

    def round_from_form(self, form: Any, players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """The round a game's entry form posted (`form` has `.get`/`.getlist`), before checking.

        Each game reads the fields its own `_entry.html` draws; malformed input is a
        RuleError naming the field, never another exception.
        """
        raise NotImplementedError

    def form_from_round(self, round: dict[str, Any], players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """The entry form's fields for a stored round: `round_from_form` reads them back as it."""
        raise NotImplementedError

    def form_after_undo(self, round: dict[str, Any], players: list[str], settings: dict[str, Any]) -> dict[str, Any]:
        """The entry filled in again with a round just taken back, to fix and save (by default the whole round)."""
        return self.form_from_round(round, players, settings)

    def setup_view(self, form: Any, players: list[str]) -> dict[str, Any]:
        """What the game's part of the new-match form draws after the tap `form` carries.

        By default `shown`, every declared setting as the form shows it (so a tap keeps each one),
        `fields`, the declared settings the form draws with the generic widgets, and `settings`, every
        declared setting by name, whose default, bounds and field a widget of the game's own reads.
        """
        return {
            "shown": {setting.name: setting.shown(form, self.rules.slug) for setting in self.rules.declared},
            "fields": [setting for setting in self.rules.declared if setting.drawn],
            "settings": {setting.name: setting for setting in self.rules.declared},
        }

    def step(self, form: Any, replay: Replay) -> dict[str, Any]:
        """The state of the round-entry tool, worked out from what the page sent back (none by default)."""
        return {}

    # Whether a seated phone enters its own row of the round being played, which the scorekeeper's entry
    # gathers: a game that says so reads a row with `row_from_form` and writes one into the entry's fields
    # with `row_fields`.
    rows_from_seats: ClassVar[bool] = False

    def row_from_form(self, form: Any, replay: Replay, position: int) -> dict[str, Any]:
        """The row the phone seated at `position` sends of the round being played, checked as far as a row
        alone can be (the round is checked whole when the scorekeeper saves it); a RuleError names its field."""
        raise NotImplementedError

    def row_fields(self, row: dict[str, Any], position: int) -> dict[str, list[str]]:
        """The entry form's fields of seat `position` holding a row sent from its phone."""
        raise NotImplementedError

    def has_row(self, form: Any, position: int) -> bool:
        """Whether the entry form holds anything of seat `position`'s row (the scorekeeper's, or a row sent)."""
        return any(value.strip() for key in self.row_fields({}, position) for value in form.getlist(key))

    # Whether a seated phone is its player's own board (Pazaak): it notes its hand there, seen by that phone
    # alone (`hand_from_form`), and plays its turns on the entry tool, whose step then reads the BOARD_FIELD.
    seat_boards: ClassVar[bool] = False

    def hand_from_form(
        self, form: Any, name: str, settings: dict[str, Any], hand: list[str], begun: bool
    ) -> list[str]:
        """The hand player `name`'s seated phone notes after the tap `form` carries, from `hand` as noted so far;
        once the match has `begun` a card may be added but none taken out. A RuleError says why a tap is refused."""
        raise NotImplementedError

    # Whether the rows sent from every side make a whole round on their own, so that a table may choose to
    # have the round saved when the last row arrives (a Burraco hand also needs who closed: its scorekeeper saves).
    round_from_rows_alone: ClassVar[bool] = False

    def round_from_rows(
        self, rows: Mapping[int, dict[str, Any]], players: list[str], settings: dict[str, Any]
    ) -> dict[str, Any]:
        """The round the rows sent from every side make, as `round_from_form` reads it (a RuleError if not one)."""
        fields: dict[str, list[str]] = {}
        for position, row in rows.items():
            fields.update(self.row_fields(row, position))
        return self.round_from_form(fields, players, settings)

    def with_sent_rows(self, form: Any, rows: Mapping[int, SentRow], replacing: Iterable[int] = ()) -> Any:
        """The entry's fields with the rows the seated phones sent: each where the form holds nothing of that
        seat's row, or where `replacing` names it; beside each, the revision it was sent at and its phone."""
        fields = form.copy()
        replacing = set(replacing)
        for position, sent in rows.items():
            if position in replacing or not self.has_row(form, position):
                for key, values in self.row_fields(sent.data, position).items():
                    fields.setlist(key, values)
                fields.setlist(f"sent-rev-{position}", [str(sent.revision)])
                fields.setlist(f"sent-by-{position}", [sent.label])
        return fields

    def match_view(self, replay: Replay) -> dict[str, Any]:
        """What the game's match partials draw beyond the standings (who starts next, the deck...)."""
        return {}

    def round_values(self, replay: Replay, index: int) -> dict[str, int]:
        """What each side got in round `index` (from 0) of a replayed match, as a score sheet notes it.

        The change log compares these before and after a correction. The default is the
        round's score per side from the standings' round entries, when the game records one.
        """
        return dict(replay.tally.rounds[index].get("scores", {}))


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
