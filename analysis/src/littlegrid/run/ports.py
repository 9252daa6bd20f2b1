"""TCP ports free on 127.0.0.1, picked by the OS, for the processes littlegrid starts (the sample server, local
JMeter engines)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the OS picks it)."""
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """`count` different TCP ports free on 127.0.0.1 right now. All are held bound until every one is picked: ports
    picked one after another can be the same one (the OS hands a port back once its socket closes; 1 pair in
    20,000 measured), and two processes told the same port leave one failing to start."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()
