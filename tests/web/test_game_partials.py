"""Every registered game, the fifth included, provides each partial of games.entry.PARTIALS, reading only its names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from jinja2 import Environment, TemplateNotFound, meta, nodes

from companion.games import REGISTRY
from companion.games.entry import PARTIALS, Partial
from tests.fifth_game import registered

SAME_ON_EVERY_DATABASE = "the partials each game draws"

SLUGS = [*sorted(REGISTRY), "fives"]


@pytest.fixture(autouse=True)
def fives_registered() -> Iterator[None]:
    """The fifth game in the registry beside the four, as a game made outside the app would be."""
    with registered():
        yield


def source(env: Environment, name: str) -> str | None:
    """A template's source, or None when there is none."""
    try:
        return env.loader.get_source(env, name)[0]
    except TemplateNotFound:
        return None


def reads(env: Environment, slug: str, name: str, given: frozenset[str]) -> set[str]:
    """The context names a game's template reads that are not in `given`, following its includes
    of the same game's templates (which see what the includer sets, as a `with` block passes it)."""
    tree = env.parse(source(env, name))
    assigned = {node.name for node in tree.find_all(nodes.Name) if node.ctx in ("store", "param")}
    assigned |= {node.name for node in tree.find_all(nodes.Macro)}
    assigned |= {node.target for node in tree.find_all(nodes.Import)}
    given = given | assigned
    missing = meta.find_undeclared_variables(tree) - given - set(env.globals)
    for include in tree.find_all(nodes.Include):
        target = include.template
        if isinstance(target, nodes.Const) and target.value.startswith(f"games/{slug}/"):
            missing |= reads(env, slug, target.value, given)
    return missing


def partials(app: Flask, slug: str) -> Iterator[tuple[Partial, str | None]]:
    """Each partial of the interface with its source in this game, None when the game has none."""
    for partial in PARTIALS:
        yield partial, source(app.jinja_env, f"games/{slug}/{partial.name}")


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_provides_every_required_partial(app, slug):
    missing = [partial.name for partial, text in partials(app, slug) if partial.required and text is None]
    assert missing == []


def test_the_fifth_game_provides_exactly_the_documented_partials():
    folder = REGISTRY["fives"].entry.template_folder
    kept = {path.name for path in Path(folder).iterdir() if path.suffix == ".html"}
    assert kept == {partial.name for partial in PARTIALS if partial.required}


@pytest.mark.parametrize("slug", SLUGS)
def test_each_partial_reads_only_what_it_receives(app, slug):
    env = app.jinja_env
    for partial, text in partials(app, slug):
        if text is None or partial.macros:
            continue
        extra = reads(env, slug, f"games/{slug}/{partial.name}", frozenset(partial.receives))
        assert not extra, f"{slug}/{partial.name} reads {sorted(extra)}, which it does not receive"


@pytest.mark.parametrize("slug", SLUGS)
def test_the_records_macros_are_those_declared(app, slug):
    declared = next(partial for partial in PARTIALS if partial.macros)
    tree = app.jinja_env.parse(source(app.jinja_env, f"games/{slug}/{declared.name}"))
    defined = {macro.name for macro in tree.find_all(nodes.Macro)}
    assert set(declared.macros) <= defined <= {*declared.macros, *declared.optional_macros}
