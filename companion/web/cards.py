"""The result cards, a finished match's and an evening's podium: their words in the page's language, their PNGs
drawn once per version and kept, and their answer."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Hashable
from functools import lru_cache
from pathlib import Path

from flask import Response, abort, current_app, make_response, request
from flask_babel import get_locale, gettext

from ..models import Match
from ..models.club import ClubEvening
from .bytecache import ByteBoundedCache
from .card_image import DESIGN, PALETTES, CardText, Fonts, draw_card
from .i18n import DEFAULT_LANGUAGE
from .live import etag_of, shows_version

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


def card_language() -> str:
    """The language the card is drawn in: the page's."""
    return str(get_locale() or DEFAULT_LANGUAGE)


def card_etag(match: Match, theme: str) -> str:
    """The entity tag of a match's card: its version (every write changes it), the language, the theme and
    the drawing's design, so no phone keeps a card of another."""
    tag = etag_of(match.version, match.uid, card_language()).strip('"')
    return f'"card-{tag}-{theme}-d{DESIGN}"'


def podium_etag(evening: ClubEvening, theme: str) -> str:
    """The entity tag of an evening's podium card, as a match's card has it (a correction changes the version)."""
    tag = etag_of(evening.version, evening.public_id, card_language()).strip('"')
    return f'"podium-{tag}-{theme}-d{DESIGN}"'


def card_filename(match: Match) -> str:
    """The name the card's file takes on the phone: the game and the match."""
    return f"{match.game}-{match.public_id}.png"


def podium_filename(evening: ClubEvening) -> str:
    """The name the podium card's file takes on the phone: the game and the evening."""
    return f"{evening.game}-evening-{evening.public_id}.png"


def asked_theme() -> str:
    """The theme `?theme=` names (light when it names none); another is a 400 that says which there are."""
    theme = request.args.get("theme", "light")
    if theme not in THEMES:
        abort(400, gettext("A result card is drawn light, dark or black, not “%(value)s”.", value=theme[:20]))
    return theme


def card_answer(tag: str, filename: str, draw: Callable[[], bytes]) -> Response:
    """A card's answer: a 304 where the phone holds this version, else the PNG `draw` makes, to share or save."""
    if shows_version(tag, request.headers.get("If-None-Match")):
        response = make_response("", 304)
    else:
        response = make_response(draw())
        response.mimetype = "image/png"
        response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    response.headers["ETag"] = tag
    # A finished match (a finished evening) can still be corrected, or played again once its last round is undone:
    # the phone asks each time, and an unchanged card is a 304 without a drawing.
    response.headers["Cache-Control"] = "no-cache"
    response.vary.update(("Cookie", "Accept-Language"))
    return response


# Some 60-120 KB a card: 16 MB keeps the cards of a club evening's finished matches in both languages.
_DRAWN = ByteBoundedCache(16 * 1024 * 1024)
# One card drawn at a time in a process: the faces are shared, and FreeType's are not made to be used by two
# threads at once; a card is drawn once per version, so none waits long.
_DRAWING = threading.Lock()


@lru_cache(maxsize=2)
def _fonts(static: str) -> Fonts:
    """The vendored faces, and what they draw, read once."""
    return Fonts(Path(static, FONTS))


def card_png(match: Match, words: Callable[[], CardText], theme: str) -> bytes:
    """The card of a finished match as PNG bytes, drawn from `words` (its page's, `MatchPage.result_card`) once per
    version of the match, language and theme, then kept: the phones of a table share the same card."""
    return _drawn((match.uid, match.version), words, theme)


def podium_png(evening: ClubEvening, words: Callable[[], CardText], theme: str) -> bytes:
    """The podium card of an evening as PNG bytes, drawn from `words` once per version of the evening, language
    and theme, then kept: every phone of the hall shares the same card."""
    return _drawn(("podium", evening.public_id, evening.version), words, theme)


def _drawn(version: tuple[Hashable, ...], words: Callable[[], CardText], theme: str) -> bytes:
    """A card drawn once per version, language and theme (its words asked only then), then kept."""
    key = (*version, card_language(), theme, DESIGN)
    png = _DRAWN.get(key)
    if png is not None:
        return png
    text = words()
    with _DRAWING:
        # Another phone of the table may have had it drawn meanwhile.
        png = _DRAWN.get(key)
        if png is None:
            png = draw_card(text, theme, _fonts(current_app.static_folder or ""))
            _DRAWN.put(key, png)
    return png
