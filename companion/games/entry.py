"""The shared presentation of the games: `Entry`, a game's forms read into rounds and back and what its pages
draw; the partials every game provides (`PARTIALS`); a row a seated phone sent (`SentRow`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .base import Game, Replay, Standings
from .refusals import N_, Message, Np_


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
        "taken_back": N_("round %(n)s is not played yet: the table took a round back and plays round %(now)s; your row "
                         "was not sent"),
    }

    # The words of a round's read-back, each one catalogue entry: the server's line (`readback`) and the
    # offline describer of static/js/games/<slug>.js (a round kept on the phone) say them alike, the script
    # receiving them translated as `<slug>.<key>` (web/i18n.offline_texts). `label` heads the line.
    round_texts: ClassVar[dict[str, Message]] = {"label": N_("Round %(n)s:")}
    # The lines that count rounds as the table calls them (a round, a hand, a set), filled in by `counted`: a
    # round's number (the change log, the home page), the correction's heading, how long ago the last one was saved
    # (`ago`, the home page), after Undo (`n`), the chart's name for a screen reader (`num` rounds, the `totals` it
    # ends on), where a finished match's replay stands (after round `n` of its `count`).
    counting_texts: ClassVar[dict[str, Message]] = {
        "number": N_("Round %(n)s"),
        "correct": N_("Correct round %(n)s"),
        "last": N_("last round %(ago)s ago"),
        "undone": N_("Round %(n)s taken back."),
        "chart": Np_("Totals after %(num)s round: %(totals)s", "Totals after each of %(num)s rounds: %(totals)s"),
        "replay": N_("After round %(n)s of %(count)s"),
    }

    # The offline sender's words (web/i18n.SCRIPT_TEXTS) where they name a round, said as this game counts (a hand, a
    # set): the script takes `<slug>.<key>` for the page's game before the shared one (static/js/app.js `text`).
    kept_texts: ClassVar[dict[str, Message]] = {}

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

    def counted(self, key: str, **params: Any) -> Message:
        """One of `counting_texts` with its parameters filled in, for `say` to translate (a game that words only
        some of them says the others as a round)."""
        text = self.counting_texts.get(key) or Entry.counting_texts[key]
        return Message(text.text, params, text.plural)

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

    def hand_from_form(self, form: Any, name: str, settings: dict[str, Any], hand: list[str], begun: bool) -> list[str]:
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
        """What the game's match partials draw beyond the standings: who starts the next round (a game may add the
        deck, the dealer...)."""
        return {"starter": self.rules.starter(replay)}

    def round_values(self, replay: Replay, index: int) -> dict[str, int]:
        """What each side got in round `index` (from 0) of a replayed match, as a score sheet notes it.

        The change log compares these before and after a correction. The default is the
        round's score per side from the standings' round entries, when the game records one.
        """
        return dict(replay.tally.rounds[index].get("scores", {}))
