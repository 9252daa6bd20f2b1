"""The baseline gate: a run against a baseline run, criterion by criterion (criteria.relative) and cell by cell, the
interval of each difference from both runs' within-run intervals (figures.py) widened by the run-to-run noise the
history has measured (noise.py); and the refusal of a baseline that is not comparable."""

from __future__ import annotations

import math

from littlegrid.criteria.evaluate import in_where
from littlegrid.criteria.relative import RelativeCriterion
from littlegrid.history import noise as run_noise
from littlegrid.history.figures import Z95
from littlegrid.history.record import comparable_config, host_kind, host_text
from littlegrid.history.store import Figure, RunRecord, StoredRun
from littlegrid.summary.baseline import BaselineRow, margin_text


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
          history: list[StoredRun] = ()) -> tuple[list[BaselineRow], list[str]]:
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


def regression(crit: RelativeCriterion, cell: str, a: Figure, b: Figure, noise: run_noise.Noise) -> BaselineRow:
    """The regression B against A with its interval (noise.py's derivation) and the criterion's verdict."""
    def result(change=None, lo=None, hi=None, passed=None, reason=None) -> BaselineRow:
        return BaselineRow(criterion=crit.text, cell=cell, metric=crit.metric, unit=crit.unit, baseline=a.value,
                           value=b.value, regression=change, lo=lo, hi=hi, margin=crit.margin,
                           noise_runs=noise.runs, noise_needed=run_noise.K_MIN, noise_used=noise.measured,
                           passed=passed, reason=reason)

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
    if not noise.measured:
        # Two runs of one commit differ by more than their within-run intervals (a server start, a neighbour on the
        # host: the Done-when's second run of grids/ci.toml moved p90 +23%, within-run interval +13.8% to +33.0%,
        # in its saturated cell), so an interval without the run-to-run noise cannot show a regression: the gate
        # says what it saw and waits for the history, rather than fail a build that changed nothing.
        beyond = f"; the within-run interval alone lies beyond {margin_text(crit.unit, crit.margin)}" \
            if crit.fails(lo) else ""
        return result(change, lo, hi, None, f"the history holds {noise.runs} comparable earlier "
                                            f"run{'s' * (noise.runs != 1)} of this cell, {run_noise.K_MIN} needed "
                                            f"for its run-to-run noise{beyond}")
    return result(change, lo, hi, not crit.fails(lo))
