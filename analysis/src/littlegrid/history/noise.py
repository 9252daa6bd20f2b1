"""The run-to-run noise of a grid's series: one between-run spread σ_b per metric, pooled over the series' cells (a
random effect per run and cell), combined with a prior until the history has measured it.

The model. A cell's figure in run i is v = μ_c · e^{b + w} (on the log scale; the error rate in points, without the
logarithm): μ_c the cell's level, b ~ N(0, σ_b²) the run's own offset (a server start, a JIT, a neighbour on the
host: it moves every sample of the run together, which no within-run interval can see), w the window's sampling
error, whose standard error s the cell's within-run interval gives (summary.json, Cell.intervals; on the log scale
s ≈ se/v).

Pooled estimate. Over the series' runs (each segment between two `history accept` pins on its own, at most K_MAX
recent runs), in every cell, the runs' figures scatter around the cell's mean with variance σ_b² + s²; summed over
the cells, SS = Σ_c Σ_i (y_ci − ȳ_c)² on ν = Σ_c (k_c − 1) degrees of freedom, so τ̂² = SS/ν and σ̂_b² = τ̂² − mean(s²).
Three runs of six cells give 12 degrees of freedom, not 2. A failed run counts too (a false alarm is noise and must
widen the next estimate, not leave it): its run-wide shift is taken out first (the median over cells of its distance
from the other runs), which costs one degree of freedom.

Prior. Until the series holds enough, σ_b comes from a prior: the spread this grid measured in an earlier series
(another plan or configuration of the same grid: the same host and load), else the documented default per metric
(DEFAULTS, measured on this project's own repeated runs: docs/history.md). Prior and measurement combine as a scaled
inverse-χ² prior does: σ_b² = (ν₀σ₀² + ν·σ̂_b²)/(ν₀ + ν) on ν₀ + ν degrees of freedom, so the history's own figure
takes over as it grows, and a small history whose σ̂_b² happens to be 0 does not make the gate trust its within-run
intervals alone."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

from littlegrid.history import series as run_series, sums
from littlegrid.history.changepoints import MAX_PVALUE, change_points
from littlegrid.history.store import METRIC_KEYS, Figure, RunRecord, StoredRun, by_cell

K_MAX = 20  # the most recent runs of a series the spread is measured on: the host as it is now, not a year ago
LOG_SCALE = {"throughput_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms"}  # relative changes; error_rate in points
# The default prior per metric: (σ₀, ν₀). σ₀ on the log scale (0.035 = 3.5%), the error rate's in points (fractions
# of samples); ν₀ the degrees of freedom it weighs as. σ₀ is the spread this project's repeated runs of grids/ci.toml
# on one commit measured (docs/history.md, "The default prior": 1.3%, 1.3%, 0.7%, 3.1%, 9.5% and 0 over 25 degrees
# of freedom, seven runs on a 2-core host busy with other work), rounded up; the error rate's, which measured 0, is a floor
# a fifth of the default margin. ν₀ is kept small so a grid noisier than ours takes over after a few runs.
DEFAULTS = {"throughput_per_s": (0.015, 6), "mean_ms": (0.015, 6), "p50_ms": (0.01, 6), "p90_ms": (0.035, 6),
            "p99_ms": (0.11, 6), "error_rate": (0.001, 6)}
MIN_PRIOR_DF = 4  # an earlier series' spread serves as the prior only from this many degrees of freedom
MAX_PRIOR_DF = 12  # and weighs as at most this many: another plan is not quite the same experiment


@dataclass(frozen=True)
class Spread:
    """The spread a set of runs measured for one metric: σ̂_b² (unclipped: sampling can make it negative) on `df`
    degrees of freedom, from `runs` runs over `cells` cells; within_var: the mean within-run variance s²."""
    metric: str
    var: float
    df: int
    runs: int
    cells: int
    within_var: float

    @property
    def sd(self) -> float:
        return math.sqrt(max(0.0, self.var))


@dataclass(frozen=True)
class Noise:
    """The between-run spread one verdict uses: σ_b (posterior) on `df` degrees of freedom, what the prior was
    (its σ₀, ν₀ and where it came from) and what the series measured (None: nothing yet)."""
    metric: str
    between_sd: float
    df: float
    prior_sd: float
    prior_df: float
    prior_from: str  # "default" | "series <id>"
    measured: Spread | None

    def effective_df(self, between_var: float, total_var: float) -> float:
        """The degrees of freedom of a variance whose between-run part (between_var) is estimated on self.df and
        whose rest is the within-run intervals' (taken as known): Welch–Satterthwaite."""
        if between_var <= 0 or not self.df:
            return math.inf
        return total_var ** 2 / (between_var ** 2 / self.df)

    @property
    def source(self) -> str:
        """"prior", "measured" (the series weighs more than the prior) or "prior and measured"."""
        if self.measured is None or self.measured.df == 0:
            return "prior"
        return "measured" if self.measured.df >= self.prior_df else "prior and measured"

    def words(self, unit: str) -> str:
        """"σ_b 2.1% (prior 2.0%, this project's default, 6 df; measured 2.3% over 12 df from 3 runs)"."""
        def shown(x: float) -> str:
            return f"{x * 100:.2g}%" if unit == "%" else f"{x * 100:.2g} points"

        prior = ("this project's default" if self.prior_from == "default" else f"from this grid's {self.prior_from}")
        text = f"σ_b {shown(self.between_sd)} (prior {shown(self.prior_sd)}, {prior}, {self.prior_df:g} df"
        if self.measured is not None and self.measured.df > 0:
            text += (f"; measured {shown(self.measured.sd)} over {self.measured.df} df from {self.measured.runs} "
                     f"run{'s' * (self.measured.runs != 1)}")
        return text + ")"


