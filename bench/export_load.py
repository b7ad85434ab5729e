"""Exports at once against one phone: its ping, poll and save while many CSV exports of a large history run.

    .venv/bin/python bench/export_load.py                       # this tree: 3,000 matches, 16 exports at once
    .venv/bin/python bench/export_load.py --base main           # that commit first, then this tree
    .venv/bin/python bench/export_load.py --matches 500 --exports 4

Each tree is served as `make run` serves it (`python app.py`: gunicorn, 2 processes, 8 threads each) on a
history seeded with `flask seed`. A few phones (bench/client.py, a new connection for each request) each
start a Topic_ match and measure, for a quiet stretch and then while the exports run: every 100 ms, on
time whatever the answers before, `/ping`, the match's changed live poll (200) and its unchanged one (304)
in turn; and a save every 200 ms after the answer to the one before. The exports are as many phones, each
asking for `/history/export.csv` at the same moment and reading it whole; an export the server refuses
(429 or 503) asks again after the `Retry-After` it was given (at most 5 s), until each phone has its file.
The phones' stretch under load ends when every export is done. It prints, per tree, the phones' p50, p95,
worst and answers over 1 s per request kind, quiet and under load, and the exports' times and refusals.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.client import HX, Client, create_match, save_round  # noqa: E402
from bench.server import ROOT, Server, describe, seed, source_tree  # noqa: E402

KINDS = ("ping", "poll 304", "poll 200", "save")
# How long a client waits for an answer before it counts the request as lost (seconds).
PATIENCE = 600
# Rounds saved in one match before the phone starts the next (a medium Topic_ match lasts longer).
ROUNDS = 20


@dataclass
class Timings:
    """The phone's answers by request kind, in milliseconds, and any status it did not expect."""

    ms: dict[str, list[float]] = field(default_factory=lambda: {kind: [] for kind in KINDS})
    odd: list[str] = field(default_factory=list)

    def line(self, kind: str) -> str:
        """p50, p95 and the worst of one kind."""
        values = sorted(self.ms[kind])
        if not values:
            return f"{kind:9} no answer"
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        middle, worst = statistics.median(values), values[-1]
        slow = sum(1 for value in values if value > 1000)
        return f"{kind:9} n={len(values):4}  p50 {middle:8.1f}  p95 {p95:8.1f}  worst {worst:8.1f}  over 1 s: {slow}"


def asked(port: int, path: str, headers: dict, cookies: dict[str, str]) -> tuple[int, float, str]:
    """One GET on a new connection, as a phone waking for its poll sends it: status, milliseconds, ETag."""
    client = Client(port, cookies=dict(cookies))
    client.conn.timeout = PATIENCE
    began = time.perf_counter()
    try:
        reply = client.get(path, headers=headers)
    finally:
        client.close()
    return reply.status, (time.perf_counter() - began) * 1000, reply.headers.get("etag", "")


def poller(port: int, match_id: str, cookies: dict, stop: threading.Event, timings: Timings) -> None:
    """Every 100 ms, whatever the answers before: a ping, the changed poll and the unchanged one in turn.

    Each request has a thread and a connection of its own, sent on time even while earlier ones still
    wait, as phones poll on their own clocks: a stall is counted for every request that waits through it.
    """
    etag = ['"stale"']
    kinds = [("ping", "/ping", {}), ("poll 200", f"/matches/{match_id}/live", {**HX, "If-None-Match": '"stale"'})]
    kinds.append(("poll 304", f"/matches/{match_id}/live", None))
    sent: list[threading.Thread] = []

    def one(kind: str, path: str, headers: dict | None) -> None:
        status, ms, tag = asked(
            port, path, headers if headers is not None else {**HX, "If-None-Match": etag[0]}, cookies
        )
        timings.ms[kind].append(ms)
        if kind == "poll 200" and tag:
            etag[0] = tag
        if status not in (200, 304):
            timings.odd.append(f"{kind} {status}")

    turn = 0
    while not stop.is_set():
        thread = threading.Thread(target=one, args=kinds[turn % len(kinds)])
        thread.start()
        sent.append(thread)
        turn += 1
        time.sleep(0.1)
    for thread in sent:
        thread.join()


def saver(phone: Client, stop: threading.Event, timings: Timings, match: list[int], number: list[int]) -> None:
    """The scorekeeper: a round saved every 200 ms after the answer to the last (a new connection each time).

    A match ends after some rounds under Topic_'s rules: the phone starts another before that.
    """
    while not stop.is_set():
        phone.close()
        phone.conn = http.client.HTTPConnection("127.0.0.1", phone.port, timeout=PATIENCE)
        saved = save_round(phone, match[0], number[0])
        timings.ms["save"].append(saved.seconds * 1000)
        number[0] += 1
        if saved.status != 200:
            timings.odd.append(f"save {saved.status}")
        if number[0] > ROUNDS or saved.status != 200:
            match[0], number[0] = create_match(phone), 1
        time.sleep(0.2)


