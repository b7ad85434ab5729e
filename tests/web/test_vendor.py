"""The vendored front-end files: Pico left without only what no page draws."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import trim_pico  # noqa: E402

SAME_ON_EVERY_DATABASE = "the vendored front-end files"


def test_pico_leaves_out_only_what_no_page_draws(app):
    """scripts/trim_pico.py drops Pico's selectors of elements and attributes no template or script draws."""
    sources = [*ROOT.glob("templates/**/*.html"), *ROOT.glob("tests/fifth_game/templates/**/*.html"),
               *ROOT.glob("static/js/**/*.js"), *ROOT.glob("companion/**/*.py")]  # fmt: skip
    text = "\n".join(path.read_text(encoding="utf-8") for path in sources)
    drawn = []
    for token in trim_pico.UNDRAWN:
        if token.startswith("["):
            name, _, value = token.strip("[]").partition("=")
            pattern = rf'{name}="{value}"|"{name}", "{value}"' if value else rf"\b{name}\b"
            found = re.search(pattern, text)
        elif token.startswith("."):
            found = re.search(rf"\b{re.escape(token[1:])}\b", text)
        elif token.startswith(":"):
            found = re.search(r"attachShadow|<template shadowroot", text)
        else:
            found = re.search(rf'<{token}\b|createElement\("{token}"\)', text)
        if found:
            drawn.append(token)
    assert drawn == [], f"drawn now: take {drawn} out of UNDRAWN in scripts/trim_pico.py and run make vendor"
    # The vendored file is the trimmed one (make vendor ran the trim).
    pico = (Path(app.static_folder) / "vendor/pico/pico.min.css").read_text()
    assert trim_pico.trim(pico) == pico and "Licensed under MIT" in pico
