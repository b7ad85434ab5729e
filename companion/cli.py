"""Command-line tools: score, import and export match files (thin wrappers on the engine); the host link; the groups."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import segno
from flask import Flask, current_app
from flask.cli import with_appcontext
from sqlalchemy import select

from .extensions import db
from .games import REGISTRY, score_match
from .games.refusals import RuleError
from .models import OPEN_GROUP_ID, Group, within_group
from .queries.exchange import match_document
from .queries.groups import overview
from .queries.matches import all_matches, find_match
from .queries.ratings import rated
from .services import bounds, host, imports, ratings
from .services import groups as group_service
from .services.seed import seed_command
from .web.network import lan_address
from .web.row_ids import address_of


def _fail(message: str) -> None:
    """Say what is wrong on stderr, as one 'error:' line, and exit with status 1."""
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def in_group(command: Callable[..., None]) -> Callable[..., None]:
    """A command that works within one group: the open group, or the one `--group` names by its id or its
    name (`flask groups` lists them); its reads and writes see that group's players and matches alone."""

    @click.option(
        "--group", "group_ref", default=None, metavar="ID|NAME",
        help="The group to work in, by its id or name (flask groups lists them); else the open group.",
    )  # fmt: skip
    @functools.wraps(command)
    def within(*args: Any, group_ref: str | None, **kwargs: Any) -> None:
        with within_group(_group_named(group_ref)):
            command(*args, **kwargs)

    return within


def _group_named(ref: str | None) -> int:
    """The id of the group a `--group` names (the open group without one), or a clear error."""
    if ref is None:
        return OPEN_GROUP_ID
    if ref.strip().isdigit() and db.session.get(Group, int(ref)) is not None:
        return int(ref)
    found = db.session.scalars(select(Group.id).where(Group.name == ref.strip())).all()
    if len(found) > 1:
        _fail(f"{len(found)} groups are named {ref!r}: give the id of one (flask groups lists them)")
    if not found:
        _fail(f"no group {ref!r} (flask groups lists them)")
    return found[0]


def _load(path: str) -> Any:
    """Read a match file (stdin for '-') or exit with a clear error."""
    try:
        with click.open_file(path, encoding="utf-8") as handle:
            return bounds.read_json(handle.read())
    except OSError as error:
        _fail(f"cannot read {path}: {error.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        _fail(f"{path} is not valid JSON: {error}")
    except RuleError as error:
        _fail(f"{path}: {error}")


@click.command("score")
@click.argument("file")
def score_command(file: str) -> None:
    """Print the standings of a match file as JSON (FILE '-' reads stdin)."""
    document = _load(file)
    try:
        standings = score_match(document)
    except RuleError as error:
        _fail(str(error))
    click.echo(json.dumps(standings.to_json(), ensure_ascii=False))


@click.command("import")
@click.argument("file")
@with_appcontext
@in_group
def import_command(file: str) -> None:
    """Store a match file (or a JSON list of them); a match already stored is kept once."""
    document = _load(file)
    documents = document if isinstance(document, list) else [document]
    try:
        results = imports.import_matches(documents)
    except RuleError as error:
        _fail(str(error))
    for entry in results:
        state = "imported" if entry.created else "already stored"
        click.echo(f"{entry.id} /matches/{address_of('match', entry.id)} {state}")


@click.command("export")
@click.option("--match", "match_id", type=int, help="Export only this match.")
@click.option("--out", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
@with_appcontext
@in_group
def export_command(match_id: int | None, out: str | None) -> None:
    """Write one match, or all of them as a JSON list, in the match-file format."""
    if match_id is not None:
        match = find_match(match_id)
        if match is None:
            _fail(f"no match {match_id}")
        payload: Any = match_document(match)
    else:
        payload = [match_document(m) for m in all_matches()]
    text = json.dumps(payload, ensure_ascii=False, indent=2)
    with click.open_file(out or "-", "w", encoding="utf-8") as handle:
        handle.write(text + "\n")


@click.command("ratings")
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: mu, sigma and ordinal as the library computes them.")
@with_appcontext
@in_group
def ratings_command(game: str, as_json: bool) -> None:
    """Print every rated player of GAME, highest conservative rating (mu - 3 sigma) first."""
    if game not in REGISTRY:
        _fail(f"unknown game {game!r} (known games: {', '.join(REGISTRY)})")
    ratings.rebuild_stale([game])
    board = rated(game)
    if as_json:
        rows = [{"player": r.name, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal, "matches": r.matches}
                for r in board]  # fmt: skip
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    for row in board:
        mark = " (provisional)" if row.provisional else ""
        click.echo(f"{row.shown:>5}  {row.name}  {row.matches} matches{mark}")


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False))
@with_appcontext
def backup_command(file: str) -> None:
    """Write a consistent copy of the database to FILE, even while the server runs (PostgreSQL: pg_dump's format)."""
    from .server.backup import backup_to, sqlite_path
    from .server.pg_backup import dump, postgres_url

    source = sqlite_path(current_app)
    if source is not None:
        backup_to(source, Path(file))
    elif (url := postgres_url(current_app)) is not None:
        dump(url, Path(file))
    else:
        _fail("backup knows SQLite and PostgreSQL databases")
    click.echo(f"backup written to {file}")


@click.command("host-token")
@click.option("--new", "revoke", is_flag=True, help="Also take host rights from every phone that has them.")
@with_appcontext
def host_token_command(revoke: bool) -> None:
    """Print a fresh host link (the last one stops working); --new revokes every phone's host rights too."""
    settings = current_app.config["SETTINGS"]
    if settings.private_groups:
        _fail("a private server has no host link: each group's hosts run it (flask groups lists the groups)")
    token = host.new_link_token(current_app, revoke=revoke)
    url = f"{settings.scheme}://{lan_address()}:{settings.port}{host.link_path(token)}"
    if revoke:
        click.echo("Every phone's host rights are revoked.")
    click.echo(f"Host link (open it on the host's phone only): {url}")
    segno.make(url, error="m").terminal(compact=True)


@click.group("groups", invoke_without_command=True)
@click.pass_context
@with_appcontext
def groups_command(context: click.Context) -> None:
    """The server's groups: their names, phones, matches and last activity (never a score), one a line."""
    if context.invoked_subcommand is not None:
        return
    click.echo(f"{'id':>6}  {'phones':>6}  {'players':>7}  {'matches':>7}  {'last activity':<16}  name")
    for group in overview():
        active = group.last_activity.strftime("%Y-%m-%d %H:%M") if group.last_activity else "-"
        name = group.name or "(the open group)"
        click.echo(f"{group.id:>6}  {group.phones:>6}  {group.players:>7}  {group.matches:>7}  {active:<16}  {name}")


@groups_command.command("delete")
@click.argument("group_id", type=int)
@click.option("--yes", is_flag=True, help="Do not ask again.")
@with_appcontext
def delete_group_command(group_id: int, yes: bool) -> None:
    """Delete a group with its players, matches, ratings and phones."""
    group = db.session.get(Group, group_id)
    if group is None:
        _fail(f"no group {group_id}")
    if group_id == OPEN_GROUP_ID:
        _fail("the open group cannot be deleted")
    if not yes:
        click.confirm(f"Delete the group {group.name!r} with all its matches and players?", abort=True)
    group_service.delete_group(group_id)
    click.echo(f"group {group_id} deleted")


def init_app(app: Flask) -> None:
    """Register the commands on the app's `flask` CLI."""
    for command in (score_command, import_command, export_command, seed_command, backup_command,
                    host_token_command, ratings_command, groups_command):  # fmt: skip
        app.cli.add_command(command)
