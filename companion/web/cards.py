"""A finished match's result card: its words in the page's language, its PNG drawn once per version and kept."""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path

from flask import current_app
from flask_babel import get_locale

from ..games.refusals import N_, Np_
from ..models import Match
from ..queries.cards import ResultCard, result_card
from .bytecache import ByteBoundedCache
from .card_image import DESIGN, PALETTES, CardRow, CardText, Fonts, draw_card
from .i18n import DEFAULT_LANGUAGE, day, translated
from .live import etag_of

# The themes a card is drawn in: those of the preferences page.
THEMES = tuple(PALETTES)
FONTS = "vendor/dejavu"
# A card's colour when its game names none (a game defined outside the app): the page's own ink.
NEUTRAL = (71, 85, 105)
GAME_COLOUR = re.compile(r"--game-[a-z0-9_-]+:\s*#([0-9a-fA-F]{6})\b")


@lru_cache(maxsize=32)
def game_colour(static: str, slug: str) -> tuple[int, int, int]:
    """The game's colour as its stylesheet sets it (`--game-<slug>` in css/games/<slug>.colour.css), the one
    place the pages take it from too."""
    path = Path(static, "css", "games", f"{slug}.colour.css")
    found = GAME_COLOUR.search(path.read_text(encoding="utf-8")) if path.is_file() else None
    if found is None:
        return NEUTRAL
    value = found.group(1)
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def card_text(card: ResultCard) -> CardText:
    """Every word of the card in the page's language: what `draw_card` draws, line by line."""
    paired = any(side.members for side in card.sides)
    winners = card.winners
    return CardText(
        game=card.game_name,
        date=day(card.finished_at),
        side_heading=translated(N_("Team") if paired else N_("Player")),
        total_heading=translated(card.total_word),
        rows=tuple(
            CardRow(str(side.place), side.name, " & ".join(side.members), str(side.total), side.won)
            for side in card.sides
        ),
        winners=translated(Np_("Winner: %(names)s", "Winners: %(names)s", num=len(winners), names=", ".join(winners))),
        highlight=translated(card.highlight) if card.highlight is not None else None,
        footer=translated(N_("Table companion")),
        colour=game_colour(current_app.static_folder or "", card.game),
    )


def card_language() -> str:
    """The language the card is drawn in: the page's."""
    return str(get_locale() or DEFAULT_LANGUAGE)


def card_etag(match: Match, theme: str) -> str:
    """The entity tag of a match's card: its version (every write changes it), the language, the theme and
    the drawing's design, so no phone keeps a card of another."""
    tag = etag_of(match.version, match.uid, card_language()).strip('"')
    return f'"card-{tag}-{theme}-d{DESIGN}"'


def card_filename(match: Match) -> str:
    """The name the card's file takes on the phone: the game and the match."""
    return f"{match.game}-{match.public_id}.png"


# Some 60-120 KB a card: 16 MB keeps the cards of a club evening's finished matches in both languages.
_DRAWN = ByteBoundedCache(16 * 1024 * 1024)
# One card drawn at a time in a process: the faces are shared, and FreeType's are not made to be used by two
# threads at once; a card is drawn once per version, so none waits long.
_DRAWING = threading.Lock()


@lru_cache(maxsize=2)
def _fonts(static: str) -> Fonts:
    """The vendored faces, and what they draw, read once."""
    return Fonts(Path(static, FONTS))


def card_png(match: Match, theme: str) -> bytes:
    """The card of a finished match as PNG bytes, drawn once per version of the match, language and theme,
    then kept: the phones of a table share the same card. A match not finished has none (ValueError)."""
    key = (match.uid, match.version, card_language(), theme, DESIGN)
    png = _DRAWN.get(key)
    if png is not None:
        return png
    card = result_card(match)
    if card is None:
        raise ValueError(f"match {match.id} is not finished: it has no result card")
    text = card_text(card)
    with _DRAWING:
        # Another phone of the table may have had it drawn meanwhile.
        png = _DRAWN.get(key)
        if png is None:
            png = draw_card(text, theme, _fonts(current_app.static_folder or ""))
            _DRAWN.put(key, png)
    return png
