"""What one save costs the app in-process: the thread CPU time per htmx save, median of many (not in `make bench`).

    .venv/bin/python bench/save_cost.py                      # 300 saves, median and quartiles
    .venv/bin/python bench/save_cost.py --profile 20         # and cProfile's 20 dearest functions
    .venv/bin/python bench/save_cost.py --base main --turns 6  # that commit and this tree in turns

The scorekeeper's htmx POST of `bench/client.py` (a 4-player Topic_ match, rounds 1 to 30, then a new
match), sent through Flask's test client to the app as `make run` configures it (CSRF, hardening,
compression: no test settings) on a temporary SQLite file. The serving thread's CPU time moves less
than the wall clock on a machine shared with other work; with `--base` each side runs in its own
process, in turns, and the ratio of the medians is the figure to read.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADERS = {"Accept-Encoding": "br, gzip", "Accept-Language": "en", "HX-Request": "true", "HX-Target": "entry"}
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
PLAYERS = ["Anna", "Bruno", "Carla", "Dario"]
ROUNDS_PER_MATCH = 30


def _measure(tree: Path, saves: int, profile: int) -> dict:
    """Save `saves` rounds through the app of `tree`; the CPU milliseconds of each, and a profile if asked."""
    sys.path.insert(0, str(tree))
    from werkzeug.datastructures import MultiDict

    from companion import create_app
    from companion.config import Settings
    from companion.games import get_game

    folder = tempfile.mkdtemp(prefix="companion-save-cost-")
    app = create_app(settings=Settings(instance=folder))
    client = app.test_client()
    csrf = CSRF.search(client.get("/matches/new").get_data(as_text=True)).group(1)
    form_of = get_game("topic").entry.form_from_round

    def new_match() -> int:
        fields = {"csrf_token": csrf, "game": "topic", "seat": PLAYERS, "length": "medium", "action": "start"}
        reply = client.post("/matches/new", data=fields)
        return int(reply.headers["Location"].rsplit("/", 1)[1])

    def fields(number: int) -> list[tuple[str, str]]:
        form = form_of({"losers": [PLAYERS[number % len(PLAYERS)]]}, PLAYERS, {"length": "medium"})
        return [("csrf_token", csrf), *[(k, v) for k, values in form.items() for v in values], ("number", str(number))]

    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile(time.thread_time)
    times: list[float] = []
    warm_up = 30
    served = app.wsgi_app

    def timed(environ, start_response):
        """The app's own work on one request (the test client's building of it left out), to the last byte."""
        if profiler and len(times) >= warm_up:
            profiler.enable()
        began = time.thread_time()
        body = list(served(environ, start_response))
        times.append((time.thread_time() - began) * 1000)
        if profiler:
            profiler.disable()
        return body

    match_id, number = new_match(), 1
    app.wsgi_app = timed
    while len(times) < saves + warm_up:
        if number > ROUNDS_PER_MATCH:
            app.wsgi_app = served
            match_id, number = new_match(), 1
            app.wsgi_app = timed
        headers = {**HEADERS, "X-CSRFToken": csrf}
        reply = client.post(f"/matches/{match_id}/rounds", data=MultiDict(fields(number)), headers=headers)
        assert reply.status_code == 200, (reply.status_code, reply.get_data(as_text=True)[:500])
        number += 1
    result = {"ms": times[warm_up:], "bytes": len(reply.get_data())}
    if profiler:
        import io
        import pstats

        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(os.environ.get("SORT", "cumulative")).print_stats(profile)
        result["profile"] = out.getvalue()
    return result


def _describe(times: list[float]) -> str:
    """Median and quartiles of some milliseconds."""
    q1, q2, q3 = statistics.quantiles(times, n=4)
    return f"median {q2:.3f} ms (quartiles {q1:.3f}-{q3:.3f}, {len(times)} saves)"


def _in_process(tree: Path, saves: int) -> list[float]:
    """A run in a fresh process (each tree imports its own `companion`)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--tree", str(tree), "--saves", str(saves), "--json"]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)["ms"]


def main() -> None:
    """Measure this tree, or this tree and a base commit in turns."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--saves", type=int, default=300)
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print cProfile's N dearest functions")
    parser.add_argument("--base", default="", metavar="COMMIT", help="also measure that commit, in turns")
    parser.add_argument("--turns", type=int, default=4, help="with --base: runs per side")
    parser.add_argument("--tree", default=str(ROOT), help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.base:
        result = _measure(Path(args.tree), args.saves, args.profile)
        if args.json:
            print(json.dumps(result))
            return
        print(f"save: {_describe(result['ms'])}, {result['bytes']} bytes")
        if args.profile:
            print(result["profile"])
        return
    sys.path.insert(0, str(ROOT))
    from bench.server import describe, source_tree

    with tempfile.TemporaryDirectory(prefix="companion-save-base-") as folder:
        trees = {"base": source_tree(args.base, Path(folder) / "tree"), "head": ROOT}
        medians: dict[str, list[float]] = {"base": [], "head": []}
        every: dict[str, list[float]] = {"base": [], "head": []}
        for turn in range(args.turns):
            for side in ("base", "head") if turn % 2 == 0 else ("head", "base"):
                times = _in_process(trees[side], args.saves)
                medians[side].append(statistics.median(times))
                every[side].extend(times)
                print(f"turn {turn + 1} {side}: {_describe(times)}", flush=True)
    print(f"base {describe(args.base)}: {_describe(every['base'])}")
    print(f"head {describe('HEAD')}: {_describe(every['head'])}")
    ratios = [h / b for b, h in zip(medians["base"], medians["head"], strict=True)]
    print(f"head / base, turn by turn: {', '.join(f'{r:.3f}' for r in ratios)}; "
          f"of all saves: {statistics.median(every['head']) / statistics.median(every['base']):.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