@dataclass
class Export:
    """One exporting phone's outcome."""

    seconds: float = 0.0
    refused: int = 0
    size: int = 0
    status: int = 0


def exporter(port: int, start: threading.Barrier, outcome: Export) -> None:
    """One phone that opens the history, then asks for the CSV export until it has it."""
    client = Client(port)
    client.conn.timeout = PATIENCE
    client.get("/history")
    start.wait()
    began = time.perf_counter()
    while True:
        reply = client.get("/history/export.csv")
        if reply.status in (429, 503):
            outcome.refused += 1
            time.sleep(min(5.0, float(reply.headers.get("retry-after", "1") or 1)))
            continue
        outcome.status, outcome.size = reply.status, len(reply.body)
        break
    outcome.seconds = time.perf_counter() - began
    client.close()


def measure(root: Path, label: str, matches: int, exports: int, count: int, quiet: float, work: Path) -> None:
    """Seed, serve and measure one tree; print its figures."""
    instance = work / f"instance-{label}"
    print(f"\n== {label}: seeding {matches} matches ...", flush=True)
    seed(instance, matches, root)
    with Server(instance, work / f"{label}.log", root) as server:
        phones = []
        for _ in range(count):
            phone = Client(server.port)
            phone.conn.timeout = PATIENCE
            match, number = [create_match(phone)], [1]
            for _ in range(3):  # warm both processes' caches
                save_round(phone, match[0], number[0])
                number[0] += 1
            phones.append((phone, match, number))
        calm, loaded = Timings(), Timings()

        def run_phones(timings: Timings, stop: threading.Event) -> list[threading.Thread]:
            runners = []
            for phone, match, number in phones:
                runners.append(threading.Thread(target=saver, args=(phone, stop, timings, match, number)))
                polled = (server.port, match[0], phone.cookies, stop, timings)
                runners.append(threading.Thread(target=poller, args=polled))
            for runner in runners:
                runner.start()
            return runners

        stop = threading.Event()
        runners = run_phones(calm, stop)
        time.sleep(quiet)
        stop.set()
        for runner in runners:
            runner.join()

        barrier = threading.Barrier(exports + 1)
        outcomes = [Export() for _ in range(exports)]
        threads = [threading.Thread(target=exporter, args=(server.port, barrier, o)) for o in outcomes]
        for thread in threads:
            thread.start()
        stop = threading.Event()
        barrier.wait()
        began = time.perf_counter()
        runners = run_phones(loaded, stop)
        for thread in threads:
            thread.join()
        stop.set()
        for runner in runners:
            runner.join()
        took = time.perf_counter() - began
        for phone, _, _ in phones:
            phone.close()

    print(f"-- {label}: {count} phones, quiet for {quiet:.0f} s (ms)")
    for kind in KINDS:
        print("   " + calm.line(kind))
    print(f"-- {label}: {count} phones while {exports} CSV exports of {matches} matches ran ({took:.1f} s in all, ms)")
    for kind in KINDS:
        print("   " + loaded.line(kind))
    if calm.odd or loaded.odd:
        print(f"   unexpected: {sorted(set(calm.odd + loaded.odd))}")
    times = sorted(o.seconds for o in outcomes)
    print(
        f"-- {label}: exports: statuses {sorted({o.status for o in outcomes})}, "
        f"{sum(o.refused for o in outcomes)} refusals asked again, "
        f"each done after {times[0]:.1f}–{times[-1]:.1f} s (median {statistics.median(times):.1f}), "
        f"{max(o.size for o in outcomes) / 1e6:.1f} MB on the wire"
    )


def main() -> None:
    """Parse the options, measure the base tree (if any) and this one."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=3000, help="matches in the history (default 3000)")
    parser.add_argument("--exports", type=int, default=16, help="CSV exports asked at once (default 16)")
    parser.add_argument("--phones", type=int, default=2, help="phones pinging, polling and saving (default 2)")
    parser.add_argument("--quiet", type=float, default=10.0, help="seconds of the quiet stretch (default 10)")
    parser.add_argument("--base", help="a commit to measure first, beside this tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="export-load-") as folder:
        work = Path(folder)
        if args.base:
            base = source_tree(args.base, work / "base")
            measure(base, f"base {describe(args.base)}", args.matches, args.exports, args.phones, args.quiet, work)
        measure(ROOT, "head", args.matches, args.exports, args.phones, args.quiet, work)


if __name__ == "__main__":
    main()
