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
from scipy.special import stdtr

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
    the new run for its shifts; the trends page for every run), and the answer depends on the values alone."""
    x = np.frombuffer(data, dtype=np.float64)
    first_pass = max_pvalue * 10 if max_pvalue < 0.05 else (max_pvalue * 2 if max_pvalue < 0.5 else max_pvalue)
    return tuple(_merge(_split(x, window, first_pass), x, max_pvalue, min_magnitude))


def _prefix(d: np.ndarray) -> np.ndarray:
    """The two-dimensional prefix sums of the distance matrix: any block of it summed in four look-ups."""
    p = np.zeros((len(d) + 1, len(d) + 1))
    p[1:, 1:] = d.cumsum(axis=0).cumsum(axis=1)
    return p


def _q_matrix(p: np.ndarray, start: int, end: int) -> np.ndarray:
    """Q̂(τ, κ) for start < τ < κ ≤ end, in Otava's layout: row i is τ = start + 1 + i, column j is κ = start + 2 + j;
    0 where κ ≤ τ. Each sum of distances is a rectangle of the prefix sums `p` (_prefix)."""
    scale, coef_x, coef_y, ordered = _coefficients(end - start)
    diagonal = np.diagonal(p)
    p_tk = p[start + 1:end, start + 2:end + 1]  # P[τ, κ]: one slice, the only two-dimensional look-up
    p_s = p[start]  # P[start, ·]
    d_t, d_k = diagonal[start + 1:end, None], diagonal[None, start + 2:end + 1]
    between = p_tk - p_s[None, start + 2:end + 1] - d_t + p_s[start + 1:end, None]
    within_x = (d_t - 2 * p_s[start + 1:end, None] + p[start, start]) / 2
    within_y = (d_k - 2 * p_tk + d_t) / 2
    with np.errstate(divide="ignore", invalid="ignore"):  # as before: a series holding inf is no warning here
        q = scale * between - coef_x * within_x - coef_y * within_y
    return np.where(ordered, q, 0.0)


@functools.lru_cache(maxsize=256)
def _coefficients(length: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Q̂'s weights for an interval of `length` points, in _q_matrix's layout: 2/(m + n), the within-sample
    coefficients of X (the n points before τ) and of Y (the m from τ on), and where κ > τ. They depend on the
    interval's length alone, and the gate asks for the same few lengths thousands of times (read-only arrays)."""
    n = np.arange(1, length)[:, None]  # τ − start
    m = np.arange(2, length + 1)[None, :] - n  # κ − τ
    with np.errstate(divide="ignore", invalid="ignore"):
        coef_x = np.where(n > 1, 2 * m / ((m + n) * (n - 1)), 0.0)
        coef_y = np.where(m > 1, 2 * n / ((m + n) * (m - 1)), 0.0)
    out = (2 / (m + n), coef_x, coef_y, m >= 1)
    for a in out:
        a.flags.writeable = False
    return out


def _intervals(points: list[int], length: int) -> list[tuple[int, int]]:
    edges = [0, *points, length]
    return [(a, b) for a, b in zip(edges, edges[1:]) if a != b]


def _candidate(p: np.ndarray, intervals) -> tuple[int, float] | None:
    best = None
    for start, end in intervals:
        if end - start <= 1:
            continue
        q = _q_matrix(p, start, end)
        i, j = np.unravel_index(np.argmax(q), q.shape)
        found = (start + 1 + int(i), float(q[i, j]))
        if best is None or found[1] > best[1]:
            best = found
    return best


def _test(x: np.ndarray, index: int, qhat: float, intervals) -> ChangePoint:
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


def _moments(a: np.ndarray) -> tuple[float, float, int]:
    """(mean, population standard deviation, n) of a segment, as np.mean and np.std give them (two passes)."""
    n = len(a)
    mean = float(a.sum()) / n
    return mean, (math.sqrt(float(((a - mean) ** 2).sum()) / n) if n >= 2 else 0.0), n


def _pooled_t(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> float:
    """The two-sided p-value of Student's pooled two-sample t test from the samples' means and standard deviations,
    as scipy.stats.ttest_ind_from_stats computes it (equal variances); 1 for two flat segments of one level (0/0:
    nothing moved; Otava gets nan there, which it reads as not significant)."""
    df = n1 + n2 - 2
    pooled = ((n1 - 1) * s1 * s1 + (n2 - 1) * s2 * s2) / df
    denominator = math.sqrt(pooled * (1 / n1 + 1 / n2))
    if denominator == 0:
        return 1.0 if m1 == m2 else 0.0
    return float(2 * stdtr(df, -abs(m1 - m2) / denominator))


def _detect(x: np.ndarray, start: int, end: int, max_pvalue: float) -> list[ChangePoint]:
    """E-divisive on x[start:end]: the best split while it is significant (Otava's ChangePointDetector)."""
    part = x[start:end]
    p = _prefix(np.abs(part[:, None] - part[None, :]))
    found: list[ChangePoint] = []
    while True:
        intervals = _intervals([c.index for c in found], len(part))
        best = _candidate(p, intervals)
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


def _split(x: np.ndarray, window: int, max_pvalue: float) -> list[ChangePoint]:
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


def _merge(points: list[ChangePoint], x: np.ndarray, max_pvalue: float, min_magnitude: float) -> list[ChangePoint]:
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
