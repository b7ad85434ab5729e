"""Fixtures shared by the suite: an app on a temporary database, its clients, a live server (helpers.py: the rest)."""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings
from jinja2.bccache import Bucket, BytecodeCache
from werkzeug.routing import Rule

from companion import create_app
from companion.extensions import db
from tests.helpers import (
    ADDRESS_KEY,
    DEEP,
    ON_POSTGRESQL,
    PHONE,
    LiveServer,
    address_database,
    chromium_executable,
    fresh_database,
    grant_host_rights,
    join_group,
    save_round,
    start_group,
    start_match,
    store_samples,
)

# Speed is measured by the benchmark, never by tests: a loaded machine must not fail a property. A failure
# prints the decorator that replays its example (print_blob), and the run's seed is printed up front
# (`pytest_report_header`): `--hypothesis-seed=N` runs the same examples again. `make test-deep` loads
# the "deep" profile, whose properties generate DEEP times as many examples (tests/helpers.py's `generated`).
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("deep", settings.get_profile("suite"), max_examples=100 * DEEP)
settings.load_profile("suite")


# Every app a test makes compiles the templates it draws anew (about 25 a test, as much time as the test's own
# requests); a process's apps share one store of compiled templates instead. Jinja checks each template's source
# against the one compiled, so a changed template is never drawn stale.
class CompiledTemplates(BytecodeCache):
    """Jinja's compiled templates, kept in memory for every app of this test process."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        """The compiled template, if this process compiled it already."""
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        """Keep a template just compiled."""
        self.compiled[bucket.key] = bucket.bytecode_to_string()


Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": CompiledTemplates()}

# Each app compiles a URL builder for each of its rules anew as well (Python code made through `ast`: most of an
# app's start); a process's apps share them. A builder is the same code for the same rule: made from the rule's
# parts and its defaults alone, it reads the converters from the rule it is bound to at each call.
_compile_builder = Rule._compile_builder
_builders: dict[tuple, Callable] = {}


def _shared_builder(rule: Rule, append_unknown: bool = True) -> Callable:
    """The builder this process compiled for the same rule, or a new one."""
    defaults = rule.defaults or {}
    resolved = {name: rule._converters[name].to_url(value) if name in rule._converters else value
                for name, value in defaults.items()}  # fmt: skip
    key = (append_unknown, rule.rule, tuple(rule._trace), repr(sorted(resolved.items())))
    if key not in _builders:
        _builders[key] = _compile_builder(rule, append_unknown)
    return _builders[key]


Rule._compile_builder = _shared_builder

# The folders whose tests are marked `database` (pytest.ini), the PostgreSQL leg's selection: each goes through
# the app's SQL. A module of theirs whose outcome no database decides (markup, headers, languages, the rules
# through their pages) says why in `SAME_ON_EVERY_DATABASE` and runs on SQLite alone; a new module runs on both
# until it says so.
DATABASE_FOLDERS = ("web", "reliability")
TESTS = Path(__file__).parent


# The folders of the tests that take seconds to a minute each (a browser, a server under load), where the rest take
# a fraction of a second. The parallel run's workers each take a share of the collection in its order, and one
# that runs out takes the later half of another's queue (xdist's worksteal, the Makefile's PYTEST_WORKERS): with
# the long tests first in each share, the run ends on short tests, where one worker would idle through the
# other's last browser tests.
LONG_FOLDERS = ("e2e", "reliability")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of tests/web and tests/reliability `database`, but those of a module that says why no
    database answers it differently; in a parallel run, put the long tests first in each worker's share."""
    for item in items:
        parts = item.path.relative_to(TESTS).parts
        if parts[0] in DATABASE_FOLDERS and not getattr(item.module, "SAME_ON_EVERY_DATABASE", None):
            item.add_marker(pytest.mark.database)
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        longest_first = sorted(items, key=lambda item: item.path.relative_to(TESTS).parts[0] not in LONG_FOLDERS)
        workers = worker["workercount"]
        items[:] = [item for share in range(workers) for item in longest_first[share::workers]]


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """One seed for the run's generated examples, chosen here unless `--hypothesis-seed` names one (before
    Hypothesis reads the option); an xdist worker takes the controller's (`pytest_configure_node`)."""
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        config.option.hypothesis_seed = worker["hypothesis_seed"]
    elif config.getoption("hypothesis_seed") is None:
        config.option.hypothesis_seed = str(random.randrange(2**32))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """Hand each xdist worker the run's seed."""
    node.workerinput["hypothesis_seed"] = node.config.getoption("hypothesis_seed")


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The seed of this run's generated examples, to run them again, and the browser the browser tests drive."""
    return [
        f"hypothesis seed {config.getoption('hypothesis_seed')} (again: --hypothesis-seed=...)",
        f"browser tests in {chromium_executable() or 'the Chromium of python -m playwright install'}",
    ]


