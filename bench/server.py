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


def seed(instance: Path, matches: int, root: Path = ROOT) -> float:
    """Create, migrate and fill an instance folder with `flask seed` of the app in `root`; returns the seconds."""
    began = time.perf_counter()
    flask = Path(sys.executable).with_name("flask")
    command = [str(flask), "--app", "app", "seed", "--matches", str(matches), "--seed", "11"]
    subprocess.run(command, cwd=root, env=app_env(instance), check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


class Server:
    """`python app.py` as `make run` starts it, in its own process, on a free port.

    `root` is the source tree it runs from: this one, or another commit's (`make bench BASE=...`).
    """

    def __init__(self, instance: Path, log: Path, root: Path = ROOT, **env: str):
        self.instance = instance
        self.root = root
        self.port = free_port()
        self.log = log
        self.env = app_env(instance, PORT=str(self.port), **env)
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Server:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "app.py"], cwd=self.root, env=self.env, stdout=out, stderr=subprocess.STDOUT
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


def source_tree(commit: str, into: Path) -> Path:
    """The files of another commit of this repository, unpacked into a folder (no git worktree)."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def describe(commit: str) -> str:
    """A commit's short id and subject, as the report names it."""
    done = subprocess.run(["git", "log", "-1", "--format=%h %s", commit], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip()[:80] or commit


def dirty() -> bool:
    """Whether this tree has changes not committed (the report says so beside the head's commit)."""
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True)
    return bool(done.stdout.strip())
