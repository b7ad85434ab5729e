"""`make bench`: what a table feels, measured against budgets, on this machine.

Starts the app as `make run` serves it (`python app.py`: gunicorn) on a free port with a
temporary instance folder filled by `flask seed`, drives it over loopback from separate
processes, prints the figures with PASS/FAIL per budget, writes bench/results.json and
exits non-zero when a budget fails. Every latency is also given as a multiple of the
floor: `/ping` on the same server, a fixed short page through the whole stack.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import functools
import json
import multiprocessing as mp
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import club, groups, hall, micro, ratings, slow  # noqa: E402
from bench.client import HX, Client, create_match, pencil_cookie, save_round  # noqa: E402
from bench.server import Server, describe, dirty, seed, source_tree  # noqa: E402

RESULTS = ROOT / "bench" / "results.json"
KB = 1024
STEPS = [10, 25, 50, 100, 150, 200, 300, 400, 600]


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of some values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def summary(samples: list[tuple], seconds: float | None = None) -> dict:
    """Latency percentiles in ms, bytes, queries and statuses of (seconds, bytes, queries, status) samples."""
    times = [s[0] * 1000 for s in samples]
    queries = sorted({s[2] for s in samples if s[2] is not None})
    return {
        "n": len(samples),
        "p50_ms": pct(times, 50),
        "p95_ms": pct(times, 95),
        "p99_ms": pct(times, 99),
        "bytes": round(sum(s[1] for s in samples) / max(1, len(samples))),
        "max_bytes": max((s[1] for s in samples), default=0),
        "queries": queries[0] if len(queries) == 1 else queries,
        "statuses": sorted({s[3] for s in samples}),
        **({"rps": len(samples) / seconds} if seconds else {}),
    }


def say(text: str) -> None:
    """Progress on the terminal."""
    print(text, flush=True)


# --- the parts of the run --------------------------------------------------------------


DEMO_ROUNDS = 12


def demo_match(port: int, rounds: int = DEMO_ROUNDS) -> tuple[str, tuple[str, str], str]:
    """A Topic_ match part-way through, as viewers follow it; its address text, pencil cookie (name and value)
    and session cookie."""
    client = Client(port)
    match_id = create_match(client)
    for number in range(1, rounds + 1):
        assert save_round(client, match_id, number).status == 200
    client.close()
    return match_id, pencil_cookie(client), client.cookies.get("session", "")


def seats_served(port: int, match_id: str) -> bool:
    """Whether this server has seats for the players' phones (its match's seat link answers)."""
    client = Client(port)
    served = client.get(f"/matches/{match_id}/seat").status == 200
    client.close()
    return served


REQUEST_KINDS = ("ping", "poll_unchanged", "poll_changed", "save", "send_row", "viewer_after_row", "viewer_after_save")
# A seated phone's row, and what the phones that follow the match pay for one (as for a round saved).
ROW_KINDS = ("send_row", "viewer_after_row", "viewer_after_save")


def request_kinds(servers: dict[str, Server], match_ids: dict[str, str], kinds: tuple[str, ...], seconds: float,
                  turns: int = 3) -> dict[str, dict]:  # fmt: skip
    """Save, poll (changed and unchanged) and the floor: latency alone, then throughput with 2 phones.

    The latency of each kind is measured in `turns` slices taken in turns across the kinds and
    across the servers compared (by side), as the history pages are: this machine's
    speed drifts by some 20 % from one minute to the next, and measured in one block, a slow
    minute fell on one kind, or on one side, alone.
    """
    serial: dict[str, dict[str, list]] = {side: {kind: [] for kind in kinds} for side in servers}
    cpu: dict[str, dict[str, list]] = {side: {kind: [] for kind in kinds} for side in servers}
    for _ in range(turns):
        for kind in kinds:
            for side, server in servers.items():
                got = micro.run(server.port, kind, match_ids[side], seconds / turns, 1, server.process.pid)
                serial[side][kind] += got.samples
                cpu[side][kind].append(got.cpu_ms)
    out: dict[str, dict] = {side: {} for side in servers}
    for kind in kinds:
        for side, server in servers.items():
            loaded = micro.run(server.port, kind, match_ids[side], seconds, processes=2)
            got = summary(serial[side][kind]) | {
                "rps": len(loaded.samples) / loaded.seconds,
                "p50_loaded_ms": summary(loaded.samples)["p50_ms"],
                "server_cpu_ms": sorted(cpu[side][kind])[len(cpu[side][kind]) // 2],
            }
            out[side][kind] = got
            say(f"  {side:4} {kind:15} p50 {got['p50_ms']:6.2f} ms  p95 {got['p95_ms']:6.2f} ms  "
                f"{got['rps']:6.0f} req/s  server CPU {got['server_cpu_ms']:.2f} ms per request")  # fmt: skip
    return out


def fragments(port: int, match_id: str, pencil: tuple[str, str]) -> dict:
    """The compressed size of each htmx fragment the pages swap in."""
    keeper = Client(port)
    keeper.cookies[pencil[0]] = pencil[1]
    keeper.fetch_csrf()
    viewer = Client(port)
    viewer.fetch_csrf()
    stale = {**HX, "If-None-Match": '"stale"'}
    found = {}

    def take(name: str, reply) -> None:
        assert reply.status == 200 and "<html" not in reply.text()[:200].lower(), (name, reply.status)
        found[name] = {"bytes": len(reply.body), "encoding": reply.headers.get("content-encoding", "identity"),
                       "queries": reply.queries}  # fmt: skip

    take("save a round (row, standings, banner)", save_round(keeper, match_id, DEMO_ROUNDS + 1))
    take("undo", keeper.post(f"/matches/{match_id}/undo", [], headers={**HX, "X-CSRFToken": keeper.csrf}))
    take("redo", keeper.post(f"/matches/{match_id}/redo", [], headers={**HX, "X-CSRFToken": keeper.csrf}))
    take("live poll, changed", viewer.get(f"/matches/{match_id}/live", headers=stale))
    take("table view poll, changed", viewer.get(f"/matches/{match_id}/live?view=table", headers=stale))
    take("history filter", viewer.get("/history?game=topic", headers={**HX, "HX-Target": "history-results"}))
    take("new-match form tap", viewer.post("/matches/new", [("game", "topic"), ("action", "game:burraco")], headers=HX))
    keeper.close()
    viewer.close()
    return found


# A match's or a player's address in a page's links: a row id (a base from before the address texts) or its
# text (eight or more letters and digits: never a page's own name, such as /players/ratings).
ADDRESS = r'href="/{kind}/(\d+|[0-9A-Za-z]{{8,}})"'


def card_timing(port: int, matches: int = 8, repeats: int = 40) -> dict:
    """The result card of finished matches: drawn cold (each match and theme asked for the first time), then
    kept (the same card again, on the same connection and so the same worker process). Empty on a tree
    without cards (a base from before them)."""
    client = Client(port)
    listed = re.findall(ADDRESS.format(kind="matches"), client.get("/history").text())
    cold: list[tuple] = []
    found: list[str] = []
    for match_id in dict.fromkeys(listed):
        replies = [client.get(f"/matches/{match_id}/card.png?theme={theme}") for theme in ("light", "dark")]
        if any(reply.status != 200 for reply in replies):
            continue
        cold += [(reply.seconds, len(reply.body), None, reply.status) for reply in replies]
        found.append(match_id)
        if len(found) >= matches:
            break
    if not found:
        client.close()
        return {}
    path = f"/matches/{found[0]}/card.png?theme=light"
    kept = [client.get(path) for _ in range(repeats)]
    client.close()
    return {
        "cold": summary(cold) | {"max_ms": max(sample[0] for sample in cold) * 1000},
        "kept": summary([(reply.seconds, len(reply.body), None, reply.status) for reply in kept]),
    }


def history_paths(port: int) -> dict[str, str]:
    """The history page, a filtered one and a player's page of one server's database.

    The filter is by game, which fills a page of 20 matches at 100 matches as at 10,000:
    filtered by a player as well, the page held 7 matches at 100 and 20 at 10,000, and the
    ratio measured the 13 more rows drawn rather than the larger database.
    """
    client = Client(port)
    player = re.search(ADDRESS.format(kind="players"), client.get("/players").text()).group(1)
    client.close()
    return {
        "history": "/history",
        "history filtered": "/history?game=topic",
        "player page": f"/players/{player}",
    }


def history_at_scale(ports: dict[tuple[str, str], int], seconds: float, turns: int = 3) -> dict[str, dict]:
    """Each history page at every size: latency alone and queries, the sizes measured in turns.

    `ports` is by (side, size). The budget is a ratio between sizes, and this machine's speed
    drifts from one minute to the next: measured one size after the other, a slow minute on
    one side made the ratio swing from 1.0 to 2.0 between runs of the same code. In turns
    (sizes and sides), a drift falls on all of them.
    """
    paths = {key: history_paths(port) for key, port in ports.items()}
    samples: dict[tuple, dict[str, list]] = {key: {name: [] for name in paths[key]} for key in ports}
    for name in paths[next(iter(ports))]:
        for _ in range(turns):
            for key, port in ports.items():
                samples[key][name] += micro.run(port, f"get:{paths[key][name]}", 0, seconds / turns, 1).samples
    out: dict[str, dict] = {}
    for (side, size), pages in samples.items():
        out.setdefault(side, {})[size] = {
            name: summary(got) | {"path": paths[(side, size)][name]} for name, got in pages.items()
        }
    return out


# The phones of the groups part: on a one-group database of 100 matches served open, and served private (the
# baseline: a member of its group); on the big private database a member of one small group, and of the club.
GROUP_PHONES = {"open, 100": {}, "baseline": {"phone": groups.BASELINE_PHONE},
                "small group": {"phone": groups.SMALL_PHONE}, "club": {"phone": groups.CLUB_PHONE}}  # fmt: skip
GROUP_PAGES = ("home", "history", "player page")


class GroupPhone:
    """One phone of the groups part on its server: its group's pages, a match it keeps (the polls and saves)."""

    def __init__(self, port: int, cookies: dict[str, str]):
        self.client = Client(port, dict(cookies))
        players = self.client.get("/players")
        assert players.status == 200, players.status
        player = re.search(r'href="/players/([0-9A-Za-z]+)"', players.text()).group(1)
        self.paths = {"home": "/", "history": "/history", "player page": f"/players/{player}"}
        self.match, self.number = self._new_match()
        poll = self.client.get(f"/matches/{self.match}/live", headers=micro.poll_headers(self.match, '"none"'))
        self.poll = micro.poll_headers(self.match, poll.headers["etag"])

    def _new_match(self) -> tuple[str, int]:
        """A Topic_ match started on this phone, a few rounds in (its viewers' polls ask after it)."""
        match = create_match(self.client)
        for number in range(1, 4):
            assert save_round(self.client, match, number).status == 200
        return match, 4

    def ask(self, kind: str):
        """One request of a kind: a page, the unchanged poll of its match, a save, or the floor."""
        if kind in self.paths:
            return self.client.get(self.paths[kind])
        if kind == "poll_unchanged":
            return self.client.get(f"/matches/{self.match}/live", headers=self.poll)
        if kind == "ping":
            return self.client.get("/ping")
        if self.number > micro.SAVES_PER_MATCH:
            self.match, self.number = self._new_match()
        self.number += 1
        return save_round(self.client, self.match, self.number - 1)


