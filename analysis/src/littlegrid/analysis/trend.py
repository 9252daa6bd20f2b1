"""Whether a cell's window drifted: its thirds (the one rule every stage uses) and the trend of R through them.

The cell stage computes both once from the cell's series (Cell.trend); the steady check (laws.steady), the overload
of an open curve (curves.overload) and the latency-shift finding read them. docs/analysis.md, "steady", derives the
rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from littlegrid.summary.model import Series, Trend

TREND_P = 0.01          # Kendall's test of R against time: a trend when p is below this (every cell is tested)
TREND_MIN_BUCKETS = 6   # the fewest buckets with samples at which Kendall's test can reach p < 0.01 (6!: 2/720)
INTERVAL_LEVEL = 0.95   # the coverage asked of each third's interval for its median R


@dataclass(frozen=True)
class Thirds:
    """The series' buckets wholly inside the steady window (indices into the series, in time order) and their first
    and last thirds: ⌊n/3⌋ buckets each, so the two cover equal lengths; the middle takes the rest. A bucket the
    window's edge cuts holds samples the trim left out (the series places samples by completion time), so it is no
    part of either."""
    inside: tuple[int, ...]
    bucket_s: int

    @property
    def third(self) -> int:
        return len(self.inside) // 3

    @property
    def first(self) -> tuple[int, ...]:
        return self.inside[:self.third]

    @property
    def last(self) -> tuple[int, ...]:
        return self.inside[len(self.inside) - self.third:]

    @property
    def seconds(self) -> float:
        """The length of one third."""
        return float(self.third * self.bucket_s)


def window_thirds(series: Series | None) -> Thirds | None:
    """The window's thirds of the series' buckets; None without a series or with fewer than three buckets wholly
    inside the window."""
    if series is None:
        return None
    b = series.bucket_s
    inside = tuple(i for i, t in enumerate(series.t_s) if t >= series.window_start_s and t + b <= series.window_end_s)
    return Thirds(inside, b) if len(inside) >= 3 else None


def completions(series: Series | None) -> tuple[float | None, float | None, float | None]:
    """(completions in the window's first third, in its last, seconds each); Nones without thirds."""
    thirds = window_thirds(series)
    if thirds is None:
        return None, None, None
    count = [x * series.bucket_s for x in series.throughput]
    return (float(sum(count[i] for i in thirds.first)), float(sum(count[i] for i in thirds.last)), thirds.seconds)


def kendall(values) -> tuple[float | None, float | None]:
    """(τ_b, two-sided p) of the values against their order (time, which has no ties): S = Σ_{i<j} sign(v_j − v_i)
    over τ_b = S / √(n₀ (n₀ − n_ties)), n₀ = n(n−1)/2; p from the normal approximation of S with the variance
    corrected for tied values, [n(n−1)(2n+5) − Σ t(t−1)(2t+5)]/18, which is scipy's "asymptotic" method (held to it
    in the tests) without importing scipy.stats (0.8-2 s) into every analysis. (None, None) with fewer than two
    values or when all are equal (no order to test)."""
    v = np.asarray(values, dtype=float)
    n = len(v)
    if n < 2:
        return None, None
    s = float(np.sign(v[None, :] - v[:, None])[np.triu_indices(n, 1)].sum())
    _, tied = np.unique(v, return_counts=True)
    n0 = n * (n - 1) / 2
    ties = float((tied * (tied - 1) / 2).sum())
    if n0 - ties <= 0:
        return None, None
    tau = s / math.sqrt(n0 * (n0 - ties))
    var = (n * (n - 1) * (2 * n + 5) - float((tied * (tied - 1) * (2 * tied + 5)).sum())) / 18.0
    p = math.erfc(abs(s) / math.sqrt(var) / math.sqrt(2)) if var > 0 else None
    return tau, p


def median_interval(values) -> tuple[float, float, float, float]:
    """(median, low, high, coverage): the distribution-free interval for the median of `values` by order statistics,
    [v(j), v(k+1−j)] of the k sorted values, whose coverage is 1 − 2·P(Binomial(k, ½) < j): the narrowest with
    coverage ≥ INTERVAL_LEVEL, or with fewer than six values (whose widest, min to max, covers 1 − 2^(1−k)) the
    whole range with the coverage it has."""
    v = sorted(float(x) for x in values)
    k = len(v)
    mid = v[k // 2] if k % 2 else (v[k // 2 - 1] + v[k // 2]) / 2.0
    def coverage(j: int) -> float:
        return 1 - 2 * sum(math.comb(k, i) for i in range(j)) / 2.0 ** k

    j = 1
    while 2 * (j + 1) <= k + 1 and coverage(j + 1) >= INTERVAL_LEVEL:
        j += 1
    return mid, v[j - 1], v[k - j], coverage(j)


def trend(series: Series | None) -> Trend | None:
    """Kendall's τ of the per-bucket median R against time over the window's buckets with samples, and the median of
    those medians in its first and last thirds with their intervals; None without a series. With fewer than
    TREND_MIN_BUCKETS such buckets nothing is tested (τ, p and the thirds None). rising: τ > 0, p < TREND_P and the
    last third's median above the first's (an open cell's queue growing: curves.overload)."""
    if series is None:
        return None
    thirds = window_thirds(series)
    inside = thirds.inside if thirds is not None else ()
    medians = _medians(series, inside)
    if len(medians) < TREND_MIN_BUCKETS:
        return Trend(buckets=len(medians), tau=None, p=None, first_ms=None, last_ms=None, rising=False)
    tau, p = kendall(medians)
    none = (None, None, None, None)
    f_mid, f_low, f_high, f_cover = median_interval(first) if (first := _medians(series, thirds.first)) else none
    l_mid, l_low, l_high, l_cover = median_interval(last) if (last := _medians(series, thirds.last)) else none
    rising = (tau is not None and p is not None and tau > 0 and p < TREND_P and None not in (f_mid, l_mid)
              and l_mid > f_mid)
    covers = [c for c in (f_cover, l_cover) if c is not None]
    return Trend(buckets=len(medians), tau=tau, p=p, first_ms=f_mid, last_ms=l_mid, rising=rising,
                 first_low_ms=f_low, first_high_ms=f_high, last_low_ms=l_low, last_high_ms=l_high,
                 interval_level=min(covers) if covers else None)


def _medians(series: Series, buckets) -> list[float]:
    """The per-bucket median R of those buckets that had samples."""
    return [series.p50_ms[i] for i in buckets if series.p50_ms[i] is not None]
