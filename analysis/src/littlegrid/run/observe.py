"""[observe]: every Prometheus endpoint the grid names (and the sample server's actuator, when the runner starts it)
scraped once a second through a cell, each on its own thread, into the cell's observed.csv; and the check, before
any load, that each one answers Prometheus text.

A source that fails or answers slowly is counted, never waited for: JMeter runs beside the scrapers and never
reads them, and a scraper's thread only ever delays its own next scrape. What is kept of a scrape: the samples the
mapping knows (littlegrid.analysis.observed.mapping.KNOWN_FAMILIES) and those the grid's own selectors name; node_exporter
exposes one to two thousand series a second, of which the mapping reads a few dozen.
"""

from __future__ import annotations

import csv
import math
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from littlegrid.analysis.observed.mapping import FAILED, KNOWN_FAMILIES
from littlegrid.analysis.observed.prometheus_text import exposition_problem, label_text, parse_prometheus
from littlegrid.run.ticks import every
from littlegrid.usererror import UserError

COLUMNS = ["time_ms", "source", "metric", "labels", "value"]
# What a scrape asks for: OpenMetrics or the text format, never the protobuf format some exporters prefer.
ACCEPT = "application/openmetrics-text;version=1.0.0;q=0.9,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
# A scrape not answered within its second is a failure (its reading would belong to the next second); one answered
# after half of it is slow: the time its figures are stamped with is then uncertain by more than a quarter second.
SLOW_FRACTION = 0.5
MAX_BYTES = 16 * 1024 * 1024  # an answer larger than this is not a metrics page


@dataclass
class SourceCount:
    """What happened to one source's scrapes in one cell (the cell manifest's "observe" entry)."""

    scrapes: int = 0
    failed: int = 0
    slow: int = 0
    errors: dict = field(default_factory=dict)  # problem -> times seen

    def as_json(self) -> dict:
        return {"scrapes": self.scrapes, "failed": self.failed, "slow": self.slow, "errors": dict(self.errors)}


def fetch(url: str, timeout_s: float) -> str:
    """The exposition at `url` as text; raises OSError/ValueError (urllib's) or ValueError for what is not one."""
    request = urllib.request.Request(url, headers={"Accept": ACCEPT})
    with urllib.request.urlopen(request, timeout=timeout_s) as r:
        body = r.read(MAX_BYTES + 1)
        if len(body) > MAX_BYTES:
            raise ValueError(f"answers more than {MAX_BYTES // (1024 * 1024)} MB")
        text = body.decode("utf-8", errors="replace")
        problem = exposition_problem(text, r.headers.get("Content-Type", ""))
        if problem:
            raise ValueError(problem)
        return text


def problem_of(error: Exception) -> str:
    """A failure in a few words: what the manifest counts and a refusal says."""
    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code}"
    reason = getattr(error, "reason", error)
    if isinstance(reason, (TimeoutError,)) or "timed out" in str(reason):
        return "timed out"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(error).__name__


def check_source(url: str, where: str, timeout_s: float = 5.0) -> None:
    """Refuse, in one line naming `where` (file:line), a source that does not answer Prometheus text now."""
    try:
        fetch(url, timeout_s)
    except (OSError, ValueError) as e:
        raise UserError(f"{where}: {url}: {problem_of(e)}")


class Observer:
    """Scrapes each source once a second on its own thread into one observed.csv, until stopped.

    `keep`: sample names kept beyond the known families (the user's selectors). Each scrape's rows carry the
    midpoint of its request and answer, the best estimate of when the source read its counters; rows are flushed
    per scrape, so a killed run keeps what was seen. A failed scrape is one row with its time and source and no
    metric. One last scrape at stop closes the counters' last interval."""

    def __init__(self, path: Path, sources: list[str], keep: frozenset[str] = frozenset(), interval_s: float = 1.0):
        self.path, self.sources, self.interval_s = path, list(dict.fromkeys(sources)), interval_s
        self.keep = KNOWN_FAMILIES | frozenset(keep)
        self.counts = {url: SourceCount() for url in self.sources}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, args=(url,), name=f"littlegrid-observe-{i}", daemon=True)
                         for i, url in enumerate(self.sources)]

    def __enter__(self) -> "Observer":
        self._file = self.path.open("w", newline="", encoding="utf-8")
        self._writer = csv.writer(self._file)
        self._writer.writerow(COLUMNS)
        self._file.flush()
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for t in self._threads:  # each at most one scrape's timeout away from its end
            t.join(timeout=self.interval_s + 1.0)
        with self._lock:
            self._file.close()

    def summary(self) -> dict:
        """Per source: scrapes, failed, slow and the problems seen (the cell manifest's "observe")."""
        return {url: c.as_json() for url, c in self.counts.items()}

    def _run(self, url: str) -> None:
        every(self.interval_s, self._stop, lambda: self._scrape(url))

    def _scrape(self, url: str) -> None:
        count = self.counts[url]
        sent, t0 = time.time(), time.monotonic()
        count.scrapes += 1
        try:
            text = fetch(url, self.interval_s)
        except (OSError, ValueError) as e:
            count.failed += 1
            problem = problem_of(e)
            count.errors[problem] = count.errors.get(problem, 0) + 1
            # its time and source, no metric: the analysis counts it in the window and measures the gap it leaves
            self._write([(int(sent * 1000), url, FAILED, "", "")])
            return
        took = time.monotonic() - t0
        if took > SLOW_FRACTION * self.interval_s:
            count.slow += 1
        time_ms = int((sent + took / 2) * 1000)
        rows = [(time_ms, url, name, label_text(labels), _value_text(value))
                for name, labels, value in parse_prometheus(text) if name in self.keep]
        self._write(rows)

    def _write(self, rows: list) -> None:
        with self._lock:
            if not self._file.closed:
                self._writer.writerows(rows)
                self._file.flush()


def _value_text(value: float) -> str:
    """NaN and ±Inf as the text format writes them; integers without '.0'."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)
