"""The largest match file an import accepts: just under the 2 MB request cap, how many matches it stores, how fast.

    .venv/bin/python bench/largest_import.py

Builds a list of short Topic_-shaped match files (23 rounds, 4 players) that stays just under the cap, imports
it through the page as the host's phone (Flask's test client, a temporary SQLite file), then sends one byte over
the cap and prints both answers.
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import create_app  # noqa: E402
from tests.helpers import csrf_token, grant_host_rights  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cy", "Di"]
ROUNDS = 23


def match_file(index: int) -> str:
    """One finished short match of four players, as an export writes it."""
    rounds = [{"losers": [PLAYERS[number % len(PLAYERS)]]} for number in range(ROUNDS)]
    document = {"format": "companion-match/1", "id": f"m{index}", "game": "topic", "players": PLAYERS,
                "settings": {"length": "short"}, "rounds": rounds, "started": "2025-01-15T21:00:00Z"}  # fmt: skip
    return json.dumps(document)


def upload(client, body: bytes):
    """The import form posted with this file."""
    data = {"csrf_token": csrf_token(client, "/history"), "file": (io.BytesIO(body), "history.json")}
    return client.post("/history/import", data=data, content_type="multipart/form-data")


def main() -> None:
    folder = tempfile.mkdtemp()
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/import.sqlite"}, folder)
    client = grant_host_rights(app.test_client())
    cap = app.config["MAX_CONTENT_LENGTH"]
    files: list[str] = []
    size = 2
    # The multipart envelope around the file takes a few hundred bytes of the request.
    while size + len(candidate := match_file(len(files))) + 1 < cap - 2000:
        files.append(candidate)
        size += len(candidate) + 1
    body = ("[" + ",".join(files) + "]").encode()
    began = time.perf_counter()
    answer = upload(client, body)
    print(f"{len(body) / 2**20:.2f} MB, {len(files)} matches, {len(files) * ROUNDS} rounds: "
          f"{answer.status_code} in {time.perf_counter() - began:.1f} s")  # fmt: skip
    over = body + b" " * (cap + 1 - len(body))
    print(f"{len(over) / 2**20:.3f} MB: {upload(client, over).status_code}")


if __name__ == "__main__":
    main()
