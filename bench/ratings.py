"""The ratings at 10,000 matches: a game's rebuild, its leaderboard, the save that ends a match, a correction."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .client import HX, Client
from .server import app_env

REBUILDS = 3
BOARD_REQUESTS = 300
ENDING_SAVES = 30
CORRECTIONS = 20

# Run by the app of the tree measured (this one or a base's), in its own process against the seeded
# database: the full rebuild timed in a transaction rolled back, then the oldest finished match of that
# game given a pencil this bench holds (its public id, and the pencil cookie's name and key as the app has
# them), with its first round's correction form as the page prefills it.
_IN_PROCESS = """
import json, sys, time
from sqlalchemy import func, select
from app import app
from companion.extensions import db
from companion.games import get_game
from companion.models import FINISHED, Match
from companion.queries.matches import hash_token
from companion.services import ratings
from companion.web import cookies
from companion.web.pencil import PENCIL_COOKIE, kept_under

repeats, token = int(sys.argv[1]), sys.argv[2]
with app.app_context():
    count = func.count(Match.id)
    game, finished = db.session.execute(select(Match.game, count).where(Match.status == FINISHED)
                                        .group_by(Match.game).order_by(count.desc()).limit(1)).one()
    seconds = []
    for _ in range(repeats):
        began = time.perf_counter()
        rated = ratings.rebuild(game)
        db.session.flush()
        seconds.append(time.perf_counter() - began)
        db.session.rollback()
    oldest = db.session.scalars(select(Match).where(Match.status == FINISHED, Match.game == game)
                                .order_by(Match.finished_at, Match.id).limit(1)).one()
    first = next(r for r in oldest.rounds if r.number == 1)
    form = get_game(game).entry.form_from_round(first.data, oldest.player_names, oldest.settings)
    reply = {"game": game, "finished": finished, "rated": rated, "seconds": seconds,
             "match": oldest.public_id, "cookie": cookies.name(PENCIL_COOKIE, app),
             "pencil_key": kept_under(oldest.uid),
             "revision": first.revision, "form": [[k, v] for k, vs in form.items() for v in vs]}
    oldest.scorekeeper_hash = hash_token(token)
    db.session.commit()
print(json.dumps(reply))
"""


def pct(values: list[float], q: float) -> float:
    """The q-quantile of some seconds, in milliseconds (nearest rank)."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def spread(seconds: list[float]) -> dict:
    """p50, p95 and worst of some timings, in ms."""
    worst = 1000 * max(seconds)
    return {"n": len(seconds), "p50_ms": pct(seconds, 0.50), "p95_ms": pct(seconds, 0.95), "max_ms": worst}


