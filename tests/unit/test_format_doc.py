"""The examples in docs/match-format.md are valid match files and their printed standings are right."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.games import REGISTRY, score_match

DOC = Path(__file__).resolve().parents[2] / "docs" / "match-format.md"
BLOCK = re.compile(r"<!-- example (\w+): (match file|score) -->\s*```json\n(.*?)```", re.DOTALL)


def examples() -> dict[str, dict[str, object]]:
    """Each game's example file and documented score output, read from the page."""
    found: dict[str, dict[str, object]] = {}
    for slug, kind, text in BLOCK.findall(DOC.read_text(encoding="utf-8")):
        found.setdefault(slug, {})[kind] = json.loads(text)
    return found


def test_every_game_has_an_example():
    assert set(examples()) == set(REGISTRY)


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_documented_score_output(slug):
    example = examples()[slug]
    assert example["match file"]["game"] == slug
    assert score_match(example["match file"]).to_json() == example["score"]
    assert example["score"]["over"] is True


def test_every_helper_the_page_names_exists():
    """A "Helpers:" line of a game's section names methods of that game's rules, and no others."""
    text = DOC.read_text(encoding="utf-8")
    sections = re.split(r"\n## ", text)
    named = 0
    for section in sections:
        slug = re.search(r"— `(\w+)`", section.splitlines()[0])
        helpers = re.search(r"- Helpers: (.*?)(?:\n- |\n\n)", section, re.DOTALL)
        if not (slug and helpers):
            continue
        for name in re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", helpers.group(1))):
            assert callable(getattr(REGISTRY[slug.group(1)], name, None)), f"{slug.group(1)}: no helper {name}"
            named += 1
    assert named
