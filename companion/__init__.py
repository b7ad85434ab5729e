"""The table companion: a scoring web app for four physical card games."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask, request
from sqlalchemy import event
from sqlalchemy.engine import Engine
from werkzeug.routing import IntegerConverter

from .config import Settings
from .extensions import babel, compress, csrf, db, htmx, limiter, migrate
from .models import ID_MAX
from .web import cookies, hardening
from .web.i18n import DEFAULT_LANGUAGE, chosen_language
from .web.row_ids import converters as address_converters
from .web.templating import App


def _files_root() -> Path:
    """Where templates, static files, translations and migrations are: the clone's top, or inside an installed wheel."""
    clone = Path(__file__).resolve().parent.parent
    return clone if (clone / "templates").is_dir() else Path(__file__).resolve().parent / "_files"


def _default_instance(root: Path, settings: Settings) -> Path:
    """Without COMPANION_INSTANCE: the clone's instance/, or the user's data folder when installed."""
    if root.name != "_files":
        return root / "instance"
    return Path(settings.data_home or Path.home() / ".local" / "share") / "table-companion"


def _secret_key(instance: Path, shared: str = "") -> str:
    """The secret key: SECRET_KEY (shared by every server of a site), else generated once in the instance folder."""
    if shared:
        return shared
    key_file = instance / "secret_key"
    if not key_file.exists():
        # Written with mode 600 from the start under a private name, then linked into place:
        # gunicorn workers starting together on a fresh folder must end up with one key
        # (else a form signed by one worker is refused by the other), never read half a file.
        temporary = instance / f".secret_key.{os.getpid()}.{secrets.token_hex(4)}"
        with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as new:
            new.write(secrets.token_hex(32))
        try:
            os.link(temporary, key_file)
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    return key_file.read_text().strip()


class WholeNumber(IntegerConverter):
    """An `<int:…>` URL part (a round number) that fits an INTEGER column; a larger one is a 404, not an error."""

    def __init__(self, url_map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", ID_MAX)
        super().__init__(url_map, *args, **kwargs)


def _database_url(url: str, instance: Path) -> str:
    """DATABASE_URL when set (postgresql:// uses psycopg 3), else SQLite in the instance folder."""
    if not url:
        return f"sqlite:///{instance / 'companion.sqlite'}"
    if url.startswith(("postgres://", "postgresql://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL lets viewers read while the scorekeeper writes; foreign keys keep seats honest."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.close()


def create_app(
    test_config: dict[str, Any] | None = None, instance_path: str | None = None, settings: Settings | None = None
) -> Flask:
    """Build the app: configuration, extensions, blueprints, CLI and headers.

    The environment is read here, once, into `app.config["SETTINGS"]` (companion/config.py);
    the launcher, the CLI and the workers ask that object.
    """
    from .web.headers import YEAR

    settings = settings or Settings.from_environ()
    root = _files_root()
    app = App(
        __name__,
        instance_path=instance_path or settings.instance or str(_default_instance(root, settings)),
        instance_relative_config=True,
        template_folder=str(root / "templates"),
        static_folder=str(root / "static"),
    )
    app.url_map.converters["int"] = WholeNumber
    instance = Path(app.instance_path)
    instance.mkdir(parents=True, exist_ok=True)
    database_url = _database_url(settings.database_url, instance)
    app.config.from_mapping(
        SETTINGS=settings,
        SECRET_KEY=_secret_key(instance, settings.secret_key),
        SQLALCHEMY_DATABASE_URI=database_url,
        # A pre-ping finds a dropped PostgreSQL connection; an SQLite file never drops one,
        # and the ping would be a second statement on every request.
        SQLALCHEMY_ENGINE_OPTIONS={"pool_pre_ping": not database_url.startswith("sqlite")},
        WTF_CSRF_TIME_LIMIT=None,
        WTF_CSRF_SSL_STRICT=False,
        BABEL_DEFAULT_LOCALE=DEFAULT_LANGUAGE,
        BABEL_TRANSLATION_DIRECTORIES=str(root / "translations"),
        COMPRESS_MIMETYPES=[
            "text/html",
            "text/css",
            "application/javascript",
            "text/javascript",
            "application/json",
            "image/svg+xml",
            "application/manifest+json",
        ],
        COMPRESS_ALGORITHM=["br", "gzip"],
        # Brotli 5 rather than Flask-Compress's 4: fewer bytes of a page, which a slow line
        # must bring in before the page's bundles can be asked for, for a little more time
        # per page. An htmx fragment has a faster level of its own (web/fragments.py).
        COMPRESS_BR_LEVEL=5,
        COMPRESS_MIN_SIZE=300,
        SEND_FILE_MAX_AGE_DEFAULT=YEAR,
        AUTO_MIGRATE=True,
        RATELIMIT_STORAGE_URI=settings.limits_storage_url,
        RATELIMIT_KEY_PREFIX="companion",
        # A store that cannot be reached (Redis restarting) neither refuses nor breaks a request:
        # each process counts in its memory meanwhile, and uses the store again once it answers.
        RATELIMIT_IN_MEMORY_FALLBACK_ENABLED=True,
        RATELIMIT_SWALLOW_ERRORS=True,
        **hardening.config(settings),
    )
    if test_config:
        app.config.update(test_config)
    # A row in an address (`<match:match_id>`) is its random public id, never its id (web/row_ids.py); the
    # secret key reads only the old addresses of the rows from before.
    app.url_map.converters.update(address_converters(app.config["SECRET_KEY"]))

    db.init_app(app)
    migrate.init_app(app, db, directory=str(root / "migrations"), render_as_batch=True)
    hardening.init_app(app)  # before the CSRF check: a refused request is not read further
    limiter.init_app(app)
    csrf.init_app(app)
    htmx.init_app(app)
    compress.init_app(app)
    babel.init_app(app, locale_selector=_pick_locale)

    from . import web
    from .web import game_templates

    # After Flask-Compress: their after-request hooks run in the reverse order, and the
    # static files' own compression must come first (companion/web/assets.py).
    web.init_app(app)
    app.jinja_loader = game_templates.loader(app.jinja_loader)

    from .views import club, groups, hall, history, home, host, live, matches, pencil, players, seats

    for views in (home, matches, live, pencil, seats, history, players, host, groups, club, hall):
        app.register_blueprint(views.bp)

    from . import cli

    cli.init_app(app)

    from .web import access, deploy

    deploy.init_app(app)
    access.check_declared(app)

    if app.config["AUTO_MIGRATE"]:
        from .database import upgrade_database

        upgrade_database(app)
    return app


def _pick_locale() -> str | None:
    """The language the visitor chose with the switch, else the browser's preference."""
    return chosen_language(cookies.get("lang"), request.headers.get("Accept-Language"))
