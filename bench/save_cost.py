"""What one save costs the app in-process: the thread CPU time per htmx save, median of many (not in `make bench`).

    .venv/bin/python bench/save_cost.py                      # 300 saves, median and quartiles
    .venv/bin/python bench/save_cost.py --profile 20         # and cProfile's 20 dearest functions
    .venv/bin/python bench/save_cost.py --parts               # and part by part (a row per part of a save)
    .venv/bin/python bench/save_cost.py --base main --turns 6  # that commit and this tree in turns

The scorekeeper's htmx POST of `bench/client.py` (a 4-player Topic_ match, rounds 1 to 30, then a new
match), sent through Flask's test client to the app as `make run` configures it (CSRF, hardening,
compression: no test settings) on a temporary SQLite file. The serving thread's CPU time moves less
than the wall clock on a machine shared with other work; with `--base` each side runs in its own
process, in turns, and the ratio of the medians is the figure to read.

With `--parts` a timer (thread CPU time) is put around each function named in PARTS; a part's figure is
its median over the saves, and the rows it prints are worked out from them per save (the
Flask around the view is the request less the view and the compression, for example).
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HEADERS = {"Accept-Encoding": "br, gzip", "Accept-Language": "en", "HX-Request": "true", "HX-Target": "entry"}
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
PLAYERS = ["Anna", "Bruno", "Carla", "Dario"]
ROUNDS_PER_MATCH = 30
# The functions timed with --parts: part -> (module, attribute). The view is the one the app routes to.
PARTS = {
    "read": ("companion.queries.matches", "find_match"),
    "service": ("companion.services.matches", "save_round"),
    "lock": ("companion.services.transaction", "lock"),
    "insert": ("companion.services.matches", "insert_round"),
    "rescore": ("companion.services.matches", "rescore"),
    "commit": ("sqlalchemy.orm", "Session.commit"),
    "answer": ("companion.views.matches", "_after_change"),
    "compression": ("brotli", "compress"),
}
# The rows of the table of parts it prints, each a sum of parts (signs) per save.
ROWS = {
    "Flask around the view": {"request": 1, "view": -1, "compression": -1},
    "read the match and its seats": {"read": 1},
    "the pencil check and the entry form": {"view": 1, "read": -1, "service": -1, "answer": -1},
    "the lock": {"lock": 1},
    "the round inserted": {"insert": 1},
    "rescore": {"rescore": 1},
    "the commit": {"commit": 1},
    "the rest of the service (round check)": {"service": 1, "lock": -1, "insert": -1, "rescore": -1, "commit": -1},
    "the answer (MatchPage and the fragment drawn)": {"answer": 1},
    "the compression of the answer": {"compression": 1},
    "the whole request inside the app": {"request": 1},
}


def _timed_parts(app: Any, spent: dict[str, float]) -> None:
    """Put a timer around the view and each function of PARTS, adding its thread CPU time to `spent`."""
    import functools
    import importlib

    def timer(name: str, function: Callable) -> Callable:
        # Wrapped as functools.wraps does: a view's declared access (web/access.py) is read from its attributes.
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.thread_time() - began

        return timed

    for name, (module, attribute) in PARTS.items():
        owner: Any = importlib.import_module(module)
        *path, last = attribute.split(".")
        for step in path:
            owner = getattr(owner, step)
        setattr(owner, last, timer(name, getattr(owner, last)))
    app.view_functions["matches.save_round"] = timer("view", app.view_functions["matches.save_round"])


def _measure(tree: Path, saves: int, profile: int, parts: bool = False) -> dict:
    """Save `saves` rounds through the app of `tree`; the CPU milliseconds of each (and of each part
    with `parts`), and a profile if asked."""
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

    def new_match() -> str:
        fields = {"csrf_token": csrf, "game": "topic", "seat": PLAYERS, "length": "medium", "action": "start"}
        reply = client.post("/matches/new", data=fields)
        return reply.headers["Location"].rsplit("/", 1)[1]

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
    spent: dict[str, float] = {}
    by_part: dict[str, list[float]] = {name: [] for name in [*PARTS, "view", "request"]}
    if parts:
        _timed_parts(app, spent)

    def timed(environ, start_response):
        """The app's own work on one request (the test client's building of it left out), to the last byte."""
        if profiler and len(times) >= warm_up:
            profiler.enable()
        spent.clear()
        began = time.thread_time()
        body = list(served(environ, start_response))
        spent["request"] = time.thread_time() - began
        times.append(spent["request"] * 1000)
        if profiler:
            profiler.disable()
        for name, values in by_part.items():
            values.append(spent.get(name, 0.0) * 1000)
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
    result: dict[str, Any] = {"ms": times[warm_up:], "bytes": len(reply.get_data())}
    if parts:
        result["parts"] = {name: values[warm_up:] for name, values in by_part.items()}
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


def _rows(parts: dict[str, list[float]]) -> dict[str, float]:
    """The printed rows: each row's sum of parts per save, its median over the saves."""
    count = len(parts["request"])
    return {
        row: statistics.median(sum(sign * parts[name][i] for name, sign in signs.items()) for i in range(count))
        for row, signs in ROWS.items()
    }


