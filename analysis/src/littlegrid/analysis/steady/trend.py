"""Whether a cell's window drifted: its thirds, the trend of R through them and the one drift rule.

The cell stage computes them once from the cell's series (Cell.trend, its `drift` by `drift()`); the steady check
(laws.steady), the overload of an open curve (curves.overload: `rising`) and the latency-shift finding read them, so
no cell can read "steady" beside "R rose". docs/analysis.md, "steady", derives the rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from littlegrid.summary.model import Series, Trend

TREND_P = 0.01          # Kendall's test of R against time: a trend when p is below this (every cell is tested)
TREND_MIN_BUCKETS = 6   # the fewest buckets with samples at which Kendall's test can reach p < 0.01 (6!: 2/720)
INTERVAL_LEVEL = 0.95   # the coverage asked of each third's interval for its median R
DRIFT_TOLERANCE = 0.20  # max/min − 1 of the thirds' median R beyond which a drift matters ([tolerances] steady_r)


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


@dataclass(frozen=True)
class Drift:
    """The drift rule's parts for a trend: `ordered` (Kendall's p < TREND_P), `apart` (the thirds' intervals do not
    overlap), `rel` (the larger third's median R over the smaller's − 1, a median below 1 ms counted as 1 ms:
    elapsed is whole ms) and `way`: "rose" or "fell" when all three say so (ordered, apart, rel > tolerance), else
    None. Every stage that says whether R drifted reads `way` (or Trend.drift, which is it)."""
    ordered: bool
    apart: bool
    rel: float | None
    way: str | None


def drift(t: Trend | None, tolerance: float = DRIFT_TOLERANCE) -> Drift:
    """The one rule for whether R drifted through a cell's window: ordered in time (Kendall's test of the per-bucket
    median R, p < TREND_P), beyond the thirds' noise (their median's intervals lie apart) and beyond what matters
    (the larger third's median exceeds the smaller's by more than `tolerance`). Without the thirds' medians nothing
    is compared (rel None, way None)."""
    if t is None or t.first_ms is None or t.last_ms is None:
        return Drift(False, False, None, None)
    first, last = t.first_ms, t.last_ms
    rel = (max(first, last) - min(first, last)) / max(min(first, last), 1.0)
    ordered = t.p is not None and t.p < TREND_P
    apart = (t.last_low_ms is not None and t.first_high_ms is not None and t.first_low_ms is not None
             and t.last_high_ms is not None
             and (t.last_low_ms > t.first_high_ms or t.last_high_ms < t.first_low_ms))
    way = ("rose" if last > first else "fell") if ordered and apart and rel > tolerance else None
    return Drift(ordered, apart, rel, way)


def trend(series: Series | None, tolerance: float = DRIFT_TOLERANCE) -> Trend | None:
    """Kendall's τ of the per-bucket median R against time over the window's buckets with samples, and the median of
    those medians in its first and last thirds with their intervals; None without a series. With fewer than
    TREND_MIN_BUCKETS such buckets nothing is tested (τ, p and the thirds None). `drift`: the drift rule's verdict
    ("rose", "fell" or None, `drift()` at `tolerance`, the grid's steady_r); rising: it rose (an open cell's queue
    growing: curves.overload)."""
    if series is None:
        return None
    thirds = window_thirds(series)
    inside = thirds.inside if thirds is not None else ()
    medians = _medians(series, inside)
    if len(medians) < TREND_MIN_BUCKETS:
        return Trend(buckets=len(medians), tau=None, p=None, first_ms=None, last_ms=None, rising=False,
                     drift_tolerance=tolerance)
    tau, p = kendall(medians)
    none = (None, None, None, None)
    f_mid, f_low, f_high, f_cover = median_interval(first) if (first := _medians(series, thirds.first)) else none
    l_mid, l_low, l_high, l_cover = median_interval(last) if (last := _medians(series, thirds.last)) else none
    covers = [c for c in (f_cover, l_cover) if c is not None]
    measured = Trend(buckets=len(medians), tau=tau, p=p, first_ms=f_mid, last_ms=l_mid, rising=False,
                     first_low_ms=f_low, first_high_ms=f_high, last_low_ms=l_low, last_high_ms=l_high,
                     interval_level=min(covers) if covers else None)
    way = drift(measured, tolerance).way
    return measured.model_copy(update={"drift": way, "drift_tolerance": tolerance, "rising": way == "rose"})


def _medians(series: Series, buckets) -> list[float]:
    """The per-bucket median R of those buckets that had samples."""
    return [series.p50_ms[i] for i in buckets if series.p50_ms[i] is not None]
