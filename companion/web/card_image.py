"""The result card drawn as a PNG with Pillow: lines already in the page's language, laid out to fit any name."""

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
DESIGN = 1

WIDTH = 1080
# A card of two players is as tall as it is wide; more players, longer names, make it taller.
MIN_HEIGHT = 1080
MARGIN = 64
BAND = 168
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

    def lines(self) -> list[str]:
        """The card's words, top to bottom, as plain lines."""
        rows = [" ".join(filter(None, (row.place, row.name, row.members, row.total))) for row in self.rows]
        found = [self.game, self.date, f"{self.side_heading} {self.total_heading}", *rows, self.winners]
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
    spelled = []
    for character in text:
        if ord(character) in characters or character.isspace():
            spelled.append(character)
        else:
            spelled.append(anyascii(character) or "?")
    return "".join(spelled)


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


def fitted(
    text: str, fonts: Fonts, width: float, sizes: Iterable[int], bold: bool
) -> tuple[ImageFont.FreeTypeFont, list[str]]:
    """The largest of `sizes` at which the text fits one line, else the smallest with the text wrapped."""
    font = None
    for size in sizes:
        font = fonts.get(size, bold)
        if font.getlength(text) <= width:
            return font, [text]
    assert font is not None
    return font, wrapped(text, font, width)


def _blend(colour: tuple[int, int, int], background: tuple[int, int, int], share: float) -> tuple[int, int, int]:
    """`colour` laid over `background` at `share` opacity."""
    return tuple(round(c * share + b * (1 - share)) for c, b in zip(colour, background, strict=True))  # type: ignore[return-value]


def _line_height(font: ImageFont.FreeTypeFont) -> int:
    """The height a line of this face takes, accents and descenders included."""
    ascent, descent = font.getmetrics()
    return ascent + descent


def draw_card(text: CardText, theme: str, fonts: Fonts) -> bytes:
    """The card as PNG bytes, in the theme's palette; as tall as its lines need, at least square."""
    palette = PALETTES[theme]
    inner = WIDTH - 2 * MARGIN

    def say(words: str) -> str:
        """One rule for every text drawn: what the font lacks, spelled in Latin letters."""
        return drawable(words, fonts.characters)

    # Measured first (the height follows from the lines), then drawn.
    total_font = fonts.get(TOTAL_SIZE, bold=True)
    total_width = max([total_font.getlength(say(row.total)) for row in text.rows] + [0]) + 56
    place_font = fonts.get(34)
    place_width = max(place_font.getlength(say(row.place)) for row in text.rows) + 28
    name_width = inner - place_width - total_width - 24
    member_font = fonts.get(28)
    rows = []
    for row in text.rows:
        name_font, name_lines = fitted(say(row.name), fonts, name_width, NAME_SIZES, bold=True)
        member_lines = wrapped(say(row.members), member_font, name_width) if row.members else []
        block = len(name_lines) * _line_height(name_font) + len(member_lines) * _line_height(member_font)
        rows.append((row, name_font, name_lines, member_lines, block, max(block, _line_height(total_font)) + 36))
    winners_font, winner_lines = fitted(say(text.winners), fonts, inner, (44, 38, 32), bold=True)
    highlight_font = fonts.get(34)
    highlight_lines = wrapped(say(text.highlight), highlight_font, inner - 64) if text.highlight else []
    heading_font = fonts.get(28)
    footer_font = fonts.get(26)

    heading_height = _line_height(heading_font) + 24
    winners_height = len(winner_lines) * _line_height(winners_font) + 40
    highlight_height = len(highlight_lines) * _line_height(highlight_font) + 56 if highlight_lines else 0
    footer_height = _line_height(footer_font) + 48
    natural = BAND + 40 + heading_height + sum(row[-1] for row in rows) + 40 + winners_height + highlight_height
    # A card of few sides spreads its rows over some of the square rather than leave it empty below.
    spread = min(60, (MIN_HEIGHT - natural - 32 - footer_height) // (2 * len(rows))) if rows else 0
    if spread > 0:
        rows = [(*row[:-1], row[-1] + spread) for row in rows]
    content = natural + max(spread, 0) * len(rows)
    height = max(MIN_HEIGHT, content + 32 + footer_height)

    image = Image.new("RGB", (WIDTH, height), palette.background)
    pen = ImageDraw.Draw(image)
    # The band of the game's colour, with its name and the day it finished.
    pen.rectangle((0, 0, WIDTH, BAND), fill=text.colour)
    game_font, game_lines = fitted(say(text.game), fonts, inner * 0.62, (64, 56, 48, 40), bold=True)
    date_font = fonts.get(34)
    game_top = (BAND - len(game_lines) * _line_height(game_font)) // 2
    for index, line in enumerate(game_lines):
        pen.text((MARGIN, game_top + index * _line_height(game_font)), line, font=game_font, fill=(255, 255, 255))
    pen.text((WIDTH - MARGIN, BAND // 2), say(text.date), font=date_font, fill=(255, 255, 255), anchor="rm")

    y = BAND + 40
    pen.text((MARGIN, y), say(text.side_heading), font=heading_font, fill=palette.muted)
    pen.text((WIDTH - MARGIN, y), say(text.total_heading), font=heading_font, fill=palette.muted, anchor="ra")
    y += heading_height
    pen.line((MARGIN, y - 12, WIDTH - MARGIN, y - 12), fill=palette.rule, width=2)
    for row, name_font, name_lines, member_lines, block, row_height in rows:
        if row.won:
            tint = _blend(text.colour, palette.background, 0.16)
            pen.rounded_rectangle((MARGIN - 16, y - 6, WIDTH - MARGIN + 16, y + row_height - 14), radius=18, fill=tint)
        # The name (and a pair's players) centred on the row, the place beside its first line, the total and
        # the winner's star on the row's middle.
        middle = y + row_height // 2 - 10
        line_y = middle - block // 2
        pen.text((MARGIN, line_y + _line_height(name_font) // 2), say(row.place), font=place_font,
                 fill=palette.muted, anchor="lm")  # fmt: skip
        for line in name_lines:
            pen.text((MARGIN + place_width, line_y), line, font=name_font, fill=palette.text)
            line_y += _line_height(name_font)
        for line in member_lines:
            pen.text((MARGIN + place_width, line_y), line, font=member_font, fill=palette.muted)
            line_y += _line_height(member_font)
        right = WIDTH - MARGIN
        pen.text((right, middle), say(row.total), font=total_font, fill=palette.text, anchor="rm")
        if row.won:
            star_x = right - total_font.getlength(say(row.total)) - 14
            pen.text((star_x, middle), STAR, font=fonts.get(40, bold=True), fill=GOLD, anchor="rm")
        y += row_height
    y += 40
    for line in winner_lines:
        pen.text((MARGIN, y), line, font=winners_font, fill=palette.text)
        y += _line_height(winners_font)
    y += 40
    if highlight_lines:
        box = (MARGIN, y, WIDTH - MARGIN, y + highlight_height - 16)
        tint = _blend(text.colour, palette.background, 0.08)
        pen.rounded_rectangle(box, radius=20, outline=text.colour, width=4, fill=tint)
        line_y = y + 20
        for line in highlight_lines:
            pen.text((MARGIN + 32, line_y), line, font=highlight_font, fill=palette.text)
            line_y += _line_height(highlight_font)
    pen.text((WIDTH - MARGIN, height - 40), say(text.footer), font=footer_font, fill=palette.muted, anchor="rd")
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()