def rebuild_in_process(instance: Path, root: Path, token: str) -> dict:
    """The full rebuild of the game with the most finished matches, timed by the app itself; and the
    correction's match made ready (see _IN_PROCESS)."""
    done = subprocess.run([sys.executable, "-c", _IN_PROCESS, str(REBUILDS), token], cwd=root,
                          env=app_env(instance), check=True, capture_output=True, text=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def leaderboard(port: int, game: str) -> dict:
    """The game's leaderboard page, served: latency over a few hundred requests on one keep-alive connection."""
    client = Client(port)
    client.get(f"/players/ratings/{game}")
    replies = [client.get(f"/players/ratings/{game}") for _ in range(BOARD_REQUESTS)]
    client.close()
    return spread([r.seconds for r in replies]) | {"statuses": sorted({r.status for r in replies}),
                                                   "queries": replies[-1].queries}  # fmt: skip


def _pazaak_at_two_nil(client: Client, number: int) -> str:
    """A Pazaak match to 3 set wins (players new to the roster) whose first player has won two sets."""
    players = [f"Bench {number} A", f"Bench {number} B"]
    fields = [("game", "pazaak"), *[("seat", name) for name in players], ("sets", "3"), ("action", "start")]
    reply = client.post("/matches/new", fields)
    location = reply.headers.get("location") or reply.headers.get("hx-location") or ""
    match = location.rstrip("/").rsplit("/", 1)[-1]
    assert reply.status in (200, 302, 303) and match, f"Pazaak match not created: {reply.status} {location}"
    for set_number in (1, 2):
        assert _save_set(client, match, set_number).status == 200
    return match


def _save_set(client: Client, match: str, number: int):
    """The scorekeeper's Save of a set the first player won, as the match page's htmx form posts it."""
    headers = {**HX, "HX-Target": "entry", "X-CSRFToken": client.csrf}
    return client.post(f"/matches/{match}/rounds", [("winner", "0"), ("number", str(number))], headers=headers)


def ending_saves(port: int) -> dict:
    """The save of the set that ends a Pazaak match at 2-0: the match finishes after every match rated,
    so this save rates it on its own."""
    client = Client(port)
    client.fetch_csrf()
    seconds, statuses = [], set()
    for number in range(ENDING_SAVES):
        match = _pazaak_at_two_nil(client, number)
        reply = _save_set(client, match, 3)
        seconds.append(reply.seconds)
        statuses.add(reply.status)
    # Each match ended is rated: its players are on the game's leaderboard.
    board = client.get("/players/ratings/pazaak").text()
    client.close()
    rated = sum(f"Bench {number} A" in board for number in range(ENDING_SAVES))
    return spread(seconds) | {"statuses": sorted(statuses), "rated": rated}


def corrections(port: int, ready: dict, token: str) -> tuple[dict, dict]:
    """The oldest finished match's first round corrected (to what it was: the match stays finished), as
    the correction page posts it; its request rebuilds the game's ratings once its answer is sent, and the game's
    leaderboard is asked right after it. The corrections' figures, and those of the boards after them."""
    client = Client(port)
    client.fetch_csrf()
    client.cookies[ready["cookie"]] = f"{ready['pencil_key']}:{token}"
    path = f"/matches/{ready['match']}/rounds/1"
    revision, seconds, statuses, boards, board_statuses = ready["revision"], [], set(), [], set()
    for _ in range(CORRECTIONS):
        reply = client.post(path, [*[tuple(pair) for pair in ready["form"]], ("revision", str(revision))])
        seconds.append(reply.seconds)
        statuses.add(reply.status)
        revision += 1
        board = client.get(f"/players/ratings/{ready['game']}")
        boards.append(board.seconds)
        board_statuses.add(board.status)
    client.close()
    return spread(seconds) | {"statuses": sorted(statuses)}, spread(boards) | {"statuses": sorted(board_statuses)}


def run(instance: Path, root: Path, start_server) -> dict:
    """Every figure of the part; `start_server()` is a context manager serving the instance."""
    token = f"bench-{time.time_ns()}"
    ready = rebuild_in_process(instance, root, token)
    rebuild = {"game": ready["game"], "matches": ready["rated"], "min_s": min(ready["seconds"]),
               "median_s": statistics.median(ready["seconds"]), "runs": ready["seconds"]}  # fmt: skip
    with start_server() as server:
        board = leaderboard(server.port, ready["game"])
        ending, (correction, rebuilt) = ending_saves(server.port), corrections(server.port, ready, token)
    return {"rebuild": rebuild, "leaderboard": board, "ending_save": ending, "correction": correction,
            "board_after_correction": rebuilt}  # fmt: skip


def budgets(r: dict) -> list[tuple[str, bool, str]]:
    """The budgets of the ratings at 10,000 matches, with PASS/FAIL and the value."""
    rebuild, board = r["rebuild"], r["leaderboard"]
    out = [(f"ratings rebuild of {rebuild['game']} ({rebuild['matches']} matches) < 5 s", rebuild["median_s"] < 5,
            f"min {rebuild['min_s']:.2f} s, median {rebuild['median_s']:.2f} s"),
           ("ratings leaderboard page p95 < 50 ms", board["p95_ms"] < 50 and board["statuses"] == [200],
            f"p50 {board['p50_ms']:.1f} ms, p95 {board['p95_ms']:.1f} ms, {board['queries']} queries")]  # fmt: skip
    for key, name in (("ending_save", "save that ends a match (rated alone)"),
                      ("correction", "correction of the oldest match")):  # fmt: skip
        got = r[key]
        ok = got["p95_ms"] < 100 and set(got["statuses"]) <= {200, 204, 302, 303} and got.get("rated", 1) > 0
        out.append((f"{name} p95 < 100 ms", ok,
                    f"p50 {got['p50_ms']:.1f} ms, p95 {got['p95_ms']:.1f} ms, statuses {got['statuses']}"))  # fmt: skip
    # The correction's request rebuilds the game's ratings once answered: the leaderboard asked right after it.
    after = r.get("board_after_correction")
    if after is not None:
        out.append(("leaderboard right after a correction (rebuilt after its answer) p95 < 5 s",
                    after["p95_ms"] < 5000 and after["statuses"] == [200],
                    f"p50 {after['p50_ms']:.0f} ms, p95 {after['p95_ms']:.0f} ms"))  # fmt: skip
    return out
