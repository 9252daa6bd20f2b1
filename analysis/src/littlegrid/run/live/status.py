"""The live figures of a grid: the running cell from the rows read so far, the finished cells from the analysis.

Every figure comes from the functions the final summary uses (read_jtl, classify, window_of, the sample statistics'
and time series' accumulators, the scrapes' mapping, analyze_cell), so that the page and the report agree: a finished
cell's row *is* its summary entry's figures; the running cell's are the same formulas over the rows written so far,
counted batch by batch (counts.py), with the steady window starting after the warm-up and ending at the last sample
read (its cool-down is not known yet).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Protocol

import pandas as pd

from littlegrid.analysis import cells as cells_mod
from littlegrid.analysis.cell import analyze_cell
from littlegrid.analysis.modelling import curves
from littlegrid.analysis.observed import mapping, observed_sources, observed_window, server_metrics
from littlegrid.analysis.queueing import laws
from littlegrid.analysis.reading.error_classes import classify
from littlegrid.analysis.steady.window import EmptyWindow
from littlegrid.run.live.counts import EarlierStart, RunningCounts
from littlegrid.run.live.tailing import GrowingFile
from littlegrid.run.run_folder import read_json
from littlegrid.summary.model import Cell, Intended

# What the live view reads of each row; the messages only to classify errors (rows are counted, never kept).
LIVE_FIELDS = ("start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "label", "success", "response_code",
               "response_message", "failure_message", "thread", "all_threads")
FIGURES = ("count", "errors", "error_rate", "errors_by_class", "throughput_per_s", "successes_per_s", "mean_ms",
           "min_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms")
SERIES = ("t_s", "throughput", "errors", "p50_ms", "p90_ms", "p99_ms", "active_threads", "busy_threads", "in_flight",
          "load1")


class Counter(Protocol):
    """What CellRows counts a batch of rows into: `add` raises EarlierStart, counting nothing, for a row that
    started before the counter's anchor (the rows are then counted again from the file's start)."""

    def add(self, samples: pd.DataFrame, classes: pd.Series) -> None: ...


class _TransactionCounted(Exception):
    """A Transaction Controller's label was counted as requests before a row showed what it is."""


class CellRows:
    """The rows of one cell's results.jtl read so far, batch by batch of complete lines, through read_jtl, counted
    into RunningCounts (counts.py): memory holds one batch, never the rows read before it.

    The reader takes files, so each batch (the header, then the new complete lines) is written to a scratch file
    outside the run folder and read like any JTL. Transaction Controller rows are left out, as the analysis counts
    requests. Counts that cannot take a batch exactly are made again from the file's start (a re-read): a sample
    that started before every row counted so far (EarlierStart), or a label counted as requests that a later row
    shows to be a Transaction Controller's.
    """

    def __init__(self, jtl: Path, scratch: Path, *, warmup_s: float = 0.0, engines: int | None = 1,
                 engine_names: tuple = (), counter: Callable[[int | None], Counter] | None = None):
        self.tail = GrowingFile(jtl)
        self.scratch = scratch
        self.warmup_s, self.engines, self.engine_names = float(warmup_s), engines, tuple(engine_names)
        # what the batches are counted into: the live view's RunningCounts, or another counter of the same protocol
        # (the runner's stopping watcher counts answers per second, run/answered.py), made anew on a re-read
        self.counter = counter or (lambda first_start_ms: RunningCounts(
            self.warmup_s, self.engines, first_start_ms, engine_names=self.engine_names))
        self.transactions: set[str] = set()
        self.rereads = 0  # counts made again from the file's start (EarlierStart, a late Transaction Controller)
        self.reset()

    def reset(self, first_start_ms: int | None = None) -> None:
        """Counting starts over (from the file's start, when a re-read); `first_start_ms`: the anchor, if known."""
        self.counts = self.counter(first_start_ms)
        self.rows_read = 0
        self.rows_skipped = 0
        self.warnings: list[str] = []
        self._labels: set[str] = set()  # the labels counted as requests

    def update(self) -> int:
        """Reads what was appended since the last call; returns the number of new rows."""
        while True:
            try:
                return self._update()
            except EarlierStart as e:
                self._read_again(e.start_ms)
            except _TransactionCounted:
                self._read_again(None)

    def _read_again(self, first_start_ms: int | None) -> None:
        self.tail = GrowingFile(self.tail.path)
        self.reset(first_start_ms)
        self.rereads += 1

    def _update(self) -> int:
        from littlegrid.jtl import read_jtl

        data = self.tail.new_lines()
        if self.tail.restarted:  # a fresh file (the cell re-run): nothing of the old one holds
            self.transactions = set()
            self.reset()
        if not data.strip():
            return 0
        self.scratch.write_bytes((self.tail.header or b"") + data)
        reading = read_jtl(self.scratch, fields=LIVE_FIELDS)
        chunk = reading.samples
        found = set(reading.transaction_labels) - self.transactions
        self.transactions |= found
        if found & self._labels:  # counted as requests before: count again without them
            raise _TransactionCounted
        samples = chunk[~chunk["label"].isin(self.transactions)] if self.transactions and len(chunk) else chunk
        self.counts.add(samples, classify(samples))  # EarlierStart: nothing of this batch counted
        self._labels |= {str(label) for label in pd.unique(samples["label"].dropna())}
        self.rows_read += reading.rows_read
        self.rows_skipped += reading.skipped_total
        self.warnings = (self.warnings + [w.replace(str(self.scratch), str(self.tail.path)) for w in reading.warnings])[-5:]
        return len(chunk)


