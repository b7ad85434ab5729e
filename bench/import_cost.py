"""What an import costs: files of matches one pair of players shares, and the largest files, with saves meanwhile.

    .venv/bin/python bench/import_cost.py                 # 250, 500, 1000 shared matches, then the largest files
    .venv/bin/python bench/import_cost.py --sizes 250,500 --no-large

Each file is imported through the history page as the host's phone (Flask's test client) into a new SQLite
file, as the server keeps it. For each it prints how long the import took and the longest time one of its
transactions held SQLite's write lock (from its first write to its commit), then how long importing the same
file again took (every match already stored). The largest files are as many matches as fit under the 2 MB
request cap: one-round matches, then 23-round ones. During their import a second process, as a second
server worker would, saves a round every 50 ms through the app into a match of its own: the script prints
how many saves were answered, how many failed, and the slowest answer.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing as mp
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import event  # noqa: E402

from companion import create_app  # noqa: E402
from companion.extensions import db  # noqa: E402
from tests.helpers import csrf_token, entry_fields, grant_host_rights, start_match  # noqa: E402

PAIR = ["Ann", "Bob"]
WRITES = ("INSERT", "UPDATE", "DELETE")


def shared_match(index: int) -> dict[str, Any]:
    """One finished match of Ann and Bob: the four games in turn, scores and winners varying with the index."""
    winner, loser = (PAIR[index % 2], PAIR[1 - index % 2])
    game = ("pazzaparola", "burraco", "topic", "pazaak")[index % 4]
    if game == "pazzaparola":
        used = [1 + index % 10, 2, 3]
        rows = {winner: {"word": f"W{index}", "used": used, "unused": 5},
                loser: {"word": None, "used": [1], "unused": 7}}
        settings, rounds = {"target": 1}, [{"rows": rows}]
    elif game == "burraco":
        sides = {winner: {"table": 300 + index % 97, "hand": 0, "clean": 1}, loser: {"table": 100, "hand": 40}}
        settings, rounds = {"hands": 1}, [{"sides": sides, "closed_by": winner}]
    elif game == "topic":
        settings, rounds = {"deck": 2}, [{"losers": [loser]}]
    else:
        settings, rounds = {"sets": 1}, [{"winner": winner}]
    started = f"20{20 + index // 8760 % 10}-01-01T00:00:00Z"
    return {"format": "companion-match/1", "id": f"pair-{index}", "game": game, "players": PAIR,
            "settings": settings, "rounds": rounds, "started": started}  # fmt: skip


def small_match(index: int) -> str:
    """The shortest finished match a file may hold: one set of Pazaak, as compact JSON."""
    document = {"format": "companion-match/1", "id": f"s{index}", "game": "pazaak", "players": PAIR,
                "settings": {"sets": 1}, "rounds": [{"winner": PAIR[index % 2]}]}  # fmt: skip
    return json.dumps(document, separators=(",", ":"))


def long_match(index: int) -> str:
    """A short Topic_ deck played out by four players: 23 rounds (as bench/largest_import.py makes them)."""
    players = ["Ann", "Bob", "Cy", "Di"]
    rounds = [{"losers": [players[number % 4]]} for number in range(23)]
    document = {"format": "companion-match/1", "id": f"t{index}", "game": "topic", "players": players,
                "settings": {"length": "short"}, "rounds": rounds, "started": "2025-01-15T21:00:00Z"}  # fmt: skip
    return json.dumps(document, separators=(",", ":"))


def largest_file(cap: int, make: Callable[[int], str]) -> tuple[bytes, int]:
    """As many matches as fit under the request cap (the multipart envelope takes a few hundred bytes)."""
    parts: list[str] = []
    size = 2
    while size + len(candidate := make(len(parts))) + 1 < cap - 2000:
        parts.append(candidate)
        size += len(candidate) + 1
    return ("[" + ",".join(parts) + "]").encode(), len(parts)


class LockWatch:
    """The longest time a transaction held SQLite's write lock: from its first write statement to its commit."""

    def __init__(self, engine: Any):
        self.engine = engine
        self.since: dict[int, float] = {}
        self.held: list[float] = []
        event.listen(engine, "before_cursor_execute", self._statement)
        event.listen(engine, "commit", self._end)
        event.listen(engine, "rollback", self._end)

    def _statement(self, connection, cursor, statement, parameters, context, executemany) -> None:
        if statement.lstrip().upper().startswith(WRITES):
            self.since.setdefault(id(connection.connection.dbapi_connection), time.perf_counter())

    def _end(self, connection) -> None:
        began = self.since.pop(id(connection.connection.dbapi_connection), None)
        if began is not None:
            # The commit event comes just before the COMMIT; it is a few milliseconds in WAL mode.
            self.held.append(time.perf_counter() - began)

    @property
    def longest(self) -> float:
        return max(self.held, default=0.0)

    def close(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._statement)
        event.remove(self.engine, "commit", self._end)
        event.remove(self.engine, "rollback", self._end)


