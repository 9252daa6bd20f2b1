"""A capacity search's result as data (search.json) and in words: the probes, the answer with its intervals,
the bounds of the probed cells."""

from __future__ import annotations

import math

from littlegrid.analysis.cells import Service
from littlegrid.analysis.modelling import models
from littlegrid.run.progress import hms
from littlegrid.search.slo import Figure, slo_words, value_words
from littlegrid.search.strategy import Answer, Evidence, Next, Probe, Space, bracket, evidence, predict, remaining
from littlegrid.summary.model import Cell

SCHEMA = "littlegrid.search/1"


def load_words(space: Space, load: float) -> str:
    return f"{load:.0f}" if space.closed else f"{load:.3g}/s"


def _figure_words(f: Figure) -> str:
    kind = "fraction" if f.metric == "error_rate" else "time"
    lo, hi = (f.lo * 100, f.hi * 100) if kind == "fraction" else (f.lo, f.hi)
    return f"{value_words(f.value, kind)} [{lo:.0f}, {hi:.0f}]"


def _at(space: Space, e: Evidence) -> str:
    figs = "; ".join(f"{f.metric} {_figure_words(f)}" if i else _figure_words(f) for i, f in enumerate(e.figures))
    repeats = f", {e.repeats} probes" if e.repeats > 1 else ""
    return f"{figs}{repeats}"


