"""The baseline gate: a run against a baseline run, criterion by criterion (criteria.relative) and cell by cell, the
interval of each difference from both runs' within-run intervals (figures.py) widened by the run-to-run noise the
history has measured (noise.py); and the refusal of a baseline that is not comparable."""

from __future__ import annotations

import math
from dataclasses import dataclass

from littlegrid.criteria import relative
from littlegrid.criteria.evaluate import in_where
from littlegrid.criteria.relative import RelativeCriterion
from littlegrid.history import noise as run_noise
from littlegrid.history.figures import Z95
from littlegrid.history.record import comparable_config, host_kind, host_text
from littlegrid.history.store import Figure, RunRecord, StoredRun


@dataclass(frozen=True)
class GateResult:
    """One relative criterion on one cell: both figures, the regression (the change in the bad direction: + is
    worse) with its 95% interval, what the interval was made of, and whether the criterion holds (None: not
    judged, `reason` says why)."""
    criterion: str
    cell: str
    metric: str  # the criterion's metric name: p90, throughput, error_rate
    unit: str  # "%" | "points"
    baseline: float | None
    value: float | None
    regression: float | None  # a fraction: of the baseline for "%", of all samples for "points"
    lo: float | None
    hi: float | None
    margin: float
    noise_runs: int  # comparable earlier runs holding this cell's metric
    noise_used: bool  # the interval includes the history's run-to-run spread
    passed: bool | None
    reason: str | None

    def shown(self, figure: float | None) -> str:
        """A figure in its unit: "110 ms", "19.5/s", "0.2%"."""
        if figure is None:
            return "none"
        if self.metric == "error_rate":
            return f"{figure * 100:.3g}%"
        return f"{figure:.4g}/s" if self.metric == "throughput" else f"{figure:.4g} ms"

    def change_text(self, change: float | None) -> str:
        return relative.change_text(relative.parse(self.criterion), change)

    def noise_text(self) -> str:
        if self.noise_used:
            return f"with the run-to-run noise of {self.noise_runs} earlier runs"
        return (f"within-run interval only: the history holds {self.noise_runs} comparable earlier "
                f"run{'s' * (self.noise_runs != 1)} of this cell, {run_noise.K_MIN} needed for its noise")

    def verdict(self) -> str:
        margin = relative.margin_text(relative.parse(self.criterion))
        return {None: f"not judged: {self.reason}", True: f"not shown beyond {margin}",
                False: f"regressed beyond {margin}"}[self.passed]

    def message(self) -> str:
        """One line: `p90 regress < 10% [users=20]: p90 110 ms -> 142 ms, regression +29.1% (95% interval +18.0%
        to +41.2%, with the run-to-run noise of 5 earlier runs): regressed beyond 10%`."""
        head = f"{self.criterion} [{self.cell}]"
        if self.passed is None:
            return f"{head}: {self.verdict()}"
        return (f"{head}: {self.metric} {self.shown(self.baseline)} -> {self.shown(self.value)}, regression "
                f"{self.change_text(self.regression)} (95% interval {self.change_text(self.lo)} to "
                f"{self.change_text(self.hi)}, {self.noise_text()}): {self.verdict()}")


def not_comparable(candidate: RunRecord, baseline: RunRecord) -> str | None:
    """What makes `baseline` another experiment than `candidate`, in one line (grid, plan, server configuration), or
    None when they are comparable. The kind of host is asked separately (other_host)."""
    differs = []
    if candidate.grid_hash != baseline.grid_hash:
        names = f" ({baseline.grid_name} vs {candidate.grid_name})" if baseline.grid_name != candidate.grid_name \
            else " (the same name, another content)"
        differs.append("another grid" + names)
    if candidate.plan_hash != baseline.plan_hash:
        differs.append("another plan")
    if candidate.config_hash != baseline.config_hash:
        mine, theirs = comparable_config(candidate.config), comparable_config(baseline.config)
        changed = [f"{k} {theirs.get(k)} vs {mine.get(k)}" for k in sorted(set(theirs) | set(mine))
                   if theirs.get(k) != mine.get(k)]
        differs.append("another server configuration (" + "; ".join(changed) + ")")
    if not differs:
        return None
    return f"baseline {baseline.run_id} is not comparable with {candidate.run_id}: " + ", ".join(differs)


