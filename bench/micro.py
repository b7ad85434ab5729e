"""One request kind at a time, from separate processes: latency, throughput, bytes, SQL queries."""

from __future__ import annotations

import multiprocessing as mp
import time
from typing import Any

from .client import HX, Client, create_match, save_round

SAVES_PER_MATCH = 30  # a medium Topic_ deck (36 cards) ends after 35 rounds
WARM_UP = 1.0  # seconds of each run that are not measured


def poll_headers(match_id: int, etag: str) -> dict[str, str]:
    """What htmx sends when the live block of the match page polls."""
    return {
        **HX,
        "HX-Trigger": "live",
        "HX-Target": "live",
        "HX-Current-URL": f"http://127.0.0.1/matches/{match_id}",
        "If-None-Match": etag,
    }


def _loop(port: int, scenario: str, match_id: int, seconds: float, start_at: float) -> list[tuple]:
    """Repeat one request kind until the time is up; each sample is (seconds, bytes, queries, status)."""
    client = Client(port)
    samples: list[tuple] = []
    number = 1
    if scenario == "save":
        match_id = create_match(client)
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
        else:
            raise ValueError(scenario)
        if time.perf_counter() >= measured_from:
            samples.append((reply.seconds, len(reply.body), reply.queries, reply.status))
    client.close()
    return samples


def _worker(port: int, scenario: str, match_id: int, seconds: float, start_at: float, queue: Any) -> None:
    """A load process: run the loop and hand the samples back."""
    try:
        queue.put(_loop(port, scenario, match_id, seconds, start_at))
    except Exception as error:  # the parent reports it
        queue.put(error)


def run(port: int, scenario: str, match_id: int, seconds: float, processes: int) -> tuple[list[tuple], float]:
    """Run `processes` load processes at once for `seconds`; returns all samples and the wall time."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    start_at = time.time() + 1.0
    workers = [
        ctx.Process(target=_worker, args=(port, scenario, match_id, seconds, start_at, queue)) for _ in range(processes)
    ]
    for worker in workers:
        worker.start()
    samples: list[tuple] = []
    for _ in workers:
        got = queue.get(timeout=seconds + 120)
        if isinstance(got, Exception):
            raise got
        samples.extend(got)
    for worker in workers:
        worker.join()
    return samples, seconds
