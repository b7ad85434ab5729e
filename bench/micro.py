"""One request kind at a time, from separate processes: latency, throughput, bytes, SQL queries."""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass
from typing import Any

from .client import HX, Client, create_match, save_round, save_rows_round, seated_match, send_row
from .club import cpu_seconds

SAVES_PER_MATCH = 30  # a medium Topic_ deck (36 cards) ends after 35 rounds
WARM_UP = 1.0  # seconds of each run that are not measured


def poll_headers(match_id: str, etag: str) -> dict[str, str]:
    """What htmx sends when the live block of the match page polls."""
    return {
        **HX,
        "HX-Trigger": "live",
        "HX-Target": "live",
        "HX-Current-URL": f"http://127.0.0.1/matches/{match_id}",
        "If-None-Match": etag,
    }


def _loop(port: int, scenario: str, match_id: str, seconds: float, start_at: float) -> tuple[list[tuple], int]:
    """Repeat one request kind until the time is up; each sample is (seconds, bytes, queries, status).

    Also returns how many requests of the kind were sent in all, the first second's included.
    """
    client = Client(port)
    samples: list[tuple] = []
    sent = 0
    number = 1
    if scenario == "save":
        match_id = create_match(client)
    elif scenario in ("send_row", "viewer_after_row", "viewer_after_save"):
        match_id = seated_match(client)
        number = 2
        viewer = Client(port)
        etag = viewer.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, '"none"')).headers["etag"]
    elif scenario == "poll_unchanged":
        etag = client.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, '"none"')).headers["etag"]
    while time.time() < start_at:
        time.sleep(0.001)
    # The first second is not kept: each server process compiles its templates and fills
    # its caches on its first requests of a kind, and a table plays for hours after that.
    measured_from = time.perf_counter() + WARM_UP
    end = measured_from + seconds
    while time.perf_counter() < end:
        if scenario == "ping":
            reply = client.get("/ping")
        elif scenario == "poll_unchanged":
            reply = client.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, etag))
        elif scenario == "poll_changed":
            reply = client.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, '"stale"'))
        elif scenario.startswith("get:"):
            reply = client.get(scenario[4:])
        elif scenario == "save":
            if number > SAVES_PER_MATCH:
                match_id, number = create_match(client), 1  # not timed: a new match
                continue
            reply = save_round(client, match_id, number)
            number += 1
        elif scenario == "send_row":
            reply = send_row(client, match_id)
        elif scenario in ("viewer_after_row", "viewer_after_save"):
            # What one phone following the match pays for a row sent, or for a round saved: its next poll.
            if scenario == "viewer_after_row":
                assert send_row(client, match_id).status == 200
            elif number > 3:  # Anna has won: a new match, not timed
                match_id, number = seated_match(client), 2
                etag = viewer.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, '"none"')).headers["etag"]
                continue
            else:
                assert save_rows_round(client, match_id, number).status == 200
                number += 1
            reply = viewer.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, etag))
            assert reply.status == 200
            etag = reply.headers["etag"]
        else:
            raise ValueError(scenario)
        sent += 1
        if time.perf_counter() >= measured_from:
            samples.append((reply.seconds, len(reply.body), reply.queries, reply.status))
    client.close()
    return samples, sent


def _worker(port: int, scenario: str, match_id: str, seconds: float, start_at: float, queue: Any) -> None:
    """A load process: run the loop and hand the samples back."""
    try:
        queue.put(_loop(port, scenario, match_id, seconds, start_at))
    except Exception as error:  # the parent reports it
        queue.put(error)


@dataclass
class Run:
    """What a run of one request kind gave: its samples, the measured wall time, and the server's CPU
    time per request (all the requests sent, the first second's too), when the server's pid was given."""

    samples: list[tuple]
    seconds: float
    cpu_ms: float | None = None


def run(port: int, scenario: str, match_id: str, seconds: float, processes: int, server_pid: int | None = None) -> Run:
    """Run `processes` load processes at once for `seconds`.

    The server's CPU time is the one figure a machine shared with other work hardly moves:
    the latencies wait for a core, the work done per request stays the same.
    """
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    start_at = time.time() + 1.0
    workers = [
        ctx.Process(target=_worker, args=(port, scenario, match_id, seconds, start_at, queue)) for _ in range(processes)
    ]
    cpu_before = cpu_seconds(server_pid) if server_pid else 0.0
    for worker in workers:
        worker.start()
    samples: list[tuple] = []
    sent = 0
    for _ in workers:
        got = queue.get(timeout=seconds + 120)
        if isinstance(got, Exception):
            raise got
        samples.extend(got[0])
        sent += got[1]
    cpu = (cpu_seconds(server_pid) - cpu_before) * 1000 / max(1, sent) if server_pid else None
    for worker in workers:
        worker.join()
    return Run(samples, seconds, cpu)
