"""Server-side SVG charts with pygal, inlined in pages under a strict Content-Security-Policy."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from xml.etree import ElementTree

import pygal
from markupsafe import Markup
from pygal.style import Style

from ..games import REGISTRY
from ..games.base import Standings
from ..models import Match
from ..queries.matches import running_totals
from ..queries.ratings import Shown
from .bytecache import cached_by_bytes

# Mid-tone colours that keep their contrast on a light and on a dark background.
SERIES_COLOURS = (
    "#e8590c", "#1c7ed6", "#2f9e44", "#ae3ec9", "#f59f00",
    "#0ca678", "#e64980", "#7950f2", "#868e96", "#74b816",
)  # fmt: skip
WIDTH, HEIGHT = 400, 270
# Drawn at about 1:1 on a phone, so this is close to the text size the eye gets.
FONT = 15
SVG = "{http://www.w3.org/2000/svg}"


def _y_labels(low: int, high: int, from_zero: bool = True) -> list[int]:
    """Whole-number ticks from low to high, about five of them (no 0.2 victory points); from 0 unless told."""
    if from_zero:
        low, high = min(low, 0), max(high, 1)
    else:
        high = max(high, low + 1)
    step = max(1, (high - low) / 5)
    magnitude = 10 ** math.floor(math.log10(step))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= step)
    first = math.floor(low / step) * step
    return list(range(int(first), int(high) + int(step), int(step)))


# pygal writes coordinates to 15 digits; a hundredth of a unit is far below a pixel.
NUMBER = re.compile(r"-?\d+\.\d{3,}")
# The classes the page reads (tests/e2e: `.series path.line`); pygal's others serve its
# own stylesheet and script, which are dropped.
KEPT_CLASSES = {"series", "line"}


def _short(value: str) -> str:
    """An attribute's numbers to two decimals."""
    return NUMBER.sub(lambda m: f"{float(m.group()):.2f}".rstrip("0").rstrip("."), value)


def _slim(parent: ElementTree.Element) -> None:
    """Less for the phone to parse and lay out, the same picture.

    Groups that only held a class of pygal's (each dot has one of its own, each guide
    line with its label another) give their place to what they hold; invisible
    backgrounds and groups left empty go.
    """
    for child in list(parent):
        classes = child.get("class", "").split()
        _slim(child)
        index = list(parent).index(child)
        if "background" in classes or (child.tag == f"{SVG}g" and len(child) == 0):
            parent.remove(child)
        elif child.tag == f"{SVG}g" and not child.attrib:
            parent.remove(child)
            for position, grandchild in enumerate(child):
                parent.insert(index + position, grandchild)
    for element in (parent, *parent):
        kept = [c for c in element.get("class", "").split() if c in KEPT_CLASSES]
        if kept:
            element.set("class", " ".join(kept))
        else:
            element.attrib.pop("class", None)
        for name, value in element.attrib.items():
            if name in ("d", "x", "y", "cx", "cy", "transform"):
                element.set(name, _short(value))


def _strip(svg: str, label: str) -> str:
    """pygal's SVG without what the CSP blocks, coloured by presentation attributes instead.

    Its <style> and <script> sit in <defs>, its tooltip carries a style attribute: all
    dropped. Text and axes take `currentColor`, so they follow the page's light or dark theme.
    """
    ElementTree.register_namespace("", SVG[1:-1])
    root = ElementTree.fromstring(svg)
    for parent in root.iter():
        for child in list(parent):
            classes = child.get("class", "").split()
            if child.tag in (f"{SVG}defs", f"{SVG}desc", f"{SVG}title") or "tooltip-overlay" in classes:
                parent.remove(child)
    # pygal's stylesheet anchored its labels (a y label's end at the axis, an x label's middle under its tick, a
    # title's middle); without it every label started at its point and ran over the axis.
    for group in root.iter(f"{SVG}g"):
        classes = group.get("class", "").split()
        if "axis" in classes and ("x" in classes or "y" in classes):
            for text in group.iter(f"{SVG}text"):
                text.set("text-anchor", "middle" if "x" in classes else "end")
    for element in root.iter():
        classes = element.get("class", "").split()
        element.attrib.pop("style", None)
        if element.tag == f"{SVG}text" and "title" in classes:
            element.set("text-anchor", "middle")
        if element.tag == f"{SVG}text":
            element.set("fill", "currentColor")
        if element.tag == f"{SVG}path" and "line" in classes:
            element.set("fill", "none")
            if "axis" in classes or "guide" in classes:
                element.set("stroke", "currentColor")
                element.set("stroke-opacity", "0.55" if "axis" in classes else "0.2")
            else:
                element.set("stroke-width", "3")
                element.set("stroke-linejoin", "round")
        if "background" in classes:
            element.set("fill", "none")
        if element.tag == f"{SVG}g" and "series" in classes:
            colour = next((c for c in classes if c.startswith("color-")), "color-0")
            index = int(colour.split("-")[1]) % len(SERIES_COLOURS)
            element.set("stroke", SERIES_COLOURS[index])
            element.set("fill", SERIES_COLOURS[index])
    _slim(root)
    root.attrib.pop("id", None)
    root.set("role", "img")
    root.set("aria-label", label)
    root.set("font-family", "system-ui, sans-serif")
    root.set("font-size", str(FONT))
    root.set("class", "totals-chart")
    title = ElementTree.Element(f"{SVG}title")
    title.text = label
    root.insert(0, title)
    return ElementTree.tostring(root, encoding="unicode")


