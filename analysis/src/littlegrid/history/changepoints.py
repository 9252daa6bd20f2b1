"""Change points in one series of figures (a cell's p90 across a grid's runs): E-divisive means (Matteson and James,
"A Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data", 2014) with the significance test
and the split and merge steps of Hunter (Fleming et al., "Hunter: Using Change Point Detection to Hunt for Performance
Regressions", ICPE 2023), as Apache Otava (formerly DataStax's Hunter) implements them in
`otava.analysis.compute_change_points`. tests/history/test_changepoints.py runs Otava itself on the same series and
asks for the same change points.

Why this detector: it finds *persistent* shifts (a new level that stays) rather than single outliers, it needs no
assumption about the noise's distribution to place a candidate (the energy statistic), and Hunter's Student's t
significance test works on the handful of runs a CI history holds (Otava: "even with tiny numbers of points (<10)").
It only *locates* shifts: the gate (history/shifts.py) judges each one's size against a criterion's margin with the
run-to-run noise the history measured, so a change point never fails a build on its p-value alone.

Otava's conventions are kept on purpose, so the two agree point for point: the candidate split maximises Q̂ over
(τ, κ) in each interval between the change points found so far, ties to the first in row-major order (τ, then κ),
with 0 where a split is impossible; the t test is the pooled (equal-variance) two-sample test on the segments'
means with their population standard deviations (ddof 0), as Otava passes them to scipy."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
# scipy's C function itself, a float per call without the ufunc's few µs around it (the same value: issue 64)
from scipy.special.cython_special import stdtr

from littlegrid.history import sums
from littlegrid.history.energy import Prefix, best_split

MAX_PVALUE = 0.001  # Otava's default significance
# The gate's, for persistent shifts: looser than Otava's, since a change point fails nothing by itself (a shift must
# lie past a criterion's margin beyond the noise: shifts.py). The noise estimate splits each cell's series at
# Otava's stricter MAX_PVALUE (noise.pooled says why). Chosen by the simulation of tests/history/gate_simulation.py:
# at 0.01 five 4% steps were caught by the seventh run in 55-70% of histories, at 0.05 in 98-100%, with no false
# alarm in 600 unchanged builds at either (docs/history.md, "Persistent shifts").
GATE_PVALUE = 0.05
WINDOW = 50  # Otava's default sliding window of the split step


@dataclass(frozen=True)
class ChangePoint:
    """A change point: `index` is the first point of the new level; the segments' means and standard deviations
    (ddof 0) on each side within the neighbouring change points, and the t test's two-sided p-value."""
    index: int
    qhat: float
    mean_before: float
    mean_after: float
    sd_before: float
    sd_after: float
    n_before: int
    n_after: int
    pvalue: float

    def magnitude(self) -> float:
        """Otava's change magnitude: the larger of the forward and backward relative changes of the means."""
        forward = self.mean_after / self.mean_before - 1 if self.mean_before else 0.0
        backward = self.mean_before / self.mean_after - 1 if self.mean_after else 0.0
        return max(abs(forward), abs(backward))


def change_points(series, *, window: int = WINDOW, max_pvalue: float = MAX_PVALUE,
                  min_magnitude: float = 0.0) -> list[ChangePoint]:
    """The change points of `series` (Hunter's split, then merge), sorted by index."""
    x = np.asarray(series, dtype=np.float64)
    if len(x) < 3:
        return []
    return list(_cached(x.tobytes(), window, max_pvalue, min_magnitude))


@functools.lru_cache(maxsize=4096)
def _cached(data: bytes, window: int, max_pvalue: float, min_magnitude: float) -> tuple[ChangePoint, ...]:
    """change_points by value: the gate asks for the same series again (a cell's runs for the noise, then with
    the new run for its shifts; the trends page for every run), and the answer depends on the values alone. The t
    tests take the series as Python floats: it holds a handful to a few dozen runs, where numpy's cost per call on
    tiny arrays was most of the gate's time (issue 64); their sums are taken in numpy's own order (sums.py), so
    every figure is the one numpy gave."""
    x = np.frombuffer(data, dtype=np.float64).tolist()
    first_pass = max_pvalue * 10 if max_pvalue < 0.05 else (max_pvalue * 2 if max_pvalue < 0.5 else max_pvalue)
    return tuple(_merge(_split(x, window, first_pass), x, max_pvalue, min_magnitude))


def _intervals(points: list[int], length: int) -> list[tuple[int, int]]:
    edges = [0, *points, length]
    return [(a, b) for a, b in zip(edges, edges[1:]) if a != b]


def _candidate(best_of, intervals) -> tuple[int, float] | None:
    """The best split over the intervals, the first interval's on a tie; best_of(start, end): an interval's own."""
    best = None
    for start, end in intervals:
        if end - start <= 1:
            continue
        found = best_of(start, end)
        if best is None or found[1] > best[1]:
            best = found
    return best


