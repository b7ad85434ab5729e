"""Where this machine is found on the local network, for the address the phones at the table open."""

from __future__ import annotations

import socket


def lan_address() -> str:
    """This machine's address on the local network, from its host name, or loopback."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return "127.0.0.1"
    addresses = [info[4][0] for info in infos]
    return next((a for a in addresses if not a.startswith("127.")), "127.0.0.1")
