"""The typed result of comparing two runs (littlegrid.comparison.deltas.compare_runs): paired cells, each metric's
delta B − A with its bootstrap interval and verdict, the arms' findings, the settings and the words the page uses.
The comparison stage builds it; render/compare.py draws it and computes nothing."""

from __future__ import annotations

from littlegrid.summary.model import Finding, Record


class MetricDelta(Record):
    """One metric of a paired cell: A, B, B − A, the relative change with its 95 % interval, and the verdict
    (better, worse, same, unknown: no interval)."""
    key: str
    name: str
    higher_is_better: bool
    a: float | None
    b: float | None
    delta: float | None
    rel: float | None
    rel_lo: float | None
    rel_hi: float | None
    verdict: str


class PairedCell(Record):
    """Cell `a` of run A against cell `b` of run B (their ids): every metric, the cell's verdict (worse when any
    metric is worse), both error rates, and a note when an interval could not be drawn."""
    id: str
    a: str
    b: str
    metrics: list[MetricDelta]
    verdict: str
    error_rate: list[float | None]
    note: str


class Comparison(Record):
    rows: list[PairedCell]
    counts: dict[str, int]
    only_a: list[str]
    only_b: list[str]
    findings: list[Finding]
    seed: int
    reps: int
    min_effect: float
    verdict_words: dict[str, str]
    metric_names: list[str]
