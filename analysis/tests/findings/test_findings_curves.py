"""Findings read the analysis's curves: an open workload past capacity is overload, not the generator; a constant
distance above the lower bound is overhead, not a knee; next cells stop where the host's CPU does."""

import math

import numpy as np

from littlegrid.analysis import curves, trend
from littlegrid.analysis.cells import Service
from littlegrid.analysis.laws import DEFAULT_TOLERANCES
from littlegrid.findings import findings
from summary_contract import typed
from littlegrid.summary.model import Cell
from typed_cells import costed, summary as typed_summary

THREADS = "server.tomcat.threads.max"


def summary_of(cells, service, cpus=2):
    services = {c.id: service for c in cells}
    run = {"host": {"cpus": cpus}}
    cells, built, _ = curves.build(costed(cells, run), services, [], lambda cid, q: None, DEFAULT_TOLERANCES)
    return typed_summary(cells, run=run, curves=built, tolerances=dict(DEFAULT_TOLERANCES))


def open_cell(rate, served, r_first, r_last, busy, *, threads=4, window=30.0, sizing_failed=False):
    buckets = 30
    p50 = [r_first + (r_last - r_first) * i / (buckets - 1) for i in range(buckets)]
    axes = {THREADS: threads, "rate_per_s": rate}
    cid = f"rate_per_s={rate}"
    checks = [{"name": "open_rate", "cell": cid, "passed": abs(served - rate) / rate <= 0.02, "rel_error":
               abs(served - rate) / rate, "tolerance": 0.02, "explanation": "open_rate explanation"}]
    if sizing_failed:  # the open plan's threads all waiting on a full server
        checks.append({"name": "generator_sizing", "cell": cid, "passed": False, "rel_error": 0.97,
                       "tolerance": 0.8, "explanation": "λ·W / threads = 0.97"})
    made = typed({"id": cid, "axes": axes, "status": "complete", "users": {"n": 100},
                  "intended": {"rate_per_s": rate, "workload": "open"},
                  "overall": {"count": int(served * window), "throughput_per_s": served, "successes_per_s": served,
                              "mean_ms": (r_first + r_last) / 2, "error_rate": 0.0},
                  "window": {"length_s": window},
                  "server": {"busy_threads_mean": busy, "threads_max": threads, "service_mean_ms": 52.0},
                  "host": {"cpu_util_mean": 0.35},
                  "series": {"t_s": [float(i) for i in range(buckets)], "p50_ms": p50, "window_start_s": 0.0,
                             "window_end_s": float(buckets), "bucket_s": 1},
                  "checks": checks}, Cell)
    return made.model_copy(update={"trend": trend.trend(made.series)})  # as the cell stage gives it


def open_past_capacity(threads=4, service_ms=52.0):
    cap = threads / service_ms * 1000
    rates = [round(0.5 * cap), round(0.8 * cap), round(1.3 * cap), round(1.8 * cap)]
    cells = [open_cell(rates[0], rates[0] * 0.999, 55, 56, 0.5 * threads, threads=threads),
             open_cell(rates[1], rates[1] * 0.998, 70, 72, 0.8 * threads, threads=threads),
             open_cell(rates[2], cap * 0.99, 150, 900, threads * 0.995, threads=threads, sizing_failed=True),
             open_cell(rates[3], cap * 0.995, 200, 1300, threads * 1.0, threads=threads, sizing_failed=True)]
    return summary_of(cells, Service(threads, service_ms, "const")), cap, rates


