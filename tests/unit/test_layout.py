"""The house's map holds: the top of `companion/` keeps what the app starts from, and every module is on the map."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "companion"
MAP = ROOT / "docs" / "ARCHITECTURE.md"
# What the whole app starts from: the factory, its extensions, the schema, the configuration and the two
# commands (the tables are the package `models/`). Anything else goes in a package the map names.
TOP = {"__init__.py", "extensions.py", "database.py", "config.py", "cli.py", "main.py"}


def test_the_top_of_the_package_keeps_only_what_the_app_starts_from():
    assert {path.name for path in PACKAGE.glob("*.py")} == TOP


def test_every_module_and_package_is_named_on_the_map():
    """A module a newcomer cannot find on docs/ARCHITECTURE.md is one the map forgot: each is named there,
    by its path or, inside a package the map describes, by its file name (a game's files once, for all)."""
    text = MAP.read_text()
    games = PACKAGE / "games"
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if path.parent != games and games in path.parents:
            continue  # a game's own files: "companion/games/<slug>/" names rules.py, entry.py, seed.py for all
        if path.name == "__init__.py":
            named = f"{relative.parent}/" in text or str(relative) in text
        else:
            named = str(relative) in text or f"`{path.name}`" in text or f"`{path.stem}`" in text
        if not named:
            missing.append(str(relative))
    assert missing == []


def test_htmx_headers_are_named_in_one_module():
    """companion/web/hx.py writes every HX- response header (and names those an answer varies on); htmx-flask's
    request.htmx reads the request's: no module sets or reads one by hand."""
    by_hand = [str(path.relative_to(ROOT)) for path in sorted(PACKAGE.rglob("*.py"))
               if path != PACKAGE / "web" / "hx.py" and re.search(r"[\"']HX-", path.read_text())]  # fmt: skip
    assert by_hand == []


# The longest a view function may be, from its `def` to its last line.
VIEW_LINES = 30


def test_every_view_is_thin():
    """A view parses the request, says who may call it, calls, and chooses the page or fragment: what a page shows
    is its presenter's (companion/pages), the plumbing web's, the writes the services'. None is over 30 lines."""
    long = []
    for path in sorted((PACKAGE / "views").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > VIEW_LINES:
                    long.append(f"views/{path.name}: {node.name} ({lines} lines)")
    assert long == []
