"""Histories drawn with a chosen run-to-run spread σ_b and within-run noise s, driven through the gate exactly as CI
wires it (each build recorded, judged against `history:last-pass` by history/verdict.against_series, its verdict
kept for the next): the known answers of tests/history/test_gate_simulation.py and bench/bench_gate.py.

A build's figure in cell c is v = μ_c·e^{step + b + w}: b ~ N(0, σ_b²) its own offset, w ~ N(0, s²) its window's
sampling error, whose standard error s·v the build's interval states (as Cell.intervals does). No load, no store."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from littlegrid.criteria import relative
from littlegrid.history import noise, verdict
from littlegrid.history.store import Figure, RunRecord, StoredRun

CELLS = (120.0, 150.0, 240.0, 480.0, 1000.0, 2000.0)  # six cells' p90 levels (ms), as a 6-cell grid has
P90 = relative.parse("p90 regress < 10%")


@dataclass
class World:
    """The system a history is drawn from: its spread between runs, the within-run noise and its cells; the prior
    the gate starts from (prior_sd: None for the true σ_b, a calibrated prior; ν₀ the default's)."""
    between_sd: float = 0.02
    within_sd: float = 0.01
    cells: tuple = CELLS
    metric: str = "p90_ms"
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    prior_sd: float | None = None

    @property
    def defaults(self) -> dict:
        """The priors the gate is given: noise.DEFAULTS with this metric's σ₀ set to prior_sd (else the truth)."""
        sd0 = self.between_sd if self.prior_sd is None else self.prior_sd
        return noise.DEFAULTS | {self.metric: (sd0, noise.DEFAULTS[self.metric][1])}

    def build(self, number: int, step: float = 0.0, host: str = "h") -> RunRecord:
        """Build `number` with its figures raised by the factor e^step (a regression of e^step − 1)."""
        figures = []
        for c, level in enumerate(self.cells):
            v = level * math.exp(step + self.rng.normal(0, self.between_sd) + self.rng.normal(0, self.within_sd))
            se = self.within_sd * v
            figures.append(Figure(f"users={c + 1}", {"users": c + 1}, self.metric, v, v - 1.96 * se, v + 1.96 * se,
                                  se, 10_000))
        return RunRecord(f"b{number}@t", f"b{number}", "sim", "g" * 16, "p" * 16, {}, "c" * 16,
                         {"cpus": 2, "memory_gib": 24, "os": "Linux", "arch": "x86_64"}, host, None, None, None,
                         tuple(figures))


@dataclass
class Build:
    """One judged build: its verdict and what the judgement said."""
    verdict: str
    failed_now: bool  # a row failed on this build's own regression against the reference set
    failed_shift: bool  # a row failed on a persistent shift
    detectable: list[float]


def run_history(world: World, steps: list[float], criteria=(P90,), k: int = 5) -> list[Build]:
    """Builds 1..len(steps), build i raised by steps[i − 1] (log scale), each judged and its verdict kept."""
    history: list[StoredRun] = []
    out = []
    for i, step in enumerate(steps, start=1):
        candidate = world.build(i, step)
        judged = verdict.against_series(candidate, history, list(criteria), k=k, defaults=world.defaults)
        v = judged.verdict(False)
        history.append(StoredRun(i, candidate, "t", v, judged.accepted(v)))
        rows = judged.rows
        out.append(Build(v, any(r.passed is False and r.lo is not None and r.lo >= r.margin for r in rows),
                         any(r.passed is False and r.shift is not None and r.shift.beyond for r in rows),
                         [r.detectable for r in rows if r.detectable is not None]))
    return out


def judge_step(world: World, before: int, step_of_detectable: float, criteria=(P90,)) -> tuple[int, int, float]:
    """`before` unchanged builds, then one raised by `step_of_detectable` times the detectable size the gate prints
    for it (read from a dry run of the same build unraised: the size depends on the noise, not on the figure). The
    rows (cells) that failed, the rows judged, and the printed size (the median over cells). The size is each row's:
    a build of six cells raised by it fails somewhere far more often than 80%."""
    history: list[StoredRun] = []
    for i in range(1, before + 1):
        candidate = world.build(i)
        judged = verdict.against_series(candidate, history, list(criteria), defaults=world.defaults)
        v = judged.verdict(False)
        history.append(StoredRun(i, candidate, "t", v, judged.accepted(v)))
    dry = verdict.against_series(world.build(before + 1), history, list(criteria), with_shifts=False,
                                 defaults=world.defaults)
    size = float(np.median([r.detectable for r in dry.rows]))
    candidate = world.build(before + 2, step=math.log1p(step_of_detectable * size))
    judged = verdict.against_series(candidate, history, list(criteria), defaults=world.defaults)
    return sum(r.passed is False for r in judged.rows), len(judged.rows), size


def scenarios(between: float, within: float, reps: int, seed: int, *, prior_sd: float | None = None,
              cells: tuple = CELLS, only=None) -> dict[str, tuple[int, int, str, str]]:
    """Every figure the gate's targets name (or those of `only`, FIGURES' names), from `reps` histories each:
    name -> (hits, trials, target, note). The gate's prior is the true σ_b unless prior_sd says otherwise."""
    out = {}
    for name, figure in FIGURES.items():
        if only is not None and name not in only:
            continue
        out.update(figure(World(between, within, cells, rng=np.random.default_rng([seed, len(out)]),
                                prior_sd=prior_sd), reps))
    return out


def false_alarms(w: World, reps: int) -> dict:
    failed = series_failed = 0
    for _ in range(reps):
        builds = run_history(w, [0.0] * 8)
        failed += sum(b.verdict == "failed" for b in builds[1:])
        series_failed += any(b.verdict == "failed" for b in builds)
    return {"false alarms, no change: builds 2-8 failed": (failed, 7 * reps, "≤ 5%", ""),
            "  … histories with any false alarm in 8 builds": (series_failed, reps, "(spent over 7 looks)", "")}


def power(w: World, reps: int, factor: float) -> dict:
    hits, rows, sizes = 0, 0, []
    for _ in range(reps):
        failed, judged, size = judge_step(w, 3, factor)
        hits, rows = hits + failed, rows + judged
        sizes.append(size)
    target = "≥ 80%" if factor >= 2 else "≈ 80% (the size's definition)"
    return {f"cells failed by a step of {factor:g}× the printed detectable size (build 5)": (
        hits, rows, target, f" (printed: {np.median(sizes):.0%}, the median over histories)")}


def step_at_second_run(w: World, reps: int) -> dict:
    hits = 0
    for _ in range(reps):
        builds = run_history(w, [0.0] + [math.log(1.2)] * 2)
        hits += builds[1].verdict == "failed" or builds[2].verdict == "failed"
    return {"+20% from build 2 of a new series, flagged at build 2 or 3": (hits, reps, "≥ 80%", "")}


def creep(w: World, reps: int) -> dict:
    hits = by_shift = 0
    for _ in range(reps):
        builds = run_history(w, [0.0, 0.0] + [math.log(1.04 ** s) for s in range(1, 6)])
        hits += any(b.verdict == "failed" for b in builds)
        by_shift += any(b.failed_shift for b in builds)
    return {"five 4% steps (builds 3-7, +22%), flagged by build 7": (hits, reps, "≥ 80%", ""),
            "  … of them by a persistent shift (change points)": (by_shift, reps, "", "")}


def quiet(w: World, reps: int) -> dict:
    """σ_b = 0: the series' own spread measures about 0 (σ̂_b² ≤ 0 in most histories)."""
    w = World(0.0, w.within_sd, w.cells, rng=w.rng, prior_sd=w.prior_sd if w.prior_sd is not None else w.between_sd)
    failed = hits = 0
    for _ in range(reps):
        builds = run_history(w, [0.0] * 4 + [math.log(1.2)] * 2)
        failed += sum(b.verdict == "failed" for b in builds[1:4])
        hits += builds[4].verdict == "failed" or builds[5].verdict == "failed"
    return {"σ_b = 0 (σ̂_b ≈ 0), the prior as above: builds 2-4 failed": (failed, 3 * reps, "≤ 5%", ""),
            "σ_b = 0: +20% at build 5, flagged at build 5 or 6": (hits, reps, "≥ 80%", "")}


FIGURES = {"false alarms": false_alarms, "power 2x": lambda w, reps: power(w, reps, 2.0),
           "power 1x": lambda w, reps: power(w, reps, 1.0), "second run": step_at_second_run, "creep": creep,
           "quiet": quiet}