def groups_at_scale(ports: dict[str, int], seconds: float, warm: int = 20) -> dict[str, dict]:
    """Each page, the unchanged poll of a match and a save of each phone of `GROUP_PHONES`, request by request
    in turns.

    `ports` is by phone: the baseline's server and the big database's (the same one for its two phones).
    The phones take turns at each request, not at each second: this machine shares its cores, and its
    speed drifts within a second; a drift then falls on the baseline's request as on the big database's.
    The first `warm` requests of each kind are not kept (each server process fills its caches on them).
    """
    phones = {phone: GroupPhone(ports[phone], cookies) for phone, cookies in GROUP_PHONES.items()}
    out: dict[str, dict] = {phone: {} for phone in phones}
    for kind in (*GROUP_PAGES, "poll_unchanged", "save", "ping"):
        samples: dict[str, list] = {phone: [] for phone in phones}
        for _ in range(warm):
            for phone in phones.values():
                phone.ask(kind)
        end = time.perf_counter() + seconds * len(phones)
        while time.perf_counter() < end:
            for name, phone in phones.items():
                reply = phone.ask(kind)
                samples[name].append((reply.seconds, len(reply.body), reply.queries, reply.status))
        for name, phone in phones.items():
            got = summary(samples[name]) | ({"path": phone.paths[kind]} if kind in phone.paths else {})
            out[name][kind] = got
            say(f"  {name:12} {kind:15} p50 {got['p50_ms']:6.2f} ms  p95 {got['p95_ms']:6.2f} ms  "
                f"queries {got['queries']}  statuses {got['statuses']}")  # fmt: skip
    for phone in phones.values():
        phone.client.close()
    return out