def _in_process(tree: Path, saves: int, parts: bool) -> dict:
    """A run in a fresh process (each tree imports its own `companion`)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--tree", str(tree), "--saves", str(saves), "--json"]
    done = subprocess.run([*command, *(["--parts"] if parts else [])], check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def main() -> None:
    """Measure this tree, or this tree and a base commit in turns."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--saves", type=int, default=300)
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print cProfile's N dearest functions")
    parser.add_argument("--parts", action="store_true", help="time each part of the save (see PARTS)")
    parser.add_argument("--base", default="", metavar="COMMIT", help="also measure that commit, in turns")
    parser.add_argument("--turns", type=int, default=4, help="with --base: runs per side")
    parser.add_argument("--tree", default=str(ROOT), help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.base:
        result = _measure(Path(args.tree), args.saves, args.profile, args.parts)
        if args.json:
            print(json.dumps(result))
            return
        print(f"save: {_describe(result['ms'])}, {result['bytes']} bytes")
        for row, ms in (_rows(result["parts"]) if args.parts else {}).items():
            print(f"  {row:52s} {ms:6.3f} ms")
        if args.profile:
            print(result["profile"])
        return
    sys.path.insert(0, str(ROOT))
    from bench.server import describe, source_tree

    sides = ("base", "head")
    with tempfile.TemporaryDirectory(prefix="companion-save-base-") as folder:
        trees = {"base": source_tree(args.base, Path(folder) / "tree"), "head": ROOT}
        medians: dict[str, list[float]] = {side: [] for side in sides}
        every: dict[str, list[float]] = {side: [] for side in sides}
        parts: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
        for turn in range(args.turns):
            for side in sides if turn % 2 == 0 else sides[::-1]:
                got = _in_process(trees[side], args.saves, args.parts)
                medians[side].append(statistics.median(got["ms"]))
                every[side].extend(got["ms"])
                for name, values in got.get("parts", {}).items():
                    parts[side].setdefault(name, []).extend(values)
                print(f"turn {turn + 1} {side}: {_describe(got['ms'])}", flush=True)
    print(f"base {describe(args.base)}: {_describe(every['base'])}")
    print(f"head {describe('HEAD')}: {_describe(every['head'])}")
    ratios = [h / b for b, h in zip(medians["base"], medians["head"], strict=True)]
    print(f"head / base, turn by turn: {', '.join(f'{r:.3f}' for r in ratios)}; "
          f"of all saves: {statistics.median(every['head']) / statistics.median(every['base']):.3f}")  # fmt: skip
    if args.parts:
        base, head = _rows(parts["base"]), _rows(parts["head"])
        print("\n| part | base ms | head ms | head / base |\n|---|---:|---:|---:|")
        for row in ROWS:
            print(f"| {row} | {base[row]:.2f} | {head[row]:.2f} | {head[row] / base[row]:.2f} |")


if __name__ == "__main__":
    main()
