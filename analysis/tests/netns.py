"""Network namespaces as hosts of their own for tests: a bridge in the root namespace (the controller's, where JMeter
and `littlegrid run` stay) and one namespace per role hanging off it by a veth pair, each with its own address;
processes started inside a namespace and stopped by their PID at the end, also on failure.

Needs root and `ip netns` (CI runs as root): `netns_available` skips saying why (fails under CI). Traffic goes only
to the addresses of the namespaces made here, on a private /24 of the test's choosing on its own bridge.
"""

import os
import shutil
import signal
import socket
import subprocess
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from needs import missing


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


@contextmanager
def namespaces(tag: str, net: str, roles: dict[str, str]):
    """A bridge `lgbr<tag>` holding `<net>.1` in the root namespace and one namespace per role, each with its
    address (`roles`: role -> address in `<net>.0/24`) on a veth pair to the bridge: yields {role: namespace}.
    Removed on the way out whatever happened (deleting a namespace deletes its veth pair)."""
    bridge, made = f"lgbr{tag}", []
    try:
        ip("link", "add", bridge, "type", "bridge")
        ip("addr", "add", f"{net}.1/24", "dev", bridge)
        ip("link", "set", bridge, "up")
        names = {}
        for i, (role, address) in enumerate(roles.items()):
            ns, outside = f"lg{tag}{role}", f"lgv{tag}{i}"
            ip("netns", "add", ns)
            made.append(ns)
            ip("link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", ns)
            ip("link", "set", outside, "master", bridge)
            ip("link", "set", outside, "up")
            ip("-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
            ip("-n", ns, "link", "set", "eth0", "up")
            ip("-n", ns, "link", "set", "lo", "up")
            names[role] = ns
        yield names
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
        subprocess.run(["ip", "link", "del", bridge], capture_output=True, timeout=30)


def start_in(ns: str, cmd: list[str], log: Path, stack: ExitStack, cwd: Path | None = None) -> subprocess.Popen:
    """cmd inside namespace ns (ip netns exec execs it: the PID is the command's own), in a session of its own,
    stopped by that PID's process group when `stack` closes: TERM, then KILL after 15 s."""
    out = log.open("w")
    process = subprocess.Popen(["ip", "netns", "exec", ns, *cmd], stdin=subprocess.DEVNULL, stdout=out,
                               stderr=subprocess.STDOUT, start_new_session=True, cwd=cwd)

    def stop():
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        out.close()

    stack.callback(stop)
    return process


def wait_listening(address: str, port: int, process: subprocess.Popen, log: Path, timeout_s: float = 90) -> None:
    """Until address:port accepts a connection; fails naming the log if the process exits or the time runs out."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert process.poll() is None, f"exited with {process.returncode}: {log.read_text()[-2000:]}"
        with socket.socket() as s:
            s.settimeout(0.5)
            if s.connect_ex((address, port)) == 0:
                return
        time.sleep(0.3)
    pytest.fail(f"{address}:{port} not listening after {timeout_s:.0f} s ({log})")


@pytest.fixture
def netns_available():
    """Root and a working `ip netns`, or skip saying which is missing (fail under CI)."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        missing("root and iproute2", "the namespace test creates network namespaces and veth pairs")
    probe = f"lgprobe{os.getpid() % 100000}"
    done = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if done.returncode != 0:
        missing("ip netns", done.stderr.strip())
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
