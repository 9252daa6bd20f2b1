"""Seeded bootstrap confidence intervals for run-to-run deltas of percentiles, mean response time and throughput, from
two runs' replicates (analysis/resample.py draws them)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from littlegrid.analysis.resample import LEVEL
from littlegrid.summary import comparison as equivalence

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
