"""The settings the environment gives the app, read once at start into one typed object (docs/settings.md)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass


def _whole_number(environ: Mapping[str, str], name: str, default: int) -> int:
    """A positive whole number from the environment, or a start-up error that names the variable."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name} must be a whole number of 1 or more, got {raw!r}")
    return int(raw)


def _choice(environ: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str:
    """One of a few words (the first when unset), or a start-up error that names the variable and the words."""
    raw = environ.get(name, "").strip().lower()
    if not raw:
        return choices[0]
    if raw not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
    return raw


def _flag(environ: Mapping[str, str], name: str) -> bool:
    """A switch: anything but unset, empty or "0" turns it on (`HTTPS=1`)."""
    return environ.get(name, "").strip() not in ("", "0")


def _networks(environ: Mapping[str, str], name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """A list of IP addresses or networks, separated by commas ("172.30.57.0/24, 10.0.0.5"); unset: `default`."""
    found = tuple(part.strip() for part in environ.get(name, "").split(",") if part.strip())
    for part in found:
        try:
            ipaddress.ip_network(part, strict=False)
        except ValueError:
            raise ValueError(f"{name}: {part!r} is not an IP address or network") from None
    return found or default


@dataclass(frozen=True)
class Settings:
    """Every setting the app takes from its environment; `create_app` puts it on `app.config["SETTINGS"]`."""

    port: int = 5000
    https: bool = False
    workers: int = 2
    database_url: str = ""
    instance: str = ""
    extra_hosts: tuple[str, ...] = ()
    count_queries: bool = False
    # On a server: the secret key shared by every app server of a site (else one is made per instance
    # folder), the proxy in front that ends the phones' HTTPS, the address to listen on, a line per
    # request on standard output, and the name each answer carries in X-Served-By.
    secret_key: str = ""
    behind_proxy: bool = False
    # Behind the proxy, the addresses or networks whose X-Forwarded-For and -Proto are believed (the proxy's):
    # a client reaching the app's port from anywhere else is counted by its own address. The default is
    # loopback and the network compose.yaml gives its containers.
    trusted_proxies: tuple[str, ...] = ("127.0.0.1/8", "::1", "172.30.57.0/24")
    listen: str = "0.0.0.0"
    access_log: bool = False
    served_by: str = ""
    # Where an installed copy keeps its instance folder without COMPANION_INSTANCE (XDG's data home).
    data_home: str = ""
    # Where the limits keep their counts (wrong codes, exports, imports): each process's memory, or a
    # store every process and server of a site shares (redis://…), so a limit means the same whatever
    # the number of them.
    limits_storage_url: str = "memory://"
    # "open": every phone that reaches the server is part of its one group (the laptop at the table);
    # "private": a phone sees a group's data only once it joined it by an invite link (a shared server).
    groups: str = "open"

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings of this process's environment (or of the mapping given, for a test)."""
        env = os.environ if environ is None else environ
        return cls(
            port=_whole_number(env, "PORT", cls.port),
            https=_flag(env, "HTTPS"),
            workers=_whole_number(env, "WORKERS", cls.workers),
            database_url=env.get("DATABASE_URL", "").strip(),
            instance=env.get("COMPANION_INSTANCE", "").strip(),
            extra_hosts=tuple(n.strip().lower() for n in env.get("COMPANION_HOSTS", "").split(",") if n.strip()),
            count_queries=env.get("COMPANION_COUNT_QUERIES", "").strip() == "1",
            secret_key=env.get("SECRET_KEY", "").strip(),
            behind_proxy=_flag(env, "BEHIND_PROXY"),
            trusted_proxies=_networks(env, "TRUSTED_PROXIES", cls.trusted_proxies),
            listen=env.get("LISTEN", "").strip() or cls.listen,
            access_log=_flag(env, "ACCESS_LOG"),
            served_by=env.get("SERVED_BY", "").strip(),
            data_home=env.get("XDG_DATA_HOME", "").strip(),
            limits_storage_url=env.get("LIMITS_STORAGE_URL", "").strip() or cls.limits_storage_url,
            groups=_choice(env, "COMPANION_GROUPS", ("open", "private")),
        )

    @property
    def private_groups(self) -> bool:
        """Whether the server keeps each group's data to its members (COMPANION_GROUPS=private)."""
        return self.groups == "private"

    @property
    def secure_cookies(self) -> bool:
        """Whether the phones reach the app over HTTPS (its own, or the proxy's): then every cookie is Secure."""
        return self.https or self.behind_proxy

    @property
    def scheme(self) -> str:
        """How the phones reach the server: "https" under HTTPS=1, else "http"."""
        return "https" if self.https else "http"