def log_values(figures: list[Figure]) -> tuple[list[float], list[float]]:
    """(y, s²): each figure on the scale its metric is judged on (log for relative metrics), with its within-run
    variance on that scale. Figures without a value or a standard error, or ≤ 0 on a log scale, are left out. Lists
    of floats: a series holds a handful of runs, and its sums are taken as numpy takes them (sums.py)."""
    usable = [f for f in figures if f.value is not None and f.se is not None
              and (f.metric not in LOG_SCALE or f.value > 0)]
    if not usable:
        return [], []
    if usable[0].metric in LOG_SCALE:
        return np.log([f.value for f in usable]).tolist(), [float((f.se / f.value) ** 2) for f in usable]
    return [float(f.value) for f in usable], [float(f.se ** 2) for f in usable]


def pooled(metric: str, segments: list[list[dict[str, Figure]]], failed: list[list[bool]]) -> Spread:
    """σ̂_b² of `metric` from `segments` (each a list of runs, oldest first, a run being its figures by cell and
    metric: store.by_cell) pooled over cells, from each cell's successive differences (half their squares: a creep
    inside a level reads as its step, not as its whole rise); failed[s][i]: run i of segment s failed the gate (its run-wide shift is taken out first). A cell's
    runs are split where its series clearly changes level (change points at Otava's own 0.001, stricter than the
    gate's 0.05: a split drops the step it cuts at, so a split of mere noise would drop its largest step and bias
    σ̂_b low): a shift that passed unseen is a level, not noise."""
    ss, df, steps, within, runs_used, cells_used = 0.0, 0.0, 0, [], set(), set()
    for s, runs in enumerate(segments):
        cells = list(dict.fromkeys(c for run in runs for c in run))
        per_cell = {}
        for c in cells:
            held = [(i, run[c][metric]) for i, run in enumerate(runs) if metric in run.get(c, {})]
            y, s2 = log_values([f for _, f in held])
            if len(y) == len(held):
                per_cell[c] = ([i for i, _ in held], y, s2)
        shifts = {i: _shift(i, per_cell) for i, bad in enumerate(failed[s]) if bad}
        taken = sum(1 for v in shifts.values() if v is not None)
        seg_df = 0.0
        for c, (index, y, s2) in per_cell.items():
            y = [v - (shifts.get(i) or 0.0) for v, i in zip(y, index)]
            edges = [0, *[p.index for p in change_points(y, max_pvalue=MAX_PVALUE)], len(y)]
            for a, b in zip(edges, edges[1:]):
                n = b - a
                if n < 2:
                    continue
                ss += sums.total([(later - earlier) * (later - earlier)
                                  for earlier, later in zip(y[a:b - 1], y[a + 1:b])]) / 2
                steps += n - 1
                seg_df += 2 * (n - 1) ** 2 / (3 * n - 4)
                within += s2[a:b]
                runs_used |= {(s, i) for i in index[a:b]}
                cells_used.add(c)
        df += max(0.0, seg_df - taken)
    if df <= 0:
        return Spread(metric, 0.0, 0.0, len(runs_used), len(cells_used), sums.mean(within) if within else 0.0)
    mean_within = sums.mean(within)
    return Spread(metric, ss / steps - mean_within, df, len(runs_used), len(cells_used), mean_within)


