"""The run-to-run noise the history has measured for a cell and a metric: the spread between comparable earlier runs
beyond what each run's own (within-run) interval explains, and how much it widens the interval of a difference.

Derivation. Let each run's figure be v_i = μ · e^{b_i + w_i}: b_i the run's own offset (a server start, a JIT, a
neighbour on the host: it moves every sample of the run together), w_i the sampling error of its window, whose
standard error s_i the bootstrap gives (on the log scale s_i ≈ se_i / v_i). Over k comparable runs the sample variance
of ln v_i estimates σ_b² + mean(s_i²), so σ_b² = max(0, var(ln v_i) − mean(s_i²)). The difference of two runs,
ln(B/A), then has variance s_A² + s_B² + 2σ_b²: the bootstrap covers the first two, the history the third. The
error rate works the same on its own scale (percentage points), without the logarithm.

σ_b from k runs is itself uncertain (k − 1 degrees of freedom), so its part of the interval uses Student's t at
97.5% with k − 1 degrees of freedom, the bootstrap's part the normal's 1.96, and the two half-widths are added in
quadrature: h = √((1.96·s)² + (t·√2·σ_b)²), s the difference's within-run standard error. With k = 3 the t is 4.30:
a wide band, as two degrees of freedom deserve; it narrows as the history grows (2.26 at k = 10)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from littlegrid.history.store import Figure

K_MIN = 3  # comparable earlier runs needed before the history's spread is used
K_MAX = 10  # the most recent runs used: the noise of the host as it is now, not a year ago
LOG_SCALE = {"throughput_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms"}  # relative changes; error_rate in points


@dataclass(frozen=True)
class Noise:
    """The between-run standard deviation of one cell's metric (on the log scale for relative metrics, in fractions
    of samples for the error rate) from `runs` earlier runs; between_sd None: fewer than K_MIN runs held it."""
    runs: int
    between_sd: float | None

    @property
    def measured(self) -> bool:
        return self.between_sd is not None

    def t(self) -> float:
        """Student's t at 97.5% with runs − 1 degrees of freedom: the multiplier of the between-run part."""
        return float(stats.t.ppf(0.975, self.runs - 1))


def between_runs(figures: list[Figure]) -> Noise:
    """σ_b of the module docstring from the earlier runs' figures of one cell and metric (the most recent last);
    runs without a figure or a standard error are left out."""
    usable = [f for f in figures[-K_MAX:] if f.value is not None and f.se is not None
              and (f.metric not in LOG_SCALE or f.value > 0)]
    if len(usable) < K_MIN:
        return Noise(len(usable), None)
    if usable[0].metric in LOG_SCALE:
        values = np.log([f.value for f in usable])
        within = np.array([(f.se / f.value) ** 2 for f in usable])
    else:
        values = np.array([f.value for f in usable])
        within = np.array([f.se ** 2 for f in usable])
    return Noise(len(usable), math.sqrt(max(0.0, float(values.var(ddof=1)) - float(within.mean()))))


def half_width(within_se: float, noise: Noise, z: float) -> float:
    """The 95% half-width of a difference whose within-run standard error is `within_se`, widened by the
    history's run-to-run noise when it has measured it (module docstring)."""
    own = z * within_se
    if not noise.measured:
        return own
    return math.hypot(own, noise.t() * math.sqrt(2) * noise.between_sd)


def prediction_band(figures: list[Figure]) -> tuple[float, float] | None:
    """Where the next run of the same experiment falls (95%): from the last K_MAX runs (at least K_MIN), mean ± t·s·
    √(1 + 1/k), s their standard deviation (between and within runs together: a new run has both), on the log scale
    for relative metrics. None with fewer runs."""
    usable = [f for f in figures[-K_MAX:] if f.value is not None and (f.metric not in LOG_SCALE or f.value > 0)]
    if len(usable) < K_MIN:
        return None
    log = usable[0].metric in LOG_SCALE
    values = np.log([f.value for f in usable]) if log else np.array([f.value for f in usable])
    k = len(values)
    half = float(stats.t.ppf(0.975, k - 1)) * float(values.std(ddof=1)) * math.sqrt(1 + 1 / k)
    lo, hi = float(values.mean()) - half, float(values.mean()) + half
    return (math.exp(lo), math.exp(hi)) if log else (max(0.0, lo), hi)
