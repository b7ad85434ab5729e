"""A group's pages find its matches by an index that starts with the group: never by walking every group's."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import text

from companion.extensions import db
from tests.helpers import counted, finished_match, ref, start_match

# A statement reading one group's matches, as `models._only_the_group` writes it.
GROUP_READ = re.compile(r'FROM "match".*"match"\.group_id = \?', re.S)


def plans(app, statements: list[str]) -> list[tuple[str, list[str]]]:
    """SQLite's plan of each statement that reads one group's matches (the values do not change a plan here)."""
    found = []
    with app.app_context():
        for statement in dict.fromkeys(statements):
            if GROUP_READ.search(statement):
                rows = db.session.execute(text(f"EXPLAIN QUERY PLAN {statement}".replace("?", "NULL"))).all()
                found.append((statement, [row[-1] for row in rows]))
    return found


@pytest.mark.parametrize("page", ["home", "history", "player page"])
def test_a_groups_pages_read_its_matches_by_its_group_first(app, client, page):
    if app.config["SQLALCHEMY_DATABASE_URI"].split(":", 1)[0] != "sqlite":
        pytest.skip("the plans are SQLite's")
    match_id = finished_match(app, "topic")[0]
    start_match(client, "topic", ["Ann", "Bob", "Cy"])
    with app.app_context():
        player_id = db.session.execute(text("SELECT player_id FROM seat WHERE match_id = :m"), {"m": match_id}).scalar()
    path = {"home": "/", "history": "/history", "player page": f"/players/{ref(player_id, 'player')}"}[page]
    with counted(app) as statements:
        assert client.get(path).status_code == 200
    read = plans(app, statements)
    assert read, "no read of the group's matches"
    for statement, plan in read:
        on_match = [line for line in plan if re.match(r"(SEARCH|SCAN) match\b", line)]
        # By the group first: a small group's few matches among a server's many, in the order the page lists them.
        assert on_match and all("(group_id=?" in line for line in on_match), (statement, plan)
        assert not any("TEMP B-TREE FOR ORDER BY" in line for line in plan), (statement, plan)