def other_host(candidate: RunRecord, baseline: RunRecord) -> str | None:
    """"another kind of host: 4 CPUs, 16 GiB, Linux x86_64 vs 2 CPUs, …", or None when it is the same kind."""
    if host_kind(candidate.host) == host_kind(baseline.host):
        return None
    return f"another kind of host: baseline {host_text(baseline.host)} vs this run {host_text(candidate.host)}"


def comparable_history(candidate: RunRecord, history: list[StoredRun]) -> list[StoredRun]:
    """The earlier runs whose spread is the noise: the same grid, plan, server configuration and kind of host, the
    gate not failed (a regression is not noise), the candidate itself left out; oldest first."""
    kind = host_kind(candidate.host)
    return [r for r in history if r.record.key != candidate.key and r.gate != "failed"
            and not_comparable(candidate, r.record) is None and host_kind(r.record.host) == kind]


def judge(candidate: RunRecord, baseline: RunRecord, criteria: list[RelativeCriterion],
          history: list[StoredRun] = ()) -> tuple[list[GateResult], list[str]]:
    """(results: criterion then cell, in the candidate's cell order; notes: cells only one run has)."""
    base = _by_cell(baseline.figures)
    mine = _by_cell(candidate.figures)
    earlier = comparable_history(candidate, list(history))
    results = []
    for crit in criteria:
        for cell, figures in mine.items():
            if cell not in base or not in_where(crit.scope, _Axes(figures[crit.key].axes), crit.text):
                continue
            past = [f for r in earlier for f in r.record.figures if f.cell == cell and f.metric == crit.key]
            results.append(regression(crit, cell, base[cell][crit.key], figures[crit.key],
                                      run_noise.between_runs(past)))
    notes = target_change(candidate, baseline)
    notes += [f"cell {c} is only in the baseline: not judged" for c in base if c not in mine]
    notes += [f"cell {c} is not in the baseline: not judged" for c in mine if c not in base]
    return results, notes


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


def _by_cell(figures) -> dict[str, dict[str, Figure]]:
    out: dict[str, dict[str, Figure]] = {}
    for f in figures:
        out.setdefault(f.cell, {})[f.metric] = f
    return out


def regression(crit: RelativeCriterion, cell: str, a: Figure, b: Figure, noise: run_noise.Noise) -> GateResult:
    """The regression B against A with its interval (noise.py's derivation) and the criterion's verdict."""
    def result(change=None, lo=None, hi=None, passed=None, reason=None) -> GateResult:
        return GateResult(crit.text, cell, crit.metric, crit.unit, a.value, b.value, change, lo, hi, crit.margin,
                          noise.runs, noise.measured, passed, reason)

    if a.value is None or b.value is None:
        return result(reason=f"{'the baseline' if a.value is None else 'this run'} has no {crit.metric} in this cell")
    if a.se is None or b.se is None:
        return result(reason=f"{'the baseline' if a.se is None else 'this run'} has no interval for {crit.metric} "
                             f"in this cell (no steady-window histogram)")
    sign = -1 if crit.higher_is_better else 1  # a regression is + : throughput down, a time or errors up
    if crit.unit == "points":
        d = b.value - a.value
        h = run_noise.half_width(math.hypot(a.se, b.se), noise, Z95)
        change, lo, hi = sign * d, sign * d - h, sign * d + h
    else:
        if a.value <= 0 or b.value <= 0:
            return result(reason=f"a relative change of {crit.metric} needs both figures above 0 "
                                 f"({a.value:.4g} and {b.value:.4g})")
        log_ratio = math.log(b.value / a.value)
        h = run_noise.half_width(math.hypot(a.se / a.value, b.se / b.value), noise, Z95)
        ends = sorted(sign * (math.exp(log_ratio + e) - 1) for e in (-h, h))
        change, lo, hi = sign * (math.exp(log_ratio) - 1), ends[0], ends[1]
    return result(change, lo, hi, not crit.fails(lo))
