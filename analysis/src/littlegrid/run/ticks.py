"""A fixed schedule for the cell's samplers (the host's, run/metrics_sampler.py; each scraped source's,
run/observe.py): one action now and at each later multiple of the interval, until stopped, then once more."""

from __future__ import annotations

import math
import threading
import time
from typing import Callable


def every(interval_s: float, stop: threading.Event, act: Callable[[], None],
          clock: Callable[[], float] = time.monotonic) -> None:
    """act() at 0, interval_s, 2·interval_s, ... from now (no drift), and once more when `stop` is set, which
    closes the counters' last interval. A tick missed because act() overran it or the host was busy is skipped,
    never caught up in a burst: readings stay one per slot of the grid, so a rate between two of them is over
    at least one interval."""
    start, slot = clock(), 0
    while True:
        act()
        elapsed = clock() - start
        # the slot counted, not only read off the clock: a wait that ends a hair before its tick (or a difference
        # of floats rounded down) would otherwise schedule the same tick again, two readings a microsecond apart
        slot = max(slot + 1, math.floor(elapsed / interval_s) + 1)
        if stop.wait(max(0.0, slot * interval_s - elapsed)):
            act()
            return
