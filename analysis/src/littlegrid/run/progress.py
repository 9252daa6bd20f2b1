"""Progress of a grid run: JMeter's summariser lines parsed, the expected time, one status line per cell."""

from __future__ import annotations

import re
from dataclasses import dataclass

# JMeter prints e.g. `summary +    187 in 00:00:05 =   35.7/s Avg:     3 Min:     1 Max:    10 Err:     0 (0.00%) ...`
# (`+`: the last interval, `=`: since the start).
_SUMMARY = re.compile(
    r"^(?P<name>\S+)\s+(?P<kind>[+=])\s+(?P<count>\d+)\s+in\s+(?P<hms>[\d:]+)\s+=\s+(?P<rate>[\d.]+|NaN|Infinity)/s"
    r".*?Err:\s+(?P<errors>\d+)\s+\((?P<pct>[\d.]+|NaN)%\)")

SERVER_START_S = 12.0   # a first guess at one sample-server start, refined by measurement
JMETER_START_S = 4.0    # JMeter's JVM start and tear-down around each cell's duration


@dataclass(frozen=True)
class Summary:
    """One summariser line."""

    cumulative: bool  # `=` line (since start) rather than `+` (last interval)
    count: int
    seconds: int
    rate_per_s: float
    errors: int


def parse_summary(line: str, name: str = "summary") -> Summary | None:
    m = _SUMMARY.match(line.strip())
    if not m or m.group("name") != name:
        return None
    h, mi, s = ([0, 0] + [int(x) for x in m.group("hms").split(":")])[-3:]
    rate = m.group("rate")
    return Summary(cumulative=m.group("kind") == "=", count=int(m.group("count")), seconds=h * 3600 + mi * 60 + s,
                   rate_per_s=float(rate) if rate[0].isdigit() else 0.0, errors=int(m.group("errors")))


class Live:
    """What the summariser has said so far in one cell: the last interval's rate and the running totals."""

    def __init__(self):
        self.rate_per_s: float | None = None
        self.count = 0
        self.errors = 0
        self._interval_count = 0
        self._interval_errors = 0

    def feed(self, line: str) -> bool:
        s = parse_summary(line)
        if s is None:
            return False
        if s.cumulative:
            self.count, self.errors = s.count, s.errors
            self._interval_count = self._interval_errors = 0
        else:
            self.rate_per_s = s.rate_per_s
            # Before the first `=` line (JMeter prints it only once two intervals exist) add up the intervals.
            self._interval_count += s.count
            self._interval_errors += s.errors
        return True

    @property
    def totals(self) -> tuple[int, int]:
        return self.count + self._interval_count, self.errors + self._interval_errors

    def text(self) -> str:
        count, errors = self.totals
        if self.rate_per_s is None and count == 0:
            return "waiting for the first summary"
        rate = f"{self.rate_per_s:.1f}/s" if self.rate_per_s is not None else "-"
        pct = 100.0 * errors / count if count else 0.0
        return f"X {rate}  {count} samples  errors {errors} ({pct:.2f}%)"


def hms(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    h, rem = divmod(seconds, 3600)
    return f"{h}:{rem // 60:02d}:{rem % 60:02d}" if h else f"{rem // 60}:{rem % 60:02d}"


class Clock:
    """Expected time of the remaining cells: their durations plus a per-cell overhead learnt from the cells done.
    A precise cell's duration is its bound, max_s: the expected time is then the most the grid can take."""

    def __init__(self, durations: list[float], server_starts: int, server_warmup_s: float = 0.0):
        self.remaining = list(durations)
        self.server_starts = server_starts
        self.server_guess_s = SERVER_START_S + server_warmup_s  # a start and its warm-up ([server] warmup_s)
        self.overheads: list[float] = []
        self.server_start_s: list[float] = []

    def expected_total(self) -> float:
        overhead = sum(self.overheads) / len(self.overheads) if self.overheads else JMETER_START_S
        server = sum(self.server_start_s) / len(self.server_start_s) if self.server_start_s else self.server_guess_s
        return sum(self.remaining) + overhead * len(self.remaining) + server * self.server_starts

    def cell_done(self, duration_s: float, took_s: float, load_s: float | None = None) -> None:
        """A cell of `duration_s` (its bound) ended after `took_s`, of which `load_s` loaded the target (None: all
        of its duration): the rest is the overhead learnt (JMeter's start, a stop's grace)."""
        if duration_s in self.remaining:
            self.remaining.remove(duration_s)
        self.overheads.append(max(0.0, took_s - (duration_s if load_s is None else load_s)))

    def cell_skipped(self, duration_s: float) -> None:
        if duration_s in self.remaining:
            self.remaining.remove(duration_s)

    def server_started(self, took_s: float) -> None:
        self.server_starts = max(0, self.server_starts - 1)
        self.server_start_s.append(took_s)