def evening(servers: dict[str, Server], seconds: float, warm: float, steps: list[int], processes: int) -> dict:
    """T tables at once, T stepped up until p95 passes 100 ms; the largest T held, by side.

    The sides compared take each step in turns; a side stops at its first step not held.
    """
    tables: dict[str, list[club.Table]] = {side: [] for side in servers}
    out = {side: {"steps": [], "held": 0} for side in servers}
    going = set(servers)
    for count in steps:
        for side, server in servers.items():
            if side not in going:
                continue
            if not _evening_step(side, server, tables[side], count, out[side], seconds, warm, processes):
                going.discard(side)
        if not going:
            break
    return out


def _evening_step(side: str, server: Server, tables: list, count: int, out: dict, seconds: float, warm: float,
                  processes: int) -> bool:  # fmt: skip
    """One step of the evening on one server; whether it held."""
    if len(tables) < count:
        tables += club.new_tables(server.port, count - len(tables))
    got = club.step(server.port, tables[:count], warm, seconds, processes, server.process.pid)
    every = [s[0] * 1000 for s in got["polls"] + got["saves"]]
    polls_304 = [s for s in got["polls"] if s[1] == 304]
    polls_200 = [s for s in got["polls"] if s[1] == 200]
    row = {
        "tables": count,
        "phones": count * (club.VIEWERS + 1),
        "requests": len(every),
        "rps": len(every) / seconds,
        "p50_ms": pct(every, 50),
        "p95_ms": pct(every, 95),
        "p99_ms": pct(every, 99),
        "poll_304_p95_ms": pct([s[0] * 1000 for s in polls_304], 95),
        "poll_200_p95_ms": pct([s[0] * 1000 for s in polls_200], 95),
        "save_p95_ms": pct([s[0] * 1000 for s in got["saves"]], 95),
        "saves": len(got["saves"]),
        "errors": got["errors"] + sum(1 for s in got["polls"] + got["saves"] if s[1] >= 400),
        "skipped_polls": got["skipped"],
        "server_cpu": got["server_cpu"],
    }
    held = row["p95_ms"] < 100 and row["errors"] == 0
    row["held"] = held
    out["steps"].append(row)
    say(f"  {side:4} {count:4} tables: {row['rps']:6.0f} req/s  p50 {row['p50_ms']:6.1f}  "
        f"p95 {row['p95_ms']:7.1f}  p99 {row['p99_ms']:7.1f} ms  errors {row['errors']}  "
        f"skipped {row['skipped_polls']}  server CPU {row['server_cpu']:.0%}")  # fmt: skip
    if held:
        out["held"] = count
    return held


def hall_evenings(size: int, steps: list[int], limit: float) -> dict:
    """The regional evening (bench/hall.py), each in a process of its own with its own servers: `size` tables as
    `make run` serves them and on PostgreSQL with two app processes (the server set-up's);
    then the tables stepped up on one worker and on two until a budget fails. The head's app alone (a base from
    before the club evenings has no hall)."""
    runs: list[dict] = []

    def one(tables: int, workers: int, apps: int = 1, postgres: bool = False) -> dict:
        command = [sys.executable, "-m", "bench.hall", "--tables", str(tables), "--workers", str(workers),
                   "--apps", str(apps), "--limit", str(limit)]  # fmt: skip
        if postgres:
            command = [str(ROOT / "scripts" / "with-postgres.sh"), *command]
        load = os.getloadavg()[0]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=limit + 600)
        if done.returncode != 0:
            say(done.stderr[-2000:])
            raise RuntimeError(f"the hall's evening of {tables} tables stopped: {' '.join(command)}")
        row = json.loads(done.stdout.strip().splitlines()[-1]) | {"load_average_before": load}
        runs.append(row)
        say(f"  {row['database']:10} {apps} app(s) x {workers} worker(s) {tables:4} tables: poll p50 "
            f"{row['poll_p50_ms']:6.1f} p95 {row['poll_p95_ms']:6.1f}  save p95 {row['save_p95_ms']:6.1f} ms  "
            f"turn close p50 {row['turn_close_p50_ms']:6.0f} max {row['turn_close_max_ms']:6.0f} ms  "
            f"errors {row['errors']}  workers lost {row.get('workers_died', 0)}  load {load:.1f}  "
            f"{'held' if row['held'] else 'FAILED'}")  # fmt: skip
        return row

    one(size, 2)
    if shutil.which("initdb") or list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        one(size, 2, apps=2, postgres=True)  # two app containers of .env.example's WORKERS=2
    for workers in (1, 2):
        for tables in steps:
            known = [r for r in runs if (r["tables"], r["workers"], r["database"]) == (tables, workers, "SQLite")]
            if not (known[0] if known else one(tables, workers))["held"]:
                break
    return {"runs": runs, "held": max((r["tables"] for r in runs if r["held"] and r["database"] == "SQLite"
                                      and r["workers"] == 2), default=0)}  # fmt: skip


def slow_clients(port: int) -> dict:
    """The delay the other phones see while 48 slowloris connections are held open."""
    got = slow.run(port)
    times = [seconds * 1000 for seconds in got.seconds]
    return {"connections": got.connections, "drips": got.drips, "n": len(times), "p50_ms": pct(times, 50),
            "p95_ms": pct(times, 95), "worst_ms": max(times, default=float("inf")),
            "statuses": sorted({status or 0 for status in got.statuses})}  # fmt: skip


def browser_job(sides: dict[str, tuple[str, str, tuple[str, str]]]) -> dict[str, dict]:
    """The first-load measurements of each side (its URL, match and pencil), in a process of their own
    (Playwright runs threads); the loads of both sides are taken in turns, so a slow moment of this
    machine falls on both."""
    from bench.browser import first_load

    pages = {}
    for side, (url, match_id, pencil) in sides.items():
        keeper_cookie = [{"name": pencil[0], "value": pencil[1], "url": url}]
        match = f"/matches/{match_id}"
        pages[side, "home"] = (f"{url}/", [], match)
        pages[side, "viewer"] = (f"{url}{match}", [], None)
        pages[side, "scorekeeper"] = (f"{url}{match}", keeper_cookie, None)
        # The scorekeeper's home page, left by the link to the match it keeps.
        pages[side, "home (scorekeeper)"] = (f"{url}/", keeper_cookie, match)
    loads = first_load(pages)
    return {side: {name: loads[side, name] for each, name in pages if each == side} for side in sides}


