"""Pico's stylesheet without the selectors of elements and attributes the app never draws (`make vendor`).

Pico's Sass modules leave out whole components (scripts/vendor.sh); inside the modules kept, many
rules style elements the pages never have (a <textarea>, a reset button, right-to-left text). Every
page downloads Pico before it can be drawn, so `python scripts/trim_pico.py IN OUT` drops a selector
when it names one of UNDRAWN outside any parentheses, and a rule once none of its selectors is left.
A selector that names one inside :is(), :where() or :not() stays: it may still match something else.
tests/web/test_assets.py checks that no template or script draws one of UNDRAWN: put a token back
here (and run `make vendor`) before using it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

UNDRAWN = (
    # elements
    "abbr", "address", "aside", "audio", "blockquote", "canvas", "caption", "cite", "del", "footer", "h4", "h5",
    "h6", "hgroup", "hr", "iframe", "ins", "mark", "optgroup", "sub", "sup", "tfoot", "video",
    # attributes and their values
    "[aria-disabled=true]", "[aria-label=breadcrumb]", "[dir=rtl]", "[multiple]", "[role=link]", "[role=search]",
    "[type=date]", "[type=datetime-local]", "[type=email]", "[type=month]", "[type=password]",
    "[type=reset]", "[type=tel]", "[type=time]", "[type=url]", "[type=week]",
    # classes, and Pico inside a shadow root
    ".container-fluid", ":host",
)  # fmt: skip


def _pattern(token: str) -> re.Pattern[str]:
    """Where a token stands in a selector as a whole: an element name, an attribute test, a class."""
    if token.startswith(("[", ":")):
        return re.compile(re.escape(token) + (r"(?![\w-])" if token.startswith(":") else ""))
    if token.startswith("."):
        return re.compile(re.escape(token) + r"(?![\w-])")
    return re.compile(r"(?:^|(?<=[\s,>+~]))" + re.escape(token) + r"(?![\w-])")


PATTERNS = [_pattern(token) for token in UNDRAWN]


def _outside_parentheses(selector: str) -> str:
    """The selector without what its :is(), :where(), :not() and other groups hold."""
    kept, depth = [], 0
    for char in selector:
        depth += char == "("
        if depth == 0:
            kept.append(char)
        depth -= char == ")"
    return "".join(kept)


def _split(text: str) -> list[str]:
    """A selector list's selectors (commas inside parentheses or brackets do not split it)."""
    parts, depth, current = [], 0, []
    for char in text:
        depth += char in "(["
        depth -= char in ")]"
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    return [*parts, "".join(current)]


def _blocks(text: str) -> Iterator[tuple[str, str | None]]:
    """The top-level blocks of a stylesheet as (prelude, body); trailing text as (text, None)."""
    start = 0
    while (brace := text.find("{", start)) >= 0:
        depth, end = 1, brace + 1
        while depth:
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        yield text[start:brace], text[brace + 1 : end - 1]
        start = end
    if text[start:]:
        yield text[start:], None


def trim(css: str) -> str:
    """The stylesheet without the selectors that name an undrawn element, attribute or class."""
    out = []
    for prelude, body in _blocks(css):
        # The charset and the licence comment before the first rule stay, whatever happens to the rule.
        lead = re.match(r'\s*(?:@charset "[^"]*";)?\s*(?:/\*.*?\*/)?\s*', prelude, re.S).group(0)
        prelude = prelude[len(lead) :]
        out.append(lead)
        if body is None:
            out.append(prelude)
        elif prelude.startswith(("@media", "@supports")):
            inner = trim(body)
            if inner.strip():
                out.append(f"{prelude}{{{inner}}}")
        elif prelude.startswith("@"):
            out.append(f"{prelude}{{{body}}}")
        else:
            kept = [
                selector
                for selector in _split(prelude)
                if not any(pattern.search(_outside_parentheses(selector)) for pattern in PATTERNS)
            ]
            if kept:
                out.append(f"{','.join(kept)}{{{body}}}")
    return "".join(out)


def main() -> int:
    """Trim the stylesheet IN into OUT."""
    source, target = sys.argv[1:3]
    Path(target).write_text(trim(Path(source).read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
