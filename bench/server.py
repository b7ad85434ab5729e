"""The app under test: seeded instance folders and `python app.py` (as `make run` serves) on a free port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def app_env(instance: Path, **extra: str) -> dict[str, str]:
    """The environment `make run` would have, pointed at one instance folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "HTTPS", "PORT")}
    env.update(COMPANION_INSTANCE=str(instance), FLASK_APP="app", PYTHONUNBUFFERED="1", **extra)
    return env


def seed(instance: Path, matches: int) -> float:
    """Create, migrate and fill an instance folder with `flask seed`; returns the seconds it took."""
    began = time.perf_counter()
    flask = Path(sys.executable).with_name("flask")
    command = [str(flask), "--app", "app", "seed", "--matches", str(matches), "--seed", "11"]
    subprocess.run(command, cwd=ROOT, env=app_env(instance), check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


class Server:
    """`python app.py` as `make run` starts it, in its own process, on a free port."""

    def __init__(self, instance: Path, log: Path, **env: str):
        self.instance = instance
        self.port = free_port()
        self.log = log
        self.env = app_env(instance, PORT=str(self.port), **env)
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Server:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "app.py"], cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped on start; see {self.log}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/ping", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"the server did not answer in 60 s; see {self.log}")

    def __exit__(self, *exc) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    @property
    def url(self) -> str:
        """Where the server listens."""
        return f"http://127.0.0.1:{self.port}"
