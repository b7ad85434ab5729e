"""Fixtures that run the real server as a separate process on a free port with its own instance folder."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import ADDRESS_KEY, address_database, fresh_database
from tests.reliability.helpers import ROOT

BIN = Path(sys.executable).parent


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServerProcess:
    """`python app.py` as `make run` serves (gunicorn's gevent workers, as many as asked), started and killed."""

    def __init__(self, workers: int, instance: Path, database_url: str | None, log: Path):
        self.workers = workers
        self.name = f"{workers} worker{'s' if workers > 1 else ''}"
        self.instance = instance
        self.database_url = database_url
        self.log_path = log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @property
    def sqlite_file(self) -> Path:
        """Where the SQLite database lives when no DATABASE_URL is given."""
        return self.instance / "companion.sqlite"

    @property
    def db_url(self) -> str:
        """The SQLAlchemy URL of the server's database, for checks from the test."""
        return self.database_url or f"sqlite:///{self.sqlite_file}"

    def env(self) -> dict[str, str]:
        """The server's environment: its instance folder, port, and database."""
        env = dict(os.environ, COMPANION_INSTANCE=str(self.instance), PORT=str(self.port), WORKERS=str(self.workers))
        # The suite's key: the tests write the addresses of the matches they start.
        env["SECRET_KEY"] = ADDRESS_KEY
        env.pop("DATABASE_URL", None)
        if self.database_url:
            env["DATABASE_URL"] = self.database_url
        return env

    def command(self) -> list[str]:
        """The command line, as the README and the issue give it."""
        return [sys.executable, "app.py"]

    def start(self, timeout: float = 60) -> ServerProcess:
        """Start the server and wait until it answers."""
        log = open(self.log_path, "ab")
        # Its own process group, so gunicorn's workers go down with their master.
        self.process = subprocess.Popen(
            self.command(), cwd=ROOT, env=self.env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        self.starts += 1
        # The test writes the addresses of this server's rows.
        address_database(self.db_url)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not answer within {timeout} s:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL the whole server: no shutdown handler, no flush, as a power cut would."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        """A polite stop (SIGTERM), then SIGKILL if it lingers."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        """The tail of the server's output."""
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""


@pytest.fixture
def server_database() -> Iterator[str | None]:
    """A fresh PostgreSQL database for the server when the suite runs on PostgreSQL, else None (SQLite)."""
    with fresh_database() as url:
        yield url


@pytest.fixture
def start_server(tmp_path: Path, server_database: str | None):
    """A factory: start_server(workers) runs `make run`'s server with that many workers (one by default); every
    server is stopped after the test."""
    started: list[ServerProcess] = []

    def start(workers: int = 1) -> ServerProcess:
        instance = tmp_path / f"instance-{len(started)}"
        instance.mkdir(exist_ok=True)
        server = ServerProcess(workers, instance, server_database, tmp_path / f"server-{len(started)}.log")
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()
