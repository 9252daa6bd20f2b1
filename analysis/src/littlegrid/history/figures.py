"""Each cell's figures of one run with their within-run 95% intervals and standard errors, as the history keeps
them and the gate compares them: X, mean R and the percentiles from the comparison's bootstrap replicates (blocks of
seconds: comparison.deltas.cell_replicates), the error rate from its binomial (Wilson) interval, which is all a summary
holds of the failures (their counts, not their seconds)."""

from __future__ import annotations

import math

import numpy as np

from littlegrid.comparison import bootstrap, cell_samples, deltas
from littlegrid.history.store import METRIC_KEYS, Figure
from littlegrid.summary.model import Cell, Summary

Z95 = 1.959963984540054  # the standard normal's 97.5% point: a two-sided 95% interval
SEED = 52  # fixed: the same summary always gives the same intervals
# JMeter's elapsed is whole milliseconds, so a percentile is known to ±0.5 ms at best: the standard deviation of a
# uniform rounding error. A bootstrap whose replicates all land on one millisecond says 0, which would make a
# difference of two such percentiles certain to the digit (the acceptance run gave "+26.3% to +26.3%").
RESOLUTION_SE_MS = 1 / math.sqrt(12)
PERCENTILES = {"p50_ms", "p90_ms", "p99_ms"}
REPS = 1000


def run_figures(summary: Summary, *, seed: int = SEED, reps: int = REPS) -> tuple[Figure, ...]:
    """Every finished cell's METRIC_KEYS, in the summary's cell order."""
    out = []
    for cell in summary.cells:
        if cell.overall is None or cell.status == "incomplete":
            continue
        out += cell_figures(cell, seed=seed, reps=reps)
    return tuple(out)


def cell_figures(cell: Cell, *, seed: int = SEED, reps: int = REPS) -> list[Figure]:
    stats = cell.overall
    samples = cell_samples.from_summary(cell)
    replicates = (deltas.cell_replicates(cell, samples, bootstrap.rng_for(seed, f"history:{cell.id}"), reps)
                  if samples is not None else {})
    out = []
    for key in METRIC_KEYS:
        value = getattr(stats, key)
        if key == "error_rate":
            lo, hi, se = wilson(stats.errors, stats.count)
        else:
            lo, hi, se = interval(replicates.get(key))
            if key in PERCENTILES and se is not None:
                se = max(se, RESOLUTION_SE_MS)
        out.append(Figure(cell.id, dict(cell.axes), key, value, lo, hi, se, stats.count))
    return out


def interval(replicates: np.ndarray | None) -> tuple[float | None, float | None, float | None]:
    """(lo, hi, se): the replicates' 95% percentile interval and their standard deviation; Nones without them."""
    if replicates is None:
        return None, None, None
    r = np.asarray(replicates, float)
    r = r[np.isfinite(r)]
    if len(r) < 2:
        return None, None, None
    lo, hi = np.quantile(r, [(1 - bootstrap.LEVEL) / 2, (1 + bootstrap.LEVEL) / 2])
    return float(lo), float(hi), float(r.std(ddof=1))


def wilson(errors: int, n: int) -> tuple[float | None, float | None, float | None]:
    """The Wilson 95% interval of a proportion of errors among n samples, and the standard error read from its
    width (half of it over z). Unlike p ± z·√(p(1−p)/n) it has width when no sample failed: 0 of 1000 is not
    shown to be 0%. It treats failures as independent trials; bursts make it too narrow, which the history's
    run-to-run spread (noise.py) then widens."""
    if n <= 0:
        return None, None, None
    p, z2 = errors / n, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half), half / Z95