class MetricsRows:
    """The complete lines of a growing metrics CSV (host-metrics.csv), read by server_metrics.read_metrics (the
    analysis' reader)."""

    def __init__(self, path: Path):
        self.tail = GrowingFile(path)
        self._text = b""

    def _lines(self) -> bytes | None:
        data = self.tail.new_lines()
        if self.tail.restarted:
            self._text = b""
        self._text += data
        if self.tail.header is None or not self._text:
            return None
        return self.tail.header + self._text

    def frame(self) -> pd.DataFrame | None:
        text = self._lines()
        return None if text is None else server_metrics.read_metrics(io.BytesIO(text))


class ObservedRows(MetricsRows):
    """The complete lines of a growing observed.csv, mapped by the analysis' own mapping (analysis/observed/mapping.py)
    with the cell's port under test, [observe.pools] and sources (cells.observe_context, cells.cell_target,
    observed_sources): the server's figures the live page shows are the ones the report will."""

    def __init__(self, path: Path, run_dir: Path | None = None):
        super().__init__(path)
        manifest = (read_json(Path(run_dir) / cells_mod.MANIFEST) if run_dir is not None else None) or {}
        properties = ((read_json(Path(path).parent / cells_mod.MANIFEST) or {}).get("properties") or {})
        port, self.pools, places = cells_mod.observe_context(manifest)
        self.port = cells_mod.cell_port(properties, port)
        self.places = replace(places, target=cells_mod.cell_target(manifest, properties))

    def observed(self) -> LiveObserved | None:
        text = self._lines()
        if text is None:
            return None
        rows = csv.DictReader(io.StringIO(text.decode("utf-8", errors="replace")))
        own = observed_sources.of_cell(mapping.map_readings(mapping.readings_from_rows(rows), self.pools, self.port),
                                       self.places)
        return LiveObserved(own.found, self.port, own.target_host)


@dataclass(frozen=True)
class LiveObserved:
    """A running cell's mapped scrapes, with what picks the pool under test and the request source."""

    found: mapping.Observed
    port: int | None = None
    target_host: dict = field(default_factory=dict)

    @property
    def pool(self):
        return observed_window.pool_under_test(self.found, self.port, self.target_host)

    @property
    def requests(self):
        return observed_window.server_requests(self.found, self.target_host)


def running_cell(rows: CellRows, server: LiveObserved | None, host: pd.DataFrame | None) -> dict:
    """Figures and per-second series of a running cell from its rows so far (rows.counts).

    figures: the summary's STATS (without the distribution) over the window so far, [first start + warm-up,
    last end read]; None during the warm-up. series: time_series over the whole cell so far (1 s buckets up to
    the point budget, then the smallest power of two seconds within it), window_start_s at the end of the warm-up.
    server/host: their window figures so far. latest: the last reading of each gauge (what the server is doing now).
    """
    counts = rows.counts
    out = {"samples": 0, "figures": None, "series": None, "server": None, "host": None, "window": None,
           "latest": _latest(server, host), "note": None}
    if counts.samples == 0:
        out["note"] = "waiting for the first samples (JMeter writes them in 8 KiB blocks)"
        return out
    out["samples"] = counts.samples
    try:
        counts.whole()
    except EmptyWindow:
        out["note"] = "too few samples for a time axis yet"
        return out
    points = observed_window.series_points(server.found, server.pool, server.target_host) if server else None
    series = counts.series_result(points, host)
    out["series"] = {k: series[k] for k in SERIES} | {"window_start_s": counts.warmup_s, "bucket_s": series["bucket_s"]}
    try:
        window = counts.window()
    except EmptyWindow:
        out["note"] = f"in the warm-up ({counts.warmup_s:g} s from the first sample): no steady-state figures yet"
        return out
    stats = counts.stats_result(window.length_s)
    out["figures"] = {k: stats[k] for k in FIGURES}
    out["window"] = window.as_dict()
    out["server"] = (observed_window.server_block(server.found, window, server.port, server.target_host)
                     if server is not None else None)
    out["host"] = server_metrics.host_figures(host, window) if host is not None else None
    return out


