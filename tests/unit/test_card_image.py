"""The result card's drawing: names the font cannot draw spelled readably, and the longest names of the
largest table laid out whole (shrunk or wrapped, never cut), on a card as tall as they need."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from companion.games import REGISTRY
from companion.games.checks import NAME_MAX
from companion.web.card_image import BAND, WIDTH, CardRow, CardText, Fonts, draw_card, drawable, lay_out, wrapped

FONTS = Path(__file__).resolve().parents[2] / "static" / "vendor" / "dejavu"


@pytest.fixture(scope="module")
def fonts() -> Fonts:
    """The vendored DejaVu faces the app draws with."""
    return Fonts(FONTS)


def card(names: list[str], winners: list[str] | None = None, members: str = "") -> CardText:
    """A card of these sides, the first winning, with a highlight naming the second."""
    winners = winners or names[:1]
    rows = tuple(CardRow(str(i + 1), name, members, str(100 - i), name in winners) for i, name in enumerate(names))
    return CardText(
        game="Topic_", date="2 Dec 2026", side_heading="Player", total_heading="Cards held", rows=rows,
        winners="Winners: " + ", ".join(winners), highlight=f"Best word: “QUARZO”, 14 points, by {names[-1]}",
        footer="Table companion", colour=(126, 34, 206),
    )  # fmt: skip


def test_a_name_in_chinese_comes_out_in_readable_latin_letters(fonts):
    assert drawable("山田", fonts.characters) == "ShanTian"
    assert drawable("山田 Anna", fonts.characters) == "ShanTian Anna"
    spelled = drawable("さくら 太郎", fonts.characters)
    assert spelled.isascii() and spelled.replace(" ", "").isalpha()


@pytest.mark.parametrize("name", ["Niccolò Ferrè", "Zoë Åsa Ørsted", "Ľubica Šťastná", "Ξένια", "Дмитрий", "N'Golo"])
def test_a_name_the_font_draws_is_kept_as_it_is(fonts, name):
    assert drawable(name, fonts.characters) == name


def test_the_fonts_draw_what_the_card_itself_writes(fonts):
    for character in "★“”’·&—":
        assert ord(character) in fonts.characters, character


def test_wrapping_keeps_every_character_and_breaks_a_word_only_when_it_is_wider_than_the_line(fonts):
    font = fonts.get(30, bold=True)
    text = "Anna Maria " + "W" * 40
    lines = wrapped(text, font, 400)
    assert len(lines) > 2
    assert all(font.getlength(line) <= 400 for line in lines)
    assert lines[0] == "Anna Maria"
    assert "".join(lines[1:]) == "W" * 40


def expect_whole(laid, text: CardText, fonts: Fonts) -> None:
    """Every text of the laid-out card holds all its words, in lines no wider than its room."""
    for lines in laid.texts():
        assert all(lines.font.getlength(line) <= lines.width for line in lines.lines), lines.lines
    for row, side in zip(laid.rows, text.rows, strict=True):
        assert "".join(row.name.lines).replace(" ", "") == drawable(side.name, fonts.characters).replace(" ", "")
    for lines, words in (
        (laid.winners, text.winners),
        (laid.highlight, text.highlight),
        (laid.subtitle, text.subtitle),
    ):
        if words is None:
            continue
        assert "".join(lines.lines).replace(" ", "") == drawable(words, fonts.characters).replace(" ", "")


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_the_longest_names_at_the_largest_table_of_each_game_fit_whole(fonts, slug):
    most = REGISTRY[slug].max_players
    # Wide letters, and words of a single long run, the hardest names to fit.
    shapes = ["W" * NAME_MAX, "Mmmmmmmmm Wwwwwwwwww Mmmmmmmmm Wwwwwwwwww"[:NAME_MAX], "山田" * (NAME_MAX // 2)]
    names = [f"{shapes[i % 3][: NAME_MAX - 1]}{i}" for i in range(most)]
    assert all(len(name) == NAME_MAX for name in names)
    text = card(names, winners=names)  # every side tied: the longest winners' line too
    laid = lay_out(text, fonts)
    expect_whole(laid, text, fonts)
    image = Image.open(io.BytesIO(draw_card(text, "light", fonts)))
    assert image.size == (WIDTH, laid.height)
    assert laid.height >= WIDTH


def test_a_card_grows_with_its_sides_and_the_pairs_players_show_under_their_pair(fonts):
    two = lay_out(card(["Anna", "Bruno"]), fonts)
    ten = lay_out(card([f"Player {n}" for n in range(10)]), fonts)
    assert two.height == WIDTH < ten.height
    pairs = lay_out(card(["Noi", "Loro"], members="Alessandra Maria Benedetta & Wolfgang Wilhelm Württemberg"), fonts)
    assert all(row.members is not None and len(row.members.lines) >= 1 for row in pairs.rows)


def test_every_name_is_drawn_at_one_size_the_longest_needs(fonts):
    # A short name kept the largest size beside long names shrunk to fit: it seemed singled out.
    laid = lay_out(card(["Anna", "Domitilla Della Gherardesca Montefeltro", "Bruno"]), fonts)
    assert len({row.name.font.size for row in laid.rows}) == 1
    assert laid.rows[0].name.font.size < lay_out(card(["Anna", "Bruno"]), fonts).rows[0].name.font.size


def test_a_title_of_forty_wide_letters_and_a_subtitle_fit_a_band_grown_for_them(fonts):
    # An evening's podium card: its name in the band, its game and turns under it, pairs of 40-character names.
    pair = " – ".join(["W" * NAME_MAX, "Mmmmmmmmm Wwwwwwwwww Mmmmmmmmm Wwwwwwwwww"[:NAME_MAX]])
    podium = card([pair, "Verdi – Neri", "Gallo – Conti"], members="M" * NAME_MAX + " · points difference +900")
    subtitle = "Burraco PAROLE · in pairs · 4 turns × 3 hands"
    text = replace(podium, game="W" * NAME_MAX, subtitle=subtitle, highlight=None)
    laid = lay_out(text, fonts)
    expect_whole(laid, text, fonts)
    assert "".join(laid.game.lines) == "W" * NAME_MAX and laid.game.height < laid.band
    assert laid.band > BAND and laid.subtitle is not None and laid.subtitle.lines == (text.subtitle,)
    image = Image.open(io.BytesIO(draw_card(text, "dark", fonts)))
    assert image.size == (WIDTH, laid.height)
    # A match's card, whose game's name fits one line, keeps the band it had.
    assert lay_out(card(["Anna", "Bruno"]), fonts).band == BAND
