"""The settings: read once from the environment into one typed object, and read nowhere else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.config import Settings
from tests.helpers import ADDRESS_KEY

SAME_ON_EVERY_DATABASE = "the settings read from the environment"

ROOT = Path(__file__).resolve().parents[2]


def test_an_empty_environment_gives_the_documented_defaults():
    settings = Settings.from_environ({})
    assert (settings.port, settings.https, settings.workers) == (5000, False, 2)
    assert (settings.database_url, settings.instance, settings.extra_hosts) == ("", "", ())
    assert settings.count_queries is False and settings.scheme == "http"


def test_each_variable_is_read_and_typed():
    settings = Settings.from_environ({
        "PORT": "8443", "HTTPS": "1", "WORKERS": "4", "DATABASE_URL": " postgresql://db/companion ",
        "COMPANION_INSTANCE": "/srv/companion",
        "COMPANION_HOSTS": "Scores.Club.example, ,other", "COMPANION_COUNT_QUERIES": "1",
    })  # fmt: skip
    assert settings == Settings(
        port=8443, https=True, workers=4,
        database_url="postgresql://db/companion", instance="/srv/companion",
        extra_hosts=("scores.club.example", "other"), count_queries=True,
    )  # fmt: skip
    assert settings.scheme == "https"


@pytest.mark.parametrize("value", ["", "0"])
def test_https_is_off_when_empty_or_zero(value):
    assert Settings.from_environ({"HTTPS": value}).https is False


@pytest.mark.parametrize("value", ["abc", "0", "-1", "8.5"])
def test_a_number_that_is_not_one_stops_the_start_and_names_the_variable(value):
    with pytest.raises(ValueError, match="PORT"):
        Settings.from_environ({"PORT": value})


def test_the_app_keeps_the_settings_it_was_built_with(app):
    assert isinstance(app.config["SETTINGS"], Settings)


def test_nothing_but_the_settings_reads_the_environment():
    readers = []
    for path in [*sorted((ROOT / "companion").rglob("*.py")), ROOT / "app.py", ROOT / "migrations" / "env.py"]:
        if path.name == "config.py" and path.parent.name == "companion":
            continue
        if re.search(r"\bos\.environ\b|\bgetenv\(|from os import", path.read_text()):
            readers.append(str(path.relative_to(ROOT)))
    assert readers == []


def test_the_host_link_printed_by_the_cli_uses_the_apps_scheme_and_port(tmp_path, database_url):
    from companion import create_app
    from companion.extensions import db

    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
    app = create_app(config, instance_path=str(tmp_path / "instance"), settings=Settings(port=8443, https=True))
    try:
        printed = app.test_cli_runner().invoke(args=["host-token"])
        assert printed.exit_code == 0
        assert re.search(r"https://[^/\s]+:8443/host\?token=", printed.stdout)
    finally:
        with app.app_context():
            db.engine.dispose()


def test_the_limits_count_in_memory_unless_a_shared_store_is_named():
    assert Settings.from_environ({}).limits_storage_url == "memory://"
    shared = Settings.from_environ({"LIMITS_STORAGE_URL": " redis://redis:6379/0 "})
    assert shared.limits_storage_url == "redis://redis:6379/0"


class _Asked(dict):
    """An empty environment that notes every variable asked of it."""

    def __init__(self):
        super().__init__()
        self.asked: set[str] = set()

    def get(self, name, default=None):
        self.asked.add(name)
        return super().get(name, default)


def test_every_variable_the_settings_read_is_in_the_settings_table_and_no_other():
    environ = _Asked()
    Settings.from_environ(environ)
    table = (ROOT / "docs" / "settings.md").read_text()
    documented = set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", table, re.M))
    assert environ.asked and documented == environ.asked
