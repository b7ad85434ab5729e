"""The result cards (a match's, an evening's podium) drawn as PNGs with Pillow: lines already in the page's
language, laid out to fit any name."""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from anyascii import anyascii
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

# Raised whenever the drawing changes, so that a phone holding a card drawn before asks for the new one
# (it is part of the card's ETag).
DESIGN = 2

WIDTH = 1080
# A card of two players is as tall as it is wide; more players, longer names, make it taller.
MIN_HEIGHT = 1080
MARGIN = 64
# The band's height, as tall again as a title wrapped on more lines needs (an evening's name of 40 wide letters).
BAND = 168
BAND_PADDING = 24
REGULAR, BOLD = "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"
# The sizes a name may take on its line, largest first; at the smallest, a name that is still too wide wraps.
NAME_SIZES = (46, 42, 38, 34, 30)
TOTAL_SIZE = 54
STAR = "★"
GOLD = (245, 159, 0)


@dataclass(frozen=True)
class Palette:
    """The colours of one theme: the page's own background and text."""

    background: tuple[int, int, int]
    text: tuple[int, int, int]
    muted: tuple[int, int, int]
    rule: tuple[int, int, int]


# Every theme a phone may choose on the preferences page has its palette (views/home.py takes its list from here).
PALETTES = {
    "light": Palette((255, 255, 255), (24, 28, 37), (88, 96, 110), (222, 226, 232)),
    "dark": Palette((19, 23, 31), (226, 229, 235), (156, 163, 175), (52, 60, 74)),
    "black": Palette((0, 0, 0), (242, 242, 242), (165, 165, 165), (48, 48, 48)),
}


@dataclass(frozen=True)
class CardRow:
    """One side's line: its place, its name, a pair's players, its total, and whether it won."""

    place: str
    name: str
    members: str
    total: str
    won: bool


@dataclass(frozen=True)
class CardText:
    """Every word a result card draws, already in the page's language: what the drawing takes, and what a
    test reads without decoding a picture."""

    game: str
    date: str
    side_heading: str
    total_heading: str
    rows: tuple[CardRow, ...]
    winners: str
    highlight: str | None
    footer: str
    colour: tuple[int, int, int]
    # A line under the band (an evening's game and turns), where the card has one.
    subtitle: str | None = None

    def lines(self) -> list[str]:
        """The card's words, top to bottom, as plain lines."""
        rows = [" ".join(filter(None, (row.place, row.name, row.members, row.total))) for row in self.rows]
        found = [self.game, self.date, *([self.subtitle] if self.subtitle else [])]
        found += [f"{self.side_heading} {self.total_heading}", *rows, self.winners]
        return [*found, *([self.highlight] if self.highlight else []), self.footer]


@lru_cache(maxsize=4)
def _characters(path: Path) -> frozenset[int]:
    """The code points a font file draws (its cmap), read once."""
    font = TTFont(path, lazy=True)
    try:
        return frozenset(font.getBestCmap())
    finally:
        font.close()


def drawable(text: str, characters: frozenset[int]) -> str:
    """`text` with each character the font lacks spelled in Latin letters ("山田" is "ShanTian"), never a box:
    the characters it draws (accented letters, Greek, Cyrillic) are kept as they are."""
    text = unicodedata.normalize("NFC", text)
    if all(ord(character) in characters for character in text):
        return text
    # A mark with no spelling of its own (an accent the font lacks) is left off its letter.
    return "".join(
        c if ord(c) in characters or c.isspace() else anyascii(c) or ("" if unicodedata.combining(c) else "?")
        for c in text
    )


class Fonts:
    """The card's two faces at any size, from one folder, and what they can draw."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.characters = _characters(folder / REGULAR) & _characters(folder / BOLD)

    def get(self, size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
        """The face at a size (kept: loading one reads the font file)."""
        return _font(str(self.folder / (BOLD if bold else REGULAR)), size)


@lru_cache(maxsize=64)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    """A face of a font file at a size."""
    return ImageFont.truetype(path, size)


def wrapped(text: str, font: ImageFont.FreeTypeFont, width: float) -> list[str]:
    """The text in lines no wider than `width`, broken between words, and inside a word only when the word
    alone is wider: every character is kept."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if font.getlength(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        for character in word:
            if line and font.getlength(line + character) > width:
                lines.append(line)
                line = ""
            line += character
    if line or not lines:
        lines.append(line)
    return lines


def fitted(text: str, fonts: Fonts, width: float, sizes: Iterable[int], bold: bool = False) -> Lines:
    """The text at the largest of `sizes` at which it fits one line, else at the smallest, wrapped."""
    font = None
    for size in sizes:
        font = fonts.get(size, bold)
        if font.getlength(text) <= width:
            return Lines(font, (text,), width)
    assert font is not None
    return Lines(font, tuple(wrapped(text, font, width)), width)


