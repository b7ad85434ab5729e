"""What pages show beyond their data and markup: how many play a game, how long a match lasted."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from itertools import pairwise

import pyphen
from flask import g, has_app_context
from flask_babel import format_timedelta, get_locale, gettext
from markupsafe import Markup, escape

from ..games import get_game
from ..games.base import Standings
from ..games.club.standings import SIDE_NAMES, SIDES
from ..games.entry import Entry
from ..games.refusals import N_
from ..models import Match, utcnow
from . import charts
from .i18n import DEFAULT_LANGUAGE, LANGUAGES, glued, translated

# The reasons a table's phone offers for calling the arbiter, stored in English and shown in the language of the page
# that reads them: an Italian phone's call reads in English on an English arbiter's phone. A reason typed is shown
# as typed.
CALL_REASONS = (N_("A question on the rules"), N_("A disagreement at the table"), N_("A card or a player is missing"),
                N_("Something else"))  # fmt: skip
_CALL_REASON_TEXTS = frozenset(reason.text for reason in CALL_REASONS)


def figures(values: Iterable[int]) -> str:
    """A table's figures, a side's after the other's ("300–−20": a minus sign, not a hyphen beside the dash)."""
    return "–".join(str(value).replace("-", "−") for value in values)


def call_words(call: str | None) -> str | None:
    """A table's call for the arbiter as this page says it (the `call_words` filter)."""
    return gettext(call) if call in _CALL_REASON_TEXTS else call


def game_players(game) -> str:
    """How many play a game, as a person would say it."""
    if game.min_players == game.max_players:
        return gettext("%(n)s players", n=game.min_players)
    return gettext("%(min)s–%(max)s players", min=game.min_players, max=game.max_players)


def match_chart(match: Match, standings: Standings, entry: Entry) -> Markup:
    """The match's running totals as a chart, in the page's language and the game's words (hands, sets)."""
    def label(rounds: int, totals: str) -> str:
        return translated(entry.counted("chart", num=rounds, totals=totals))

    return charts.totals_chart(match, standings, translated(entry.round_word), label)


def readback(match: Match, saved) -> str:
    """The line confirming a round just stored (`saved`, services' Saved): its game's words, in the page's language."""
    game = get_game(match.game)
    players = match.player_names
    settings = saved.replay.settings if saved.replay is not None else game.settings(match.settings, players)
    return game.entry.readback(saved.round.number, saved.round.data, saved.standings, players, settings, translated)


def describe_context(match: Match) -> dict:
    """What the game's offline describer knows of the match (Entry.describe_context): the entry's `data-describe`."""
    entry = get_game(match.game).entry
    players = match.player_names
    return entry.describe_context(players, entry.rules.settings(match.settings, players))


def match_duration(match: Match) -> str | None:
    """How long a match has lasted: start to finish, or to its latest round while it goes on; None under a minute."""
    end = match.finished_at or (match.rounds[-1].created_at if match.rounds else None)
    if end is None or end < match.started_at:
        return None
    minutes = round((end - match.started_at).total_seconds() / 60)
    if minutes < 1:
        # "0 min" reads as a fault: a match of its first minute has no duration worth telling yet.
        return None
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def time_since(moment: datetime) -> str:
    """How long ago a stored (naive UTC) time was, in the visitor's language: "12 minutes"."""
    return format_timedelta(utcnow() - moment, threshold=1.5)


def words(name: str) -> Markup:
    """A name as words that a line may break between but never inside; a word too long for its box
    is cut with an ellipsis by the `.word` rule (the element showing it carries the whole name as title).
    A side of the match shown that still has the name the form offered ("Us") is shown in the page's language."""
    # Formatted as plain text around each escaped word, then marked safe once: a Markup join and a Markup
    # % per word were much slower, for the dozen names of every save's answer.
    return Markup(" ".join(f'<span class="word">{escape(word)}</span>' for word in shown_name(name).split()))


