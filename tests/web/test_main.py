"""The installed `table-companion` command: its version, and a backup restored into a database that was not there."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from companion.main import cli

MATCH = {"format": "companion-match/1", "id": "m1", "game": "topic", "players": ["Ann", "Bob"],
         "settings": {}, "rounds": [{"losers": ["Ann"]}], "started": "2025-01-15T21:00:00Z"}  # fmt: skip


@pytest.fixture
def run(monkeypatch, tmp_path):
    """`table-companion ARGS` on an SQLite instance folder of its own; its output and exit code."""
    monkeypatch.delenv("DATABASE_URL", raising=False)

    def invoke(instance: str, *args: str):
        monkeypatch.setenv("COMPANION_INSTANCE", str(tmp_path / instance))
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    return invoke


def test_the_command_says_its_version(run):
    result = run("a", "--version")
    assert result.exit_code == 0 and result.output.startswith("table-companion, version ")


def test_a_backup_restored_where_there_was_no_database_gives_the_same_export(run, tmp_path):
    match_file = tmp_path / "match.json"
    match_file.write_text(json.dumps(MATCH))
    assert run("first", "import", str(match_file)).exit_code == 0
    assert run("first", "backup", str(tmp_path / "copy.sqlite")).exit_code == 0
    restored = run("second", "restore", str(tmp_path / "copy.sqlite"))
    assert restored.exit_code == 0, restored.output
    before = run("first", "export").output
    after = run("second", "export").output
    assert json.loads(after) == json.loads(before) and len(json.loads(after)) == 1


def test_restore_refuses_to_overwrite_a_database(run, tmp_path):
    assert run("first", "migrate").exit_code == 0
    assert run("first", "backup", str(tmp_path / "copy.sqlite")).exit_code == 0
    refused = run("first", "restore", str(tmp_path / "copy.sqlite"))
    assert refused.exit_code == 1 and "exists" in refused.output