def full_grid_cells(space: Space) -> int:
    """The cells a grid at the search's resolution would need over the same range."""
    if space.closed:
        return int((space.high - space.low) // space.step) + 1
    return math.ceil(math.log(space.high / space.low) / math.log(1 + space.step)) + 1


def answer_words(space: Space, answer: Answer, probes: int, load_s: float, slo: tuple) -> str:
    """The answer in one sentence, as the issue writes it: "largest N with p90 < 300 ms: 27 (p90 at 27: 288 ms
    [281, 296]; at 28: 305 ms [297, 313]); 9 probes, 4:10 of load; a full 1..40 grid would take 40 cells"."""
    what = "N" if space.closed else "rate"
    objective = " and ".join(slo_words(c) for c in slo)
    metric = slo[0].metric
    tally = f"{probes} probe{'s' if probes != 1 else ''}, {hms(load_s)} of load"
    rng = f"{load_words(space, space.low)}..{load_words(space, space.high)}"
    grid = (f"a full {rng} grid would take {full_grid_cells(space)} cells" if space.closed else
            f"a full {rng} grid at {space.step:.0%} steps would take {full_grid_cells(space)} cells")
    if answer.kind == "found":
        text = (f"largest {what} with {objective}: {load_words(space, answer.load)} ({metric} at "
                f"{load_words(space, answer.load)}: {_at(space, answer.at)}; at {load_words(space, answer.above.load)}: "
                f"{_at(space, answer.above)}); {tally}; {grid}")
        if not answer.separated:
            text += f"; {answer.why}"
        return text
    if answer.kind == "none":
        return (f"no {what} from {rng} meets {objective}: {metric} at {load_words(space, answer.above.load)}: "
                f"{_at(space, answer.above)}; {tally}")
    if answer.kind == "all":
        return (f"every {what} up to {load_words(space, space.high)} meets {objective}: the answer is ≥ "
                f"{load_words(space, space.high)} ({metric} at {load_words(space, answer.load)}: "
                f"{_at(space, answer.at)}); {tally}")
    return f"no answer: {answer.why}; {tally}"


def probe_record(space: Space, probe: Probe, cell_id: str, why: str) -> dict:
    """One probe in search.json: the load, the first criterion's figure under its own key (p90_ms) and
    interval, every figure, validity, and why the strategy chose it."""
    row = {space.axis: probe.load, "cell": cell_id, "why": why, "valid": probe.valid,
           "why_invalid": probe.why_invalid, "duration_s": probe.duration_s, "mean_ms": probe.mean_ms,
           "throughput_per_s": probe.throughput_per_s, "stopped": probe.stopped}
    if probe.figures:
        first = probe.figures[0]
        key = first.metric if first.metric == "error_rate" else f"{first.metric}_ms"
        row |= {key: first.value, "interval": [first.lo, first.hi],
                "meets": all(f.holds() for f in probe.figures),
                "figures": [_figure_record(f) for f in probe.figures]}
    return row


def probe_words(probe: Probe) -> str:
    """A probe's first figure and interval against the SLO ("p90 22 [21, 23] meets"), how its load ended when that
    decided it ("; SLO met early at 14 s: …"), or why it is invalid."""
    if not probe.figures:
        return f"invalid: {(probe.why_invalid or '')[:160]}"
    f = probe.figures[0]
    verdict = "meets" if all(x.holds() for x in probe.figures) else "fails"
    early = f"; {probe.stopped}" if probe.stopped and probe.stopped.startswith("SLO") else ""
    return f"{f.metric} {f.value:.0f} [{f.lo:.0f}, {f.hi:.0f}] {verdict}{early}"


def progress_record(space: Space, group: dict, slo_texts: list[str], probes: list[Probe], cell_ids: list[str],
                    step: Next | None, answer: str | None, finished: list[str]) -> dict:
    """A running search as the live view shows it (plain keys and words): the bracket the probes so far put on
    the answer, the last probe, what runs next and about how many probes are left, or the answer once found;
    `finished`: the answers, in words, of the searches done before this one (other axes' combinations)."""
    lo, hi = bracket(space, evidence(probes))
    where = ", ".join(f"{k} = {v}" for k, v in group.items())
    record = {"slo": " and ".join(slo_texts),
              "searching": f"{space.axis} in {load_words(space, space.low)}..{load_words(space, space.high)}"
                           + (f" where {where}" if where else ""),
              "probes": len(probes),
              "last probe": f"{cell_ids[-1]}: {probe_words(probes[-1])}" if probes else None,
              "bracket": [lo, hi],
              "meets up to": None if lo is None else load_words(space, lo),
              "fails from": None if hi is None else load_words(space, hi)}
    if step is not None:
        record |= {"next probe": f"{load_words(space, step.load)}: {step.why}",
                   "probes left": remaining(space, probes)}
    if answer is not None:
        record["answer"] = answer
    if finished:
        record["earlier searches"] = " | ".join(finished)
    return record


def _figure_record(f: Figure) -> dict:
    return {"criterion": f.criterion, "metric": f.metric, "value": f.value, "interval": [f.lo, f.hi],
            "threshold": f.threshold, "strict": f.strict, "meets": f.holds()}


def _evidence_record(space: Space, e: Evidence | None) -> dict | None:
    if e is None:
        return None
    return {space.axis: e.load, "repeats": e.repeats, "meets": e.passes, "decided": e.decided,
            "figures": [_figure_record(f) for f in e.figures]}


def search_record(space: Space, group: dict, answer: Answer, probes: list[Probe], rows: list[dict],
                  entries: list[Cell], slo: tuple, load_s: float) -> dict:
    """One search (one combination of the other axes): its answer, probes, bounds and the model's boundary."""
    guess, calibrated = predict(space, probes, evidence(probes))
    return {
        "group": group,
        "answer": {space.axis: answer.load, "kind": answer.kind, "separated": answer.separated, "why": answer.why,
                   "at": _evidence_record(space, answer.at), "above": _evidence_record(space, answer.above),
                   "words": answer_words(space, answer, len(probes), load_s, slo)},
        "probes": rows,
        "load_s": load_s,
        "full_grid_cells": full_grid_cells(space),
        "model": {"boundary": guess, "calibrated": calibrated,
                  "basis": ("D_max measured past the knee" if calibrated else
                            "D_max from the grid's S/c" if space.service else "D_max estimated as 1/X_max")},
        "bounds": bounds_of(space, entries),
    }


def bounds_of(space: Space, entries: list[Cell]) -> dict | None:
    """The asymptotic bounds over the probed cells (models.bounds: D = R at the lightest, D_max = 1/max X, or
    the grid's S and c), one cell per load, as plain data; None for an open search or too few cells."""
    if not space.closed:
        return None
    by_load = {}
    for e in entries:
        if e.overall is not None and e.overall.count and e.users is not None:
            by_load.setdefault(e.users.n, e)
    members = [by_load[n] for n in sorted(by_load)]
    if not members or models.think_of(members[0]) is None:
        return None
    service = None
    if space.service:
        service = Service(space.service[0], space.service[1], "const")
    return models.bounds(members, service).model_dump(by_alias=True) | {"think_ms": models.think_of(members[0])}


def document(space: Space, slo_texts: list[str], searches: list[dict]) -> dict:
    """search.json: the issue's fields at the top (answer, probes, slo, resolution) for the first search,
    every search under "searches"."""
    first = searches[0] if searches else {}
    return {"schema": SCHEMA, "axis": space.axis, "slo": list(slo_texts),
            "resolution": {"value": space.step, "unit": "users" if space.closed else "fraction of the rate"},
            "range": {"min": space.low, "max": space.high},
            "answer": first.get("answer") if len(searches) == 1 else [s["answer"] | {"group": s["group"]}
                                                                     for s in searches],
            "probes": [p for s in searches for p in s["probes"]],
            "searches": searches}