def syllables(name: str) -> Markup:
    """A name as words for a column too narrow for some of them (a rounds table's header): each word whole on
    a line where it fits (the `.syllables` rule), and one longer than its column broken at its syllables with
    a hyphen (soft hyphens where pyphen's dictionaries put them: `_syllable_breaks`), else at any letter:
    never cut, so the column keeps its width (the element showing it carries the whole name as title). A
    side still named as the form offered it is shown in the page's language, as by `words`."""
    language = str(get_locale() or DEFAULT_LANGUAGE) if has_app_context() else DEFAULT_LANGUAGE
    shown = []
    for word in shown_name(name).split():
        cuts = _syllable_breaks(word, language)
        pieces = [word[start:end] for start, end in pairwise((0, *cuts, len(word)))]
        shown.append('<span class="syllables">' + "&shy;".join(str(escape(piece)) for piece in pieces) + "</span>")
    return Markup(" ".join(shown))


# The letters a line of a rounds table's narrowest column holds with a hyphen (4 rem at the header's 0.8 rem
# bold): a longer run between two breaks of the page's dictionary is broken at the other language's syllables too.
SYLLABLE_RUN = 5


@lru_cache(maxsize=2048)
def _syllable_breaks(word: str, language: str) -> tuple[int, ...]:
    """Where a word may break between its syllables: where the dictionary of the page's language breaks it, and
    inside a run longer than `SYLLABLE_RUN` it leaves, where the other language's does. A name is seldom a word
    of the page's language: the English dictionary breaks "Annamaria" only after "An" and finds no break in
    "Francesca", which a narrow column would then break at any letter ("Annamari", "a")."""
    own = [int(place) for place in _hyphenator(language).positions(word)]
    others = [int(place) for other in LANGUAGES if other != language for place in _hyphenator(other).positions(word)]
    breaks = set(own)
    for start, end in pairwise((0, *own, len(word))):
        if end - start > SYLLABLE_RUN:
            breaks.update(place for place in others if start < place < end)
    # Between letters only: a line breaks after a word's own hyphen ("Anne-Marie") without a second one.
    return tuple(sorted(place for place in breaks if word[place - 1].isalpha() and word[place].isalpha()))


@lru_cache(maxsize=len(LANGUAGES))
def _hyphenator(language: str) -> pyphen.Pyphen:
    """pyphen's hyphenation dictionary of one of the app's languages, read once."""
    return pyphen.Pyphen(lang=language)


def shown_name(name: str) -> str:
    """A name as the page shows it: a side of the match still named as the form offered it in the page's language."""
    if has_app_context() and "side_words" in g:
        return g.side_words.get(name, name)
    return name


def show_sides_in_this_language(match: Match) -> None:
    """The match's sides still named as the new-match form offered them ("Us") or as a club table names its
    pairs ("E/W") are shown, for this request, in the page's language ("Noi", "E/O"); a player of that name is
    left as named."""
    entry = get_game(match.game).entry
    if entry.default_side_names:
        sides = set(get_game(match.game).sides(match.player_names, match.settings)) - set(match.player_names)
        offered = (*entry.default_side_names, *SIDE_NAMES)
        g.side_words = {name.text: gettext(name.text) for name in offered if name.text in sides}


def side_word(side: int | str) -> str:
    """A club table's side (0 or "N/S", 1 or "E/W") in the page's language (Italian: E/O)."""
    return gettext(SIDE_NAMES[side].text if isinstance(side, int) else SIDE_NAMES[SIDES.index(side)].text)


def names(players: list[str]) -> Markup:
    """Names in a list, "Ann, Bob", each as words, each comma kept with the name before it."""
    return Markup(glued(Markup(", ").join(words(name) for name in players)))


def one_full_stop(sentence: str) -> str:
    """A sentence whose last word (a name such as "Benedetta C.") already ends in a dot, with one dot, not two."""
    return sentence[:-1] if sentence.endswith("..") and not sentence.endswith("...") else sentence