def _migrate(url: str, instance: Path) -> None:
    """Bring the database at `url` to the newest migration, as a first start does, and let go of it."""
    application = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": ADDRESS_KEY},
                             instance_path=str(instance))  # fmt: skip
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One database migrated to head for the whole run: a SQLite file, or a PostgreSQL database's name.

    Each test's database is a copy of it, which is what a first start's migrations leave, without
    running a dozen migrations again for each of the suite's tests (minutes on PostgreSQL).
    """
    instance = tmp_path_factory.mktemp("migrated") / "instance"
    instance.mkdir()
    if not ON_POSTGRESQL:
        path = instance / "companion.sqlite"
        _migrate(f"sqlite:///{path}", instance)
        yield str(path)
        return
    with fresh_database() as url:
        assert url is not None
        _migrate(url, instance)
        yield url.rsplit("/", 1)[1]


def suite_app(database_url: str, instance: Path, settings=None) -> Flask:
    """The app as a test has it, on a copy of `migrated_database`: at head already, so the app skips the look
    for migrations at its start (a tenth of a second an app, a thousand apps a run); `migrated_database` made
    its database by that start, and tests/reliability/test_schema.py tests it."""
    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY,
              "AUTO_MIGRATE": False}  # fmt: skip
    return create_app(config, instance_path=str(instance), settings=settings)


@pytest.fixture
def database_url(tmp_path: Path, migrated_database: str) -> Iterator[str]:
    """Where this test's data lives: a new SQLite file or PostgreSQL database, migrated to head."""
    with fresh_database(template=migrated_database) as url:
        if not url:
            instance = tmp_path / "instance"
            instance.mkdir(exist_ok=True)
            shutil.copyfile(migrated_database, instance / "companion.sqlite")
            url = f"sqlite:///{instance / 'companion.sqlite'}"
        # The test's addresses (`ref`) are read from its own database.
        address_database(url)
        try:
            yield url
        finally:
            address_database(None)


@pytest.fixture
def app(tmp_path: Path, database_url: str) -> Iterator[Flask]:
    """The app on its own database, migrated to head as on a first start and holding nothing yet."""
    application = suite_app(database_url, tmp_path / "instance")
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def private_app(tmp_path: Path, database_url: str) -> Iterator[Flask]:
    """The app as a shared server runs it (COMPANION_GROUPS=private), on its own database holding nothing yet."""
    from companion.config import Settings

    application = suite_app(database_url, tmp_path / "instance", Settings(groups="private"))
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def without_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limits per phone and per address off (companion/web/limits.py), for a test that sends one endpoint
    hundreds of generated requests as one phone to check what each answer holds, not how often it may ask."""
    from companion.extensions import limiter

    monkeypatch.setattr(limiter, "enabled", False)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of the app."""
    return app.test_client()


@pytest.fixture
def host_client(client: FlaskClient) -> FlaskClient:
    """The test client (the same object as `client`) with host rights: roster edits, imports, any delete."""
    return grant_host_rights(client)