# The budgets of the first load (issue 26): what a page may weigh on the wire, and the time until it
# is usable, on the phone of `bench/browser.py`; the same time after a boosted link to the match page.
FIRST_LOAD_BUDGETS = {"home": (34, 1550), "viewer": (34, 1550), "scorekeeper": (40, 1700)}
# Which budget a boosted link from each home page answers to: the match page it brings.
BOOSTED_TO = {"home": "viewer", "home (scorekeeper)": "scorekeeper"}


# --- budgets and the report ----------------------------------------------------------


def budgets(r: dict) -> list[tuple[str, bool, str]]:
    """Every budget of issues 11 and 26 that this run measured, with PASS/FAIL, the value and its ratio to the floor."""
    out = []
    kinds = r.get("requests", {})
    floor = kinds.get("ping", {}).get("p50_ms")

    def times_floor(ms: float) -> str:
        return f"{ms / floor:.1f}x floor" if floor else "no floor"

    if "save" in kinds:
        save = kinds["save"]
        out.append(("save p50 < 10 ms", save["p50_ms"] < 10, f"{save['p50_ms']:.2f} ms, {times_floor(save['p50_ms'])}"))
        out.append(("save p95 < 25 ms", save["p95_ms"] < 25, f"{save['p95_ms']:.2f} ms, {times_floor(save['p95_ms'])}"))
        out.append(("save p50 <= 9x floor", save["p50_ms"] <= 9 * floor,
                    f"{times_floor(save['p50_ms'])} ({save['p50_ms']:.2f} / {floor:.2f} ms)"))  # fmt: skip
        out.append(("save p95 <= 18x floor", save["p95_ms"] <= 18 * floor,
                    f"{save['p95_ms'] / floor:.1f}x floor p50 ({save['p95_ms']:.2f} / {floor:.2f} ms)"))  # fmt: skip
    if "viewer_after_row" in kinds:
        # A row sent from a seat moves the match's version on, as a save does: each phone following the match
        # fetches the new version once. What that poll costs after a row must not pass what it costs after a save
        # (a tenth more allowed for the machine's drift between the two runs).
        row, save = kinds["viewer_after_row"], kinds["viewer_after_save"]
        out.append(("a viewer's poll after a row sent costs no more than after a save (p50)",
                    row["p50_ms"] <= 1.1 * save["p50_ms"],
                    f"{row['p50_ms']:.2f} ms ({times_floor(row['p50_ms'])}) vs {save['p50_ms']:.2f} ms "
                    f"({times_floor(save['p50_ms'])})"))  # fmt: skip
    if "poll_unchanged" in kinds:
        unchanged = kinds["poll_unchanged"]
        ok = unchanged["statuses"] == [304] and unchanged["p50_ms"] < 3 and unchanged["p50_ms"] <= 2 * floor
        value = f"{unchanged['statuses']} {unchanged['p50_ms']:.2f} ms, {times_floor(unchanged['p50_ms'])}"
        out.append(("unchanged poll is 304, p50 < 3 ms and <= 2x floor", ok, value))
    if r.get("fragments"):
        biggest = max(r["fragments"].items(), key=lambda item: item[1]["bytes"])
        out.append(("every htmx fragment < 4 KB compressed", biggest[1]["bytes"] < 4 * KB,
                    f"largest {biggest[1]['bytes']} B ({biggest[0]})"))  # fmt: skip
    if r.get("hall"):
        for row in r["hall"]["runs"]:
            if row is r["hall"]["runs"][0] or (row is r["hall"]["runs"][1] and row["database"] == "PostgreSQL"):
                failed = [name for name, ok in row["budgets"].items() if not ok]
                out.append((f"the hall's evening of {row['tables']} tables, {row['database']}, {row['apps']} app(s):"
                            " every budget",
                            row["held"], "; ".join(failed) or hall_line(row)))  # fmt: skip
    if r.get("evening"):
        held = r["evening"]["held"]
        out.append((">= 150 tables at p95 < 100 ms", held >= 150, f"{held} tables held"))
    if r.get("slow_clients"):
        s = r["slow_clients"]
        ok = s["worst_ms"] < 1000 and s["statuses"] == [200]
        out.append((f"{s['connections']} slow clients: other phones wait < 1 s", ok,
                    f"worst {s['worst_ms']:.0f} ms, statuses {s['statuses']}"))  # fmt: skip
    if r.get("history"):
        for name, big in r["history"]["10000"].items():
            small = r["history"]["100"][name]
            ratio = big["p50_ms"] / small["p50_ms"]
            ok = ratio <= 1.5 and big["p95_ms"] < 100
            out.append((f"{name} at 10,000: <= 1.5x of 100, p95 < 100 ms", ok,
                        f"{ratio:.2f}x, p50 {big['p50_ms']:.1f} ms ({big['p50_ms'] / r['floor_large_ms']:.0f}x floor),"
                        f" p95 {big['p95_ms']:.1f} ms"))  # fmt: skip
    if r.get("groups"):
        out += _groups_budgets(r["groups"])
    if r.get("card"):
        cold, kept = r["card"]["cold"], r["card"]["kept"]
        out.append(("result card drawn cold: p95 < 300 ms", cold["p95_ms"] < 300,
                    f"p50 {cold['p50_ms']:.1f} ms, p95 {cold['p95_ms']:.1f} ms, worst {cold['max_ms']:.1f} ms"
                    f" ({cold['n']} cards, {cold['bytes'] / KB:.0f} KB each)"))  # fmt: skip
        value = f"p50 {kept['p50_ms']:.2f} ms, p95 {kept['p95_ms']:.2f} ms, {times_floor(kept['p50_ms'])}"
        out.append(("result card kept: p50 < 5 ms", kept["p50_ms"] < 5 and kept["statuses"] == [200], value))
    if r.get("ratings"):
        out.extend(ratings.budgets(r["ratings"]))
    if r.get("first_load"):
        for name, (kb, ms) in FIRST_LOAD_BUDGETS.items():
            page = r["first_load"][name]
            ok = page["wire_bytes"] <= kb * KB and page["usable_ms"] <= ms
            out.append((f"first load, {name}: <= {kb} KB, usable <= {ms / 1000:.2f} s", ok,
                        f"{page['wire_bytes'] / KB:.1f} KB, {page['usable_ms']:.0f} ms"))  # fmt: skip
        for name, target in BOOSTED_TO.items():
            boosted = r["first_load"][name]["boosted"]
            ms = FIRST_LOAD_BUDGETS[target][1]
            out.append((f"boosted link {name} -> {target}: usable <= {ms / 1000:.2f} s", boosted["usable_ms"] <= ms,
                        f"{boosted['usable_ms']:.0f} ms, {boosted['wire_bytes'] / KB:.1f} KB"))  # fmt: skip
    return out