def new_app(folder: str):
    """The app on an SQLite file in `folder`; an error is answered as a 500, as the server answers it."""
    config = {"TESTING": True, "PROPAGATE_EXCEPTIONS": False, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/import.sqlite"}
    return create_app(config, folder)


def upload(client, body: bytes):
    """The import form posted with this file."""
    data = {"csrf_token": csrf_token(client, "/history"), "file": (io.BytesIO(body), "history.json")}
    return client.post("/history/import", data=data, content_type="multipart/form-data")


def timed_import(app, body: bytes) -> tuple[int, float, float]:
    """Import a file: the answer's status, the seconds it took, the longest hold of the write lock."""
    client = grant_host_rights(app.test_client())
    with app.app_context():
        watch = LockWatch(db.engine)
    began = time.perf_counter()
    try:
        status = upload(client, body).status_code
    finally:
        watch.close()
    return status, time.perf_counter() - began, watch.longest


def saver(folder: str, ready: Any, stop: Any, answers: Any) -> None:
    """A second worker's scorekeeper: saves a Topic_ round every 50 ms until told to stop; sends (status, seconds)."""
    app = new_app(folder)
    client = app.test_client()
    results: list[tuple[int, float]] = []
    while not stop.is_set():
        # Topic_ on the longest deck: 66 rounds before it ends; a new match after 60 saved.
        match_id = start_match(client, "topic", ["Cy", "Di"], length="long")
        fields = [entry_fields(app, match_id, {"losers": [name]}) for name in ("Cy", "Di")]
        ready.set()
        number = 1
        while not stop.is_set() and number <= 60:
            form = fields[number % 2].copy()
            form["number"], form["csrf_token"] = str(number), csrf_token(client, f"/matches/{match_id}")
            began = time.perf_counter()
            status = client.post(f"/matches/{match_id}/rounds", data=form, headers={"HX-Request": "true"}).status_code
            results.append((status, time.perf_counter() - began))
            number += status == 200
            stop.wait(0.05)
    answers.put(results)


def shared(sizes: list[int]) -> None:
    """The files of matches one pair shares."""
    for size in sizes:
        body = json.dumps([shared_match(index) for index in range(size)]).encode()
        folder = tempfile.mkdtemp()
        app = new_app(folder)
        status, seconds, held = timed_import(app, body)
        _, again, _ = timed_import(app, body)
        print(f"{size:>6} matches of one pair ({len(body) / 1024:.0f} KB): {status} in {seconds:6.2f} s, "
              f"write lock held at most {held:6.3f} s; again (all stored): {again:5.2f} s", flush=True)  # fmt: skip


def largest(what: str, make: Callable[[int], str]) -> None:
    """The largest file the page accepts, with a second process saving rounds meanwhile."""
    folder = tempfile.mkdtemp()
    app = new_app(folder)
    body, count = largest_file(app.config["MAX_CONTENT_LENGTH"], make)
    context = mp.get_context("spawn")
    ready, stop, answers = context.Event(), context.Event(), context.Queue()
    process = context.Process(target=saver, args=(folder, ready, stop, answers))
    process.start()
    ready.wait(120)
    outcome: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: outcome.update(result=timed_import(app, body)))
    worker.start()
    worker.join()
    stop.set()
    results = answers.get(timeout=120)
    process.join(60)
    status, seconds, held = outcome["result"]
    failed = [s for s, _ in results if s != 200]
    slowest = max((t for _, t in results), default=0.0)
    print(f"{count:>6} {what} ({len(body) / 2**20:.2f} MB): {status} in {seconds:6.1f} s, "
          f"write lock held at most {held:6.3f} s", flush=True)  # fmt: skip
    print(f"        saves meanwhile from another process: {len(results)} answered, {len(failed)} failed "
          f"{sorted(set(failed))}, slowest {slowest:.2f} s", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="250,500,1000", help="matches per shared file, comma-separated")
    parser.add_argument("--no-large", action="store_true", help="leave out the largest file")
    options = parser.parse_args()
    shared([int(size) for size in options.sizes.split(",") if size])
    if not options.no_large:
        largest("one-round matches", small_match)
        largest("23-round matches of four", long_match)


if __name__ == "__main__":
    main()
