"""Run-to-run deltas of throughput, mean response time and the percentiles with their intervals, combined from each
run's own within-run intervals (summary Cell.intervals: analysis/statistics/intervals.py bootstraps them once, over the
window's blocks of seconds), what those intervals were measured to cover, and the verdict against a margin."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from littlegrid.analysis.statistics.resample import LEVEL
from littlegrid.summary import comparison as equivalence
from littlegrid.summary.model import Interval

# What these "95%" intervals were measured to cover (bench/bench_coverage.py: 400 windows of 60 s a row from an open
# M/M/1 at ρ = 0.5 and 0.8 and a closed M/M/1//N at N = 20, X from per-second completions, the rest resampled over
# blocks of seconds by analysis/statistics/resample.py; the error rate on bursty failures over 60 and 300 s): (lowest,
# highest), by metric. Short of the 93% a "95%" is held to wherever a queue's memory is long against its window, so
# the pages that print them say these beside them (coverage_words).
MEASURED = {"throughput_per_s": (0.935, 0.94), "mean_ms": (0.78, 0.92), "p50_ms": (0.898, 0.982),
            "p90_ms": (0.778, 0.95), "p99_ms": (0.425, 0.86), "error_rate": (0.685, 0.858)}
# What the interval of a difference B/A − 1 (delta) was measured to cover: two 60-s cells of one M/M/1 at ρ = 0.5 and
# 0.8 (a true difference of 0), 400 pairs each (bench/bench_coverage.py, "the arms' difference").
MEASURED_DELTA = {"throughput_per_s": (0.93, 0.932), "p90_ms": (0.84, 0.922)}
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


def delta(a: float | None, b: float | None, held_a: Interval | None = None, held_b: Interval | None = None,
          level: float = LEVEL) -> Delta:
    """Relative change b/a − 1, and its interval from the two runs' own standard errors (each cell's, as the analysis
    drew them: Cell.intervals) combined on the log scale, the runs independent:
    exp(ln(b/a) ± z·√((s_a/a)² + (s_b/b)²)) − 1. A ratio's error is a sum of the two runs' errors in logs, the
    interval stays above −100%, and it is the scale the history's gate judges on too (history/noise.log_values).
    Measured (MEASURED_DELTA) it covers X better than the percentiles of B/A − 1 over both runs' replicates did, and
    a skewed p90 less well where the queue is heavy; combining the cells' own percentile intervals instead (MOVER)
    covered both less. No interval without both standard errors, or with a figure ≤ 0."""
    if a is None or b is None or not a:
        return Delta(a, b, None, None, None)
    rel = b / a - 1
    se_a, se_b = (h.se if h is not None else None for h in (held_a, held_b))
    if se_a is None or se_b is None or a <= 0 or b <= 0:
        return Delta(a, b, rel, None, None)
    z = NormalDist().inv_cdf((1 + level) / 2)
    half = z * math.sqrt((se_a / a) ** 2 + (se_b / b) ** 2)
    centre = math.log(b / a)
    return Delta(a, b, rel, math.expm1(centre - half), math.expm1(centre + half))


def verdict(d: Delta, higher_is_better: bool, margin: float) -> str:
    """What d's interval shows against the margin ±margin (littlegrid.comparison.equivalence: different when it
    excludes zero, equivalent when it lies inside ±margin, "unknown" without an interval)."""
    return equivalence.verdict(d.rel_lo, d.rel_hi, higher_is_better, margin)


def coverage_words(keys=tuple(MEASURED)) -> str:
    """"measured coverage of these 95% intervals on simulated queues: each run's X 93.5–94%, p99 42.5–86% …; a
    difference's …": what a page printing the cells' intervals and their differences says beside them (MEASURED,
    MEASURED_DELTA)."""
    def said(measured: dict, among) -> str:
        parts = []
        for key in (k for k in among if k in measured):
            lo, hi = measured[key]
            low, high = f"{round(lo * 100, 1):g}", f"{round(hi * 100, 1):g}"
            parts.append(f"{MEASURED_NAMES[key]} {low}" + ("" if low == high else f"–{high}") + "%")
        return ", ".join(parts)

    return ("measured coverage of these 95% intervals on simulated queues (bench/bench_coverage.py): each run's "
            + said(MEASURED, keys) + "; a difference's, two runs of one queue: " + said(MEASURED_DELTA, keys)
            + "; lowest where a queue's memory is long against the window")
