"""Seeded bootstrap confidence intervals for run-to-run deltas of percentiles, mean response time and throughput, from
two runs' replicates (analysis/statistics/resample.py draws them)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from littlegrid.analysis.statistics.resample import LEVEL
from littlegrid.summary import comparison as equivalence

# What these "95%" intervals were measured to cover (bench/bench_coverage.py: 400 windows of 60 s a row from an open
# M/M/1 at ρ = 0.5 and 0.8 and a closed M/M/1//N at N = 20, X from per-second completions, the rest resampled over
# blocks of seconds by analysis/statistics/resample.py; the error rate on bursty failures over 60 and 300 s): (lowest,
# highest), by metric. Short of the 93% a "95%" is held to wherever a queue's memory is long against its window, so
# the pages that print them say these beside them (coverage_words).
MEASURED = {"throughput_per_s": (0.935, 0.94), "mean_ms": (0.78, 0.92), "p50_ms": (0.898, 0.982),
            "p90_ms": (0.778, 0.95), "p99_ms": (0.425, 0.86), "error_rate": (0.685, 0.858)}
MEASURED_NAMES = {"throughput_per_s": "X", "mean_ms": "mean R", "p50_ms": "p50", "p90_ms": "p90", "p99_ms": "p99",
                  "error_rate": "error rate"}


@dataclass(frozen=True)
class Delta:
    """B − A for one metric, relative to A, with the bootstrap interval of the relative change."""

    a: float | None
    b: float | None
    rel: float | None
    rel_lo: float | None
    rel_hi: float | None

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "delta": None if self.a is None or self.b is None else self.b - self.a,
                "rel": self.rel, "rel_lo": self.rel_lo, "rel_hi": self.rel_hi}


def delta(a: float | None, b: float | None, reps_a: np.ndarray | None = None, reps_b: np.ndarray | None = None,
          level: float = LEVEL) -> Delta:
    """Relative change b/a − 1 and its percentile interval from independent replicates of both runs."""
    if a is None or b is None or not a:
        return Delta(a, b, None, None, None)
    rel = b / a - 1
    if reps_a is None or reps_b is None:
        return Delta(a, b, rel, None, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = reps_b / reps_a - 1
    ratios = ratios[np.isfinite(ratios)]
    if not len(ratios):
        return Delta(a, b, rel, None, None)
    lo, hi = np.quantile(ratios, [(1 - level) / 2, (1 + level) / 2])
    return Delta(a, b, rel, float(lo), float(hi))


def verdict(d: Delta, higher_is_better: bool, margin: float) -> str:
    """What d's interval shows against the margin ±margin (littlegrid.comparison.equivalence: different when it
    excludes zero, equivalent when it lies inside ±margin, "unknown" without an interval)."""
    return equivalence.verdict(d.rel_lo, d.rel_hi, higher_is_better, margin)


def coverage_words(keys=tuple(MEASURED)) -> str:
    """"measured coverage of these 95% intervals on simulated queues: X 93.5–94%, p99 42.5–86% …": what a page printing
    the bootstrap's intervals says beside them (MEASURED)."""
    parts = []
    for key in keys:
        lo, hi = MEASURED[key]
        low, high = f"{round(lo * 100, 1):g}", f"{round(hi * 100, 1):g}"
        parts.append(f"{MEASURED_NAMES[key]} {low}" + ("" if low == high else f"–{high}") + "%")
    return ("measured coverage of these 95% intervals on simulated queues (bench/bench_coverage.py): "
            + ", ".join(parts) + "; lowest where a queue's memory is long against the window")
