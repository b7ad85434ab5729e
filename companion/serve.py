"""Serve the app on all interfaces (gunicorn, or waitress) and show phones where to find it."""

from __future__ import annotations

import os
from pathlib import Path

import segno
from flask import Flask
from waitress import serve as waitress_serve

from .backup import keep_daily_backups
from .network import lan_address
from .services import host
from .tls import ensure_certificate


def serve(app: Flask) -> None:
    """Listen on all interfaces, port PORT (5000), and print the address with its QR code.

    gunicorn serves by default, WORKERS (2) processes of THREADS (8) threads: a club
    evening of 100 tables keeps 800 phones polling, more than one Python process can
    answer on its own (`make bench`: waitress alone held 50 tables, two gunicorn workers
    100). All state is in the database, so the workers need nothing shared. SERVER=waitress
    serves from one process instead. HTTPS=1 adds TLS with a self-signed certificate:
    phones allow the service worker and wake lock only there.
    """
    port = int(os.environ.get("PORT", "5000"))
    threads = int(os.environ.get("THREADS", "8"))
    https = os.environ.get("HTTPS", "") not in ("", "0")
    address = lan_address()
    url = f"{'https' if https else 'http'}://{address}:{port}/"
    keep_daily_backups(app)
    print(f"\nTable companion: open {url} on the phones at the table.\n", flush=True)
    segno.make(url, error="m").terminal(compact=True)
    print_host_link(app, url.rstrip("/"))
    if https:
        cert, key = ensure_certificate(Path(app.instance_path), [address])
        print("The certificate is self-signed: each phone asks once to accept it.", flush=True)
        serve_gunicorn(app, port, threads, cert, key)
    elif os.environ.get("SERVER", "gunicorn") == "gunicorn":
        serve_gunicorn(app, port, threads, None, None)
    else:
        # Every phone following a match keeps its connection open: a club evening of 100
        # tables is 800 of them. waitress stops accepting at 100 by default, and its select()
        # loop cannot watch more than 1024 sockets, so poll() and a higher limit.
        connections = int(os.environ.get("CONNECTIONS", "2000"))
        waitress_serve(app, host="0.0.0.0", port=port, threads=threads, ident="companion",
                       connection_limit=connections, asyncore_use_poll=True)  # fmt: skip


def print_host_link(app: Flask, base_url: str) -> None:
    """A fresh host link with its QR code, for the host's phone alone: it gives host rights (see services/host.py)."""
    link = base_url + host.link_path(host.new_link_token(app))
    print(f"\nHost link, for the host's phone only (rename or merge players, import, delete or end any match, "
          f"take any pencil):\n{link}\n", flush=True)  # fmt: skip
    segno.make(link, error="m").terminal(compact=True)
    print("`flask --app app host-token --new` prints a new one and takes the rights from every phone.\n", flush=True)


def fresh_connections(app: Flask) -> None:
    """In a forked worker: open its own database connections, never use the parent's."""
    from .extensions import db

    with app.app_context():
        for engine in db.engines.values():
            engine.dispose(close=False)


def serve_gunicorn(app: Flask, port: int, threads: int, cert: Path | None, key: Path | None) -> None:
    """Serve with gunicorn's threaded workers, over HTTPS when given a certificate."""
    from gunicorn.app.base import BaseApplication

    class TlsServer(BaseApplication):
        """gunicorn driven from Python instead of its command line."""

        def load_config(self) -> None:
            options = {
                "bind": f"0.0.0.0:{port}",
                "workers": int(os.environ.get("WORKERS", "2")),
                "post_fork": lambda _server, _worker: fresh_connections(app),
                "threads": threads,
                "accesslog": None,
                "keepalive": 30,
                "worker_connections": 4000,
            }
            if cert and key:
                options.update(certfile=str(cert), keyfile=str(key))
            for name, value in options.items():
                self.cfg.set(name, value)

        def load(self) -> Flask:
            return app

    TlsServer().run()
