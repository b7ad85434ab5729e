"""Serve the app on all interfaces (gunicorn, or waitress) and show phones where to find it."""

from __future__ import annotations

import os
from pathlib import Path

import segno
from flask import Flask
from waitress import serve as waitress_serve

from .backup import keep_daily_backups
from .network import lan_addresses
from .tls import ensure_certificate

# gunicorn's worker classes by SERVER name; the default holds slow clients (see serve()).
WORKER_CLASSES = {"gunicorn": "gevent", "gevent": "gevent", "gthread": "gthread"}
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

    gunicorn serves by default, WORKERS (2) processes: a club evening of 100 tables keeps
    800 phones polling, more than one Python process can answer on its own (`make bench`:
    waitress alone held 50 tables). Each worker is a gevent loop, so a connection costs a
    greenlet, not a thread: a phone on a bad line, or 48 connections that send half a
    request and then a header every 3 s, wait on their own while the rest are answered
    (tests/reliability/test_slow_clients.py; gunicorn's threaded worker handed each such
    connection a thread that blocked reading it, and 16 of them stopped the server). All
    state is in the database, so the workers need nothing shared. SERVER=gthread serves
    with THREADS (8) threads per worker instead, SERVER=waitress from one waitress process
    (it reads each request whole before a thread takes it, but holds fewer tables).
    HTTPS=1 adds TLS with a self-signed certificate: phones allow the service worker and
    wake lock only there.
    """
    port = int(os.environ.get("PORT", "5000"))
    threads = int(os.environ.get("THREADS", "8"))
    https = os.environ.get("HTTPS", "") not in ("", "0")
    server = os.environ.get("SERVER", "gunicorn")
    addresses = lan_addresses()
    keep_daily_backups(app)
    print(announcement(addresses, port, https), flush=True)
    if addresses:
        segno.make(f"{'https' if https else 'http'}://{addresses[0]}:{port}/", error="m").terminal(compact=True)
    if server == "waitress" and not https:
        # Every phone following a match keeps its connection open: a club evening of 100
        # tables is 800 of them. waitress stops accepting at 100 by default, and its select()
        # loop cannot watch more than 1024 sockets, so poll() and a higher limit.
        # waitress reads a body whole (to a file past 512 KB) before the app sees it: beyond a
        # few MB it answers 413 itself rather than spool 50 MB that the app refuses anyway.
        connections = int(os.environ.get("CONNECTIONS", "2000"))
        waitress_serve(app, host="0.0.0.0", port=port, threads=threads, ident="companion",
                       connection_limit=connections, asyncore_use_poll=True,
                       max_request_body_size=4 * app.config["MAX_CONTENT_LENGTH"])  # fmt: skip
        return
    cert = key = None
    if https:
        cert, key = ensure_certificate(Path(app.instance_path), addresses or ["127.0.0.1"])
        print("The certificate is self-signed: each phone asks once to accept it.", flush=True)
    serve_gunicorn(app, port, WORKER_CLASSES.get(server, "gevent"), threads, cert, key)


def fresh_connections(app: Flask) -> None:
    """In a forked worker: open its own database connections, never use the parent's."""
    from .extensions import db

    with app.app_context():
        for engine in db.engines.values():
            engine.dispose(close=False)


def serve_gunicorn(app: Flask, port: int, worker_class: str, threads: int, cert: Path | None, key: Path | None) -> None:
    """Serve with gunicorn's workers of this class, over HTTPS when given a certificate."""
    from gunicorn.app.base import BaseApplication

    class Server(BaseApplication):
        """gunicorn driven from Python instead of its command line."""

        def load_config(self) -> None:
            options = {
                "bind": f"0.0.0.0:{port}",
                "workers": int(os.environ.get("WORKERS", "2")),
                "worker_class": worker_class,
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

    Server().run()
