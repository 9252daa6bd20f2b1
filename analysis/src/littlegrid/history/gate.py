"""The baseline gate: a run against a reference (the median of its series' last accepted runs, or one run folder),
criterion by criterion (criteria.relative) and cell by cell, beyond the run-to-run noise (noise.py), with the size
of regression it can detect; and the series' persistent shifts (shifts.py) beyond a criterion's margin.

The rule, on the log scale for times and throughput (in points for the error rate). Let y be this run's figure, m the
median of the k reference runs' figures, s² this run's within-run variance (its interval's standard error squared),
s̄² the reference runs' mean within-run variance, σ_b² the between-run spread and f(k) the variance of a median of k
normals relative to one (noise.median_factor). The difference d = y − m then has variance

    V = σ_b² + s² + f(k)·(σ_b² + s̄²):

this run's own offset and window, and the reference's. σ_b is estimated on ν degrees of freedom (prior and measured),
so the half-width is t·√V with t Student's 97.5% point on the Welch–Satterthwaite degrees of freedom of V (the
within-run part counts as known). A criterion fails only when the whole interval lies past its margin. The smallest
regression it detects with 80% power is margin + (t₀.₉₇₅ + t₀.₈₀)·√V on the same scale."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

# scipy's C function itself, a float per call without the ufunc's few µs around it (the same value: issue 64)
from scipy.special.cython_special import stdtrit

from littlegrid.criteria.evaluate import in_where
from littlegrid.criteria.relative import RelativeCriterion
from littlegrid.history import noise as run_noise, sums
from littlegrid.history.store import Figure, RunRecord, by_cell
from littlegrid.summary.baseline import BaselineRow, Shift

POWER = 0.80  # the detectable size is the regression failed this often


@dataclass(frozen=True)
class Difference:
    """d = y − m on the judging scale with its standard deviation and degrees of freedom."""
    d: float
    sd: float
    df: float
    reference: float  # m back on the figure's scale

    def half_width(self, level: float = 0.95) -> float:
        return stdtrit(float(self.df), (1 + level) / 2) * self.sd

    def detectable(self) -> float:
        """How far past the margin (on the judging scale) a regression must lie to fail with POWER."""
        return (stdtrit(float(self.df), 0.975) + stdtrit(float(self.df), POWER)) * self.sd


def difference(candidate: Figure, reference: list[Figure], noise: run_noise.Noise) -> Difference | None:
    """The module docstring's d, √V and degrees of freedom; None when a figure or its standard error is missing."""
    y, s2 = run_noise.log_values([candidate])
    ys, s2s = run_noise.log_values(reference)
    if not len(y) or not len(ys):
        return None
    k = len(ys)
    f = run_noise.median_factor(k)
    between = noise.between_sd ** 2 * (1 + f)
    within = s2[0] + f * sums.mean(s2s)
    var = between + within
    if var <= 0:
        return None
    df = noise.effective_df(between, var)
    # statistics.median: the value np.median gives (the middle one, or the mean of the two), without its 50 µs a
    # call on a handful of runs (the gate simulation asks thousands of times)
    m = float(statistics.median(ys))
    back = math.exp(m) if candidate.metric in run_noise.LOG_SCALE else m
    return Difference(y[0] - m, math.sqrt(var), df, back)


def to_regression(crit: RelativeCriterion, x: float) -> float:
    """A difference on the judging scale as the criterion's regression (+ is worse)."""
    if crit.unit == "points":
        return -x if crit.higher_is_better else x
    return 1 - math.exp(x) if crit.higher_is_better else math.exp(x) - 1


def from_regression(crit: RelativeCriterion, r: float) -> float:
    """A regression back on the judging scale, measured in the bad direction (+: worse)."""
    if crit.unit == "points":
        return r
    return -math.log(1 - r) if crit.higher_is_better else math.log(1 + r)


