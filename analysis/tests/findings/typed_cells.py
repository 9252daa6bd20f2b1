"""Model-valid cells and summaries for the findings tests, from the few fields each test sets.

Every other field takes a neutral value (summary_contract.complete: null where the model allows it, else an empty
list, map or record, 0 or ""): no server or host unless given, no labels, no checks, and a think time measured
between every sample. Records are frozen: `update` gives a changed, validated copy."""

from pydantic import BaseModel

from littlegrid.analysis.observed import cpu_demand
from littlegrid.analysis.queueing import little
from littlegrid.summary import SCHEMA
from littlegrid.summary.model import Cell, Run, Summary, ThinkTime
from summary_contract import complete

EVERY_SAMPLE = {"rule": "every sample"}  # think time measured between every pair of a thread's samples


def think_time(data: dict) -> ThinkTime:
    """A think-time record from the figures given (mean_ms, gaps, cv...)."""
    return ThinkTime.model_validate(complete({"sequence": EVERY_SAMPLE, **data}, ThinkTime))


def cell(data: dict) -> Cell:
    """A complete cell from a partial one (id, axes, users, overall... as analyze writes them)."""
    data = {"status": "complete", **data}
    if isinstance(data.get("think_time"), dict):
        data["think_time"] = think_time(data["think_time"])
    return Cell.model_validate(complete(data, Cell))


def costed(cells, run: dict) -> list[Cell]:
    """The cells with their CPU per request as the analysis stage attaches it from this run (analysis.observed.cpu_demand),
    before the curves are built from them."""
    return cpu_demand.attach(list(cells), Run.model_validate(complete(run, Run)))


def recosted(s: Summary) -> Summary:
    """The summary with each cell's CPU per request attached again from its (changed) host or server figures, and
    the curves' processor-sharing model made again from them (analysis/queueing/little.shared_cores), as the analysis
    stage would have."""
    cells = cpu_demand.attach(s.cells, s.run)
    by_id = {c.id: c for c in cells}
    curves = [update(k, models=update(k.models, shared_cores=little.shared_cores([by_id[i] for i in k.cells])))
              for k in s.curves]
    return update(s, cells=cells, curves=curves)


def summary(cells, **fields) -> Summary:
    """A complete summary around the cells; fields (run, axes, models, tolerances...) may be partial dicts."""
    return Summary.model_validate(complete({"schema": SCHEMA, "cells": list(cells), **fields}))


def update(record: BaseModel, **changes) -> BaseModel:
    """A copy of the record with some fields changed (by field name); a change may be a partial dict of a record,
    completed as above. Validated like the original."""
    model = type(record)
    data = {(f.alias or name): getattr(record, name) for name, f in model.model_fields.items()}
    data |= {(model.model_fields[name].alias or name): value for name, value in changes.items()}
    return model.model_validate(complete(data, model))


def update_cells(s: Summary, change, which=None) -> Summary:
    """The summary with change(cell) in place of each cell whose index is in `which` (every cell when None)."""
    return update(s, cells=[change(c) if which is None or i in which else c for i, c in enumerate(s.cells)])
