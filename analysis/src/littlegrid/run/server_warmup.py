"""Warming a freshly started sample server before its first cell: requests to the grid's target for [server]
warmup_s seconds, so the JIT has compiled the path the cells measure. On one pinned CPU the sample server's X climbed
from 53 to 125/s through its first 20 s and crept on to about 40 s; a cell's own warm-up trim cannot hold that
without making every cell that long. The warm-up's requests are not recorded: they are no part of any cell."""

from __future__ import annotations

import http.client
import threading
import time
from dataclasses import dataclass

THREADS = 8  # concurrent requests: enough to keep a CPU-bound path busy on every core and a waiting one (a proxy) warm
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Warmup:
    """What the warm-up did: requests answered (any status), and requests that failed to connect or read."""

    seconds: float
    requests: int
    failures: int


def warm(host: str, port: int, path: str, seconds: float, method: str = "GET", body: str | None = None,
         threads: int = THREADS) -> Warmup:
    """Send requests to http://host:port/path from `threads` keep-alive connections until `seconds` have passed."""
    deadline = time.monotonic() + seconds
    counts = [[0, 0] for _ in range(threads)]  # per thread: answered, failed
    payload = body.encode("utf-8") if body else None

    def loop(mine: list) -> None:
        connection = None
        while time.monotonic() < deadline:
            try:
                if connection is None:
                    connection = http.client.HTTPConnection(host, port, timeout=TIMEOUT_S)
                connection.request(method, path, body=payload)
                connection.getresponse().read()
                mine[0] += 1
            except (OSError, http.client.HTTPException):
                mine[1] += 1
                if connection is not None:
                    connection.close()
                connection = None
                time.sleep(0.05)  # a refusing server is not hammered
        if connection is not None:
            connection.close()

    started = time.monotonic()
    workers = [threading.Thread(target=loop, args=(c,), daemon=True) for c in counts]
    for w in workers:
        w.start()
    for w in workers:
        w.join(seconds + TIMEOUT_S + 1)
    return Warmup(time.monotonic() - started, sum(c[0] for c in counts), sum(c[1] for c in counts))
