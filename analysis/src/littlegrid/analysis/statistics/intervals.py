"""Each cell's figures with their within-run 95% intervals (summary Cell.intervals), computed once here from the
cell's exact histogram by blocks of seconds: X, mean R and the percentiles by the bootstrap (resample.py: blocks of
seconds keep queued requests together), the error rate by Wilson's interval. The history's gate
reads them from the summary and never computes them again."""

from __future__ import annotations

import math

import numpy as np

from littlegrid.analysis.reading.histogram import read_cell_histogram, whole_seconds
from littlegrid.analysis.statistics import resample
from littlegrid.analysis.steady.blocks import BlockHistograms
from littlegrid.summary.model import Cell, CellIntervals, Interval

LEVEL = resample.LEVEL
Z = 1.959963984540054  # the standard normal's 97.5% point: a two-sided 95% interval
SEED = 52  # fixed: the same summary always gives the same intervals
REPS = 1000
# JMeter's elapsed is whole milliseconds, so a percentile is known to ±0.5 ms at best: the standard deviation of a
# uniform rounding error. A bootstrap whose replicates all land on one millisecond says 0, which would make a
# difference of two such percentiles certain to the digit (an acceptance run gave "+26.3% to +26.3%").
RESOLUTION_SE_MS = 1 / math.sqrt(12)
QUANTILES = {"p50_ms": 0.5, "p90_ms": 0.9, "p99_ms": 0.99}
METHOD = ("bootstrap over the window's blocks of seconds (X: moving blocks of per-second completions); error rate: "
          "Wilson")
# when the summary's blocks of seconds disagree with its histogram (a hand-edited file), latencies are resampled one
# by one: too narrow near saturation, where requests queued behind one burst share its delay
ONE_BY_ONE = "requests resampled one by one"
METHOD_ONE_BY_ONE = (f"bootstrap with {ONE_BY_ONE} (the summary's blocks of seconds disagree with its histogram; X: "
                     "moving blocks of per-second completions); error rate: Wilson")


def attach(cells: list[Cell]) -> list[Cell]:
    """The cells with their intervals (a cell without a steady-window histogram keeps none); a cell that holds them
    already keeps its own."""
    return [c if c.intervals is not None else c.model_copy(update={"intervals": of_cell(c)}) for c in cells]


def of_cell(cell: Cell, *, seed: int = SEED, reps: int = REPS) -> CellIntervals | None:
    """The intervals of one cell's overall figures, or None without a window's histogram."""
    got = read_cell_histogram(cell)
    if got is None or cell.overall is None:
        return None
    latencies, per_second = got
    blocks = BlockHistograms.from_summary(cell.histogram.blocks, latencies.values_ms, latencies.counts)
    r = replicates(cell, latencies, per_second, blocks, resample.rng_for(seed, f"history:{cell.id}"), reps)
    stats = cell.overall
    figures = {key: from_replicates(getattr(stats, key), r.get(key), key in QUANTILES) for key in
               ("throughput_per_s", "mean_ms", *QUANTILES)}
    lo, hi, se = wilson(stats.errors, stats.count)
    figures["error_rate"] = Interval(value=stats.error_rate, lo=lo, hi=hi, se=se)
    return CellIntervals(level=LEVEL, method=METHOD if blocks is not None else METHOD_ONE_BY_ONE, reps=reps, seed=seed,
                         **figures)


def replicates(cell: Cell, latencies, per_second: np.ndarray, blocks: BlockHistograms | None, rng,
               reps: int) -> dict:
    """Bootstrap replicates of X, mean R and the percentiles (key -> array) for one cell: blocks of seconds keep
    queued requests together; one by one only when the summary's blocks disagree with its histogram."""
    qs = list(QUANTILES.values())
    lat = (resample.replicate_latencies_in_stored_blocks(blocks, qs, rng, reps) if blocks is not None
           else resample.replicate_latencies(latencies, qs, rng, reps))
    r = {key: lat[q] for key, q in QUANTILES.items()} | {"mean_ms": lat["mean"]}
    # the seconds that each span one second (the window's last, lengthened bin would read as a 2× outlier)
    seconds = whole_seconds(per_second, cell.window.length_s if cell.window is not None else None)
    x = resample.replicate_throughput(seconds, rng, reps)
    # completions per whole second vs per window length: rescale so replicates centre on the summary's X
    x_summary = cell.overall.throughput_per_s if cell.overall is not None else None
    if x_summary and seconds.mean() > 0:
        r["throughput_per_s"] = x * (x_summary / seconds.mean())
    return r


def from_replicates(value: float | None, replicates: np.ndarray | None, percentile: bool) -> Interval:
    """The replicates' 95% percentile interval and their standard deviation (a percentile's at least
    RESOLUTION_SE_MS); no interval without at least two finite replicates."""
    if replicates is None:
        return Interval(value=value, lo=None, hi=None, se=None)
    r = np.asarray(replicates, float)
    r = r[np.isfinite(r)]
    if len(r) < 2:
        return Interval(value=value, lo=None, hi=None, se=None)
    lo, hi = np.quantile(r, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    se = float(r.std(ddof=1))
    return Interval(value=value, lo=float(lo), hi=float(hi), se=max(se, RESOLUTION_SE_MS) if percentile else se)


def wilson(errors: int, n: int) -> tuple[float | None, float | None, float | None]:
    """The Wilson 95% interval of a proportion of errors among n samples, and the standard error read from its
    width (half of it over z). Unlike p ± z·√(p(1−p)/n) it has width when no sample failed: 0 of 1000 is not
    shown to be 0%. It treats failures as independent trials; bursts make it too narrow, which the history's
    run-to-run spread then widens."""
    if n <= 0:
        return None, None, None
    p, z2 = errors / n, Z * Z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half), half / Z
