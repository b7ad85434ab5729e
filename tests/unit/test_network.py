"""Which address `make run` tells the phones to open (over a faked socket layer), and which server it runs."""

from __future__ import annotations

import socket

import pytest

from companion.server.serve import NO_NETWORK, announcement
from companion.web import network


class FakeSockets:
    """The parts of the `socket` module that network.py uses, answering from a made-up machine."""

    AF_INET = socket.AF_INET
    SOCK_DGRAM = socket.SOCK_DGRAM
    inet_ntoa = staticmethod(socket.inet_ntoa)

    def __init__(self, routed=None, interfaces=None, host_name="laptop", resolves=("127.0.1.1",)):
        self.routed = routed
        self.interfaces = interfaces or {}
        self.host_name = host_name
        self.resolves = resolves
        self.connected_to: list[tuple] = []
        self.sent: list[bytes] = []

    def socket(self, family, kind):
        assert (family, kind) == (socket.AF_INET, socket.SOCK_DGRAM)
        return FakeSocket(self)

    def if_nameindex(self):
        return list(enumerate(self.interfaces, start=1))

    def gethostname(self):
        return self.host_name

    def getaddrinfo(self, host, port, family):
        if host != self.host_name or self.resolves is None:
            raise socket.gaierror("unknown host")
        return [(family, socket.SOCK_STREAM, 6, "", (address, 0)) for address in self.resolves]


class FakeSocket:
    """A UDP socket of the fake machine: connect() picks the routed source address, sending nothing."""

    def __init__(self, machine: FakeSockets):
        self.machine = machine
        self.source = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def connect(self, destination):
        self.machine.connected_to.append(destination)
        if self.machine.routed is None:
            raise OSError(101, "Network is unreachable")
        self.source = self.machine.routed

    def send(self, data):  # pragma: no cover - finding the address must never send
        self.machine.sent.append(data)

    sendto = sendall = send

    def getsockname(self):
        return (self.source, 40000)

    def fileno(self):
        return 3


def fake_ioctl(machine: FakeSockets):
    """ioctl(SIOCGIFADDR) of the fake machine: the interface's address, or OSError when it has none."""

    def ioctl(_fd, request, argument):
        assert request == network.SIOCGIFADDR
        name = argument[:16].rstrip(b"\0").decode()
        address = machine.interfaces.get(name)
        if address is None:
            raise OSError(99, "Cannot assign requested address")
        return argument[:20] + socket.inet_aton(address) + argument[24:]

    return ioctl


@pytest.fixture
def machine(monkeypatch):
    """Install a fake machine under network.py; the test then describes it."""

    def install(**description) -> FakeSockets:
        fake = FakeSockets(**description)
        monkeypatch.setattr(network, "socket", fake)
        monkeypatch.setattr(network.fcntl, "ioctl", fake_ioctl(fake))
        return fake

    return install


def test_the_routed_address_comes_first_not_the_host_names_loopback(machine):
    # Debian and Ubuntu map the host name to 127.0.1.1: the old lookup gave the phones loopback.
    fake = machine(routed="192.168.1.23", interfaces={"lo": "127.0.0.1", "wlan0": "192.168.1.23"})
    assert network.lan_addresses() == ["192.168.1.23"]
    assert network.lan_address() == "192.168.1.23"
    assert fake.sent == [] and fake.connected_to, "the route is asked by connecting, never by sending"


def test_every_usable_address_is_listed_the_routed_one_first(machine):
    machine(
        routed="10.0.0.5",
        interfaces={"lo": "127.0.0.1", "eth0": "192.168.1.23", "wlan0": "10.0.0.5", "eth1": "169.254.3.4"},
        resolves=("127.0.1.1", "192.168.1.23"),
    )
    assert network.lan_addresses() == ["10.0.0.5", "192.168.1.23"]


def test_without_a_route_the_interfaces_are_read(machine):
    machine(routed=None, interfaces={"lo": "127.0.0.1", "docker0": None, "wlan0": "192.168.43.7"})
    assert network.lan_addresses() == ["192.168.43.7"]


def test_no_network_gives_no_address_and_loopback_for_the_share_page(machine):
    machine(routed=None, interfaces={"lo": "127.0.0.1"}, resolves=None)
    assert network.lan_addresses() == []
    assert network.lan_address() == "127.0.0.1"


@pytest.mark.parametrize("address", ["127.0.1.1", "169.254.10.1", "0.0.0.0", "224.0.0.1", "::1", "fe80::1", "x"])
def test_addresses_a_phone_cannot_open_are_not_usable(address):
    assert not network.usable(address)


def test_the_terminal_names_the_address_and_every_other_one():
    text = announcement(["192.168.1.23", "10.0.0.5"], 5000, https=False)
    assert "open http://192.168.1.23:5000/ on the phones" in text
    assert "http://10.0.0.5:5000/" in text
    assert "127.0.0.1" not in text


def test_the_terminal_says_clearly_when_there_is_no_network():
    text = announcement([], 5000, https=True)
    assert NO_NETWORK in text
    assert "no network: phones cannot reach this laptop" in text.lower()
    assert "https://localhost:5000/" in text
