"""Persistent shifts across a series: the change points of each cell's figures (changepoints.py) since the series
started or was last pinned, and the level the series is at now against the level it started at, judged as the gate
judges a run: a regression with its 95% interval (the run-to-run noise of noise.py over the runs on each side) that
fails the criterion only when it lies wholly past the margin. Steps each smaller than the margin that add up (five
4% steps are 22%) are caught here, where the reference set, which moves with every run that passes, cannot see
them. The change points only locate levels; the margin and the noise decide."""

from __future__ import annotations

import math

# scipy's C function itself, a float per call without the ufunc's few µs around it (the same value: issue 64)
from scipy.special.cython_special import stdtrit

from littlegrid.criteria.relative import RelativeCriterion
from littlegrid.history import gate, noise as run_noise, sums
from littlegrid.history.changepoints import GATE_PVALUE, change_points
from littlegrid.history.store import RunRecord, by_cell
from littlegrid.summary.baseline import Shift

MIN_RUNS = 4  # the fewest runs (this one included) a series needs before its change points are looked for
# the fewest runs at the new level, this one included, for a shift to be persistent: one run above the rest is this
# run's own regression, which the reference set judges (gate.py)
MIN_AFTER = 2


def persistent(crit: RelativeCriterion, cell: str, runs: list[RunRecord], noise: run_noise.Noise,
               figures: list[dict] | None = None) -> Shift | None:
    """The shift of `cell`'s figure for `crit` across `runs` (the segment since the last pin, oldest first, the
    candidate last), when its change points show one in the bad direction that the candidate is part of; else None.
    figures: each run's figures by cell (store.by_cell), when the caller has them (it asks for every criterion and
    cell of the same runs)."""
    held = []
    for r, by in zip(runs, figures or [by_cell(r.figures) for r in runs]):
        f = by.get(cell, {}).get(crit.key)
        if f is not None:
            held.append((r, f))
    if len(held) < MIN_RUNS or held[-1][0] is not runs[-1]:
        return None
    y, s2 = run_noise.log_values([f for _, f in held])
    if len(y) != len(held):
        return None
    points = change_points(y, max_pvalue=GATE_PVALUE)
    if not points:
        return None
    first, last = points[0].index, points[-1].index
    if len(y) - last < MIN_AFTER:
        if len(points) == 1:
            return None
        last = points[-2].index  # the level before this run's own step
    d, h = level_change(y, s2, slice(0, first), slice(last, len(y)), noise)
    change = gate.to_regression(crit, d)
    if change <= 0:
        return None  # a better level is no business of the gate
    lo, hi = sorted(gate.to_regression(crit, d + e) for e in (-h, h))
    start = held[first][0]
    return Shift(since_run=start.run_id, since_commit=start.commit, runs_after=len(y) - last, runs_before=first,
                 change_points=len(points), regression=change, lo=lo, hi=hi, beyond=bool(crit.fails(lo)))


def level_change(y: list[float], s2: list[float], before: slice, after: slice,
                 noise: run_noise.Noise) -> tuple[float, float]:
    """(d, h): the mean level of y[after] less that of y[before] on the judging scale, and its 95% half-width: each
    level's variance is (σ_b² + s̄²)/n over its n runs, the σ_b part on the noise's degrees of freedom
    (Welch–Satterthwaite, as the gate's). y and s2 as noise.log_values gives them."""
    n_a, n_b = len(y[before]), len(y[after])
    d = sums.mean(y[after]) - sums.mean(y[before])
    between = noise.between_sd ** 2 * (1 / n_a + 1 / n_b)
    var = between + sums.mean(s2[before]) / n_a + sums.mean(s2[after]) / n_b
    return d, stdtrit(float(noise.effective_df(between, var)), 0.975) * math.sqrt(var)