def judge_cell(crit: RelativeCriterion, cell: str, mine: Figure | None, reference: list[Figure],
               noise: run_noise.Noise, shift: Shift | None = None) -> BaselineRow:
    """One (criterion, cell): the regression, its interval, the detectable size and the verdict."""
    def result(change=None, lo=None, hi=None, base=None, passed=None, reason=None, detectable=None) -> BaselineRow:
        return BaselineRow(criterion=crit.text, cell=cell, metric=crit.metric, unit=crit.unit, baseline=base,
                           value=mine.value if mine is not None else None, regression=change, lo=lo, hi=hi,
                           margin=crit.margin, reference_runs=len(reference), noise_sd=noise.between_sd,
                           noise_df=noise.df, noise_source=noise.source, noise_words=noise.words(crit.unit),
                           detectable=detectable, shift=shift, passed=passed, reason=reason)

    values = [f.value for f in reference if f.value is not None]
    if mine is None or mine.value is None:
        return result(reason=f"this run has no {crit.metric} in this cell")
    if not values:
        return result(reason=f"the reference run{'s' * (len(reference) != 1)} have no {crit.metric} in this cell")
    if mine.se is None or any(f.se is None for f in reference):
        return result(reason=f"{'this run' if mine.se is None else 'a reference run'} has no interval for "
                             f"{crit.metric} in this cell (no steady-window histogram: analyse it again)")
    if crit.unit != "points" and (mine.value <= 0 or min(values) <= 0):
        return result(reason=f"a relative change of {crit.metric} needs figures above 0")
    diff = difference(mine, reference, noise)
    if diff is None:
        return result(reason=f"no spread to judge {crit.metric} by in this cell")
    sign = -1 if crit.higher_is_better else 1
    h = diff.half_width()
    ends = sorted(to_regression(crit, diff.d + e) for e in (-h, h))
    change = to_regression(crit, diff.d)
    detectable = to_regression(crit, sign * (from_regression(crit, crit.margin) + diff.detectable()))
    beyond = crit.fails(ends[0])
    passed = not (beyond or (shift is not None and shift.beyond))
    return result(change, ends[0], ends[1], diff.reference, passed, None, detectable)


def judge(candidate: RunRecord, reference: list[RunRecord], criteria: list[RelativeCriterion],
          noises: dict[str, run_noise.Noise], shifts: dict[tuple[str, str], Shift] | None = None
          ) -> tuple[list[BaselineRow], list[str]]:
    """(rows: criterion then cell, in the candidate's cell order; notes: cells only one side has). shifts: the
    persistent shift found per (criterion text, cell), if any."""
    mine = by_cell(candidate.figures)
    refs = [by_cell(r.figures) for r in reference]
    base_cells = {c for r in refs for c in r}
    rows = []
    for crit in criteria:
        for cell, figures in mine.items():
            if cell not in base_cells or crit.key not in figures:
                continue
            if not in_where(crit.scope, _Axes(figures[crit.key].axes), crit.text):
                continue
            held = [r[cell][crit.key] for r in refs if cell in r and crit.key in r[cell]]
            rows.append(judge_cell(crit, cell, figures[crit.key], held, noises[crit.key],
                                   (shifts or {}).get((crit.text, cell))))
    notes = target_change(candidate, reference[-1]) if reference else []
    notes += [f"cell {c} is only in the reference: not judged" for c in sorted(base_cells) if c not in mine]
    notes += [f"cell {c} is not in the reference: not judged" for c in mine if c not in base_cells]
    return rows, notes


def target_change(candidate: RunRecord, baseline: RunRecord) -> list[str]:
    """The target's change, named: it is the change under test (a slower endpoint, another build), not a refusal."""
    mine, theirs = candidate.config.get("target") or {}, baseline.config.get("target") or {}
    changed = [f"{k} {theirs.get(k)!r} vs {mine.get(k)!r}" for k in sorted(set(mine) | set(theirs))
               if mine.get(k) != theirs.get(k)]
    return [f"the target differs from the baseline's: {'; '.join(changed)} (the change under test)"] if changed else []


class _Axes:
    """A cell's axes as criteria.evaluate.in_where reads them."""

    def __init__(self, axes: dict):
        self.axes = axes