def _shift(run: int, per_cell: dict) -> float | None:
    """A failed run's run-wide shift: the median over cells of its figure's distance from the other runs' median."""
    distances = []
    for index, y, _ in per_cell.values():
        if run in index and len(index) > 1:
            others = [v for i, v in zip(index, y) if i != run]
            distances.append(y[index.index(run)] - float(statistics.median(others)))
    return float(statistics.median(distances)) if distances else None


def measure(metric: str, runs: list[StoredRun]) -> Spread:
    """pooled() over stored runs of one series: cut at pins, failed runs marked."""
    parts = run_series.segments(runs)
    return pooled(metric, [[by_cell(r.record.figures) for r in part] for part in parts],
                  [[r.gate == "failed" for r in part] for part in parts])


def of_series(candidate: RunRecord, history: list[StoredRun], mine: list[StoredRun],
              metrics=METRIC_KEYS, defaults: dict | None = None) -> dict[str, Noise]:
    """Per metric (of `metrics`), the spread `mine` measured (the candidate's series before it, its last K_MAX runs)
    combined with the prior: the spread of the grid's latest other series that has MIN_PRIOR_DF, else the default."""
    grid = run_series.grid_of(candidate)
    others = [r for r in run_series.earlier(history, candidate)
              if run_series.grid_of(r.record) == grid and r.record.series != candidate.series]
    keys = list(dict.fromkeys(r.record.series for r in others))
    out = {}
    for metric in [m for m in METRIC_KEYS if m in metrics]:
        prior = None
        for key in reversed(keys):
            spread = measure(metric, [r for r in others if r.record.series == key][-K_MAX:])
            if spread.df >= MIN_PRIOR_DF:
                prior = spread
                break
        out[metric] = combine(metric, measure(metric, mine[-K_MAX:]) if mine else None, prior, defaults)
    return out


def combine(metric: str, measured: Spread | None, prior: Spread | None = None,
            defaults: dict | None = None) -> Noise:
    """The posterior σ_b of the module docstring: the prior (an earlier series' spread when it has MIN_PRIOR_DF,
    weighing at most MAX_PRIOR_DF; else `defaults`, DEFAULTS unless given) combined with what this series
    measured."""
    if prior is not None and prior.df >= MIN_PRIOR_DF:
        sd0, df0, source = prior.sd, min(prior.df, MAX_PRIOR_DF), f"series of {prior.runs} runs"
    else:
        (sd0, df0), source = (defaults or DEFAULTS)[metric], "default"
    nu = measured.df if measured is not None else 0
    var = (df0 * sd0 ** 2 + (nu * measured.var if nu else 0.0)) / (df0 + nu)
    return Noise(metric, math.sqrt(max(0.0, var)), df0 + nu, sd0, df0, source, measured)


def median_factor(k: int) -> float:
    """Var(median of k iid normals)/σ²: the reference set's median varies less than one run, more than their mean.
    Computed by simulation (10⁷ draws each; π/(2k) beyond the table, its large-k limit)."""
    table = (1.0, 0.5, 0.4487, 0.2982, 0.2868, 0.2147, 0.2104, 0.1682, 0.1661, 0.1383, 0.1372, 0.1175)
    return table[k - 1] if k <= len(table) else math.pi / (2 * k)


def prediction_band(figures: list[Figure], noise: Noise) -> tuple[float, float] | None:
    """Where the next run of the same experiment falls (95%), from the runs before it: their median ± t·√(σ_b² + s² +
    f(k)(σ_b² + s̄²)), the gate's own variance of a difference (gate.difference_sd), on the log scale for relative
    metrics. None without a usable run."""
    from scipy.special import stdtrit

    y, s2 = log_values(figures)
    if not len(y):
        return None
    within = sums.mean(s2)
    sd = math.sqrt(noise.between_sd ** 2 + within + median_factor(len(y)) * (noise.between_sd ** 2 + within))
    half = float(stdtrit(noise.df, 0.975)) * sd
    centre = float(np.median(y))
    lo, hi = centre - half, centre + half
    return (math.exp(lo), math.exp(hi)) if figures[0].metric in LOG_SCALE else (max(0.0, lo), hi)
