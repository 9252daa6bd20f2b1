"""Where a host runs, as seen from this one, recorded before any load: "this_host" for a loopback address or an
address this host can bind (one of its own interfaces'), "elsewhere" for any other (another machine, or another
network namespace on this one, whose addresses this host cannot bind: for the measurements it is another host),
"unknown" when the name does not resolve. The generator's host figures are the server's only for this_host."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

THIS_HOST, ELSEWHERE, UNKNOWN = "this_host", "elsewhere", "unknown"
DEFAULT_PORTS = {"http": 80, "https": 443}


def addresses(host: str) -> list[str]:
    """The addresses `host` resolves to (an address resolves to itself, without the network); [] when it does not."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    return list(dict.fromkeys(info[4][0] for info in infos))


def is_this_host(address: str) -> bool:
    """A loopback address, or one this host can bind (an address of one of its interfaces)."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if ip.is_loopback:
        return True
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.bind((address, 0))
        return True
    except OSError:
        return False


def placement(host: str, port: int | None = None) -> dict:
    """The run manifest's record of a host: {host, port, addresses, placement}."""
    found = addresses(host)
    where = UNKNOWN if not found else THIS_HOST if any(is_this_host(a) for a in found) else ELSEWHERE
    return {"host": host, "port": port, "addresses": found, "placement": where}


def of_url(url: str) -> dict:
    """The record of the host a URL's figures measure, and the port it answers on (the scheme's when not given)."""
    parts = urlsplit(url)
    return placement(parts.hostname or "", parts.port or DEFAULT_PORTS.get(parts.scheme))


def of_targets(host: str, port: int | None, cells: list[dict]) -> list[dict]:
    """The record of every target the cells load, each host and port once: [target]'s host and port, unless a
    cell's own properties (a host or port axis) name another. Each host is resolved once."""
    pairs = dict.fromkeys((str(c.get("host") or host), _port(c.get("port"), port)) for c in cells)
    hosts = {h: placement(h) for h in dict.fromkeys(h for h, _ in pairs)}
    return [{**hosts[h], "port": p} for h, p in pairs]


def _port(value, default: int | None) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else default
    except (TypeError, ValueError):
        return default