def _line_height(font: ImageFont.FreeTypeFont) -> int:
    """The height a line of this face takes, accents and descenders included."""
    ascent, descent = font.getmetrics()
    return ascent + descent


@dataclass(frozen=True)
class Lines:
    """A text laid out: its face, and its lines, which hold all of it and none wider than `width`."""

    font: ImageFont.FreeTypeFont
    lines: tuple[str, ...]
    width: float

    @property
    def height(self) -> int:
        """The height the lines take, one under the other."""
        return len(self.lines) * _line_height(self.font)

    def draw(self, pen: ImageDraw.ImageDraw, x: float, y: float, fill: tuple[int, int, int]) -> None:
        """Each line, one under the other, from (x, y)."""
        for line in self.lines:
            pen.text((x, y), line, font=self.font, fill=fill)
            y += _line_height(self.font)


@dataclass(frozen=True)
class RowLayout:
    """A side's line laid out: its name, a pair's players under it, and the height of the whole line."""

    row: CardRow
    name: Lines
    members: Lines | None
    height: int


@dataclass(frozen=True)
class Layout:
    """The whole card measured before it is drawn: every text in its lines, and the card's height."""

    game: Lines
    date: str
    subtitle: Lines | None
    headings: tuple[str, str]
    rows: tuple[RowLayout, ...]
    winners: Lines
    highlight: Lines | None
    footer: str
    totals: tuple[str, ...]
    place_width: float
    band: int
    height: int

    def texts(self) -> list[Lines]:
        """Every text that may take more than a line (the game, the names, the winners, the highlight)."""
        found = [self.game, *([self.subtitle] if self.subtitle else []), self.winners]
        found += [self.highlight] if self.highlight else []
        for row in self.rows:
            found += [row.name, *([row.members] if row.members else [])]
        return found


def _blend(colour: tuple[int, int, int], background: tuple[int, int, int], share: float) -> tuple[int, int, int]:
    """`colour` laid over `background` at `share` opacity."""
    return tuple(round(c * share + b * (1 - share)) for c, b in zip(colour, background, strict=True))  # type: ignore[return-value]


INNER = WIDTH - 2 * MARGIN
HEADING_SIZE, PLACE_SIZE, MEMBERS_SIZE, HIGHLIGHT_SIZE, DATE_SIZE, FOOTER_SIZE = 28, 34, 28, 34, 34, 26
SUBTITLE_SIZE = 34


