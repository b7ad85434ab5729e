"""The `flask score`, `import` and `export` commands on match files."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.models import Match, Round
from tests.helpers import ADDRESS_KEY

ZANZARA = {
    "format": "companion-match/1",
    "game": "pazzaparola",
    "players": ["John", "Ringo", "Paul", "George"],
    "settings": {},
    "rounds": [
        {
            "theme": "animals",
            "rows": {
                "John": {"word": "ZANZARA", "used": [7, 2, 7, 2, 3], "unused": 3},
                "Ringo": {"used": [5, 5, 4], "unused": 5},
                "Paul": {"used": [4, 4, 4], "unused": 5},
                "George": {"used": [3, 3, 3, 2], "unused": 4},
            },
        }
    ],
}

TOPIC = {
    "format": "companion-match/1",
    "game": "topic",
    "players": ["Ann", "Bob", "Cy"],
    "settings": {"deck": 6},
    "rounds": [{"losers": ["Bob"]}, {"losers": ["Ann", "Cy"], "penalties": ["Cy"]}, {"losers": ["Bob"]}],
}


def write(tmp_path, document, name="match.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def test_score_prints_the_standings(runner, tmp_path):
    result = runner.invoke(args=["score", write(tmp_path, ZANZARA)])
    assert result.exit_code == 0, result.output
    standings = json.loads(result.stdout)
    assert standings["rounds"][0]["scores"] == {"John": 18, "Ringo": 9, "Paul": 7, "George": 7}
    assert standings["rounds"][0]["winners"] == ["John"]
    assert standings["totals"] == {"John": 1, "Ringo": 0, "Paul": 0, "George": 0}
    assert standings["over"] is False and standings["winners"] == []


def test_score_reads_stdin(runner):
    result = runner.invoke(args=["score", "-"], input=json.dumps(TOPIC))
    assert result.exit_code == 0, result.output
    standings = json.loads(result.stdout)
    assert standings["deck"] == 1 and standings["over"] is True
    assert standings["totals"] == {"Ann": 1, "Bob": 2, "Cy": 2}
    assert standings["winners"] == ["Ann"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(format="other/1"), ["format"]),
        (lambda d: d["rounds"][0]["rows"]["Paul"].update(unused=9), ["round 1", "Paul"]),
        (lambda d: d.update(game="chess"), ["game", "chess"]),
        (lambda d: d["settings"].update(colour="red"), ["colour"]),
    ],
)
def test_score_refuses_bad_files_with_one_error_line(runner, tmp_path, change, words):
    document = json.loads(json.dumps(ZANZARA))
    change(document)
    result = runner.invoke(args=["score", write(tmp_path, document)])
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    for word in words:
        assert word in lines[0]


def test_score_refuses_broken_json(runner, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{nope")
    result = runner.invoke(args=["score", str(path)])
    assert result.exit_code == 1 and result.stderr.startswith("error:")


def test_import_stores_once_and_round_trips(runner, app, tmp_path):
    document = dict(TOPIC, id="club-2026-0001")
    first = runner.invoke(args=["import", write(tmp_path, document)])
    assert first.exit_code == 0, first.output
    assert "/matches/" in first.stdout
    again = runner.invoke(args=["import", write(tmp_path, document)])
    assert again.exit_code == 0 and "already stored" in again.stdout
    with app.app_context():
        assert db.session.scalar(select(func.count(Match.id))) == 1
        assert db.session.scalar(select(Match)).status == "finished"

    out1 = tmp_path / "out1.json"
    assert runner.invoke(args=["export", "--out", str(out1)]).exit_code == 0
    exported = json.loads(out1.read_text())
    assert exported[0]["id"] == "club-2026-0001"
    assert exported[0]["players"] == TOPIC["players"]

    from companion import create_app
    from tests.helpers import fresh_database

    with fresh_database() as url:
        config = {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": url or f"sqlite:///{tmp_path / 'second.sqlite'}",
            "SECRET_KEY": ADDRESS_KEY,
        }
        empty = create_app(config, instance_path=str(tmp_path / "second"))
        second = empty.test_cli_runner()
        imported = second.invoke(args=["import", str(out1)])
        assert imported.exit_code == 0 and "imported" in imported.stdout
        out2 = tmp_path / "out2.json"
        assert second.invoke(args=["export", "--out", str(out2)]).exit_code == 0
        with empty.app_context():
            db.engine.dispose()
    assert json.loads(out2.read_text()) == exported


def test_import_of_a_bad_file_stores_nothing(runner, app, tmp_path):
    good = dict(TOPIC, id="good-one")
    bad = json.loads(json.dumps(ZANZARA))
    bad["rounds"][0]["rows"]["John"]["used"] = [7, 2, 7, 2, 3, 1, 1, 1, 1]
    result = runner.invoke(args=["import", write(tmp_path, [good, bad])])
    assert result.exit_code == 1
    assert "match 2" in result.stderr and "round 1" in result.stderr and "John" in result.stderr
    with app.app_context():
        assert db.session.scalar(select(func.count(Match.id))) == 0
        assert db.session.scalar(select(func.count(Round.id))) == 0


def test_export_one_match_to_stdout(runner, tmp_path):
    runner.invoke(args=["import", write(tmp_path, ZANZARA)])
    result = runner.invoke(args=["export", "--match", "1"])
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["format"] == "companion-match/1" and document["game"] == "pazzaparola"
    assert document["rounds"][0]["rows"]["John"]["word"] == "ZANZARA"
    assert runner.invoke(args=["export", "--match", "42"]).exit_code == 1
