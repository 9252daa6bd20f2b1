"""The summary of a run folder or JTL files: the stages composed (cells, curves and models, criteria, findings,
headline, expectations); `littlegrid analyze` writes it, run and search analyse what they ran with it."""

from littlegrid import __version__, findings, summary
from littlegrid.analysis import cells as cells_mod
from littlegrid.analysis.cell import analyze_cell
from littlegrid.analysis.modelling import curves, models
from littlegrid.analysis.observed import cpu_demand
from littlegrid.analysis.queueing import laws
from littlegrid.analysis.statistics import intervals
from littlegrid.analysis.statistics.stats import percentile_of
from littlegrid.comparison import deltas
from littlegrid.criteria.evaluate import evaluate
from littlegrid.criteria.grammar import parse
from littlegrid.criteria.relative import split as split_criteria
from littlegrid.findings import expect
from littlegrid.summary import model
from littlegrid.usererror import UserError


def _percentile_lookup(elapsed: dict):
    def lookup(cell_id, percentile):
        h = elapsed.get(cell_id)
        return percentile_of(h, percentile) if h is not None else None
    return lookup


def _trim(cells: list[model.Cell], warmup_s, cooldown_s, warmup_fixed: bool = False) -> model.Trim:
    def one(flag, key, fixed=True):
        if flag is not None and fixed:
            return flag
        values = {getattr(c.window, key) for c in cells if c.window}
        if not values:
            return flag
        return values.pop() if len(values) == 1 else None  # None: differs per cell, see each cell's window
    # --warmup is a floor unless fixed: the warm-up trimmed is each window's
    return model.Trim(warmup_s=one(warmup_s, "warmup_s", warmup_fixed), cooldown_s=one(cooldown_s, "cooldown_s"),
                      basis="first sample")


def _label_scoped(criteria) -> bool:
    """Whether a grid criterion is scoped to a label: it needs the per-label statistics, whatever the flag says."""
    if not criteria:
        return False
    return any(parse(c).scope.label is not None for c in criteria)


def analyze(inputs, warmup_s=None, cooldown_s=None, by_label=False, read_options=None,
            warmup_fixed=False) -> model.Summary:
    """The summary (contract §5, a summary.model.Summary) of a run folder or JTL files; nothing is written. The
    capacity table's latency objectives are the grid's unscoped latency criteria, the tolerances the grid's
    [tolerances].
    read_options: read_jtl keywords for every JTL (littlegrid.jtl.options: --columns, --jmeter-properties...).
    warmup_s is the warm-up's floor (the window starts where the data's warm-up ends, never before it);
    warmup_fixed: trim exactly warmup_s (or each cell's warmup_s), looking for no warm-up.
    """
    for name, value in (("--warmup", warmup_s), ("--cooldown", cooldown_s)):
        if value is not None and value < 0:
            raise UserError(f"{name} {value:g}: must be 0 or more seconds")
    found = cells_mod.discover(list(inputs))
    # one run judges the absolute criteria; the relative ones wait for `check --baseline` (kept in run)
    absolute, relative = split_criteria(found.criteria)
    # a JTL is one test whose labels are what its user reads first; a grid's cells get them when asked
    by_label = by_label or found.run["source"] == "jtl" or _label_scoped(absolute)
    overrides = dict(found.tolerances)
    unknown = sorted(set(overrides) - set(laws.DEFAULT_TOLERANCES))
    if unknown:
        raise UserError(f"[tolerances]: unknown name {unknown[0]!r} (known: {', '.join(laws.DEFAULT_TOLERANCES)})")
    tol = laws.tolerances(overrides)
    cells, elapsed_of = [], {}  # each cell's histogram of elapsed, for the capacity table's percentiles
    for cell in sorted(found.cells, key=lambda c: c.index):
        analysed, elapsed, _ = analyze_cell(cell, warmup_s, cooldown_s, by_label, tol, read_options,
                                            bare=found.run["source"] == "jtl", fixed_warmup=warmup_fixed)
        cells.append(analysed)
        if elapsed is not None:
            elapsed_of[cell.id] = elapsed
    services = {c.id: c.service for c in found.cells if c.service is not None}
    slos = models.latency_slos([*absolute, *(t for t in found.slos if t not in absolute)])
    run = model.Run.model_validate(summary.plain({**found.run, "relative_criteria": relative}))
    cells = cpu_demand.attach(cells, run)  # CPU per request, once: the curves and findings read it
    cells = intervals.attach(cells)  # each figure's within-run interval, once: the history's gate reads it
    cells, grid_curves, grid_checks = curves.build(cells, services, slos, _percentile_lookup(elapsed_of), tol)
    result = model.Summary.model_validate({
        "schema": summary.SCHEMA, "littlegrid_version": __version__, "run": run,
        "trim": _trim(cells, warmup_s, cooldown_s, warmup_fixed), "axes": summary.plain(found.axes), "tolerances": tol,
        "cells": cells, "curves": grid_curves, "checks": grid_checks, "criteria": [], "findings": [],
        "expectations": []})
    criteria = evaluate(absolute, result) if absolute else []
    result = result.model_copy(update={"criteria": [model.CriterionResult.model_validate(summary.plain(c))
                                                    for c in criteria]})
    # the last stage: a pure function of everything above (littlegrid.findings, docs/analysis.md "Findings")
    # a grid's two arms compared in words: the comparison stage's deltas and intervals, which the findings stage
    # (before the comparison in the pipeline) cannot compute itself
    arm_rows = deltas.arms_of(result, result.run.arms) if result.run.arms else None
    ranked = findings.findings(result, arm_rows)
    found_now = findings.as_json(ranked)
    expectations = expect.evaluate(found.run.get("expect") or [], result, found_now)
    head = findings.headline(result, ranked)
    return result.model_copy(update={
        "findings": [model.Finding.model_validate(summary.plain(f)) for f in found_now],
        "headline": model.Headline.model_validate(summary.plain(head)) if head else None,
        "expectations": [model.Expectation.model_validate(summary.plain(e)) for e in expectations]})
