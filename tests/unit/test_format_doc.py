"""The examples in docs/match-format.md are valid match files and their printed standings are right."""

from __future__ import annotations

import re

import pytest

from companion.games import REGISTRY, score_match
from tests.helpers import MATCH_FORMAT_DOC, examples

DOC = MATCH_FORMAT_DOC


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