def _latest(server: LiveObserved | None, host: pd.DataFrame | None) -> dict:
    """The last reading of each gauge: the server's through the mapping, the generator's host's from its CSV."""
    def last(frame, column):
        if frame is None or column not in frame.columns:
            return None
        values = frame[column].dropna()
        return float(values.iloc[-1]) if len(values) else None

    def last_of(seconds, name):
        values = [v for s in seconds if (v := getattr(s, name)) is not None]
        return float(values[-1]) if values else None
    pool = server.pool if server is not None else None
    requests = server.requests if server is not None else None
    served = requests.seconds if requests is not None else ()
    return {"busy_threads": last_of(pool.seconds, "busy") if pool is not None else None,
            "in_flight": last_of(served, "in_flight"), "connections": last_of(served, "connections"),
            "load1": last(host, "load1"), "cpu_util": last(host, "cpu_util")}


def analyze_finished(run_dir: Path, cell_id: str) -> Cell | None:
    """The summary entry (a model.Cell) of one finished cell of a run folder, by analyze_cell with the run's own
    tolerances and trims: the figures `littlegrid analyze` will write for it. None if the folder does not list the
    cell."""
    found = cells_mod.from_run_folder(Path(run_dir))
    cell = next((c for c in found.cells if c.id == cell_id), None)
    if cell is None:
        return None
    entry, *_ = analyze_cell(cell, None, None, False, laws.tolerances(found.tolerances))
    return entry


def unanalysed(cell_id: str, reason: str) -> Cell:
    """The entry of a finished cell the live view could not analyse: its id and why, no figures."""
    return Cell(id=cell_id, axes={}, status="not analysed", reason=reason, warnings=[], reading=None, window=None,
                users=None, intended=Intended(think_ms=None, think_dist=None, think_offset_ms=None, rate_per_s=None,
                                              workload=None),
                overall=None, labels={}, errors=None, label_series=None, think_time=None, server=None, host=None,
                series=None, histogram=None, checks=[])


def finished_row(entry: Cell) -> dict:
    """The grid table's row of a finished cell: its steady-state figures and check outcomes, from its entry."""
    overall, server, host = entry.overall, entry.server, entry.host
    return {"id": entry.id, "axes": entry.axes, "status": entry.status, "reason": entry.reason,
            "users": entry.users.n if entry.users is not None else None,
            **{k: getattr(overall, k) if overall is not None else None for k in FIGURES if k != "errors_by_class"},
            "window_s": entry.window.length_s if entry.window is not None else None,
            "busy_threads_mean": server.busy_threads_mean if server is not None else None,
            "in_flight_mean": server.in_flight_mean if server is not None else None,
            "load1_mean": host.load1_mean if host is not None else None,
            "checks": [{"name": c.name, "passed": c.passed, "explanation": c.explanation} for c in entry.checks]}


def grid_curves(entries: list[Cell]) -> list[dict]:
    """Throughput and response time against the load, one curve per curve the analysis forms from the finished
    cells so far (analysis.modelling.curves.curves_of, the rule Summary.curves is built by), named by its label."""
    by_id = {c.id: c for c in entries}
    out = []
    for k in curves.curves_of(entries):
        members = [by_id[i] for i in k.cells]
        out.append({"name": k.label, "x_name": k.x_name, "x": list(k.x),
                    "throughput_per_s": [c.overall.throughput_per_s for c in members],
                    "mean_ms": [c.overall.mean_ms for c in members],
                    "p90_ms": [c.overall.p90_ms for c in members]})
    return out

