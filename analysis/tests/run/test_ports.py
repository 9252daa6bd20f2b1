"""ports.free_ports: different ports, each free once picked (the pair the sample server takes, an engine's two)."""

import socket

from littlegrid.run.ports import free_port, free_ports


def test_ports_picked_together_are_different_and_each_can_be_bound():
    for _ in range(20):
        ports = free_ports(40)
        assert len(set(ports)) == 40 and all(1024 <= p <= 65535 for p in ports)
    sockets = [socket.socket() for _ in ports]
    try:
        for s, port in zip(sockets, ports):
            s.bind(("127.0.0.1", port))  # raises were a port taken
    finally:
        for s in sockets:
            s.close()
    assert 1024 <= free_port() <= 65535
