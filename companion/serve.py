"""Serve the app with waitress on all interfaces and show phones where to find it."""

from __future__ import annotations

import os
import socket

import segno
from flask import Flask
from waitress import serve as waitress_serve


def lan_address() -> str:
    """This machine's address on the local network, from its host name, or loopback."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return "127.0.0.1"
    addresses = [info[4][0] for info in infos]
    return next((a for a in addresses if not a.startswith("127.")), "127.0.0.1")


def serve(app: Flask) -> None:
    """Listen on all interfaces, port PORT (5000), and print the address with its QR code."""
    port = int(os.environ.get("PORT", "5000"))
    threads = int(os.environ.get("THREADS", "8"))
    url = f"http://{lan_address()}:{port}/"
    print(f"\nTable companion: open {url} on the phones at the table.\n", flush=True)
    segno.make(url, error="m").terminal(compact=True)
    waitress_serve(app, host="0.0.0.0", port=port, threads=threads, ident="companion")