def lay_out(text: CardText, fonts: Fonts) -> Layout:
    """Every text of the card in its lines, in what the fonts draw: a name shrinks to fit its line, then
    wraps, and the card grows as tall as its lines need (at least square)."""

    def say(words: str) -> str:
        """One rule for every text drawn: what the font lacks, spelled in Latin letters."""
        return drawable(words, fonts.characters)

    total_font = fonts.get(TOTAL_SIZE, bold=True)
    totals = tuple(say(row.total) for row in text.rows)
    total_width = max([total_font.getlength(total) for total in totals] + [0]) + 56
    place_font = fonts.get(PLACE_SIZE)
    place_width = max([place_font.getlength(say(row.place)) for row in text.rows] + [0]) + 28
    name_width = INNER - place_width - total_width - 24
    # Every name at one size, the largest at which all fit their line (a name drawn larger than the others seemed
    # singled out); at the smallest, a name still too wide wraps.
    names = [say(row.name) for row in text.rows]
    fitting = (size for size in NAME_SIZES if all(fonts.get(size, bold=True).getlength(n) <= name_width for n in names))
    size = next(fitting, NAME_SIZES[-1])
    rows = []
    for row, shown in zip(text.rows, names, strict=True):
        name = fitted(shown, fonts, name_width, (size,), bold=True)
        members = fitted(say(row.members), fonts, name_width, (MEMBERS_SIZE,)) if row.members else None
        block = name.height + (members.height if members else 0)
        rows.append(RowLayout(row, name, members, max(block, _line_height(total_font)) + 36))
    winners = fitted(say(text.winners), fonts, INNER, (44, 38, 32), bold=True)
    highlight = fitted(say(text.highlight), fonts, INNER - 64, (HIGHLIGHT_SIZE,)) if text.highlight else None
    subtitle = fitted(say(text.subtitle), fonts, INNER, (SUBTITLE_SIZE,)) if text.subtitle else None
    footer_height = _line_height(fonts.get(FOOTER_SIZE)) + 48
    game = fitted(say(text.game), fonts, INNER * 0.62, (64, 56, 48, 40), bold=True)
    band = max(BAND, game.height + 2 * BAND_PADDING)
    natural = (band + 40 + (subtitle.height + 32 if subtitle else 0) + _line_height(fonts.get(HEADING_SIZE)) + 24
               + sum(row.height for row in rows) + 40 + winners.height + 40
               + (highlight.height + 56 if highlight else 0))  # fmt: skip
    # A card of few sides spreads its rows over some of the square rather than leave it empty below.
    spread = min(60, (MIN_HEIGHT - natural - 32 - footer_height) // (2 * len(rows))) if rows else 0
    if spread > 0:
        rows = [RowLayout(row.row, row.name, row.members, row.height + spread) for row in rows]
        natural += spread * len(rows)
    return Layout(
        game=game,
        date=say(text.date),
        subtitle=subtitle,
        headings=(say(text.side_heading), say(text.total_heading)),
        rows=tuple(rows),
        winners=winners,
        highlight=highlight,
        footer=say(text.footer),
        totals=totals,
        place_width=place_width,
        band=band,
        height=max(MIN_HEIGHT, natural + 32 + footer_height),
    )


def draw_card(text: CardText, theme: str, fonts: Fonts) -> bytes:
    """The card as PNG bytes, in the theme's palette, as `lay_out` measured it."""
    palette = PALETTES[theme]
    laid = lay_out(text, fonts)
    white = (255, 255, 255)
    image = Image.new("RGB", (WIDTH, laid.height), palette.background)
    pen = ImageDraw.Draw(image)
    # The band of the game's colour, with its name and the day it finished.
    pen.rectangle((0, 0, WIDTH, laid.band), fill=text.colour)
    laid.game.draw(pen, MARGIN, (laid.band - laid.game.height) // 2, white)
    pen.text((WIDTH - MARGIN, laid.band // 2), laid.date, font=fonts.get(DATE_SIZE), fill=white, anchor="rm")

    y = laid.band + 40
    if laid.subtitle:
        laid.subtitle.draw(pen, MARGIN, y, palette.text)
        y += laid.subtitle.height + 32
    heading_font = fonts.get(HEADING_SIZE)
    pen.text((MARGIN, y), laid.headings[0], font=heading_font, fill=palette.muted)
    pen.text((WIDTH - MARGIN, y), laid.headings[1], font=heading_font, fill=palette.muted, anchor="ra")
    y += _line_height(heading_font) + 24
    pen.line((MARGIN, y - 12, WIDTH - MARGIN, y - 12), fill=palette.rule, width=2)
    total_font, place_font = fonts.get(TOTAL_SIZE, bold=True), fonts.get(PLACE_SIZE)
    right = WIDTH - MARGIN
    for row, total in zip(laid.rows, laid.totals, strict=True):
        if row.row.won:
            tint = _blend(text.colour, palette.background, 0.16)
            pen.rounded_rectangle((MARGIN - 16, y - 6, right + 16, y + row.height - 14), radius=18, fill=tint)
        # The name (and a pair's players) centred on the line, the place beside the name's first line, the
        # total and the winner's star on the line's middle.
        middle = y + row.height // 2 - 10
        top = middle - (row.name.height + (row.members.height if row.members else 0)) // 2
        first_middle = top + _line_height(row.name.font) // 2
        pen.text((MARGIN, first_middle), drawable(row.row.place, fonts.characters), font=place_font,
                 fill=palette.muted, anchor="lm")  # fmt: skip
        row.name.draw(pen, MARGIN + laid.place_width, top, palette.text)
        if row.members:
            row.members.draw(pen, MARGIN + laid.place_width, top + row.name.height, palette.muted)
        pen.text((right, middle), total, font=total_font, fill=palette.text, anchor="rm")
        if row.row.won:
            star_x = right - total_font.getlength(total) - 14
            pen.text((star_x, middle), STAR, font=fonts.get(40, bold=True), fill=GOLD, anchor="rm")
        y += row.height
    y += 40
    laid.winners.draw(pen, MARGIN, y, palette.text)
    y += laid.winners.height + 40
    if laid.highlight:
        box = (MARGIN, y, right, y + laid.highlight.height + 40)
        tint = _blend(text.colour, palette.background, 0.08)
        pen.rounded_rectangle(box, radius=20, outline=text.colour, width=4, fill=tint)
        laid.highlight.draw(pen, MARGIN + 32, y + 20, palette.text)
    footer_font = fonts.get(FOOTER_SIZE)
    pen.text((right, laid.height - 40), laid.footer, font=footer_font, fill=palette.muted, anchor="rd")
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()