def _groups_budgets(found: dict) -> list[tuple[str, bool, str]]:
    """The groups issue's figures: each page of a small group and of the club within 1.5x of the baseline's (one
    group of 100 on a private server), with as many queries at every size; the unchanged poll still one statement
    and as fast as the open server's; the save's budgets."""
    out = []
    base, opened = found["baseline"], found["open, 100"]
    for page in GROUP_PAGES:
        for phone in ("small group", "club"):
            got = found[phone][page]
            ratio = got["p50_ms"] / base[page]["p50_ms"]
            # No more statements than at 100 matches (a small group's player may have too few matches for a chart).
            ok = ratio <= 1.5 and got["queries"] <= base[page]["queries"] and got["statuses"] == [200]
            out.append((f"{page}, {phone} of 10,000 groups: <= 1.5x of one group of 100, no more queries", ok,
                        f"{ratio:.2f}x, p50 {got['p50_ms']:.1f} / {base[page]['p50_ms']:.1f} ms,"
                        f" p95 {got['p95_ms']:.1f} ms,"
                        f" queries {got['queries']} (baseline {base[page]['queries']})"))  # fmt: skip
    for phone in ("small group", "club"):
        poll, floor = found[phone]["poll_unchanged"], opened["ping"]["p50_ms"]
        ok = poll["statuses"] == [304] and poll["queries"] == 1 and poll["p50_ms"] < 3 and poll["p50_ms"] <= 2 * floor
        out.append((f"unchanged poll, {phone} member: 304, 1 query, p50 < 3 ms and <= 2x floor", ok,
                    f"{poll['statuses']} {poll['queries']} query, {poll['p50_ms']:.2f} ms,"
                    f" {poll['p50_ms'] / floor:.1f}x floor,"
                    f" {poll['p50_ms'] / opened['poll_unchanged']['p50_ms']:.2f}x the open server's"))  # fmt: skip
        # The save's budgets of issue 26 as multiples of the floor (the open server's /ping, which reads nothing:
        # a private server's reads the phone's membership), which a shared machine's load moves far less.
        save, floor = found[phone]["save"], opened["ping"]["p50_ms"]
        ok = save["p50_ms"] <= 9 * floor and save["p95_ms"] <= 18 * floor and save["statuses"] == [200]
        out.append((f"save, {phone} member: p50 <= 9x floor, p95 <= 18x floor", ok,
                    f"p50 {save['p50_ms']:.2f} ms ({save['p50_ms'] / floor:.1f}x floor), p95 {save['p95_ms']:.2f} ms"
                    f" ({save['p95_ms'] / floor:.1f}x),"
                    f" {save['p50_ms'] / base['save']['p50_ms']:.2f}x the baseline's p50"
                    f" (its p95 {base['save']['p95_ms']:.2f} ms)"))  # fmt: skip
    return out


def report(r: dict) -> None:
    """The figures as Markdown tables, readable in a terminal and ready for docs/performance.md."""
    say(
        f"\n### Requests ({r['machine']}; load average {r['load_average_at_start'][0]:.1f} at start,"
        f" {r['load_average_at_end'][0]:.1f} at end)\n"
    )
    if r.get("requests"):
        _requests_table(r["requests"])
    if r.get("fragments"):
        _fragments_table(r["fragments"])
    if r.get("evening", {}).get("steps"):
        _evening_table(r["evening"])
    if r.get("hall"):
        _hall_table(r["hall"])
    if r.get("slow_clients"):
        s = r["slow_clients"]
        say(f"\n### Slow clients ({s['connections']} connections: half a request, then a header every 3 s)\n")
        say("| other phones' requests | p50 ms | p95 ms | worst ms | statuses |")
        say("|---:|---:|---:|---:|---|")
        say(f"| {s['n']} | {s['p50_ms']:.1f} | {s['p95_ms']:.1f} | {s['worst_ms']:.1f} | {s['statuses']} |")
    if r.get("history"):
        _history_table(r["history"], r["floor_large_ms"])
    if r.get("groups"):
        _groups_table(r["groups"])
    if r.get("first_load"):
        _first_load_table(r["first_load"])
    say("\n### Budgets\n")
    for name, ok, value in r["budgets"]:
        say(f"- {'PASS' if ok else 'FAIL'}  {name}: {value}")


def _requests_table(kinds: dict) -> None:
    """The request kinds, as a Markdown table."""
    floor = kinds["ping"]["p50_ms"]
    say("| request | p50 ms | p95 ms | p99 ms | req/s (2 clients) | bytes (br) | SQL queries | p50 × floor |")
    say("|---|---:|---:|---:|---:|---:|---:|---:|")
    names = {"ping": "floor: GET /ping", "poll_unchanged": "viewer poll, unchanged (304)",
             "poll_changed": "viewer poll, changed (200)", "save": "save a round (htmx POST)",
             "send_row": "send a seat's row (htmx POST)",
             "viewer_after_row": "viewer poll after a row sent (200)",
             "viewer_after_save": "viewer poll after a round saved (200)"}  # fmt: skip
    for kind, label in names.items():
        if kind not in kinds:
            continue
        k = kinds[kind]
        say(f"| {label} | {k['p50_ms']:.2f} | {k['p95_ms']:.2f} | {k['p99_ms']:.2f} | {k['rps']:.0f} | "
            f"{k['bytes']} | {k['queries']} | {k['p50_ms'] / floor:.1f} |")  # fmt: skip