def _test(x: list[float], index: int, qhat: float, intervals) -> ChangePoint:
    """The t test of a candidate (inside an interval: split it; at an interval's end: the two intervals it joins)."""
    for k, (start, end) in enumerate(intervals):
        if end == index:
            left, right = (start, end), intervals[k + 1]
            break
        if start < index < end:
            left, right = (start, index), (index, end)
            break
    else:
        raise ValueError(f"candidate {index} lies in no interval of {intervals}")
    (ma, sa, na), (mb, sb, nb) = _moments(x[left[0]:left[1]]), _moments(x[right[0]:right[1]])
    p = _pooled_t(ma, sa, na, mb, sb, nb) if na + nb > 2 else 1.0
    return ChangePoint(index, qhat, ma, mb, sa, sb, na, nb, p)


def _moments(a: list[float]) -> tuple[float, float, int]:
    """(mean, population standard deviation, n) of a segment, as np.mean and np.std give them (two passes)."""
    n = len(a)
    mean = sums.total(a) / n
    return mean, (math.sqrt(sums.total([(v - mean) * (v - mean) for v in a]) / n) if n >= 2 else 0.0), n


def _pooled_t(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> float:
    """The two-sided p-value of Student's pooled two-sample t test from the samples' means and standard deviations,
    as scipy.stats.ttest_ind_from_stats computes it (equal variances); 1 for two flat segments of one level (0/0:
    nothing moved; Otava gets nan there, which it reads as not significant)."""
    df = n1 + n2 - 2
    pooled = ((n1 - 1) * s1 * s1 + (n2 - 1) * s2 * s2) / df
    denominator = math.sqrt(pooled * (1 / n1 + 1 / n2))
    if denominator == 0:
        return 1.0 if m1 == m2 else 0.0
    return 2 * stdtr(float(df), -abs(m1 - m2) / denominator)


def _detect(x: list[float], start: int, end: int, max_pvalue: float) -> list[ChangePoint]:
    """E-divisive on x[start:end]: the best split while it is significant (Otava's ChangePointDetector). An
    interval's best split is found once: a new change point splits one interval and leaves the others' as they
    were."""
    part = x[start:end]
    p = Prefix(part)
    splits: dict[tuple[int, int], tuple[int, float]] = {}

    def best_of(a: int, b: int) -> tuple[int, float]:
        if (a, b) not in splits:
            splits[a, b] = best_split(p, a, b)
        return splits[a, b]

    found: list[ChangePoint] = []
    while True:
        intervals = _intervals([c.index for c in found], len(part))
        best = _candidate(best_of, intervals)
        if best is None:
            break
        point = _test(part, best[0], best[1], intervals)
        if point.pvalue > max_pvalue:
            break
        found = sorted(found + [point], key=lambda c: c.index)
    return [_shifted(c, start) for c in found]


def _shifted(c: ChangePoint, by: int) -> ChangePoint:
    return ChangePoint(c.index + by, c.qhat, c.mean_before, c.mean_after, c.sd_before, c.sd_after, c.n_before,
                       c.n_after, c.pvalue)


def _split(x: list[float], window: int, max_pvalue: float) -> list[ChangePoint]:
    """Hunter's split step: E-divisive over sliding windows of `window` points, half a window apart; the union of
    their change points ("weak" ones, at the relaxed p-value), tested again over the whole series."""
    step = window // 2
    start, found = 0, []
    while start < len(x):
        end = min(start + window, len(x))
        new = _detect(x, start, end, max_pvalue)
        start = max(new[-1].index if new else 0, start + step)
        found += [c for c in new if c.index not in {f.index for f in found}]
    found.sort(key=lambda c: c.index)
    intervals = _intervals([c.index for c in found], len(x))
    return [_test(x, c.index, c.qhat, intervals) for c in found]


def _merge(points: list[ChangePoint], x: list[float], max_pvalue: float, min_magnitude: float) -> list[ChangePoint]:
    """Hunter's merge step: drop the weakest change point (the largest p-value while one exceeds max_pvalue, else the
    smallest magnitude while one is below min_magnitude), retest its neighbours, until every one stands."""
    points = list(points)
    while points:
        weakest = max(points, key=lambda c: c.pvalue)
        if weakest.pvalue < max_pvalue:
            weakest = min(points, key=lambda c: c.magnitude())
            if weakest.magnitude() > min_magnitude:
                return points
        k = points.index(weakest)
        del points[k]
        intervals = _intervals([c.index for c in points], len(x))
        for j in (k, k + 1):
            if 0 <= j < len(points):
                points[j] = _test(x, points[j].index, points[j].qhat, intervals)
    return points
