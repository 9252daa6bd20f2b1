"""A run judged against its history, as a pure function of the records (no store, no files): the reference found
(the series' reference set, or one run), the noise of the series with its prior (noise.py), the persistent shifts
(shifts.py) and each (criterion, cell) judged (gate.py); and the run's verdict. `littlegrid check --baseline`
(commands/baseline.py) reads the history and writes what this decides; the simulation of the gate
(tests/history/gate_simulation.py) drives it over thousands of drawn histories."""

from __future__ import annotations

from dataclasses import dataclass, field

from littlegrid.criteria.relative import RelativeCriterion
from littlegrid.history import gate, noise as run_noise, series as run_series, shifts
from littlegrid.history.store import RunRecord, StoredRun, by_cell
from littlegrid.summary.baseline import BaselineRow

PLAN_KINDS = ("grid", "plan", "configuration")  # what --allow-other-plan crosses; --allow-other-host crosses "host"


def allow_words(kinds) -> str:
    """"--allow-other-plan or --allow-other-host": the flags that would cross these differences."""
    return " or ".join(dict.fromkeys("--allow-other-host" if kind == "host" else "--allow-other-plan"
                                     for kind in kinds))


@dataclass
class Judgement:
    """What the gate decided: the rows, the reference (its runs; empty: none, the notes say why), what the history
    said, and whether the run starts its series' reference."""
    rows: list[BaselineRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reference: list[RunRecord] = field(default_factory=list)
    reference_kind: str = "none"  # "series" | "run folder" | "none"
    starts_series: bool = False  # the run is its series' first (or first not failed): its reference unless it fails

    def verdict(self, others_failed: bool) -> str:
        """The run's verdict: failed when anything failed (its absolute criteria and checks: others_failed), else
        unjudged when the gate had nothing to judge against or could not judge a row, else passed."""
        if others_failed or any(r.passed is False for r in self.rows):
            return "failed"
        if not self.reference or not self.rows or any(r.passed is None for r in self.rows):
            return "unjudged"
        return "passed"

    def accepted(self, verdict: str) -> str | None:
        """"start" when the run becomes its series' first reference (it starts the series and did not fail)."""
        return "start" if self.starts_series and verdict != "failed" else None


def against_series(candidate: RunRecord, history: list[StoredRun], criteria: list[RelativeCriterion], *,
                   allowed: set = frozenset(), k: int = run_series.REFERENCE_RUNS, where: str = "the history",
                   with_shifts: bool = True, defaults: dict | None = None) -> Judgement:
    """history:last-pass: the reference set of the run's series; a series' first run is its reference, said in one
    line; another series of the grid is compared only when `allowed` ("grid", "plan", "configuration", "host")
    covers what differs. defaults: the prior per metric when the grid has measured none (noise.DEFAULTS)."""
    out = Judgement()
    mine = run_series.of_candidate(history, candidate)
    grid = run_series.grid_of(candidate)
    across: list[StoredRun] = []
    if mine:
        out.reference = [r.record for r in run_series.reference_set(mine, k)]
        out.reference_kind = "series"
        if not out.reference:
            out.starts_series = True
            out.notes.append(f"no earlier run of this series of grid {grid} was accepted (each failed or was not "
                             f"judged, none pinned): nothing to judge against; this run is the series' reference "
                             f"once it passes")
            return out
    else:
        others = [r for r in run_series.earlier(history, candidate) if run_series.grid_of(r.record) == grid]
        if not others:
            out.starts_series = True
            out.notes.append(f"the first run of grid {grid} in {where}: nothing to judge against; this run is its "
                             f"series' reference once it passes")
            return out
        last = others[-1]
        differs = run_series.differences(candidate, last.record)
        across = [r for r in others if r.record.series == last.record.series]
        if not {kind for kind, _ in differs} <= set(allowed):
            out.starts_series = True
            out.notes.append(f"a new series of grid {grid} starts: {'; '.join(w for _, w in differs)} than the last "
                             f"series' (its {len(across)} run{'s' * (len(across) != 1)}, last {last.record.run_id}); "
                             f"this run is its reference once it passes ({allow_words(k for k, _ in differs)} "
                             f"compares across on purpose)")
            return out
        out.reference = [r.record for r in run_series.reference_set(across, k)]
        out.reference_kind = "series"
        out.notes.append(f"compared across series on purpose: {'; '.join(w for _, w in differs)} than run "
                         f"{last.record.run_id}'s")
    noises = run_noise.of_series(candidate, history, mine or across, {c.key for c in criteria}, defaults)
    found = persistent_shifts(candidate, mine, criteria, noises) if mine and with_shifts else {}
    out.rows, cells = gate.judge(candidate, out.reference, criteria, noises, found)
    out.notes += cells
    return out


def against_run(candidate: RunRecord, baseline: RunRecord, history: list[StoredRun],
                criteria: list[RelativeCriterion], *, allowed: set = frozenset()) -> Judgement:
    """A run folder: the reference is that one run (the noise from the run's series when a history holds it, else
    the prior); another plan, configuration or kind of host is not judged unless `allowed`, said in one line.
    Another grid is the caller's to refuse."""
    out = Judgement()
    refused = [(kind, words) for kind, words in run_series.differences(candidate, baseline) if kind not in allowed]
    if refused:
        out.notes.append(f"baseline {baseline.run_id} is another series than {candidate.run_id}: "
                         f"{'; '.join(w for _, w in refused)}; not judged ({allow_words(k for k, _ in refused)} "
                         f"compares them anyway)")
        return out
    out.reference, out.reference_kind = [baseline], "run folder"
    mine = run_series.of_candidate(history, candidate)
    noises = run_noise.of_series(candidate, history, mine, {c.key for c in criteria})
    out.rows, cells = gate.judge(candidate, out.reference, criteria, noises)
    out.notes += cells
    return out


def persistent_shifts(candidate: RunRecord, mine: list[StoredRun], criteria: list[RelativeCriterion],
                      noises: dict) -> dict:
    """The persistent shifts of the run's series (its segment since the last pin, this run last) per (criterion,
    cell)."""
    runs = [r.record for r in run_series.segment(mine)] + [candidate]
    if len(runs) < shifts.MIN_RUNS:
        return {}
    figures = [by_cell(r.figures) for r in runs]
    out = {}
    for crit in criteria:
        for cell in dict.fromkeys(f.cell for f in candidate.figures):
            found = shifts.persistent(crit, cell, runs, noises[crit.key], figures)
            if found is not None:
                out[(crit.text, cell)] = found
    return out
