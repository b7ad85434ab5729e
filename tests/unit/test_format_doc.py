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
