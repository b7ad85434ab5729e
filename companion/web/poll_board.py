"""The polled addresses' states read together a few times a second, so that an unchanged poll asks no statement."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection, Engine, event

State = TypeVar("State")

# How long a read stands for another app server's writes: a change made there reaches a phone this much later at
# most. A write of this app server, in any of its workers, makes the board stale at once (its commits are counted).
FRESH_FOR = 0.25
# An address polled this long ago is no longer read with the others.
FORGET_AFTER = 5.0


class CommitCount:
    """How many transactions this app server committed on an engine, in memory all its processes share (gunicorn
    forks its workers from the process that made it): a board read before the last commit is stale, whichever
    worker wrote. Another app server's writes show within FRESH_FOR."""

    def __init__(self, engine: Engine):
        self.shared = multiprocessing.Value("Q", 0)
        event.listen(engine, "commit", self.committed)

    @property
    def count(self) -> int:
        """The commits so far."""
        return self.shared.value

    def committed(self, _connection: Any) -> None:
        with self.shared.get_lock():
            self.shared.value += 1


class PollBoard(Generic[State]):
    """The states of the addresses polled in the last few seconds, by address, all read in one statement when the
    board is older than FRESH_FOR or this app server committed since.

    A hall of 100 tables polls 800 times a second, each poll asking one statement for one address; the board asks
    one for all of them a few times a second. A state here may be up to FRESH_FOR old: the middleware answers 304
    only where the phone's tag is the board's, and sends any other poll on to Flask, which reads afresh.
    """

    def __init__(self, engine: Engine, commits: CommitCount,
                 read: Callable[[list[str], Connection], dict[str, State]]):  # fmt: skip
        self.engine = engine
        self.commits = commits
        self.read = read
        self.states: dict[str, State] = {}
        self.asked: dict[str, float] = {}
        self.read_addresses: frozenset[str] = frozenset()
        self.read_at = -FRESH_FOR
        self.read_after = -1
        self.reading = threading.Lock()

    def state(self, address: str) -> tuple[State | None, int]:
        """The state at this address (None where there is none), and the statements asked for it (0 or 1)."""
        now = time.monotonic()
        self.asked[address] = now
        if self.fresh(now) and address in self.read_addresses:
            return self.states.get(address), 0
        if not self.reading.acquire(blocking=False):
            # Another request of this process reads the board right now: this address alone, as before the board.
            with self.engine.connect() as connection:
                return self.read([address], connection).get(address), 1
        try:
            commits = self.commits.count
            # A copy first: under threads another request may add its address meanwhile.
            self.asked = {a: at for a, at in dict(self.asked).items() if now - at < FORGET_AFTER}
            wanted = list(self.asked)
            with self.engine.connect() as connection:
                self.states = self.read(wanted, connection)
            self.read_addresses = frozenset(wanted)
            self.read_at, self.read_after = now, commits
        finally:
            self.reading.release()
        return self.states.get(address), 1

    def fresh(self, now: float) -> bool:
        """Whether the last read stands: younger than FRESH_FOR, and no commit of this app server since."""
        return now - self.read_at < FRESH_FOR and self.commits.count == self.read_after
