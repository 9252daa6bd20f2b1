"""A real PostgreSQL for a test: Debian's `postgresql` server binaries, a cluster made by initdb in a temporary
folder, listening on a free loopback port, stopped by its PID after (fast shutdown), its folder removed. As root
(a container, CI), the server runs as the `postgres` user the package creates: PostgreSQL refuses root."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from littlegrid.run.ports import free_port
from needs import missing


def server_bin() -> Path:
    """The newest installed major version's bin folder (Debian: /usr/lib/postgresql/<major>/bin)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"), key=lambda p: int(p.parts[-3])
                   if p.parts[-3].isdigit() else 0)
    if not found:
        missing("PostgreSQL", "Debian's `postgresql` is not installed (no /usr/lib/postgresql/*/bin/postgres); "
                "`apt-get install postgresql`, as .ci/run does")
    return found[-1].parent


@contextlib.contextmanager
def postgres():
    """Yields the URL of a fresh, empty database (user `littlegrid`, trust authentication on loopback only)."""
    bin_dir = server_bin()
    user = {}
    if os.geteuid() == 0:
        try:
            pw = pwd.getpwnam("postgres")
        except KeyError:
            missing("the postgres user", "running as root, and PostgreSQL refuses to; the package creates it")
        user = {"user": pw.pw_uid, "group": pw.pw_gid}
    folder = Path(tempfile.mkdtemp(prefix="littlegrid-pg-"))  # not under pytest's 0700 root-only folder
    data = folder / "data"
    if user:
        os.chown(folder, user["user"], user["group"])
    server = None
    try:
        subprocess.run([str(bin_dir / "initdb"), "-D", str(data), "-U", "littlegrid", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, **user)
        port = free_port()
        server = subprocess.Popen(
            [str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(folder),
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off"],
            stdout=subprocess.DEVNULL, stderr=(folder / "server.log").open("w"), **user)
        url = f"postgresql://littlegrid@127.0.0.1:{port}/postgres"
        _wait_ready(url, server, folder / "server.log")
        yield url
    finally:
        if server is not None:
            server.send_signal(signal.SIGINT)  # fast shutdown: roll back, close connections, stop
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def _wait_ready(url: str, server: subprocess.Popen, log: Path, timeout_s: float = 30) -> None:
    import psycopg

    deadline = time.monotonic() + timeout_s
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"PostgreSQL exited with {server.returncode}: {log.read_text()[-2000:]}")
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