def _fragments_table(fragments: dict) -> None:
    """The htmx fragments' sizes, as a Markdown table."""
    say("\n### htmx fragments\n")
    say("| fragment | bytes | encoding | SQL queries |")
    say("|---|---:|---|---:|")
    for name, f in fragments.items():
        say(f"| {name} | {f['bytes']} | {f['encoding']} | {f['queries']} |")


def _evening_table(evening: dict) -> None:
    """The club evening's steps, as a Markdown table."""
    say("\n### A club evening (7 viewers polling every 1 s + 1 save every 20 s per table)\n")
    say(
        "| tables | phones | req/s | p50 ms | p95 ms | p99 ms | 304 p95 | 200 p95 | save p95 | errors |"
        " server CPU | held |"
    )
    say("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for s in evening["steps"]:
        say(f"| {s['tables']} | {s['phones']} | {s['rps']:.0f} | {s['p50_ms']:.1f} | {s['p95_ms']:.1f} | "
            f"{s['p99_ms']:.1f} | {s['poll_304_p95_ms']:.1f} | {s['poll_200_p95_ms']:.1f} | {s['save_p95_ms']:.1f} | "
            f"{s['errors']} | {s['server_cpu']:.0%} | {'yes' if s['held'] else 'no'} |")  # fmt: skip


def hall_line(row: dict) -> str:
    """One evening of the hall, in words."""
    return (f"poll p95 {row['poll_p95_ms']:.1f} ms, save p95 {row['save_p95_ms']:.1f} ms, turn close max "
            f"{row['turn_close_max_ms']:.0f} ms, {row['errors']} errors")  # fmt: skip


def _hall_table(found: dict) -> None:
    """The regional evening's runs, as a Markdown table."""
    stand_in = any(row["hall_screen_stand_in"] for row in found["runs"])
    screens = "their stand-in, the arbiter's live part" if stand_in else "their live part"
    say(f"\n### A regional evening: Burraco PAROLE in pairs, {hall.TURNS} turns of {hall.HANDS} hands, 4 phones a"
        f" table, the arbiter and {hall.HALL_SCREENS} hall screens ({screens})\n")  # fmt: skip
    say("| database, servers | tables | phones | poll p50 / p95 ms | save p95 ms | turn close to every phone p50 / max"
        " ms | errors | server CPU s per table | peak RSS MB (per table) | load | held |")  # fmt: skip
    say("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in found["runs"]:
        say(f"| {r['database']}, {r['apps']} app(s) × {r['workers']} worker(s) | {r['tables']} | {r['phones']} | "
            f"{r['poll_p50_ms']:.1f} / {r['poll_p95_ms']:.1f} | {r['save_p95_ms']:.1f} | "
            f"{r['turn_close_p50_ms']:.0f} / {r['turn_close_max_ms']:.0f} | {r['errors']} | "
            f"{r['cpu_seconds_per_table']:.2f} | {r['peak_rss_mb']:.0f} ({r['peak_rss_mb_per_table']:.1f}) | "
            f"{r['load_average_before']:.1f} | {'yes' if r['held'] else 'no'} |")  # fmt: skip
    say(f"\nThe largest evening that holds every budget (SQLite, make run's two workers): {found['held']} tables.")


def _history_table(history: dict, floor_large: float) -> None:
    """The history pages at both sizes, as a Markdown table."""
    say("\n### History at scale\n")
    say("| page | p50 ms at 100 | p50 ms at 10,000 | p95 ms at 10,000 | ratio | SQL queries | p50 × floor at 10,000 |")
    say("|---|---:|---:|---:|---:|---:|---:|")
    for name, big in history["10000"].items():
        small = history["100"][name]
        say(f"| {name} | {small['p50_ms']:.1f} | {big['p50_ms']:.1f} | {big['p95_ms']:.1f} | "
            f"{big['p50_ms'] / small['p50_ms']:.2f} | {small['queries']} / {big['queries']} | "
            f"{big['p50_ms'] / floor_large:.0f} |")  # fmt: skip


def _groups_table(found: dict) -> None:
    """The groups at scale, as a Markdown table: each figure of the baseline, a small group and the club."""
    say("\n### 10,000 private groups of 10 matches and a club of 10,000 (p50 ms, ratio to one group of 100)\n")
    say("| request | 100, open | 100, private | small group | ratio | club of 10,000 | ratio |"
        " SQL queries (open / private: 100 / small / club) |")
    say("|---|---:|---:|---:|---:|---:|---:|---|")
    base, opened = found["baseline"], found["open, 100"]
    for kind in (*GROUP_PAGES, "poll_unchanged", "save", "ping"):
        small, big = found["small group"][kind], found["club"][kind]
        say(f"| {kind} | {opened[kind]['p50_ms']:.2f} | {base[kind]['p50_ms']:.2f} | {small['p50_ms']:.2f} | "
            f"{small['p50_ms'] / base[kind]['p50_ms']:.2f} | "
            f"{big['p50_ms']:.2f} | {big['p50_ms'] / base[kind]['p50_ms']:.2f} | "
            f"{opened[kind]['queries']} / {base[kind]['queries']} / {small['queries']} / {big['queries']} |"
        )  # fmt: skip


def _first_load_table(first_load: dict) -> None:
    """The first loads in Chromium, and the boosted links, as a Markdown table."""
    say("\n### First load on a phone (cold cache; slow 3G 400 ms / 400 kbit/s, CPU 4× slower)\n")
    say(
        "| page | requests | on the wire KB | bodies KB (compressed) | unpacked KB | usable ms | DOMContentLoaded ms |"
        " load ms | usable ms, unthrottled |"
    )
    say("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, p in first_load.items():
        say(f"| {name} | {p['requests']} | {p['wire_bytes'] / KB:.1f} | {p['body_bytes'] / KB:.1f} | "
            f"{p['decoded_bytes'] / KB:.1f} | {p['usable_ms']:.0f} | {p['dcl_ms']:.0f} | {p['load_ms']:.0f} | "
            f"{p['usable_unthrottled_ms']:.0f} |")  # fmt: skip
    say("\n| boosted link (from the page loaded above) | requests | on the wire KB | usable ms | each run |")
    say("|---|---:|---:|---:|---|")
    for name, p in first_load.items():
        if "boosted" in p:
            b = p["boosted"]
            say(f"| {name} -> {b['to']} | {len(b['files'])} | {b['wire_bytes'] / KB:.1f} | {b['usable_ms']:.0f} | "
                f"{b['usable_all_ms']} |")  # fmt: skip


PARTS = ("save", "polls", "fragments", "card", "history", "groups", "ratings", "browser", "slow", "evening", "hall")


def comparison(results: dict[str, dict], names: dict[str, str]) -> list[tuple[str, float, float]]:
    """The same figures of the two sides: (figure, base, head), the latencies also as multiples of the floor."""
    base, head = results["base"], results["head"]
    rows: list[tuple[str, float, float]] = []
    if base.get("requests"):
        floors = {side: r["requests"]["ping"]["p50_ms"] for side, r in results.items()}
        for kind in head["requests"]:
            for q in ("p50", "p95"):
                b, h = base["requests"][kind][f"{q}_ms"], head["requests"][kind][f"{q}_ms"]
                rows.append((f"{kind} {q} ms", b, h))
                if kind != "ping":
                    rows.append((f"{kind} {q} x floor", b / floors["base"], h / floors["head"]))
            rows.append((f"{kind} req/s (2 clients)", base["requests"][kind]["rps"], head["requests"][kind]["rps"]))
            rows.append((f"{kind} server CPU ms per request", base["requests"][kind]["server_cpu_ms"],
                         head["requests"][kind]["server_cpu_ms"]))  # fmt: skip
    if base.get("history"):
        for name in head["history"]["10000"]:
            for size in ("100", "10000"):
                rows.append((f"{name} p50 ms at {size}", base["history"][size][name]["p50_ms"],
                             head["history"][size][name]["p50_ms"]))  # fmt: skip
            ratio = {side: r["history"]["10000"][name]["p50_ms"] / r["history"]["100"][name]["p50_ms"]
                     for side, r in results.items()}  # fmt: skip
            rows.append((f"{name} 10,000 / 100", ratio["base"], ratio["head"]))
    if base.get("evening", {}).get("steps"):
        rows.append(("club evening: tables held", base["evening"]["held"], head["evening"]["held"]))
        steps = {side: {s["tables"]: s for s in r["evening"]["steps"]} for side, r in results.items()}
        for count in sorted(steps["base"].keys() & steps["head"].keys()):
            rows.append((f"club evening {count} tables: p95 ms", steps["base"][count]["p95_ms"],
                         steps["head"][count]["p95_ms"]))  # fmt: skip
            rows.append((f"club evening {count} tables: save p95 ms", steps["base"][count]["save_p95_ms"],
                         steps["head"][count]["save_p95_ms"]))  # fmt: skip
    if base.get("fragments"):
        for name in head["fragments"].keys() & base["fragments"].keys():
            rows.append((f"fragment bytes: {name}", base["fragments"][name]["bytes"], head["fragments"][name]["bytes"]))
    if base.get("slow_clients"):
        rows.append(("slow clients: worst wait ms", base["slow_clients"]["worst_ms"], head["slow_clients"]["worst_ms"]))
    if base.get("first_load"):
        for name in head["first_load"].keys() & base["first_load"].keys():
            for key, label in (("usable_ms", "usable ms"), ("wire_bytes", "bytes on the wire")):
                rows.append((f"first load, {name}: {label}", base["first_load"][name][key],
                             head["first_load"][name][key]))  # fmt: skip
                if "boosted" in head["first_load"][name] and "boosted" in base["first_load"][name]:
                    rows.append((f"boosted link from {name}: {label}", base["first_load"][name]["boosted"][key],
                                 head["first_load"][name]["boosted"][key]))  # fmt: skip
    say(f"\n### Side by side: base {names['base']} / head {names['head']} (measured in turns)\n")
    say("| figure | base | head | head / base |")
    say("|---|---:|---:|---:|")
    for name, b, h in rows:
        say(f"| {name} | {b:.2f} | {h:.2f} | {h / b if b else float('nan'):.2f} |")
    return rows


def measure(roots: dict[str, Path], args: argparse.Namespace, parts: set[str], server_env: dict, tmp: Path) -> dict:
    """Every part asked for, on the app of each source tree (by side), the sides taken in turns."""
    out: dict[str, dict] = {side: {} for side in roots}
    log = tmp / "server.log"
    if "history" in parts:
        instances = {}
        for side, root in roots.items():
            for size in ("100", "10000"):
                folder = tmp / f"{side}-history-{size}"
                say(f"Seeding {size if size == '100' else args.large} matches ({side}) ...")
                seed(folder, 100 if size == "100" else args.large, root)
                instances[(side, size)] = folder
        with contextlib.ExitStack() as stack:
            servers = {key: stack.enter_context(Server(folder, log, roots[key[0]], **server_env))
                       for key, folder in instances.items()}  # fmt: skip
            say("History at scale ...")
            history = history_at_scale({key: server.port for key, server in servers.items()}, args.seconds)
            for side in roots:
                floor = micro.run(servers[(side, "10000")].port, "ping", 0, 1.0, processes=1).samples
                out[side]["history"] = history[side]
                out[side]["floor_large_ms"] = summary(floor)["p50_ms"]
    if "groups" in parts:
        # The head's app alone: the big database is built by its seed and migrations.
        say("Building (or reusing) 10,000 private groups of 10 matches and a club of 10,000 ...")
        big = groups.copy(tmp / "groups-big")
        small = groups.baseline(tmp / "groups-baseline")
        with contextlib.ExitStack() as stack:
            private = stack.enter_context(Server(big, log, ROOT, **server_env, COMPANION_GROUPS="private"))
            base = stack.enter_context(Server(small, log, ROOT, **server_env, COMPANION_GROUPS="private"))
            open_ = stack.enter_context(Server(small, log, ROOT, **server_env))
            say("Groups at scale ...")
            ports = {"open, 100": open_.port, "baseline": base.port, "small group": private.port, "club": private.port}
            out["head"]["groups"] = groups_at_scale(ports, args.seconds)
    if "ratings" in parts:
        for side, root in roots.items():
            folder = tmp / f"{side}-history-10000"
            if not folder.exists():
                say(f"Seeding {args.large} matches ({side}) ...")
                seed(folder, args.large, root)
            say(f"Ratings at {args.large} matches ({side}) ...")
            out[side]["ratings"] = ratings.run(folder, root, functools.partial(Server, folder, log, root, **server_env))
    if "hall" in parts:
        say("A regional evening in one hall ...")
        steps = [int(s) for s in args.hall_steps.split(",")]
        out["head"]["hall"] = hall_evenings(args.hall_tables, steps, args.hall_limit)
    rest = parts - {"history", "groups", "ratings", "hall"}
    if not rest:
        return out
    with contextlib.ExitStack() as stack:
        servers = {}
        for side, root in roots.items():
            folder = tmp / f"{side}-small"
            seed(folder, 100, root)
            servers[side] = stack.enter_context(Server(folder, log, root, **server_env))
            say(f"Server of {side} (python app.py, as make run): {servers[side].url}")
        demo = {side: demo_match(server.port) for side, server in servers.items()}
        # The cards first: the request kinds' saves start matches that push the finished ones off the
        # history's first page, where card_timing finds them.
        if "card" in parts:
            for side, server in servers.items():
                say(f"Result cards ({side}) ...")
                out[side]["card"] = card_timing(server.port)
        if "browser" in parts:
            say(f"First load in Chromium ({', '.join(servers)} in turns) ...")
            # Served as a phone is: without the benchmark's count of statements (X-Queries), which no phone is
            # ever sent and whose bytes the first loads would count; the same database and match.
            plain = {name: value for name, value in server_env.items() if name != "COMPANION_COUNT_QUERIES"}
            ctx = mp.get_context("spawn")
            with contextlib.ExitStack() as phones, concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
                urls = {side: phones.enter_context(Server(tmp / f"{side}-small", log, roots[side], **plain)).url
                        for side in servers}  # fmt: skip
                sides = {side: (urls[side], *demo[side][:2]) for side in servers}
                for side, loads in pool.submit(browser_job, sides).result().items():
                    out[side]["first_load"] = loads
        wanted = {"ping"} | ({"save", *ROW_KINDS} if "save" in parts else set())
        wanted |= {"poll_unchanged", "poll_changed"} if "polls" in parts else set()
        if not all(seats_served(server.port, demo[side][0]) for side, server in servers.items()):
            wanted -= set(ROW_KINDS)  # a commit from before the seats (a --base) has no rows to send
        kinds = tuple(kind for kind in REQUEST_KINDS if kind in wanted)
        if len(kinds) > 1:
            say("Request kinds ...")
            got = request_kinds(servers, {side: demo[side][0] for side in servers}, kinds, args.seconds, args.turns)
            for side in servers:
                out[side]["requests"] = got[side]
        if "fragments" in parts:
            for side, server in servers.items():
                out[side]["fragments"] = fragments(server.port, demo[side][0], demo[side][1])
        if "slow" in parts:
            for side, server in servers.items():
                say(f"Slow clients ({slow.CONNECTIONS} slowloris connections, {side}) ...")
                out[side]["slow_clients"] = slow_clients(server.port)
        if "evening" in parts:
            say("A club evening ...")
            steps = [int(s) for s in args.steps.split(",")]
            got = evening(servers, args.step_seconds, 3.0, steps, args.load_processes)
            for side in servers:
                out[side]["evening"] = got[side]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each request-kind run")
    parser.add_argument("--turns", type=int, default=3, help="slices each request kind's latency is measured in")
    parser.add_argument("--step-seconds", type=float, default=20.0, help="measured window of each evening step")
    parser.add_argument("--steps", default=",".join(map(str, STEPS)), help="tables per evening step")
    parser.add_argument("--hall-tables", type=int, default=100, help="tables of the hall's evening")
    parser.add_argument("--hall-steps", default="50,100,150,200", help="tables per step of the hall's evening")
    parser.add_argument("--hall-limit", type=float, default=240.0, help="seconds a hall's evening may take at most")
    parser.add_argument("--load-processes", type=int, default=2, help="processes playing the club's phones")
    parser.add_argument("--large", type=int, default=10_000, help="matches in the large history")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the server, e.g. WORKERS=1",
    )
    parser.add_argument("--only", default="", help=f"comma-separated parts to run alone: {','.join(PARTS)}")
    parser.add_argument("--skip", default="", help="comma-separated parts to leave out (same names)")
    parser.add_argument(
        "--base", default="", metavar="COMMIT", help="also run another commit's app, in turns, with ratios"
    )
    args = parser.parse_args()
    parts = set(filter(None, args.only.split(","))) or set(PARTS)
    parts -= set(filter(None, args.skip.split(",")))
    if parts - set(PARTS):
        parser.error(f"unknown parts: {', '.join(sorted(parts - set(PARTS)))}")
    server_env = dict(item.split("=", 1) for item in args.server_env) | {"COMPANION_COUNT_QUERIES": "1"}
    began = time.perf_counter()
    result: dict = {"machine": f"{platform.machine()}, {mp.cpu_count()} cores, Python {platform.python_version()}",
                    "started": time.strftime("%Y-%m-%d %H:%M:%S"), "command": " ".join(sys.argv),
                    "load_average_at_start": os.getloadavg(), "parts": sorted(parts)}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as folder:
        tmp = Path(folder)
        roots = {"head": ROOT}
        names = {"head": describe("HEAD") + (" (and the changes not committed)" if dirty() else "")}
        if args.base:
            roots = {"base": source_tree(args.base, tmp / "base-tree"), "head": ROOT}
            names["base"] = describe(args.base)
            say(f"Comparing base {names['base']} with head {names['head']}")
        measured = measure(roots, args, parts, server_env, tmp)
    result |= measured["head"]
    result["load_average_at_end"] = os.getloadavg()
    result["budgets"] = budgets(result)
    result["seconds"] = time.perf_counter() - began
    report(result)
    if args.base:
        base = measured["base"] | {"budgets": budgets(measured["base"])}
        result["base"] = base | {"commit": names["base"]}
        result["head_commit"] = names["head"]
        say(f"\n### Budgets of the base ({names['base']})\n")
        for name, ok, value in base["budgets"]:
            say(f"- {'PASS' if ok else 'FAIL'}  {name}: {value}")
        result["comparison"] = comparison(measured, names)
    say(f"\n{time.perf_counter() - began:.0f} s in all; figures in {RESULTS.relative_to(ROOT)}")
    RESULTS.write_text(json.dumps(result, indent=1, default=str))
    return 0 if all(ok for _, ok, _ in result["budgets"]) else 1


if __name__ == "__main__":
    sys.exit(main())