@pytest.fixture
def samples(app: Flask) -> dict[str, int]:
    """The history's sample matches (tests/helpers.py's SAMPLES), stored: their ids by match-file id."""
    return store_samples(app)


@pytest.fixture
def runner(app: Flask):
    """A runner for the app's `flask` commands."""
    return app.test_cli_runner()


# --- Browser tests -------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict, playwright) -> dict:
    """Launch the system Chromium headless, quiet on this machine's closed network."""
    executable = chromium_executable()
    args = dict(browser_type_launch_args)
    if executable:
        args["executable_path"] = executable
    elif not os.path.exists(playwright.chromium.executable_path):
        pytest.fail(
            "No Chromium for the browser tests: install Debian's 'chromium' package, set "
            "CHROMIUM to a Chromium binary, or run 'python -m playwright install chromium'.",
            pytrace=False,
        )
    args["args"] = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
    ]
    return args


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """Every page starts as a phone: 390×844 with touch."""
    return {**browser_context_args, "viewport": PHONE, "has_touch": True, "locale": "en-GB"}


@pytest.fixture
def live_server(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """The test app served over HTTP for the browser."""
    # It listens on loopback only, so the share page's links must not name the LAN address.
    monkeypatch.setattr("companion.web.network.lan_addresses", lambda: [])
    with LiveServer(app) as server:
        yield server


@pytest.fixture(scope="module")
def module_app(tmp_path_factory: pytest.TempPathFactory, migrated_database: str) -> Iterator[Flask]:
    """One app and database for a whole browser module whose cases each start a match of their own (a page's
    layout, its contrast, its labels): the app, its database and its server are what such a case costs most.
    A module asks for it by naming `app` and `live_server` after `module_app` and `module_live_server`."""
    folder = tmp_path_factory.mktemp("module")
    with fresh_database(template=migrated_database) as url:
        if url is None:
            instance = folder / "instance"
            instance.mkdir()
            shutil.copyfile(migrated_database, instance / "companion.sqlite")
            url = f"sqlite:///{instance / 'companion.sqlite'}"
        application = suite_app(url, folder / "instance")
        # The module's addresses (`ref`) are read from its database.
        address_database(url)
        yield application
        address_database(None)
        with application.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.fixture(scope="module")
def module_live_server(module_app: Flask) -> Iterator[LiveServer]:
    """`module_app` served over HTTP for the browser, for the whole module (each case has its own browser
    context: its own cookies, so its own pencils)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("companion.web.network.lan_addresses", lambda: [])
        with LiveServer(module_app) as server:
            yield server


@pytest.fixture
def private_live_server(private_app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """A shared server (COMPANION_GROUPS=private) served over HTTP for the browser."""
    monkeypatch.setattr("companion.web.network.lan_addresses", lambda: [])
    with LiveServer(private_app) as server:
        yield server


@pytest.fixture
def two_groups(private_app):
    """Two private groups on one server, two phones each, and a stranger: each group has played a match."""
    app = private_app
    phones = {name: app.test_client() for name in ("ann", "bob", "cy", "di", "stranger")}
    friday = start_group(phones["ann"], "Gialli kitchen")
    assert join_group(phones["bob"], friday).status_code == 302
    club = start_group(phones["cy"], "Chess club")
    assert join_group(phones["di"], club).status_code == 302
    friday_match = start_match(phones["bob"], "topic", ["Annabella", "Bobbington", "Cyrillo"])
    club_match = start_match(phones["di"], "topic", ["Dorotea", "Ezechiele", "Filiberta"])
    assert save_round(phones["bob"], friday_match, {"several": "on", "losers": "Bobbington"}).status_code == 200
    assert save_round(phones["di"], club_match, {"several": "on", "losers": "Dorotea"}).status_code == 200
    return app, phones, friday_match, club_match
