"""The documentation holds together: the README is a short door, and every relative link in it and in docs/ resolves."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
# The README's wrap: a longer line (a table row, the screenshots' tags) counts as the lines it fills at this width.
WRAP = 120
# Markdown links and images, and the HTML images the README shows the screenshots with.
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|<img[^>]*\bsrc=\"([^\"]+)\"")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_anchor(h) for h in re.findall(r"^#{1,6} (.+)$", FENCE.sub("", path.read_text()), re.M)}


def _relative_links(path: Path) -> list[str]:
    found = LINK.findall(FENCE.sub("", path.read_text()))
    links = [markdown or html for markdown, html in found]
    return [link for link in links if not re.match(r"^[a-z][a-z0-9+.-]*:", link)]


def test_the_readme_is_at_most_250_lines_at_its_wrap():
    lines = README.read_text().splitlines()
    assert sum(max(1, math.ceil(len(line) / WRAP)) for line in lines) <= 250


@pytest.mark.parametrize("path", DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_points_to_a_file_and_heading_that_exist(path):
    assert path.is_file()
    broken = []
    for link in _relative_links(path):
        target, _, fragment = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        if not file.exists():
            broken.append(link)
        elif fragment and file.suffix == ".md" and fragment not in _anchors(file):
            broken.append(link)
    assert broken == []


def test_every_document_in_docs_is_reachable_from_the_readme():
    linked = {(README.parent / link.partition("#")[0]).resolve() for link in _relative_links(README)}
    assert [p.name for p in sorted((ROOT / "docs").glob("*.md")) if p.resolve() not in linked] == []
