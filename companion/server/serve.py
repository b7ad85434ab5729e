"""Serve the app on all interfaces (gunicorn's gevent workers) and show phones where to find it."""

from __future__ import annotations

from pathlib import Path

import segno
from flask import Flask

from ..config import Settings
from ..services import host
from ..web.network import lan_addresses
from .backup import keep_daily_backups
from .collector import collect_in_a_thread_of_its_own
from .tls import ensure_certificate

NO_NETWORK = "No network: phones cannot reach this laptop. Join the table's wi-fi, then start again."


def announcement(addresses: list[str], port: int, https: bool) -> str:
    """What the terminal says about where the phones should go: every usable address, or that there is none."""
    scheme = "https" if https else "http"
    if not addresses:
        return f"\n{NO_NETWORK}\n(This laptop itself can open {scheme}://localhost:{port}/.)\n"
    first, *others = addresses
    lines = [f"\nTable companion: open {scheme}://{first}:{port}/ on the phones at the table."]
    if others:
        lines.append("This laptop is on more than one network; phones on another one open:")
        lines += [f"  {scheme}://{address}:{port}/" for address in others]
    return "\n".join(lines) + "\n"


def serve(app: Flask) -> None:
    """Listen on all interfaces, port PORT (5000), and print the addresses with a QR code of the first.

    gunicorn keeps WORKERS (2) processes: a club evening of 100 tables keeps 400 phones
    polling, more than one Python process can answer on its own (`make bench`). All state is
    in the database, so the workers share nothing.
    Each worker is a gevent loop, a greenlet a connection: a phone that sends half a request and
    then a header every 3 s costs a greenlet, not a thread, while the other phones are answered
    (tests/reliability/test_slow_clients.py), a hall's phones may hold hundreds of connections,
    and the same workers speak TLS under HTTPS=1 (phones allow the service worker and wake lock
    only there). A long request (an import's checks) holds its worker's other phones meanwhile:
    the import stores its batches with a pause between them where the loop serves them.
    waitress's threads (the laptop's server until 2026-12) answered a hall of 100 tables at 2.5
    times gevent's poll p95 and had no TLS; gunicorn's threaded workers let a few slow
    connections stop the server (docs/performance.md).
    psycopg keeps the wait it picked in the master, before gevent's patches: a C wait that holds the
    worker until PostgreSQL answers. The cooperative wait lets the polls queued behind a save run between
    each of its statements: a hall's saves came out 1.5 to 13 times slower, for polls faster only where
    the poll board waited for its read under way rather than read beside it (docs/performance.md).
    """
    settings: Settings = app.config["SETTINGS"]
    port, https = settings.port, settings.https
    addresses = lan_addresses()
    keep_daily_backups(app)
    print(announcement(addresses, port, https), flush=True)
    if addresses:
        segno.make(f"{'https' if https else 'http'}://{addresses[0]}:{port}/", error="m").terminal(compact=True)
    print_host_link(app, f"{'https' if https else 'http'}://{addresses[0] if addresses else 'localhost'}:{port}")
    cert = key = None
    if https:
        cert, key = ensure_certificate(Path(app.instance_path), addresses or ["127.0.0.1"])
        print("The certificate is self-signed: each phone asks once to accept it.", flush=True)
    bind = f"{settings.listen}:{port}"
    serve_gunicorn(app, bind, settings.workers, cert, key)


def print_host_link(app: Flask, base_url: str) -> None:
    """A fresh host link with its QR code, for the host's phone alone: it gives host rights (see services/host.py)."""
    link = base_url + host.link_path(host.new_link_token(app))
    print(f"\nHost link, for the host's phone only (rename or merge players, import, delete or end any match, "
          f"take any pencil):\n{link}\n", flush=True)  # fmt: skip
    segno.make(link, error="m").terminal(compact=True)
    print("`flask --app app host-token --new` prints a new one and takes the rights from every phone.\n", flush=True)


def worker_started(app: Flask) -> None:
    """In a forked worker: its own database connections, never the parent's."""
    from ..extensions import db

    with app.app_context():
        for engine in db.engines.values():
            engine.dispose(close=False)


def worker_ready() -> None:
    """A worker set up, gevent's patches made: its collections made by a thread of its own (collector.py:
    CPython 3.11 otherwise corrupts the heap under SQLAlchemy's weakref callbacks). Started after the patches,
    under gevent that thread is a greenlet of the worker's own loop, not an OS thread beside it."""
    collect_in_a_thread_of_its_own()


def serve_gunicorn(app: Flask, bind: str, workers: int, cert: Path | None, key: Path | None) -> None:
    """Serve with gunicorn's gevent workers, over HTTPS when given a certificate."""
    from gunicorn.app.base import BaseApplication

    class Server(BaseApplication):
        """gunicorn driven from Python instead of its command line."""

        def load_config(self) -> None:
            options = {
                "bind": bind,
                "workers": workers,
                "worker_class": "gevent",
                "post_fork": lambda _server, _worker: worker_started(app),
                "post_worker_init": lambda _worker: worker_ready(),
                "accesslog": None,
                "keepalive": 30,
                "worker_connections": 4000,
                # A gevent worker tells the arbiter it lives between requests only: an import of a
                # few thousand matches must not get it killed at gunicorn's usual 30 s.
                "timeout": 300,
            }
            if cert and key:
                options.update(certfile=str(cert), keyfile=str(key))
            for name, value in options.items():
                self.cfg.set(name, value)

        def load(self) -> Flask:
            return app

    Server().run()