def test_an_open_workload_past_c_over_s_is_overload_at_the_thread_pool_never_the_generator():
    for threads, service_ms in ((4, 52.0), (8, 20.0), (2, 100.0)):  # other pools and service times
        s, cap, rates = open_past_capacity(threads, service_ms)
        found = findings(s)
        kinds = {f.kind for f in found}
        sat = [f for f in found if f.kind == "saturation"]
        assert len(sat) == 1 and f"λ = {rates[2]}/s" in sat[0].statement
        over = [f for f in found if f.kind == "overload"]
        assert len(over) == 1 and over[0].standing == "holds" and over[0].resource == "thread_pool"
        assert f"exceeds capacity ≈ {cap:.3g}/s" in over[0].statement or f"exceeds capacity ≈ {cap:.0f}/s" in over[0].statement
        assert "the queue grew for the whole cell" in over[0].statement
        assert "describe the cell's length, not a steady state" in over[0].statement
        bottleneck = [f for f in found if f.kind == "bottleneck"]
        assert [b.resource for b in bottleneck] == ["thread_pool"]
        text = " ".join(f.statement for f in found)
        assert "coordinated omission" not in text and "generator" not in text.lower().replace("(network, generator", "")
        assert not [f for f in found if f.kind == "validity" and ("open_rate" in f.why or "generator" in f.statement)]
        rec = [f for f in found if f.kind == "recommendation"]
        assert rec and all("N =" not in f.statement for f in rec)  # rates, never N
        assert any(f.recommendation.startswith("run λ = ") for f in rec)
        assert "scaling" not in kinds or all("λ" in f.statement for f in found if f.kind == "scaling")


def test_the_generator_is_blamed_only_when_the_server_was_not_the_limit():
    s, _, rates = open_past_capacity()
    starved = [open_cell(r, r * 0.7, 60, 61, 1.2, sizing_failed=True) for r in (rates[0], rates[1])]
    found = findings(summary_of(starved, Service(4, 52.0, "const")))
    assert not [f for f in found if f.kind in ("overload", "saturation")]
    assert any(f.kind == "validity" and "generator_sizing" in f.why or "coordinated omission" in f.statement
               for f in found)


def test_a_constant_overhead_above_the_bound_is_said_as_such_and_not_as_a_knee():
    rng = np.random.default_rng(2)
    cells = []
    for n in (1, 2, 4, 8):
        r = 20.0 + 6.7 + rng.normal(0, 0.1)
        elapsed = np.round(rng.normal(r, 2.0, 4000)).astype(int)
        values, counts = np.unique(elapsed, return_counts=True)
        cells.append(typed({"id": f"users={n}", "axes": {THREADS: 200, "users": n}, "status": "complete",
                            "users": {"n": n}, "intended": {"think_ms": 1000.0, "workload": "closed"},
                            "overall": {"count": 4000, "throughput_per_s": n / 1.0267, "successes_per_s": n / 1.0267,
                                        "mean_ms": r, "error_rate": 0.0},
                            "window": {"length_s": 30.0}, "think_time": {"mean_ms": 1000.0, "gaps": 4000},
                            "host": {"cpu_util_mean": 0.02 * n},
                            "histogram": {"elapsed_ms": {"values": values.tolist(), "counts": counts.tolist()}},
                            "checks": []}, Cell))
    found = findings(summary_of(cells, Service(200, 20.0, "const")))
    assert not [f for f in found if f.kind == "knee"]
    knees = [f for f in found if f.kind == "overhead"]
    assert len(knees) == 1 and "No knee" in knees[0].statement
    assert "each request spends ≈ " in knees[0].statement and "a constant per-request overhead" in knees[0].statement
    assert abs(dict(knees[0].figures)["overhead_ms"] - 6.7) < 0.3
    # next cells: the pool alone puts N* = (S+Z)/(S/c) = 10 270 users; this host's CPU at 0.02·N of 2 cores per
    # N/1.03 req/s allows X ≤ 2/(0.04/0.974) ≈ 48.7/s, i.e. N ≈ 50: no proposal past that
    rec = [f for f in found if f.kind == "recommendation"]
    assert rec and all("15405" not in f.statement and "30810" not in f.statement for f in rec)
    assert any("this host allows at most N ≈" in f.statement for f in rec)
    # U/X = 0.02·1.0267 s per request of each core's time over 2 cores: X_max = 1/(0.02·1.0267) = 48.7/s,
    # reached at N = X_max·(D+Z) = 48.7 × 1.02 s
    assert math.isclose(dict(rec[0].figures)["host_max_users"], 1.02 / (0.02 * 1.0267), rel_tol=0.01)
