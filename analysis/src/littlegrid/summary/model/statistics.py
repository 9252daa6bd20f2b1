"""The statistics of a set of samples: a cell's window, or one label in it (counts, errors, exact percentiles, the
tail's shape)."""

from __future__ import annotations

from littlegrid.summary.model.base import Record


class Pdf(Record):
    """Probability density of elapsed over log-spaced bins (docs/report.md states the bin rule)."""
    edges_ms: list[float]
    density: list[float]


class Ccdf(Record):
    """P(elapsed ≥ x_ms) at the distinct elapsed values (thinned to a point budget)."""
    x_ms: list[float]
    p: list[float]


class Tail(Record):
    """The tail's shape: Hill index over the k largest samples above threshold_ms, and a verdict in words."""
    hill_alpha: float | None
    k: int
    threshold_ms: float | None
    excess_cv: float | None
    verdict: str


class Counts(Record):
    """Shared by the cell's statistics and a label's: counts, error rate, throughput, mean, exact percentiles."""
    count: int
    successes: int
    errors: int
    error_rate: float | None
    errors_by_class: dict[str, int]
    throughput_per_s: float | None
    successes_per_s: float | None
    mean_ms: float | None
    min_ms: float | None
    p50_ms: float | None
    p90_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    p999_ms: float | None
    max_ms: float | None
    latency_mean_ms: float | None
    connect_mean_ms: float | None


class Stats(Counts):
    """A cell's steady-window statistics (contract STATS) with the shape of its latency distribution."""
    pdf: Pdf
    ccdf: Ccdf
    tail: Tail


class ErrorCount(Record):
    type: str
    count: int


class LabelStats(Counts):
    """One label's statistics (no distribution shape: thousands of labels must keep the file small)."""
    bytes_mean: float | None
    sent_bytes_mean: float | None
    received_bytes_per_s: float | None
    sent_bytes_per_s: float | None
    transaction: bool
    top_errors: list[ErrorCount]


class ErrorType(Record):
    type: str
    count: int
    share_of_errors: float
    per_s: float | None


class Errors(Record):
    """The window's errors by type, largest first; the rarest beyond the listed ones only counted."""
    by_type: list[ErrorType]
    types_not_listed: int
    errors_not_listed: int
