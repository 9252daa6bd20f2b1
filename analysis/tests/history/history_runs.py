"""Constructed run folders for the history and the gate: each cell a window of an open M/M/2 queue simulated event by
event (known on paper: R = S / (1 − ρ²), ρ = λS/2), written as `littlegrid analyze` writes summary.json, with the
exact histogram and blocks of seconds the comparison resamples. No load, no JMeter."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import numpy as np

from analysis_synthetic import open_mm2_window
from littlegrid import summary as summary_file
from littlegrid.analysis.reading.histogram import ExactHistogram, cell_histogram, completions_per_second
from littlegrid.analysis.statistics import intervals
from littlegrid.analysis.statistics.stats import nearest_rank
from littlegrid.analysis.steady.blocks import BlockHistograms
from littlegrid.history.store import Figure, RunRecord, open_store
from littlegrid.summary import SCHEMA, plain
from littlegrid.summary.model import Summary
from summary_contract import complete

RATES = (10.0, 20.0)  # requests per second: ρ = 0.25 and 0.5 at S = 50 ms
SECONDS = 600  # 6000 and 12000 samples a cell: p90 known to about ±5%, so a 20% rise in S shows beyond 10%
HOST = {"hostname": "ci-1", "cpus": 2, "memory_bytes": 24 * (1 << 30), "os": "Linux 6.1.0-18-amd64 (x86_64)"}


def queue_cell(rate: float, service_ms: float, seed: int, error_every: int = 0, prefix: str = "",
               constant_ms: int | None = None) -> dict:
    """One cell: `SECONDS` s of an open M/M/2 at `rate`/s with mean service `service_ms`; every `error_every`-th
    request failed (0: none); its id `rate=R` after `prefix` (markup, to test escaping); with `constant_ms`, every
    request takes exactly that long (the queue's completion times kept)."""
    elapsed, end = open_mm2_window(np.random.default_rng(seed), rate, service_ms, SECONDS)
    if constant_ms is not None:
        elapsed = np.full_like(elapsed, constant_ms)
    keep = end <= SECONDS * 1000
    elapsed, end = elapsed[keep], end[keep]
    n = len(elapsed)
    errors = n // error_every if error_every else 0
    ordered = np.sort(elapsed)
    overall = {"count": n, "successes": n - errors, "errors": errors, "error_rate": errors / n,
               "throughput_per_s": n / SECONDS, "successes_per_s": (n - errors) / SECONDS,
               "mean_ms": float(elapsed.mean()), "min_ms": float(ordered[0]), "max_ms": float(ordered[-1])}
    overall |= {f"p{p}_ms": float(nearest_rank(ordered, p)) for p in (50, 90, 95, 99)}
    overall["p999_ms"] = float(nearest_rank(ordered, "99.9"))
    histogram = cell_histogram(ExactHistogram.of(elapsed), completions_per_second(end, 0, SECONDS * 1000)) | {
        "blocks": BlockHistograms.from_samples(elapsed, end, 0, SECONDS * 1000).as_summary()}
    return {"id": f"{prefix}rate={rate:g}", "axes": {"rate": rate}, "status": "complete",
            "window": {"start_ms": 0, "end_ms": SECONDS * 1000}, "overall": overall, "histogram": histogram}


def summary_dict(*, run_id: str, service_ms: float = 50.0, seed: int = 1, grid_name: str = "ci",
                 knobs: dict | None = None, host: dict | None = None, rates=RATES, error_every: int = 0,
                 started: str | None = None, cell_prefix: str = "", relative_criteria=()) -> dict:
    cells = [queue_cell(rate, service_ms, seed * 1000 + i, error_every, cell_prefix) for i, rate in enumerate(rates)]
    run = {"id": run_id, "grid_name": grid_name, "plan": "open.jmx", "started": started or f"2026-01-01T{run_id}",
           "host": host or HOST, "server_knobs": knobs if knobs is not None else {"server.tomcat.threads.max": 2},
           "source": "run", "versions": {}, "relative_criteria": list(relative_criteria)}
    data = {"schema": SCHEMA, "littlegrid_version": "0.1.0", "run": run, "cells": cells,
            "axes": {"rate": list(rates)}}
    return plain(complete(data))


def run_folder(parent: Path, run_id: str, **options) -> Path:
    """A run folder holding only summary.json, valid against the typed model (the reader refuses it otherwise), each
    cell's intervals computed as `littlegrid analyze` computes them (analysis.statistics.intervals)."""
    folder = parent / run_id
    folder.mkdir(parents=True)
    summary = Summary.model_validate(summary_dict(run_id=run_id, **options))
    summary = summary.model_copy(update={"cells": intervals.attach(summary.cells)})
    summary_file.write(summary, folder / "summary.json")
    return folder


def a_record(key="r1@t", run_id="r1", p90=120.0, gate_cells=("users=1",)) -> RunRecord:
    """A record written by hand: two figures of one cell, and an error rate the cell could not measure."""
    figures = tuple(Figure(c, {"users": 1}, m, v, v * 0.9, v * 1.1, v * 0.05, 100)
                    for c in gate_cells for m, v in (("p90_ms", p90), ("throughput_per_s", 9.5)))
    figures += (Figure("users=1", {"users": 1}, "error_rate", None, None, None, None, 0),)
    return RunRecord(key, run_id, "ci", "g" * 16, "p" * 16, {"knobs": {"threads": 2}}, "c" * 16,
                     {"cpus": 2, "memory_gib": 24, "os": "Linux", "arch": "x86_64"}, "h" * 16, "a" * 40,
                     "2026-01-01T00:00:00Z", "/srv/reports/r1/report", figures)


def add_in_parallel(db: str, writers: int, count: int) -> list:
    """`writers` fresh interpreters (two CI jobs, not two threads of one) each adding `count` runs at once; the runs
    the store then holds, with their figures."""
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=add_runs, args=(db, w, count)) for w in range(writers)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert [w.exitcode for w in workers] == [0] * writers
    store = open_store(db)
    runs = store.runs(figures=True)
    store.close()
    return runs


def add_runs(db: str, worker: int, count: int) -> None:
    """A writer process: `count` runs named w<worker>-<i> added one transaction each."""
    store = open_store(db)
    for i in range(count):
        store.add(a_record(key=f"w{worker}-{i}", run_id=f"w{worker}-{i}"))
    store.close()
