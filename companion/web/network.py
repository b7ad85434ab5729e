"""The addresses at which the other devices on the local network can reach this machine."""

from __future__ import annotations

import ipaddress
import socket
import struct
import sys

try:
    import fcntl
except ImportError:  # Windows: the interfaces are then read from the host name only
    fcntl = None  # type: ignore[assignment]

# Connecting a UDP socket sends nothing: the kernel only picks the route, and with it the
# source address, that a packet to this address would leave from. A documentation address
# (RFC 5737) is routed like any public one, and no host ever answers for it.
ROUTE_PROBE = ("192.0.2.1", 9)

# ioctl(SIOCGIFADDR): an interface's IPv4 address, for the machines whose route gives none.
SIOCGIFADDR = 0xC0206921 if sys.platform == "darwin" else 0x8915


def usable(address: str) -> bool:
    """An IPv4 address that a phone on the same network could open: not loopback, not link-local."""
    try:
        parsed = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return not (parsed.is_loopback or parsed.is_link_local or parsed.is_unspecified or parsed.is_multicast)


def routed_address() -> str | None:
    """The source address of the default route, as servers find theirs; None without a route."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(ROUTE_PROBE)
            return probe.getsockname()[0]
    except OSError:
        return None


def interface_addresses() -> list[str]:
    """The IPv4 address of every network interface that has one, in the system's order."""
    if fcntl is None:
        return []
    found = []
    try:
        interfaces = socket.if_nameindex()
    except OSError:
        return []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as handle:
        for _index, name in interfaces:
            request = struct.pack("256s", name.encode()[:15])
            try:
                answer = fcntl.ioctl(handle.fileno(), SIOCGIFADDR, request)
            except OSError:  # an interface without an IPv4 address
                continue
            found.append(socket.inet_ntoa(answer[20:24]))
    return found


def host_name_addresses() -> list[str]:
    """The IPv4 addresses the machine's host name resolves to (Debian maps it to 127.0.1.1)."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return []
    return [info[4][0] for info in infos]


def lan_addresses() -> list[str]:
    """Every usable address of this machine, the one on the default route first; empty with no network."""
    candidates = [routed_address(), *interface_addresses(), *host_name_addresses()]
    ordered: list[str] = []
    for address in candidates:
        if address and usable(address) and address not in ordered:
            ordered.append(address)
    return ordered


def lan_address() -> str:
    """The address to give the phones: the first usable one, or loopback when there is no network."""
    return next(iter(lan_addresses()), "127.0.0.1")


def host_names() -> list[str]:
    """The names this machine answers to on the network: its host name and its mDNS (.local) name."""
    name = socket.gethostname().strip().lower()
    if not name:
        return []
    short = name.split(".")[0]
    return list(dict.fromkeys([name, short, f"{short}.local"]))
