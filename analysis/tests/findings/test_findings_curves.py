"""Findings read the analysis's curves: an open workload past capacity is overload, not the generator; a constant
distance above the lower bound is overhead, not a knee; next cells stop where the host's CPU does."""

import math

import numpy as np
import pytest

from littlegrid.analysis.cells import Service
from littlegrid.analysis.modelling import curves
from littlegrid.analysis.queueing.laws import DEFAULT_TOLERANCES
from littlegrid.analysis.steady import trend
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
    assert len(knees) == 1 and knees[0].resource == "constant" and knees[0].standing == "holds"
    # known answers: the offset put in, 6.7 ms (cells scattered by 0.1 ms, each mean R ± 2/√4000 = 0.03 ms); the
    # margin a quarter of it; every cell's gap with its 95% interval well inside that margin
    figures = dict(knees[0].figures)
    assert figures["overhead_ms"] == pytest.approx(6.7, abs=0.3)
    assert figures["margin_ms"] == pytest.approx(figures["overhead_ms"] / 4)
    assert figures["deviation_ms"] < 0.5 < figures["margin_ms"]
    assert f"±{figures['margin_ms']:.3g} ms" in knees[0].statement  # the margin is said with the claim
    # next cells: the pool alone puts N* = (S+Z)/(S/c) = 10 270 users; this host's CPU at 0.02·N of 2 cores per
    # N/1.03 req/s allows X ≤ 2/(0.04/0.974) ≈ 48.7/s, i.e. N ≈ 50: no proposal past that
    rec = [f for f in found if f.kind == "recommendation"]
    assert rec and all("15405" not in f.statement and "30810" not in f.statement for f in rec)
    assert any("this host allows at most N ≈" in f.statement for f in rec)
    # U/X = 0.02·1.0267 s per request of each core's time over 2 cores: X_max = 1/(0.02·1.0267) = 48.7/s,
    # reached at N = X_max·(D+Z) = 48.7 × 1.02 s
    assert math.isclose(dict(rec[0].figures)["host_max_users"], 1.02 / (0.02 * 1.0267), rel_tol=0.01)


