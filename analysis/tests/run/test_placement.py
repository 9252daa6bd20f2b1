"""Where the target runs, recorded before any load without the network: a loopback address or one this host can
bind is this host; any other (another machine, or another network namespace on this one, whose addresses this host
cannot bind) is elsewhere; a name that does not resolve is unknown."""

import re
import socket
from pathlib import Path

import pytest

from littlegrid.run import placement


def own_addresses() -> list[str]:
    """This host's own non-loopback IPv4 addresses, as the kernel's routing trie lists its LOCAL ones."""
    trie = Path("/proc/net/fib_trie")
    if not trie.is_file():
        return []
    found, last = [], None
    for line in trie.read_text().splitlines():
        m = re.search(r"\|-- (\d+\.\d+\.\d+\.\d+)$", line)
        if m:
            last = m.group(1)
        elif "/32 host LOCAL" in line and last and not last.startswith("127."):
            found.append(last)
    return sorted(set(found))


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "127.0.1.1", "localhost"])
def test_a_loopback_address_is_this_host(host):
    record = placement.placement(host, 8080)
    assert record["placement"] == "this_host" and record["port"] == 8080 and record["addresses"]


def test_an_address_of_this_host_is_this_host():
    addresses = own_addresses()
    if not addresses:
        pytest.skip("this host has no address besides loopback")
    record = placement.placement(addresses[0], 8080)
    assert record == {"host": addresses[0], "port": 8080, "addresses": [addresses[0]], "placement": "this_host"}


@pytest.mark.parametrize("host", ["198.51.100.7", "10.231.0.2", "2001:db8::7"])
def test_an_address_this_host_cannot_bind_is_elsewhere(host):
    # 10.231.0.2: the address a network namespace's veth end would have, not bindable outside the namespace
    assert host not in own_addresses()
    record = placement.placement(host, 8080)
    assert record["placement"] == "elsewhere" and record["addresses"] == [host]


def test_a_name_that_does_not_resolve_is_unknown(monkeypatch):
    def no_such_name(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)
    assert placement.placement("orders.internal", 8080) == {"host": "orders.internal", "port": 8080,
                                                             "addresses": [], "placement": "unknown"}


def test_a_source_url_is_placed_by_its_host_and_port():
    assert placement.of_url("http://127.0.0.1:9100/metrics")["placement"] == "this_host"
    far = placement.of_url("http://198.51.100.7:9100/metrics")
    assert (far["host"], far["port"], far["placement"]) == ("198.51.100.7", 9100, "elsewhere")


def test_a_url_without_a_port_answers_on_its_schemes():
    assert placement.of_url("http://198.51.100.7/metrics")["port"] == 80
    assert placement.of_url("https://198.51.100.7/metrics")["port"] == 443


def test_every_cells_target_is_recorded_once_with_a_port_or_host_axis():
    # a port axis (two deployments on one host) and a host axis (the same service on two hosts): each cell's own
    # host and port, [target]'s where the cell names none
    cells = [{"port": 8080}, {"port": "8090"}, {"port": 8090}, {"host": "198.51.100.7"}, {}]
    records = placement.of_targets("127.0.0.1", 8080, cells)
    assert [(r["host"], r["port"], r["placement"]) for r in records] == [
        ("127.0.0.1", 8080, "this_host"), ("127.0.0.1", 8090, "this_host"), ("198.51.100.7", 8080, "elsewhere")]
