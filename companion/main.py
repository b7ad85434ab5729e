"""The `table-companion` command of an installed package: serve, migrate, backup, restore, and the app's CLI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import click
from flask import Flask
from flask.cli import FlaskGroup, ScriptInfo, pass_script_info


def package_version() -> str:
    """The installed package's version (a clone run from source has none)."""
    try:
        return version("table-companion")
    except PackageNotFoundError:
        return "source"


def _app() -> Flask:
    from . import create_app

    return create_app()


@click.group(cls=FlaskGroup, create_app=_app, add_version_option=False, load_dotenv=False)
@click.version_option(package_version(), prog_name="table-companion")
def cli() -> None:
    """The table companion. Settings come from the environment (see docs/settings.md and docs/server.md)."""


@cli.command("serve")
@pass_script_info
def serve_command(info: ScriptInfo) -> None:
    """Migrate the database (once, under a lock), then serve as `make run` does: PORT, WORKERS, LISTEN."""
    from .server.serve import serve

    serve(info.load_app())


@cli.command("migrate")
@pass_script_info
def migrate_command(info: ScriptInfo) -> None:
    """Bring the database to the newest migration and exit (`serve` does it too on start)."""
    info.load_app()
    click.echo("Database up to date.")


@cli.command("restore", with_appcontext=False)  # an empty database must stay empty: no app loaded, so no migration
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def restore_command(file: str) -> None:
    """Load a backup written by `backup` into an empty database (PostgreSQL), or into place of a missing SQLite file."""
    from . import create_app
    from .server.backup import sqlite_path
    from .server.pg_backup import postgres_url, restore

    app = create_app({"AUTO_MIGRATE": False})
    url = postgres_url(app)
    try:
        if url:
            restore(app, url, Path(file))
        else:
            target = sqlite_path(app)
            if target is None or target.exists():
                raise ValueError(f"{target} exists: restore writes a database that is not there yet")
            shutil.copyfile(file, target)
    except (ValueError, subprocess.CalledProcessError) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    click.echo(f"restored {file}")