def totals_chart(match: Match, standings: Standings, x_title: str, label: Callable[[int, str], str]) -> Markup:
    """Each side's running total after each round, as inline SVG that reads on a phone.

    `x_title` and `label` (the chart's name for a screen reader, given the rounds drawn and
    the final totals) come translated from the page.
    """
    history = running_totals(match)
    sides = tuple(standings.totals)
    lines = tuple(tuple(step[side] for step in history) for side in sides)
    finals = ", ".join(f"{side} {standings.totals[side]}" for side in sides)
    return Markup(_chart(sides, lines, x_title, label(len(history) - 1, finals)))


# Some 10 KB a chart (a match of a thousand rounds: 60 KB, and its key as much): 8 MB holds
# the charts of every table of a club evening.
@cached_by_bytes(8 * 1024 * 1024)
def _chart(sides: tuple[str, ...], lines: tuple[tuple[int, ...], ...], x_title: str, label: str) -> str:
    """The chart of these lines, drawn once for every phone that opens the match as it stands.

    pygal's drawing is most of a match page's time on the server and so of
    the wait before a phone can fetch anything else; the phones at a table open the same
    match. Keyed by what is drawn, so a change to the match can never show a stale chart.
    """
    values = [total for line in lines for total in line]
    x_labels = [str(number) for number in range(len(lines[0]))]
    return _line_chart(tuple(zip(sides, lines, strict=True)), x_labels, _y_labels(min(values), max(values)), x_title,
                       label)  # fmt: skip


def _line_chart(series: tuple[tuple[str, tuple[int, ...]], ...], x_labels: list[str], y_labels: list[int],
                x_title: str, label: str) -> str:  # fmt: skip
    """Lines over numbered steps as pygal draws them, stripped for the CSP and labelled for a screen reader."""
    steps = len(x_labels) - 1
    chart = pygal.Line(
        width=WIDTH,
        height=HEIGHT,
        js=[],
        css=[],
        disable_xml_declaration=True,
        no_prefix=True,
        show_legend=False,
        show_dots=steps <= 12,
        dots_size=3.5,
        margin=8,
        y_labels=y_labels,
        show_minor_x_labels=steps <= 12,
        x_labels_major_every=max(1, math.ceil(steps / 8)),
        x_title=x_title,
        truncate_label=-1,
        style=Style(background="transparent", plot_background="transparent", label_font_size=FONT,
                    major_label_font_size=FONT, title_font_size=FONT, font_family="system-ui, sans-serif"),
    )  # fmt: skip
    chart.x_labels = x_labels
    for name, line in series:
        chart.add(name, list(line))
    return _strip(chart.render(is_unicode=True), label)


def results_chart(steps: tuple[int, ...], games: Iterable[Shown], x_title: str, label: str) -> Markup:
    """A player's share of each game's matches won after its rated matches `steps` (1 is each game's
    first), a line a game, as inline SVG.

    `label` (the chart's name for a screen reader) and `x_title` come translated from the page.
    """
    series = tuple((REGISTRY[shown.game].name, shown.won_share) for shown in games)
    return Markup(_steps_chart(steps, series, x_title, label, True))


def ratings_chart(steps: tuple[int, ...], games: Iterable[Shown], x_title: str, label: str) -> Markup:
    """A player's rating of each game after its rated matches `steps` (1 is each game's first), a line a
    game, as inline SVG.

    `label` (the chart's name for a screen reader) and `x_title` come translated from the page.
    """
    series = tuple((REGISTRY[shown.game].name, shown.line) for shown in games)
    return Markup(_steps_chart(steps, series, x_title, label, False))


@cached_by_bytes(2 * 1024 * 1024)
def _steps_chart(steps: tuple[int, ...], series: tuple[tuple[str, tuple[int, ...]], ...], x_title: str,
                 label: str, percent: bool) -> str:  # fmt: skip
    """A player's chart, drawn once for every phone that opens their page as it stands: a share in percent
    from 0 to 100, a rating between its lowest and highest."""
    # A game with fewer matches stops early: pygal leaves a gap where a value is None.
    padded = tuple((name, line + (None,) * (len(steps) - len(line))) for name, line in series)
    values = [value for _, line in series for value in line]
    y_labels = [0, 25, 50, 75, 100] if percent else _y_labels(min(values), max(values), from_zero=False)
    return _line_chart(padded, [str(step) for step in steps], y_labels, x_title, label)


def series_colour(index: int) -> str:
    """The colour of the index-th side's line, for the page's legend."""
    return SERIES_COLOURS[index % len(SERIES_COLOURS)]