def offset_cell(n, gap, *, s_ms=20.0, z_ms=100.0, threads=200, sd=3):
    """A closed cell with no queue on paper: R = S + gap exactly, half its samples sd ms below, half above (an exact
    histogram, so its mean R has standard error ≈ sd/√count), X = N/(R+Z) over 30 s."""
    r = s_ms + gap
    half = sd if r == int(r) else sd + 0.5  # whole milliseconds on both sides
    x = n / ((r + z_ms) / 1000)
    count = 2 * int(x * 15)
    return typed({"id": f"users={n}", "axes": {THREADS: threads, "users": n}, "status": "complete",
                  "users": {"n": n}, "intended": {"think_ms": z_ms, "workload": "closed"},
                  "overall": {"count": count, "throughput_per_s": x, "successes_per_s": x, "mean_ms": r,
                              "error_rate": 0.0},
                  "window": {"length_s": 30.0}, "think_time": {"mean_ms": z_ms, "gaps": count},
                  "histogram": {"elapsed_ms": {"values": [int(r - half), int(r + half)],
                                               "counts": [count // 2, count // 2]}},
                  "checks": []}, Cell)


def no_bottleneck(gaps):
    """The grid of the issue: 200 threads of S = 20 ms, Z = 100 ms, N = 10–160, far below N* = (S+Z)/(S/c) = 1200."""
    cells = [offset_cell(n, g) for n, g in zip((10, 20, 40, 80, 160), gaps)]
    return summary_of(cells, Service(200, 20.0, "const"))


def test_a_gap_varying_four_times_beyond_its_noise_is_not_called_constant():
    # R − S = 2, 5.5, 1.5, 4 and 2.5 ms, each mean R within ±0.1 ms (3 ms either side, 700–7000 samples): it varies
    # by 4 ms, so no constant overhead; its pairs of cells differ both ways beyond noise and the ±0.78 ms margin,
    # so no trend either
    found = findings(no_bottleneck([2.0, 5.5, 1.5, 4.0, 2.5]))
    assert not [f for f in found if f.kind == "overhead"]
    (knee,) = [f for f in found if f.kind == "knee"]
    assert knee.standing == "suggests" and "not shown to rise with N: of its 10 pairs of cells, 4 fall and 4 rise" \
        in knee.statement


def test_a_gap_falling_from_a_slow_lightest_cell_is_said_to_fall():
    # the lightest cell 6 ms slower than the rest (a JIT warm-up), the others within 0.2 ms of each other (beyond
    # their noise, within the ±0.8 ms margin): R − bound falls
    found = findings(no_bottleneck([8.0, 2.1, 2.0, 1.9, 2.0]))
    (offset,) = [f for f in found if f.kind == "overhead"]
    figures = dict(offset.figures)
    assert offset.resource == "falls" and offset.standing == "holds"
    assert (figures["pairs"], figures["pairs_falling"], figures["pairs_rising"]) == (10, 4, 0)
    assert "falls as the load grows, from 8 ms at N = 10 to 2 ms at N = 160" in offset.statement
    assert "constant" not in offset.statement.split(":")[1]
    assert not [f for f in found if f.kind == "knee"]


def test_a_gap_constant_within_its_stated_margin_on_the_same_grid_is_still_constant():
    # 3, 3, 3.5, 3, 3 ms: mean 3.1, margin ±0.78 ms; the farthest, 3.5 ms (N = 40, ± 0.07), reaches 0.47 ms
    found = findings(no_bottleneck([3.0, 3.0, 3.5, 3.0, 3.0]))
    (offset,) = [f for f in found if f.kind == "overhead"]
    figures = dict(offset.figures)
    assert offset.resource == "constant"
    assert figures["overhead_ms"] == pytest.approx(3.1) and figures["margin_ms"] == pytest.approx(3.1 / 4)
    assert 0.4 < figures["deviation_ms"] < figures["margin_ms"]
    assert "every cell's within ±0.775 ms of that with its 95% interval" in offset.statement


def test_every_finding_and_the_headline_of_an_open_curve_name_its_loads_by_lambda_never_n():
    from littlegrid.findings.headline import headline as compose
    from typed_cells import update

    s, cap, rates = open_past_capacity()
    # requests waiting in front of the server at the heaviest rate, where the generator also fell short of its
    # load (a failed fidelity check): the caveat names that cell by its rate
    heavy = s.cells[-1]
    starved = update(heavy, server=update(heavy.server, waiting_in_front=3.0, wait_in_front_ms=200.0),
                     checks=[*heavy.checks, {"name": "workload", "cell": heavy.id, "passed": False, "rel_error": 0.2,
                                             "tolerance": 0.02, "explanation": "X·(R+Z) short of N"}])
    s = update(s, cells=[*s.cells[:-1], starved])
    found = findings(s)
    texts = [t for f in found for t in (f.statement, f.why)] + compose(s, found, False)["sentences"]
    assert not [t for t in texts if "N = " in t]
    waiting = [f for f in found if f.kind == "waiting" and f.resource == "in_front"]
    assert waiting and f"the generator is starved at λ = {rates[3]}/s" in waiting[0].why
    (sat,) = [f for f in found if f.kind == "saturation"]
    assert f"from λ = {rates[2]}/s on (λ = {rates[2]} and {rates[3]}/s" in sat.statement


def test_on_an_open_grid_the_headline_names_the_offered_rate_of_the_cell_its_waiting_figure_comes_from():
    """The open grid of issue 62 (4 threads × 52 ms; offered 38, 62, 100 and 138/s): the server holds its 4 while
    X·R grows with the queue; the headline's load is the λ of the cell the waiting figure is from, never X·R (51.9
    in flight once named "λ = 52/s") nor the plan's threads."""
    from littlegrid.analysis.queueing import little
    from littlegrid.findings import headline
    from typed_cells import update, update_cells

    s, cap, rates = open_past_capacity()

    def measured(c):
        server = {"busy_threads_mean": c.server.busy_threads_mean, "threads_max": c.server.threads_max,
                  "service_mean_ms": 52.0, "in_flight_mean": min(4.0, c.overall.throughput_per_s * 0.052),
                  "throughput_per_s": c.overall.throughput_per_s}
        return update(c, server=server | little.boundaries(c.overall.throughput_per_s, c.overall.mean_ms, server))

    s = update_cells(s, measured)
    found = findings(s)
    waiting = next(f for f in found if f.kind == "waiting" and f.resource == "in_front")
    figures = dict(waiting.figures)
    heaviest = s.cells[-1]
    assert figures["load"] == rates[3] and figures["users"] == 100  # the open plan's threads: never a load
    in_flight = heaviest.overall.throughput_per_s * heaviest.overall.mean_ms / 1000
    assert figures["waiting_in_front"] == pytest.approx(in_flight - heaviest.server.in_flight_mean)
    first = headline(s, found)["sentences"][0]
    assert f"at λ = {rates[3]}/s, about {in_flight - 4.0:.2g} requests wait in front of the server" in first, first
    assert f"λ = {in_flight:.0f}/s" not in first  # X·R in flight is no offered rate
